"""Running a model's checks on the cold path: solve (or ask) at each check's givens, then compare."""

from __future__ import annotations

from . import lower
from .compare import outcome, written_for
from .errors import ChaincError
from .ir import Check, Model
from .numbers import exact
from .results import CheckOutcome, Query
from .solver import ask_query, solve_query

__all__ = ["run_check"]


def run_check(model: Model, check: Check, catalog, gpu: str | None = None, llm: str | None = None) -> CheckOutcome:
    given = tuple((n, exact(v)) for n, v in check.given)
    answer = None
    try:
        if check.question:
            answer = ask_query(model, catalog, check.question, Query(given, (), gpu, llm))
            solution = answer.solution
        else:
            solution = solve_query(model, catalog, Query(given, (), gpu, llm))
    except ChaincError as e:
        return CheckOutcome(check, False, error=e)
    return outcome(check, solution, answer, lower.expr(check.that) if check.that is not None else None, written_for(model, catalog, gpu, llm))
