"""Rewrite the golden files in this folder: `make golden`, or `python tests/golden/update.py [FORMAT ...]`.

Each format owns a section below: a function that renders its outputs of every
bundled model at default options (file name -> text), and FORMATS maps the format
to it. tests/test_golden.py compares the files here with a fresh rendering and
prints a unified diff on any difference; run this script after a deliberate
change and review the diff before committing.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))


def _project():
    from chainc import Project

    return Project(ROOT)


# --- py: the Python backend's module of each bundled model ---------------------------------------------


def python_modules() -> dict[str, str]:
    """`<module>.py` of every bundled model, as `chainc build --format py` writes it (default options)."""
    from chainc.backends import BuildOptions
    from chainc.backends import python as python_backend
    from chainc.build import reports_for

    project = _project()
    options = BuildOptions(GOLDEN)
    reports, catalog = reports_for(project, project.model_names(), options)
    return {f"{python_backend.module_name(r.model)}.py": python_backend.render(r, catalog, options) for r in reports}


# --- xlsx: a sorted `sheet!cell = formula` dump of each model's sheet (and the catalog's) ------------------


def excel_cells(project=None) -> dict[str, str]:
    """`<sheet>.cells` of the bundled workbook: every formula cell of each sheet, in row then column order."""
    import io

    import openpyxl

    from chainc.backends import BuildOptions
    from chainc.backends.excel import build_workbook
    from chainc.build import reports_for

    project = project or _project()
    reports, catalog = reports_for(project, project.model_names(), BuildOptions(out=ROOT / "exports"))
    data, _ = build_workbook(reports, catalog)
    wb = openpyxl.load_workbook(io.BytesIO(data))
    files = {}
    for ws in wb.worksheets:
        if ws.title == "Cover":
            continue
        # an array formula (openpyxl's ArrayFormula) prints as {=...}, as Excel shows it
        lines = [f"{ws.title}!{c.coordinate} = {c.value if isinstance(c.value, str) else '{' + c.value.text + '}'}" for row in ws.iter_rows() for c in row if c.data_type == "f"]
        files[f"{ws.title.lower()}.cells"] = "\n".join(lines) + "\n"
    return files


# --- tex: each bundled model's derivation sheet, the body the templates render for it -----------------------


def tex_bodies(project=None) -> dict[str, str]:
    """`<model>.tex-body`: the sheet of each bundled model as <model>.tex and derivations.tex hold it (default options)."""
    from chainc.backends import BuildOptions
    from chainc.backends.latex.assemble import environment, sheet_body
    from chainc.build import reports_for

    project = project or _project()
    reports, _ = reports_for(project, project.model_names(), BuildOptions(out=ROOT / "exports"))
    env = environment()
    return {f"{r.model.name}.tex-body": sheet_body(env, r)[0] for r in reports}


# --- the formats ------------------------------------------------------------------------------------------

FORMATS = {"py": python_modules, "xlsx": excel_cells, "tex": tex_bodies}


def main(argv: list[str]) -> None:
    for fmt in argv or list(FORMATS):
        for name, text in FORMATS[fmt]().items():
            path = GOLDEN / name
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
