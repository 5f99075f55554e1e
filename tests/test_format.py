"""Printing numbers: exactly what the Decimal route printed, in time independent of the number's size."""

from __future__ import annotations

import math
import sys
import time
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from fractions import Fraction

import pytest
import sympy as sp
from hypothesis import example, given, settings
from hypothesis import strategies as st

import chainc.format as F
from chainc.format import fmt, sci, to_decimal
from chainc.numbers import exact


def slow_sci(x, digits: int = 4) -> str:
    """The reference: sci() as it was, dividing the whole numerator by the whole denominator in Decimal."""
    v = exact(x)
    if isinstance(v, float):
        return f"{v:.{digits - 1}e}"
    d = Context(prec=digits, Emax=MAX_EMAX, Emin=MIN_EMIN).divide(Decimal(v.numerator), Decimal(v.denominator))
    return f"{d:.{digits - 1}e}"


def slow_fmt(x, digits: int | None = None) -> str:
    """fmt() as it was: the float route is unchanged, an exact number beyond float range goes to slow_sci."""
    f = F.as_float(x)
    return slow_sci(x, digits or 4) if f is None else fmt(f, digits)


# ties and near-ties at 4 and 16 figures, powers of ten, carries into the next decade, both float edges
EDGES = [
    Fraction(99995, 100000),
    Fraction(99985, 100000),
    Fraction(999950, 1),
    Fraction(9999500000, 10000),
    Fraction(99995, 100000) + Fraction(1, 10**400),
    Fraction(99995, 100000) - Fraction(1, 10**400),
    Fraction(12345, 10**5),
    Fraction(10**400),
    Fraction(10**400 - 1),
    Fraction(10**400 + 5 * 10**396),
    Fraction(1, 10**400),
    Fraction(2, 3) * 10**500,
    Fraction(10**16 + 5, 10**16),  # 16 figures: a tie at 1.000000000000000|5
    Fraction(10**16 + 15, 10**16),
    Fraction(2 * 10**16 - 1, 2 * 10**16),
    Fraction(2**1100),
    Fraction(1, 2**1100),
    Fraction(3**700, 7**300),
]

# rationals of every size: huge numerators and denominators, and decimal-looking ones (m / 10**k) near ties
rationals = st.one_of(
    st.fractions(),
    st.builds(lambda n, d, s: Fraction(s * n, d), st.integers(1, 2**4000), st.integers(1, 2**4000), st.sampled_from([1, -1])),
    st.builds(lambda m, k, s: s * m / Fraction(10) ** k, st.integers(1, 10**20), st.integers(-700, 700), st.sampled_from([1, -1])),
    st.builds(lambda m, k: (m * 10 + 5) / Fraction(10) ** k, st.integers(1, 10**17), st.integers(-400, 400)),
    st.builds(lambda b, p: Fraction(b) ** p, st.integers(2, 99), st.integers(-800, 800)),
    st.sampled_from(EDGES),
)
figures = st.sampled_from([1, 2, 4, 6, 16, 17])


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(rationals, figures)
@example(Fraction(0), 4)
def test_sci_prints_what_decimal_printed(x, digits):
    assert sci(x, digits) == slow_sci(x, digits)


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.one_of(rationals, st.integers(-(10**700), 10**700), st.floats(allow_nan=False)), st.sampled_from([None, 4, 6, 16]))
def test_fmt_prints_what_it_printed(x, digits):
    assert fmt(x, digits) == slow_fmt(x, digits)


@pytest.mark.parametrize("x", EDGES, ids=range(len(EDGES)))
@pytest.mark.parametrize("digits", [4, 16])
def test_the_edges(x, digits):
    for v in (x, -x):
        assert sci(v, digits) == slow_sci(v, digits)
        assert fmt(v, digits) == slow_fmt(v, digits)


def test_sympy_numbers_and_floats():
    assert sci(sp.Rational(10**400 + 1, 3), 4) == slow_sci(sp.Rational(10**400 + 1, 3), 4) == "3.333e+399"
    assert sci(sp.Integer(-(10**500)), 16) == "-1.000000000000000e+500"
    assert sci(1.5e300, 4) == "1.500e+300"  # a float keeps float's exponent
    assert fmt(Fraction(10**400)) == "1.000e+400"


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(rationals)
def test_to_decimal_is_the_default_contexts_quotient(x):
    if x != 0:
        assert to_decimal(x) == Decimal(x.numerator) / Decimal(x.denominator)


class _NoWholeNumber:
    """Stands in for Decimal in format.py: a Decimal of anything but zero fails the test."""

    def __call__(self, value=0, *args):
        assert value == 0, "format.py built a Decimal of a number"
        return Decimal(value)


def test_huge_numbers_are_printed_from_their_leading_digits(monkeypatch):
    """100,000-digit numerators and denominators: no str() of them (Python refuses past 4,300 digits), no Decimal, < 50 ms."""
    monkeypatch.setattr(F, "Decimal", _NoWholeNumber())
    exact_calls = []
    slow = F._exact
    monkeypatch.setattr(F, "_exact", lambda *a: exact_calls.append(a) or slow(*a))
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(4300)
    try:
        n, d = 7**118_300 + 1, 3**209_600  # 100,000 digits each
        cases = [Fraction(n, d), Fraction(n, 3), Fraction(3, n), Fraction(n) * n, Fraction(10**100_000), Fraction(-n, 7)]
        start = time.perf_counter()
        texts = [(sci(x, 16), fmt(x)) for x in cases]
        seconds = time.perf_counter() - start
    finally:
        sys.set_int_max_str_digits(old)
    assert seconds < 0.05 * len(cases), seconds
    assert not exact_calls  # none of them is near a rounding edge: the leading bits decided every one
    for x, (text, short) in zip(cases, texts):
        magnitude = math.floor(math.log10(abs(x.numerator)) - math.log10(x.denominator))  # math.log10 reads ints of any size
        assert int(text.split("e")[1]) == int(short.split("e")[1]) == magnitude
        assert text.startswith("-") == short.startswith("-") == (x < 0)
    assert texts[4] == ("1.000000000000000e+100000", "1.000e+100000")
    # and the figures of the whole-number division (the slow path, which the fast one never took here)
    for x, (text, _) in zip(cases, texts):
        m, e = slow(abs(x.numerator), x.denominator, 16, int(text.split("e")[1]))
        assert text.lstrip("-") == f"{str(m)[0]}.{str(m)[1:]}e{e:+d}"
