"""Numbers for people: a sensible number of significant figures, thousands separated."""

from __future__ import annotations

import math


def fmt(x: float, digits: int | None = None) -> str:
    """4 significant figures by default, but never rounding away integer digits.

    7.975, 79.75, 2,990, 487,671, 0.6941, 5.243e-06 (tiny or huge values in E notation).
    """
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0:
        return "0"
    digits = digits or 4
    mag = math.floor(math.log10(abs(x)))
    if mag >= 15 or mag < -4:
        return f"{x:.{digits - 1}e}"
    if mag >= digits - 1:
        return f"{round(x):,}"
    text = f"{x:,.{max(digits - 1 - mag, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text
