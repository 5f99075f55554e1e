"""A project: the folder holding models/ and hardware/, and the models loaded from it."""

from __future__ import annotations

import os
from pathlib import Path

from .catalog import Catalog
from .errors import Loc, ModelError
from .ir import Model

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def find_root(start: Path | None = None) -> Path:
    """CHAINC_ROOT, else the nearest folder up from `start` with models/ and hardware/, else the source tree."""
    if os.environ.get("CHAINC_ROOT"):
        return Path(os.environ["CHAINC_ROOT"]).resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "models").is_dir() and (folder / "hardware").is_dir():
            return folder
    return PACKAGE_ROOT


def display_path(path: Path) -> str:
    """Paths in messages: relative to the working folder when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


class Project:
    def __init__(self, root: Path | str | None = None):
        self.root = Path(root).resolve() if root else find_root()
        self.catalog = Catalog(self.root / "hardware")
        self._models: dict[Path, Model] = {}

    @property
    def models_dir(self) -> Path:
        return self.root / "models"

    def model_names(self) -> list[str]:
        return sorted(p.stem for p in self.models_dir.glob("*.yaml"))

    def path_of(self, name_or_path: str) -> Path:
        p = Path(name_or_path)
        if p.suffix in (".yaml", ".yml") or os.sep in name_or_path:
            return p.resolve()
        return (self.models_dir / f"{name_or_path}.yaml").resolve()

    def model(self, name_or_path: str, *, _stack: tuple[str, ...] = (), loc: Loc | None = None) -> Model:
        from .load import load_model

        path = self.path_of(name_or_path)
        if path not in self._models:
            if not path.is_file():
                names = ", ".join(self.model_names())
                raise ModelError(f"no model '{name_or_path}'", loc or Loc(str(path)), f"models in {self.models_dir}: {names}")
            self._models[path] = load_model(display_path(path), self, _stack=_stack)
        return self._models[path]
