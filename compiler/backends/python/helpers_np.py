"""The NumPy flavour's helpers, copied into `<module>_np.py` (runtime.py reads this file as text; chainc never imports it).

Each vectorises one runtime rule over arrays of points and, where a point fails,
hands that first point to the scalar rule (copied beside it) so the error reads
exactly as the scalar flavour's. `_search_np` is runtime/roots.py's
`bracket_root` for every point at once: the same brackets, the same midpoints,
the same stopping rules, each point masked out once it is done.
"""

from __future__ import annotations

import math

import numpy as np

from ...answer_np import _admits_np
from ...runtime.roots import root_1d as _root_1d
from ...runtime.values import ChainError
from ...runtime.values import answer_number as _answer_number
from ...runtime.values import pick as _pick
from ...runtime.values import require as _require
from ...runtime.values import rows as _rows
from ...runtime.values import shown as _shown
from .helpers import _choice, _failed_row, _outside, _pass_as, _terms, _whole


def _array(x, name: str, unit: str = ""):
    """A caller's argument as an array of floats: numbers, or lists and arrays of them; strings and bools are refused."""
    a = np.asarray(x)
    if a.dtype.kind in "iuf" or (a.dtype.kind == "O" and all(not isinstance(v, (str, bytes, bool)) and hasattr(v, "__float__") for v in a.flat)):
        return a.astype(float)
    raise ChainError(f"{name} = {x!r} is not a number or an array of numbers", _pass_as(x, name, unit, "numbers (an int, a float, or a list or array of them)"))


def _choices_np(x, name: str, choices: tuple):
    """A caller's name, or a list or array of names, for a choice argument -> an array of codes (helpers._choice at each)."""
    a = np.asarray(x, dtype=object)
    return np.array([_choice(v, name, choices) for v in a.flat], dtype=float).reshape(a.shape)


def _answers_np(x, whole: bool):
    """runtime.values.answer_number at every point: an int64 array (whole) or a float one; a single point
    (every argument a scalar) is a Python number, as the plain flavour returns it (118, not 118.0)."""
    a = np.asarray(x)
    if a.ndim == 0:
        return _answer_number(a.item(), whole)
    return np.round(a).astype(np.int64) if whole else a.astype(float)


def _first(mask) -> tuple:
    """The index (C order) of the first true element of a boolean array."""
    mask = np.asarray(mask)
    return np.unravel_index(int(np.argmax(mask.ravel())), mask.shape) if mask.ndim else ()


def _cpow(base, exp):
    """base ** exp as Python's ** on floats: through complex numbers where a base is negative (not NaN)."""
    base = np.asarray(base)
    if np.iscomplexobj(base) or np.iscomplexobj(exp) or np.any(base < 0):
        return np.power(base.astype(complex), exp)
    return np.power(base, exp)


def _exact_sum_np(terms):
    """runtime.values.exact_sum per point: the terms added without cancellation error (error-free sums, as math.fsum)."""
    terms = [np.asarray(t) for t in terms]
    if any(np.iscomplexobj(t) for t in terms):
        return sum(terms)
    partials: list = []  # non-overlapping parts of the running sum, smallest first
    for x in terms:
        x = x.astype(float)
        out = []
        for p in partials:
            s = x + p
            v = s - x
            out.append((x - (s - v)) + (p - v))  # the rounding error of x + p, exactly
            x = s
        partials = [*out, x]
    total = partials[0]
    for p in partials[1:]:
        total = total + p
    return np.where(np.isfinite(partials[-1]), total, partials[-1])


def _real_np(x, what: str):
    """runtime.values.real per point: a complex value with no imaginary part is its real part; any other is NaN."""
    x = np.asarray(x)
    if not np.iscomplexobj(x):
        return x
    return np.where(x.imag == 0, x.real, np.nan)


def _require_np(x, shown, what: str, name: str, unit: str, integer: bool, text: str, domain: tuple) -> None:
    """runtime.values.require over an array: the first element it refuses raises its error."""
    x, shown = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(shown, dtype=float))
    bad = ~_admits_np(x, *domain)
    if integer:
        bad |= ~np.isfinite(x) | (np.floor(x) != x)
    if np.any(bad):
        i = _first(bad)
        _require(float(x[i]), float(shown[i]), what, name, unit, integer, text, domain)
    for i in np.ndindex(x.shape):  # the fast test and this one disagree: the scalar rule decides
        _require(float(x[i]), float(shown[i]), what, name, unit, integer, text, domain)


def _outside_np(x, factor, name: str, unit: str, domain: str, where: str, kind: str, lo, hi, values=None) -> ChainError:
    """The error for the first element of a computed array that is not finite or not in its variable's domain."""
    x = np.asarray(x)
    bad = ~(_admits_np(x, kind, lo, hi, values) & np.isfinite(x))
    return _outside(float(x[_first(bad)]) if np.any(bad) else float("nan"), factor, name, unit, domain, where)


def _rows_np(n, table: str, rows_text: str, max_rows: int, quiet: bool = False):
    """runtime.values.rows per point: whole row counts (ints); quiet, (counts with 0 where bad, the bad points)."""
    n = np.asarray(n, dtype=float)
    bad = ~((n >= 0) & (np.floor(n) == n) & (n <= max_rows))
    if quiet:
        return np.where(bad, 0, n).astype(np.int64), bad
    if np.any(bad):
        _rows(float(n[_first(bad)]), table, rows_text, max_rows)
    return n.astype(np.int64)


def _no_rows_np(n, what: str) -> ChainError:
    """A sum, last, max or min over a table that has no rows at some point."""
    return ChainError(f"{what} of a table with no rows (at point {tuple(int(i) for i in _first(np.asarray(n) == 0))})", "check the table's rows expression")


def _cell_np(value, live, row: int, name: str, where: str) -> None:
    """A table cell must be a finite number at every point that has this row."""
    bad = np.asarray(live & ~np.isfinite(value))
    if np.any(bad):
        raise _failed_row(ChainError(f"is not a finite number ({float(np.broadcast_to(value, bad.shape)[_first(bad)])})"), row, name, where)


def _masked(live, *cells) -> tuple:
    """A table row over the points: NaN where a point has fewer rows."""
    if np.all(live):
        return cells
    return tuple(np.where(live, c, np.nan) for c in cells)


def _index_mask(shape, i) -> np.ndarray:
    """A boolean array of `shape`, true at index i only."""
    mask = np.zeros(shape, dtype=bool)
    mask[i] = True
    return mask


def _first_bad(bad, where: str) -> ChainError:
    return ChainError(f"a value is not a finite number at point {tuple(int(i) for i in _first(bad))}: {where}", "check the inputs, or the equation's domain")


def _pick_np(options: list, names: str, domains: list, where: str, quiet: bool = False) -> tuple:
    """runtime.values.pick per point: the one admissible candidate; a point with none, or several, raises.

    quiet: nothing raises; the values (NaN where a point has no one candidate), then those points.
    """
    shape = np.broadcast_shapes(*(np.shape(v) for option in options for v in option))
    cands = []
    for option in options:
        values, ok = [], np.ones(shape, dtype=bool)
        for v, domain in zip(option, domains):
            v = np.broadcast_to(np.asarray(v), shape)
            if np.iscomplexobj(v):  # a closed form may pass through complex values to a real root
                ok &= np.abs(v.imag) <= 1e-12 * (np.abs(v.real) + 1)
                v = v.real
            ok &= _admits_np(v, *domain) & np.isfinite(v)  # inf: a division by zero, where the scalar candidate raises
            values.append(v.astype(float))
        cands.append((values, ok))
    chosen = [np.full(shape, np.nan) for _ in domains]
    found, several = np.zeros(shape, dtype=bool), np.zeros(shape, dtype=bool)
    for values, ok in cands:
        same = np.ones(shape, dtype=bool)
        for c, v in zip(chosen, values):
            same &= np.abs(v - c) <= 1e-12 * (np.abs(c) + 1e-300)
        several |= ok & found & ~same
        for c, v in zip(chosen, values):
            np.copyto(c, v, where=ok & ~found)
        found |= ok
    bad = ~found | several
    if quiet:
        return (*(np.where(bad, np.nan, c) for c in chosen), bad)
    if np.any(bad):
        i = _first(bad)
        _pick([None if not ok[i] else tuple(float(v[i]) for v in values) for values, ok in cands], names, domains, where)
    return tuple(chosen)


def _lambertw_np(x, branch=0):
    """runtime.values.lambertw over an array (NaN outside its domain), by the same Halley iteration."""
    x = np.asarray(x, dtype=float)
    if branch == 0:
        w = np.where(x > -0.25, np.log1p(np.maximum(x, -0.25)), -1 + np.sqrt(np.maximum(2 * (1 + math.e * x), 0)))
        ok = x >= -1 / math.e
    else:
        near = -1 - np.sqrt(np.maximum(2 * (1 + math.e * x), 0))
        safe = np.minimum(x, -1e-300)
        w = np.where(x > -0.25, np.log(-safe) - np.log(np.maximum(-np.log(-safe), 1e-300)), near)
        ok = (x >= -1 / math.e) & (x < 0)
    done = ~ok
    for _ in range(100):
        e = np.exp(w)
        f = w * e - x
        denominator = e * (w + 1) - (w + 2) * f / (2 * w + 2)
        step = np.where((w != -1) & ~done & (f != 0), f / np.where(denominator == 0, 1, denominator), 0)
        w = w - step
        done |= (f == 0) | (np.abs(step) <= 1e-15 * (1 + np.abs(w)))
        if np.all(done):
            break
    return np.where(ok, w, np.nan)


def _search_np(trial, start, factor: float, kind: str, lo, hi, name: str, unit: str, where: str, integer: bool = False, skip=None):
    """runtime.roots.bracket_root at every point together: trial(x) -> (residuals, values, bad) over the points.

    integer: whole multiples of factor only, as runtime.roots.integer_root (brackets bisected to neighbours).
    skip (quiet): points not to search; nothing raises, and the result is (roots, the points without one).
    """

    def f(x):
        r, _, bad = trial(x)
        r = np.asarray(r, dtype=float)
        return np.where(np.asarray(bad) | ~np.isfinite(r), np.nan, r)

    given = (lo, hi)  # as declared, for the scalar rule below
    lo = lo if lo is not None else (0.0 if kind != "real" else -math.inf)
    hi = hi if hi is not None else math.inf
    scale = float(factor)
    first = f(scale if start is None else start)
    shape = np.shape(first) if skip is None else np.broadcast_shapes(np.shape(first), np.shape(skip))
    g = np.full(shape, scale) if start is None else np.where((lo < np.asarray(start)) & (np.asarray(start) < hi), start, scale).astype(float)
    g = np.minimum(np.maximum(g, lo) if lo > 0 else g, hi)
    if kind != "real":
        g = np.where(g <= 0, scale, g)
    whole = (lambda x, up: (np.ceil(x / scale - 1e-9) if up else np.floor(x / scale + 1e-9)) * scale) if integer else (lambda x, up: x)
    g = whole(g, True)
    fg = f(g)
    quiet = skip is not None
    failed = np.broadcast_to(skip, shape).copy() if quiet else np.zeros(shape, dtype=bool)
    result = np.where((fg == 0) & ~failed, g, np.nan)
    done = (fg == 0) | failed
    size = np.abs(fg)
    # expand both sides until the sign changes (side 0 up, side 1 down), as bracket_root does
    side = [[g.copy(), fg.copy()], [g.copy(), fg.copy()]]
    a, fa, b, fb = (np.full(shape, np.nan) for _ in range(4))
    bracketed = np.zeros(shape, dtype=bool)
    for k in range(1, 200):
        for s in (0, 1):
            active = ~done & ~bracketed
            if not np.any(active):
                break
            if kind != "real" and lo >= 0:
                x = g * 2.0**k if s == 0 else g / 2.0**k
            else:
                x = g + (np.abs(g) + 1) * 2.0**k * (1 if s == 0 else -1)
            x = whole(np.minimum(np.maximum(x, lo), hi), s == 0)
            active &= ~((x == side[s][0]) | ((lo == 0) & (x == 0)))
            fx = f(np.where(active, x, g))
            active &= ~np.isnan(fx)
            size = np.where(active, np.maximum(size, np.abs(fx)), size)
            hit = active & (fx == 0)
            result, done = np.where(hit, x, result), done | hit
            active &= ~hit
            crossed = active & ((fx > 0) != (side[s][1] > 0))
            a, fa = np.where(crossed, side[s][0], a), np.where(crossed, side[s][1], fa)
            b, fb = np.where(crossed, x, b), np.where(crossed, fx, fb)
            bracketed |= crossed
            moved = active & ~crossed
            side[s][0], side[s][1] = np.where(moved, x, side[s][0]), np.where(moved, fx, side[s][1])
        if np.all(done | bracketed):
            break
    missing = ~done & ~bracketed
    for edge in (e for e in given if e is not None):  # the scalar rule's scan includes the declared edges (not a sign's 0: runtime.roots._points)
        if np.any(missing) and math.isfinite(edge) and not (kind == "positive" and edge <= 0):
            fe = f(np.full(shape, float(edge)))
            hit = missing & (fe == 0)
            result, done, missing = np.where(hit, float(edge), result), done | hit, missing & ~hit
    for i in zip(*np.nonzero(missing)) if np.ndim(missing) else ([()] if missing else []):
        # no bracket from the start (the other side has no values): the scalar rule, which scans the domain, at this point
        at = None if start is None else float(np.broadcast_to(start, shape)[i])
        try:
            root = _root_1d(lambda x, i=i: float(f(np.full(shape, x))[i]), at, scale, kind, *given, name, unit, where, integer)[0]
        except ChainError:
            if not quiet:
                raise
            root, failed = np.nan, failed | _index_mask(shape, i)
        result, done = np.where(_index_mask(shape, i), root, result), done | _index_mask(shape, i)
    # bisect every bracket, geometric midpoints where the bracket spans more than a factor of 4
    live = bracketed.copy()
    gap = np.zeros(np.shape(live), dtype=bool)
    for _ in range(300):
        if not np.any(live):
            break
        pos = (a > 0) & (b > 0)
        ratio = np.where(pos, np.maximum(a, b) / np.where(pos, np.minimum(a, b), 1), 0)
        m = np.where(pos & (ratio > 4), np.sqrt(np.where(pos, a * b, 1)), (a + b) / 2)
        m = np.where(a * b < 0, 0.0, m)  # a bracket around 0 tries 0 first, a point of the scalar rule's grid: a root there is exact
        m = np.where(live, whole(np.where(live, m, 0), False), m)
        live &= (m != a) & (m != b)
        fm = f(np.where(live, m, a))
        hit = live & (fm == 0)
        result, done = np.where(hit, m, result), done | hit
        gap |= live & np.isnan(fm)  # no value inside the bracket: a jump, as runtime.roots.bracket_root says
        live &= ~hit & ~gap
        same = live & ((fm > 0) == (fa > 0))
        other = live & ~same
        a, fa = np.where(same, m, a), np.where(same, fm, fa)
        b, fb = np.where(other, m, b), np.where(other, fm, fb)
        live &= ~(np.abs(b - a) <= 1e-13 * np.maximum(np.abs(a), np.abs(b)))
    ends = bracketed & ~done
    if integer:  # neighbours: a root where one side is negligible beside the other (a float model's rounding)
        near_a, near_b = ends & (np.abs(fa) <= 1e-9 * np.abs(fb)), ends & (np.abs(fb) <= 1e-9 * np.abs(fa))
        apart = ends & ~near_a & ~near_b
        if quiet:
            return np.where(near_a, a, np.where(near_b, b, result)), failed | apart
        if np.any(apart):
            i = _first(apart)
            at = f"{_shown(min(a[i], b[i]) / factor)} and {_shown(max(a[i], b[i]) / factor)} {unit}".rstrip()
            raise ChainError(f"no whole {name} solves {where}", f"the two sides cross between {name} = {at}; ask a question with such_that: for the smallest or largest {name} that meets a bound")
        return np.where(near_a, a, np.where(near_b, b, result))
    jump = ends & (gap | ~(np.abs(fa - fb) <= 1e-6 * size))
    if quiet:
        return np.where(ends & ~jump, (a + b) / 2, np.where(jump, np.nan, result)), failed | jump
    if np.any(jump):
        i = _first(jump)
        at = f"{name} = {_shown((a[i] + b[i]) / 2 / factor)} {unit}".rstrip()
        hint = f"the two sides jump past each other at {at} (a step of ceil, floor or a condition); ask a question with such_that: instead"
        raise ChainError(f"no value of {name} makes {where.replace(': ', ' hold exactly: ', 1)}", hint)
    return np.where(ends, (a + b) / 2, result)


def _finite_np(kind: str, term, lo, hi, around=1, quiet: bool = False):
    """sum (or prod) of term(k) for k = lo .. hi, element by element; past an element's bounds a term counts as 0 (1).

    The terms of many k at once (k along a new first axis, in chunks), added in order as the scalar loop adds them (cumsum).
    An element is a point of the bounds and of what the term reads besides k (an enclosing sum's index, an input): the
    term at one k gives its shape, so that k's axis comes before all of them.
    """
    lo, hi = np.broadcast_arrays(np.asarray(lo, dtype=float), np.asarray(hi, dtype=float))
    off = np.zeros(lo.shape, dtype=bool)
    for bound in (lo, hi):  # whole numbers, as the scalar flavour's _terms requires (its error for the first that is not)
        off |= np.abs(bound - np.round(bound)) > 1e-9 * np.maximum(1, np.abs(np.round(bound)))
        if np.any(off) and not quiet:
            _whole(float(bound[_first(off)]))
    lo, hi = np.where(off, np.nan, np.round(lo)), np.where(off, np.nan, np.round(hi))  # quiet: no value there
    known = ~(np.isnan(lo) | np.isnan(hi))  # a bound without a value (a search's trial point outside the domain)
    if not np.any(known & (lo <= hi)):
        return np.where(known, 0.0 if kind == "sum" else 1.0, np.nan)
    first, last = int(np.min(lo[known])), int(np.max(hi[known]))
    around = np.asarray(around, dtype=float)  # the term counts of the sums around, as _terms counts them
    _terms(first, last + 1, int(np.max(around[~np.isnan(around)], initial=1)))  # at most the solver's sum_terms limit of them
    shape = np.broadcast_shapes(lo.shape, np.shape(term(np.float64(first))))
    lo, hi, known = (np.broadcast_to(x, shape) for x in (lo, hi, known))
    total = np.where(known, np.zeros(shape) if kind == "sum" else np.ones(shape), np.nan)
    chunk = max(1, min(4096, (1 << 22) // max(1, total.size)))  # at most some 4 million terms at once
    for start in range(first, last + 1, chunk):
        k = np.arange(start, min(start + chunk, last + 1), dtype=float).reshape((-1,) + (1,) * total.ndim)
        inside = (lo <= k) & (k <= hi)
        values = np.broadcast_to(np.asarray(term(k), dtype=float), inside.shape)
        values = np.where(inside, values, 0.0 if kind == "sum" else 1.0)
        steps = np.concatenate([total[None], values])
        total = (np.cumsum(steps, axis=0) if kind == "sum" else np.cumprod(steps, axis=0))[-1]
        if not np.any(np.isfinite(total) & (k[-1] < hi)):  # no total left to finish (the scalar flavour stops at an overflow too)
            break
    return total


def _factorial_np(x):
    """n! element by element, as gamma(x + 1)."""
    return _gamma_np(np.asarray(x, dtype=float) + 1)


def _gamma_np(x):
    """math.gamma element by element; NaN where it overflows or has a pole (the scalar flavour's error: no value there)."""

    def gamma(v: float) -> float:
        try:
            return math.gamma(v)
        except (OverflowError, ValueError):
            return math.nan

    return np.vectorize(gamma, otypes=[float])(np.asarray(x, dtype=float))


def _limit_warning_np(holds, template: str, left, right, digits: tuple, about: str) -> None:
    """A physical limit that fails at some points: one warning, quoting the first such point's values."""
    holds, left, right = np.broadcast_arrays(np.asarray(holds, dtype=bool), np.asarray(left, dtype=float), np.asarray(right, dtype=float))
    bad = ~holds
    if bad.any():
        k = tuple(int(i) for i in np.argwhere(bad)[0])
        where = f" at {int(bad.sum())} of {bad.size} points, the first at index {k}" if bad.size > 1 else ""
        _limit_warning(template, left[k], right[k], digits, about, where, 4)  # noqa: F821 - copied beside it in the module
