"""Build hooks that pyproject.toml cannot express.

The source folder is `compiler/`, the import name is `chainc` (package-dir maps
one onto the other), and the bundled library — the card's chains in models/ and
the catalog in hardware/, kept at the top of the repository — is copied into the
wheel as `chainc/library/` at build time, with the manual (README.md, docs/*.md) for `chainc docs`. An editable install reads the library
from the source tree instead (see compiler/project.py, `bundled_root`).
"""

import shutil
from pathlib import Path

from setuptools import find_namespace_packages, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
LIBRARY = ("models", "hardware", "calibrations")


class build_with_library(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        target = Path(self.build_lib, "chainc", "library")
        for folder in LIBRARY:
            shutil.rmtree(target / folder, ignore_errors=True)
            shutil.copytree(HERE / folder, target / folder, ignore=lambda d, names: [n for n in names if not (n.endswith(".yaml") or (Path(d) / n).is_dir())])
        # the manual, for `chainc docs`: pip users have no repository to read it in
        shutil.rmtree(target / "docs", ignore_errors=True)
        shutil.copytree(HERE / "docs", target / "docs", ignore=lambda d, names: [n for n in names if not n.endswith(".md")])
        shutil.copyfile(HERE / "README.md", target / "README.md")


setup(
    package_dir={"chainc": "compiler"},
    packages=["chainc", *(f"chainc.{p}" for p in find_namespace_packages("compiler", exclude=["*__pycache__*"]))],
    cmdclass={"build_py": build_with_library},
)
