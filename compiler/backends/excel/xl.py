"""Excel formulas as a small tree: printed with Excel's precedence, evaluated with Excel's semantics.

Every formula the backend writes is built as one of these trees. Printing adds
parentheses only where Excel's grammar needs them, which differs from
mathematics (measured in LibreOffice 7.4; Excel documents the same):

- unary minus binds tighter than ``^``: ``=-x^2`` is ``(-x)^2``, so a negated
  power, product or sum prints as ``-(...)``;
- ``^`` is left-associative (``2^3^2`` is 64): both operands of a power are
  parenthesised unless they are atoms;
- a space is the range-intersection operator: no spaces anywhere.

xlcalc.py evaluates a tree as Excel would (the cached values).

A finite sum is a `Series` over an `Index`: printed as
``SUMPRODUCT(body)`` in which the index k is ``ROW(INDIRECT("1:"&n))+lo-1``
(SUMPRODUCT evaluates its argument as an array, in Excel and LibreOffice alike;
a product is ``SUMPRODUCT(PRODUCT(body))``), behind ``IF(n<1, 0 or 1, ...)``
because an empty row range is ``#REF!``. A sum inside another whose count or terms read
the outer index has a grid of terms: its index runs along a row,
``TRANSPOSE(ROW(INDIRECT("1:"&w)))`` with w the largest count, terms past a row's own
count are 0, and ``MMULT`` by a column of ones sums each row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

CMP, CAT, ADD, MUL, POW, NEG, ATOM = range(1, 8)
_LEVEL = {"=": CMP, "<>": CMP, "<": CMP, "<=": CMP, ">": CMP, ">=": CMP, "&": CAT, "+": ADD, "-": ADD, "*": MUL, "/": MUL, "^": POW}


class XError:
    """An Excel error value."""

    _all: dict[str, XError] = {}

    def __new__(cls, code: str):
        if code not in cls._all:
            obj = super().__new__(cls)
            obj.code = code
            cls._all[code] = obj
        return cls._all[code]

    def __repr__(self) -> str:
        return self.code


NA, DIV0, NUM, VALUE, REF = (XError(c) for c in ("#N/A", "#DIV/0!", "#NUM!", "#VALUE!", "#REF!"))


# --- nodes --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Lit:
    value: float | bool
    text: str


@dataclass(frozen=True, slots=True)
class Str:
    text: str


@dataclass(frozen=True, slots=True)
class Cell:
    """A reference (a cell, a defined name, INDEX(...) of a range) and the value it holds."""

    text: str
    value: object


@dataclass(frozen=True, slots=True)
class Range:
    text: str
    values: tuple


@dataclass(frozen=True, slots=True)
class Fn:
    name: str
    args: tuple = ()


@dataclass(frozen=True, slots=True)
class Op:
    op: str
    left: object
    right: object


@dataclass(frozen=True, slots=True)
class Neg:
    arg: object


@dataclass(frozen=True, slots=True)
class Index:
    """The term numbers 1..n of a finite sum: printed as `rows` (ROW(INDIRECT("1:"&n))), evaluated as the current one."""

    key: str
    rows: object


@dataclass(frozen=True, slots=True)
class Series:
    """sum/prod of `body` over the term numbers `index` = 1..count (count = hi - lo + 1).

    width: for a sum inside another whose count or terms read the outer index, the most terms of any outer
    term (MAX of the counts): its terms are a grid, one row per outer term, one column per term of its own.
    """

    kind: str
    index: Index
    count: object
    body: object
    width: object = None


TRUE, FALSE = Lit(True, "TRUE"), Lit(False, "FALSE")


def fn(name: str, *args) -> Fn:
    return Fn(name, tuple(args))


def op(o: str, a, b) -> Op:
    return Op(o, a, b)


def all_of(conditions: list, empty=None):
    """AND of the conditions, nested in groups of 200 (Excel takes at most 255 arguments); `empty` for none."""
    if not conditions:
        return empty
    while True:
        conditions = [Fn("AND", tuple(conditions[i : i + 200])) for i in range(0, len(conditions), 200)]
        if len(conditions) == 1:
            return conditions[0]


def number(x) -> Lit | Neg | Op:
    """A literal for an exact (Fraction, int) or float number: a short decimal, p/q, or a float's shortest digits."""
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{x} has no Excel literal")
        if x == int(x) and abs(x) < 1e15:
            x = int(x)
        else:
            return Neg(number(-x)) if x < 0 else Lit(x, _float_text(x))
    x = Fraction(x)
    if x < 0:
        return Neg(number(-x))
    if x.denominator == 1:
        n = x.numerator
        return Lit(float(n), str(n) if n < 10**15 else _float_text(float(n)))
    dec = decimal_text(x)
    if dec is not None:
        return Lit(float(x), dec)
    if x.numerator < 10**15 and x.denominator < 10**15:
        return Op("/", number(x.numerator), number(x.denominator))
    return Lit(float(x), _float_text(float(x)))


def decimal_text(x: Fraction) -> str | None:
    """A positive fraction as an exact decimal of at most 15 significant digits, or None."""
    q, twos, fives = x.denominator, 0, 0
    while q % 2 == 0:
        q, twos = q // 2, twos + 1
    while q % 5 == 0:
        q, fives = q // 5, fives + 1
    if q != 1:
        return None
    places = max(twos, fives)
    digits = str(x.numerator * 10**places // x.denominator).rjust(places + 1, "0")
    if len(digits.strip("0")) > 15:
        return None
    return (digits[:-places] + "." + digits[-places:]).rstrip("0").rstrip(".") if places else digits


def _float_text(x: float) -> str:
    text = repr(float(x)).upper().replace("E+0", "E+").replace("E-0", "E-")
    return text[:-2] if text.endswith(".0") else text.replace(".0E", "E")


def has_series(node) -> bool:
    """Whether a formula holds a sum's terms (an array), so it must be entered as an array formula."""
    t = type(node)
    if t is Series:
        return True
    if t is Fn:
        return any(has_series(a) for a in node.args)
    if t is Op:
        return has_series(node.left) or has_series(node.right)
    if t is Neg:
        return has_series(node.arg)
    return False


# "Length of formula contents: 8,192 characters" (Microsoft, Excel specifications and limits)
FORMULA_CHARS = 8192

# --- printing -------------------------------------------------------------------------------------


def formula(node) -> str:
    """'=' and the formula's text."""
    return "=" + text(node)


def text(node) -> str:
    return _print(node)[0]


def _print(node) -> tuple[str, int]:
    t = type(node)
    if t is Lit:
        return node.text, ATOM
    if t is Str:
        return '"' + node.text.replace('"', '""') + '"', ATOM
    if t in (Cell, Range):
        return node.text, ATOM
    if t is Index:
        return _print(node.rows)
    if t is Series and node.width is not None:  # the grid's rows summed (MMULT by a column of ones): one sum per outer term
        ones = Op("^", Fn("ROW", (Fn("INDIRECT", (Op("&", Str("1:"), node.width),)),)), Lit(0.0, "0"))
        grid = Fn("IF", (Op("<=", node.index, node.count), node.body, Lit(0.0, "0")))
        return _print(Fn("IF", (Op("<", node.width, Lit(1.0, "1")), Lit(0.0, "0"), Fn("MMULT", (grid, ones)))))
    if t is Series:
        inner = node.body if node.kind == "sum" else Fn("PRODUCT", (node.body,))
        empty = Lit(0.0, "0") if node.kind == "sum" else Lit(1.0, "1")
        return _print(Fn("IF", (Op("<", node.count, Lit(1.0, "1")), empty, Fn("SUMPRODUCT", (inner,)))))
    if t is Fn:
        return f"{node.name}({','.join(_print(a)[0] for a in node.args)})", ATOM
    if t is Neg:
        s, lv = _print(node.arg)
        return ("-" + s if lv == ATOM else f"-({s})"), NEG
    if t is Op:
        level = _LEVEL[node.op]
        (ls, ll), (rs, rl) = _print(node.left), _print(node.right)
        if node.op == "^":
            left_ok, right_ok = ll == ATOM, rl == ATOM
        else:
            left_ok = ll >= level and not (level == CMP and ll == CMP)
            right_ok = (rl > level or (rl == level and node.op in ("+", "*", "&"))) and rl != NEG
        ls = ls if left_ok else f"({ls})"
        rs = rs if right_ok else f"({rs})"
        return f"{ls}{node.op}{rs}", level
    raise TypeError(f"not a formula node: {node!r}")


def as_text(v) -> str:
    """A value as `&` turns it into text (numbers with up to 15 significant digits)."""
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, str):
        return v
    x = float(v)
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return f"{x:.15g}".upper().replace("E+0", "E+").replace("E-0", "E-") if "e" in f"{x:.15g}" else f"{x:.15g}"
