"""Solving in any direction: a model, a catalog and a query -> a Solution; a question -> an Answer.

The query's shape (which variables are known) is planned once with SymPy and
lowered once into a Program (plan.py, lower.py); the numbers come from running
that program (run.py), exactly where the model is rational. Catalog entries and
imported models are bound when a model loads; here their values are computed
(entries are small models too) for the hardware the query picks. The rule that
answers a question is the runtime's (runtime/answer.py), the same source the
generated modules copy.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from . import lower
from . import program as P
from .errors import ArgumentError, SolveError
from .ir import Equation, Model, Question, Variable
from .limits import MAX_EXACT_DIGITS
from .limits import value as limit_value
from .plan import Plan, make_plan
from .quantities import exact, given_value
from .run import evaluate, run_assign, runner
from .runtime import values as V
from .runtime.answer import NoAnswer, answer

NUMERIC = "bracketed root search, relative tolerance 1e-12"


@dataclass(frozen=True)
class Query:
    """What is asked of a model: given values (base units), variables to find, hardware, extra equations."""

    given: tuple[tuple[str, Fraction | float], ...] = ()
    find: tuple[str, ...] = ()
    gpu: str | None = None
    llm: str | None = None
    extra: tuple[Equation, ...] = ()
    check_domain: bool = True  # known values must lie in their domains (a question's probes may pass them)


@dataclass(frozen=True)
class Solution:
    model: Model
    plan: Plan
    program: P.Program
    gpu: object | None  # catalog Entry
    llm: object | None
    values: dict  # every variable and parameter, base units: exact Fractions where the model is rational
    given: dict = field(default_factory=dict)
    numeric: dict = field(default_factory=dict)  # name -> how it was found numerically
    tables: dict = field(default_factory=dict)  # table -> rows (column -> value)
    formulas: dict = field(default_factory=dict)  # name -> the SymPy closed form that computed it

    def display(self, name: str) -> float:
        q = self.model.quantity(name)
        return float(Fraction(self.values[name]) / exact(q.factor)) if not isinstance(self.values[name], float) else self.values[name] / float(q.factor)

    def sym_values(self) -> dict:
        """values as SymPy numbers (for the printers that substitute into SymPy expressions)."""
        return {n: sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else sp.Integer(v) if isinstance(v, int) else sp.Float(v, 17) for n, v in self.values.items()}


@dataclass(frozen=True)
class Rounding:
    """How an answer follows from its boundary, as data."""

    how: str  # 'boundary' | 'edge' | 'floor' | 'ceiling'
    step: Fraction | None  # base units
    stepped_back: bool  # a strict condition moved the answer one step
    closed: bool  # the boundary is a closed form (not a numeric search's)


@dataclass(frozen=True)
class Answer:
    question: Question
    value: Fraction | float  # base units, rounded as the question says
    boundary: Fraction | float  # where the condition turns, before rounding (the value itself when there is none)
    solution: Solution  # the model solved at the answer
    boundary_solution: Solution | None
    rounding: Rounding

    @property
    def how(self) -> str:
        """In words, for people: 'floor of the boundary 64.97 to steps of 1', 'the largest allowed value'."""
        var = self.solution.model.variables[self.question.find]
        r = self.rounding
        if r.how == "boundary":
            return "the boundary"
        if r.how == "edge":
            return f"the {'largest' if self.question.seek == 'max' else 'smallest'} allowed value"
        text = f"{r.how} of the boundary {V.shown(self.boundary / exact(var.factor))} to steps of {V.shown(r.step / exact(var.factor))}"
        return text + (", one step back to meet a strict condition" if r.stepped_back else "")


# --- catalog entries and imports -----------------------------------------------------------------------


@lru_cache(maxsize=256)
def entry_solution(entry) -> Solution:
    """A catalog entry solved: its typed values as inputs, its derived sizes computed (by its own program)."""
    return solve_query(entry.model, None, Query())


def entry_values(entry) -> dict:
    """Every field of a catalog entry in base units (derived ones solved); None where the entry has none."""
    s = entry_solution(entry)
    return {name: s.values.get(name) for name in entry.fields}


def hardware(model: Model, catalog, gpu: str | None, llm: str | None) -> dict:
    out = {}
    for kind, chosen, default in (("gpu", gpu, model.gpu), ("llm", llm, model.llm)):
        if chosen and not default:
            raise ArgumentError(f"model '{model.name}' uses no {kind.upper()}, so --{kind} does not apply", None, f"drop --{kind}; chainc show {model.name} lists what it reads")
        entry_id = chosen or default
        if entry_id:
            entry = catalog.entry(kind, entry_id)
            if entry is None:
                ids = catalog.ids(kind)
                close = difflib.get_close_matches(entry_id, ids, n=1)
                raise ArgumentError(f"unknown {kind.upper()} '{entry_id}'", None, f"did you mean {close[0]}?" if close else f"known: {', '.join(ids)}")
            out[kind] = entry
    return out


def parameters(model: Model, catalog, entries: dict) -> dict:
    """The values of gpu.x / llm.x / alias.x that the model reads (base units)."""
    values = {}
    imported: dict[str, Solution] = {}
    for name, p in model.params.items():
        if p.source in ("gpu", "llm"):
            entry = entries[p.source]
            v = entry_values(entry).get(p.field_name)
            if v is None:
                raise SolveError(f"{entry.title} has no value for {p.field_name}", p.loc, f"its catalog entry ({entry.path}) marks it as not available; pick another {p.source.upper()}")
            values[name] = v
        else:
            if p.source not in imported:
                other = dict(model.imports)[p.source]
                q = Query(gpu=entries["gpu"].id if "gpu" in entries and other.gpu else None, llm=entries["llm"].id if "llm" in entries and other.llm else None)
                imported[p.source] = solve_query(other, catalog, q)
            values[name] = imported[p.source].values[p.field_name]
    return values


# --- solving ------------------------------------------------------------------------------------------


def _require(var: Variable, value, what: str) -> None:
    d = lower.domain_of(var)
    try:
        V.require(value, value / d.factor, what, var.name, var.unit, d.integer, d.text, (d.kind, d.lo, d.hi))
    except V.ChainError as e:
        raise ArgumentError(e.message, var.loc, e.hint) from None


def solve_query(model: Model, catalog, query: Query) -> Solution:
    """Solve a model for every variable: defaults and the query's givens are known, its finds unknown."""
    V.MAX_EXACT_DIGITS = limit_value(MAX_EXACT_DIGITS)
    entries = hardware(model, catalog, query.gpu, query.llm) if catalog is not None else {}
    params = parameters(model, catalog, entries)
    given = dict(query.given)
    for n in query.find:
        if n not in model.variables:
            given_value(model, n, "0")  # raises the unknown-variable error
        if n in given:
            raise ArgumentError(f"{n} is both given and to be found", None, "drop one of --given and --find for it")
    env = dict(params)
    for assign in lower.defaults(model):  # the defaults: constants, or expressions of catalog values
        if assign.name not in given and assign.name not in query.find:
            run_assign(assign, env)
    env.update(given)
    known = frozenset(n for n in model.variables if n in env)
    if query.check_domain:
        for n in sorted(known, key=list(model.variables).index):
            _require(model.variables[n], env[n], "given" if n in given else "default")
    plan = make_plan(model, known, tuple(query.extra))
    program = lower.lower(plan)
    result = runner(program)(env)
    numeric = {n: NUMERIC for n in program.numeric}
    formulas = {n: s.candidates[0][n] for s in plan.steps if s.method == "define" for n in s.unknowns}
    formulas.update(_chosen_forms(plan, result.values))
    return Solution(model, plan, program, entries.get("gpu"), entries.get("llm"), result.values, given, numeric, result.tables, formulas)


def _chosen_forms(plan: Plan, values: dict) -> dict:
    """The closed form of each 'solve' step that produced the values (the admissible candidate)."""
    out = {}
    for s in plan.steps:
        if s.method != "solve":
            continue
        if len(s.candidates) == 1:
            out.update(s.candidates[0])
            continue
        subs = {plan.model.quantity(n).sym: sp.nsimplify(v) if isinstance(v, float) else sp.Rational(v) for n, v in values.items() if plan.model.quantity(n) is not None}
        best = None
        for c in s.candidates:
            try:
                diff = sum(abs(complex(sp.N(e.xreplace(subs))) - complex(values[n])) for n, e in c.items())
            except (TypeError, ValueError):
                continue
            if best is None or diff < best[0]:
                best = (diff, c)
        if best is not None:
            out.update(best[1])
    return out


# --- questions -------------------------------------------------------------------------------------------


def _edges(q: Question, var: Variable):
    d = lower.domain_of(var)
    step = exact(q.step) if q.step is not None else None
    lo = d.lo if d.lo is not None else (step if step is not None and d.kind == "positive" else Fraction(0) if d.kind == "nonnegative" else None)
    return lo, d.hi, step


@dataclass(frozen=True)
class Asking:
    """A question's shape, whatever the values: what the answer rule (runtime/answer.py) runs, in base units.

    boundary: the program that solves the condition's boundary (the condition as an equation) for the
    question's variable, None when that query cannot be planned; probe: the program of the model with the
    question's variable known, on which the condition is read at each point the rule probes.
    """

    question: Question
    condition: P.Cmp
    boundary: P.Program | None
    probe: P.Program
    lo: Fraction | None
    hi: Fraction | None
    step: Fraction | None
    probe_at: Fraction  # where to probe when there is no boundary (the domain's edge, else the default)
    strict: bool


def _boundary_equation(model: Model, q: Question) -> Equation:
    return Equation(len(model.equations), _boundary_text(q.condition_text), q.condition.lhs, q.condition.rhs, q.loc)


def asking(model: Model, question: str, given: frozenset[str] = frozenset()) -> Asking:
    """Plan a question for a query whose `given` variables are known besides those with defaults."""
    q = model.questions[question]
    var = model.variables[q.find]
    known = frozenset(n for n, v in model.variables.items() if v.default is not None or n in given)
    probe = lower.lower(make_plan(model, known | {q.find}))
    try:
        boundary = lower.lower(make_plan(model, known - {q.find}, (_boundary_equation(model, q),)))
    except SolveError:
        boundary = None
    lo, hi, step = _edges(q, var)
    probe_at = lo if lo is not None else hi if hi is not None else (exact(var.default) if var.default is not None and var.default.is_number else exact(var.factor))
    strict = isinstance(q.condition, (sp.StrictLessThan, sp.StrictGreaterThan))
    return Asking(q, lower.expr(q.condition), boundary, probe, lo, hi, step, probe_at, strict)


def ask_query(model: Model, catalog, question: str, query: Query) -> Answer:
    """The largest (or smallest) value of the question's variable that meets its condition."""
    if question not in model.questions:
        raise ArgumentError(f"model '{model.name}' has no question '{question}'", None, f"questions: {', '.join(model.questions) or 'none'}")
    q = model.questions[question]
    var = model.variables[q.find]
    given = dict(query.given)
    if q.find in given:
        raise ArgumentError(f"{q.find} is what question '{question}' finds; it cannot be given", None, f"drop --given {q.find}=...; the question computes it")
    shape = asking(model, question, frozenset(given))
    condition = shape.condition

    @lru_cache(maxsize=64)
    def at(x) -> Solution:
        return solve_query(model, catalog, Query(tuple({**given, q.find: x}.items()), (), query.gpu, query.llm, (), False))

    def feasible(x) -> bool:
        return bool(evaluate(condition, at(x).values))

    boundary_eq = _boundary_equation(model, q)
    try:
        bsol = solve_query(model, catalog, Query(tuple(given.items()), (q.find,), query.gpu, query.llm, (boundary_eq,)))
        boundary = bsol.values[q.find]
    except SolveError:
        bsol, boundary = None, None
    lo, hi, step, probe, strict = shape.lo, shape.hi, shape.step, shape.probe_at, shape.strict
    d = lower.domain_of(var)
    closed = bsol is not None and q.find not in bsol.numeric
    try:
        value, how, back = answer(boundary, feasible, lambda x: V.admits(x, d.kind, d.lo, d.hi), q.seek, step, lo, hi, probe, closed, strict)
    except NoAnswer as e:
        if e.kind == "infeasible":
            raise _infeasible(model, q, var, at(e.at), condition) from None
        where = e.where if e.boundary is None else f"{e.where} {_show(var, e.boundary)}"
        raise _unbounded(q, var, where) from None
    return Answer(q, value, boundary if boundary is not None else value, at(value), bsol, Rounding(how, step, back, closed))


def _boundary_text(condition: str) -> str:
    for op in ("<=", ">=", "<", ">"):
        if op in condition:
            return condition.replace(op, "=", 1)
    return condition


def _show(q, base_value) -> str:
    """'tpot = 42.3219 ms/token' style text of a value, without a trailing space for unitless values."""
    return f"{q.name} = {V.shown(base_value / exact(q.factor))} {q.unit}".rstrip()


def _unbounded(q: Question, var: Variable, where: str) -> SolveError:
    bound = "largest" if q.seek == "max" else "smallest"
    return SolveError(
        f"question {q.name}: there is no {bound} {q.find}; {q.condition_text} holds for {where}",
        q.loc,
        f"bound {q.find} with {'max' if q.seek == 'max' else 'min'}: in its declaration, or did you mean seek: {'min' if q.seek == 'max' else 'max'}?",
    )


def _infeasible(model: Model, q: Question, var: Variable, s: Solution, condition) -> SolveError:
    parts = []
    for side in (condition.left, condition.right):
        if isinstance(side, P.Ref) and side.name in model.variables:
            parts.append(_show(model.variables[side.name], s.values[side.name]))
        else:
            parts.append(V.shown(evaluate(side, s.values)))
    negated = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[condition.op]
    hardware_ = " with ".join(e.title for e in (s.gpu, s.llm) if e)
    return SolveError(
        f"question {q.name}: no {q.find} meets {q.condition_text}: at {_show(var, s.values[q.find])}, {parts[0]} {negated} {parts[1]}",
        q.loc,
        f"no {q.find} in its domain ({var.domain.describe(var)}) meets the condition{' on ' + hardware_ if hardware_ else ''}; change another input or the target",
    )


# --- the public entry points (values as people write them) ------------------------------------------------


def _catalog(model: Model, project):
    if project is None and (model.gpu or model.llm):
        from .project import Project  # the API's convenience: the project found as the CLI finds it

        project = Project()
    return project.catalog if project is not None else None


def solve(model: Model, given: dict | None = None, find=(), gpu: str | None = None, llm: str | None = None, project=None, extra=(), check_domain: bool = True) -> Solution:
    """Solve `model`: `given` maps names to values ('10ms', 128 in the display unit, or base-unit numbers)."""
    values = tuple((n, given_value(model, n, v)) for n, v in (given or {}).items())
    return solve_query(model, _catalog(model, project), Query(values, tuple(find), gpu, llm, tuple(extra), check_domain))


def ask(model: Model, question: str, given: dict | None = None, gpu: str | None = None, llm: str | None = None, project=None) -> Answer:
    """Answer one of the model's questions; `given` as for solve()."""
    values = tuple((n, given_value(model, n, v)) for n, v in (given or {}).items())
    return ask_query(model, _catalog(model, project), question, Query(values, (), gpu, llm))
