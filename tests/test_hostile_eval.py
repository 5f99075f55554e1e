"""Hostile and broken input where models are evaluated and compiled (issue 9).

Never a silent wrong number, never a traceback, never a partial output: each model in
tests/corpus/eval/ (its first line says what it does) either is a located error
(`path:line:col: error: ...`, the source line, a caret, a hint, exit 2) or has a right
answer, asserted exactly. Everything runs through `compiler.cli.main` as the console
script would, with the helpers of tests/test_errors.py; the backends are checked with
the real tools (import the generated module, pdflatex, matplotlib).
"""

from __future__ import annotations

import ast
import builtins
import json
import math
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp

from chainc import Project, ask, solve
from chainc.backends.python import module_name
from chainc.backends.python.names import BODY_NAMES as BODY_BUILTINS
from chainc.backends.python.runtime import known as HELPERS
from chainc.errors import ArgumentError
from chainc.format import fmt
from chainc.limits import MAX_EXACT_DIGITS, Limit, value
from tests.test_errors import _in_project, assert_argument_error, assert_located_error, assert_no_traceback, files_in, run, shown  # noqa: F401 (_in_project: autouse)
from tests.test_python_backend import load
from tests.tools import assert_ruff_clean, require

ROOT = Path(__file__).resolve().parent.parent
EVAL = ROOT / "tests" / "corpus" / "eval"
HINT_VALUE = "log() and sqrt() need arguments above zero"
HINT_LIMIT = "set the environment variable CHAINC_MAX_EXACT_DIGITS to a larger number of digits (now 10,000)"

# (corpus file, command, line, column, substring of the message, substring of the hint)
ERRORS = [
    # 1. complex, infinite and cancelled divisions: located, with the values involved
    ("log-negative.yaml", "solve", 10, 5, "log(-2) has no real value, in line 10: b = log(-a) (a = 2)", HINT_VALUE),
    ("sqrt-negative.yaml", "solve", 10, 5, "sqrt(-1) has no real value, in line 10: b = sqrt(a - 3) (a = 2)", HINT_VALUE),
    ("abs-sqrt-negative.yaml", "solve", 10, 5, "sqrt(-4) has no real value, in line 10: b = abs(sqrt(a)) (a = -4)", HINT_VALUE),
    ("infinite-value.yaml", "solve", 10, 5, "division by zero in line 10: b = 2 * c ** -1 (c = 0)", "the divisor c is 0 here"),
    ("cancelled-division.yaml", "solve", 11, 5, "division by zero in line 11: b = a / a (a = 0)", "the divisor a is 0 here"),
    ("division-by-zero.yaml", "solve", 10, 5, "division by zero in line 10: b = 3 / (a - 2) (a = 2)", "the divisor a - 2 is 0 here"),
    ("cancelled-column.yaml", "solve", 13, 7, "division by zero in table 'steps', row 1: share = i * width / width (width = 0)", "the divisor width is 0 here"),
    ("question-division.yaml", "solve --question most", 14, 3, "division by zero in question most: y * c / c <= 5 (c = 0)", "the divisor c is 0 here"),
    # 3. time and memory bombs: refused before they are computed, with the limit and how to raise it
    ("power-bomb.yaml", "solve", 9, 5, "2 ** 1,000,000,000,000 would be about 10^(3.01e+11), beyond the 10,000 digits chainc computes with, in line 9: b = 2 ** a", HINT_LIMIT),
    ("power-bomb.yaml", "check", 9, 5, "in line 9: b = 2 ** a (a = 1,000,000,000,000)", "CHAINC_MAX_EXACT_DIGITS"),
    # 4. no value inside functions and comparisons
    ("floor-exp.yaml", "solve", 9, 5, "exp(100,000) would be about 1e43429, beyond the 10,000 digits chainc computes with, in line 9: b = floor(exp(a))", HINT_LIMIT),
    ("max-complex.yaml", "solve", 12, 5, "sqrt(-1) has no real value, in line 12: b = max(a, sqrt(c)) (a = 2, c = -1)", HINT_VALUE),
    ("max-infinite.yaml", "solve", 12, 5, "division by zero in line 12: b = max(a, 1 / c) (a = 2, c = 0)", "the divisor c is 0 here"),
    ("compare-complex.yaml", "solve", 10, 5, "log(-1) has no real value, in line 10: b = if(log(c) > 0, 1, 2) (c = -1)", HINT_VALUE),
    ("compare-nan.yaml", "solve", 10, 5, "division by zero in line 10: b = if(exp(c ** -1) > 1, 1, 2) (c = 0)", "the divisor c is 0 here"),
    ("question-infinite.yaml", "solve --question most", 14, 3, "division by zero in question most: y * c ** -1 <= 5 (c = 0", "the divisor c is 0 here"),
    ("log-zero.yaml", "solve", 10, 5, "log(0) has no real value, in line 10: b = if(c * log(c) > 0, 1, 2) (c = 0)", HINT_VALUE),
    ("check-nan.yaml", "check", 12, 5, "log(-2) has no real value, in check: log(d) > 0 (d = -2)", HINT_VALUE),
    # 2. a strict condition at an irrational boundary has no largest value, as at a rational one
    ("irrational-boundary.yaml", "solve --question largest_strict", 15, 3, "question largest_strict: no a meets b < 2: at a = 1.41421, b = 2 >= 2", "(searched every positive value)"),
    # 9. the question's variable is a table's row count, and no batch meets the target
    ("rows-question.yaml", "solve --question max_batch --given budget=5", 20, 3, "no batch meets total <= budget: at batch = 1, total = 10 > budget = 5", "(searched every positive whole number)"),
    # 8. two models, one Python module name: refused before anything is written
    ("b.mangle.yaml", "build {corpus}/b-mangle.yaml {path} --format py --out {out}", 2, 1, "both compile to the Python module b_mangle.py", "rename one of the models"),
]


def argv(name: str, command: str, out: Path) -> list[str]:
    """The command line: the model file after the command, or where {path} stands."""
    if "{path}" in command:
        return command.format(corpus=EVAL, out=out, path=EVAL / name).split()
    words = command.format(corpus=EVAL, out=out).split()
    return [words[0], str(EVAL / name), *words[1:]]


@pytest.mark.parametrize(("name", "command", "line", "col", "message", "hint"), ERRORS, ids=[f"{c[0].removesuffix('.yaml')}-{c[1].split()[0]}" for c in ERRORS])
def test_located_error(capsys, tmp_path, name, command, line, col, message, hint):
    out = tmp_path / "out"
    code, stdout, stderr = run(capsys, *argv(name, command, out))
    assert_located_error(code, stdout, stderr, EVAL / name, line, col, message, hint)
    assert files_in(out) == []


@pytest.mark.parametrize("fmt", ["json", "xlsx", "tex"])
@pytest.mark.parametrize("name", sorted({c[0] for c in ERRORS if c[1] in ("solve", "check")}))
def test_build_of_a_model_with_no_value_writes_nothing(capsys, tmp_path, name, fmt):
    """Each backend evaluates the model its own way (the workbook its checks, the sheet its derivation): all report the place."""
    out = tmp_path / "out"
    code, stdout, stderr = run(capsys, "build", EVAL / name, "--format", fmt, "--out", out)
    assert_no_traceback(stdout, stderr)
    assert code == 2 and stderr.startswith(f"{shown(EVAL / name)}:"), stderr
    assert files_in(out) == []


def test_corpus_is_used():
    """Every model in tests/corpus/eval/ is exercised by a test of this file."""
    text = Path(__file__).read_text(encoding="utf-8")
    unused = [p.name for p in EVAL.glob("*.yaml") if p.name not in text and f'"{p.stem}"' not in text]
    assert unused == []


# --- right answers, exactly ---------------------------------------------------------------------------


def values_of(out: str) -> dict[str, str]:
    """name -> shown value from `chainc solve`'s table."""
    found = {}
    for line in out.splitlines():
        m = re.match(r"^\s*(?:answer|given|input|numeric)?\s+([a-z_][a-z0-9_]*)\s+(\S+)", line)
        if m:
            found[m.group(1)] = m.group(2)
    return found


def test_a_division_in_a_branch_not_taken_is_no_error(capsys, project):
    code, out, err = run(capsys, "solve", EVAL / "untaken-branch.yaml")
    assert code == 0 and err == "", err
    shown = values_of(out)
    assert (shown["b"], shown["c"]) == ("0", "7")
    s = solve(project.model(str(EVAL / "untaken-branch.yaml")), project=project)
    assert s.values["b"] == 0 and s.values["c"] == 7


def test_irrational_boundary_is_the_answer(capsys, project):
    """sqrt(2), whichever way its 30th digit falls; the 30-digit value squared is 2.000...04 > 2."""
    code, out, err = run(capsys, "solve", EVAL / "irrational-boundary.yaml", "--question", "largest")
    assert code == 0, err
    assert "a = 1.41421; b <= 2 holds there" in out
    a = ask(project.model(str(EVAL / "irrational-boundary.yaml")), "largest", project=project)
    assert abs(a.base - sp.sqrt(2)).evalf(50) < sp.Float("1e-15")  # sqrt is a float in the solver: to its last bit


def test_irrational_boundary_rounded_to_a_step(project):
    a = ask(project.model(str(EVAL / "irrational-boundary.yaml")), "largest_half", project=project)
    assert a.base == 1 and isinstance(a.base, Fraction)


def test_stepped_answer_on_a_rounded_boundary_is_exact(capsys, project):
    """n <= root * root with root = sqrt(5): the largest n is 5 (it used to be 4, as root * root evaluates to 4.999...)."""
    code, out, err = run(capsys, "solve", EVAL / "rounded-step.yaml", "--question", "largest")
    assert code == 0, err
    assert "  n = 5 (floor of the boundary 5 to steps of 1)" in out
    assert ask(project.model(str(EVAL / "rounded-step.yaml")), "largest", project=project).value == 5


@pytest.mark.parametrize(("budget", "batch"), [(120, 4), (100, 4), (1000, 13), (10000, 44)])
def test_question_over_a_tables_row_count(capsys, project, budget, batch):
    """total = 10 + 20 + ... + 10 batch = 5 batch (batch + 1); the search used to try 3.5 rows and answer 'no largest batch'."""
    code, out, err = run(capsys, "solve", EVAL / "rows-question.yaml", "--question", "max_batch", "--given", f"budget={budget}")
    assert code == 0, err
    assert f"  batch = {batch} (" in out
    a = ask(project.model(str(EVAL / "rows-question.yaml")), "max_batch", {"budget": budget}, project=project)
    assert a.base == batch and 5 * batch * (batch + 1) <= budget < 5 * (batch + 1) * (batch + 2)


@pytest.mark.parametrize(("target", "prompt"), [(45, 2048), (25, 1024), (40, 2048), (30, 1536), (10, 512)])
def test_question_whose_boundary_is_a_jump(capsys, project, target, prompt):
    """ttft = ceil(prompt / 512 tokens) x 10 ms <= target: the search finds where ceil jumps (it used to say 'no largest prompt').

    At 40 ms the sides are equal from 1,536 to 2,048 tokens: the answer is where that stretch ends.
    """
    code, out, err = run(capsys, "solve", EVAL / "jump-question.yaml", "--question", "longest_whole", "--given", f"target={target}ms")
    assert code == 0, err
    # the boundary where the rule rounded it, else the search's own value (a jump's numeric root may lie elsewhere on the step)
    assert f"  prompt = {prompt:,} token (floor of the boundary" in out or f"  prompt = {prompt:,} token (found by searching its domain, in steps of 1)" in out
    a = ask(project.model(str(EVAL / "jump-question.yaml")), "longest_whole", {"target": f"{target}ms"}, project=project)
    assert a.base == prompt
    cont = ask(project.model(str(EVAL / "jump-question.yaml")), "longest", {"target": f"{target}ms"}, project=project)
    assert prompt * (1 - 1e-11) < cont.value <= prompt  # no step: the jump, a hair inside


def test_sheet_says_how_a_searched_boundary_was_found(capsys, tmp_path):
    code, out, err = run(capsys, "build", EVAL / "jump-question.yaml", "--format", "tex", "--out", tmp_path)
    assert code == 0, err
    tex = (tmp_path / "jump-question.tex").read_text()
    assert "No equation gives the boundary" in tex and "no boundary to solve for" not in tex


# --- values beyond float range --------------------------------------------------------------------------


def refuse(constant: str):
    raise AssertionError(f"{constant} is not JSON")


def test_values_beyond_float_range_print_from_the_exact_value(capsys):
    code, out, err = run(capsys, "solve", EVAL / "huge-value.yaml")
    assert code == 0, err
    shown = values_of(out)
    assert (shown["b"], shown["c"]) == ("1.970e+434", "5.076e-435")
    assert "inf" not in out
    code, out, err = run(capsys, "solve", EVAL / "huge-value.yaml", "--json")
    assert code == 0, err
    data = json.loads(out, parse_constant=refuse)
    assert data["values"]["b"]["value"] == "1.970071114017047e+434"  # exp(1000) = 1.9700711140170469938...e434
    assert data["values"]["c"]["value"] == "5.075958897549457e-435"
    assert data["values"]["a"]["value"] == 1000.0


def test_a_power_with_too_many_exact_digits_is_computed_to_30_digits(capsys):
    """(1 + 1e-9) ** 1e12 = exp(1e12 log(1 + 1e-9)) = exp(999.9999995) = 1.97007012898...e434."""
    code, out, err = run(capsys, "solve", EVAL / "long-power.yaml", "--json")
    assert code == 0, err
    b = json.loads(out, parse_constant=refuse)["values"]["b"]["value"]
    import mpmath

    with mpmath.workdps(40):  # not SymPy: it would rewrite exp(n log x) as x**n and compute it exactly
        expected = mpmath.exp(10**12 * mpmath.log1p(mpmath.mpf(10) ** -9))
        assert float(mpmath.mpf(b) / expected) == pytest.approx(1, rel=1e-14)


def test_json_build_of_values_beyond_float_range_is_valid(capsys, tmp_path):
    code, out, err = run(capsys, "build", EVAL / "huge-value.yaml", "--format", "json", "--out", tmp_path)
    assert code == 0, err
    data = json.loads((tmp_path / "huge-value.json").read_text(), parse_constant=refuse)
    assert data["values"]["b"]["value"].startswith("1.97007111401704")


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (sp.Integer(10) ** 400, "1.000e+400"),
        (-(sp.Integer(10) ** 400) * 3, "-3.000e+400"),
        (sp.Rational(1, 10**400), "1.000e-400"),
        (sp.Integer(99999) * sp.Integer(10) ** 396, "1.000e+401"),  # rounds up into the next decade
        (sp.Integer(2) ** 20000, "3.980e+6020"),  # more digits than Python prints (4,300)
        (sp.Float("1.5e-320", 30), "1.500e-320"),  # a subnormal double: still a float
        (sp.Rational(7975, 1000), "7.975"),
        (1e300, "1.000e+300"),
    ],
)
def test_fmt(x, text):
    assert fmt(x) == text


# --- the limit -------------------------------------------------------------------------------------------


def test_the_limit_is_a_registry_entry(monkeypatch):
    monkeypatch.delenv(MAX_EXACT_DIGITS.env, raising=False)
    assert isinstance(MAX_EXACT_DIGITS, Limit) and MAX_EXACT_DIGITS.env == "CHAINC_MAX_EXACT_DIGITS"
    assert value(MAX_EXACT_DIGITS) == MAX_EXACT_DIGITS.default == 10_000
    monkeypatch.setenv(MAX_EXACT_DIGITS.env, "50_000")
    assert value(MAX_EXACT_DIGITS) == 50_000
    with pytest.raises(AttributeError):
        MAX_EXACT_DIGITS.default = 5  # frozen
    monkeypatch.setenv(MAX_EXACT_DIGITS.env, "-3")
    with pytest.raises(ArgumentError, match="not a positive whole number"):
        value(MAX_EXACT_DIGITS)


def test_raising_the_limit_computes_the_value(capsys, monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_EXACT_DIGITS", "1000000")
    code, out, err = run(capsys, "solve", EVAL / "floor-exp.yaml")
    assert code == 0, err
    assert values_of(out)["b"] == "2.807e+43429"  # floor(exp(100000)), exactly: 43,430 digits


def test_lowering_the_limit_refuses_smaller_powers(capsys, monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_EXACT_DIGITS", "20")
    path = EVAL / "power-bomb.yaml"
    code, out, err = run(capsys, "solve", path, "--given", "a=100")
    assert_located_error(code, out, err, path, 9, 5, "2 ** 100 would be about 1e30, beyond the 20 digits", "(now 20)")
    monkeypatch.delenv("CHAINC_MAX_EXACT_DIGITS")
    code, out, err = run(capsys, "solve", path, "--given", "a=100")
    assert code == 0 and values_of(out)["b"] == "1.268e+30", err


def test_a_limit_that_is_not_a_number(capsys, monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_EXACT_DIGITS", "lots")
    code, out, err = run(capsys, "solve", EVAL / "power-bomb.yaml")
    assert_argument_error(code, out, err, "CHAINC_MAX_EXACT_DIGITS='lots' is not a positive whole number", "CHAINC_MAX_EXACT_DIGITS=<a whole number>")


# --- backends: the real tools -------------------------------------------------------------------------------


def test_mathtext_in_model_text_is_drawn_literally(capsys, tmp_path):
    for suffix in (".png", ".svg", ".pdf"):
        out = tmp_path / f"plot{suffix}"
        code, stdout, err = run(capsys, "plot", EVAL / "mathtext-about.yaml", "-o", out)
        assert code == 0, err
        assert out.stat().st_size > 1000


def test_mathtext_model_builds_its_pdf(capsys, tmp_path):
    require("pdflatex", "pdftotext")
    code, out, err = run(capsys, "build", EVAL / "mathtext-about.yaml", "--format", "pdf", "--out", tmp_path)
    assert code == 0, err
    assert (tmp_path / "figures" / "mathtext-about-over_tokens.pdf").is_file()
    text = subprocess.run(["pdftotext", str(tmp_path / "mathtext-about.pdf"), "-"], capture_output=True, text=True, check=True).stdout
    assert "Prices in $US" in text


def test_powers_of_printed_values_compile(capsys, tmp_path):
    """(1.000e-05)^2, (-3)^2, (2 ms)^2, (x*)^2, fractions and roots of such values: pdflatex accepts them all."""
    require("pdflatex", "pdftotext")
    code, out, err = run(capsys, "build", EVAL / "tex-powers.yaml", "--format", "pdf", "--out", tmp_path)
    assert code == 0, err
    tex = (tmp_path / "tex-powers.tex").read_text()
    assert r"\left(\num{1.000e-05}\right)^{2}" in tex
    assert r"\left(\num{-3}\right)^{2}" in tex
    assert r"\left(\qty{2}{\milli\second}\right)^{2}" in tex
    assert r"\left(x^{*}\right)^{2}" in tex
    assert r"\qty{4.000e-06}{\second\squared}" in tex  # a unit literal squared: s^2, not s^2.0 as text
    assert not re.search(r"\\(num|qty)\{[^}]*\}(\{[^}]*\})?\^", tex), "a printed value raised to a power without parentheses"
    text = subprocess.run(["pdftotext", str(tmp_path / "tex-powers.pdf"), "-"], capture_output=True, text=True, check=True).stdout
    assert "Powers of printed values" in text and "Step 7." in text


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """The Python modules of the backend cases, built once by `chainc build --format py --numpy`."""
    out = tmp_path_factory.mktemp("py")
    names = [
        "rows-question",
        "builtin-names",
        "irrational-boundary",
        "rounded-step",
        "dataclasses",
        "typing",
        "untaken-branch",
        "jump-question",
    ]
    from chainc.cli import main

    assert main(["build", *[str(EVAL / f"{n}.yaml") for n in names], "--format", "py", "--numpy", "--out", str(out)]) == 0
    # these divide by zero at their defaults, and a build evaluates each model first: build copies that default to 1
    copies = tmp_path_factory.mktemp("models")
    for name in ("cancelled-division", "cancelled-column", "question-division"):
        (copies / f"{name}.yaml").write_text((EVAL / f"{name}.yaml").read_text().replace("value: 0", "value: 1"))
        assert main(["build", str(copies / f"{name}.yaml"), "--format", "py", "--numpy", "--out", str(out)]) == 0
    return out


def test_one_column_table_module_runs(modules, project):
    """rows.append((cost)) was a number, not a one-element tuple: the module raised TypeError."""
    m = load(modules / "rows_question.py")
    s = m.solve(batch=3)
    assert s.steps == (m.StepsRow(cost=10), m.StepsRow(cost=20), m.StepsRow(cost=30)) and s.total == 60
    model = project.model(str(EVAL / "rows-question.yaml"))
    for budget in (120, 100, 1000, 10000):
        assert m.max_batch(budget=budget) == ask(model, "max_batch", {"budget": budget}, project=project).value
    npm = load(modules / "rows_question_np.py")
    assert list(npm.max_batch(budget=[120, 100, 1000, 10000])) == [4, 4, 13, 44]
    with pytest.raises(ValueError, match="no batch meets total <= budget"):
        m.max_batch(budget=5)


def test_questions_on_rounded_boundaries_agree_with_ask(modules, project):
    irr = load(modules / "irrational_boundary.py")
    assert irr.largest() == pytest.approx(math.sqrt(2), rel=1e-12) and irr.largest_half() == 1.0
    with pytest.raises(ValueError, match="no a meets b < 2"):
        irr.largest_strict()
    assert load(modules / "rounded_step.py").largest() == 5
    jump = load(modules / "jump_question.py")
    assert [jump.longest_whole(target=t) for t in (45, 25, 40, 30, 10)] == [2048, 1024, 2048, 1536, 512]
    assert load(modules / "jump_question_np.py").longest_whole(target=[45, 25, 40, 30, 10]).tolist() == [2048, 1024, 2048, 1536, 512]
    model = project.model(str(EVAL / "jump-question.yaml"))
    for t in (45, 40):
        assert jump.longest(target=t) == pytest.approx(float(ask(model, "longest", {"target": f"{t}ms"}, project=project).value / model.variables["prompt"].factor), rel=1e-12)


def test_modules_refuse_a_cancelled_division(modules):
    """The solver's check, in generated code: a / a compiles to 1, so the module checks a itself."""
    for name, call in [
        ("cancelled_division", lambda m: m.solve(a=0)),
        ("cancelled_division_np", lambda m: m.solve(a=[1, 0])),
        ("cancelled_column", lambda m: m.solve(width=0)),
        ("question_division", lambda m: m.most(c=0)),
        ("question_division_np", lambda m: m.most(c=[1, 0])),
    ]:
        with pytest.raises(ValueError, match="division by zero in "):
            call(load(modules / f"{name}.py"))
    assert load(modules / "cancelled_division.py").solve(a=2).b == 1
    assert load(modules / "cancelled_column.py").solve(width=2).total == 6
    assert load(modules / "question_division.py").most(c=1) == 2.5
    s = load(modules / "untaken_branch.py").solve()
    assert (s.b, s.c) == (0, 7)


def test_builtin_names_module_runs(modules, project):
    """A variable named round shadowed the round() a question returns with; a question named sorted is sorted_()."""
    m = load(modules / "builtin_names.py")
    s = m.solve(round_=3, float_=1.5)
    model = project.model(str(EVAL / "builtin-names.yaml"))
    ref = solve(model, project=project)
    assert s.len_ == float(ref.values["len"]) and s.dataclass == float(ref.values["dataclass"])
    assert m.sorted_() == ask(model, "sorted", project=project).value == 1
    assert m.sorted_(round_=1) == 5  # len = round * math * many <= 10
    assert load(modules / "builtin_names_np.py").sorted_(round_=[1, 3]).tolist() == [5, 1]
    assert_ruff_clean([modules / "builtin_names.py", modules / "builtin_names_np.py"])


def generated_builtins(path: Path) -> set[str]:
    """Builtins the generated functions of a module read (the copied helpers aside; annotations are never evaluated)."""
    used = set()
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, ast.FunctionDef) or node.name in HELPERS():
            continue
        bound, skip = set(), set()
        for f in ast.walk(node):
            if isinstance(f, ast.FunctionDef):
                args = [*f.args.posonlyargs, *f.args.args, *f.args.kwonlyargs]
                bound |= {a.arg for a in args}
                for ann in [a.annotation for a in args] + [f.returns]:
                    skip |= {id(n) for n in ast.walk(ann)} if ann is not None else set()
            elif isinstance(f, ast.Name) and isinstance(f.ctx, ast.Store):
                bound.add(f.id)
        for n in ast.walk(node):
            # lower case: the builtins a model's names could take (exceptions such as ValueError cannot name a variable)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id.islower() and n.id in dir(builtins) and n.id not in bound and id(n) not in skip:
                used.add(n.id)
    return used


def test_reserved_body_names_cover_what_generated_code_uses(modules, tmp_path):
    """Variables never take a name the generated bodies call: BODY_BUILTINS must list each one."""
    from chainc.cli import main

    assert main(["build", "--format", "py", "--numpy", "--out", str(tmp_path)]) == 0
    paths = list(tmp_path.glob("*.py")) + list(modules.glob("*.py"))
    used = set().union(*(generated_builtins(p) for p in paths))
    assert "float" in used and "range" in used  # the scan sees what it should
    assert used <= BODY_BUILTINS, used - BODY_BUILTINS


def test_standard_library_names_get_a_suffix(modules):
    """A model named dataclasses writes dataclasses_chain.py: with exports/ on sys.path, import dataclasses still finds Python's."""
    project = Project(ROOT)
    assert module_name(project.model(str(EVAL / "dataclasses.yaml"))) == "dataclasses_chain"
    assert (modules / "typing_chain.py").is_file() and not (modules / "typing.py").exists() and not (modules / "dataclasses.py").exists()
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]);"
        "import rows_question, dataclasses_chain, typing_chain, dataclasses, typing;"
        "assert not dataclasses.__file__.startswith(sys.argv[1]) and not typing.__file__.startswith(sys.argv[1]), dataclasses.__file__;"
        "assert typing_chain.solve().b == 4 and rows_question.max_batch() == 4"
    )
    r = subprocess.run([sys.executable, "-c", code, str(modules)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_naming_a_model_twice_builds_it_once(capsys, tmp_path):
    """The second copy used to crash the move into place (FileNotFoundError) after the first had been written."""
    path = EVAL / "huge-value.yaml"
    code, out, err = run(capsys, "build", path, path, "--format", "json,py", "--out", tmp_path)
    assert code == 0, err
    assert files_in(tmp_path) == ["huge-value.json", "huge_value.py"]
