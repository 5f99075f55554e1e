"""Fuzzing the syntax of issue 18's constructs: sums and products (nested), joins, questions with several conditions.

(a) Raw text (tests/test_fuzz.py's TEXT, in its four YAML modes) in every field of a model that
    uses each construct: a nested sum's index, bounds and terms, a product, a joined model's
    path, alias and binding, a value import, labelled conditions and conditions joined by `and`.
(b) Structured random syntax in the same places: generator expressions from a small grammar
    with mistakes in it (ranges of 0 to 4 arguments, fractional, negative, huge or dimensioned
    bounds, an index that hides a variable or is reused, filters, several `for` clauses, other
    callables than range, nesting six deep), joins with odd paths and bindings, and such_that
    as strings, mappings, lists or numbers.
(c) Byte-level mutations of models that use them (the template, tests/models' sums, conditions
    and stretches, the agreement examples' nested sums), and of the model the template joins.

Everything is loaded in a project of its own (models/sub/inner.yaml is the joined model), then
solved and asked every question (with sums of at most 10,000 terms). The property is tests/test_fuzz.py's: nothing raises but
ChaincError; a load error is located and hinted, and every error renders as printable text.
The default run is small and the same every time; CI=true runs 3,500 examples per test.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from chainc import Project
from chainc.api import ask, solve
from chainc.errors import ChaincError
from chainc.load import load_model

from .agreement_examples import NESTED_OUTER_BOUNDS, NESTED_OUTER_TERMS
from .conftest import FUZZ_OUTCOMES, ROOT
from .test_fuzz import EDIT, FUZZ, MAX_LOAD_SECONDS, MODES, TEXT, assert_good_error, mutate, timed

INNER = """\
name: inner
title: The joined model
variables:
  u: {unit: s, value: 1}
  m: {value: 3, integer: true, max: 50}
  v: {unit: s}
equations:
  - v = u * sum(k for k in range(m))
"""

# A model that uses each construct: each §field§ is a place the fuzz writes into.
TEMPLATE = """\
name: fuzz
title: Sums, joins and conditions, for the fuzz
uses:
  models:
    §alias§: §join§
    §value_alias§: §value_import§
variables:
  n: {value: §n§, integer: true, max: §n_max§}
  x: {unit: s, value: §x§}
  s: {unit: s, domain: real}
  p: {domain: real}
  q: {unit: s, domain: real}
  l: {unit: s, value: §imported§}
equations:
  - §equation_s§
  - §equation_p§
  - §equation_q§
questions:
  fitting:
    find: n
    such_that:
      §label§: §condition§
      §label2§: §condition2§
    seek: §seek§
  joined:
    find: x
    such_that: §conditions§
    seek: max
"""
DEFAULTS = {
    "alias": "o",
    "join": "{model: §join_model§, given: {§join_input§: §join_value§}}",
    "join_model": "sub/inner.yaml",
    "join_input": "u",
    "join_value": "x * 2",
    "value_alias": "little",
    "value_import": "littles-law",
    "imported": "little.latency",
    "n": "3",
    "n_max": "20",
    "x": "1",
    "equation_s": "s = x * (§nested§)",
    "equation_p": "p = §product§",
    "equation_q": "q = §joined§",
    "nested": "sum(sum(j * §index§ for j in range(§lo§, §index§)) for §index§ in range(§hi§))",
    "index": "k",
    "lo": "0",
    "hi": "n",
    "product": "prod(1 + §index2§ / 10 for §index2§ in range(1, §hi2§))",
    "index2": "k",
    "hi2": "n + 1",
    "joined": "§alias§.v + x",
    "label": "latency",
    "condition": "s <= 100[s]",
    "label2": "growth",
    "condition2": "p <= 100",
    "seek": "max",
    "conditions": "q <= 50[s] and s >= 0[s]",
}
FIELDS = sorted(DEFAULTS)


def render(fields: dict[str, str] | None = None) -> str:
    """The template with these fields replaced (as is) and every other field by its default."""
    fields = fields or {}
    out = TEMPLATE
    for _ in range(3):  # defaults refer to other fields: §index§ in the sum
        for name, default in DEFAULTS.items():
            if name not in fields:
                out = out.replace(f"§{name}§", default)
    for name, text in fields.items():
        out = out.replace(f"§{name}§", text)
    return out


@pytest.fixture(scope="module", autouse=True)
def _small_sums():
    """Sums of at most 10,000 terms (the default is a million): the fuzz is about syntax and errors, and a bound it writes
    (range(p, n) inside p's own equation, searched over p) could otherwise take a minute of summing per example.
    A time budget of 30 s: an example that needs it fails (assert_good_error), and soon, shrinking included."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHAINC_MAX_SUM_TERMS", "10000")
        mp.setenv("CHAINC_MAX_SOLVE_SECONDS", "30")
        yield


@pytest.fixture(scope="module")
def fuzz_project(tmp_path_factory) -> Project:
    """A project of its own: models/ for the fuzzed files, models/sub/inner.yaml the joined model."""
    root = tmp_path_factory.mktemp("fuzz-constructs")
    (root / "models" / "sub").mkdir(parents=True)
    (root / "models" / "sub" / "inner.yaml").write_text(INNER)
    return Project(root)


def load_solve_ask(project: Project, path: Path, text: str | None = None) -> None:
    """Load (from text, or the file) and, if that works, solve it and ask every question (the first four; each asks its parts)."""
    start = time.perf_counter()
    try:
        model = load_model(path, project, text=text)
    except ChaincError as e:
        assert_good_error(e, loaded=False)
        FUZZ_OUTCOMES["refused at load"] += 1
        return
    finally:
        loading = time.perf_counter() - start
        assert loading < MAX_LOAD_SECONDS, f"loading took {loading:.0f} s"
    try:
        solve(model, project=project)
        FUZZ_OUTCOMES["solved"] += 1
    except ChaincError as e:
        assert_good_error(e, loaded=True)
        FUZZ_OUTCOMES["refused by the solver"] += 1
    parts = {part for q in model.questions.values() for _, part in q.parts}
    for name in [q for q in model.questions if q not in parts][:4]:  # a question asks its conditions' own questions
        try:
            ask(model, name, project=project)
            FUZZ_OUTCOMES["questions answered"] += 1
        except ChaincError as e:
            assert_good_error(e, loaded=True)
            FUZZ_OUTCOMES["questions refused"] += 1


def test_the_template_is_a_good_model(fuzz_project):
    """By hand at n = 3, x = 1 s: s = (0 + 1) x 2 x 1 s = 2 s; p = 1.1 x 1.2 x 1.3; o.u = 2 s, o.v = 2 s x (0 + 1 + 2) = 6 s,
    q = 7 s. The largest x with 7 x <= 50 s is 50/7 s; the largest n with s <= 100 s and p <= 100 is 6 (s = 85 s; 175 s at 7)."""
    path = fuzz_project.root / "models" / "fuzz.yaml"
    model = load_model(path, fuzz_project, text=render())
    got = solve(model, project=fuzz_project)
    assert [float(got.value(n)) for n in ("s", "p", "o_v", "q")] == pytest.approx([2, 1.1 * 1.2 * 1.3, 6, 7], rel=1e-12)
    assert float(ask(model, "joined", project=fuzz_project).value) == pytest.approx(50 / 7, rel=1e-12)

    def holds(n):
        s = sum(sum(j * k for j in range(k)) for k in range(n))
        p = 1.0
        for k in range(1, n + 1):
            p *= 1 + k / 10
        return s <= 100 and p <= 100

    assert ask(model, "fitting", project=fuzz_project).value == max(n for n in range(1, 21) if holds(n)) == 6


@pytest.mark.parametrize("field", FIELDS)
def test_every_field_is_in_the_template(field):
    assert f"§{field}§" in TEMPLATE or any(f"§{field}§" in d for d in DEFAULTS.values())


# --- (a) raw text ----------------------------------------------------------------------------------------------


@FUZZ
@given(field=st.sampled_from(FIELDS), text=TEXT, mode=st.sampled_from(sorted(MODES)))
def test_raw_text_in_every_construct_field(fuzz_project, fuzz_clock, field, text, mode):
    path = fuzz_project.root / "models" / "fuzz.yaml"
    timed("test_raw_text_in_every_construct_field", f"{field} = {mode} {text!r}", lambda: load_solve_ask(fuzz_project, path, render({field: MODES[mode](text)})))


# --- (b) structured syntax -------------------------------------------------------------------------------------
#
# Each piece is drawn from what the language takes, or (sloppy) from that and its near misses, so that a good
# share of the models load and are solved while the rest probe every refusal.

NUMBERS = ["0", "1", "2", "3", "4", "5"]
ODD_NUMBERS = ["-1", "-5", "0.5", "1.5", "1e6", "999999", "1000001", "10**7", "2**64", "1e300", "1e400", "1[s]", "2[token]", "0[s]", "1[1/s]"]
NAMES = ["n", "p", "o.m"]  # dimensionless, as the sums' terms are (p only where it is not p's own equation)
ODD_NAMES = ["p", "x", "s", "q", "l", "i", "o.v", "o.u", "o.nope", "little.latency", "gpu.memory", "prev.c", "sum(t.c)", "count(t)", "True", "None", "'a'"]
ODDITIES = ["...", "[1, 2]", "{1: 2}", "lambda: 1", "x.__class__", "k if k else 0", "k := 1", "*k", "f'{k}'"]
INDICES = ["k", "j", "m", "a", "b"]
ODD_INDICES = ["n", "x", "s", "i", "o", "l", "sum", "range", "prev", "_k", "(k, j)", "k, j", "k[0]", "*k", "o.v", "if", "ｋ", "𝑘", "k j", ""]
ODD_CALLS = ["rng", "list", "reversed", "enumerate", "len", "sum", "range(3)[0]", "(range)", "__import__('os').range", ""]
ODD_KINDS = ["min", "max", "count", "last", "abs", "ceil", "Sum", "product", "any", "sum ", ""]
OPERATORS = ["+", "-", "*", "/", "**", "<", "<="]
ODD_OPERATORS = ["==", "and", "or", "//", "%", "@"]


def pick(draw, good: list, odd: list, sloppy: bool):
    return draw(st.sampled_from(good + odd if sloppy and draw(st.integers(0, 3)) == 0 else good))


@st.composite
def expression(draw, depth: int, sloppy: bool, scope: tuple = (), names: tuple = tuple(NAMES)) -> str:
    """A random dimensionless expression, with sums and products nested up to `depth` deep over the indices in scope."""
    if depth <= 0:
        return pick(draw, NUMBERS + list(names) + list(scope), ODD_NUMBERS + ODD_NAMES + ODDITIES, sloppy)
    kind = draw(st.sampled_from(["atom", "series", "series", "series", "binary", "call", "if", "paren", "neg"]))
    sub = lambda: draw(expression(depth - 1, sloppy, scope, names))  # noqa: E731
    if kind == "atom":
        return draw(expression(0, sloppy, scope, names))
    if kind == "series":
        return draw(series(depth, sloppy, scope, names))
    if kind == "binary":
        return f"{sub()} {pick(draw, OPERATORS, ODD_OPERATORS, sloppy)} {sub()}"
    if kind == "call":
        fn = draw(st.sampled_from(["ceil", "floor", "factorial", "min", "max", "abs"] + (["sqrt", "log", "if", "exp"] if sloppy else [])))
        count = draw(st.integers(0, 3)) if sloppy else (1 if fn not in ("min", "max") else 2)
        return f"{fn}({', '.join(sub() for _ in range(count))})"
    if kind == "if":
        return f"if({sub()} > {sub()}, {sub()}, {sub()})"
    if kind == "paren":
        return f"({sub()})"
    return f"-{sub()}"


@st.composite
def series(draw, depth: int, sloppy: bool, scope: tuple = (), names: tuple = tuple(NAMES)) -> str:
    """sum(term for k in range(...)): bounds that may read the indices around; sloppy, the mistakes a person makes in one."""
    clauses, inside = [], tuple(scope)
    for _ in range(draw(st.sampled_from([1, 1, 1, 1, 2, 3, 0])) if sloppy else 1):
        fresh = [k for k in INDICES if k not in inside] or INDICES
        index = pick(draw, fresh, ODD_INDICES + list(inside), sloppy)
        args = draw(st.lists(expression(max(depth - 2, 0), sloppy, inside, names), min_size=0 if sloppy else 1, max_size=4 if sloppy else 2))
        call = pick(draw, ["range"], ODD_CALLS, sloppy)
        clauses.append(f"for {index} in {call}({', '.join(args)})" if call else f"for {index} in {', '.join(args) or '()'}")
        inside += (index,)
    if sloppy and draw(st.integers(0, 7)) == 0:
        clauses.append(f"if {draw(expression(0, sloppy, inside, names))} > 1")
    body = draw(expression(depth - 1, sloppy, inside, names))
    kind = pick(draw, ["sum", "prod"], ODD_KINDS, sloppy)
    text = f"{body} {' '.join(clauses)}".strip()
    shape = pick(draw, ["call"], ["list", "twice", "extra", "bare"], sloppy)
    return {"list": f"{kind}([{text}])", "twice": f"{kind}(({text}))", "extra": f"{kind}({text}, 1)", "bare": f"{kind} {text}"}.get(shape, f"{kind}({text})")


LABELS = ["latency", "memory", "a", "growth", "cost"]
ODD_LABELS = ["condition_1", "fitting", "fitting_latency", "n", "x", "1a", "a-b", "a b", "", "_", "sum", "λ", "x" * 200]
COMPARISONS = ["<=", "<", ">", ">="]
ODD_COMPARISONS = ["==", "!=", "in", "is", "=", "=>"]
CONDITIONS = ["s <= 100[s]", "p <= 100", "q <= 50[s]", "q <= 20[s]", "x >= 0.5[s]", "o.v <= 40[s]", "s >= 0[s]", "1 < p <= 1000"]
ODD_CONDITIONS = ["n <= 5", "not s > 1[s]", "s", "s <= ", "<= 1", "s <= 1[token]", "o.nope < 1", "q <= 50[s] or p > 1", "x = 1[s]", "-" * 3000 + "p > 1", "not " * 900 + "p > 1", '"\\[" < 1']


@st.composite
def condition(draw, sloppy: bool) -> str:
    if draw(st.booleans()):
        return pick(draw, CONDITIONS, ODD_CONDITIONS, sloppy)
    return f"{draw(expression(2, sloppy))} {pick(draw, COMPARISONS, ODD_COMPARISONS, sloppy)} {draw(expression(1, sloppy))}"


@st.composite
def such_that(draw, sloppy: bool):
    """Several conditions: joined by and (or, sloppy, by or), a mapping of labels, or (sloppy) a list, nested mappings, other values."""
    form = pick(draw, ["and", "labels"], ["or", "list", "nested", "value"], sloppy)
    labels = st.sampled_from(LABELS + (ODD_LABELS if sloppy else []))
    if form in ("and", "or"):
        return f" {form} ".join(draw(st.lists(condition(sloppy), min_size=1, max_size=4)))
    if form == "labels":
        return draw(st.dictionaries(labels, condition(sloppy), min_size=0 if sloppy else 1, max_size=4))
    if form == "list":
        return draw(st.lists(condition(sloppy), max_size=3))
    if form == "nested":
        return draw(st.dictionaries(labels, st.dictionaries(labels, condition(sloppy), max_size=2), max_size=2))
    return draw(st.sampled_from([None, 1, 0.5, True, "", "and", "s <= 100[s] and", "and s <= 100[s]", "s <= 100[s] and and p <= 1"]))


PATHS = ["sub/inner.yaml", "./sub/inner.yaml", "sub/../sub/inner.yaml"]
ODD_PATHS = [
    "sub/inner", "inner", "../models/sub/inner.yaml", "sub", "sub/", "fuzz.yaml", "fuzz", "sub/missing.yaml", "sub/inner.yml",
    "littles-law", "goodput", "goodput.yaml", "../../models/goodput.yaml", "/etc/passwd", "/dev/zero", "~/inner.yaml",
    "sub\\inner.yaml", "", ".", "..", "C:/inner.yaml", "file:///etc/passwd", "sub/inner.yaml\x00",
]  # fmt: skip
BINDINGS = {"u": ["x * 2", "x", "l", "o.v", "2[s]", "x * p"], "m": ["n", "3", "n + 1", "ceil(p)"]}
ODD_BINDINGS = ["v", "x", "nope", "", "u.v", "o.u", "__class__", "gpu", "m" * 150]
ODD_VALUES = [None, 1, 0.5, True, [], {}, ["x"], {"a": 1}, "1[token]", "x * x", "u", "o.u"]
JOINED = ["o.v + x", "o.v * 2", "o.u * o.m", "sum(o.v for k in range(o.m))", "o.v + sum(x * k for k in range(n))", "o.v + x * prod(1 + k for k in range(o.m))"]


@st.composite
def join(draw, sloppy: bool):
    """A joined import's spec: its model's path and bindings of its inputs; sloppy, missing or odd keys and values."""
    given = {}
    for name in draw(st.sets(st.sampled_from(sorted(BINDINGS) + (ODD_BINDINGS if sloppy else [])), max_size=3)):
        given[name] = pick(draw, BINDINGS.get(name, ["x"]), ODD_VALUES, sloppy)
    spec = {"model": pick(draw, PATHS, ODD_PATHS, sloppy), "given": given}
    form = pick(draw, ["spec"], ["no model", "no given", "odd given", "extra", "path"], sloppy)
    if form == "no model":
        del spec["model"]
    elif form == "no given":
        del spec["given"]
    elif form == "odd given":
        spec["given"] = draw(st.sampled_from([None, "u", [], ["u"], 1]))
    elif form == "extra":
        spec["extra"] = 1
    elif form == "path":
        return spec.get("model", "")
    return spec


@st.composite
def constructs(draw) -> dict:
    """Fields of the template (as YAML text): some of the nested sum's, the product's and the join's equations, the join and the conditions."""
    sloppy = draw(st.booleans())
    which = draw(st.sets(st.sampled_from(["nested", "product", "joined", "conditions", "join", "fitting"]), min_size=1))
    values = {}  # the equations whole, as YAML strings: an expression's own quotes and colons stay its own
    if "nested" in which:
        values["equation_s"] = f"s = x * ({draw(series(draw(st.integers(2, 6)), sloppy))})"
    if "product" in which:
        values["equation_p"] = f"p = {draw(series(draw(st.integers(1, 3)), sloppy, (), ('n', 'o.m')))}"  # p in its own sum: a sloppy draw
    if "joined" in which:
        values["equation_q"] = "q = " + (draw(st.sampled_from(JOINED)) if not sloppy else draw(st.one_of(st.sampled_from(JOINED), expression(2, sloppy))))
    if "conditions" in which:
        values["conditions"] = draw(such_that(sloppy))
    if "join" in which:
        values["join"] = draw(join(sloppy))
    if "fitting" in which:
        values["condition"], values["condition2"] = draw(condition(sloppy)), draw(condition(sloppy))
    return {name: json.dumps(v) for name, v in values.items()}  # JSON is YAML: every value arrives as written


@FUZZ
@given(fields=constructs())
@example(fields={"condition2": '"if(p > sum(0 for k in range(p)), 0, 1 / n) <= 0"'})  # a guard's sum bound is not whole: a traceback once
@example(fields={"condition": '"if(if(5 > o.m, 2, 1) > prod(1 for k in range(4)), 1, 2) <= 3"'})  # SymPy's Piecewise hung loading it
@example(fields={"equation_s": '"s = x * sum(if(-3 > sum(sum(1 for a in range(5, 4)) for b in range(1)), n, factorial(p)) for k in range(2))"'})  # so did this
@example(fields={"equation_s": '"s = x * (sum(if(0 > if(sum(sum(0 for m in range(0)) for j in range(0)) > 1, p, 0), 0, 0) for k in range(0)))"'})  # KeyError in CI
@example(fields={"equation_s": '"s = x * (sum(if(0 > (prod(j for j in range(n))) + 0 + if(0 > p, k, 0), 0, 1) for k in range(1)))"'})  # Unlowerable in CI
@example(fields={"equation_p": '"p = sum(if(5 > sum(2 for j in range(1)), 0, 5 * k) for k in range(1))"'})  # CI: 30 s to load (a constant condition)
def test_generated_construct_syntax(fuzz_project, fuzz_clock, fields):
    path = fuzz_project.root / "models" / "fuzz.yaml"
    timed("test_generated_construct_syntax", repr(fields), lambda: load_solve_ask(fuzz_project, path, render(fields)))


# --- (c) bytes ---------------------------------------------------------------------------------------------------

MODELS = {
    "fuzz": render(),
    "sums": (ROOT / "tests" / "models" / "sums.yaml").read_text(),
    "conditions": (ROOT / "tests" / "models" / "conditions.yaml").read_text(),
    "stretches": (ROOT / "tests" / "models" / "stretches.yaml").read_text(),
    "outer-terms": NESTED_OUTER_TERMS.text.replace("name: chain\n", "name: outer-terms\n"),
    "outer-bounds": NESTED_OUTER_BOUNDS.text.replace("name: chain\n", "name: outer-bounds\n"),
    "sub/inner": INNER,  # the joined model, mutated: the template joins it
}


@FUZZ
@given(model=st.sampled_from(sorted(MODELS)), edits=st.lists(EDIT, min_size=1, max_size=4))
def test_mutated_construct_models(fuzz_project, fuzz_clock, model, edits):
    models = fuzz_project.root / "models"
    data = mutate(MODELS[model].encode(), edits)
    path = models / f"{model}.yaml"
    path.write_bytes(data)
    try:
        target = models / "fuzz.yaml" if model == "sub/inner" else path
        if model == "sub/inner":
            target.write_text(MODELS["fuzz"])
        timed("test_mutated_construct_models", f"{model} {edits}", lambda: load_solve_ask(fuzz_project, target))
    finally:
        if model == "sub/inner":
            path.write_text(INNER)
