"""The catalog: GPUs and LLMs in hardware/, each entry a small model of its own (loaded here, solved by the solver).

`hardware/<kind>s/fields.yaml` declares every field of a kind (unit, meaning), so
every chain runs on every entry. An entry names its documents under `sources:`
and types each measured value as `{value: ..., source: <key>, note: ...}`, so a
command can print where every number comes from; it states derived sizes
(weight bytes, KV bytes per token) as equations, which the solver evaluates
like any other model. A field marked `optional: true` may be left out of an
entry that has no such thing (MLA's compressed KV in a model without MLA).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import Loc, ModelError
from .ids import valid_id

if TYPE_CHECKING:
    import sympy as sp

    from .ir import Model
    from .units import Dim

KINDS = {"gpu": "gpus", "llm": "llms"}


@dataclass(frozen=True)
class FieldSpec:
    name: str
    unit: str
    factor: sp.Rational
    dim: Dim
    description: str
    latex: str
    optional: bool = False  # an entry may leave it out: it then has none, as if null


@dataclass(frozen=True, eq=False)  # identity: an entry is loaded once per catalog
class Entry:
    kind: str
    id: str
    title: str
    about: str
    path: str
    model: Model  # typed values as inputs, derived sizes as equations (the solver computes them)
    fields: tuple[str, ...]  # every field of the kind
    typed: tuple[str, ...]  # fields typed in the entry (the rest are derived, or absent: null)
    sources: dict[str, str]  # key -> the document it names
    cited: dict[str, tuple[str | None, str]]  # field -> (its source key, its note), for typed and null values
    derived: dict[str, str]  # derived field -> its equation as written


class Catalog:
    """The catalog over layers of hardware/ folders: the project's first, then the bundled one.

    An id is looked up layer by layer (the first wins, so a project can override a
    bundled entry); the fields come from the last layer, the bundled library, so
    every chain keeps running on every entry.
    """

    def __init__(self, layers: list[tuple[Path, str]] | Path):
        if isinstance(layers, (str, Path)):
            layers = [(Path(layers), "project")]
        self.layers = [(Path(folder), label) for folder, label in layers]
        self.root = self.layers[-1][0]
        self._entries: dict[tuple[str, str], Entry] = {}

    @cached_property
    def fields(self) -> dict[str, dict[str, FieldSpec]]:
        # loading needs the parser (SymPy, pint); finding an entry's file does not (the warm path)
        from .load import Builder
        from .schema import validate
        from .schema_catalog import FIELDS_SCHEMA
        from .source import load_yaml

        out = {}
        for kind, folder in KINDS.items():
            path = self.root / folder / "fields.yaml"
            for root, label in self.layers[:-1]:  # a copy of the bundled fields is harmless; other fields are not
                own = root / folder / "fields.yaml"
                if own.is_file() and own.read_bytes() != path.read_bytes():
                    raise ModelError(
                        f"the {label}'s {folder}/fields.yaml differs from the bundled one", Loc(str(own)), "the fields are the bundled library's, so every chain runs on every entry: remove this file"
                    )
            src = load_yaml(path)
            validate(src, FIELDS_SCHEMA)
            b = Builder(src, None)
            specs = {}
            for name, f in src.data["fields"].items():
                unit, _, factor, dim = b.unit(f["unit"], ("fields", name, "unit"))
                specs[name] = FieldSpec(name, unit if unit != "1" else "", factor, dim, f["description"], f.get("symbol", ""), bool(f.get("optional")))
            out[kind] = specs
        return out

    def field(self, kind: str, name: str) -> FieldSpec | None:
        return self.fields[kind].get(name)

    def files(self, kind: str) -> list[tuple[str, Path, str, bool]]:
        """(id, path, layer label, overridden) of every entry file of every layer; the first of an id wins."""
        seen, out = set(), []
        for root, label in self.layers:
            folder = root / KINDS[kind]
            for p in sorted(folder.glob("*.yaml")) if folder.is_dir() else []:
                if p.stem != "fields" and valid_id(p.stem):
                    out.append((p.stem, p, label, p.stem in seen))
                    seen.add(p.stem)
        return out

    def ids(self, kind: str) -> list[str]:
        return sorted({i for i, _, _, over in self.files(kind) if not over})

    def path(self, kind: str, entry_id: str) -> Path | None:
        """The entry's file: ids are names, never paths, and the file must lie inside its layer."""
        if entry_id == "fields" or not valid_id(entry_id):
            return None
        for root, _ in self.layers:
            folder = root / KINDS[kind]
            candidate = folder / f"{entry_id}.yaml"
            if candidate.is_file():
                try:
                    resolved = candidate.resolve()
                except (OSError, RuntimeError):
                    return None
                return resolved if resolved.is_relative_to(folder.resolve()) else None
        return None

    def entry(self, kind: str, entry_id: str) -> Entry | None:
        key = (kind, entry_id)
        if key not in self._entries:
            path = self.path(kind, entry_id)
            if path is None:
                return None
            self._entries[key] = self._load(kind, path)
        return self._entries[key]

    def entries(self, kind: str) -> list[Entry]:
        return [self.entry(kind, i) for i in self.ids(kind)]

    def _load(self, kind: str, path: Path) -> Entry:
        from .ir import Model
        from .load import Builder
        from .schema import validate
        from .schema_catalog import CATALOG_SCHEMA
        from .source import load_yaml

        src = load_yaml(path)
        validate(src, CATALOG_SCHEMA)
        d = src.data
        if d["id"] != path.stem:
            raise ModelError(f"entry id '{d['id']}' does not match its file name '{path.stem}'", src.loc(("id",)), f"rename the file or write id: {path.stem}")
        fields = self.fields[kind]
        b = Builder(src, None)
        values, cited = _cited_values(src, kind, fields)
        derived = {str(e).split("=", 1)[0].strip(): str(e).strip() for e in d.get("derived") or []}
        for name, f in fields.items():
            if name in values and values[name] is None:
                continue  # the entry has no such value (an A100 has no FP8)
            if name not in values and name not in derived:
                if f.optional:
                    continue  # a field only some entries have (MLA's compressed KV)
                raise ModelError(
                    f"{kind} entry '{d['id']}' lacks the field '{name}'", src.loc(("values",), key=True), f"add '{name}: {{value: <value> {f.unit}, source: <key>}}', or derive it under derived:"
                )
            kp = ("values", name) if name in values else ("derived",)
            v = b.declare(name, {"unit": f.unit, "description": f.description, "symbol": f.latex, "domain": "nonnegative"}, kp)
            if name in values:
                b.finish_variable(v, {"value": values[name]}, kp)
        equations = tuple(b.equation(i, e, ("derived", i)) for i, e in enumerate(d.get("derived") or []))
        model = Model(
            name=d["id"], title=d["title"], about=(d.get("about") or "").strip(), path=str(path), gpu=None, llm=None, imports=(),
            variables=dict(b.variables), params={}, equations=equations, tables={}, aggregates={}, questions={}, checks=(), sweeps={}, loc=src.loc(()),
        )  # fmt: skip
        typed = tuple(n for n in fields if n in values and values[n] is not None)
        return Entry(kind, d["id"], d["title"], model.about, str(path), model, tuple(fields), typed, dict(d.get("sources") or {}), cited, derived)


def _cited_values(src, kind: str, fields: dict) -> tuple[dict, dict]:
    """Each typed value with the source it cites: a located error for a value that cites none or an unknown one, and for a source no value cites."""
    d = src.data
    sources = d.get("sources") or {}
    values, cited = {}, {}
    for name, raw in (d.get("values") or {}).items():
        if name not in fields:
            raise ModelError(f"'{name}' is not a {kind} field", src.loc(("values", name), key=True), f"fields are declared in {KINDS[kind]}/fields.yaml: {', '.join(fields)}")
        if raw is None:  # the entry has no such value
            values[name], cited[name] = None, (None, "")
            continue
        if not isinstance(raw, dict):
            unit = f" {fields[name].unit}" if fields[name].unit and isinstance(raw, (int, float)) else ""
            raise ModelError(
                f"the value of '{name}' cites no source", src.loc(("values", name)), f"write {name}: {{value: {raw}{unit}, source: <key>}} with a key of sources: ({', '.join(sources) or 'none yet'})"
            )
        key = raw["source"]
        if key not in sources:
            close = difflib.get_close_matches(key, list(sources), n=3)
            hint = f"did you mean {' or '.join(close)}?" if close else f"add it under sources: (known: {', '.join(sources) or 'none'})"
            raise ModelError(f"'{name}' cites the source '{key}', which sources: does not name", src.loc(("values", name, "source")), hint)
        values[name], cited[name] = raw["value"], (key, str(raw.get("note") or ""))
    unused = [k for k in sources if k not in {c[0] for c in cited.values()}]
    if unused:
        raise ModelError(f"the source '{unused[0]}' is cited by no value", src.loc(("sources", unused[0]), key=True), "cite it from a value (source: <key>) or remove it")
    return values, cited
