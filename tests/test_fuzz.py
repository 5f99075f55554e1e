"""Fuzzing the front end: whatever a person writes, chainc answers or raises its own error.

(a) Raw text (any Unicode: surrogates, control characters, bidi marks, long strings,
    YAML 1.1 words and numbers) in every field of a model that uses every feature,
    written plain, single-quoted, double-quoted raw or double-quoted with escapes.
(b) Byte-level mutations of the shipped models (flip, insert, delete, duplicate bytes;
    numbers swapped for odd ones), written to a file, loaded, solved and asked.
(c) --given NAME=QUANTITY with random text, through `chainc solve goodput`.

The property: nothing raises but `chainc.errors.ChaincError` (and argparse's
SystemExit for a bad command line). An error raised while loading must also be located
(a line) and carry a hint, and must render as text a terminal can print.

The default run is small and the same every time; `CI=true` runs over 10,000 random
examples (tests/conftest.py holds the profiles). The count is printed at the end.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainc.api import ask, solve
from chainc.cli import main
from chainc.errors import ChaincError
from chainc.load import load_model
from tests.conftest import FUZZ_EXAMPLES, FUZZ_PROFILE, FUZZ_SLOWEST, ROOT

FUZZ = settings(settings.get_profile(FUZZ_PROFILE))
MODELS = sorted((ROOT / "models").glob("*.yaml"))


def assert_good_error(e: ChaincError, loaded: bool) -> None:
    """A load error is located and hinted; every error renders as printable, encodable text."""
    text = e.render()
    text.encode("utf-8")  # a lone surrogate here would crash the terminal's encoder
    assert "solve_seconds limit" not in text, f"a small model ran out of the time budget (a time bomb): {text}"
    if not loaded:
        assert e.loc is not None and e.loc.line >= 1, f"load error without a line: {text}"
        assert e.hint, f"load error without a hint: {text}"


MAX_LOAD_SECONDS = 30  # loading is bounded by compiler/limits.py; minutes would be a time bomb


def load_and_solve(project, path: str, text: str | None = None) -> None:
    """Load (from text, or the file) and, if that works, solve and ask the first question."""
    start = time.perf_counter()
    try:
        model = load_model(path, project, text=text)
    except ChaincError as e:
        assert_good_error(e, loaded=False)
        return
    finally:
        loading = time.perf_counter() - start
        assert loading < MAX_LOAD_SECONDS, f"loading took {loading:.0f} s"
    try:
        solve(model, project=project)
        for name in list(model.questions)[:1]:
            ask(model, name, project=project)
    except ChaincError as e:
        assert_good_error(e, loaded=True)


def timed(test: str, what: str, run) -> None:
    """Run one example; remember the slowest of each test (printed at the end of the session)."""
    FUZZ_EXAMPLES[test] += 1
    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    if seconds > FUZZ_SLOWEST.get(test, (0.0, ""))[0]:
        FUZZ_SLOWEST[test] = (seconds, what if len(what) < 200 else what[:200] + "...")


# --- text --------------------------------------------------------------------------------------------

ODD = [
    # YAML 1.1 booleans, nulls and numbers
    *"on off yes no y n Y N true false True ~ null Null NULL".split(),
    *"0x1 0x10 0o17 0b101 010 1:30 1:30.5 190:20:30 .inf -.inf +.INF .nan .NaN 1_000 1__0 1_ 1e3 1.e3 .5 5. +1 -0".split(),
    "1e400",
    "1e-400",
    "1e99999999999",
    "1" * 5000,
    "9" * 4301,
    "0." + "0" * 500 + "1",
    "1" * 400,
    "1e300",
    "1e-300",
    # quantities and tolerances
    "%",
    "%%",
    "x%",
    "-5%",
    "1e999%",
    ".inf%",
    "nan%",
    "1,000",
    "1,00",
    "10 ms",
    "10ms",
    "10 parsecs",
    "1[token]",
    "-1",
    "0",
    # text that YAML or the expression language treats specially
    "",
    " ",
    "\t",
    "[",
    "]",
    "{",
    "}",
    "*a",
    "&a",
    "!!python/name:os.system",
    "!x",
    "<<",
    ": ",
    " #",
    "#",
    "---",
    "...",
    "|",
    ">",
    "?",
    "-",
    "'",
    '"',
    "\\",
    "@",
    "`",
    "%YAML 1.1",
    "a: b",
    "[1, 2]",
    "{a: 1}",
    "if(a > 1, a, 0)",
    "a if a else a",
    "__import__('os')",
    "x.__class__",
    "lambda: 1",
    "sum(t.c)",
    "count(t)",
    "prev.c",
    "a == a",
    "a > 1",
    "not a",
    "a ** 1001",
    "10 ** 400",
    "(" * 200 + "a" + ")" * 200,
    "-" * 600 + "a",
    # characters: NUL and controls, surrogates, bidi and invisible marks, look-alikes
    "\x00",
    "a\x00b",
    "\x07",
    "\x1b[31m",
    "\x7f",
    "\x85",
    "\ud800",
    "\udfff",
    "\ud83d\ude00",
    "\ud83d",
    "\u202e",
    "\u200f",
    "\u200b",
    "\ufeff",
    "\u2028",
    "\u2029",
    "\ufffe",
    "\uffff",
    "ｂ",
    "𝑎",
    "ａ",
    "µs",
    "μs",
    "名前",
    "x\n",
    "x\r\n",
    "a\nb",
]
CHARS = st.characters(exclude_categories=())  # every code point, surrogates included
TEXT = st.one_of(
    st.sampled_from(ODD),
    st.text(CHARS, max_size=30),
    st.text(st.sampled_from("ab01._-+e%:[]{}*&!#'\" \n\t\\(),=<>"), max_size=20),
    st.tuples(st.sampled_from(ODD), st.sampled_from(ODD)).map("".join),
    st.integers(1000, 1 << 17).map(lambda n: "x" * n),  # long strings (the largest is past 100 KB)
)


def _double(text: str) -> str:
    return json.dumps(text)  # \uXXXX escapes: YAML reads JSON strings, lone surrogates included


MODES = {
    "plain": lambda t: t,
    "single": lambda t: "'" + t.replace("'", "''") + "'",
    "double": _double,
    "double-raw": lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"',
}

# A model that uses every feature: each §field§ is a place the fuzz writes into.
TEMPLATE = """\
name: §name§
title: §title§
about: §about§
uses:
  gpu: §gpu§
  llm: §llm§
  models:
    §alias§: §import§
variables:
  §var§:
    unit: §unit§
    value: §value§
    description: §description§
    symbol: §symbol§
    domain: §domain§
    integer: §integer§
    min: §min§
    max: §max§
    digits: §digits§
  b:
    unit: s
  n:
    value: §n§
    integer: true
  w:
    unit: GB
    value: §catalog§
  l:
    unit: s
    value: §imported§
tables:
  §table§:
    about: §table_about§
    rows: §rows§
    max_rows: §max_rows§
    columns:
      §column§:
        unit: §column_unit§
        formula: §formula§
        initial: §initial§
        description: §column_description§
        symbol: §column_symbol§
equations:
  - equation: §equation§
    about: §equation_about§
questions:
  §question§:
    ask: §ask§
    find: §find§
    such_that: §such_that§
    seek: §seek§
    step: §step§
  §search§:
    ask: §search_ask§
    over: {gpu: [§over_gpu§], n: §over_values§}
    with: {§var§: §question§}
    such_that:
      §search_label§: §search_condition§
    seek: §objective§
    show: §show_rows§
frontiers:
  §frontier§:
    about: §frontier_about§
    x: §frontier_x§
    y: §frontier_y§
    over: {n: §over_values§}
checks:
  - about: §check_about§
    given: {§given_name§: §given§}
    expect: {b: §expect§}
    tolerance: §tolerance§
  - that: §that§
sweeps:
  §sweep§:
    about: §sweep_about§
    over: §over§
    from: §from§
    to: §to§
    step: §sweep_step§
    show: [§show§]
    reference: §reference§
"""
DEFAULTS = {
    "name": "fuzz",
    "title": "Fuzz",
    "about": "Every feature, for the fuzz",
    "gpu": "h100-sxm",
    "llm": "llama-3.1-8b",
    "alias": "little",
    "import": "littles-law",
    "var": "a",
    "unit": "ms",
    "value": "2",
    "description": "a time",
    "symbol": "\\alpha",
    "domain": "positive",
    "integer": "false",
    "min": "1",
    "max": "100",
    "digits": "4",
    "n": "3",
    "catalog": "llm.weight_bytes",
    "imported": "little.latency",
    "table": "t",
    "table_about": "one row per step",
    "rows": "n",
    "max_rows": "10",
    "column": "c",
    "column_unit": "ms",
    "formula": "prev.§column§ + §var§",
    "initial": "0 ms",
    "column_description": "running total",
    "column_symbol": "c_i",
    "equation": "b = §var§ + sum(§table§.§column§)",
    "equation_about": "the total",
    "question": "q",
    "ask": "The largest a with b under a second",
    "find": "§var§",
    "such_that": "b <= 1[s]",
    "seek": "max",
    "step": "1",
    "search": "best",
    "search_ask": "The fewest rows at the largest a",
    "over_gpu": "h100-sxm, h200",
    "over_values": "[1, 2, 3]",
    "search_label": "fast",
    "search_condition": "b <= 2[s]",
    "objective": "min b",
    "show_rows": "2",
    "frontier": "f",
    "frontier_about": "a against n",
    "frontier_x": "max n",
    "frontier_y": "min b",
    "check_about": "2 + 2 + 4 + 6 = 14 ms",
    "given_name": "§var§",
    "given": "2",
    "expect": "14 ms",
    "tolerance": "1%",
    "that": "b > 0",
    "sweep": "s",
    "sweep_about": "b against a",
    "over": "§var§",
    "from": "1",
    "to": "10",
    "sweep_step": "1",
    "show": "b",
    "reference": "b",
}
FIELDS = sorted(DEFAULTS)


def render(field: str | None = None, text: str = "") -> str:
    """The template with `field` replaced by text (as is) and every other field by its default."""
    out = TEMPLATE
    for _ in range(2):  # defaults refer to other fields: §var§ in the equation
        for name, default in DEFAULTS.items():
            if name != field:
                out = out.replace(f"§{name}§", default)
    return out.replace(f"§{field}§", text) if field else out


def test_template_is_a_good_model(project):
    """The fuzz starts from a model that loads, solves and passes its check: each field matters."""
    from chainc.api import run_checks

    model = load_model("fuzz.yaml", project, text=render())
    assert solve(model, project=project).value("b") == 14 / 1000
    assert all(o.ok for o in run_checks(model, project)), [o.lines for o in run_checks(model, project)]


@FUZZ
@given(field=st.sampled_from(FIELDS), text=TEXT, mode=st.sampled_from(sorted(MODES)))
def test_raw_text_in_every_field(project, fuzz_clock, field, text, mode):
    timed("test_raw_text_in_every_field", f"{field} = {mode} {text!r}", lambda: load_and_solve(project, "fuzz.yaml", render(field, MODES[mode](text))))


# --- bytes ------------------------------------------------------------------------------------------

ODD_BYTES = [t.encode("utf-8", "surrogatepass") for t in ODD if len(t) < 50] + [b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\xed\xa0\x80", b"\xc3", b"\x80", b"\r", b"\n  ", b": "]
POSITION = st.integers(0, 1 << 16)
EDIT = st.one_of(
    st.tuples(st.just("flip"), POSITION, st.integers(1, 255)),
    st.tuples(st.just("insert"), POSITION, st.one_of(st.binary(min_size=1, max_size=6), st.sampled_from(ODD_BYTES))),
    st.tuples(st.just("delete"), POSITION, st.integers(1, 40)),
    st.tuples(st.just("duplicate"), POSITION, st.integers(1, 120)),
    st.tuples(st.just("number"), POSITION, st.sampled_from([b for b in ODD_BYTES if re.fullmatch(rb"[-+.\d\w:%,_]+", b)] + [b"0", b"-1", b"1e300", b"999999", b"0.5"])),
)


def mutate(data: bytes, edits) -> bytes:
    out = bytearray(data)
    for kind, pos, arg in edits:
        pos %= len(out) + 1
        if kind == "flip" and pos < len(out):
            out[pos] ^= arg
        elif kind == "insert":
            out[pos:pos] = arg
        elif kind == "delete":
            del out[pos : pos + arg]
        elif kind == "duplicate":
            out[pos:pos] = out[pos : pos + arg]
        elif kind == "number":  # the next run of digits becomes another number (or a YAML 1.1 oddity)
            m = re.compile(rb"\d+(\.\d+)?").search(bytes(out), pos)
            if m:
                out[m.start() : m.end()] = arg
    return bytes(out)


@pytest.fixture(scope="module")
def mutants(tmp_path_factory) -> Path:
    """One folder for every example: each mutant keeps its model's file name (the name: key must match it)."""
    return tmp_path_factory.mktemp("mutants")


@FUZZ
@given(model=st.sampled_from(MODELS), edits=st.lists(EDIT, min_size=1, max_size=4))
def test_mutated_models(project, mutants, fuzz_clock, model, edits):
    path = mutants / model.name
    path.write_bytes(mutate(model.read_bytes(), edits))
    timed("test_mutated_models", f"{model.name} {edits}", lambda: load_and_solve(project, str(path)))


# --- the command line --------------------------------------------------------------------------------

GOODPUT_NAMES = ["batch", "tpot", "tpot_target", "context", "bandwidth", "weight_bytes", "kv_bytes_per_token", "throughput", "goodput", "step_bytes"]
UNITS = [
    "",
    "ms",
    "ms/token",
    "s",
    "GB",
    "GiB",
    "TB/s",
    "token",
    "token/s",
    "B/token",
    "KiB/token",
    "%",
    "1/token",
    "FLOP",
    "ms^2",
    "ms**-1",
    "(ms)",
    "ms/(token*request)",
    "parsecs",
    "ms/token/token",
    "µs",
    "μs/tok",
]
NUMBER = st.from_regex(r"\A[-+]?(\d{1,8}(,\d{3})*|\d*\.\d{1,8})([eE][-+]?\d{1,5})?\Z")
QUANTITY = st.one_of(st.tuples(NUMBER, st.sampled_from(["", " ", "  "]), st.sampled_from(UNITS)).map("".join), TEXT)
GIVEN = st.one_of(
    st.tuples(st.one_of(st.sampled_from(GOODPUT_NAMES), TEXT), QUANTITY).map(lambda nq: f"{nq[0]}={nq[1]}"),
    TEXT,
)


@FUZZ
@given(items=st.lists(GIVEN, min_size=1, max_size=3), question=st.booleans())
def test_given_quantities(capsys, monkeypatch, fuzz_clock, items, question):
    monkeypatch.delenv("CHAINC_ROOT", raising=False)
    monkeypatch.chdir(ROOT)
    argv = ["solve", "goodput", *(["--question", "max_batch"] if question else [])]
    for item in items:
        argv += ["--given", item]

    def run():
        try:
            code = main(argv)
        except SystemExit as e:  # argparse: an option-like item such as '-x' or '--'
            code = e.code
        capsys.readouterr()
        assert code in (0, 1, 2)

    timed("test_given_quantities", repr(argv), run)


@pytest.mark.parametrize("field", FIELDS)
def test_every_field_is_in_the_template(field):
    assert f"§{field}§" in TEMPLATE
