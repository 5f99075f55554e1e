"""The bracketed root finder, on floats: one piece of code for the solver and for generated modules.

The Python backend copies this module's source into generated modules that need a
numeric step, so it uses nothing but `math` and stays ruff-clean as written.
"""

import math

from .values import ChainError, domain_words, shown


class NoRoot(ValueError):
    """No sign change was found (`jump` is None), or the sign changes by a jump at `jump` (no exact root)."""

    def __init__(self, low: float, high: float, jump: float | None = None):
        super().__init__(f"no root between {low:.6g} and {high:.6g}" if jump is None else f"no exact root: a jump at {jump:.6g}")
        self.low, self.high, self.jump = low, high, jump


class Beyond(Exception):
    """f at a trial point a limit stops (a sum of too many terms): no value there, and no edge of the domain to close in on."""


def probing(f):
    """f for a search: nan where a limit stops it, and those points remembered (`past`), so the scan goes no closer to them."""
    past = set()

    def g(x):
        try:
            return f(x)
        except Beyond:
            past.add(x)
            return math.nan

    g.past = past
    return g


def bracket_root(f, start: float | None, scale: float, kind: str, lo: float | None, hi: float | None) -> float:
    """A root of f: bracket a sign change around `start` (or `scale`), then bisect it.

    kind is the domain's sign ('positive', 'nonnegative' or 'real'); lo and hi bound it.
    Positive domains are searched geometrically (x 2, / 2), real ones arithmetically.
    f may return nan where it is undefined; such points are stepped over.
    """
    lo = lo if lo is not None else (0.0 if kind != "real" else -math.inf)
    hi = hi if hi is not None else math.inf
    g = start if start is not None and lo < start < hi else scale
    g = min(max(g, lo if lo > 0 else g), hi)
    if kind != "real" and g <= 0:
        g = scale
    fg = f(g)
    if fg == 0:
        return g
    size = abs(fg)
    bracket = None
    sides = [[g, fg], [g, fg]]
    for k in range(1, 200):
        for s, side in enumerate(sides):
            if kind != "real" and lo >= 0:
                x = g * 2.0**k if s == 0 else g / 2.0**k
            else:
                x = g + (abs(g) + 1) * 2.0**k * (1 if s == 0 else -1)
            x = min(max(x, lo), hi)
            if x == side[0] or (lo == 0 and x == 0):
                continue
            fx = f(x)
            if math.isnan(fx):
                continue
            size = max(size, abs(fx))
            if fx == 0:
                return x
            if (fx > 0) != (side[1] > 0):
                bracket = (side[0], side[1], x, fx)
                break
            side[0], side[1] = x, fx
        if bracket:
            break
    if bracket is None:
        raise NoRoot(sides[1][0], sides[0][0])
    a, fa, b, fb = bracket
    for _ in range(300):
        m = math.sqrt(a * b) if a > 0 and b > 0 and max(a, b) / min(a, b) > 4 else (a + b) / 2
        if m in (a, b):
            break
        fm = f(m)
        if fm == 0:
            return m
        if math.isnan(fm):  # no value inside the bracket (a pole's point: 1/x at 0): the sides do not cross, they jump
            raise NoRoot(min(a, b), max(a, b), m)
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b, fb = m, fm
        if abs(b - a) <= 1e-13 * max(abs(a), abs(b)):
            break
    if not abs(fa - fb) <= 1e-6 * size:  # not: an infinite side is a jump too
        raise NoRoot(min(a, b), max(a, b), (a + b) / 2)
    return (a + b) / 2


def dense(lo, hi, integer: bool, unit=1, most: int = 256) -> bool:
    """A whole-number domain of at most `most` values (the workbook's search reads this rule too): every value is a point
    of the search, so a condition may turn any number of times (a TP degree that divides the KV heads:
    mod(kv_heads, tp) == 0) and the answer is still the extreme one. (A default, not a constant: generated modules copy functions.)"""
    return integer and lo is not None and hi is not None and (hi - lo) / unit < most


def grid(lo, hi, probe, integer: bool, unit=1, doublings: int = 64) -> list:
    """Points to test, ascending: every value of a small whole-number domain (dense), else geometric from the probe
    point out to the edges, 2^-64 .. 2^64 of it (whole units if integer)."""
    if dense(lo, hi, integer, unit):
        first = math.ceil(lo / unit)
        return [k * unit for k in range(first, math.floor(hi / unit) + 1)]
    s = abs(probe) if probe else unit
    if not integer:
        try:
            s = float(s)  # the search is approximate anyway; floats keep generated (and NumPy) code in range
        except OverflowError:  # a probe (a default) beyond float range: the grid goes out from the largest power of 2 instead
            s, probe = math.ldexp(1.0, 1023), None
    pts = {probe} if probe is not None else set()
    for k in range(doublings + 1 if not integer else min(doublings, 62) + 1):
        for x in (s * 2**k, s / 2**k, -s * 2**k, -s / 2**k) if lo is None or lo < 0 else (s * 2**k, s / 2**k):
            pts.add(x)
    pts.add(0 * s)
    if integer:  # whole units, and every one of the first few: small counts matter most
        pts = {math.floor(x / unit) * unit for x in pts} | {math.ceil(x / unit) * unit for x in pts} | {k * unit for k in range(0, 33)}
    for e in (lo, hi):
        if e is not None:
            pts.add(e)
    return sorted(x for x in pts if (lo is None or x >= lo) and (hi is None or x <= hi))


def _points(start: float | None, scale: float, kind: str, lo: float | None, hi: float | None) -> list:
    """A geometric grid over the domain, from the start point out to 2^64 of it each way."""
    s = abs(start) if start else scale
    pts = {start} if start is not None else set()
    for k in range(65):
        pts |= {s * 2.0**k, s / 2.0**k}
        if kind == "real" and (lo is None or lo < 0):
            pts |= {-s * 2.0**k, -s / 2.0**k}
    if kind == "real":
        pts.add(0.0)
    pts |= {e for e in (lo, hi) if e is not None and math.isfinite(e)}
    low = lo if lo is not None else (0.0 if kind != "real" else -math.inf)
    return sorted(x for x in pts if x >= low and (hi is None or x <= hi) and not (kind == "positive" and x <= 0))


def all_roots(f, start: float | None, scale: float, kind: str, lo: float | None, hi: float | None) -> tuple[list, list, tuple, list]:
    """Every root of f the domain's grid brackets: (roots, jumps, (low, high) searched, intervals).

    Each sign change between neighbouring points where f has a value is bisected; it is a
    root when f's two sides close on each other, a jump (a step of ceil, floor or a
    condition) or a pole when they do not. Points where f has no value (nan: a variable
    outside its domain) bound the search and are never taken for a crossing.
    """
    intervals: list = []  # (low, high): f is 0 at every grid point between them
    pts = _points(start, scale, kind, lo, hi)
    vals = _with_edges(f, [(x, f(x)) for x in pts], False, scale)
    roots, jumps = [], []
    run: list = []  # indices of consecutive grid points where f is exactly 0: an interval of roots
    for k, (_, v) in enumerate([*vals, (None, 1.0)]):
        if v == 0:
            run.append(k)
            continue
        if len(run) >= 2:  # its ends, refined to where f stops being 0 (None: the domain's edge)
            a = None if run[0] == 0 else _edge(f, vals[run[0]][0], vals[run[0] - 1][0])
            b = None if run[-1] == len(vals) - 1 else _edge(f, vals[run[-1]][0], vals[run[-1] + 1][0])
            intervals.append((a, b))
        roots.extend(vals[i][0] for i in run[:1])
        run = []
    for (a, fa), (b, fb) in zip(vals, vals[1:]):
        if fa == 0 or fb == 0 or (fa > 0) == (fb > 0):
            continue
        size, gap = max(abs(fa), abs(fb)), False
        for _ in range(300):
            m = math.sqrt(a * b) if a > 0 and b > 0 and b / a > 4 else (a + b) / 2
            if m in (a, b) or abs(b - a) <= 1e-13 * max(abs(a), abs(b)):
                break
            fm = f(m)
            if math.isnan(fm):  # f has no value inside the bracket: the sides do not cross there
                gap = True
                break
            if fm == 0:
                a = b = m
                break
            if (fm > 0) == (fa > 0):
                a, fa = m, fm
            else:
                b, fb = m, fm
        if gap:
            continue
        if a == b or abs(fa - fb) <= 1e-6 * size:
            roots.append((a + b) / 2)
        else:
            jumps.append((a + b) / 2)
    return sorted(set(roots)), jumps, ((vals[0][0], vals[-1][0]) if vals else (None, None)), intervals


def _with_edges(f, vals: list, integer: bool, scale: float) -> list:
    """The grid's points where f has a value, and more of them up to each edge of where it has one.

    Where f has a value at one grid point and none at the next (an intermediate variable leaves
    its domain: a utilisation reaches 1), the edge is bisected and points are added closing in on
    it geometrically, so a root next to a pole or a domain's edge is bracketed, never stepped over.
    """
    out = [(x, v) for x, v in vals if not math.isnan(v)]
    past = getattr(f, "past", ())
    for (a, fa), (b, fb) in zip(vals, vals[1:]):
        if math.isnan(fa) == math.isnan(fb):
            continue
        good, bad = (a, b) if math.isnan(fb) else (b, a)
        if bad in past:  # a limit stopped f there, not the domain: closing in would compute ever more terms for nothing
            continue
        start = good
        for _ in range(200):
            if integer:
                if abs(bad - good) <= scale * 1.5:
                    break
                m = math.floor((good + bad) / 2 / scale) * scale
            else:
                m = (good + bad) / 2
                if m in (good, bad):
                    break
            if math.isnan(f(m)):
                bad = m
            else:
                good = m
        gap, k = good - start, 0
        while abs(gap) >= (scale if integer else 1e-15 * max(abs(good), abs(start))) and k < 64:
            x = good - (round(gap / scale) * scale if integer else gap)
            if x != start:
                v = f(x)
                if not math.isnan(v):
                    out.append((x, v))
            gap, k = gap / 2, k + 1
        out.append((good, f(good)))
    return sorted(set((x, v) for x, v in out if not math.isnan(v)))


def _edge(f, zero: float, other: float) -> float:
    """Where f stops being exactly 0 between a point where it is and one where it is not."""
    for _ in range(200):
        m = (zero + other) / 2
        if m in (zero, other):
            break
        if f(m) == 0:
            zero = m
        else:
            other = m
    return zero


def root_1d(f, start, scale: float, kind: str, lo, hi, name: str, unit: str, where: str, integer: bool = False) -> tuple[float, list]:
    """A numeric block's tear: (root, notes). The root bracketed from the start, checked against a scan of the domain.

    Several roots, or an interval of them, are a note (the root nearest the start is taken);
    none is a ChainError that says what was searched, or where the two sides jump past each other.
    A whole-number tear (integer: whole multiples of scale) is searched over whole numbers only.
    """
    f = probing(f)
    if integer:
        return integer_root(f, start, scale, kind, lo, hi, name, unit, where)
    roots, jumps, (low, high), intervals = all_roots(f, start, scale, kind, lo, hi)
    first = None
    if len(roots) == 1 and not jumps and not intervals:
        first = roots[0]  # the one sign change of the grid, bisected: the bracket the expanding search would find
    else:
        try:  # which of several is nearest the start, or one beyond the grid's 2^64
            first = bracket_root(f, start, scale, kind, lo, hi)
        except NoRoot:
            pass
    if first is not None and not any(abs(first - r) <= 1e-9 * max(abs(r), 1e-300) for r in roots):
        roots = sorted([*roots, first])
    if not roots:
        if not jumps:
            span = _searched(kind, False, lo, hi, scale, unit)
            raise ChainError(f"no value of {name} solves {where}", f"searched {span} of {name} and the two sides never crossed")
        at = ", ".join(f"{name} = {shown(j / scale)} {unit}".rstrip() for j in jumps[:3])
        hint = f"the two sides jump past each other at {at} (a step of ceil, floor or a condition, or a pole); ask a question with such_that: instead"
        raise ChainError(f"no value of {name} makes {where.replace(': ', ' hold exactly: ', 1)}", hint)
    chosen = first if first is not None else min(roots, key=lambda r: abs(r - start) if start is not None else abs(r))
    notes = []
    for a, b in intervals:
        if a is None and b is None:
            span = "in its domain"
        elif a is None or b is None:
            span = f"up to {shown(b / scale)} {unit}" if a is None else f"from {shown(a / scale)} {unit} up"
        else:
            span = f"from {shown(a / scale)} to {shown(b / scale)} {unit}"
        notes.append(f"{name} is not unique: every value {span.strip()} solves {where}; this is one of them")
    if not intervals and len(roots) > 1:
        listed = ", ".join(shown(r / scale) for r in roots[:6]) + (" ..." if len(roots) > 6 else "")
        nearest = "its default" if start is not None else "zero"
        notes.append(f"{name} is not unique: {len(roots)} values solve {where} ({listed} {unit}".rstrip() + f"); this is the one nearest {nearest}")
    return chosen, notes


def integer_root(f, start, scale: float, kind: str, lo, hi, name: str, unit: str, where: str) -> tuple[float, list]:
    """root_1d over whole multiples of scale: the grid of answer.grid, each sign change bisected to neighbours.

    A whole number is a root where f is 0 there, or negligible (1e-9) beside its neighbour across the
    crossing (a float model's rounding); a crossing between two neighbours is no root, and says so.
    """
    low = lo if lo is not None else (0.0 if kind != "real" else None)
    pts = [x for x in grid(low, hi, start, True, scale) if not (kind == "positive" and x <= 0)]
    vals = _with_edges(f, [(x, f(x)) for x in pts], True, scale)
    roots = {x for x, v in vals if v == 0}
    crossings = []
    for (a, fa), (b, fb) in zip(vals, vals[1:]):
        if fa == 0 or fb == 0 or (fa > 0) == (fb > 0):
            continue
        while b - a > scale * 1.5:  # bisect over whole numbers down to neighbours
            m = math.floor((a + b) / 2 / scale) * scale
            fm = f(m)
            if math.isnan(fm):
                break
            if fm == 0:
                roots.add(m)
                break
            if (fm > 0) == (fa > 0):
                a, fa = m, fm
            else:
                b, fb = m, fm
        else:
            if abs(fa) <= 1e-9 * abs(fb) or abs(fb) <= 1e-9 * abs(fa):
                roots.add(a if abs(fa) <= abs(fb) else b)
            else:
                crossings.append((a, b))
    if not roots:
        if crossings:
            at = "; ".join(f"{shown(a / scale)} and {shown(b / scale)}" for a, b in crossings[:3])
            raise ChainError(
                f"no whole {name} solves {where}",
                f"the two sides cross between {name} = {at} {unit}".rstrip() + f"; ask a question with such_that: for the smallest or largest {name} that meets a bound",
            )
        raise ChainError(f"no whole {name} solves {where}", f"searched {_searched(kind, True, lo, hi, scale, unit)} of {name} and the two sides never crossed")
    ordered = sorted(roots)
    chosen = min(ordered, key=lambda r: abs(r - start) if start is not None else abs(r))
    notes = []
    if len(ordered) > 1:
        listed = ", ".join(shown(r / scale) for r in ordered[:6]) + (" ..." if len(ordered) > 6 else "")
        nearest = "its default" if start is not None else "zero"
        notes.append(f"{name} is not unique: {len(ordered)} whole values solve {where} ({listed} {unit}".rstrip() + f"); this is the one nearest {nearest}")
    return chosen, notes


def _searched(kind: str, integer: bool, lo, hi, scale, unit: str) -> str:
    """The domain a root search covered, in words (values.domain_words), never the grid's internal ends."""
    return domain_words(kind, integer, None if lo is None else lo / scale, None if hi is None else hi / scale, unit)
