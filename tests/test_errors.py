"""The error corpus: every mistake a person can make gets `path:line:col: error: message`, a hint, exit 2.

Each bad model lives in tests/corpus/ (its first line says what is wrong with it) and
runs through `compiler.cli.main`, exactly as the `chainc` console script would. An
error must never come out as a Python traceback: a crash inside `main` fails the test
with the traceback attached.
"""

from __future__ import annotations

import os
import re
import traceback
from pathlib import Path

import pytest

from chainc.cli import main

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
CORPUS = TESTS / "corpus"
PWNED = Path("/tmp/chainc-pwned")
PWNED2 = Path("/tmp/chainc-pwned2")


@pytest.fixture(autouse=True)
def _in_project(monkeypatch):
    """Run from the project root, so `goodput` means models/goodput.yaml and paths print relative."""
    monkeypatch.delenv("CHAINC_ROOT", raising=False)
    monkeypatch.chdir(ROOT)


def shown(path: Path | str) -> str:
    """How chainc prints a path: relative to the working folder (ROOT) when inside it."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(ROOT))
    except ValueError:
        return str(p)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """main(argv) -> (exit code, stdout, stderr); an escaping exception is a failed test."""
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:  # argparse
        code = e.code
    except Exception as e:  # noqa: BLE001 - the console script would print this as a traceback
        pytest.fail(
            f"chainc {' '.join(map(str, argv))} crashed with {type(e).__name__}: {e}\n"
            f"expected a located chainc error and exit code 2, got this traceback (last lines):\n" + "\n".join(traceback.format_exc().splitlines()[-12:]),
            pytrace=False,
        )
    out, err = capsys.readouterr()
    return code, out, err


def assert_no_traceback(out: str, err: str) -> None:
    assert "Traceback" not in out + err, f"a Python traceback reached the user:\n{err}"


def assert_located_error(code, out, err, path, line, col, message, hint="") -> str:
    """Exit 2; stderr is `path:line:col: error: message`, the source line, a caret, `hint: ...`."""
    assert_no_traceback(out, err)
    assert code == 2, f"exit code {code}, expected 2\nstdout:\n{out}\nstderr:\n{err}"
    lines = err.splitlines()
    assert lines, "nothing on stderr"
    col_re = str(col) if col else r"\d+"
    head = re.match(rf"{re.escape(shown(path))}:(\d+):({col_re}): error: (.*)$", lines[0])
    assert head, f"stderr does not start with '{shown(path)}:{line}:{col or '<col>'}: error:'\n{err}"
    assert int(head.group(1)) == line, f"error reported at line {head.group(1)}, expected line {line}\n{err}"
    assert message in head.group(3), f"message lacks {message!r}\n{err}"
    source = Path(path).read_text(encoding="utf-8").splitlines()
    if source:  # the offending line, then a caret under the column
        assert lines[1] == "    " + source[line - 1], f"second line is not source line {line}\n{err}"
        assert lines[2] == "    " + " " * (int(head.group(2)) - 1) + "^", f"caret not under column {head.group(2)}\n{err}"
    hints = [ln for ln in lines if ln.startswith("hint: ")]
    assert hints and len(hints[0]) > len("hint: "), f"no hint line\n{err}"
    assert hint in hints[0], f"hint lacks {hint!r}\n{err}"
    # `check` goes on past a broken model, and ends with its tally on stdout; `build` reports its progress there
    progress = all(re.match(r"(evaluated \d+ models? |[a-z]+:$|  \S)", ln) for ln in out.splitlines())
    assert out == "" or progress or re.fullmatch(r"\d+ passed, \d+ failed, 1 model with errors\n", out), f"unexpected output on stdout:\n{out}"
    return head.group(3)


# (corpus file, line, column or None, substring of the message, substring of the hint)
LOAD_ERRORS = [
    ("join-unknown-input.yaml", 8, 13, "model 'goodput' has no variable 'batchx' to bind", "its inputs: weight_bytes"),
    ("join-computed.yaml", 8, 13, "'tpot' is computed by model 'goodput', not one of its inputs", "read a result as decode.tpot"),
    ("join-outside.yaml", 6, 12, "is outside the project", "stays inside the project's folders"),
    ("join-nul-path.yaml", 6, 12, "'sub/other.yaml\\x00' is no path a model file can have (embedded null byte)", "a .yaml file inside the project"),
    ("join-self.yaml", 6, 9, "models import each other in a loop: join-self -> join-self", "only one way round"),
    ("join-spelling.yaml", 16, 27, "'decode_tpot' is the joined variable decode.tpot", "write decode.tpot, as expressions name it"),
    ("join-unit.yaml", 8, 47, "decode.context is bound to 'n', which is time, but decode.context is token", "write it in token"),
    ("yaml-syntax.yaml", 6, 10, "expected ',' or '}'", "YAML syntax"),
    ("yaml-tag.yaml", 3, 8, "YAML tag refused", "remove the '!!' tag"),
    ("duplicate-key.yaml", 8, 3, "duplicate key 'a'", "once"),
    ("unknown-top-key.yaml", 12, 1, "unknown key 'question'", "questions"),
    ("unknown-name-close.yaml", 13, 26, "unknown name 'tpto'", "did you mean tpot?"),
    ("unknown-name-far.yaml", 11, 13, "unknown name 'zebra'", "declare it under variables"),
    ("unknown-function.yaml", 11, 13, "unknown function 'round'", "functions: min, max"),
    ("import-call.yaml", 11, 9, "only the built-in functions can be called", "functions:"),
    ("dunder-attribute.yaml", 9, 9, "attribute access is not allowed", "gpu.memory_bandwidth"),
    ("lambda.yaml", 9, 10, "a lambda is not allowed", "functions"),
    ("subscript.yaml", 9, 9, "subscripts are not allowed", "50[GB/s]"),
    ("string-literal.yaml", 9, 13, "str literals are not allowed", "2[GB]"),
    ("caret-power.yaml", 9, 11, "'^' is not a power", "x**2"),
    ("no-equals.yaml", 9, 5, "found no '='", "left side = right side"),
    ("two-equals.yaml", 9, 11, "found 2 '=' signs", "left side = right side"),
    ("unit-mismatch-equation.yaml", 11, 5, "left is time/token, right is time", "1[token]"),
    ("unit-mismatch-add.yaml", 14, 21, "cannot add information and token", "same dimension"),  # at the '+'
    ("unknown-unit-literal.yaml", 11, 15, "'parsecs' is not a unit", "pint"),
    ("bad-variable-unit.yaml", 9, 11, "'furlongs/fortnight' is not a unit", "GB"),
    ("default-wrong-dimension.yaml", 7, 12, "'10 ms' is time, but GB is information", "write the value in GB"),
    ("llm-unknown-field.yaml", 9, 12, "LLMs have no value 'foo'", "weight_bytes"),
    ("unknown-gpu.yaml", 5, 8, "unknown GPU 'h100-sxn'", "did you mean h100-sxm?"),
    ("gpu-not-used.yaml", 8, 13, "'gpu.memory_bandwidth' needs a GPU, and this model uses none", "uses: {gpu: <id>}"),
    ("table-loop.yaml", 13, 7, "columns depend on each other in a loop", "prev.<column>"),
    ("ceil-dimensioned.yaml", 10, 19, "ceil() needs a dimensionless argument, not token", "ceil(x / 1[token])"),
    ("mod-dimensions.yaml", 9, 12, "mod of information by token", "both sides of % need the same dimension"),
    ("mod-by-zero.yaml", 8, 23, "a remainder by zero", "a remainder by 0 has no value"),
    ("set-empty-range.yaml", 5, 31, "values of tp: the set is empty", "check that from is at most to"),
    ("set-outside-domain.yaml", 7, 20, "values of tp: 2.5 is outside the variable's domain (positive integer)", "change domain: or integer:"),
    ("set-unit.yaml", 7, 21, "values of block: '32 GB' is information, but token is token", "write the value in token"),
    ("set-bad-step.yaml", 5, 55, "step of tp: 'x1' is not a factor above 1", "write x2 for doubling"),
    ("set-with-min.yaml", 5, 42, "tp has values: and min:, but a set has its own ends", "drop min:"),
    ("lookup-unknown-default.yaml", 7, 42, "default of kv_dtype: 'fp9' is not one of kv_dtype's choices (bf16, fp8)", "did you mean fp8?"),
    ("lookup-missing-key.yaml", 10, 12, "dtype_bits[kv_dtype]: kv_dtype may be 'fp4', which dtype_bits has no value for", "(dtype_bits has bf16, fp8)"),
    ("lookup-unknown-table.yaml", 10, 12, "unknown lookup 'dtype_bit'", "did you mean dtype_bits?"),
    ("lookup-plain-key.yaml", 10, 12, "dtype_bits[width]: the key 'width' is a variable without choices:", "an input that has choices"),
    ("lookup-wrong-unit.yaml", 5, 51, "dtype_bits[fp8]: '8 s' is time, but bit is information", "write the value in bit"),
    ("lookup-dimension.yaml", 10, 5, "the sides of 'seconds = dtype_bits[kv_dtype]' differ: left is time, right is information", "a unit literal"),
    ("choice-question.yaml", 12, 18, "question widest: kv_dtype is a choice among names, which has no largest or smallest", "find a number"),
    ("lookup-name-taken.yaml", 5, 3, "lookup name 'bits' is taken by a variable", "lookups and variables need distinct names"),
    ("choices-with-unit.yaml", 5, 36, "kv_dtype has choices: and unit:, but a choice is one of its names", "drop unit:"),
    ("valid-when-value.yaml", 9, 17, "valid_when: 'load - 1' is a value, not a condition", "write a comparison"),
    ("valid-when-unknown.yaml", 9, 17, "unknown name 'lod'", "did you mean load?"),
    ("limit-not-comparison.yaml", 10, 9, "limit fits: 'used - memory' is a value, not a comparison", "write one comparison"),
    ("limit-chained.yaml", 11, 11, "limit fits: '0[GB] <= used <= memory' makes several comparisons", "one limit for each comparison"),
    ("limit-equality.yaml", 10, 16, "limit fits: 'used == memory' is an equality, not a bound", "write <, <=, > or >="),
    ("limit-unknown.yaml", 10, 9, "unknown name 'usd'", "did you mean used?"),
    ("limit-units.yaml", 11, 9, "cannot compare information with time", "same dimension"),
    ("limit-no-that.yaml", 10, 9, "limits.fits: 'that' is a required property", ""),
    ("limit-constant.yaml", 10, 9, "limit fits: '1[GB] <= 2[GB]' reads no value of the model", "compare a computed value"),
    ("floor-division.yaml", 9, 11, "operator // is not allowed", "a whole quotient is floor(a / b)"),
    ("if-branch-dimensions.yaml", 14, 11, "if() branches differ: time and token", "same dimension"),
    ("reserved-name.yaml", 7, 3, "'max' is a reserved word", "another name"),
    ("condition-as-number.yaml", 9, 14, "a condition cannot be used as a number", "if(cond, a, b)"),
    ("empty.yaml", 1, 1, "the file is empty", "YAML mapping"),
    # finite sums and products
    ("sum-range-step.yaml", 8, 24, "sum() runs over range(lo, hi)", "factorial(k) for k in range(0, n)"),
    ("sum-unknown-name.yaml", 8, 17, "unknown name 'zebra'", "declare it under variables"),
    ("sum-index-hides.yaml", 8, 19, "the index 'n' hides the name 'n' of this model", "such as k"),
    ("sum-bound-unit.yaml", 8, 30, "the bounds of a sum are whole numbers, not time", "divide by a unit first"),
    ("sum-index-outside.yaml", 8, 36, "unknown name 'k'", "declare it under variables"),
    ("sum-filter.yaml", 8, 36, "sum() takes no 'if' filter", "sum(if(k > 1, k, 0) for k in range(n))"),
    ("prod-dimension.yaml", 8, 14, "a product's terms must be dimensionless, not time", "divide each term by its unit"),
    ("sum-if-escapes.yaml", 7, 10, "an if() on the index 'a' of an inner sum, in another sum's bounds or terms, moves out of its sum", "min() or max() instead of if()"),
    # searches over configurations, objectives and frontiers
    ("search-empty-set.yaml", 15, 21, "values of tp in over: the set is empty", "list at least one value"),
    ("search-find-unbounded.yaml", 15, 16, "question best: x has no set of values and no bounds to search between", "give x values: [...] or min: and max:"),
    ("search-not-objective.yaml", 15, 36, "question best: 'min' is not an objective", "write max or min and a variable the model computes"),
    ("search-objective-input.yaml", 15, 36, "question best: price is an input that no configuration changes", "seek a result the model computes"),
    ("search-objective-unknown.yaml", 15, 36, "unknown variable 'tpto'", "did you mean tpot?"),
    ("search-over-computed.yaml", 15, 17, "question best: tpot is computed by the model, so a search cannot set it", "vary an input it is computed from"),
    ("search-too-many.yaml", 15, 16, "question best: 2,000,000 configurations are more than the configurations limit of 1,000,000", "CHAINC_MAX_CONFIGURATIONS"),
    ("search-unknown-gpu.yaml", 15, 23, "unknown GPU 'h100-sxn'", "did you mean h100-sxm?"),
    ("search-unknown-variable.yaml", 15, 17, "unknown variable 'tpp'", "did you mean tp?"),
    ("search-value-outside.yaml", 15, 25, "values of tp in over: 3 is outside the variable's domain (positive integer, one of 1, 2, 4, 8)", "leave it out"),
    ("search-with-unknown-question.yaml", 15, 40, "question best: unknown question 'fastest'", "questions: none"),
    # several conditions
    ("condition-deep.yaml", 10, 28, "expression nested too deeply", "an expression is like"),
    ("condition-always-true.yaml", 13, 16, "y >= -1[s] is always true, whatever the values", "holds for some values and fails for others"),
    # Python constructs the whitelist does not name: these must be model errors too, not crashes
    ("compare-is.yaml", 9, None, "", ""),
    ("compare-in.yaml", 9, None, "", ""),
    ("hex-literal.yaml", 9, None, "", ""),
    ("compare-division-by-zero.yaml", 9, None, "", ""),
    ("min-division-by-zero.yaml", 9, None, "", ""),
]

# Structure is only known once a query is planned: `chainc solve`.
SOLVE_ERRORS = [
    ("under-determined.yaml", 10, 3, "under-determined: cannot determine lonely", "give a value to lonely"),
    ("over-determined.yaml", 11, 5, "over-determined: 2 equations for 1 unknown", "drop an equation"),
    ("sum-fraction-bound.yaml", 8, 5, "the upper bound of a sum is 1.5, not a whole number", "wrap the bound in ceil() or floor()"),
]


def test_corpus_is_complete():
    """Every corpus file is in a table, and every table entry exists."""
    listed = {c[0] for c in LOAD_ERRORS + SOLVE_ERRORS} | {"check-off.yaml"}
    present = {p.name for p in CORPUS.glob("*.yaml")}
    assert listed == present


@pytest.mark.parametrize("command", ["solve", "check"])
@pytest.mark.parametrize(("name", "line", "col", "message", "hint"), LOAD_ERRORS, ids=[c[0].removesuffix(".yaml") for c in LOAD_ERRORS])
def test_load_error(capsys, command, name, line, col, message, hint):
    path = CORPUS / name
    code, out, err = run(capsys, command, path)
    assert_located_error(code, out, err, path, line, col, message, hint)


@pytest.mark.parametrize(("name", "line", "col", "message", "hint"), SOLVE_ERRORS, ids=[c[0].removesuffix(".yaml") for c in SOLVE_ERRORS])
def test_structure_error(capsys, name, line, col, message, hint):
    path = CORPUS / name
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, line, col, message, hint)


def test_under_determined_names_only_the_stuck_variable(capsys):
    path = CORPUS / "under-determined.yaml"
    code, out, err = run(capsys, "solve", path)
    message = assert_located_error(code, out, err, path, 10, 3, "under-determined")
    assert "lonely" in message and "cannot determine lonely (" in message  # not a, not b


def test_over_determined_lists_both_equations(capsys):
    path = CORPUS / "over-determined.yaml"
    code, out, err = run(capsys, "solve", path)
    message = assert_located_error(code, out, err, path, 11, 5, "over-determined")
    assert "line 11: b = 2 * a" in message and "line 12: b = 3 * a" in message


# --- nothing runs ---------------------------------------------------------------------------------


@pytest.fixture
def no_pwned():
    for p in (PWNED, PWNED2):
        p.unlink(missing_ok=True)
    yield
    created = [str(p) for p in (PWNED, PWNED2) if p.exists()]
    for p in (PWNED, PWNED2):
        p.unlink(missing_ok=True)
    assert not created, f"a model file ran a shell command: {created} was created"


@pytest.mark.parametrize("command", ["solve", "check"])
def test_yaml_python_tag_is_refused_not_run(capsys, no_pwned, command):
    path = CORPUS / "yaml-tag.yaml"
    code, out, err = run(capsys, command, path)
    assert_located_error(code, out, err, path, 3, 8, "YAML tag refused", "'!!' tag")
    assert not PWNED.exists()


@pytest.mark.parametrize(
    "tag",
    [
        '!!python/object/apply:os.system ["touch /tmp/chainc-pwned"]',
        '!!python/object/new:os.system ["touch /tmp/chainc-pwned"]',
        "!!python/name:os.system",
        "!!python/module:os",
        '!custom "touch /tmp/chainc-pwned"',
    ],
)
def test_any_tag_is_refused(capsys, tmp_path, no_pwned, tag):
    path = tmp_path / "tagged.yaml"
    path.write_text(f"name: tagged\ntitle: Tagged\nvariables:\n  a:\n    unit: {tag}\nequations:\n  - a = 1[s]\n")
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, 5, 11, "YAML tag refused", "'!!' tag")


def test_import_in_an_equation_is_refused_not_run(capsys, no_pwned):
    path = CORPUS / "import-call.yaml"
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, 11, 9, "only the built-in functions can be called")
    assert not PWNED2.exists()


@pytest.mark.parametrize(
    "equation",
    [
        "x = __import__('os').system('touch /tmp/chainc-pwned2')",
        "x = a.__class__.__mro__",
        "x = __builtins__",
        "x = [c for c in ().__class__.__bases__]",
        "x = eval('1')",
        "x = open('/tmp/chainc-pwned2', 'w')",
        "x = (lambda: 1)()",
        "x = a if a else a",
        "x = f'{a}'",
        "x = {a}",
    ],
)
def test_python_escapes_are_refused(capsys, tmp_path, no_pwned, equation):
    path = tmp_path / "escape.yaml"
    path.write_text(f'name: escape\ntitle: Escape\nvariables:\n  a:\n    value: 1\n  x: {{}}\nequations:\n  - "{equation}"\n')
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, 8, None, "")


@pytest.mark.parametrize(
    ("equation", "col", "message"),
    [
        ("x = min(a)", 9, "min() takes at least 2 arguments, got 1"),
        ("x = if(a, a, a)", 12, "expected a condition"),
        ("x = 1e999 * a", 9, "number 1e999 is out of range"),
        ("x = ~a", 9, "is not allowed"),
    ],
)
def test_expression_errors_come_with_a_hint(capsys, tmp_path, equation, col, message):
    """errors.py promises a hint with every error; these expression errors carry an empty one."""
    path = tmp_path / "hintless.yaml"
    path.write_text(f"name: hintless\ntitle: Hints\nvariables:\n  a:\n    value: 1\n  x: {{}}\nequations:\n  - {equation}\n")
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, 8, col, message)


def test_deeply_nested_expression_is_an_error_or_fine(capsys, tmp_path):
    """600 unary minuses (1,200 characters, well under the 4,000-character limit) must not crash."""
    path = tmp_path / "deep.yaml"
    path.write_text(f"name: deep\ntitle: Deep\nvariables:\n  a:\n    value: 1\n  x: {{}}\nequations:\n  - x = {'-' * 600}a\n")
    code, out, err = run(capsys, "solve", path)
    assert_no_traceback(out, err)
    if code != 0:
        assert_located_error(code, out, err, path, 8, None, "")


# --- the command line -----------------------------------------------------------------------------


def line_of(path: Path, text: str) -> int:
    """1-based number of the first line of `path` containing `text`."""
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if text in line:
            return n
    raise AssertionError(f"{text!r} not in {path}")


GOODPUT = ROOT / "models" / "goodput.yaml"


def test_cli_over_determined_given_without_find(capsys):
    code, out, err = run(capsys, "solve", "goodput", "--given", "tpot=10ms")
    line = line_of(GOODPUT, "- step_bytes =")
    assert_located_error(code, out, err, GOODPUT, line, None, "over-determined", "--find")
    assert "tpot is given but computed" in err


def test_cli_infeasible_question(capsys):
    code, out, err = run(capsys, "solve", "goodput", "--question", "max_batch", "--llm", "llama-3.3-70b")
    line = line_of(GOODPUT, "max_batch:")
    message = assert_located_error(code, out, err, GOODPUT, line, None, "no batch meets", "Llama 3.3 70B")
    m = re.search(r"tpot = ([\d.]+) ms/token", message)
    assert m, f"no TPOT in {message!r}"
    assert 41 < float(m.group(1)) < 44  # 70B BF16 weights alone stream in ~42 ms on an H100's 3.35 TB/s


def assert_argument_error(code, out, err, message, hint=""):
    """Errors about the command line have no file location: 'error: ...' and a hint."""
    assert_no_traceback(out, err)
    assert code == 2, f"exit code {code}, expected 2\n{err}"
    lines = err.splitlines()
    assert lines and re.match(r"^(\S+: )?error: ", lines[0]), err
    assert message in lines[0], f"message lacks {message!r}\n{err}"
    hints = [ln for ln in lines if ln.startswith("hint: ")]
    assert hints and hint in hints[0], f"no hint with {hint!r}\n{err}"
    assert out == ""


def test_cli_unknown_model(capsys):
    code, out, err = run(capsys, "solve", "no-such-model")
    assert_argument_error(code, out, err, "no model 'no-such-model'", "goodput")


@pytest.mark.parametrize(
    ("args", "message", "hint"),
    [
        (["--given", "nosuch=1"], "has no variable 'nosuch'", "batch"),
        (["--given", "tpto=10ms"], "has no variable 'tpto'", "did you mean tpot"),
        (["--given", "batch=10GB"], "batch=10GB: that is information, but batch is dimensionless", "batch=1"),
        (["--given", "tpot=10GB"], "that is information, but tpot is time/token", "tpot=1 ms/token"),
        (["--given", "tpot=10 parsecs"], "is not a unit", "tpot="),
        (["--given", "batch"], "expected NAME=QUANTITY", "--given"),
        (["--find", "nosuch"], "has no variable 'nosuch'", ""),
        (["--gpu", "h100-sxn"], "unknown GPU 'h100-sxn'", "did you mean h100-sxm?"),
        (["--question", "nope"], "has no question 'nope'", "max_batch"),
        (["--question", "max_batch", "--find", "batch"], "do not go together", ""),
    ],
)
def test_cli_argument_errors(capsys, args, message, hint):
    code, out, err = run(capsys, "solve", "goodput", *args)
    assert_argument_error(code, out, err, message, hint)


def test_cli_giving_the_questions_answer(capsys):
    """errors.py: every error carries a hint; this one has an empty one."""
    code, out, err = run(capsys, "solve", "goodput", "--question", "max_batch", "--given", "batch=3")
    assert_argument_error(code, out, err, "batch is what question 'max_batch' finds")


# --- check: a wrong number is a failed check (exit 1), not a model error (exit 2) -------------------


def test_check_with_wrong_expectation_exits_1(capsys):
    path = CORPUS / "check-off.yaml"
    code, out, err = run(capsys, "check", path)
    assert_no_traceback(out, err)
    assert code == 1, f"exit code {code}, expected 1 (a failed check)\n{out}\n{err}"
    assert err == ""
    assert "FAIL" in out and "check-off: 0/1 checks" in out
    assert "b = 4 s (expected 5 s)" in out
    assert f"{shown(path)}:13:" in out  # where the failing check is
    assert "0 passed, 1 failed" in out


def test_solving_the_model_of_the_failed_check_works(capsys):
    code, out, err = run(capsys, "solve", CORPUS / "check-off.yaml")
    assert code == 0 and err == "", err


# --- build: no output at all on error ---------------------------------------------------------------


def files_in(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")) if folder.exists() else []


@pytest.mark.parametrize("name", ["unit-mismatch-equation.yaml", "yaml-tag.yaml", "under-determined.yaml", "import-call.yaml"])
def test_build_of_a_bad_model_writes_nothing(capsys, tmp_path, no_pwned, name):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "build", CORPUS / name, "--out", out_dir)
    assert_no_traceback(out, err)
    assert code == 2, err
    assert err.startswith(f"{shown(CORPUS / name)}:"), err
    assert files_in(out_dir) == []


@pytest.mark.parametrize("formats", [[], ["--format", "json"]], ids=["all-formats", "json"])
def test_build_with_one_bad_model_among_good_ones_writes_nothing(capsys, tmp_path, formats):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    code, out, err = run(capsys, "build", "littles-law", CORPUS / "over-determined.yaml", "--out", out_dir, *formats)
    assert_no_traceback(out, err)
    assert code == 2, err
    assert "over-determined" in err
    assert files_in(out_dir) == []


def test_build_with_a_failing_check_writes_nothing(capsys, tmp_path):
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "build", CORPUS / "check-off.yaml", "--out", out_dir)
    assert_no_traceback(out, err)
    assert code == 1, f"a failed check exits 1, as in `chainc check`; got {code}\n{err}"
    assert err.startswith(f"{shown(CORPUS / 'check-off.yaml')}:13:"), err
    assert "check" in err and "failed" in err and "expected 5 s" in err
    assert files_in(out_dir) == []


def test_build_of_a_good_model_writes_its_file(capsys, tmp_path):
    """The counterpart of the tests above: the same command does write when all is well."""
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "build", "littles-law", "--out", out_dir, "--format", "json")
    assert code == 0, err
    assert files_in(out_dir) == ["littles-law.json"]
    assert os.path.getsize(out_dir / "littles-law.json") > 0
