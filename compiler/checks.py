"""A model's checks: the card's numbers and sanity lines, evaluated by the solver, kept as data."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from . import lower
from . import program as P
from .errors import ChaincError
from .ir import Check, Model
from .numbers import exact
from .results import CheckOutcome, Expected, Query
from .run import evaluate
from .solver import ask_query, solve_query

REL_EQ = Fraction(1, 10**9)  # `that: a == b` holds to this relative difference


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


def written_for(model: Model, catalog, gpu: str | None, llm: str | None) -> str:
    """'' when the check runs on the model's own hardware; else that hardware's titles (what the card's numbers are for)."""
    own = [(kind, default) for kind, chosen, default in (("gpu", gpu, model.gpu), ("llm", llm, model.llm)) if chosen and chosen != default]
    if not own:
        return ""
    titles = []
    for kind, default in (("gpu", model.gpu), ("llm", model.llm)):
        if default:
            entry = catalog.entry(kind, default) if catalog is not None else None
            titles.append(entry.title if entry is not None else default)
    return " with ".join(titles)


def run_check(model: Model, check: Check, catalog, gpu: str | None = None, llm: str | None = None) -> CheckOutcome:
    outcome = _run_check(model, check, catalog, gpu, llm)
    other = written_for(model, catalog, gpu, llm)
    if other and outcome.error is None:
        return replace(outcome, ok=True, written_for=other)  # a reference, not a failure
    return outcome


def _run_check(model: Model, check: Check, catalog, gpu: str | None, llm: str | None) -> CheckOutcome:
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
