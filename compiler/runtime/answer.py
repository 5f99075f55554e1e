"""The rule for answering a question: the largest (or smallest) value that meets the condition.

Plain standard-library code, copied into generated modules (see __init__.py). The
caller supplies `feasible(x)` (the condition at x; False where the model has no
admissible value at x) and, when SymPy found one, the closed-form boundary (where
the condition's two sides are equal).

With a closed-form boundary the rule probes both sides of it to learn which way
the condition runs, takes the boundary or the domain's edge, and rounds to the
question's step on the safe side, stepping back once where a strict condition
fails on the step. At a closed-form boundary the two sides are equal, so a
non-strict condition holds there whatever the last digit of its evaluation, and a
boundary within rounding error of a step or an edge is on it.

Without one (a table, a sum, a step function, no closed form), or when the
boundary's probes find nothing, the rule searches the variable's whole domain: a
geometric grid from the probe point to the domain's edges (whole numbers for a
whole-number variable), then bisection between the extreme feasible grid point and
its infeasible neighbour. It says "no answer" only after that search, and says
what it searched. The outcome says how it got the answer, as data.
"""

import math

from .roots import grid
from .values import ChainError


class NoAnswer(ValueError):
    """No value meets the condition (`at`: the point that shows it), or none is the extreme (`where`)."""

    def __init__(self, kind: str, at=None, where: str = "", boundary=None, searched=None):
        super().__init__(kind)
        self.kind, self.at, self.where, self.boundary, self.searched = kind, at, where, boundary, searched


def answer(boundary, feasible, admissible, seek: str, step, lo, hi, probe, closed: bool, strict: bool, integer: bool = False, values=None) -> tuple:
    """(value, how, stepped_back): how is 'boundary', 'edge', 'floor', 'ceiling' or 'search'; raises NoAnswer.

    boundary: the closed-form boundary's value or None; feasible(x), admissible(x): the condition
    holds at x, x is in the variable's domain; closed: boundary is a closed form; step: the rounding
    grid (None: none); lo, hi: the domain's edges (None: open); probe: where a search starts;
    integer: the variable takes whole numbers (of its base unit: step is then its unit); values: its finite
    set (None: none), every value of which is tried, the closed form's boundary aside.
    """
    if boundary is not None and closed and values is None:
        try:
            return _from_boundary(boundary, feasible, admissible, seek, step, lo, hi, strict)
        except NoAnswer as near:
            if near.kind != "unbounded" and near.where != "neither side":
                raise  # the closed form settles it (an open set has no largest value)
            # nothing near the boundary turns the condition, or it holds past it toward an open end: a boundary
            # computed from a searched value, or solved through a ceil, may lie anywhere on the step (ceil(r / c) = 1
            # solved to r = c / 512): search the whole domain before saying there is no answer, or no extreme
            try:  # no point near the closed-form boundary meets the condition: search the whole domain before saying so
                return _from_search(feasible, admissible, seek, step, lo, hi, probe, integer, values)
            except NoAnswer as far:
                near.searched = far.searched  # the boundary's point says more than the search's last one
                raise near from None
    return _from_search(feasible, admissible, seek, step, lo, hi, probe, integer, values)


def combine(limits, feasible, admissible, seek: str, step, lo, hi, probe, integer: bool = False, values=None) -> tuple:
    """A question with several conditions: (value, how, binding) from each condition's own answer; raises NoAnswer.

    limits: (label, value, kind) per condition, kind 'answer', 'infeasible' or 'unbounded'
    (value None unless 'answer'); feasible(x): every condition holds at x. A condition that
    holds nowhere leaves none for all (kind 'infeasible', at: the labels of all such). Each condition's own
    answer bounds the joint one (past the smallest of the largest values one condition fails),
    so where all conditions hold at that bound it is the answer, and the conditions whose
    answer it is are binding; else (conditions that hold on several stretches) the domain is
    searched with all of them together, and no single condition is named as binding.
    """
    failing = tuple(label for label, _, kind in limits if kind == "infeasible")
    if failing:
        raise NoAnswer("infeasible", at=failing)
    answers = [v for _, v, kind in limits if kind == "answer"]
    if answers:
        best = min(answers) if seek == "max" else max(answers)
        if admissible(best) and _holds(feasible, best):
            return best, "limit", tuple(label for label, v, kind in limits if kind == "answer" and v == best)
    value, how, _ = _from_search(feasible, admissible, seek, step, lo, hi, probe, integer, values)
    return value, how, ()


def _from_boundary(b, feasible, admissible, seek, step, lo, hi, strict) -> tuple:
    want_max = seek == "max"
    edge = hi if want_max else lo
    on_b = False  # the value is the closed-form boundary itself
    delta = max(abs(b) / 10**6, step / 2 if step else 0)
    below, above = feasible(b - delta), feasible(b + delta)
    if not below and not above:
        raise NoAnswer("infeasible", at=_inside([b - delta if want_max else b + delta, b + delta if want_max else b - delta], admissible), where="neither side")
    if below and above:
        if edge is None:
            raise NoAnswer("unbounded", where="values on both sides of", boundary=b)
        value, how = edge, "edge"
    elif below if want_max else above:  # the condition holds on the answer's side of the boundary
        value, how, on_b = b, "boundary", True
    elif edge is None:
        raise NoAnswer("unbounded", where="every value above" if want_max else "every value below", boundary=b)
    else:
        value, how = edge, "edge"
    stepped_back = False
    tol = 1e-12 if on_b and isinstance(value, float) else 0
    ends = [e for e in (lo, hi) if e is not None and abs(value - e) <= tol * abs(e)]
    if ends:
        value, how = ends[0], ("boundary" if how == "boundary" and value == ends[0] else "edge")
    elif step:
        k = value / step
        n = round(k)
        if not (on_b and abs(k - n) <= tol * max(1, abs(k))):
            n, on_b = (math.floor(k) if want_max else math.ceil(k)), on_b and k == n
        how = "floor" if want_max else "ceiling"
        value = n * step
        if not ((not strict) if on_b else feasible(value)):  # a strict condition fails on the step: one back
            value, on_b, stepped_back = (n - 1 if want_max else n + 1) * step, False, True
    if not admissible(value) or not ((not strict) if on_b else feasible(value)):
        past = [value + k * step for k in (1, 2)] if step else []  # toward the side where the condition fails
        raise NoAnswer("infeasible", at=_inside([lo if want_max else hi, value, *(past if want_max else [value - (x - value) for x in past]), b], admissible))
    return value, how, stepped_back


def _inside(candidates, admissible):
    """The point a no-answer message shows: the first candidate the domain admits (a boundary just above 0
    floors to 0, and half a step below it is negative: outside a positive domain), else the first."""
    return next((x for x in candidates if x is not None and admissible(x)), candidates[0])


def _from_search(feasible, admissible, seek, step, lo, hi, probe, integer, values=None) -> tuple:
    want_max = seek == "max"
    unit = step if integer and step else 1
    pts = [x for x in (values or grid(lo, hi, probe, integer, unit)) if admissible(x)]
    ok = _scan(feasible, pts, want_max, (hi if want_max else lo) is not None)
    if not any(ok):
        at = lo if lo is not None else hi if hi is not None else probe  # the point a reader would try first
        raise NoAnswer("infeasible", at=at, searched=(pts[0], pts[-1]) if pts else None)
    i = max(k for k, good in enumerate(ok) if good) if want_max else min(k for k, good in enumerate(ok) if good)
    inside = i + 1 < len(pts) if want_max else i > 0
    if not inside:  # feasible at the last point of the search
        if (hi if want_max else lo) is not None:
            return pts[i], "edge", False
        if all(ok):
            raise NoAnswer("unbounded", where="every value", searched=(pts[0], pts[-1]))
        run = next(k for k in range(len(ok)) if all(ok[k:])) if want_max else next(k for k in range(len(ok), 0, -1) if all(ok[:k]))
        edge = pts[run - 1] if want_max else pts[run]
        raise NoAnswer("unbounded", where="every value above" if want_max else "every value below", boundary=edge, searched=(pts[0], pts[-1]))
    good, bad = pts[i], pts[i + 1] if want_max else pts[i - 1]
    if values:  # every value of the set was tried: none lies between neighbours
        return good, "set", False
    for _ in range(200):  # bisect between the extreme feasible point and its infeasible neighbour
        if integer:
            if abs(bad - good) <= unit:
                break
            m = math.floor((good + bad) / 2 / unit) * unit
            if m in (good, bad):
                m = good + (unit if bad > good else -unit)
        else:
            if abs(bad - good) <= 1e-13 * max(abs(good), abs(bad)):
                break
            m = (good + bad) / 2 if not (good > 0 and bad > 0 and max(good, bad) > 4 * min(good, bad)) else math.sqrt(good * bad)
            if m in (good, bad):
                break
        if admissible(m) and _holds(feasible, m):
            good = m
        else:
            bad = m
    value, how = good, "search"
    if step and not integer:
        n = math.floor(value / step) if want_max else math.ceil(value / step)
        if _holds(feasible, n * step) and admissible(n * step):
            value, how = n * step, "floor" if want_max else "ceiling"
    return value, how, False


def _scan(feasible, pts, want_max: bool, edged: bool) -> list:
    """The condition at the grid points, from the answer's end inward, stopping at the first that holds.

    Points past it are never the answer, and evaluating them can be costly (a sum of a million terms);
    they count as False. Without an edge on the answer's side every point is needed to tell an unbounded answer.
    """
    if not edged:
        return [_holds(feasible, x) for x in pts]
    ok = [False] * len(pts)
    for i in reversed(range(len(pts))) if want_max else range(len(pts)):
        if _holds(feasible, pts[i]):
            ok[i] = True
            break
    return ok


def _holds(feasible, x) -> bool:
    """feasible(x) as a bool; feasible itself says False where the model has no admissible value at x."""
    return bool(feasible(x))


def no_answer(e: NoAnswer, question: str, find: str, condition: str, seek: str, domain: str, on: str, at: str, sides: tuple, boundary: str) -> ChainError:
    """The error for a question without an answer, from its pieces as text: one wording everywhere.

    domain: what was searched in words ('every positive whole number', values.domain_words); at: 'batch = 1';
    sides: the condition's two sides there and the negated operator ('tpot = 42.3 ms/token', '>',
    'tpot_target = 10 ms/token'); boundary: the NoAnswer's boundary as text.
    """
    if e.kind == "infeasible":
        left, negated, right = sides
        hint = f"no {find} meets the condition{on} (searched {domain}); change another input or the target"
        return ChainError(f"question {question}: no {find} meets {condition}: at {at}, " + " ".join(x for x in (left, negated, right) if x), hint, "infeasible")
    where = e.where if e.boundary is None else f"{e.where} {boundary}"
    bound, other = ("largest", "min") if seek == "max" else ("smallest", "max")
    return ChainError(f"question {question}: there is no {bound} {find}; {condition} holds for {where}", f"bound {find} with {seek}: in its declaration, or did you mean seek: {other}?", "unbounded")


def nowhere(question: str, errors: list) -> ChainError:
    """Several conditions, some of which hold nowhere: their own no-answer errors, joined under the question's name."""
    text = "; ".join(e.message.split(": ", 1)[1] for e in errors)
    return ChainError(f"question {question}: {text}", errors[-1].hint, "infeasible")
