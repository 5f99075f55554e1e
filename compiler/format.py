"""Numbers for people: a sensible number of significant figures, thousands separated."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

from .numbers import exact


def fmt(x, digits: int | None = None) -> str:
    """4 significant figures by default, but never rounding away integer digits.

    7.975, 79.75, 2,990, 487,671, 0.6941, 5.243e-06 (tiny or huge values in E notation).
    x may be a float or an exact (SymPy or int) number; an exact number beyond the range
    of a float is written from its exact value (1.000e+400), never as inf or 0.
    """
    digits = digits or 4
    f = as_float(x)
    if f is None:
        return sci(x, digits)
    x = f
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    if mag >= 15 or mag < -4:
        return f"{x:.{digits - 1}e}"
    if mag >= digits - 1:
        return f"{round(x):,}"
    text = f"{x:,.{max(digits - 1 - mag, 0)}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text


def as_float(x) -> float | None:
    """float(x), or None when x is an exact number a float cannot hold (it overflows, or a nonzero value underflows to 0)."""
    if isinstance(x, float):
        return x
    try:
        f = float(x)
    except OverflowError:
        return None
    if (math.isinf(f) or f == 0) and _exact_number(x) and x != 0:
        return None
    return f


def _exact_number(x) -> bool:
    if isinstance(x, (int, Fraction)):
        return True
    return bool(getattr(x, "is_number", False) and (x.is_Rational or (x.is_Float and x.is_finite)))


def sci(x, digits: int = 4) -> str:
    """An exact number in E notation with `digits` significant figures, whatever its size: 1.000e+400.

    As Decimal would print it (its exponent unpadded), correctly rounded half-even, in
    time independent of the number's size: see leading().
    """
    v = exact(x)
    if isinstance(v, float):
        return f"{v:.{digits - 1}e}"
    if v == 0:
        return f"{Decimal(0):.{digits - 1}e}"  # '0.000e+3', as Decimal writes a zero
    m, e = leading(abs(v.numerator), v.denominator, digits)
    text = str(m)
    text = text[0] + ("." + text[1:] if digits > 1 else "")
    return f"{'-' if v < 0 else ''}{text}e{e:+d}"


def to_decimal(x: Fraction, prec: int = 28) -> Decimal:
    """x rounded half-even to `prec` figures: the value of Decimal(x.numerator) / Decimal(x.denominator) at that precision, without converting either."""
    if x == 0:
        return Decimal(0)
    m, e = leading(abs(x.numerator), x.denominator, prec)
    return Decimal((int(x < 0), tuple(map(int, str(m))), e - prec + 1))


# --- the leading digits of a rational, from its leading bits -------------------------------------------
#
# n/d * 10**p is bounded from the top `bits` bits of n, d and 5**|p| (each truncation widens an
# interval, never loses the value); when the interval decides the rounding, that is the answer. Only
# a value within about 2**-bits of a rounding edge (an exact tie such as 0.99995, or a 100,000-digit
# number that close to one) is computed exactly, with whole-number arithmetic: never a string or a
# Decimal of the whole number.

_LOG10_2 = math.log10(2)
_GUARD = 32  # fraction bits of the scaled bounds


def leading(n: int, d: int, digits: int) -> tuple[int, int]:
    """(m, e) with n/d = m * 10**(e - digits + 1) rounded half-even, 10**(digits-1) <= m < 10**digits (n, d > 0)."""
    low = 10 ** (digits - 1)
    e = math.floor((n.bit_length() - d.bit_length()) * _LOG10_2)  # within 1 of floor(log10(n/d))
    bits = int(digits * 3.33) + 64
    for _ in range(4):
        lo, hi = _scaled(n, d, digits - 1 - e, bits)
        if hi < low << _GUARD:
            e -= 1  # certainly below 10**e
            continue
        if lo >= (10 * low) << _GUARD:
            e += 1  # certainly 10**(e+1) or more
            continue
        if lo < low << _GUARD:
            break  # within the bounds of 10**e: computed exactly below
        half = 1 << (_GUARD - 1)
        m = (lo + half) >> _GUARD
        if m != (hi + half) >> _GUARD or not (lo + half) & ((1 << _GUARD) - 1):
            break  # near a rounding edge
        return (low, e + 1) if m == 10 * low else (m, e)
    return _exact(n, d, digits, e)


def _exact(n: int, d: int, digits: int, e: int) -> tuple[int, int]:
    """leading() by whole-number division: for the values near a rounding edge."""
    low = 10 ** (digits - 1)
    while True:
        p = digits - 1 - e
        q, r = divmod(n * 10**p, d) if p >= 0 else divmod(n, d * 10**-p)
        den = d if p >= 0 else d * 10**-p
        if q < low:
            e -= 1
        elif q >= 10 * low:
            e += 1
        else:
            if 2 * r > den or (2 * r == den and q & 1):
                q += 1
            return (low, e + 1) if q == 10 * low else (q, e)


def _scaled(n: int, d: int, p: int, bits: int) -> tuple[int, int]:
    """(lo, hi) with lo <= n/d * 10**p * 2**_GUARD <= hi, from the leading bits of n, d and 5**|p|."""
    n_lo, n_hi, sn = _top(n, bits)
    d_lo, d_hi, sd = _top(d, bits)
    f_lo, f_hi, sf = _pow5(abs(p), bits)
    if p >= 0:
        n_lo, n_hi, sn = n_lo * f_lo, n_hi * f_hi, sn + sf + p
    else:
        d_lo, d_hi, sd = d_lo * f_lo, d_hi * f_hi, sd + sf - p
    shift = sn - sd + _GUARD
    if shift >= 0:
        return (n_lo << shift) // d_hi, -(-(n_hi << shift) // d_lo)
    return n_lo // (d_hi << -shift), -(-n_hi // (d_lo << -shift))


def _top(x: int, bits: int) -> tuple[int, int, int]:
    """(lo, hi, s) with lo * 2**s <= x <= hi * 2**s: x's leading bits (a shift reads only those)."""
    s = max(x.bit_length() - bits, 0)
    lo = x >> s
    return lo, lo + (s > 0), s


def _pow5(k: int, bits: int) -> tuple[int, int, int]:
    """(lo, hi, s) with lo * 2**s <= 5**k <= hi * 2**s, by squaring with each product cut to `bits` bits."""
    lo = hi = 1
    s = 0
    b_lo = b_hi = 5
    bs = 0
    while k:
        if k & 1:
            lo, hi, s = _cut(lo * b_lo, hi * b_hi, s + bs, bits)
        k >>= 1
        if k:
            b_lo, b_hi, bs = _cut(b_lo * b_lo, b_hi * b_hi, 2 * bs, bits)
    return lo, hi, s


def _cut(lo: int, hi: int, s: int, bits: int) -> tuple[int, int, int]:
    t = hi.bit_length() - bits
    if t <= 0:
        return lo, hi, s
    return lo >> t, -(-hi >> t), s + t
