"""A model's checks prepared on the cold path (SymPy plans them); compare.run_check runs them, cold and warm."""

from __future__ import annotations

from dataclasses import replace

from . import lower
from .calibrated import UNCALIBRATED
from .compare import PreparedCheck, written_for
from .compare import run_check as run_prepared
from .errors import ChaincError
from .ir import Check, Model
from .numbers import exact
from .results import CheckOutcome, Query
from .searches import prepare_search
from .solver import prepare, prepare_question, with_forms

__all__ = ["prepare_check", "run_check"]


def prepare_check(model: Model, check: Check, catalog, gpu: str | None = None, llm: str | None = None, calibrated: tuple = ()) -> PreparedCheck:
    """calibrated: a calibration's fitted values (base units); where they change the check's inputs, its expected
    numbers (written for the ideal machine) are references beside the calibrated values, as on other hardware."""
    given = tuple((n, exact(v)) for n, v in check.given)
    extra = tuple((n, v) for n, v in calibrated if n not in {g for g, _ in given})
    given += extra
    names = frozenset(n for n, _ in given)
    search = prepare_search(model, catalog, check.question, names, gpu, llm) if check.question in model.searches else None
    question = prepare_question(model, catalog, check.question, names, gpu, llm) if check.question and search is None else None
    forward = None if check.question else prepare(model, catalog, Query(given, (), gpu, llm))
    that = lower.expr(check.that) if check.that is not None else None
    other = written_for(model, catalog, gpu, llm)
    return PreparedCheck(check, given, question, forward, that, f"{UNCALIBRATED} on {other}" if extra and other else UNCALIBRATED if extra else other, search)


def run_check(model: Model, check: Check, catalog, gpu: str | None = None, llm: str | None = None, calibrated: tuple = ()) -> CheckOutcome:
    """The check's outcome; a planning error (a question that cannot be asked) is its outcome too."""
    try:
        pc = prepare_check(model, check, catalog, gpu, llm, calibrated)
    except ChaincError as e:
        return CheckOutcome(check, False, error=e)
    o = run_prepared(pc)
    if o.solution is None:
        return o
    answer = o.answer and replace(o.answer, solution=with_forms(o.answer.solution), boundary_solution=with_forms(o.answer.boundary_solution))
    return replace(o, solution=with_forms(o.solution), answer=answer)
