"""Excel formulas as a small tree: printed with Excel's precedence, evaluated with Excel's semantics.

Every formula the backend writes is built as one of these trees. Printing adds
parentheses only where Excel's grammar needs them, which differs from
mathematics (measured in LibreOffice 7.4; Excel documents the same):

- unary minus binds tighter than ``^``: ``=-x^2`` is ``(-x)^2``, so a negated
  power, product or sum prints as ``-(...)``;
- ``^`` is left-associative (``2^3^2`` is 64): both operands of a power are
  parenthesised unless they are atoms;
- a space is the range-intersection operator: no spaces anywhere.

Evaluating a tree gives the value Excel would show, error values included
(``#N/A``, ``#DIV/0!``, ``#NUM!``): the cached value of a helper cell whose number
the Report does not hold (a root that was not picked, a probe the rule did not
need). `IF`, `IFERROR` and `CHOOSE` are lazy, as in Excel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
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


TRUE, FALSE = Lit(True, "TRUE"), Lit(False, "FALSE")


def fn(name: str, *args) -> Fn:
    return Fn(name, tuple(args))


def op(o: str, a, b) -> Op:
    return Op(o, a, b)


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


# --- evaluation -----------------------------------------------------------------------------------


def value(node):
    """What Excel shows for the formula: a float, a bool, a string or an XError."""
    t = type(node)
    if t is Lit:
        return node.value
    if t is Str:
        return node.text
    if t is Cell:
        return node.value
    if t is Range:
        return node.values
    if t is Neg:
        x = _num(value(node.arg))
        return x if isinstance(x, XError) else -x + 0.0
    if t is Op:
        return _op(node)
    if t is Fn:
        f = _FNS.get(node.name)
        if f is None:
            raise TypeError(f"no evaluator for {node.name}()")
        return f(node.args)
    raise TypeError(f"not a formula node: {node!r}")


def _num(v):
    if isinstance(v, XError):
        return v
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return VALUE
    return VALUE


def _finite(x: float):
    return x if math.isfinite(x) else NUM


def _op(node: Op):
    o = node.op
    a = value(node.left)
    if isinstance(a, XError):
        return a
    b = value(node.right)
    if isinstance(b, XError):
        return b
    if o == "&":
        return as_text(a) + as_text(b)
    if _LEVEL[o] == CMP:
        return _compare(o, a, b)
    a, b = _num(a), _num(b)
    for x in (a, b):
        if isinstance(x, XError):
            return x
    try:
        if o == "+":
            return _finite(a + b)
        if o == "-":
            return _finite(a - b)
        if o == "*":
            return _finite(a * b)
        if o == "/":
            return DIV0 if b == 0 else _finite(a / b)
        if a == 0 and b <= 0:
            return NUM if b == 0 else DIV0
        if a < 0 and b != int(b):
            return NUM
        return _finite(a**b)
    except OverflowError:
        return NUM


def _rank(v):
    if isinstance(v, bool):
        return 2, v
    if isinstance(v, str):
        return 1, v.lower()
    return 0, float(v)


def _compare(o: str, a, b) -> bool:
    x, y = _rank(a), _rank(b)
    return {"=": x == y, "<>": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[o]


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


def _truth(v):
    if isinstance(v, XError):
        return v
    if isinstance(v, str):
        return VALUE
    return bool(v)


def _args(args) -> list:
    """Evaluated arguments, ranges spread out (their text and empty cells skipped, as MIN/MAX/SUM do)."""
    out = []
    for a in args:
        v = value(a)
        if isinstance(a, Range):
            out.extend(x for x in v if isinstance(x, (int, float, XError)) and not isinstance(x, bool))
        else:
            out.append(v)
    return out


def _numeric(args):
    xs = [_num(v) for v in _args(args)]
    err = next((x for x in xs if isinstance(x, XError)), None)
    return err, xs


def _unary(f):
    def run(args):
        x = _num(value(args[0]))
        if isinstance(x, XError):
            return x
        try:
            return f(x)
        except (ValueError, OverflowError):
            return NUM

    return run


def _if(args):
    c = _truth(value(args[0]))
    if isinstance(c, XError):
        return c
    if c:
        return value(args[1])
    return value(args[2]) if len(args) > 2 else False


def _iferror(args):
    v = value(args[0])
    return value(args[1]) if isinstance(v, XError) else v


def _logic(all_):
    def run(args):
        vs = [_truth(v) for v in _args(args)]
        err = next((v for v in vs if isinstance(v, XError)), None)
        return err if err is not None else (all(vs) if all_ else any(vs))

    return run


def _agg(f, empty=0.0):
    def run(args):
        err, xs = _numeric(args)
        return err if err is not None else (f(xs) if xs else empty)

    return run


def _round(args):
    x, n = _num(value(args[0])), _num(value(args[1]))
    for v in (x, n):
        if isinstance(v, XError):
            return v
    return float(Decimal(repr(x)).quantize(Decimal(1).scaleb(-int(n)), rounding=ROUND_HALF_UP))


def _index(args):
    rng = value(args[0])
    k = _num(value(args[1]))
    if isinstance(k, XError):
        return k
    k = int(k)
    return rng[k - 1] if 1 <= k <= len(rng) else REF


def _match(args):
    x, rng = value(args[0]), value(args[1])
    if isinstance(x, XError):
        return x
    for k, v in enumerate(rng, 1):
        if not isinstance(v, XError) and _rank(v) == _rank(x):
            return float(k)
    return NA


def _choose(args):
    k = _num(value(args[0]))
    if isinstance(k, XError):
        return k
    k = int(k)
    return value(args[k]) if 1 <= k < len(args) else VALUE


def _mod(args):
    a, b = _num(value(args[0])), _num(value(args[1]))
    for v in (a, b):
        if isinstance(v, XError):
            return v
    return DIV0 if b == 0 else a - b * math.floor(a / b)


def _not(args):
    v = _truth(value(args[0]))
    return v if isinstance(v, XError) else not v


_FNS = {
    "IF": _if,
    "IFERROR": _iferror,
    "CHOOSE": _choose,
    "ISERROR": lambda a: isinstance(value(a[0]), XError),
    "ISNA": lambda a: value(a[0]) is NA,
    "ISNUMBER": lambda a: isinstance(value(a[0]), (int, float)) and not isinstance(value(a[0]), bool),
    "NA": lambda a: NA,
    "AND": _logic(True),
    "OR": _logic(False),
    "NOT": _not,
    "ABS": _unary(abs),
    "SQRT": _unary(lambda x: math.sqrt(x) if x >= 0 else NUM),
    "EXP": _unary(lambda x: _finite(math.exp(x))),
    "LN": _unary(lambda x: math.log(x) if x > 0 else NUM),
    "LOG10": _unary(lambda x: math.log10(x) if x > 0 else NUM),
    "INT": _unary(lambda x: float(math.floor(x))),
    "PI": lambda a: math.pi,
    "ROUND": _round,
    "MIN": _agg(min),
    "MAX": _agg(max),
    "SUM": _agg(math.fsum),
    "INDEX": _index,
    "MOD": _mod,
    "MATCH": _match,
}
