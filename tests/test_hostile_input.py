"""Hostile and broken input: a located error with a hint (exit 2), or the right value, never a traceback.

The corpus is tests/corpus/input/ (each file's first line says what is wrong with it); files
whose bytes git would mangle (Latin-1, NULs, UTF-16) are written by the tests into tmp_path.
Each case runs through `chainc.cli.main` as the `chainc` console script would.
"""

from __future__ import annotations

import codecs
import time
from pathlib import Path

import pytest

from chainc.api import solve
from chainc.load import load_model
from tests.test_errors import ROOT, assert_argument_error, assert_located_error, assert_no_traceback, run, shown

INPUT = Path(__file__).resolve().parent / "corpus" / "input"


@pytest.fixture(autouse=True)
def _in_project(monkeypatch):
    """As in test_errors: run from the project root, with no limit raised from outside."""
    for var in ("CHAINC_ROOT", "CHAINC_MAX_YAML_BYTES", "CHAINC_MAX_YAML_NODES", "CHAINC_MAX_YAML_DEPTH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)


# (corpus file, line, column, substring of the message, substring of the hint)
CASES = [
    # 1. memory and time bombs
    ("billion-laughs.yaml", 13, 10, "aliases add more than 10,000 YAML values", "CHAINC_MAX_YAML_NODES="),
    ("alias-loop.yaml", 6, 6, "alias refers to a value that holds it", "defined earlier"),
    ("alias-depth.yaml", 105, 12, "nests more than 100 levels deep", "CHAINC_MAX_YAML_DEPTH="),
    ("deep-nesting.yaml", 6, 111, "nests more than 100 levels deep", "CHAINC_MAX_YAML_DEPTH="),
    ("duplicate-anchor.yaml", 6, 6, "found duplicate anchor 'x'", "defined once"),
    ("undefined-alias.yaml", 5, 6, "found undefined alias 'nothing'", "&name earlier"),
    ("two-documents.yaml", 7, 1, "more than one YAML document", "'---'"),
    # 2. text that is not text (the byte-level cases are generated below)
    ("surrogate-escape.yaml", 3, 9, "lone surrogate (U+D800)", "escaped pair"),
    ("surrogate-in-equation.yaml", 8, 6, "lone surrogate (U+DC80)", "escaped pair"),
    ("tag-binary.yaml", 5, 30, "YAML tag refused: !!binary", "remove the '!!' tag"),
    ("complex-key.yaml", 5, 5, "a mapping key must be plain text", "names"),
    # 3. keys YAML 1.1 reads as numbers or null: the text as written, then the usual name rules
    ("numeric-key.yaml", 6, 3, "'1' is not a valid name in variables", "lower case letters"),
    ("null-key.yaml", 6, 3, "'~' is not a valid name in variables", "lower case letters"),
    ("yes-as-key.yaml", 5, 17, "unknown key 'yes' in variables.a", "allowed keys"),
    # 4. numbers written oddly
    ("value-inf.yaml", 6, 12, "default of a: '.inf' is not a decimal number", "finite"),
    ("min-nan.yaml", 7, 10, "min of a: '.nan' is not a decimal number", "finite"),
    ("value-hex.yaml", 6, 12, "'0x10' is not a decimal number", "0x10 as 16"),
    ("value-sexagesimal.yaml", 6, 12, "'1:30' is not a decimal number", "1:30 as 90"),
    ("value-5000-digits.yaml", 6, 12, "a number of 5,000 characters is more than chainc reads (400)", "exponent"),
    ("quantity-5000-digits.yaml", 7, 13, "a number of 5,000 characters", "unit prefix"),
    ("value-huge-exponent.yaml", 6, 12, "number 1e99999999999 is out of range: exponents go up to 300", "unit prefix"),
    ("digits-too-big.yaml", 7, 13, "number 1e400 is out of range: exponents go up to 300", "unit prefix"),
    ("constant-product.yaml", 8, 9, "a constant in this expression has about 1,20", "limited to 400 digits"),
    ("float-nan-tag.yaml", 6, 12, "'.nan' is not a number", "decimal"),
    ("integer-yes.yaml", 7, 14, "expected true or false, got text", "yes, no, on and off are text"),
    ("tolerance-percent-sign.yaml", 11, 17, "tolerance '%' is not a percentage", "'0.1%'"),
    ("tolerance-negative.yaml", 11, 16, "tolerance '-1%' is negative", "without a sign"),
    ("sweep-from-inf.yaml", 12, 11, "sweeps.s.from: expected a number, got text", "'.inf' is text"),
    # 5. loader bugs on plausible input
    ("question-negative-step.yaml", 14, 11, "the step must be a positive number, not -1", "multiples of the step"),
    ("question-zero-step.yaml", 14, 11, "the step must be a positive number, not 0", "multiples of the step"),
    ("question-fractional-step.yaml", 14, 11, "batch is a whole number, so its step must be one too", "step: 1"),
    ("column-condition.yaml", 11, 21, "column t.c: the formula is a condition, not a number", "if(cond, a, b)"),
    ("rows-condition.yaml", 9, 11, "table 't': rows is a condition, not a count", "ceil("),
    ("default-condition.yaml", 6, 12, "default of a: '1 > 0' is a condition, not a value", "a quantity"),
    ("aggregate-in-column.yaml", 11, 21, "aggregates cannot be used inside a table", "scalar equation"),
    # errors that had no hint
    ("column-reserved.yaml", 11, 7, "'i' is a reserved word and cannot name a column", "another name"),
    ("column-wrong-unit.yaml", 11, 33, "column t.c: the formula is time, the unit token is token", "give the column"),
    ("default-wrong-reference.yaml", 8, 12, "'gpu.memory' is information, but ms is time", "write it in ms"),
    ("import-unknown-variable.yaml", 8, 12, "model 'littles-law' has no variable 'zzz'", "its variables: arrival_rate"),
    ("domain-unknown.yaml", 7, 13, "'negative' is not one of positive, nonnegative, real", "write one of"),
    # 6. raw text in names and ids
    ("lookalike-name.yaml", 8, 13, "name 'ａ' is not written in plain letters", "a-z"),
    ("name-trailing-newline.yaml", 6, 4, "'b\\n' is not a valid name in variables", "lower case letters"),
    ("name-too-long.yaml", 6, 3, "is longer than 100 characters", "shorter name"),
    ("gpu-id-too-long.yaml", 5, 8, "uses.gpu: 'xxxx", "shorter name"),
    ("unit-too-long.yaml", 6, 11, "units are at most 100 characters", "pint units"),
]


def test_corpus_is_complete():
    assert {c[0] for c in CASES} == {p.name for p in INPUT.glob("*.yaml")}


@pytest.mark.parametrize(("name", "line", "col", "message", "hint"), CASES, ids=[c[0].removesuffix(".yaml") for c in CASES])
def test_hostile_input(capsys, name, line, col, message, hint):
    path = INPUT / name
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, line, col, message, hint)


def test_billion_laughs_is_refused_quickly(capsys):
    start = time.perf_counter()
    code, out, err = run(capsys, "check", INPUT / "billion-laughs.yaml")
    assert code == 2 and "aliases add more than 10,000 YAML values" in err
    assert time.perf_counter() - start < 10  # it took 60 s and 6 GiB before the limit


# --- bytes that are not UTF-8 text: written by the test, so git never sees them ---------------------

GOOD = "name: {name}\ntitle: {title}\nvariables:\n  a: {{value: 2}}\n  b: {{}}\nequations:\n  - b = 3 * a\n"


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(data)
    return path


def assert_located_bytes(code, out, err, path, line, col, message, hint, source_line):
    """assert_located_error for a file that is not UTF-8: the source line is given, as chainc shows it."""
    assert_no_traceback(out, err)
    assert code == 2, err
    lines = err.splitlines()
    assert lines[0].startswith(f"{shown(path)}:{line}:{col}: error: "), err
    assert message in lines[0], err
    assert lines[1] == "    " + source_line, err
    assert lines[2] == "    " + " " * (col - 1) + "^", err
    assert hint in lines[3] and lines[3].startswith("hint: "), err
    assert all(ch >= " " or ch == "\n" for ch in err), f"a control character reached the terminal: {err!r}"


@pytest.mark.parametrize(
    ("case", "data", "line", "col", "message", "hint", "source_line"),
    [
        ("latin1", GOOD.format(name="latin1", title="Caf\xe9").encode("latin-1"), 2, 11, "the file is not UTF-8 text: byte e9 cannot be read", "save the file as UTF-8", "title: Caf\ufffd"),
        ("cesu", GOOD.format(name="cesu", title="X").encode().replace(b"X", b"\xed\xa0\x80"), 2, 8, "byte ed cannot be read", "surrogate encoded as UTF-8", "title: \ufffd\ufffd\ufffd"),
        ("nul", GOOD.format(name="nul", title="a\0b").encode(), 2, 9, "the file holds a NUL character (U+0000)", "UTF-16 without a byte-order mark", "title: a\ufffdb"),
        ("bell", GOOD.format(name="bell", title="a\ab").encode(), 2, 9, "the file holds the control character U+0007", "printable text", "title: a\ufffdb"),
        ("escape", GOOD.format(name="escape", title="\x1b[31mred").encode(), 2, 8, "the control character U+001B", "printable text", "title: \ufffd[31mred"),
        ("utf16-no-bom", GOOD.format(name="utf16-no-bom", title="X").encode("utf-16-le"), 1, 2, "NUL character", "UTF-16 without a byte-order mark", "n\ufffda\ufffdm\ufffde\ufffd:\ufffd"),
        (
            "utf16-lone-surrogate",
            codecs.BOM_UTF16_LE + GOOD.format(name="utf16-lone-surrogate", title="X").encode("utf-16-le").replace(b"X\x00", b"\x00\xd8"),
            2,
            8,
            "the file is not UTF-16-LE text: bytes 00 d8",
            "save the file as UTF-8",
            "title: \ufffd",
        ),
    ],
    ids=["latin1", "cesu", "nul", "bell", "escape", "utf16-no-bom", "utf16-lone-surrogate"],
)
def test_not_text(capsys, tmp_path, case, data, line, col, message, hint, source_line):
    path = write(tmp_path, case, data)
    code, out, err = run(capsys, "solve", path)
    if case == "utf16-no-bom":  # the first line is 'n\0a\0m\0e\0:\0 ...' up to the first '\n\0'
        source_line = (GOOD.split("\n")[0].format(name=case)).encode("utf-16-le").decode("latin-1").replace("\0", "\ufffd")
    assert_located_bytes(code, out, err, path, line, col, message, hint, source_line)


@pytest.mark.parametrize(
    "bom", [codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE], ids=["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"]
)
def test_a_byte_order_mark_names_the_encoding(capsys, tmp_path, bom):
    """Windows tools write UTF-16 with a byte-order mark: read it as the mark says."""
    encoding = {codecs.BOM_UTF8: "utf-8", codecs.BOM_UTF16_LE: "utf-16-le", codecs.BOM_UTF16_BE: "utf-16-be", codecs.BOM_UTF32_LE: "utf-32-le", codecs.BOM_UTF32_BE: "utf-32-be"}[bom]
    path = write(tmp_path, "bom", bom + GOOD.format(name="bom", title="Caf\xe9 \u2014 \U0001f600").encode(encoding))
    code, out, err = run(capsys, "solve", path)
    assert code == 0, err
    assert out.startswith("Caf\xe9 \u2014 \U0001f600 (bom)"), out


# --- limits: named in the error, raised by an environment variable -----------------------------------

LITTLE = ROOT / "models" / "littles-law.yaml"


@pytest.mark.parametrize(
    ("var", "value", "line", "col", "message"),
    [
        ("CHAINC_MAX_YAML_DEPTH", "2", 11, 3, "nests more than 2 levels deep"),  # variables.arrival_rate is the third level
        ("CHAINC_MAX_YAML_BYTES", "100", 1, 1, "the file is larger than 100 bytes"),
    ],
)
def test_a_limit_names_its_variable(capsys, monkeypatch, var, value, line, col, message):
    monkeypatch.setenv(var, value)
    code, out, err = run(capsys, "solve", "littles-law")
    assert_located_error(code, out, err, LITTLE, line, col, message, var + "=")
    monkeypatch.setenv(var, "100000000")  # raised: the same model loads
    code, out, err = run(capsys, "solve", "littles-law")
    assert code == 0, err


def test_a_raised_limit_lets_a_large_file_through(capsys, monkeypatch, tmp_path):
    """9**5 = 59,049 values: past the default, within a raised limit (and then the schema has its say)."""
    text = (INPUT / "billion-laughs.yaml").read_text().replace("name: billion-laughs", "name: laughs")
    path = tmp_path / "laughs.yaml"
    path.write_text("".join(line for line in text.splitlines(keepends=True) if not line.startswith(("l5:", "l6:"))))
    code, out, err = run(capsys, "solve", path)
    assert "aliases add more than 10,000 YAML values" in err
    monkeypatch.setenv("CHAINC_MAX_YAML_NODES", "100000")
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, 9, 1, "unknown key 'l0' in the file", "allowed keys")


def test_a_bad_limit_setting_is_an_argument_error(capsys, monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_YAML_NODES", "lots")
    code, out, err = run(capsys, "solve", "littles-law")
    assert_argument_error(code, out, err, "CHAINC_MAX_YAML_NODES='lots' is not a positive whole number", "unset it")


def test_depth_past_pythons_recursion_is_still_an_error(capsys, monkeypatch):
    monkeypatch.setenv("CHAINC_MAX_YAML_DEPTH", "100000")
    path = INPUT / "deep-nesting.yaml"
    code, out, err = run(capsys, "solve", path)
    assert_located_error(code, out, err, path, 6, None, "nests too deeply for Python to read", "CHAINC_MAX_YAML_DEPTH=100,000")


# --- the least surprising reading: names and numbers as written --------------------------------------


def test_yaml_11_words_are_names(project, capsys, tmp_path):
    """`on`, `yes`, `no`, `off`, `y` and `null` are names a model may use, in keys, expressions and given."""
    path = tmp_path / "words.yaml"
    path.write_text(
        "name: words\ntitle: YAML 1.1 words\nvariables:\n  on: {value: 2}\n  yes: {value: 3}\n  off: {value: 1}\n  y: {value: 0.5}\n  null: {}\n  no: {}\n"
        "equations:\n  - no = on * yes + off\n  - null = no * y\nchecks:\n  - given: {on: 4}\n    expect: {no: 13, null: 6.5}\n"
    )
    model = load_model(str(path), project)
    assert list(model.variables) == ["on", "yes", "off", "y", "null", "no"]
    s = solve(model, project=project)
    assert (s.value("no"), s.value("null")) == (7, 3.5)
    code, out, err = run(capsys, "check", path)
    assert code == 0 and "1/1 checks" in out, out + err


def test_numbers_are_decimal(project, tmp_path):
    """YAML 1.1 reads 010 as eight; chainc reads ten, and 1_000 as a thousand."""
    path = tmp_path / "decimal.yaml"
    path.write_text("name: decimal\ntitle: Decimal\nvariables:\n  a: {value: 010, digits: 010}\n  c: {value: 1_000}\n  b: {}\nequations:\n  - b = a + c\n")
    model = load_model(str(path), project)
    assert model.variables["a"].digits == 10
    assert solve(model, project=project).value("b") == 1010


def test_escaped_surrogate_pair_is_one_character(project, tmp_path):
    path = tmp_path / "emoji.yaml"
    path.write_text('name: emoji\ntitle: "smile \\ud83d\\ude00"\nvariables:\n  a: {value: 1}\n  b: {}\nequations:\n  - b = a\n')
    assert load_model(str(path), project).title == "smile \U0001f600"


def test_any_printable_text_loads(project, tmp_path):
    """Bidi overrides, zero-width characters, look-alikes and 100 KB of prose are text: they load as written."""
    about = "\u202eevil\u202c \u200b\u200f \ufeff ｂ 𝑥 名前 " + "long " * 20_000
    path = tmp_path / "prose.yaml"
    path.write_text(
        f'name: prose\ntitle: "\u202eRTL\u202c title"\nabout: "{about}"\nvariables:\n  a: {{value: 1, description: "\u05d0\u05d1 \\t\\u0007 tab and bell", symbol: "\u03b1"}}\n  b: {{}}\nequations:\n  - b = a\n'
    )
    model = load_model(str(path), project)
    assert model.title == "\u202eRTL\u202c title" and model.about == about.strip()
    assert model.variables["a"].description == "\u05d0\u05d1 \t\x07 tab and bell"


def test_aggregate_names_do_not_collide(project, tmp_path):
    """sum(t.c_d) and sum(t_c.d) once shared one function name, and one table's sum replaced the other's."""
    path = tmp_path / "collide.yaml"
    path.write_text(
        "name: collide\ntitle: Two sums\nvariables:\n  a: {value: 2}\n  x: {}\ntables:\n  t:\n    rows: 3\n    columns:\n      c_d: {formula: i * a}\n"
        "  t_c:\n    rows: 2\n    columns:\n      d: {formula: i}\nequations:\n  - x = sum(t.c_d) + sum(t_c.d)\n"
    )
    assert solve(load_model(str(path), project), project=project).value("x") == (2 + 4 + 6) + (1 + 2)


def test_nested_if_over_aggregates(project, tmp_path):
    path = tmp_path / "nested.yaml"
    path.write_text(
        "name: nested\ntitle: Nested ifs\nvariables:\n  a: {value: 2}\n  x: {}\ntables:\n  t:\n    rows: 3\n    columns:\n      c: {formula: i * a}\n"
        "equations:\n  - x = if(sum(t.c) > 1, if(max(t.c) > 100, last(t.c), count(t)), 0) * a\n"
    )
    assert solve(load_model(str(path), project), project=project).value("x") == 3 * 2


def test_a_default_beyond_float_range_is_asked_and_refused_by_the_float_backends(tmp_path, capsys):
    """A 400-digit default (1.1e399, within number_chars) made the question's search grid float() it (OverflowError), and the
    Python and Excel backends float() it too (found by the constructs' fuzz). The search starts from the largest float
    instead: by hand ceil(2 x / 1 s) <= 100 gives x = 50 s; the float backends say, located, that they cannot hold it."""
    models = tmp_path / "models"
    models.mkdir()
    text = f"name: huge\ntitle: a huge default\nvariables:\n  x: {{unit: s, value: {'1' * 400}}}\n  y: {{unit: s}}\nequations:\n  - y = 2 * x\n"
    (models / "huge.yaml").write_text(text + "questions:\n  q: {find: x, such_that: 'ceil(y / 1[s]) <= 100', seek: max}\n")  # searched: no closed form
    from chainc import Project, ask

    assert float(ask(load_model(models / "huge.yaml", Project(tmp_path)), "q", project=Project(tmp_path)).value) == 50
    for fmt, backend in (("py", "Python"), ("xlsx", "Excel")):
        code, out, err = run(capsys, "--root", str(tmp_path), "build", "huge", "--format", fmt, "--out", str(tmp_path / "out"))
        assert code == 2 and f"the {backend} backend" in err and "beyond a float's range" in err and "huge.yaml:1:1" in err, err
        assert_no_traceback(out, err)
