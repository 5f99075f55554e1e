"""Bounded arithmetic for the solver: exact where it is cheap, approximate where it must be, never silently wrong.

A power is sized before it is computed: an exact result of more than
CHAINC_MAX_EXACT_DIGITS digits (limits.py) is computed to 30 significant digits
with the standard library's `decimal` instead, and a value whose decimal exponent
would pass the limit (2 ** 1e12, exp(1e6)) is refused. A value beyond float range
(exp(1000) = 1.97e434) is computed the same way rather than becoming inf or 0.
What has no real value (the log of a negative number) is a Problem that names the
operation and its argument; the runner adds where it happened.
"""

from __future__ import annotations

import math
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from fractions import Fraction

from .runtime.values import ChainError, shown

DIGITS = 30  # significant digits of an approximate (too long, or beyond float range) value
LN10 = math.log(10)
HINT_VALUE = "log() and sqrt() need arguments above zero"
limit = 10_000  # the solver sets this from CHAINC_MAX_EXACT_DIGITS before each run
max_terms = 1_000_000  # and this from CHAINC_MAX_SUM_TERMS
around = 1  # the terms of the sums around the one being summed: a nested sum counts its terms that many times
# A run keeps a value exact while its fraction is short (SHORT_BITS, numerator and denominator together);
# a longer one is carried as a binary float, where exactness buys nothing but time (run.py's Runner sets
# `short` per run, and redoes a run exactly, short = None, when a decision depends on the digits).
SHORT_BITS = 256
LONG_BITS = 4096  # a value beyond float range stays exact up to this size, then goes on to 30 digits
short: int | None = None  # a run's bound on an exact value, in bits (None outside a run: no bound)
shortened = False  # a value of this run was carried as a float instead of exactly
probing = False  # a root search's trial point: approximate by nature, its decisions are not redone
strict = False  # the exact rerun: values exact up to `limit` digits, and no decision asks for another run


class Problem(ChainError):
    """No real value, or too large to compute: the message names the operation, the hint what to do."""


class LimitReached(Exception):
    """A limit of limits.py stopped the computation: not "no value" (so not a ChainError, which a search
    steps over as a point without a value); every search stops at it, and the error names the limit."""

    def __init__(self, message: str, hint: str = ""):
        super().__init__(message)
        self.message, self.hint = message, hint


def count(x) -> str:
    """1,000,000,000,000 for whole numbers (up to 10^15), else 6 significant figures."""
    whole = isinstance(x, int) or (isinstance(x, Fraction) and x.denominator == 1)
    return f"{int(x):,}" if whole and abs(x) < 10**15 else shown(x)


def too_big(what: str, magnitude: float) -> Problem:
    size = f"10^({'-' if magnitude < 0 else ''}{abs(magnitude):.3g})" if abs(magnitude) >= 1e6 else f"1e{'-' if magnitude < 0 else ''}{abs(magnitude):.0f}"
    # at a root search's trial point (a float guess) it is a point without a value, which the search steps over
    return (Problem if probing else LimitReached)(
        f"{what} would be about {size}, beyond the {limit:,} digits chainc computes with",
        f"check the inputs; to compute with larger numbers, set the environment variable CHAINC_MAX_EXACT_DIGITS to a larger number of digits (now {limit:,})",
    )


def _context() -> Context:
    return Context(prec=DIGITS, Emax=MAX_EMAX, Emin=MIN_EMIN)


def _dec(x) -> Decimal:
    if isinstance(x, Fraction):
        return _context().divide(Decimal(x.numerator), Decimal(x.denominator))
    return Decimal(x)


def _log10(x) -> float:
    """log10 |x| of a nonzero exact or float number, without building a big float."""
    if isinstance(x, (int, Fraction)):
        x = Fraction(x)
        return math.log10(abs(x.numerator)) - math.log10(x.denominator)
    return math.log10(abs(x))


def power(base, ex):
    """base ** ex: exact for a rational base and a whole exponent unless the result is too long."""
    if type(ex) is Fraction and ex.denominator == 1:
        ex = ex.numerator
    if base == 0:
        if ex < 0:
            raise ZeroDivisionError("zero to a negative power")
        return 0 if ex > 0 else 1
    if isinstance(ex, int) and isinstance(base, (int, Fraction)):
        b = Fraction(base)
        digits = abs(ex) * math.log10(max(abs(b.numerator), b.denominator)) if abs(b) != 1 else 0
        if short is not None and not strict and (type(base) is Fraction or ex < 0) and digits * 3.33 > short and digits < 300:
            return _float_power(b, ex)  # |result| within 1e±300: a float holds it
        if digits <= limit:
            return b**ex
        return _approximate(f"{count(base)} ** {count(ex)}", ex * _log10(b), lambda: _context().power(_dec(b), ex))
    if base < 0 and not float(ex).is_integer():
        what = f"sqrt({shown(base)})" if ex == Fraction(1, 2) else f"({shown(base)}) ** {shown(ex)}"
        raise Problem(f"{what} has no real value", HINT_VALUE)
    if isinstance(base, Fraction) and isinstance(ex, Fraction):
        root = _exact_root(base, ex)
        if root is not None:
            return root
    try:
        r = float(base) ** float(ex)
    except OverflowError:
        r = math.inf
    if math.isfinite(r) and (r != 0 or base == 0):
        return r
    return _approximate(f"{shown(base)} ** {shown(ex)}", float(ex) * _log10(base), lambda: _context().power(_dec(base), _dec(ex)))


def _float_power(b: Fraction, ex: int):
    """A long exact power as a float (computed from the float base: no long intermediate)."""
    global shortened
    shortened = True
    return float(b) ** ex


def shorten(v):
    """v as the run carries it: exact while its fraction is short, else a binary float (exact if beyond float range)."""
    global shortened
    if type(v) is Fraction and short is not None and v._numerator.bit_length() + v._denominator.bit_length() > short:
        try:
            f = v._numerator / v._denominator
        except OverflowError:
            f = math.inf
        if f == 0 or math.isinf(f):  # beyond float range: exact while it is not long, else to 30 digits
            return v if v._numerator.bit_length() + v._denominator.bit_length() <= LONG_BITS else rounded(v)
        shortened = True
        return f
    return v


def exp(x):
    try:
        r = math.exp(x)
    except OverflowError:
        r = math.inf
    if math.isfinite(r) and (r != 0 or x == -math.inf):
        return r
    return _approximate(f"exp({count(x)})", float(x) / LN10, lambda: _context().exp(_dec(x)))


def rounded(x: Fraction) -> Fraction:
    """x to the digits of an approximate value (a long exact fraction made cheap to compute with)."""
    return Fraction(_dec(x))


def _approximate(what: str, magnitude: float, compute):
    """A value beyond float range or too long to hold exactly: 30 digits, if its exponent is within the limit."""
    if abs(magnitude) > limit:
        raise too_big(what, magnitude)
    return Fraction(compute())


def sqrt(x):
    if x < 0:
        raise Problem(f"sqrt({shown(x)}) has no real value", HINT_VALUE)
    return power(x, Fraction(1, 2))


def log(x, base=None):
    """Natural (or base-) logarithm; exact ints and Fractions of any size are fine."""
    if base is not None:
        return log(x) / log(base)
    if isinstance(x, complex) or not x > 0:
        raise Problem(f"log({shown(x)}) has no real value", HINT_VALUE)
    if isinstance(x, (int, Fraction)):
        x = Fraction(x)
        return math.log(x.numerator) - math.log(x.denominator)  # math.log takes integers of any size
    return math.log(x)


def _exact_root(base: Fraction, ex: Fraction):
    """base ** (p/q) exactly when base is a perfect q-th power (sqrt(4) = 2), else None."""
    q = ex.denominator
    if q > 64 or base <= 0:
        return None
    num, den = _iroot(base.numerator, q), _iroot(base.denominator, q)
    if num is None or den is None:
        return None
    return power(Fraction(num, den), ex.numerator)


def _iroot(n: int, q: int):
    r = math.isqrt(n) if q == 2 else (round(n ** (1.0 / q)) if n < 2**1000 else None)
    if r is None:
        return None
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**q == n:
            return c
    return None


def factorial(x):
    """n! exactly for a whole n (unless it is too long), else gamma(x + 1)."""
    if isinstance(x, complex) or x != x:
        raise Problem(f"factorial({shown(x)}) has no real value", "factorial() takes a number")
    if x % 1 == 0:
        if x < 0:
            raise Problem(f"factorial({shown(x)}) has no value", "factorial() of a negative whole number is undefined")
        n = int(x)
        digits = math.lgamma(n + 1) / LN10
        if digits > limit:
            raise too_big(f"factorial({count(n)})", digits)
        return math.factorial(n)
    return gamma(x + 1)


def gamma(x):
    try:
        return math.gamma(float(x))
    except ValueError:
        raise Problem(f"gamma({shown(x)}) has no value", "gamma() is undefined at 0 and the negative whole numbers") from None
    except OverflowError:
        return _approximate(f"gamma({shown(x)})", math.lgamma(float(x)) / LN10, lambda: _context().exp(_dec(math.lgamma(float(x)))))
