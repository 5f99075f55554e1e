"""The bracketed root finder, on floats: one piece of code for the solver and for generated modules.

The Python backend copies this module's source into generated modules that need a
numeric step, so it uses nothing but `math` and stays ruff-clean as written.
"""

import math


class NoRoot(ValueError):
    """No sign change was found (`jump` is None), or the sign changes by a jump at `jump` (no exact root)."""

    def __init__(self, low: float, high: float, jump: float | None = None):
        super().__init__(f"no root between {low:.6g} and {high:.6g}" if jump is None else f"no exact root: a jump at {jump:.6g}")
        self.low, self.high, self.jump = low, high, jump


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
        if (fm > 0) == (fa > 0):
            a, fa = m, fm
        else:
            b, fb = m, fm
        if abs(b - a) <= 1e-13 * max(abs(a), abs(b)):
            break
    if abs(fa - fb) > 1e-6 * size:
        raise NoRoot(min(a, b), max(a, b), (a + b) / 2)
    return (a + b) / 2
