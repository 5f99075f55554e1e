"""Values as a person reads them: the number at sensible significant figures, and its display unit."""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal, InvalidOperation
from fractions import Fraction

from ..format import fmt, to_decimal
from ..ir import Quantity
from ..numbers import display, exact


@dataclass(frozen=True)
class Shown:
    """A value as a person reads it: the number at sensible significant figures and the display unit."""

    text: str  # '6,450', '9.923', '5.243e-06'
    unit: str  # display unit as written ('ms/token'); '' when dimensionless
    value: float  # in the display unit
    negative: bool = False
    label: bool = False  # text is a choice's name (lookups.py), not a number

    def __str__(self) -> str:
        return f"{self.text} {self.unit}".rstrip()


def shown(q: Quantity, base_value, digits: int | None = None) -> Shown:
    if getattr(q, "choices", ()):
        return Shown(q.choices[int(base_value) - 1], "", float(base_value), label=True)
    x = display(base_value, q.factor)  # a float, or exact where a float cannot hold it (1e400 is not inf)
    value = float(x) if isinstance(x, float) else (math.inf if x > 0 else -math.inf) if abs(x) > 1 else 0.0
    return Shown(fmt(x, digits), q.unit, value, bool(x < 0))


def shown_boundary(q: Quantity, boundary, value, kind: str, step, stepped_back: bool = False) -> Shown:
    """A question's boundary with as many significant figures as it takes for its rounding to be evidently right.

    At 4 figures a boundary of 15,394.9 prints as 15,395, whose floor is not the answer
    15,394: more figures are added until the printed number, floored or ceiled to the
    step (and one step back where a strict condition moved the answer), is the answer.
    """
    first = shown(q, boundary)
    if kind not in ("floor", "ceiling") or not step:
        return first
    b = display(boundary, q.factor)
    want, unit = _decimal(_ratio(value, q.factor)), _decimal(_ratio(step, q.factor))
    if want is None or unit is None or unit <= 0:
        return first
    for digits in range(4, 18):
        text = fmt(b, digits)
        p = _decimal(text.replace(",", ""))
        if p is None:
            return first
        n = (p / unit).to_integral_value(ROUND_FLOOR if kind == "floor" else ROUND_CEILING)
        if stepped_back:
            n += -1 if kind == "floor" else 1
        if abs(n * unit - want) <= unit * Decimal("1e-9"):
            return Shown(text, q.unit, first.value, first.negative)
    return first


def _ratio(base, factor):
    a, f = exact(base), exact(factor)
    return a / f if isinstance(a, Fraction) and isinstance(f, Fraction) else float(a) / float(f)


def _decimal(x) -> Decimal | None:
    try:
        d = Decimal(str(x)) if not isinstance(x, Fraction) else to_decimal(x)  # 28 figures, as the default context divides
    except (InvalidOperation, ValueError, TypeError):
        return None
    return d if d.is_finite() else None
