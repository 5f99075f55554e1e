"""Everything a derivation sheet shows around the steps, from one Report.

`sheet(report)` adds to the derivation (steps.py) the hardware and its catalog
values, the inputs, tables, questions (with the boundary's own derivation and the
rounding), checks and sweeps. Printers (compiler/backends/latex/, and
compiler/backends/text.py for `--explain`) decide how they look.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

import sympy as sp

from .. import lower
from ..compare import relation
from ..errors import ChaincError
from ..format import fmt
from ..ir import Check, Model, Quantity, Question, Variable
from ..results import Answer, CheckOutcome, Report, Solution, SweepResult
from .literals import Dims, base_unit
from .searches import SearchView, searches
from .shown import Shown, shown, shown_boundary
from .steps import Step, closed_form, derive


@dataclass(frozen=True)
class CatalogUse:
    kind: str  # 'gpu' | 'llm' | an import alias
    id: str
    title: str
    values: tuple[tuple[str, str, str, Shown], ...]  # (reference, latex symbol, description, value)


@dataclass(frozen=True)
class Input:
    name: str
    description: str
    value: Shown
    source: str  # 'default', 'given', or the reference it comes from ('llm.weight_bytes')


@dataclass(frozen=True)
class TableView:
    name: str
    about: str
    columns: tuple  # ir.Column
    rows: tuple[tuple[str, ...], ...]  # display text per cell


@dataclass(frozen=True)
class Rounding:
    kind: str  # 'floor' | 'ceiling' | 'edge' | 'none'
    step: Shown | None
    boundary: Shown
    value: Shown
    stepped_back: bool = False  # a strict condition moved the answer one step


@dataclass(frozen=True)
class QuestionView:
    question: Question
    variable: Variable
    steps: tuple[Step, ...]  # the boundary's derivation (only the steps the answer needs)
    closed_form: sp.Expr | None  # the boundary in terms of inputs only, when there is one
    rounding: Rounding | None  # None: no answer
    answer: Answer | None
    error: str = ""  # why there is no answer on this hardware (the solver's message)


@dataclass(frozen=True)
class Expected:
    label: str
    written: str
    got: Shown
    ok: bool


@dataclass(frozen=True)
class Relation:
    """One comparison of a `that` check as written, with both sides' values (in one unit)."""

    text: str  # 'throughput >= 1.315 * 6450[token/s]'
    relation: sp.Basic  # a SymPy Relational with unit literals restored (or an or/not of them, kept whole)
    left: Shown | None  # None: the relation is not a comparison of two values
    right: Shown | None
    holds: bool | None


@dataclass(frozen=True)
class CheckView:
    check: Check
    given: tuple[tuple[str, Shown], ...]
    expected: tuple[Expected, ...]
    that_ok: bool | None
    ok: bool
    error: str = ""
    relations: tuple[Relation, ...] = ()  # the `that` relation, one comparison each (an `and` is split)
    written_for: str = ""  # the hardware the check was written for, when the sheet is for other hardware

    @property
    def applies(self) -> bool:
        """False on hardware other than the model's own: the expected values are references."""
        return not self.written_for


@dataclass(frozen=True)
class Mover:
    """One input's pull on a question's boundary: d ln(boundary) / d ln(input)."""

    input: str
    variable: Variable
    value: Shown
    elasticity: float | None  # None: undefined here
    method: str  # 'symbolic' | 'numeric'
    note: str = ""


@dataclass(frozen=True)
class Movers:
    """What moves a question's answer most: its boundary's sensitivities, largest first."""

    question: Question
    variable: Variable
    boundary: Shown
    rows: tuple[Mover, ...]


@dataclass
class Sheet:
    model: Model
    solution: Solution
    catalog: list[CatalogUse]
    inputs: list[Input]
    steps: list[Step]
    tables: list[TableView]
    questions: list[QuestionView]
    checks: list[CheckView]
    sweeps: list[SweepResult] = field(default_factory=list)
    gpu: str | None = None
    llm: str | None = None
    movers: list[Movers] = field(default_factory=list)
    source: str = ""  # the model file as outputs name it
    digest: str = ""  # its SHA-256 (hex)
    hardware: tuple[str, ...] = ()  # the titles of the GPU and LLM it was evaluated on
    searches: list[SearchView] = field(default_factory=list)  # questions over configurations and frontiers (the Report's)

    @property
    def hardware_text(self) -> str:
        return " with ".join(self.hardware)


# --- building it ------------------------------------------------------------------------------------


def _question(model: Model, q: Question, a: Answer) -> QuestionView:
    var = model.variables[q.find]
    steps: tuple[Step, ...] = ()
    form = None
    if a.boundary_solution is not None:
        steps = tuple(derive(a.boundary_solution, {q.find}))
        form = closed_form(a.boundary_solution, q.find)
        if form is not None and form == a.boundary_solution.formulas.get(q.find):
            form = None  # nothing more to say
    r = a.rounding
    b = shown_boundary(var, a.base_boundary, a.base, r.how, r.step, r.stepped_back)
    v = shown(var, a.base, var.digits)
    if r.how in ("floor", "ceiling"):
        rounding = Rounding(r.how, shown(var, r.step), b, v, r.stepped_back)
    elif r.how in ("edge", "set"):
        rounding = Rounding(r.how, None, b, v)
    else:
        rounding = Rounding("none", None, b, v)
    return QuestionView(q, var, steps, form, rounding, a)


def _check(model: Model, o: CheckOutcome) -> CheckView:
    """A check's comparisons as the sheet shows them (the Report's outcome)."""
    c = o.check
    given = tuple((n, shown(model.variables[n], v)) for n, v in c.given)
    if o.error is not None:
        return CheckView(c, given, (), None, o.ok, o.error.message, (), o.written_for)
    expected = tuple(Expected(e.label.replace(" -> ", ": "), e.written, _got(model, e), e.ok) for e in o.expected)
    relations = _relations(model, o) if c.that is not None else ()
    return CheckView(c, given, expected, o.that_ok, o.ok, "", relations, o.written_for)


def _got(model: Model, e) -> Shown:
    """What a check found: a variable's value, or the catalog entry a search's best configuration chose (gpu: b200), a label."""
    if e.name in model.variables:
        return shown(model.variables[e.name], e.got)
    return Shown(str(e.got), "", 0.0, label=True)


_OPS = {sp.Ge: ">=", sp.Le: "<=", sp.Gt: ">", sp.Lt: "<", sp.Eq: "==", sp.Ne: "!="}
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def _relations(model: Model, o: CheckOutcome) -> tuple[Relation, ...]:
    """The `that` relation's comparisons in the order written, each with its sides' values (the checker's own evaluation)."""
    c, dims = o.check, Dims(model)
    rel = c.that
    if isinstance(rel, sp.And) and all(type(a) in _OPS for a in rel.args):
        parts = _as_written(list(rel.args), [t.strip() for t in c.that_text.split(" and ")])
    else:
        parts = [(rel, c.that_text)]
    out = []
    for part, text in parts:
        if type(part) not in _OPS:
            out.append(Relation(text, dims.restore(part), None, None, o.that_ok))
            continue
        if len(parts) == 1 and o.that_sides is not None:
            holds, (a, b) = o.that_ok, o.that_sides
        else:
            holds, (a, b) = relation(lower.expr(part), o.solution.values)
        left, right = _sides(_side_unit(model, dims, part), a, b, _OPS[type(part)], holds)
        out.append(Relation(text, dims.restore(part), left, right, holds))
    return tuple(out)


def _sides(unit: Quantity, a, b, op: str, holds: bool | None) -> tuple[Shown, Shown]:
    """Both sides with as many figures as it takes to see the comparison come out as it does (1.0004 > 1, not 1 > 1)."""
    first = shown(unit, a), shown(unit, b)
    if op in ("==", "!=") or holds is None:
        return first
    for digits in range(4, 18):
        left, right = shown(unit, a, digits), shown(unit, b, digits)
        try:
            x, y = Decimal(left.text.replace(",", "")), Decimal(right.text.replace(",", ""))
        except InvalidOperation:
            return first
        if {"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op] == holds:
            return left, right
    return first


def _as_written(args: list, texts: list[str]) -> list[tuple]:
    """Pair the comparisons of an `and` (SymPy sorts them) with their texts, in the order written."""
    if len(texts) != len(args):
        return [(a, str(a)) for a in args]
    out, left = [], list(args)
    for t in texts:
        m = re.search(r"<=|>=|==|!=|<|>", t)
        names = set(_WORD.findall(t[: m.start()])) if m else set()
        found = next((a for a in left if m and _OPS[type(a)] == m.group(0) and {s.name for s in a.lhs.free_symbols} <= names), None)
        if found is None:
            return [(a, t) for a, t in zip(args, texts)] if not out else out + [(a, str(a)) for a in left]
        left.remove(found)
        out.append((found, t))
    return out


def _side_unit(model: Model, dims: Dims, rel) -> Quantity:
    """The unit a comparison's two sides are shown in: a variable of the same dimension on either side, else base units."""
    dim = dims.natural(rel.lhs if rel.lhs.free_symbols else rel.rhs)
    return dims.unit_of(rel, dim) or _Base(base_unit(dim) if dim is not None else "", 1)


@dataclass(frozen=True)
class _Base:
    """A quantity in base units, for a side no variable's unit fits."""

    unit: str
    factor: int


def sheet(report: Report, sweeps: bool = True) -> Sheet:
    """Everything a derivation sheet shows, from one Report (the model on its hardware or the one chosen)."""
    model, s = report.model, report.solution
    catalog = []
    for kind, entry in (("gpu", s.gpu), ("llm", s.llm)):
        if entry is None:
            continue
        vals = tuple((n, p.latex, p.description, shown(p, s.values[n])) for n, p in sorted(model.params.items()) if p.source == kind)
        catalog.append(CatalogUse(kind, entry.id, entry.title, vals))
    for alias, other in model.imports:
        vals = tuple((n, p.latex, p.description, shown(p, s.values[n])) for n, p in sorted(model.params.items()) if p.source == alias)
        catalog.append(CatalogUse(alias, other.name, other.title, vals))
    inputs = []
    fitted = {f.name for f in report.calibration.fitted} if report.calibration is not None else set()
    for n, v in model.variables.items():
        if n not in s.known:
            continue
        source = "calibrated" if n in fitted else "given" if n in s.given else "default"
        if v.default is not None and v.default.is_Symbol and v.default.name in model.params:
            source = v.default.name
        inputs.append(Input(n, v.description, shown(v, s.values[n], v.digits), source))
    tables = []
    for name, rows in s.tables.items():
        t = model.tables[name]
        cells = tuple(tuple(fmt(c.to_display(r[c.name])) for c in t.columns) for r in rows)
        tables.append(TableView(name, t.about, t.columns, cells))
    questions = []
    for name, q in model.questions.items():
        a = report.answers[name]
        if isinstance(a, ChaincError):  # shown as the workbook shows it: no answer, and why
            questions.append(QuestionView(q, model.variables[q.find], (), None, None, None, a.message))
            continue
        questions.append(_question(model, q, a))
    checks = [_check(model, o) for o in report.checks]
    results = list(report.sweeps.values()) if sweeps else []
    movers = [_movers(model, report, q) for q in questions if report.sensitivities.get(q.question.name)]
    hardware = tuple(e.title for e in (s.gpu, s.llm) if e is not None)
    return Sheet(
        model, s, catalog, inputs, derive(s), tables, questions, checks, results, s.gpu.id if s.gpu else None, s.llm.id if s.llm else None, movers, report.source, report.digest, hardware,
        searches(report),
    )  # fmt: skip


def _movers(model: Model, report: Report, q: QuestionView) -> Movers:
    rows = []
    for x in report.sensitivities[q.question.name]:
        var = model.variables[x.input]
        rows.append(Mover(x.input, var, Shown(fmt(x.value, var.digits), var.unit, float(x.value), x.value < 0), x.elasticity, x.method, x.note))
    return Movers(q.question, q.variable, q.rounding.boundary, tuple(rows))
