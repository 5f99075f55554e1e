"""Units: one pint registry with the domain's own dimensions.

Inside the solver every quantity is a number in base units (second, bit, token,
request, FLOP); each variable keeps a display unit and the exact factor that
turns a base-unit number into it.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import cache
from pathlib import Path

import pint
import sympy as sp

from .limits import LIMITS, number_problem
from .numbers import split_quantity

Dim = pint.util.UnitsContainer
DIMENSIONLESS = Dim()

ureg = pint.UnitRegistry(None, non_int_type=Fraction, autoconvert_offset_to_baseunit=False, cache_folder=None)
ureg.load_definitions(str(Path(__file__).with_name("units.txt")))

# a number, with its unit or without, as a model writes a value: '10 ms/token', '6,450', '1e-3'
# a number and its unit: `3.35 TB/s`, and a reciprocal one as chainc prints it, `2 1/s` or `5 /s` (a space before,
# none after the slash: `2 / tp` stays an expression)
QUANTITY_TEXT = re.compile(r"^\s*[-+]?(\d{1,3}(?:,\d{3})+(?:\.\d*)?|\d[\d_]*\.?\d*|\.\d+)([eE][-+]?\d+)?(\s*[A-Za-zµμ%(][^=<>]*|\s+1?/[A-Za-zµμ%(][^=<>]*)?\s*$")


class BadUnit(ValueError):
    pass


@cache
def parse_unit(text: str) -> tuple[pint.Unit, sp.Rational, Dim]:
    """A unit string -> (unit, exact factor to base units, dimensionality).

    '1' or '' is dimensionless. pint's own tokenizer parses the text; nothing is evaluated
    as Python.
    """
    text = text.strip()
    if text in ("", "1", "dimensionless"):
        return ureg.dimensionless, sp.Integer(1), DIMENSIONLESS
    if len(text) > LIMITS["unit_chars"].default:  # pint takes minutes over a 100 KB unit name
        raise BadUnit(f"'{text[:40]}...' is not a unit: units are at most {LIMITS['unit_chars'].default} characters")
    if not re.fullmatch(r"[A-Za-zµμ%_0-9 */^().\-]+", text) or re.search(r"\d{3}|\d\s*(\*\*|\^)|[*^]\s*\(", text):
        raise BadUnit(f"'{text}' is not a unit")  # numbers in units are small exponents: FLOP/token^2
    try:
        unit = ureg.parse_units(text.replace("^", "**"))
    except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, ValueError, TypeError, AttributeError) as e:
        raise BadUnit(f"'{text}' is not a unit: {e}") from None
    except Exception as e:  # pint's parser raises assorted errors on garbage
        raise BadUnit(f"'{text}' is not a unit ({type(e).__name__})") from None
    base = ureg.Quantity(Fraction(1), unit).to_base_units()
    return unit, sp.Rational(base.magnitude), ureg.get_dimensionality(unit)


def dim_str(dim: Dim | None) -> str:
    """A dimension a person can read: 'information/time', 'time/token', 'dimensionless'."""
    if dim is None:
        return "any"
    if isinstance(dim, str):  # expr.BOOL
        return "a condition"
    if dim == DIMENSIONLESS:
        return "dimensionless"

    def term(name: str, power) -> str:
        name = name.strip("[]")
        power = abs(power)
        return name if power == 1 else f"{name}^{power}"

    num = [term(k, v) for k, v in sorted(dim.items()) if v > 0]
    den = [term(k, v) for k, v in sorted(dim.items()) if v < 0]
    text = "*".join(num) or "1"
    if den:
        text += "/" + (den[0] if len(den) == 1 else "(" + "*".join(den) + ")")
    return text


def exact_number(text: str) -> sp.Rational:
    """A written decimal number ('1,024', '8_030', '1e-3', '.5') -> an exact Rational; bounded, so never slow."""
    text = str(text).strip()
    problem = number_problem(text)
    if problem:
        raise BadUnit(problem[0])
    digits = text.replace(",", "").replace("_", "")
    if not _DECIMAL.fullmatch(digits):
        raise BadUnit(f"'{text}' is not a decimal number")
    return sp.Rational(digits)


_DECIMAL = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def parse_quantity(text: str) -> tuple[sp.Rational, str]:
    """'3.35 TB/s' -> (Rational('3.35'), 'TB/s'); the number is exact, commas allowed."""
    parts = split_quantity(text)
    if parts is None:
        raise BadUnit(f"'{text}' is not a number with an optional unit")
    return exact_number(parts[0]), parts[1]
