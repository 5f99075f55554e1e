"""Everything a derivation sheet shows around the steps, from one Report.

`sheet(report)` adds to the derivation (steps.py) the hardware and its catalog
values, the inputs, tables, questions (with the boundary's own derivation and the
rounding), checks and sweeps. Printers (compiler/backends/latex/, and
compiler/backends/text.py for `--explain`) decide how they look.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from ..errors import ChaincError
from ..format import fmt
from ..ir import Check, Model, Question, Variable
from ..results import Answer, CheckOutcome, Report, Solution, SweepResult
from .shown import Shown, shown
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
    rounding: Rounding
    answer: Answer


@dataclass(frozen=True)
class Expected:
    label: str
    written: str
    got: Shown
    ok: bool


@dataclass(frozen=True)
class CheckView:
    check: Check
    given: tuple[tuple[str, Shown], ...]
    expected: tuple[Expected, ...]
    that_ok: bool | None
    ok: bool
    error: str = ""


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
    b = shown(var, a.boundary)
    v = shown(var, a.value, var.digits)
    r = a.rounding
    if r.how in ("floor", "ceiling"):
        rounding = Rounding(r.how, shown(var, r.step), b, v, r.stepped_back)
    elif r.how == "edge":
        rounding = Rounding("edge", None, b, v)
    else:
        rounding = Rounding("none", None, b, v)
    return QuestionView(q, var, steps, form, rounding, a)


def _check(model: Model, o: CheckOutcome) -> CheckView:
    """A check's comparisons as the sheet shows them (the Report's outcome)."""
    c = o.check
    given = tuple((n, shown(model.variables[n], v)) for n, v in c.given)
    if o.error is not None:
        return CheckView(c, given, (), None, False, o.error.message)
    expected = tuple(Expected(e.label.replace(" -> ", ": "), e.written, shown(model.variables[e.name], e.got), e.ok) for e in o.expected)
    return CheckView(c, given, expected, o.that_ok, o.ok)


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
    for n, v in model.variables.items():
        if n not in s.known:
            continue
        source = "given" if n in s.given else "default"
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
        if isinstance(a, ChaincError):
            raise a
        questions.append(_question(model, q, a))
    checks = [_check(model, o) for o in report.checks]
    results = list(report.sweeps.values()) if sweeps else []
    return Sheet(model, s, catalog, inputs, derive(s), tables, questions, checks, results, s.gpu.id if s.gpu else None, s.llm.id if s.llm else None)
