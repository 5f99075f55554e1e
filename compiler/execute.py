"""Executing prepared queries: the numbers, without SymPy.

A query's shape (which variables are known, on which hardware) is prepared once
by the planner (solver.py: SymPy, cached); what is left to do with the values is
here: put the inputs together (catalog values, defaults, givens), check their
domains, run the Program, and for a question, run the answer rule over it. The
warm command line (cache.py) runs these same functions on prepared shapes it
read from disk, so both paths compute the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from . import bounded as B
from . import program as P
from .deadline import budgeted
from .errors import ArgumentError, LimitError, NoAnswerError, SolveError
from .limits import MAX_EXACT_DIGITS, limit
from .limits import value as limit_value
from .located import located, shown_values
from .numbers import exact
from .results import Answer, Asking, Limit, Rounding, Solution
from .run import evaluate, runner
from .runtime import values as V
from .runtime.answer import NoAnswer, answer, combine, no_answer, nowhere

NUMERIC = "bracketed root search, relative tolerance 1e-12"
WHOLE = "search over whole numbers, each sign change bisected to neighbours"


@dataclass(frozen=True, eq=False)
class Prepared:
    """A query shape ready to run: the model (or its portable description), hardware, inputs and program."""

    model: object  # ir.Model, or portable.ModelInfo on the warm path
    entries: dict  # 'gpu' / 'llm' -> the catalog Entry (or its portable id and title)
    params: dict  # catalog and imported values the model reads, base units
    defaults: dict  # every input's default at this hardware, base units
    program: P.Program
    plan: object = None  # the SymPy plan (cold path only: derivations print it)
    formulas: dict = field(default_factory=dict)  # closed forms of 'define' steps (cold path only)


@budgeted
def execute(prep: Prepared, given: dict, find: tuple = (), check_domain: bool = True) -> Solution:
    """Run a prepared shape at these givens (base units)."""
    B.limit, B.max_terms = limit_value(MAX_EXACT_DIGITS), limit("sum_terms")
    m = prep.model
    env = dict(prep.params)
    env.update((n, v) for n, v in prep.defaults.items() if n not in given and n not in find)
    env.update(given)
    for n, v in env.items():  # whole numbers as ints: exact, and Python's fast path
        if type(v) is Fraction and v.denominator == 1:
            env[n] = v.numerator
    if check_domain:
        _inputs_in_domain(prep, env, given)
    result = runner(prep.program)(env)
    whole = {t for x in P.statements(prep.program.body) if isinstance(x, P.Search) for t in x.whole}
    numeric = {n: WHOLE if n in whole else NUMERIC for n in prep.program.numeric}
    values = {n: _exact(v) for n, v in result.values.items()}
    tables = {t: [{c: _exact(v) for c, v in row.items()} for row in rows] for t, rows in result.tables.items()}
    return Solution(m, prep.plan, prep.program, prep.entries.get("gpu"), prep.entries.get("llm"), values, dict(given), numeric, tables, dict(prep.formulas), result.notes)


@dataclass(frozen=True, eq=False)
class PreparedQuestion:
    """A question's shape ready to run, cold or warm alike: its rule, the model at a value, its boundary, its parts.

    boundary: the condition solved as an equation for the question's variable (None: the rule searches,
    as it does where no plan has the boundary, or where the boundary is over whole numbers and so seldom
    met exactly); parts: (label, PreparedQuestion) of each condition of a several-condition question.
    """

    rule: Asking
    at: Prepared
    boundary: Prepared | None
    parts: tuple = ()


@budgeted
def ask(pq: PreparedQuestion, given: dict) -> Answer:
    """The answer at these givens (base units): each part's first, then the runtime's rule over the model at x."""
    rule = pq.rule
    find = rule.question.find
    at_defaults = {n: v for n, v in pq.at.defaults.items() if n != find}
    _inputs_in_domain(pq.at, {**at_defaults, **given}, given)  # a given the search never reads is still refused

    @lru_cache(maxsize=256)
    def at(x) -> Solution:
        return execute(pq.at, {**given, find: x}, (), False)

    if pq.parts:
        parts = []
        for label, part in pq.parts:
            try:
                parts.append((label, part.rule.question, ask(part, given)))
            except NoAnswerError as e:
                parts.append((label, part.rule.question, e))
        return answer_question(pq.at.model, rule, at, None, tuple(parts))
    bsol = None
    if pq.boundary is not None:
        try:
            bsol = execute(pq.boundary, given, (find,))
        except LimitError:
            raise
        except SolveError:
            pass  # the boundary has no value at these inputs: the rule searches the domain
    return answer_question(pq.at.model, rule, at, bsol)


def _exact(v):
    """Values leave the runner as exact Fractions (or floats): an int inside is only the runner's fast path."""
    return Fraction(v) if type(v) is int else v


def _inputs_in_domain(prep: Prepared, env: dict, given: dict) -> None:
    """Every given and default the model declares lies in its domain, whether or not the query reads it."""
    for n in prep.model.variables:
        if n in env:
            require(prep.model, prep.program, n, env[n], "given" if n in given else "default")


def require(model, program: P.Program, name: str, value, what: str) -> None:
    """An input must be whole where declared so, and in its domain: the CLI's message, the generated code's too."""
    d = program.domains[name]
    var = model.variables[name]
    try:
        V.require(value, value / d.factor, what, name, d.unit, d.integer, d.text, d.bounds)
    except V.ChainError as e:
        raise ArgumentError(e.message, var.loc, e.hint) from None


# --- questions ---------------------------------------------------------------------------------------


def answer_question(model, rule: Asking, at: Callable, boundary: Solution | None, parts: tuple = ()) -> Answer:
    """Run the answer rule: `at(x)` solves the model with the question's variable at x; `boundary` solved the boundary.

    parts: for a question with several conditions, (label, Answer or NoAnswerError) of each condition on its own.
    """
    q = rule.question
    d = rule.at.domains[q.find]

    def feasible(x) -> bool:
        """The condition at x; a point where the model has no admissible value is not feasible."""
        try:
            values = at(x).values
        except LimitError as e:  # not "no value at x": the search cannot go on, and its answer may lie past x
            raise LimitError(f"question {q.name}: the search for {q.find} stopped at {q.find} = {B.count(x / exact(model.variables[q.find].factor))}: {e.message}", q.loc, e.hint) from None
        except SolveError:
            return False
        site, expr = P.Site(q.loc, f"question {q.name}: {q.condition_text}"), rule.condition
        try:
            for div, when in rule.guards:  # a division the condition writes (SymPy may have cancelled it) is by zero: an error, not a no
                if evaluate(expr := when, values) and evaluate(expr := div, values) == 0:
                    break
            else:
                return bool(evaluate(expr := rule.condition, values))
        except (ArithmeticError, ValueError, TypeError) as e:  # a guard's own operations fail as the condition's would
            raise located(site, e, expr, values, rule.at.domains) from None
        shown = shown_values(P.refs(div), values, rule.at.domains)
        raise SolveError(f"division by zero in {site.what}" + (f" ({shown})" if shown else ""), q.loc, f"the divisor {P.text(div)} is 0 here")

    if parts:
        return _combined(model, rule, at, feasible, d, parts)
    b = boundary.values[q.find] if boundary is not None else None
    closed = boundary is not None and q.find not in boundary.numeric
    try:
        value, how, back = answer(b, feasible, lambda x: V.admits(x, *d.bounds), q.seek, rule.step, rule.lo, rule.hi, rule.probe, closed, rule.strict, d.integer, d.values)
    except NoAnswer as e:
        raise _no_answer(model, rule, e, at) from None
    if b is not None and how in ("search", "floor", "ceiling") and abs(value - b) > max(2 * rule.step if rule.step else 0, abs(b) / 10**9):
        # the rule searched the domain: the closed form's boundary is not where the condition turns (runtime/answer.answer),
        # so neither the message, the derivation nor the sensitivities may quote it
        return Answer(q, value, value, at(value), None, Rounding(how, rule.step, back, False))
    return Answer(q, value, b if b is not None else value, at(value), boundary, Rounding(how, rule.step, back, closed))


def _combined(model, rule: Asking, at: Callable, feasible: Callable, d, parts: tuple) -> Answer:
    """Several conditions: each one's own answer, combined by the runtime's rule, and the binding ones named."""
    q = rule.question
    limits = tuple(
        Limit(label, pq.name, pq.condition_text, None, r.why, r.message) if isinstance(r, SolveError) else Limit(label, pq.name, pq.condition_text, r.base, "answer", value=r.value)
        for label, pq, r in parts
    )  # fmt: skip
    try:
        value, how, binding = combine([(x.label, x.base, x.kind) for x in limits], feasible, lambda x: V.admits(x, *d.bounds), q.seek, rule.step, rule.lo, rule.hi, rule.probe, d.integer, d.values)
    except NoAnswer as e:
        if e.kind == "infeasible" and isinstance(e.at, tuple):  # conditions that hold nowhere: their own messages say where they fail
            err = nowhere(q.name, [r for label, _, r in parts if label in e.at])
            raise NoAnswerError(err.message, q.loc, err.hint, "infeasible") from None
        raise _no_answer(model, rule, e, at) from None
    if how == "limit":  # the binding condition's own answer: its boundary and rounding
        first = next(r for label, _, r in parts if label == binding[0])
        return Answer(q, value, first.base_boundary, at(value), first.boundary_solution, first.rounding, limits, binding)
    return Answer(q, value, value, at(value), None, Rounding(how, rule.step, False, False), limits, binding)


def _no_answer(model, rule: Asking, e: NoAnswer, at) -> SolveError:
    q, condition = rule.question, rule.condition
    var = model.variables[q.find]
    sides, on = ("", "", ""), ""
    if e.kind == "infeasible":
        try:
            s = at(e.at)
        except LimitError:
            raise
        except SolveError as err:  # the model has no admissible value even at the closest point
            return NoAnswerError(f"question {q.name}: no {q.find} meets {q.condition_text}: {err.message}", q.loc, err.hint)
        if isinstance(condition, P.Cmp):
            sides = failing_sides(model, condition, s.values)
        else:  # several conditions: each holds somewhere, never all at once
            sides = ("the conditions do not all hold", "", "")
        titles = [x.title for x in (s.gpu, s.llm) if x]
        on = f" on {' with '.join(titles)}" if titles else ""
    err = no_answer(
        e, q.name, q.find, q.condition_text, q.seek, rule.at.domains[q.find].words, on, show(var, e.at) if e.at is not None else "", sides, show(var, e.boundary) if e.boundary is not None else ""
    )
    return NoAnswerError(err.message, q.loc, err.hint, e.kind)


def failing_sides(model, condition: P.Cmp, values: dict) -> tuple:
    """Where a comparison fails, its two sides as text and the operator that holds instead: ('tpot = 42.3 ms/token', '>', 'tpot_target = 10 ms/token')."""
    parts = [
        show(model.variables[side.name], values[side.name]) if isinstance(side, P.Ref) and side.name in model.variables else V.shown(evaluate(side, values))
        for side in (condition.left, condition.right)
    ]
    return parts[0], P.NEGATED[condition.op], parts[1]


def show(q, base_value) -> str:
    """'tpot = 42.3219 ms/token' style text of a value, without a trailing space for unitless values."""
    return f"{q.name} = {V.shown(base_value / exact(q.factor))} {q.unit}".rstrip()
