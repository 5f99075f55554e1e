"""What running and printing a model need, without SymPy or pint: the form the plan cache stores.

`describe(model)` keeps a model's names, units, factors, domains, questions and
checks as plain data; `encode`/`decode` turn those, Programs and prepared query
shapes into JSON and back. Decoding builds only the classes registered here, from
data the cache itself wrote: a file that does not decode is a cache miss.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from fractions import Fraction

from . import program as P
from .compare import PreparedCheck
from .errors import Loc
from .execute import Prepared, PreparedQuestion
from .results import Asking
from .search_data import AxisInfo, ConditionInfo, GoalInfo, PreparedChoose, SearchInfo, Unavailable


@dataclass(frozen=True)
class VarInfo:
    name: str
    unit: str
    factor: Fraction
    dim: dict  # '[time]' -> exponent
    description: str = ""
    digits: int | None = None
    loc: Loc | None = None
    default: bool | None = None  # True when the variable has a default (an input); None otherwise
    choices: tuple = ()  # a choice variable's names (lookups.py)


@dataclass(frozen=True)
class TableInfo:
    name: str
    about: str
    columns: tuple[VarInfo, ...]


@dataclass(frozen=True)
class QuestionInfo:
    name: str
    ask: str
    find: str
    condition_text: str
    seek: str
    loc: Loc | None


@dataclass(frozen=True)
class Expectation:
    name: str
    value: Fraction | float
    written: str
    abs_tol: Fraction | float | None
    rel_tol: Fraction | float | None


@dataclass(frozen=True)
class CheckInfo:
    index: int
    about: str
    given: tuple  # (name, base value)
    expect: tuple[Expectation, ...]
    that: object  # a program expression, or None
    that_text: str
    question: str | None
    loc: Loc | None
    entries: tuple = ()  # a search's check: (kind, id) its best configuration must choose


@dataclass(frozen=True)
class EntryInfo:
    kind: str
    id: str
    title: str


@dataclass(frozen=True, eq=False)
class ModelInfo:
    name: str
    title: str
    about: str
    path: str
    gpu: str | None
    llm: str | None
    variables: dict
    params: dict
    tables: dict
    questions: dict
    checks: tuple = ()
    expected_from: str = ""  # ir.Model.expected_from

    def quantity(self, name: str):
        return self.variables.get(name) or self.params.get(name)


def _info(q, default=None) -> VarInfo:
    from .quantities import dims

    return VarInfo(q.name, q.unit, Fraction(int(q.factor.p), int(q.factor.q)), dims(q.dim), q.description, getattr(q, "digits", None), q.loc, default, tuple(getattr(q, "choices", ())))


def describe(model) -> ModelInfo:
    """A loaded ir.Model as plain data (what the warm path prints and runs with)."""
    from . import lower
    from .numbers import exact

    variables = {n: _info(v, True if v.default is not None else None) for n, v in model.variables.items()}
    params = {n: _info(p) for n, p in model.params.items()}
    tables = {n: TableInfo(n, t.about, tuple(_info(c) for c in t.columns)) for n, t in model.tables.items()}
    questions = {n: QuestionInfo(n, q.ask, q.find, q.condition_text, q.seek, q.loc) for n, q in model.questions.items()}

    def tol(x):
        return None if x is None else exact(x)

    checks = tuple(
        CheckInfo(
            c.index,
            c.about,
            tuple((n, exact(v)) for n, v in c.given),
            tuple(Expectation(e.name, exact(e.value), e.written, tol(e.abs_tol), tol(e.rel_tol)) for e in c.expect),
            lower.expr(c.that) if c.that is not None else None,
            c.that_text,
            c.question,
            c.loc,
            tuple(c.entries),
        )
        for c in model.checks
    )
    return ModelInfo(model.name, model.title, model.about, model.path, model.gpu, model.llm, variables, params, tables, questions, checks, model.expected_from)


# --- JSON ------------------------------------------------------------------------------------------------

_CLASSES = {
    c.__name__: c
    for c in (
        P.Num, P.Const, P.Ref, P.Add, P.Mul, P.Pow, P.Call, P.Cmp, P.Logic, P.Choice, P.Sum,
        P.Site, P.Assign, P.Guard, P.Check, P.Pick, P.Search, P.Column, P.Loop, P.Domain, P.Program, P.Physical,
        Loc, VarInfo, TableInfo, QuestionInfo, Expectation, CheckInfo, EntryInfo, ModelInfo, Prepared, PreparedQuestion, PreparedCheck, Asking,
        PreparedChoose, SearchInfo, AxisInfo, GoalInfo, ConditionInfo, Unavailable,
    )
}  # fmt: skip


_FIELDS = {name: tuple(f.name for f in dataclasses.fields(cls)) for name, cls in _CLASSES.items()}


def encode(root) -> dict:
    """An object graph of registered dataclasses, Fractions and containers as JSON-able data.

    Each object is written once, in a table, children before parents; a second reference
    to it (the model's description in every prepared shape, a shared program) is its index.
    """
    table: list = []
    index: dict[int, int] = {}

    def enc(x):
        if x is None or isinstance(x, (bool, int, str)):
            return x
        if isinstance(x, float):
            return {"f": repr(x)}
        if isinstance(x, Fraction):
            return {"q": f"{x.numerator}/{x.denominator}"}
        if isinstance(x, (tuple, list)):
            return [enc(v) for v in x]
        if isinstance(x, frozenset):
            return {"s": sorted((enc(v) for v in x), key=repr)}
        if isinstance(x, dict):
            return {"d": [[enc(k), enc(v)] for k, v in x.items()]}
        name = type(x).__name__
        if name not in _CLASSES or not dataclasses.is_dataclass(x):
            raise TypeError(f"cannot encode {name}")
        k = index.get(id(x))
        if k is None:
            table.append([name, *(enc(getattr(x, f)) for f in _FIELDS[name])])
            k = index[id(x)] = len(table) - 1
        return {"r": k}

    return {"objects": table, "root": enc(root)}


def decode(data: dict):
    """The inverse of encode; anything else (an unknown class, a malformed value) raises ValueError."""
    objects: list = []

    def dec(x):
        if x is None or isinstance(x, (bool, int, str)):
            return x
        if isinstance(x, list):
            return tuple(dec(v) for v in x)
        if isinstance(x, dict) and len(x) == 1:
            ((tag, v),) = x.items()
            if tag == "r":
                return objects[v]
            if tag == "f":
                return float(v)
            if tag == "q":
                p, q = v.split("/")
                return Fraction(int(p), int(q))
            if tag == "s":
                return frozenset(dec(i) for i in v)
            if tag == "d":
                return {dec(k): dec(i) for k, i in v}
        raise ValueError("malformed cache data")

    for item in data["objects"]:
        cls = _CLASSES.get(item[0]) if isinstance(item, list) and item else None
        if cls is None or len(item) != len(_FIELDS[item[0]]) + 1:
            raise ValueError("unknown or malformed object in cache data")
        objects.append(cls(*(dec(v) for v in item[1:])))
    return dec(data["root"])
