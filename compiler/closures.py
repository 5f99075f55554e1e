"""A program's expressions compiled to Python closures: the runner's arithmetic, no SymPy.

Exact Fractions while a value's fraction is short, floats once it grows long (bounded.py);
a floor, ceiling or comparison of a carried float within a few ulps of its edge raises
`Exactly`, and the run is redone exactly.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from fractions import Fraction

from . import bounded as B
from . import deadline
from . import program as P
from .runtime import values as V

Env = dict
Fn = Callable[[Env], object]

EXACT_SUM_BITS = 4096  # the exact rerun's bound on a sum's running total (beyond it: floats, as before)
_CMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
_CONST = {"pi": math.pi, "E": math.e, "I": 1j}
_FAILURES = (ArithmeticError, ValueError, TypeError, V.ChainError)  # no value here: a search steps over such a point
_LOCATED = (*_FAILURES, B.LimitReached)  # what a statement reports, located: a limit too, which no search steps over


def _minmax(fn):
    def f(*xs):
        if any(isinstance(x, complex) or x != x for x in xs):
            raise ValueError(f"{fn.__name__}() of a value that is not a real number")
        return fn(xs)

    return f


class Exactly(Exception):
    """A decision on a value carried as a float lies within rounding of its edge: the run is redone exactly."""


def _near(a, b) -> bool:
    """a and b within a few ulps, where one of them is a float the run carried instead of an exact value."""
    return B.shortened and not B.strict and not B.probing and (type(a) is float or type(b) is float) and abs(a - b) <= 8 * math.ulp(max(abs(a), abs(b)))


def _floor(x):
    if type(x) is float and _near(x, round(x)):
        raise Exactly
    return math.floor(x)


def _ceil(x):
    if type(x) is float and _near(x, round(x)):
        raise Exactly
    return math.ceil(x)


_CALLS = {
    "floor": _floor,
    "ceil": _ceil,
    "abs": abs,
    "sqrt": B.sqrt,
    "exp": B.exp,
    "log": B.log,
    "min": _minmax(min),
    "max": _minmax(max),
    "lambertw": V.lambertw,
    "factorial": B.factorial,
    "gamma": B.gamma,
}


def compile_expr(e: P.Expr) -> Fn:
    """An expression as a closure over an environment of values (name -> number)."""
    t = type(e)
    if t is P.Num:
        v = e.value.numerator if e.value.denominator == 1 else e.value
        return lambda env: v
    if t is P.Ref:
        name = e.name
        return lambda env: env[name]
    if t is P.Const:
        c = _CONST[e.name]
        return lambda env: c
    if t is P.Add:
        fs = [compile_expr(a) for a in e.args]
        if len(fs) == 2:
            a, b = fs
            return lambda env: a(env) + b(env)
        return lambda env: _fold(operator.add, fs, env)
    if t is P.Mul:
        # a * b**-1 * c as (a * c) / b: one division instead of a reciprocal and a product
        over, fs = [], []
        for a in e.args:
            if type(a) is P.Pow and type(a.exp) is P.Num and a.exp.value == -1:
                over.append(compile_expr(a.base))
            elif type(a) is P.Num and a.value.denominator != 1:  # 1/2 * x as x / 2: whole numbers stay ints until then
                if a.value.numerator != 1:
                    fs.append(compile_expr(P.Num(Fraction(a.value.numerator))))
                over.append(compile_expr(P.Num(Fraction(a.value.denominator))))
            else:
                fs.append(compile_expr(a))
        num = fs[0] if len(fs) == 1 else (lambda env, fs=fs: _fold(operator.mul, fs, env)) if fs else (lambda env: 1)
        if len(fs) == 2:
            a, b = fs
            num = lambda env: a(env) * b(env)  # noqa: E731
        if not over:
            return num
        den = over[0] if len(over) == 1 else (lambda env, over=over: _fold(operator.mul, over, env))
        return lambda env: _divide(num(env), den(env))
    if t is P.Pow:
        base = compile_expr(e.base)
        if type(e.exp) is P.Num and e.exp.value == -1:
            return lambda env: _reciprocal(base(env))
        if type(e.exp) is P.Num and e.exp.value.denominator == 1 and abs(e.exp.value) <= 64:
            n = e.exp.value.numerator
            return lambda env: _small_power(base(env), n)
        ex = compile_expr(e.exp)
        return lambda env: B.power(base(env), ex(env))
    if t is P.Call:
        fn = _CALLS[e.fn]
        fs = [compile_expr(a) for a in e.args]
        if len(fs) == 1:
            (a,) = fs
            return lambda env: fn(a(env))
        return lambda env: fn(*[f(env) for f in fs])
    if t is P.Cmp:
        op, a, b = _CMP[e.op], compile_expr(e.left), compile_expr(e.right)
        return lambda env: _compare(op, a(env), b(env))
    if t is P.Logic:
        fs = [compile_expr(a) for a in e.args]
        if e.op == "not":
            (a,) = fs
            return lambda env: not a(env)
        if e.op == "and":
            return lambda env: all(f(env) for f in fs)
        return lambda env: any(f(env) for f in fs)
    if t is P.Choice:
        pieces = [(compile_expr(v), compile_expr(c)) for v, c in e.pieces]
        return lambda env: _choose(pieces, env)
    if t is P.Sum:
        lo, hi, body, k, add = compile_expr(e.lo), compile_expr(e.hi), compile_expr(e.body), e.index, e.kind == "sum"
        return lambda env: _finite(add, k, _whole(lo(env), "lower"), _whole(hi(env), "upper"), body, env)
    raise TypeError(f"no runner for {t.__name__}")


def compile_residual(e: P.Expr) -> Fn:
    """A numeric block's residual: its terms summed by the runtime's exact_sum (as generated code sums them)."""
    if type(e) is not P.Add or len(e.args) < 2:
        return compile_expr(e)
    fs = [compile_expr(a) for a in e.args]
    return lambda env: V.exact_sum([f(env) for f in fs])


def hoist(e, row_names: set, found: dict, prefix: str):
    """e with its largest subexpressions that read no row value replaced by names (collected in `found`).

    A condition's branches are left alone: a branch that is not taken must not be evaluated.
    """
    if type(e) in (P.Num, P.Const, P.Ref) or type(e) is P.Choice:
        return e
    if not (P.refs(e) & row_names):
        name = next((k for k, v in found.items() if v == e), None) or f"{prefix}{len(found)}"
        found[name] = e
        return P.Ref(name)
    if type(e) in (P.Add, P.Mul, P.Call, P.Logic):
        return type(e)(*([e.fn] if type(e) is P.Call else [e.op] if type(e) is P.Logic else []), tuple(hoist(a, row_names, found, prefix) for a in e.args))
    if type(e) is P.Pow:
        return P.Pow(hoist(e.base, row_names, found, prefix), hoist(e.exp, row_names, found, prefix))
    if type(e) is P.Cmp:
        return P.Cmp(e.op, hoist(e.left, row_names, found, prefix), hoist(e.right, row_names, found, prefix))
    return e


def _whole(x, which: str) -> int:
    if type(x) is float and math.isfinite(x) and _near(x, round(x)):
        raise Exactly
    if isinstance(x, complex) or x != x or x % 1 != 0:
        raise B.Problem(f"the {which} bound of a sum is {V.shown(x)}, not a whole number", "a sum runs over whole numbers: wrap the bound in ceil() or floor()")
    return int(x)


def _finite(add: bool, k: str, lo: int, hi: int, body, env):
    """body summed (or multiplied) over k = lo .. hi; an empty range is 0 (or 1).

    The last term is computed first: where any term has no value it is most often the largest, and
    a search that probes a huge bound learns that at once instead of after a million terms. The
    total stays exact while its fraction is short (as every value of a run); past that it is
    summed in floats (math.fsum), or to 30 digits where its terms leave float range.
    """
    if (hi - lo + 1) * B.around > B.max_terms:  # a sum inside sums of n terms in all counts n times: the work is bounded
        times = f", {B.around:,} times over (the sums around it)" if B.around > 1 else ""
        raise B.LimitReached(
            f"a {'sum' if add else 'product'} of {hi - lo + 1:,} terms (from {k.split('#')[0]} = {B.count(lo)} to {B.count(hi)}){times} is more than the sum_terms limit of {B.max_terms:,}",
            f"if the model is right, set the environment variable CHAINC_MAX_SUM_TERMS to a larger number of terms (now {B.max_terms:,})",
        )
    if hi < lo:
        return 0 if add else 1
    deadline.check()
    saved, B.around = B.around, B.around * (hi - lo + 1)
    try:
        return _each_term(add, k, lo, hi, body, env)
    finally:
        B.around = saved


def _each_term(add: bool, k: str, lo: int, hi: int, body, env):
    """_finite's loop, within the limit."""
    sub = dict(env)
    sub[k] = hi
    last = body(sub)
    total, n = (0 if add else 1), lo
    while n < hi:
        sub[k] = n
        total = total + body(sub) if add else total * body(sub)
        n += 1
        if add and type(total) is Fraction and total._denominator.bit_length() + total._numerator.bit_length() > min(B.short or EXACT_SUM_BITS, EXACT_SUM_BITS):
            B.shortened = True
            break  # 1/k! terms would grow the common denominator without end: the rest is summed in floats
    if n < hi:
        rest = [float(total)]
        try:
            while n < hi:
                sub[k] = n
                rest.append(float(body(sub)))
                n += 1
            total = Fraction(math.fsum(rest))
        except OverflowError:  # a term beyond float range: exact terms from there, the total carried to 30 digits
            total = B.rounded(total + Fraction(math.fsum(rest[1:])))
            for j in range(n, hi):
                sub[k] = j
                total = B.rounded(total + body(sub))
    return total + last if add else total * last


def _fold(op, fs, env):
    v = fs[0](env)
    for f in fs[1:]:
        v = op(v, f(env))
    return v


def _carried(f, env: Env, refs: tuple):
    """f at env; where a float the run carried leaves float range, f again from its inputs' exact values.

    Exact values have no range: past a float's, they go on as 30-digit approximations (bounded.rounded).
    """
    try:
        v = f(env)
        if type(v) is not float or math.isfinite(v) or not B.shortened or B.strict or B.probing:
            return v
    except OverflowError:
        if not B.shortened or B.strict or B.probing:
            raise
    saved = B.short, B.strict
    B.short, B.strict = int(B.limit * 3.33), True  # no part of this statement is carried as a float again
    try:
        v = f({**env, **{n: Fraction(env[n]) for n in refs if type(env.get(n)) is float and math.isfinite(env[n])}})
    finally:
        B.short, B.strict = saved
    return v


def _divide(a, b):
    if type(a) is int and type(b) is int:
        if B.short is not None and not B.strict and a.bit_length() + b.bit_length() > B.short:
            B.shortened = True
            return a / b  # a long quotient as a float: Python rounds int / int correctly, whatever their size
        return Fraction(a, b)
    return a / b


def _reciprocal(x):
    if isinstance(x, int):
        return Fraction(1, x)
    return 1 / x


def _small_power(x, n: int):
    if isinstance(x, int) and n < 0:
        return Fraction(x) ** n
    return x**n


def _compare(op, a, b) -> bool:
    for x in (a, b):
        if isinstance(x, complex) or x != x:
            raise ValueError("a comparison of a value that is not a real number")
    if _near(a, b):
        raise Exactly
    return op(a, b)


def _choose(pieces, env):
    for value, cond in pieces:
        if cond(env):
            return value(env)
    raise ValueError("no branch of a condition holds")


# --- statements ---------------------------------------------------------------------------------------
