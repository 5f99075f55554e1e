"""Finite sums and products: the solver, every backend and the inverse over whole numbers, against hand values.

tests/models/sums.yaml is a chain no shipped model resembles (bounds that are expressions, empty
ranges, max() and a condition inside a term, a sum with a unit); the hand values come from Python's
own loops here, not from chainc.
"""

from __future__ import annotations

import math
import time

import numpy as np
import openpyxl
import pytest
from openpyxl.worksheet.formula import ArrayFormula

import chainc
from chainc.cli import main
from chainc.errors import SolveError

from .conftest import ROOT
from .test_python_backend import load
from .tools import require

MODEL = ROOT / "tests" / "models" / "sums.yaml"


def hand(n: int, a: float, m: int) -> dict:
    return {
        "s": sum(a**k / math.factorial(k) for k in range(n)),
        "p": math.prod(max(k, 2) for k in range(m, n + 2)),
        "e": sum(1 for k in range(n, m)),
        "t": sum(k * 1e-3 for k in range(1, n + 1)),  # seconds
        "z": sum(k for k in range(n + 1) if 2 < k < 5),
    }


POINTS = [(5, 2.0, 3), (0, 2.0, 3), (1, 0.5, 0), (8, 3.0, 9), (12, 1.5, 2)]


@pytest.mark.parametrize(("n", "a", "m"), POINTS)
def test_the_solver_matches_the_hand_loops(n, a, m):
    s = chainc.solve(str(MODEL), n=n, a=a, m=m)
    for name, want in hand(n, a, m).items():
        got = float(s.values[name])
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15), name


def test_a_sum_of_exact_terms_is_exact():
    s = chainc.solve(str(MODEL), n=10, a=2)
    assert s.values["s"] == sum(__import__("fractions").Fraction(2**k, math.factorial(k)) for k in range(10))


def test_the_bound_is_solved_over_whole_numbers():
    s = chainc.solve(str(MODEL), find=["n"], s=7)
    assert s.values["n"] == 5
    assert "whole numbers" in s.numeric["n"]


def test_a_bound_with_no_whole_solution_says_where_the_sides_cross():
    with pytest.raises(SolveError) as e:
        chainc.solve(str(MODEL), find=["n"], s=7.2)  # n = 5 gives 7, n = 6 gives 7.2667
    assert "no whole n solves" in e.value.message and "between n = 5 and 6" in e.value.hint


def test_a_term_parameter_is_solved_as_a_real_number():
    s = chainc.solve(str(MODEL), find=["a"], s=7)  # 1 + a + a^2/2 + a^3/6 + a^4/24 = 7 -> a = 2
    assert float(s.values["a"]) == pytest.approx(2, rel=1e-10)


def test_an_index_is_an_integer_symbol_and_prints_as_its_name(capsys):
    assert main(["solve", str(MODEL), "--explain"]) == 0
    out = capsys.readouterr().out
    assert "sum(a**k / factorial(k) for k in range(0, n))" in out or "for k in range" in out
    assert "#" not in out.split("sums")[-1].replace("# ", "")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("sums")
    assert main(["build", str(MODEL), "--out", str(out), "--format", "py", "--format", "xlsx", "--format", "tex"]) == 0
    assert main(["build", str(MODEL), "--out", str(out), "--format", "py", "--numpy", "--find", "n", "--given", "s=7"]) == 0
    return out


def test_generated_python_matches_the_hand_loops(built):
    mod = load(built / "sums.py")
    for n, a, m in POINTS:
        got = mod.solve(n=n, a=a, m=m)
        for name, want in hand(n, a, m).items():
            scale = 1e3 if name == "t" else 1  # the module speaks display units: t in ms
            assert float(getattr(got, name)) == pytest.approx(want * scale, rel=1e-12, abs=1e-12), (name, n, a, m)


def test_generated_numpy_matches_over_arrays_and_solves_the_bound(built):
    mod = load(built / "sums_np.py")
    ns, as_, ms = (np.array([p[i] for p in POINTS], dtype=float) for i in range(3))
    got = mod.solve(n=ns, a=as_, m=ms)
    for i, (n, a, m) in enumerate(POINTS):
        for name, want in hand(n, a, m).items():
            scale = 1e3 if name == "t" else 1
            assert float(getattr(got, name)[i]) == pytest.approx(want * scale, rel=1e-12, abs=1e-12), (name, n, a, m)
    inverse = mod.n_from_s(s=np.array([7.0, 1.0, 3.0]))
    assert list(inverse.n) == [5, 1, 2]


def test_the_workbook_sums_with_sumproduct_and_libreoffice_agrees(built, tmp_path):
    wb = openpyxl.load_workbook(built / "chains.xlsx")
    # a sum's terms are an array: its cell is an array formula, which Gnumeric needs to apply a function to each term
    formulas = [c.value.text for row in wb["sums"].iter_rows() for c in row if isinstance(c.value, ArrayFormula)]
    assert not [c.value for row in wb["sums"].iter_rows() for c in row if isinstance(c.value, str) and "SUMPRODUCT(" in c.value]
    assert any("SUMPRODUCT(" in f and 'ROW(INDIRECT("1:"&' in f for f in formulas)
    assert any("SUMPRODUCT(PRODUCT(" in f for f in formulas)
    require("soffice")
    from .excel_recalc import recalculate

    # other inputs in the input cells: LibreOffice recomputes every formula from them
    inputs = {r[0].value: r for r in wb["sums"].iter_rows() if isinstance(r[0].value, str)}
    del inputs
    (out,) = recalculate([built / "chains.xlsx"], tmp_path)
    _same_numbers(built, out)


def _same_numbers(built, out) -> None:
    cached = openpyxl.load_workbook(built / "chains.xlsx", data_only=True)["sums"]
    fresh = openpyxl.load_workbook(out, data_only=True)["sums"]
    numbers = 0
    for row in fresh.iter_rows():
        for c in row:
            want = cached[c.coordinate].value
            if isinstance(want, (int, float)) and not isinstance(want, bool):
                numbers += 1
                assert c.value == pytest.approx(want, rel=1e-12), c.coordinate
    assert numbers >= 8


@pytest.mark.slow
def test_gnumeric_sums_each_term(built, tmp_path):
    """Gnumeric too: outside an array formula its FACT would take the first term only."""
    require("ssconvert")
    from .gnumeric_recalc import recalculate_gnumeric

    (out,) = recalculate_gnumeric([built / "chains.xlsx"], tmp_path)
    _same_numbers(built, out)


def test_the_sheet_writes_sigma_and_pi(built):
    tex = (built / "sums.tex").read_text()
    assert r"\sum_{k=0}" in tex and r"\prod_{k=m}" in tex and "k!" in tex


NESTED = """\
name: nested
title: Nested sums, the inner part reading the outer index or not
variables:
  n: {value: 3, integer: true, max: 50}
  x: {value: 2}
  apart: {domain: real}
  terms: {domain: real}
  bounds: {domain: real}
  product: {domain: real}
equations:
  - apart = sum(sum(x * j for j in range(3)) for k in range(n))
  - terms = sum(sum(j * k * x for j in range(3)) for k in range(n))
  - bounds = sum(sum(j * x for j in range(k)) for k in range(n))
  - product = prod(sum(1 + j + k for j in range(k, 4)) for k in range(1, n))
"""


def hand_nested(n: int, x: float) -> dict:
    return {
        "apart": sum(sum(x * j for j in range(3)) for k in range(n)),
        "terms": sum(sum(j * k * x for j in range(3)) for k in range(n)),
        "bounds": sum(sum(j * x for j in range(k)) for k in range(n)),
        "product": math.prod(sum(1 + j + k for j in range(k, 4)) for k in range(1, n)),
    }


def test_nested_sums_agree_in_both_flavours_over_arrays(tmp_path):
    """The NumPy flavour gave 30 for 18 where the inner terms read the outer index (and crashed over arrays): the inner
    sum's terms broadcast against the outer index's axis; each sum's element shape now includes what its terms read."""
    (tmp_path / "nested.yaml").write_text(NESTED)
    assert main(["build", str(tmp_path / "nested.yaml"), "--out", str(tmp_path / "out"), "--format", "py", "--numpy"]) == 0
    mod, vec = load(tmp_path / "out" / "nested.py"), load(tmp_path / "out" / "nested_np.py")
    points = [(3, 2.0), (5, 1.0), (1, 3.0), (7, 0.5)]
    got = vec.solve(n=np.array([n for n, _ in points], dtype=float), x=np.array([x for _, x in points]))
    for i, (n, x) in enumerate(points):
        want, one, solved = hand_nested(n, x), mod.solve(n=n, x=x), chainc.solve(str(tmp_path / "nested.yaml"), n=n, x=x)
        for name, value in want.items():
            assert float(solved.values[name]) == pytest.approx(value, rel=1e-12), (name, n, x)
            assert getattr(one, name) == pytest.approx(value, rel=1e-12), (name, n, x)
            assert getattr(vec.solve(n=n, x=x), name) == pytest.approx(value, rel=1e-12), (name, n, x)
            assert getattr(got, name)[i] == pytest.approx(value, rel=1e-12), (name, n, x)


@pytest.mark.parametrize("span", ["range(1, 0)", "range(1, 3)"])
def test_a_sum_of_constant_terms_beside_an_unknown_is_solved(tmp_path, span):
    """SymPy's solve raised NotAlgebraic (a traceback) for 2 * a1 = Sum(0, ...): such a block is now searched numerically."""
    text = f'name: zero\ntitle: a sum of zeros\nvariables:\n  a0: {{unit: s, value: 2}}\n  a1: {{unit: token, domain: real}}\nequations:\n  - "2 * a1 = sum(0 for k in {span})"\n'
    (tmp_path / "zero.yaml").write_text(text)
    assert chainc.solve(str(tmp_path / "zero.yaml")).values["a1"] == 0


def test_a_closed_form_keeps_its_sums_and_products_whole(tmp_path):
    """sp.solve evaluated the inner geometric series and pulled its Piecewise (k == 1) out of the product, so the
    closed form read the product's index outside it (a KeyError); sums and products are now atoms to sp.solve.
    By hand: k = 0 has an empty inner sum, so the product and a4 are 0; over k = 1, 2 it is 1/2 x 3/3, a4 = 7^(1/4) sqrt(50)."""
    for span, want in (("range(2)", 0.0), ("range(1, 3)", math.sqrt(7) ** 0.5 * math.sqrt(50))):
        text = (
            "name: roots\ntitle: two roots of a product\nvariables:\n  a4: {unit: token, domain: nonnegative}\nequations:\n"
            f'  - "a4 ** 2 = (sqrt(7[token**2]) * prod(sum(k ** j for j in range(min(k, 2))) / (k + 1) for k in {span})) * 100[token]"\n'
        )
        (tmp_path / "roots.yaml").write_text(text)
        assert float(chainc.solve(str(tmp_path / "roots.yaml")).values["a4"]) == pytest.approx(want, rel=1e-12, abs=1e-300), span


def test_a_nested_sum_counts_its_terms_once_per_outer_term(tmp_path):
    """sum(sum(j for j in range(k)) for k in range(30_000)) took 70 s (4.5e8 terms, each sum under the limit on its own): an inner
    sum's terms count once per term of the sums around it, in the solver and both flavours. n = 1,000: 999 x 1,000 terms at most."""
    (tmp_path / "deep.yaml").write_text("name: deep\ntitle: nested\nvariables:\n  n: {value: 4, integer: true}\n  s: {}\nequations:\n  - s = sum(sum(j for j in range(k)) for k in range(n))\n")
    assert main(["build", str(tmp_path / "deep.yaml"), "--out", str(tmp_path / "out"), "--format", "py", "--numpy"]) == 0
    mod, vec = load(tmp_path / "out" / "deep.py"), load(tmp_path / "out" / "deep_np.py")
    want = sum(k * (k - 1) // 2 for k in range(1000))
    assert chainc.solve(str(tmp_path / "deep.yaml"), n=1000).values["s"] == want == mod.solve(n=1000).s == vec.solve(n=1000).s
    start = time.perf_counter()
    with pytest.raises(chainc.errors.LimitError) as e:
        chainc.solve(str(tmp_path / "deep.yaml"), n=30_000)
    assert "30,000 times over" in e.value.message and "sum_terms limit" in e.value.message and "CHAINC_MAX_SUM_TERMS" in e.value.hint
    for m in (mod, vec):
        with pytest.raises(m.ChainError) as e:
            m.solve(n=30_000)
        assert "times over (the sums around it) is more than the sum_terms limit" in e.value.message
    assert time.perf_counter() - start < 10


def test_a_bound_that_is_no_whole_number_at_a_numeric_root_is_located(tmp_path):
    """The search for p settles near 5 in floats, where the bound p ** 4 is not whole: the runtime's Problem escaped the
    final evaluation of the residual as a traceback (found by the constructs' fuzz); it is a located SolveError. Where
    the bisection meets a point without a value it says no value solves it (a point there is no crossing, roots.py)."""
    (tmp_path / "fr.yaml").write_text('name: fr\ntitle: fr\nvariables:\n  p: {domain: real}\nequations:\n  - "p = sum(prod(k for j in range(5)) for k in range(p ** 4, max(p, 4)))"\n')
    with pytest.raises(SolveError) as e:
        chainc.solve(str(tmp_path / "fr.yaml"))
    said = e.value.message
    assert ("bound of a sum is" in said and "not a whole number, in line 6" in said) or said.startswith("no value of p solves line 6"), said
    assert e.value.loc.line == 6


def test_a_whole_number_search_does_not_close_in_on_the_sum_terms_limit(tmp_path, monkeypatch):
    """n from s = sum(k for k in range(n)) = 45 is 10. The search's grid reaches n = 2^20, past the limit, and took that for the
    edge of n's domain: it bisected towards it, summing some twenty sums of half a million terms and more (7 s). A point a limit
    stops is now no edge to close in on: the terms summed stay near the grid's own (2^19 + 2^18 + ...)."""
    from chainc import closures

    (tmp_path / "rs.yaml").write_text("name: rs\ntitle: a bound solved for\nvariables:\n  n: {value: 4, integer: true}\n  s: {}\nequations:\n  - s = sum(k for k in range(n))\n")
    summed = []
    each = closures._each_term
    monkeypatch.setattr(closures, "_each_term", lambda add, k, lo, hi, body, env: summed.append(hi - lo + 1) or each(add, k, lo, hi, body, env))
    assert chainc.solve(str(tmp_path / "rs.yaml"), find=["n"], s=45).values["n"] == 10
    assert sum(summed) < 3_000_000, f"{sum(summed):,} terms summed"


BACKWARDS = """name: backwards
title: ranges that run backwards
variables:
  x: {value: 2}
  s1: {domain: real}
  s2: {domain: real}
  s3: {domain: real}
  s4: {domain: real}
  s5: {domain: real}
  s6: {domain: real}
equations:
  - "s1 = x * if(sum(1 for a in range(5, 2)) < 0, 1, 2)"
  - "s2 = x * min(sum(1 for a in range(5, 2)), -1)"
  - "s3 = x * ceil(sum(1 for a in range(5, 2)))"
  - "s4 = x * min(sum(sum(1 for a in range(5, b)) for b in range(3)), -1)"
  - "s5 = x * ceil(sum(sum(1 for a in range(5, b)) for b in range(3)) + 0.5)"
  - "s6 = x * abs(sum(sum(1 for a in range(5, b)) for b in range(3)) - 1)"
"""


def test_a_range_that_runs_backwards_has_no_terms_everywhere(tmp_path):
    """SymPy counts range(5, 2) as -3 terms (Karr's convention) and decided if(), min() and ceil() on that: s1 was 2, s2 0 and s3 -6
    where Python's loops give 4 and -2, and s4 raised 'not comparable'. By hand (x = 2): every sum here has no terms."""
    want = {"s1": 4, "s2": -2, "s3": 0, "s4": -2, "s5": 2, "s6": 2}
    (tmp_path / "backwards.yaml").write_text(BACKWARDS)
    assert main(["build", str(tmp_path / "backwards.yaml"), "--out", str(tmp_path / "out"), "--format", "py"]) == 0
    solved, mod = chainc.solve(str(tmp_path / "backwards.yaml")), load(tmp_path / "out" / "backwards.py").solve()
    assert {k: float(solved.values[k]) for k in want} == want == {k: getattr(mod, k) for k in want}
