"""A project: the user's folder of models/ (and hardware/), layered over the bundled library.

The project is found as git and ruff find theirs: `--root DIR`, else
`CHAINC_ROOT`, else the nearest folder upward from the working directory that
holds a `chainc.toml` (or a `models/` folder), else the bundled library alone.
Every name a model or the command line uses (a model, a GPU, an LLM) is an id,
looked up layer by layer — the project's own files first, then the bundled
library's — and the file it resolves to must lie inside that layer's folder.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ArgumentError, Loc, ModelError, display_path
from .ids import valid_id
from .limits import LIMITS

if TYPE_CHECKING:
    from .catalog import Catalog
    from .ir import Model

PACKAGE = Path(__file__).resolve().parent
CONFIG = "chainc.toml"


def bundled_root() -> Path:
    """The library shipped with chainc: inside the wheel, or the source tree of an editable install."""
    inside = PACKAGE / "library"
    return inside if (inside / "models").is_dir() else PACKAGE.parent


def inside(path: Path, folder: Path) -> Path | None:
    """`path` resolved (symlinks followed), if it is a file inside `folder`; else None."""
    try:
        resolved = path.resolve()
    except (OSError, RuntimeError):
        return None
    return resolved if resolved.is_relative_to(folder.resolve()) and resolved.is_file() else None


@dataclass(frozen=True)
class Layer:
    """One folder of the library: the project's own, or the bundled one."""

    root: Path
    label: str  # 'project' | 'bundled'

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def hardware(self) -> Path:
        return self.root / "hardware"


def _is_project(folder: Path) -> bool:
    return (folder / CONFIG).is_file() or (folder / "models").is_dir()


def find_root(root: str | Path | None = None, start: Path | None = None) -> Path | None:
    """The project folder, or None for the bundled library alone. A named root must be a project."""
    named, how = (root, "--root") if root is not None else (os.environ.get("CHAINC_ROOT") or None, "CHAINC_ROOT")
    if named is not None:
        folder = Path(named).expanduser()
        if not folder.is_dir():
            raise ArgumentError(f"{how}: no folder {named}", None, f"create it with `chainc init {named}`, or point {how} at a folder holding models/")
        if not _is_project(folder):
            raise ArgumentError(f"{how}: {named} holds no models/ folder and no {CONFIG}", None, f"`chainc init {named}` makes it a project")
        return folder.resolve()
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if _is_project(folder):
            return folder
    return None


def read_config(root: Path) -> dict:
    path = root / CONFIG
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise ModelError(f"{CONFIG} is not valid TOML: {e}", Loc(display_path(path)), "see `chainc init` for a fresh one") from None
    unknown = sorted(set(data) - {"project"})
    if unknown:
        raise ModelError(f"{CONFIG}: unknown table '{unknown[0]}'", Loc(display_path(path)), "chainc.toml holds a [project] table with a name")
    return data


class Project:
    """The layers, the catalog over them, and the models loaded from them (each once)."""

    def __init__(self, root: Path | str | None = None, *, bundled: Path | None = None):
        found = find_root(root)
        library = (bundled or bundled_root()).resolve()
        # the source tree's own checkout is the bundled library, not a project layered over it
        layers = [Layer(found, "project")] if found is not None and found != library else []
        layers.append(Layer(library, "bundled"))
        self.layers = tuple(layers)
        self.root = self.layers[0].root
        self.bundled_only = len(layers) == 1 and found is None
        self.config = read_config(found) if found is not None else {}
        self._models: dict[Path, Model] = {}
        self._depth: dict[Path, tuple[int, Path | None]] = {}  # a loaded model's longest chain of imports: its length, its first step
        self._loading: list[_Loading] | None = None  # the files being loaded, each importing the next

    @cached_property
    def catalog(self) -> Catalog:
        from .catalog import Catalog  # loading (SymPy, pint) only when a model or entry is read: the warm path needs neither

        return Catalog([(layer.hardware, layer.label) for layer in self.layers])

    @property
    def exports(self) -> Path:
        """Where `chainc build` writes: the project's exports/, or ./exports for the bundled library alone."""
        return (Path.cwd() if self.bundled_only else self.root) / "exports"

    @property
    def own(self) -> Layer:
        """The layer `chainc check` and `chainc build` work on by default."""
        return self.layers[0]

    def model_files(self, layer: Layer) -> list[Path]:
        return sorted(p for p in layer.models.glob("*.yaml") if valid_id(p.stem)) if layer.models.is_dir() else []

    def model_names(self) -> list[str]:
        """The models of the project's own layer (the bundled library when there is no project)."""
        return [p.stem for p in self.model_files(self.own)]

    def all_models(self) -> list[tuple[str, Path, Layer, bool]]:
        """(name, path, layer, overridden): every model file of every layer, the first of a name wins."""
        seen, out = set(), []
        for layer in self.layers:
            for p in self.model_files(layer):
                out.append((p.stem, p, layer, p.stem in seen))
                seen.add(p.stem)
        return out

    def find(self, name: str) -> Path | None:
        """A model id -> its file in the first layer that has it."""
        if not valid_id(name):
            return None
        for layer in self.layers:
            hit = inside(layer.models / f"{name}.yaml", layer.models)
            if hit is not None:
                return hit
        return None

    def resolve(self, name_or_path: str, loc: Loc | None = None) -> Path:
        """What the command line names: a path to a model file, or a model id."""
        if name_or_path.endswith((".yaml", ".yml")) or "/" in name_or_path or os.sep in name_or_path:
            path = Path(name_or_path).expanduser()
            if not path.is_file():
                raise ArgumentError(f"no model file {name_or_path}", None, "give a path to a .yaml model, or a model name (chainc list)")
            return path.resolve()
        path = self.find(name_or_path)
        if path is None:
            raise ModelError(f"no model '{name_or_path}'", loc, self._known_hint())
        return path

    def _known_hint(self) -> str:
        names = sorted({n for n, *_ in self.all_models()})
        return f"models: {', '.join(names)}" if names else "no models found; `chainc init` starts a project"

    def model(self, name_or_path: str, *, loc: Loc | None = None) -> Model:
        return self.load(self.resolve(name_or_path, loc))

    def imported(self, name: str, loc: Loc | None, near: Path | None = None) -> Model:
        """A model another model imports: an id, or a path relative to the importing file (`near`) inside the project."""
        if near is not None and (name.endswith(".yaml") or "/" in name):
            try:
                path = (near / name).resolve()
                found = path.is_file()
            except (OSError, ValueError, RuntimeError) as e:  # a NUL byte, a name too long, a loop of symbolic links
                raise ModelError(f"'{name}' is no path a model file can have ({e})", loc, "write the path of a .yaml file inside the project, relative to this file") from None
            if self.layer_of(path) is None or path.suffix != ".yaml":
                raise ModelError(f"'{name}' is outside the project", loc, "an import's path stays inside the project's folders (and the bundled library's): a .yaml file")
            if not found:
                raise ModelError(f"no model file '{name}' next to this one", loc, f"looked for {display_path(path)}")
            return self._import(path, loc)
        if not valid_id(name):
            raise ModelError(f"'{name}' is not a model name", loc, "imports name a model by its id, such as goodput")
        path = self.find(name)
        if path is None:
            raise ModelError(f"no model '{name}' to import", loc, self._known_hint())
        return self._import(path, loc)

    def load(self, path: Path) -> Model:
        """A model file, loaded once, with every model it imports loaded first, deepest first.

        No recursion: a file whose import is not loaded yet stops (Pending), the import is
        loaded, and the file is read again from its parsed source. So a chain of imports is
        bounded by the import_depth limit, not by Python's stack.
        """
        from .load import Pending, load_model  # see catalog: only when a model is read

        if path in self._models:
            return self._models[path]
        outer, self._loading = self._loading, [_Loading(path)]
        try:
            while self._loading:
                top = self._loading[-1]
                top.depth, top.via = 0, None  # each attempt measures its imports afresh
                try:
                    model = load_model(display_path(top.path), self, src=top.src)
                except Pending as p:
                    top.src = p.src
                    self._loading.append(_Loading(p.path))
                    continue
                self._models[top.path] = model
                self._depth[top.path] = (top.depth, top.via)
                self._loading.pop()
        finally:
            self._loading = outer
        return self._models[path]

    def _import(self, path: Path, loc: Loc | None) -> Model:
        """The model at `path` for the file being loaded: loaded already, or Pending; a loop or a chain past the limit is an error."""
        if self._loading is None:  # read outside a load (load_model called directly, deps): load it now
            return self.load(path)
        top = self._loading[-1]
        if path in self._models:
            depth = self._depth.get(path, (0, None))[0] + 1
            if depth > top.depth:
                top.depth, top.via = depth, path
            if depth > (allowed := LIMITS["import_depth"].value()):
                chain = [top.path, *self._chain(path)]
                lim = LIMITS["import_depth"]
                raise ModelError(f"a chain of {depth:,} imports is more than the limit {lim.name} ({allowed:,}) allows: {_shown_chain(self, chain)}", loc, lim.how)
            return self._models[path]
        on = [f.path for f in self._loading]
        if path in on:
            loop = [*on[on.index(path) :], path]
            raise ModelError(f"models import each other in a loop: {' -> '.join(_names(self, loop))}", loc, "a model can build on another only one way round")
        from .load import Pending

        raise Pending(path)

    def _chain(self, path: Path) -> list[Path]:
        """The longest chain of imports from a loaded model, itself first."""
        out = [path]
        while (via := self._depth.get(out[-1], (0, None))[1]) is not None:
            out.append(via)
        return out

    def source(self, path: Path | str) -> str:
        """A model file as outputs name it, the same on every machine: relative to its library folder."""
        p = Path(path).resolve()
        layer = self.layer_of(p)
        return p.relative_to(layer.root).as_posix() if layer is not None else p.name

    def layer_of(self, path: Path | str) -> Layer | None:
        p = Path(path).resolve()
        return next((layer for layer in self.layers if p.is_relative_to(layer.root)), None)


@dataclass
class _Loading:
    """A file on Project.load's stack: its parsed source once read, the longest chain its imports make so far."""

    path: Path
    src: object = None
    depth: int = 0
    via: Path | None = None


def _names(project: Project, paths: list[Path]) -> list[str]:
    """Models as a chain names them: by name, or by file where two files of the chain share a name."""
    stems = [p.stem for p in paths]
    clash = {s for s in stems if len({p for p in paths if p.stem == s}) > 1}
    return [project.source(p) if p.stem in clash else p.stem for p in paths]


def _shown_chain(project: Project, paths: list[Path], ends: int = 3) -> str:
    """'a -> b -> c -> ... (95 more) -> y -> z': a long chain by its first and last models."""
    names = _names(project, paths)
    if len(names) <= 2 * ends + 1:
        return " -> ".join(names)
    return " -> ".join([*names[:ends], f"... ({len(names) - 2 * ends:,} more)", *names[-ends:]])
