"""Evaluating an expression at numbers: exact where it is cheap, bounded where it is not, never silently wrong.

`evaluate(expr, subs)` substitutes values bottom-up, the way `xreplace` would, but

- estimates the size of a power before computing it: an exact result of more than
  CHAINC_MAX_EXACT_DIGITS digits (compiler/limits.py) is computed with mpmath to DPS
  significant digits instead, like an irrational value, and a value whose decimal
  exponent would pass the limit (2 ** 1e12, exp(1e6), 0.5 ** 1e6) is refused;
- rounds (floor, ceil) big or irrational values without SymPy's PrecisionExhausted;
- takes only the branch of an if() that applies, so the other may be undefined;
- turns what has no value (a NaN inside a comparison, max() of a complex number) into
  `EvalProblem`, which the solver reports at the equation that was being evaluated.

Values are SymPy numbers; `exact` pins an irrational result to DPS digits, and
`finite_real` says whether a result is a number a person may be shown.
"""

from __future__ import annotations

import math

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import SolveError
from .limits import MAX_EXACT_DIGITS, value

DPS = 30  # digits kept for irrational (and too-long exact) values
LOG10_2 = math.log10(2)


class EvalProblem(SolveError):
    """An expression has no finite real value here, or is too large to compute.

    The solver catches it where it knows which equation it was evaluating and raises a
    located SolveError instead; should one escape, it is still a chainc error, not a traceback.
    """

    def __init__(self, message: str, hint: str = "", cause: str = "value"):
        super().__init__(message, None, hint)
        self.cause = cause  # 'value' (undefined, complex, infinite) or 'limit' (too large); not `kind`, which render() prints


def limit() -> int:
    return value(MAX_EXACT_DIGITS)


def too_large(what: str, magnitude: float, digits: int) -> EvalProblem:
    sign = "-" if magnitude < 0 else ""
    size = f"10^({sign}{abs(magnitude):.3g})" if abs(magnitude) >= 1e6 else f"1e{sign}{abs(magnitude):.0f}"
    return EvalProblem(
        f"{what} would be about {size}, beyond the {digits:,} digits chainc computes with",
        f"check the inputs; to compute with larger numbers, {MAX_EXACT_DIGITS.how_to_raise} (now {digits:,})",
        "limit",
    )


# --- sizes ----------------------------------------------------------------------------------------


def to_mpf(x: sp.Expr, dps: int = DPS) -> mpmath.mpf:
    """x as an mpmath number of dps digits, without str() (Python refuses to print integers of more than 4,300 digits)."""
    with mpmath.workdps(dps):
        if x.is_Rational:
            return mpmath.mpf(int(x.p)) / int(x.q)
        if x.is_Float:
            return mpmath.mpf(x._mpf_)
        return mpmath.mpf(x.evalf(dps)._mpf_)


def to_float(x: sp.Expr, dps: int = DPS) -> sp.Float:
    """x as a SymPy Float of dps digits (see to_mpf)."""
    return sp.Float(to_mpf(x, dps), dps)


def rational_digits(r: sp.Rational) -> float:
    """Decimal digits of numerator and denominator together."""
    return (abs(int(r.p)).bit_length() + int(r.q).bit_length()) * LOG10_2


def log10_abs(x: sp.Expr) -> float | None:
    """log10 |x| of a real number (exact or Float) without computing a big value; None if unknown; -inf for 0."""
    if x.is_zero:
        return -math.inf
    if x.is_Rational:
        return math.log10(abs(int(x.p))) - math.log10(int(x.q))  # math.log10 takes integers of any size
    if x.is_Float:
        mpf = mpmath.mpf(x._mpf_)
        return float(mpmath.log10(abs(mpf))) if mpmath.isfinite(mpf) else None
    try:
        approx = x.evalf(15)
    except (ValueError, TypeError, ArithmeticError):
        return None
    return log10_abs(approx) if approx.is_Float else None


def bounded(x: sp.Expr, digits: int) -> sp.Expr:
    """An exact rational longer than the limit becomes a DPS-digit Float; any number past 10^±limit is refused."""
    if x.is_Rational:
        if rational_digits(x) > digits:
            mag = log10_abs(x)
            if mag is not None and abs(mag) > digits:
                raise too_large("a value", mag, digits)
            return to_float(x)
    elif x.is_Float:
        mag = log10_abs(x)
        if mag is not None and mag != -math.inf and abs(mag) > digits:
            raise too_large("a value", mag, digits)
    return x


# --- the nodes that need care -----------------------------------------------------------------------


def power(base: sp.Expr, ex: sp.Expr, digits: int) -> sp.Expr:
    """base ** ex, estimated before it is computed."""
    if not (base.is_number and ex.is_number) or ex.is_zero or base.is_zero or base == 1 or ex == 1:
        return sp.Pow(base, ex)
    if not (ex.is_real and base.is_real):
        return sp.Pow(base, ex)  # complex: the caller reports it as not a real number
    lb = log10_abs(base)
    if lb is None:
        return sp.Pow(base, ex)
    try:
        e = float(ex)
    except (OverflowError, ValueError, TypeError):
        e = math.inf if ex > 0 else -math.inf
    mag = e * lb if lb else 0.0
    if abs(mag) > digits:
        raise too_large(f"{_short(base)} ** {_short(ex)}", mag, digits)
    if base.is_Float or ex.is_Float:
        return bounded(sp.Pow(base, ex), digits)  # mpmath arithmetic already
    if base.is_Rational and ex.is_Rational:
        size = abs(e) * rational_digits(base)
    else:  # an exact irrational base or exponent: SymPy may expand it into big integers
        size = abs(e) * max(1.0, abs(lb))
    if size <= digits:
        return bounded(sp.Pow(base, ex), digits)
    if base.is_negative and not ex.is_integer:
        return sp.Pow(base, ex)  # complex
    sign = -1 if base.is_negative and ex.is_integer and int(ex) % 2 else 1
    with mpmath.workdps(DPS + 10):
        v = mpmath.power(abs(to_mpf(base, DPS + 10)), to_mpf(ex, DPS + 10))
    return sign * sp.Float(v, DPS)


def exponential(x: sp.Expr, digits: int) -> sp.Expr:
    if x.is_number and x.is_real:
        try:
            approx = float(x)
        except (TypeError, ValueError, OverflowError):
            approx = math.inf
        mag = approx / math.log(10)
        if abs(mag) > digits:
            raise too_large(f"exp({_short(x)})", mag, digits)
    return sp.exp(x)


def rounding(func, x: sp.Expr, digits: int) -> sp.Expr:
    """floor or ceiling, exact: of a rational or Float directly, of an irrational at enough digits."""
    if not x.is_number or x.is_Rational:
        return func(x)
    mag = log10_abs(x) if x.is_real else None
    if mag is None:
        if x.is_real is False or x.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            raise EvalProblem(f"{func.__name__}() of {_short(x)}, which is not a finite real number")
        mag = 0.0
    if mag > digits:
        raise too_large(f"{func.__name__}({_short(x)})", mag, digits)
    if x.is_Float:
        return func(x)
    try:
        r = func(x)
    except (ArithmeticError, ValueError, TypeError):
        r = None
    if r is not None and r.is_Integer:
        return r
    approx = x.evalf(max(int(mag), 0) + DPS)
    if not approx.is_Float:
        raise EvalProblem(f"{func.__name__}() of {_short(x)}, which is not a finite real number")
    return func(approx)


def compare(func, a: sp.Expr, b: sp.Expr) -> sp.Basic:
    """A comparison of numbers: SymPy's, decided on DPS digits where SymPy cannot decide exactly."""
    for side in (a, b):
        if side.is_number and not finite_real(exact(side)):
            raise EvalProblem(f"a comparison with {shown(exact(side))}, which is not a finite real number")
    r = func(a, b)
    if r in (sp.true, sp.false) or not (a.is_number and b.is_number):
        return r
    return func(exact(a), exact(b))


def extremum(func, args: list) -> sp.Expr:
    for a in args:
        if a.is_number and not finite_real(exact(a)):
            raise EvalProblem(f"{'max' if func is sp.Max else 'min'}() of {shown(exact(a))}, which is not a finite real number")
    return func(*args)


# --- evaluation -------------------------------------------------------------------------------------


def evaluate(expr: sp.Basic, subs: dict, aggregate=None) -> sp.Basic:
    """expr with subs substituted and evaluated (aggregate(node) computes table aggregates).

    In an expression a model wrote (it holds no I, unlike a closed form SymPy solved, such
    as a cubic's roots), a power or log with no real value is a problem where it happens:
    abs(sqrt(-4)) is not 2.
    """
    digits = limit()
    memo: dict = {}
    real = not expr.has(sp.I)

    def ev(e):
        hit = subs.get(e)
        if hit is not None:
            return hit
        if not e.args and not isinstance(e, AppliedUndef):  # an aggregate of a table without inputs has no args
            return e
        hit = memo.get(e)
        if hit is None:
            hit = memo[e] = node(e)
        return hit

    def node(e):
        if isinstance(e, AppliedUndef):
            return aggregate(e) if aggregate is not None else e.func(*[ev(a) for a in e.args])
        if isinstance(e, sp.Piecewise):
            for branch, cond in e.args:
                c = ev(cond)
                if c is sp.true:
                    return ev(branch)
                if c is not sp.false:  # not decided (symbols left): keep every branch
                    return sp.Piecewise(*[(ev(b), ev(k)) for b, k in e.args])
            return sp.nan  # no branch applies
        args = [ev(a) for a in e.args]
        try:
            if isinstance(e, sp.Pow):
                r = power(args[0], args[1], digits)
                if real and r.is_number and r.has(sp.I):
                    what = f"sqrt({_short(args[0])})" if args[1] == sp.S.Half else f"{_short(args[0])} ** {_short(args[1])}"
                    raise EvalProblem(f"{what} has no real value")
                return r
            if isinstance(e, sp.log):
                r = e.func(*args)
                if real and r.is_number and (r.has(sp.I) or r in (sp.zoo, -sp.oo)):
                    raise EvalProblem(f"log({_short(args[0])}) has no real value")
                return r
            if isinstance(e, (sp.Add, sp.Mul)):
                return bounded(e.func(*args), digits)
            if isinstance(e, (sp.floor, sp.ceiling)):
                return rounding(e.func, args[0], digits)
            if isinstance(e, sp.exp):
                return exponential(args[0], digits)
            if isinstance(e, sp.core.relational.Relational):
                return compare(e.func, *args)
            if isinstance(e, (sp.Min, sp.Max)):
                return extremum(e.func, args)
            return e.func(*args)
        except EvalProblem:
            raise
        except MemoryError:
            raise EvalProblem(
                "ran out of memory computing a value exactly", f"lower {MAX_EXACT_DIGITS.env} (now {digits:,}): past it, values are computed to {DPS} digits, or refused", "limit"
            ) from None
        except (TypeError, ValueError, ArithmeticError) as err:
            raise EvalProblem(f"{type(e).__name__.lower()} has no value here ({_clip(str(err))})") from None

    return ev(expr)


def exact(value: sp.Expr) -> sp.Expr:
    """Keep rationals exact; pin anything irrational to DPS digits so expressions stay small."""
    if value.is_Rational or value is sp.nan:
        return value
    if value.is_number:
        v = value.evalf(DPS)
        return sp.Float(v, DPS) if v.is_Number and v.is_real else v  # complex or infinite values stay as they are
    return value


def finite_real(value) -> bool:
    """A rational, or a finite Float: a number that may be shown and compared."""
    return bool(getattr(value, "is_Rational", False) or (getattr(value, "is_Float", False) and value.is_finite))


def real_part(value: sp.Expr) -> sp.Expr | None:
    """value as a finite real number, dropping an imaginary part below rounding (a root of a cubic); else None."""
    if finite_real(value):
        return value
    if not value.is_number or value.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
        return None
    re_, im = value.as_real_imag()
    if not (finite_real(re_) and finite_real(im)):
        return None
    if abs(im) > sp.Rational(1, 10**12) * (abs(re_) + 1):
        return None
    return re_


# --- text ---------------------------------------------------------------------------------------------


def shown(x, digits: int = 6) -> str:
    """A number as a person reads it in a message: 0.693147, 1.0e+400, 0.6931 + 3.142i, NaN, complex infinity."""
    from .format import fmt

    if x is sp.nan:
        return "NaN (undefined)"
    if x is sp.zoo:
        return "complex infinity"
    if x in (sp.oo, -sp.oo):
        return "infinity" if x is sp.oo else "-infinity"
    if finite_real(x):
        return fmt(x, digits)
    if getattr(x, "is_number", False):
        try:
            re_, im = exact(x).as_real_imag()
            if finite_real(re_) and finite_real(im):
                sign = "-" if im < 0 else "+"
                return f"{fmt(re_, 4)} {sign} {fmt(abs(im), 4)}i"
        except (TypeError, ValueError, ArithmeticError):
            pass
    return _clip(str(x))


def _short(x) -> str:
    try:
        return shown(x, 4) if x.is_number else _clip(str(x))
    except (TypeError, ValueError, ArithmeticError):
        return "a number"


def _clip(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 3] + "..."
