"""Values as a person reads them: the number at sensible significant figures, and its display unit."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..format import fmt
from ..ir import Quantity
from ..numbers import display


@dataclass(frozen=True)
class Shown:
    """A value as a person reads it: the number at sensible significant figures and the display unit."""

    text: str  # '6,450', '9.923', '5.243e-06'
    unit: str  # display unit as written ('ms/token'); '' when dimensionless
    value: float  # in the display unit
    negative: bool = False

    def __str__(self) -> str:
        return f"{self.text} {self.unit}".rstrip()


def shown(q: Quantity, base_value, digits: int | None = None) -> Shown:
    x = display(base_value, q.factor)  # a float, or exact where a float cannot hold it (1e400 is not inf)
    value = float(x) if isinstance(x, float) else (math.inf if x > 0 else -math.inf) if abs(x) > 1 else 0.0
    return Shown(fmt(x, digits), q.unit, value, bool(x < 0))
