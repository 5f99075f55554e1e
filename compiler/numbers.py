"""Numbers as the solver holds them: exact Fractions where the model is rational, floats where it is not."""

from __future__ import annotations

import re
from fractions import Fraction

# a written number (commas or underscores between digits, an exponent) and what follows it: its unit
_NUMBER = re.compile(r"\s*([-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d[\d_]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(.*)$")


def split_quantity(text: str) -> tuple[str, str] | None:
    """'3.35 TB/s' -> ('3.35', 'TB/s'); '2 1/s' and '5 /s' (a reciprocal unit, as chainc prints one) -> unit '1/s'."""
    m = _NUMBER.match(str(text))
    if not m:
        return None
    unit = m.group(2).strip()
    return m.group(1), "1" + unit if unit.startswith("/") else unit


def exact(x) -> Fraction | float:
    """A Fraction for anything rational (ints, Fractions, SymPy Rationals), else a float."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        return x
    p, q = getattr(x, "p", None), getattr(x, "q", None)  # a SymPy Rational, without importing SymPy
    if p is not None and q is not None:
        return Fraction(int(p), int(q))
    return float(x)


def display(base, factor):
    """A base-unit value in a unit: a float, or the exact Fraction when a float cannot hold it (1e400)."""
    try:
        x = in_unit(base, factor)
    except OverflowError:
        return exact(base) / exact(factor)
    if x == 0 and base != 0 and not isinstance(base, float):
        return exact(base) / exact(factor)  # below float range: keep it exact
    return x


def in_unit(base, factor) -> float:
    """A base-unit value divided by a unit's factor, as a float (correctly rounded when both are rational)."""
    if isinstance(base, float):
        return base / float(factor)
    base, factor = exact(base), exact(factor)
    if isinstance(base, Fraction) and isinstance(factor, Fraction):
        return (base.numerator * factor.denominator) / (base.denominator * factor.numerator)  # one int division
    return float(base) / float(factor)
