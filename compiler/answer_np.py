"""The question rule over arrays: the solver's vectorised path runs it, and `<module>_np.py` copies it
(backends/python/runtime.py reads this file as text).

runtime/answer.py's `answer` and `combine` at every point at once: the same probes around the
boundary, the same grid, bisection and rounding, each point masked out once it is decided, so a
call costs a few vectorised runs of the model however many points it is asked at. Each rule
returns (values, codes): a point's code says it has an answer (0), no value meets the
condition (1), none is the extreme (2), or the condition raised there (3). The module then runs
the scalar rule at the first point without an answer (`_answered_np`), which raises the scalar
flavour's error in its words; the rule's messages are written once.

`feasible(x, skip)` is the condition at x over the points, `skip` marking the points not asked
(their x is NaN): (holds, raises), where raises marks a division by zero the condition writes.
"""

from __future__ import annotations

import numpy as np

from .runtime.roots import grid as _grid
from .runtime.values import admits as _admits


def _admits_np(x, kind: str, lo=None, hi=None, values=None):
    """runtime.values.admits, element by element."""
    x = np.asarray(x)
    ok = ~np.isnan(x)
    if values is not None:  # runtime.values.member: 1e-12 relative
        v = np.asarray(values, dtype=float)
        ok &= np.any(np.abs(x[..., None] - v) <= 1e-12 * np.abs(v), axis=-1)
    if kind == "positive":
        ok &= x > 0
    if kind == "nonnegative":
        ok &= x >= 0
    if lo is not None:
        ok &= x >= lo
    if hi is not None:
        ok &= x <= hi
    return ok


def _tester(feasible, code):
    """test(x, live): the condition at x where live and still undecided; a point where it raises gets code 3."""

    def test(x, live):
        live = live & (code == 0)
        if not np.any(live):
            return live
        ok, err = feasible(np.where(live, x, np.nan), ~live)
        err = live & np.broadcast_to(err, code.shape)
        code[err] = 3
        return live & ~err & np.broadcast_to(ok, code.shape)

    return test


def _answer_np(boundary, feasible, shape, domain, seek: str, step, lo, hi, probe, closed: bool, strict: bool, integer: bool = False) -> tuple:
    """runtime.answer.answer at every point: (values, codes); boundary: per point, NaN where it has none."""
    code = np.zeros(shape, dtype=np.int8)
    test = _tester(feasible, code)
    value = np.full(shape, np.nan)
    b = np.broadcast_to(np.asarray(boundary, dtype=float), shape)
    near = np.isfinite(b) if closed and len(domain) < 4 else np.zeros(shape, dtype=bool)  # a set: each value is tried
    neither = both = np.zeros(shape, dtype=bool)
    if np.any(near):
        value, neither, both = _from_boundary_np(b, near, test, code, domain, seek, step, lo, hi, strict)
    far = (~near | neither | both) & (code == 0)
    if np.any(far):  # no boundary, or nothing near it holds: the whole domain is searched before saying no
        value = np.where(far, _from_search_np(test, far, code, domain, seek, step, lo, hi, probe, integer), value)
    code[neither & ((code == 1) | (code == 2))] = 1  # the boundary's point says more than the search's
    return value, code


def _from_boundary_np(b, live, test, code, domain, seek, step, lo, hi, strict) -> tuple:
    """runtime.answer._from_boundary at the points `live`: (values, the points where neither side holds)."""
    want_max = seek == "max"
    edge = hi if want_max else lo
    b = np.where(live, b, 0.0)
    delta = np.maximum(np.abs(b) / 10**6, step / 2 if step else 0)
    below, above = test(b - delta, live), test(b + delta, live)
    live = live & (code == 0)
    neither = live & ~below & ~above
    both = live & below & above if edge is None else np.zeros(live.shape, dtype=bool)  # no turn near it, no edge: searched
    live &= ~neither & ~both
    take = live & (below != above) & (below if want_max else above)  # the condition holds on the answer's side
    to_edge = live & ~take
    if edge is None:  # it holds past the boundary toward an open end: searched, as runtime.answer does
        both = both | to_edge
        live &= ~to_edge
    value = np.where(take, b, np.nan if edge is None else float(edge))
    on_b = take.copy()  # the value is the closed-form boundary itself
    tol = np.where(on_b, 1e-12, 0.0)
    ended = np.zeros(value.shape, dtype=bool)
    for e in (lo, hi):
        if e is not None:
            hit = live & ~ended & (np.abs(value - e) <= tol * abs(e))
            value, ended = np.where(hit, float(e), value), ended | hit
    checked = np.zeros(value.shape, dtype=bool)  # the condition is known to hold at the value
    if step:
        rnd = live & ~ended
        k = value / step
        n = np.round(k)
        keep = on_b & (np.abs(k - n) <= tol * np.maximum(1, np.abs(k)))
        n = np.where(keep, n, np.floor(k) if want_max else np.ceil(k))
        on_b = np.where(rnd & ~keep, on_b & (k == np.round(k)), on_b)
        value = np.where(rnd, n * step, value)
        holds = test(value, rnd & ~on_b)
        back = rnd & (code == 0) & ~np.where(on_b, not strict, holds)  # a strict condition fails on the step: one back
        value = np.where(back, (n - 1 if want_max else n + 1) * step, value)
        on_b &= ~back
        checked = rnd & ~on_b & ~back
    live &= code == 0
    ok = _admits_np(value, *domain)
    holds = np.where(on_b, not strict, checked | test(value, live & ok & ~on_b & ~checked))
    code[live & (code == 0) & ~(ok & holds)] = 1
    return value, neither, both


def _from_search_np(test, live, code, domain, seek, step, lo, hi, probe, integer):
    """runtime.answer._from_search at the points `live`: the grid from the answer's end, then bisection."""
    want_max = seek == "max"
    shape = code.shape
    unit = step if integer and step else 1
    pts = [x for x in (domain[3] if len(domain) > 3 else _grid(lo, hi, probe, integer, unit)) if _admits(x, *domain)]
    value = np.full(shape, np.nan)
    if not pts:
        code[live] = 1
        return value
    n = len(pts)
    index = np.full(shape, -1)
    edged = (hi if want_max else lo) is not None
    if edged:  # from the answer's end inward, each point stopping at the first that holds (past it costs, never counts)
        for k in range(n - 1, -1, -1) if want_max else range(n):
            ask = live & (index < 0)
            if not np.any(ask & (code == 0)):
                break
            index[test(pts[k], ask)] = k
    else:  # an unbounded answer shows only over every point
        ok = np.zeros((n, *shape), dtype=bool)
        for k in range(n):
            ok[k] = test(pts[k], live)
        last = (n - 1 - np.argmax(ok[::-1], axis=0)) if want_max else np.argmax(ok, axis=0)
        index = np.where(ok.any(axis=0), last, -1)
    live = live & (code == 0)
    code[live & (index < 0)] = 1
    live &= index >= 0
    inside = (index + 1 < n) if want_max else (index > 0)
    grid = np.asarray(pts, dtype=float)
    if edged:
        value = np.where(live & ~inside, grid[np.maximum(index, 0)], value)
    else:
        code[live & ~inside] = 2
    live &= inside
    searched = live.copy()
    good = grid[np.where(live, index, 0)]
    bad = grid[np.where(live, index + (1 if want_max else -1), 0)]
    if len(domain) > 3:  # every value of the set was tried: none lies between neighbours
        live &= False
    for _ in range(200):  # bisect between the extreme feasible point and its infeasible neighbour
        if integer:
            stop = np.abs(bad - good) <= unit
            m = np.floor((good + bad) / 2 / unit) * unit
            m = np.where((m == good) | (m == bad), good + np.where(bad > good, unit, -unit), m)
        else:
            stop = np.abs(bad - good) <= 1e-13 * np.maximum(np.abs(good), np.abs(bad))
            geometric = (good > 0) & (bad > 0) & (np.maximum(good, bad) > 4 * np.minimum(good, bad))
            m = np.where(geometric, np.sqrt(np.where(geometric, good * bad, 1.0)), (good + bad) / 2)
            stop |= (m == good) | (m == bad)
        live &= ~stop & (code == 0)
        if not np.any(live):
            break
        ok = test(m, live & _admits_np(m, *domain))
        good, bad = np.where(ok, m, good), np.where(live & ~ok, m, bad)
    value = np.where(searched, good, value)
    if step and not integer:
        cand = (np.floor(value / step) if want_max else np.ceil(value / step)) * step
        value = np.where(test(cand, searched) & _admits_np(cand, *domain), cand, value)
    return value


def _combine_np(limits, feasible, shape, domain, seek: str, step, lo, hi, probe, integer: bool = False) -> tuple:
    """runtime.answer.combine at every point: (values, codes) from each condition's own (values, codes).

    A condition without an answer at a point (code 1) or raising there (3) leaves none: the scalar rule
    words it (its own error, or the joint one); an unbounded one (2) bounds nothing.
    """
    code = np.zeros(shape, dtype=np.int8)
    best = np.full(shape, np.nan)
    have = np.zeros(shape, dtype=bool)
    for values, codes in limits:
        values, codes = np.broadcast_to(values, shape), np.broadcast_to(codes, shape)
        code[(codes == 1) | (codes == 3)] = 3
        ok = codes == 0
        better = ok & (~have | ((values < best) if seek == "max" else (values > best)))
        best, have = np.where(better, values, best), have | ok
    test = _tester(feasible, code)
    live = code == 0
    holds = test(best, live & have & _admits_np(best, *domain))
    far = live & ~holds & (code == 0)  # the conditions hold on several stretches: the domain, all of them together
    value = np.where(holds, best, np.nan)
    if np.any(far):
        value = np.where(far, _from_search_np(test, far, code, domain, seek, step, lo, hi, probe, integer), value)
    return value, code


def _answered_np(values, codes, rule, points, titles):
    """The answers; at the first point without one the scalar rule runs, and raises its error (or, disagreeing, answers)."""
    values = np.array(values, dtype=float)
    for flat in np.flatnonzero(codes):
        i = np.unravel_index(flat, values.shape)
        values[i] = rule(*(float(np.broadcast_to(p, values.shape)[i]) for p in points), titles)
    return values
