"""Numbers for people: a sensible number of significant figures, thousands separated."""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from fractions import Fraction

from .numbers import exact


def fmt(x, digits: int | None = None) -> str:
    """4 significant figures by default, but never rounding away integer digits.

    7.975, 79.75, 2,990, 487,671, 0.6941, 5.243e-06 (tiny or huge values in E notation).
    x may be a float or an exact (SymPy or int) number; an exact number beyond the range
    of a float is written from its exact value (1.000e+400), never as inf or 0.
    """
    digits = digits or 4
    f = as_float(x)
    if f is None:
        return sci(x, digits)
    x = f
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag >= 15 or mag < -4:
        return f"{x:.{digits - 1}e}"
    if mag >= digits - 1:
        return f"{round(x):,}"
    text = f"{x:,.{max(digits - 1 - mag, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def as_float(x) -> float | None:
    """float(x), or None when x is an exact number a float cannot hold (it overflows, or a nonzero value underflows to 0)."""
    if isinstance(x, float):
        return x
    try:
        f = float(x)
    except OverflowError:
        return None
    if (math.isinf(f) or f == 0) and _exact_number(x) and x != 0:
        return None
    return f


def _exact_number(x) -> bool:
    if isinstance(x, (int, Fraction)):
        return True
    return bool(getattr(x, "is_number", False) and (x.is_Rational or (x.is_Float and x.is_finite)))


def sci(x, digits: int = 4) -> str:
    """An exact number in E notation with `digits` significant figures, whatever its size: 1.000e+400."""
    v = exact(x)
    if isinstance(v, float):
        return f"{v:.{digits - 1}e}"
    d = Context(prec=digits, Emax=MAX_EMAX, Emin=MIN_EMIN).divide(Decimal(v.numerator), Decimal(v.denominator))
    return f"{d:.{digits - 1}e}"
