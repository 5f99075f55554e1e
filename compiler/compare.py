"""Comparing what a check expects with what the model computes: no SymPy (the warm path runs it too)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import program as P
from .choosing import choose
from .errors import ChaincError, NoAnswerError
from .execute import Prepared, PreparedQuestion, ask, execute
from .located import located
from .numbers import exact
from .results import Answer, CheckOutcome, Expected, Solution
from .run import evaluate

REL_EQ = Fraction(1, 10**9)  # `that: a == b` holds to this relative difference


def within(got, want, abs_tol, rel_tol) -> bool:
    got, want = exact(got), exact(want)
    diff = abs(got - want)
    if abs_tol is not None and diff <= exact(abs_tol):
        return True
    return rel_tol is not None and diff <= exact(rel_tol) * abs(want)


def relation(e: P.Expr, values: dict) -> tuple[bool, tuple | None]:
    """A `that` relation (a program expression) at some values: whether it holds, an equality to 1e-9 relative; its sides."""
    if not isinstance(e, P.Cmp):  # and / or / not of comparisons
        return bool(evaluate(e, values)), None
    a, b = evaluate(e.left, values), evaluate(e.right, values)
    if e.op == "==":
        return a == b or within(a, b, None, REL_EQ), (a, b)
    return bool(evaluate(e, values)), (a, b)


def written_for(model, catalog, gpu: str | None, llm: str | None) -> str:
    """'' when the check runs on the model's own hardware; else that hardware's titles (what the expected numbers are for)."""
    own = [(kind, default) for kind, chosen, default in (("gpu", gpu, model.gpu), ("llm", llm, model.llm)) if chosen and chosen != default]
    if not own:
        return ""
    titles = []
    for kind, default in (("gpu", model.gpu), ("llm", model.llm)):
        if default:
            entry = catalog.entry(kind, default) if catalog is not None else None
            titles.append(entry.title if entry is not None else default)
    return " with ".join(titles)


def outcome(check, solution: Solution, answer: Answer | None, that, other: str) -> CheckOutcome:
    """Compare what a check expects with a solution (and a question's answer); `that` is its relation as a program expression."""
    values = {**solution.values, check.question: answer.base} if answer is not None else solution.values
    expected = []
    for e in check.expect:
        got = values[check.question] if answer is not None else values[e.name]
        label = f"{check.question} -> {e.name}" if check.question else e.name
        expected.append(Expected(e.name, label, e.written, got, within(got, e.value, e.abs_tol, e.rel_tol)))
    for kind, want in getattr(check, "entries", ()):  # a search's check: the catalog entry its best configuration chose
        got = getattr(solution, kind).id
        expected.append(Expected(kind, f"{check.question} -> {kind}", want, got, got == want))
    try:
        that_ok, sides = relation(that, solution.values) if that is not None else (None, None)
    except (ArithmeticError, ValueError, TypeError) as e:  # the relation has no value: a mistake in the model, located
        raise located(P.Site(check.loc, f"check: {check.that_text}"), e, that, solution.values, solution.program.domains) from None
    ok = all(x.ok for x in expected) and that_ok is not False
    if other:
        return CheckOutcome(check, True, tuple(expected), that_ok, sides, solution, answer, written_for=other)  # a reference, not a failure
    return CheckOutcome(check, ok, tuple(expected), that_ok, sides, solution, answer)


@dataclass(frozen=True, eq=False)
class PreparedCheck:
    """A check ready to run, cold or warm alike: its givens, the question or forward solve it reads, its relation."""

    check: object  # ir.Check, or portable.CheckInfo on the warm path
    given: tuple  # (name, base value)
    question: PreparedQuestion | None
    forward: Prepared | None
    that: object  # a program expression, or None
    other: str  # written_for: '' on the check's own hardware
    search: object = None  # choosing.PreparedChoose: a search's check reads its best configuration


def run_check(pc: PreparedCheck) -> CheckOutcome:
    """Solve (or ask) at the check's givens and compare; a model error is the check's outcome, not a crash."""
    given = dict(pc.given)
    answer = None
    try:
        if pc.search is not None:
            chosen = choose(pc.search, given)
            if chosen.solution is None:
                raise NoAnswerError(f"question {chosen.search.name}: {chosen.sentence()}", chosen.search.loc)
            solution = chosen.solution
        elif pc.question is not None:
            answer = ask(pc.question, given)
            solution = answer.solution
        else:
            solution = execute(pc.forward, given)
    except ChaincError as e:  # on other hardware, or calibrated, no value is a reference's, not a failure
        return CheckOutcome(pc.check, bool(pc.other), error=e, written_for=pc.other)
    return outcome(pc.check, solution, answer, pc.that, pc.other)
