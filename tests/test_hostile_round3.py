"""Hostile and broken input, round three (issue 18): nested sums, the limits that stop a search, the time budget.

Each class of failure has a file in tests/corpus/round3/ (its first line says what it tries);
each is run through `chainc.cli.main` as the console script would run it, and its value is
checked against Python's own loops, or its error against the message, the line and the hint.
The import chains and `chainc init` are in test_hostile_imports.py.
"""

from __future__ import annotations

import math
import re
import threading
import time
from fractions import Fraction
from pathlib import Path

import openpyxl
import pytest

from chainc import plan
from chainc.api import solve
from chainc.deadline import budget, check
from chainc.errors import LimitError
from tests.test_errors import ROOT, assert_argument_error, assert_located_error, run
from tests.test_python_backend import load
from tests.tools import require

CORPUS = Path(__file__).resolve().parent / "corpus" / "round3"
LIMIT_VARS = ("CHAINC_MAX_SUM_TERMS", "CHAINC_MAX_SOLVE_SECONDS", "CHAINC_MAX_EXACT_DIGITS", "CHAINC_ROOT")


@pytest.fixture(autouse=True)
def _in_project(monkeypatch):
    for var in LIMIT_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)


def nested(n: int) -> dict:
    """The nested-sum cases by hand, with Python's loops."""
    return {
        "s": sum(sum(j * k for j in range(k)) for k in range(n)),
        "t": math.prod(sum(1 for j in range(k, 4)) for k in range(1, 4)),
        "u": sum(sum(1.5 ** (j - k) / (k + 1) for j in range(k, k + 3)) for k in range(math.floor(n / 10))),
    }


# (corpus file, command-line arguments after the file, line, column, message, hint)
ERRORS = [
    ("negative-self-power.yaml", (), 7, 5, "no value of b solves line 7: b = (-b ** b)", "never crossed"),
    ("sum-terms-forward.yaml", (), 8, 5, "a sum of 2,000,000 terms (from k = 0 to 1,999,999) is more than the sum_terms limit of 1,000,000", "CHAINC_MAX_SUM_TERMS"),
    (
        "sum-terms-in-search.yaml",
        ("--question", "enough"),
        10,
        3,
        "question enough: the search for n stopped at n = 1,048,576: a sum of 1,048,576 terms",
        "CHAINC_MAX_SUM_TERMS",
    ),
]
ERRORS.append(
    ("limit-in-condition.yaml", ("--question", "fitting"), 10, 3, "beyond the 10,000 digits chainc computes with, in question fitting: factorial(p) <= 0", "CHAINC_MAX_EXACT_DIGITS")
)  # a limit met where the condition is evaluated, outside every statement: a traceback once (the constructs' fuzz)
VALUES = ["nested-sum-constant-inner.yaml", "nested-sum-dependent.yaml", "degree-1000.yaml", "nested-if-condition.yaml", "nested-grid-written-out.yaml"]


def test_corpus_is_complete():
    assert {c[0] for c in ERRORS} | set(VALUES) == {p.name for p in CORPUS.glob("*.yaml")}


@pytest.mark.parametrize(("name", "args", "line", "col", "message", "hint"), ERRORS, ids=[c[0].removesuffix(".yaml") for c in ERRORS])
def test_error(capsys, name, args, line, col, message, hint):
    path = CORPUS / name
    code, out, err = run(capsys, "solve", path, "--no-cache", *args)
    assert_located_error(code, out, err, path, line, col, message, hint)


def test_a_sum_of_sums_keeps_the_outer_sum():
    s = solve(str(CORPUS / "nested-sum-constant-inner.yaml"))
    assert s.values["s"] == 450  # 10 times 45: the outer sum was dropped (45)
    big = solve(str(CORPUS / "nested-sum-constant-inner.yaml"), {"n": 1000})
    assert big.values["s"] == 499_500_000


def test_inner_bounds_and_terms_may_read_the_outer_index():
    for n in (30, 10, 12, 47):
        s = solve(str(CORPUS / "nested-sum-dependent.yaml"), {"n": n})
        for name, want in nested(n).items():
            assert float(s.values[name]) == pytest.approx(want, rel=1e-14), (name, n)


def test_a_degree_1000_polynomial_is_answered_within_seconds():
    start = time.perf_counter()
    x = float(solve(str(CORPUS / "degree-1000.yaml")).values["x"])
    assert time.perf_counter() - start < 20  # 99 s in SymPy's factoring before
    assert abs(x**1000 + x**999 + 3 * x - 7) < 1e-9 and 1 < x < 1.01


def test_an_if_inside_a_condition_is_loaded_and_answered(capsys, tmp_path):
    """SymPy's Piecewise collapsed if(if(5 > m, 2, 1) > prod(...), ...) for minutes (the load had no budget): by hand,
    if(5 > m, 2, 1) is 2 for m < 5, the product of ones is 1, so the condition reads n <= 9 then and 200 <= 9 else."""
    path = CORPUS / "nested-if-condition.yaml"
    start = time.perf_counter()
    assert [solve(str(path), {"n": n}).values["c"] for n in (3, 4, 5, 7)] == [1, 1, 200, 200]
    code, out, err = run(capsys, "solve", path, "--no-cache", "--question", "fitting")
    assert code == 0 and "n = 9 " in out, err
    code, out, err = run(capsys, "solve", path, "--no-cache", "--question", "fitting", "--given", "m=6")
    assert code == 2 and "no n meets" in err
    assert run(capsys, "build", path, "--out", tmp_path, "--format", "py")[0] == 0
    module = load(tmp_path / "nested_if_condition.py")
    assert [module.solve(n=n).c for n in (3, 5)] == [1, 200] and module.fitting() == 9
    assert time.perf_counter() - start < 30


@pytest.mark.parametrize(("bar", "want"), [(5, 0), (1, 15)])
def test_an_if_on_a_sum_of_constants_is_decided_when_loaded(tmp_path, bar, want):
    """if(bar > sum(2 for j in range(1)), 0, 5 k) summed over k < 3: 0 when bar > 2, else 5 (0 + 1 + 2) = 15. SymPy rebuilt the
    held Piecewise without end on every substitution (CI: loading ran out of its 30 s budget)."""
    path = tmp_path / "constant-if.yaml"
    path.write_text(f"name: constant-if\ntitle: t\nvariables:\n  p: {{domain: real}}\nequations:\n  - p = sum(if({bar} > sum(2 for j in range(1)), 0, 5 * k) for k in range(3))\n")
    start = time.perf_counter()
    assert solve(str(path)).values["p"] == want
    assert time.perf_counter() - start < 10


def test_loading_that_runs_out_of_time_names_the_budget_and_the_expression(capsys, monkeypatch, tmp_path):
    from chainc.expr_calls import Calls

    def forever(self, node, args):
        while True:
            time.sleep(0.01)

    monkeypatch.setattr(Calls, "call_if", forever)
    monkeypatch.setenv("CHAINC_MAX_SOLVE_SECONDS", "1")
    path = tmp_path / "slow.yaml"
    path.write_text("name: slow\ntitle: Slow to load\nvariables:\n  x: {}\n  y: {value: 2}\nequations:\n  - x = if(y > 1, y, 1)\n")
    code, out, err = run(capsys, "solve", path, "--no-cache")
    assert_located_error(code, out, err, path, 7, 9, "loading the model took more than the solve_seconds limit of 1 s", "CHAINC_MAX_SOLVE_SECONDS")


@pytest.mark.slow
def test_raising_the_sum_terms_limit_finds_the_answer(capsys, monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_SUM_TERMS", "3000000")
    code, out, err = run(capsys, "solve", CORPUS / "sum-terms-in-search.yaml", "--no-cache", "--question", "enough")
    assert code == 0, err
    assert "n = 1,414,215" in out  # the fewest n with n (n - 1) / 2 >= 1e12
    assert 1414215 * 1414214 // 2 >= 10**12 > 1414214 * 1414213 // 2


def test_the_command_line_refuses_a_number_a_model_file_refuses(capsys):
    code, out, err = run(capsys, "solve", CORPUS / "nested-sum-constant-inner.yaml", "--given", "n=1e400")
    assert_argument_error(code, out, err, "n=1e400: number 1e400 is out of range: exponents go up to 300 (use a unit prefix", "n=10")


# --- the time budget ------------------------------------------------------------------------------------


def test_a_search_that_runs_out_of_time_names_the_budget(capsys, monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_SUM_TERMS", "3000000")  # the sum's own limit would stop it first
    monkeypatch.setenv("CHAINC_MAX_SOLVE_SECONDS", "1")
    path = CORPUS / "sum-terms-in-search.yaml"
    start = time.perf_counter()
    code, out, err = run(capsys, "solve", path, "--no-cache", "--question", "enough")
    assert time.perf_counter() - start < 10
    head = assert_located_error(code, out, err, path, 10, 3, "question enough: the search for n stopped at n = ", "CHAINC_MAX_SOLVE_SECONDS")
    assert "the solve took more than the solve_seconds limit of 1 s" in head


def test_planning_that_runs_out_of_time_names_the_equation(capsys, monkeypatch, tmp_path):
    def forever(residuals, syms):
        while True:
            time.sleep(0.01)

    monkeypatch.setattr(plan, "_solve_shape", forever)
    monkeypatch.setenv("CHAINC_MAX_SOLVE_SECONDS", "1")
    path = tmp_path / "slow.yaml"
    path.write_text("name: slow\ntitle: Slow to plan\nvariables:\n  x: {min: 0}\n  y: {value: 2}\nequations:\n  - x**3 + y * x = 9\n")
    code, out, err = run(capsys, "solve", path, "--no-cache")
    head = assert_located_error(code, out, err, path, 7, 5, "the solve took more than the solve_seconds limit of 1 s, solving line 7", "CHAINC_MAX_SOLVE_SECONDS")
    assert "x**3 + y * x = 9" in head


def test_the_budget_is_checked_by_the_clock_outside_the_main_thread(monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_SOLVE_SECONDS", "1")
    seen = []

    def work():
        try:
            with budget():
                while True:
                    check()
                    time.sleep(0.01)
        except LimitError as e:
            seen.append(e.message)

    t = threading.Thread(target=work)
    t.start()
    t.join(10)
    assert seen == ["the solve took more than the solve_seconds limit of 1 s"]


# --- every backend --------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    from chainc.cli import main

    out = tmp_path_factory.mktemp("round3")
    for name in ("nested-sum-constant-inner", "nested-sum-dependent"):
        assert main(["build", str(CORPUS / f"{name}.yaml"), "--out", str(out), "--format", "py"]) == 0
        assert main(["build", str(CORPUS / f"{name}.yaml"), "--out", str(out), "--format", "py", "--numpy"]) == 0
    return out


def test_generated_python_nests_sums(modules):
    plain, vector = load(modules / "nested_sum_constant_inner.py"), load(modules / "nested_sum_constant_inner_np.py")
    assert plain.solve(n=1000).s == 499_500_000
    assert list(vector.solve(n=[10, 1000]).s) == [450, 499_500_000]
    plain, vector = load(modules / "nested_sum_dependent.py"), load(modules / "nested_sum_dependent_np.py")
    got = vector.solve(n=[30, 10, 12, 47])
    for i, n in enumerate((30, 10, 12, 47)):
        for name, want in nested(n).items():
            assert getattr(plain.solve(n=n), name) == pytest.approx(want, rel=1e-14), (name, n)
            assert getattr(got, name)[i] == pytest.approx(want, rel=1e-14), (name, n)


def test_generated_modules_have_the_time_budget(modules, monkeypatch):
    """A public function's call has solve_seconds (60 s) by default; a sum past its budget stops the call, naming the limit.
    Each call starts its own budget; _Budget.seconds = 0 has run out at the first sum."""
    for name in ("nested_sum_constant_inner.py", "nested_sum_constant_inner_np.py"):
        module = load(modules / name)
        assert module._Budget.seconds == 60
        monkeypatch.setattr(module._Budget, "seconds", 0)
        with pytest.raises(module.ChainError, match=r"^the call took more than the solve_seconds limit of 0 s") as e:
            module.solve(n=10)
        assert e.value.kind == "limit" and "_Budget.seconds" in e.value.hint
        monkeypatch.setattr(module._Budget, "seconds", 60)
        assert int(module.solve(n=10).s) == 450


def test_generated_modules_refuse_what_is_not_a_number(modules):
    plain, vector = load(modules / "nested_sum_constant_inner.py"), load(modules / "nested_sum_constant_inner_np.py")
    for bad in ("10", True, [10]):
        with pytest.raises(plain.ChainError, match=r"^n = .* is not a number"):
            plain.solve(n=bad)
    for bad in ("10", ["10", 5], [True]):
        with pytest.raises(vector.ChainError, match=r"^n = .* is not a number or an array of numbers"):
            vector.solve(n=bad)


def test_the_workbook_nests_a_sum_that_does_not_read_the_outer_index(tmp_path, capsys):
    from chainc.cli import main

    assert main(["build", str(CORPUS / "nested-sum-constant-inner.yaml"), "--out", str(tmp_path), "--format", "xlsx"]) == 0
    require("soffice")
    from .excel_recalc import recalculate

    wb = openpyxl.load_workbook(tmp_path / "chains.xlsx")
    sheet = wb["nested-sum-constant-inner"]
    header = next(r for r in sheet.iter_rows() if r[0].value == "name")
    typed = next(r for r in sheet.iter_rows() if r[0].value == "n")
    column = next(i for i, c in enumerate(header) if c.value == "your value")
    typed[column].value = 1000  # a reader types another n into the yellow column
    wb.save(tmp_path / "typed.xlsx")
    (fresh,) = recalculate([tmp_path / "typed.xlsx"], tmp_path / "out")
    values = [c.value for row in openpyxl.load_workbook(fresh, data_only=True)["nested-sum-constant-inner"].iter_rows() for c in row]
    assert 499_500_000 in values and 45 * 1000 not in values


def typed_and_recalculated(tmp_path, path: Path, sheet: str, typed: dict) -> dict[str, list]:
    """Build the workbook, type these inputs into the yellow column, recalculate in LibreOffice and Gnumeric:
    each engine's row of values by name."""
    from chainc.cli import main

    from .excel_recalc import recalculate
    from .gnumeric_recalc import recalculate_gnumeric

    assert main(["build", str(path), "--out", str(tmp_path), "--format", "xlsx"]) == 0
    require("soffice", "ssconvert")
    wb = openpyxl.load_workbook(tmp_path / "chains.xlsx")
    header = next(r for r in wb[sheet].iter_rows() if r[0].value == "name")
    column = next(i for i, c in enumerate(header) if c.value == "your value")
    for row in wb[sheet].iter_rows():
        if row[0].value in typed:
            row[column].value = typed[row[0].value]
    wb.save(tmp_path / "typed.xlsx")
    engines = {"LibreOffice": recalculate, "Gnumeric": recalculate_gnumeric}
    out = {}
    for engine, recalc in engines.items():
        (fresh,) = recalc([tmp_path / "typed.xlsx"], tmp_path / engine)
        rows: dict = {}
        for r in openpyxl.load_workbook(fresh, data_only=True)[sheet].iter_rows():
            rows.setdefault(r[0].value, [c.value for c in r])  # the first row of a name: the inputs' and results' (probe rows come later)
        out[engine] = rows
    return out


@pytest.mark.slow
@pytest.mark.parametrize("n", [47, 12, 1])
def test_the_workbook_sums_inner_sums_that_read_the_outer_index_as_a_grid(tmp_path, n):
    """One row of terms per outer term (MMULT by ones sums the rows), live: the reader's n, recalculated by two engines."""
    for engine, rows in typed_and_recalculated(tmp_path, CORPUS / "nested-sum-dependent.yaml", "nested-sum-dependent", {"n": n}).items():
        for name, want in nested(n).items():
            if want == 0:  # s and u are declared positive: an empty sum is flagged, not shown as a number
                assert "#N/A" in rows[name] and any("outside its domain" in str(v) for v in rows[name]), (engine, name, rows[name])
            else:
                assert any(isinstance(v, (int, float)) and v == pytest.approx(want, rel=1e-12) for v in rows[name][1:2]), (engine, name, n, rows[name])


@pytest.mark.slow
@pytest.mark.parametrize("typed", [0, 2.5, "abc"])
def test_a_typed_input_the_solver_refuses_gets_the_solvers_words(capsys, tmp_path, typed):
    """0 is outside n's domain, 2.5 is not whole, "abc" is no number: the input's row says so as the solver does (it said
    "must be a whole number and is outside its domain ... or not a number" of all three, and showed 0 as 0.00E+00)."""
    path = CORPUS / "nested-sum-dependent.yaml"
    if isinstance(typed, str):
        want = f'given n = "{typed}" is not a number'
    else:
        code, out, err = run(capsys, "solve", path, "--no-cache", "--given", f"n={typed}")
        want = re.search(r"error: (given n = .*)$", err.splitlines()[0]).group(1)
        assert code == 2 and want in (f"given n = {typed} is outside its domain (positive integer)", f"given n = {typed} is not a whole number")
    for engine, rows in typed_and_recalculated(tmp_path, path, "nested-sum-dependent", {"n": typed}).items():
        assert rows["n"][1] == "#N/A" and any(str(v).startswith(want + ": type a") for v in rows["n"]), (engine, want, rows["n"])


def written_out(n: int) -> dict:
    """nested-grid-written-out.yaml by hand, with Python's loops and exact fractions."""
    return {
        "p": sum(math.prod(j + k + n for j in range(k)) for k in range(4)),
        "q": sum(sum(sum(i * j * n for i in range(j)) for j in range(k)) for k in range(6)),
        "r": math.prod(math.prod(1 + Fraction(j, k + n) for j in range(k)) for k in range(1, 5)),
    }


@pytest.mark.slow
@pytest.mark.parametrize("n", [5, 2, 13])
def test_the_workbook_writes_out_grids_it_cannot_hold_live(tmp_path, n):
    """A grid of a product, and a grid inside a grid, over constant outer bounds: live, typed n, two engines."""
    path = CORPUS / "nested-grid-written-out.yaml"
    assert {k: solve(str(path), given={"n": n}).values[k] for k in "pqr"} == written_out(n)
    for engine, rows in typed_and_recalculated(tmp_path, path, "nested-grid-written-out", {"n": n}).items():
        for name, want in written_out(n).items():
            assert rows[name][1] == pytest.approx(float(want), rel=1e-12), (engine, name, n, rows[name])


def test_a_written_out_sum_past_excels_formula_length_is_refused_located(capsys, tmp_path):
    path = tmp_path / "long.yaml"
    path.write_text(
        "name: long\ntitle: Long\nvariables:\n  n: {value: 5, integer: true}\n  s: {}\nequations:\n  - s = sum(sum(sum(i * j * n for i in range(j)) for j in range(k)) for k in range(40))\n"
    )
    code, out, err = run(capsys, "build", path, "--out", tmp_path / "out", "--format", "xlsx")
    assert_located_error(code, out, err, path, 7, 5, "characters (Excel's limit is 8,192)", "build another format")
    assert not list((tmp_path / "out").glob("*.xlsx"))


GRID_REFUSED = [
    ("prod(prod(1 + j / (k + 1) for j in range(k)) for k in range(n))", "a product whose terms read their own index and an enclosing sum's"),
    ("sum(sum(sum(i * j for i in range(j)) for j in range(k)) for k in range(n))", "a sum inside two enclosing sums whose terms read their own index"),
]


@pytest.mark.parametrize(("expression", "message"), GRID_REFUSED)
def test_the_workbook_refuses_a_grid_it_cannot_lay_out_located(capsys, tmp_path, expression, message):
    path = tmp_path / "grid.yaml"
    path.write_text(f"name: grid\ntitle: A grid\nvariables:\n  n: {{value: 5, integer: true}}\n  s: {{}}\nequations:\n  - s = {expression}\n")
    code, out, err = run(capsys, "build", path, "--out", tmp_path / "out", "--format", "xlsx")
    assert_located_error(code, out, err, path, 7, 5, message, "build another format")
    assert not list((tmp_path / "out").glob("*.xlsx"))
    assert run(capsys, "build", path, "--out", tmp_path / "py", "--format", "py")[0] == 0  # the other backends print it
