"""Limits that keep hostile or mistaken input from exhausting time or memory.

Each limit is data: its name, default, the environment variable that raises it, what
it bounds and how to raise it, so an error can say all of that. `value(limit)` reads
the environment each time (cheap), so a test or a long-running caller can change it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import ArgumentError


@dataclass(frozen=True)
class Limit:
    name: str
    default: int
    env: str  # the environment variable that overrides the default
    what: str  # what the limit bounds, for messages
    how_to_raise: str  # an instruction a person can follow


MAX_EXACT_DIGITS = Limit(
    "max_exact_digits",
    10_000,
    "CHAINC_MAX_EXACT_DIGITS",
    "digits of a number the evaluator computes with (an exact value's digits, any value's decimal exponent)",
    "set the environment variable CHAINC_MAX_EXACT_DIGITS to a larger number of digits",
)

LIMITS = (MAX_EXACT_DIGITS,)


def value(limit: Limit) -> int:
    """The limit in force: the environment variable when set to a positive whole number, else the default."""
    raw = os.environ.get(limit.env, "").strip()
    if not raw:
        return limit.default
    try:
        n = int(raw.replace("_", "").replace(",", ""))
    except ValueError:
        n = 0
    if n <= 0:
        raise ArgumentError(
            f"{limit.env}={raw!r} is not a positive whole number", None, f"write {limit.env}=<a whole number>, or unset it for the default {limit.default:,}; it bounds the {limit.what}"
        )
    return n
