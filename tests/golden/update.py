"""Rewrite the golden files: `make golden` (or `python tests/golden/update.py [backend ...]`).

Each backend has its own function here; the tests compare what the backend prints
now with these files and print the difference.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

GOLDEN = Path(__file__).resolve().parent
ROOT = GOLDEN.parent.parent


# --- Excel: a sorted `sheet!cell = formula` dump of each model's sheet (and the catalog's) ------------


def excel_cells(project=None) -> dict[str, str]:
    """file name -> its text: every formula cell of each chain's sheet, in row then column order."""
    import openpyxl

    from chainc import Project
    from chainc.backends import BuildOptions
    from chainc.backends.excel import build_workbook
    from chainc.build import reports_for

    project = project or Project(ROOT)
    reports, catalog = reports_for(project, project.model_names(), BuildOptions(out=ROOT / "exports"))
    data, _ = build_workbook(reports, catalog)
    wb = openpyxl.load_workbook(io.BytesIO(data))
    files = {}
    for ws in wb.worksheets:
        if ws.title == "Cover":
            continue
        lines = [f"{ws.title}!{c.coordinate} = {c.value}" for row in ws.iter_rows() for c in row if c.data_type == "f"]
        files[f"{ws.title.lower()}.cells"] = "\n".join(lines) + "\n"
    return files


def update_excel() -> None:
    for name, text in excel_cells().items():
        (GOLDEN / name).write_text(text)
        print(f"wrote tests/golden/{name}")


UPDATES = {"excel": update_excel}


def main(argv: list[str]) -> None:
    for name in argv or list(UPDATES):
        if name not in UPDATES:
            raise SystemExit(f"unknown backend {name!r}; known: {', '.join(UPDATES)}")
        UPDATES[name]()


if __name__ == "__main__":
    main(sys.argv[1:])
