"""Values as people type them (`10ms`, `4.8 TB/s`, `128`) -> exact base-unit numbers for a variable.

This is the command line's and the API's parsing; the solver itself takes numbers
in base units. A unit that lacks only the variable's per-token or per-request part
is read as "per one token" (or request): `tpot=10ms` is 10 ms/token.
"""

from __future__ import annotations

import difflib
from fractions import Fraction

from .errors import ArgumentError
from .ir import Model
from .numbers import exact
from .units import BadUnit, dim_str, parse_quantity, parse_unit

COUNTING = {"[token]", "[request]"}


def given_value(model: Model, name: str, text) -> Fraction | float:
    """A value for a variable: '10ms', '4.8 TB/s', '128', 64 -> base units.

    A bare int or float is in the display unit; an exact Fraction (or SymPy number) is in
    base units, as `Solution.values` holds them, so a solution's values can be given back.
    """
    var = model.variables.get(name)
    if var is None:
        close = difflib.get_close_matches(name, list(model.variables), n=2)
        raise ArgumentError(f"model '{model.name}' has no variable '{name}'", None, f"did you mean {' or '.join(close)}?" if close else f"variables: {', '.join(model.variables)}")
    factor = exact(var.factor)
    if isinstance(text, bool):
        raise ArgumentError(f"{name}={text}: expected a number", None, f"for example {name}=1{var.unit or ''}")
    if isinstance(text, (int, float)):  # a number as people write it: in the display unit
        return (Fraction(str(text)) if isinstance(text, float) else Fraction(text)) * factor
    if not isinstance(text, str):  # a Fraction or SymPy number, as Solution.values holds them: base units
        return exact(text)
    try:
        number, unit = parse_quantity(text)
        _, ufactor, dim = parse_unit(unit) if unit else (None, var.factor, var.dim)
    except BadUnit as e:
        raise ArgumentError(f"{name}={text}: {e}", None, f"write a number with an optional unit, such as {name}=10{var.unit or ''}") from None
    if dim != var.dim and not _omits_per_count(var.dim, dim):
        raise ArgumentError(f"{name}={text}: that is {dim_str(dim)}, but {name} is {dim_str(var.dim)} ({var.unit or 'dimensionless'})", None, f"for example {name}=1{var.unit}")
    return exact(number) * exact(ufactor)


def _omits_per_count(want, got) -> bool:
    """True when `got` is `want` without some of its per-token / per-request part (10ms for ms/token)."""
    ratio = dict(want / got)
    return all(k in COUNTING and v < 0 and dict(want).get(k, 0) <= v for k, v in ratio.items())
