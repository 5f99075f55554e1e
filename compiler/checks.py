"""A model's checks: the card's numbers and sanity lines, evaluated by the solver, kept as data."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import lower
from . import program as P
from .errors import ChaincError
from .format import fmt
from .ir import Check, Model
from .quantities import exact
from .run import evaluate
from .solve import Answer, Query, Solution, ask_query, solve_query

REL_EQ = Fraction(1, 10**9)  # `that: a == b` holds to this relative difference


@dataclass(frozen=True)
class Expected:
    name: str  # the variable compared (a question check: the question's variable)
    label: str  # 'tpot', or 'max_batch -> batch'
    written: str  # the expected value as written, '9.9 ms/token'
    got: Fraction | float  # base units
    ok: bool


@dataclass(frozen=True)
class CheckOutcome:
    check: Check
    ok: bool
    expected: tuple[Expected, ...] = ()
    that_ok: bool | None = None
    that_sides: tuple | None = None  # (left, right) values of a `that` relation, base units
    solution: Solution | None = None
    answer: Answer | None = None
    error: ChaincError | None = None

    @property
    def lines(self) -> tuple[str, ...]:
        """What was compared, for people."""
        if self.error is not None:
            return (f"error: {self.error.message}",)
        m = self.solution.model
        out = []
        for e in self.expected:
            var = m.variables[e.name]
            out.append(f"{'ok' if e.ok else 'FAIL'}  {e.label} = {fmt(exact(e.got) / exact(var.factor))} {var.unit}".rstrip() + f" (expected {e.written})")
        if self.that_ok is not None:
            out.append(f"{'ok' if self.that_ok else 'FAIL'}  {self.check.that_text}: {'holds' if self.that_ok else 'does not hold'}")
        return tuple(out)


def within(got, want, abs_tol, rel_tol) -> bool:
    got, want = exact(got), exact(want)
    diff = abs(got - want)
    if abs_tol is not None and diff <= exact(abs_tol):
        return True
    return rel_tol is not None and diff <= exact(rel_tol) * abs(want)


def relation(model: Model, rel, values: dict) -> tuple[bool, tuple]:
    """A `that` relation at some values: whether it holds (an equality to 1e-9 relative), and its two sides."""
    e = lower.expr(rel)
    if not isinstance(e, P.Cmp):  # and / or / not of comparisons
        return bool(evaluate(e, values)), None
    a, b = evaluate(e.left, values), evaluate(e.right, values)
    if e.op == "==":
        return a == b or within(a, b, None, REL_EQ), (a, b)
    return bool(evaluate(e, values)), (a, b)


def run_check(model: Model, check: Check, catalog, gpu: str | None = None, llm: str | None = None) -> CheckOutcome:
    given = tuple((n, exact(v)) for n, v in check.given)
    answer = None
    try:
        if check.question:
            answer = ask_query(model, catalog, check.question, Query(given, (), gpu, llm))
            solution = answer.solution
            values = {**solution.values, check.question: answer.value}
        else:
            solution = solve_query(model, catalog, Query(given, (), gpu, llm))
            values = solution.values
    except ChaincError as e:
        return CheckOutcome(check, False, error=e)
    expected = []
    for e in check.expect:
        got = values[check.question] if check.question else values[e.name]
        label = f"{check.question} -> {e.name}" if check.question else e.name
        expected.append(Expected(e.name, label, e.written, got, within(got, e.value, e.abs_tol, e.rel_tol)))
    that_ok, sides = (None, None)
    if check.that is not None:
        that_ok, sides = relation(model, check.that, solution.values)
    ok = all(x.ok for x in expected) and that_ok is not False
    return CheckOutcome(check, ok, tuple(expected), that_ok, sides, solution, answer)


def run_checks(model: Model, project, gpu: str | None = None, llm: str | None = None) -> list[CheckOutcome]:
    """Solve the model forward and answer its questions (errors raise), then run every check."""
    from .solve import _catalog

    catalog = _catalog(model, project)
    gpu, llm = (gpu if model.gpu else None), (llm if model.llm else None)
    solve_query(model, catalog, Query((), (), gpu, llm))
    for q in model.questions:
        ask_query(model, catalog, q, Query((), (), gpu, llm))
    return [run_check(model, c, catalog, gpu, llm) for c in model.checks]
