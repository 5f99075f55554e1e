"""The rule for answering a question: the largest (or smallest) value that meets the condition.

Plain standard-library code, copied into generated modules (see __init__.py). The
caller supplies the boundary (where the condition's two sides are equal; None when
there is none) and `feasible(x)`, the condition at x. The rule probes both sides
of the boundary to learn which way the condition runs, takes the boundary or the
domain's edge, and rounds to the question's step on the safe side, stepping back
once where a strict condition fails on the step. At a closed-form boundary the
two sides are equal, so a non-strict condition holds there whatever the last
digit of its evaluation, and a boundary within rounding error of a step or an
edge is on it. The outcome says how it got the answer, as data.
"""

import math


class NoAnswer(ValueError):
    """No value meets the condition (`at`: the point that shows it), or none is the extreme (`where`)."""

    def __init__(self, kind: str, at=None, where: str = "", boundary=None):
        super().__init__(kind)
        self.kind, self.at, self.where, self.boundary = kind, at, where, boundary


def answer(boundary, feasible, admissible, seek: str, step, lo, hi, probe, closed: bool, strict: bool) -> tuple:
    """(value, how, stepped_back): how is 'boundary', 'edge', 'floor' or 'ceiling'; raises NoAnswer.

    boundary: the boundary's value or None; feasible(x), admissible(x): the condition holds at x, x is
    in the variable's domain; closed: it is a closed form (not a numeric search's);
    step: the rounding grid (None: none); lo, hi: the domain's edges (None: open); probe: where
    to test when there is no boundary and no edge.
    """
    want_max = seek == "max"
    edge = hi if want_max else lo
    on_b = False  # the value is the closed-form boundary itself
    if boundary is None:
        x = lo if lo is not None else hi if hi is not None else probe
        if not feasible(x):
            raise NoAnswer("infeasible", at=x)
        if edge is None:
            raise NoAnswer("unbounded", where="every value")
        value, how = edge, "edge"
    else:
        b = boundary
        delta = max(abs(b) / 10**6, step / 2 if step else 0)
        below, above = feasible(b - delta), feasible(b + delta)
        if not below and not above:
            raise NoAnswer("infeasible", at=b - delta if want_max else b + delta)
        if below and above:
            if edge is None:
                raise NoAnswer("unbounded", where="values on both sides of", boundary=b)
            value, how = edge, "edge"
        elif below if want_max else above:  # the condition holds on the answer's side of the boundary
            value, how, on_b = b, "boundary", closed
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
    if not step and not closed and boundary is not None and how == "boundary" and not feasible(value):
        # a numeric boundary can land a hair on the wrong side: step inward by the search's tolerance
        nudged = value * (1 + (-1 if want_max else 1) * 1e-12 * (1 if value > 0 else -1))
        if feasible(nudged):
            value = nudged
    if not admissible(value) or not ((not strict) if on_b else feasible(value)):
        raise NoAnswer("infeasible", at=lo if lo is not None and want_max else value)
    return value, how, stepped_back
