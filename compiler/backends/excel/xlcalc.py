"""Excel's value of a formula tree: the cached value of a helper cell whose number the Report does not hold.

Error values included (``#N/A``, ``#DIV/0!``, ``#NUM!``): a root that was not
picked, a probe the rule did not need. `IF`, `IFERROR` and `CHOOSE` are lazy,
as in Excel. A `Series` evaluates its body once per term, with the term's index
bound in `_BOUND`.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from .xl import _LEVEL, CMP, DIV0, NA, NUM, REF, VALUE, Cell, Fn, Index, Lit, Neg, Op, Range, Series, Str, XError, as_text

_BOUND: dict[str, float] = {}  # a Series' index key -> the term being evaluated


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
    if t is Index:
        return _BOUND[node.key]
    if t is Series:
        return _series(node)
    if t is Fn:
        f = _FNS.get(node.name)
        if f is None:
            raise TypeError(f"no evaluator for {node.name}()")
        return f(node.args)
    raise TypeError(f"not a formula node: {node!r}")


def _series(node: Series):
    count = _num(value(node.count))
    if isinstance(count, XError):
        return count
    if count < 1:
        return 0.0 if node.kind == "sum" else 1.0
    terms = []
    try:
        for row in range(1, int(count) + 1):  # ROW(INDIRECT("1:"&n)) truncates n, as INT would
            _BOUND[node.index.key] = float(row)
            v = _num(value(node.body))
            if isinstance(v, XError):
                return v
            terms.append(v)
    finally:
        _BOUND.pop(node.index.key, None)
    return _finite(math.fsum(terms) if node.kind == "sum" else math.prod(terms))


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


def _approx_equal(a: float, b: float) -> bool:
    """LibreOffice's rtl::math::approxEqual: a sum or difference within 2^-48 of its operands is 0 there (approxAdd,
    approxSub), so a root that is 0 in exact arithmetic is 0 in its cells, not -3e-17 (and admissible where >= 0)."""
    return a == b or abs(a - b) < abs(a) * 2.0**-48


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
            return 0.0 if a * b < 0 and _approx_equal(a, -b) else _finite(a + b)
        if o == "-":
            return 0.0 if a * b > 0 and _approx_equal(a, b) else _finite(a - b)
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
    """INDEX(range, row, column) over a one-row or one-column range: the position is the index that is not 1."""
    rng = value(args[0])
    ks = [_num(value(a)) for a in args[1:]]
    for k in ks:
        if isinstance(k, XError):
            return k
    k = int(ks[-1] if len(ks) == 2 and ks[0] == 1 else ks[0])
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


def _search(args):
    """SEARCH(find, within): the 1-based position of find in within, case-insensitive; #VALUE! when absent."""
    find, within = value(args[0]), value(args[1])
    for v in (find, within):
        if isinstance(v, XError):
            return v
    k = str(within).lower().find(str(find).lower())
    return VALUE if k < 0 else float(k + 1)


def _mid(args):
    """MID(text, start, count), 1-based."""
    text, start, count = value(args[0]), _num(value(args[1])), _num(value(args[2]))
    for v in (text, start, count):
        if isinstance(v, XError):
            return v
    start = int(start)
    return str(text)[start - 1 : start - 1 + int(count)]


_FNS = {
    "IF": _if,
    "SEARCH": _search,
    "MID": _mid,
    "IFERROR": _iferror,
    "CHOOSE": _choose,
    "ISERROR": lambda a: isinstance(value(a[0]), XError),
    "ISNA": lambda a: value(a[0]) is NA,
    "ISNUMBER": lambda a: isinstance(value(a[0]), (int, float)) and not isinstance(value(a[0]), bool),
    "COUNT": lambda a: sum(isinstance(v, (int, float)) and not isinstance(v, bool) for v in map(value, a)),
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
    "FACT": _unary(lambda x: _finite(float(math.factorial(int(x)))) if x >= 0 else NUM),  # FACT truncates, as INT
    "_xlfn.GAMMA": _unary(lambda x: _finite(math.gamma(x)) if x > 0 or x != int(x) else NUM),
    "ROUND": _round,
    "MIN": _agg(min),
    "MAX": _agg(max),
    "SUM": _agg(math.fsum),
    "INDEX": _index,
    "MOD": _mod,
    "MATCH": _match,
}
