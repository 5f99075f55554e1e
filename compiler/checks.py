"""A model's checks: the card's numbers and sanity lines, evaluated by the solver."""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .errors import ChaincError
from .ir import Check, Model
from .solve import ask, check_holds, solve


@dataclass(frozen=True)
class Outcome:
    check: Check
    ok: bool
    lines: tuple[str, ...]  # what was compared, for the report
    error: ChaincError | None = None


def within(got: sp.Expr, want: sp.Expr, abs_tol, rel_tol) -> bool:
    diff = abs(got - want)
    if abs_tol is not None and bool(diff <= abs_tol):
        return True
    return rel_tol is not None and bool(diff <= rel_tol * abs(want))


def run_check(model: Model, check: Check, project, gpu: str | None = None, llm: str | None = None) -> Outcome:
    from .format import fmt

    given = dict(check.given)
    try:
        if check.question:
            answer = ask(model, check.question, given, gpu=gpu, llm=llm, project=project)
            values = {**answer.solution.values, check.question: answer.value}
            solution = answer.solution
        else:
            solution = solve(model, given, gpu=gpu, llm=llm, project=project)
            values = solution.values
    except ChaincError as e:
        return Outcome(check, False, (f"error: {e.message}",), e)
    ok, lines = True, []
    for e in check.expect:
        var = model.variables[e.name]
        got = values[check.question] if check.question else values[e.name]
        good = within(got, e.value, e.abs_tol, e.rel_tol)
        ok &= good
        label = f"{check.question} -> {e.name}" if check.question else e.name
        lines.append(f"{'ok' if good else 'FAIL'}  {label} = {fmt(var.to_display(got))} {var.unit}".rstrip() + f" (expected {e.written})")
    if check.that is not None:
        good = check_holds(model, check, solution.values)
        ok &= good
        lines.append(f"{'ok' if good else 'FAIL'}  {check.that_text}: {'holds' if good else 'does not hold'}")
    return Outcome(check, bool(ok), tuple(lines))


def run_checks(model: Model, project, gpu: str | None = None, llm: str | None = None) -> list[Outcome]:
    """Solve the model forward and answer its questions (errors raise), then run every check."""
    solve(model, gpu=gpu, llm=llm, project=project)
    for q in model.questions:
        ask(model, q, gpu=gpu, llm=llm, project=project)
    return [run_check(model, c, project, gpu, llm) for c in model.checks]
