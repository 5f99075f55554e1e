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


# --- the formats ------------------------------------------------------------------------------------------

FORMATS = {"py": python_modules}


def main(argv: list[str]) -> None:
    for fmt in argv or list(FORMATS):
        for name, text in FORMATS[fmt]().items():
            path = GOLDEN / name
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
                print(f"wrote {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
