"""Values as people type them (`10ms`, `4.8 TB/s`, `128`) -> exact base-unit numbers for a variable.

This is the command line's and the API's parsing; the solver itself takes numbers
in base units. A unit that lacks only the variable's per-token or per-request part
is read as "per one token" (or request): `tpot=10ms` is 10 ms/token. Units are
resolved by pint, or (on the warm path) from a table of the units a cached model
uses, so this module imports neither until it must.
"""

from __future__ import annotations

import difflib
from fractions import Fraction

from .errors import ArgumentError
from .limits import number_problem
from .numbers import exact, split_quantity

COUNTING = {"[token]", "[request]"}


class UnknownUnit(ValueError):
    """A unit the resolver does not know (the warm path then falls back to pint)."""


def pint_unit(text: str) -> tuple[Fraction, dict]:
    """A unit's exact factor to base units and its dimensions, from pint."""
    from .units import BadUnit, parse_unit

    try:
        _, factor, dim = parse_unit(text)
    except BadUnit as e:
        raise UnknownUnit(str(e)) from None
    return exact(factor), dims(dim)


def dims(dim) -> dict:
    """Dimensions as a plain dict {'[time]': -1, ...} with Fraction exponents."""
    return {k: Fraction(v) for k, v in dict(dim).items() if v}


def dim_text(d: dict) -> str:
    from .units import Dim, dim_str

    return dim_str(Dim(d)) if d else "dimensionless"


def parse_number(text: str) -> tuple[Fraction, str]:
    """'3.35 TB/s' -> (Fraction('3.35'), 'TB/s'); exact, commas allowed."""
    parts = split_quantity(text)
    if parts is None:
        raise UnknownUnit(f"'{text}' is not a number with an optional unit")
    problem = number_problem(parts[0])
    if problem:
        raise UnknownUnit(f"{problem[0]} ({problem[1]})")
    return Fraction(parts[0].replace(",", "").replace("_", "")), parts[1]


def given_value(model, name: str, text, unit=pint_unit) -> Fraction | float:
    """A value for a variable: '10ms', '4.8 TB/s', '128', 64 -> base units.

    A bare int or float is in the display unit; an exact Fraction (or SymPy number) is in
    base units, as `Solution.values` holds them, so a solution's values can be given back.
    `unit(text)` resolves a unit to (factor, dimensions).
    """
    var = model.variables.get(name)
    if var is None:
        close = difflib.get_close_matches(name, list(model.variables), n=2)
        raise ArgumentError(f"model '{model.name}' has no variable '{name}'", None, f"did you mean {' or '.join(close)}?" if close else f"variables: {', '.join(model.variables)}")
    factor = exact(var.factor)
    if getattr(var, "choices", ()):
        return choice_code(var, name, text)
    if isinstance(text, bool):
        raise ArgumentError(f"{name}={text}: expected a number", None, f"for example {name}=1 {var.unit or ''}")
    if isinstance(text, (int, float)):  # a number as people write it: in the display unit
        return (Fraction(str(text)) if isinstance(text, float) else Fraction(text)) * factor
    if not isinstance(text, str):  # a Fraction or SymPy number, as Solution.values holds them: base units
        return exact(text)
    want = dims(var.dim) if not isinstance(var.dim, dict) else var.dim
    try:
        number, written = parse_number(text)
        ufactor, got = unit(written) if written else (factor, want)
    except UnknownUnit as e:
        raise ArgumentError(f"{name}={text}: {e}", None, f"write a number with an optional unit, such as {name}=10 {var.unit or ''}") from None
    if got != want and not omits_per_count(want, got):
        raise ArgumentError(f"{name}={text}: that is {dim_text(got)}, but {name} is {dim_text(want)} ({var.unit or 'dimensionless'})", None, f"for example {name}=1 {var.unit}")
    return number * ufactor


def choice_code(var, name: str, text) -> Fraction:
    """A name for a variable with choices: -> its code (the name's place, 1-based); an exact number is a code already."""
    from .suggest import close_names

    if isinstance(text, str):
        if text.strip() in var.choices:
            return Fraction(var.choices.index(text.strip()) + 1)
        close = close_names(text.strip(), var.choices)
        hint = f"did you mean {name}={' or '.join(close)}?" if close else f"for example {name}={var.choices[0]}"
        raise ArgumentError(f"{name}={text}: '{text.strip()}' is not one of {name}'s choices ({', '.join(var.choices)})", None, hint)
    if isinstance(text, (bool, int, float)):
        raise ArgumentError(f"{name}={text!r}: {name} is a name, one of {', '.join(var.choices)}", None, f"for example {name}={var.choices[0]}")
    return exact(text)


def omits_per_count(want: dict, got: dict) -> bool:
    """True when `got` is `want` without some of its per-token / per-request part (10ms for ms/token)."""
    ratio = {k: want.get(k, 0) - got.get(k, 0) for k in set(want) | set(got)}
    ratio = {k: v for k, v in ratio.items() if v}
    return all(k in COUNTING and v < 0 and want.get(k, 0) <= v for k, v in ratio.items())
