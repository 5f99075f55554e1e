"""The expression language under hypothesis: values, refusals and dimensions.

(a) Random well-formed arithmetic text is parsed by chainc and, independently, by a small
    reference evaluator written here on Python's `ast` (exact fractions where the math is
    rational, 50-digit mpmath otherwise); after substituting a, b, c both must agree.
(b) Random junk never raises anything but ModelError (or parses fine).
(c) Dimension rules: + - < min max if() need equal dimensions (UnitError), * / ** sqrt combine them.
"""

from __future__ import annotations

import ast
import keyword
import math
import operator
import subprocess
import sys
import textwrap
import time
import traceback
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp
from hypothesis import HealthCheck, Phase, assume, given, note, settings
from hypothesis import strategies as st

from chainc import expr as ex
from chainc.errors import Loc, ModelError, UnitError
from chainc.units import DIMENSIONLESS, dim_str, parse_unit

ROOT = Path(__file__).resolve().parent.parent
SETTINGS = settings(
    max_examples=250,
    deadline=None,
    database=None,  # nothing written outside tests/; a failure prints its example
    phases=[Phase.explicit, Phase.generate, Phase.shrink],  # no slow "explain" phase
    report_multiple_bugs=False,  # one shrunk example per failing property is enough
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

# --- a tiny scope ---------------------------------------------------------------------------------

A, B, C = (sp.Symbol(n, positive=True) for n in "abc")
UNITS = {  # name -> unit of a dimensioned symbol
    "t": "s",
    "lat": "ms",
    "mem": "GB",
    "tok": "token",
    "req": "request",
    "flops": "FLOP",
    "rate": "token/s",
    "bw": "TB/s",
    "tpot": "ms/token",
    "kv": "B/token",
    "cost": "USD",
}
DIM = {n: parse_unit(u)[2] for n, u in UNITS.items()} | {"a": DIMENSIONLESS, "b": DIMENSIONLESS, "c": DIMENSIONLESS}
SYMS = {"a": A, "b": B, "c": C} | {n: sp.Symbol(n, positive=True) for n in UNITS}
TABLE_COLUMNS = {"step_time": DIM["lat"], "done": DIM["tok"]}


class TinyScope:
    """The Scope protocol of compiler.expr: names, one table 'steps', nothing else."""

    def lookup(self, name: str, loc: Loc) -> ex.Term:
        if name in SYMS:
            return ex.Term(SYMS[name], DIM[name])
        raise ModelError(f"unknown name '{name}'", loc, "the test scope knows a, b, c and " + ", ".join(UNITS))

    def aggregate(self, kind: str, table: str, column: str | None, loc: Loc) -> ex.Term:
        if column is not None and column not in TABLE_COLUMNS:
            raise ModelError(f"table '{table}' has no column '{column}'", loc, "columns: " + ", ".join(TABLE_COLUMNS))
        f = sp.Function(f"{kind}_{table}_{column}", real=True)
        return ex.Term(f(), DIMENSIONLESS if kind == "count" else TABLE_COLUMNS[column])

    def is_table(self, name: str) -> bool:
        return name == "steps"


SCOPE = TinyScope()


def where(line: int, col: int) -> Loc:
    return Loc("<test>", line, col + 1, "")


def parse(text: str) -> ex.Term:
    return ex.parse_expression(text, where, SCOPE)


# --- (a) random well-formed arithmetic against a reference evaluator ------------------------------

names = st.sampled_from(["a", "b", "c"])
numbers = st.one_of(  # small values and halves often, so ties (a <= b) and non-integers (floor) come up
    st.integers(0, 4).map(str),
    st.sampled_from(["0.5", "1.5", "2.5", "-0.5"]),
    st.integers(0, 1000).map(str),
    st.integers(0, 99999).map(lambda n: f"{n // 100}.{n % 100:02d}"),
    st.tuples(st.integers(1, 99), st.integers(-6, 6)).map(lambda t: f"{t[0]}e{t[1]}"),
    st.sampled_from(["0.5", ".25", "2.", "1_000", "1e-3", "1.5E2", "0", "0.0"]),
)
spaces = st.sampled_from(["", " "])


def _wrap(x: str, paren: bool) -> str:
    return f"({x})" if paren else x


def _conditions(children):
    ops = st.sampled_from(["<", "<=", ">", ">=", "==", "!="])
    compare = st.tuples(children, ops, children).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    tie = st.tuples(children, ops).map(lambda t: f"{t[0]} {t[1]} {t[0]}")  # a value against itself: < and <= differ here
    return st.one_of(
        compare,
        tie,
        st.tuples(compare, st.sampled_from(["and", "or"]), compare).map(lambda t: f"({t[0]}) {t[1]} ({t[2]})"),
        compare.map(lambda c: f"not ({c})"),
        st.tuples(children, ops, children, ops, children).map(lambda t: f"{t[0]} {t[1]} {t[2]} {t[3]} {t[4]}"),
    )


def _composite(children):
    binop = st.tuples(children, st.sampled_from(["+", "-", "*", "/"]), children, spaces, st.booleans()).map(lambda t: _wrap(f"{t[0]}{t[3]}{t[1]}{t[3]}{t[2]}", t[4]))
    power = st.tuples(children, st.integers(-3, 3), st.booleans()).map(lambda t: f"({t[0]})**{t[1]}" if t[2] else f"({t[0]}) ** ({t[1]})")
    neg = st.tuples(children, st.booleans()).map(lambda t: "-" + _wrap(t[0], t[1]))
    fn1 = st.tuples(st.sampled_from(["floor", "ceil", "abs"]), children).map(lambda t: f"{t[0]}({t[1]})")
    sqrt = children.map(lambda x: f"sqrt(abs({x}))")
    exp = children.map(lambda x: f"exp(({x}) / 1000)")  # keeps exp() finite for the reference
    log = children.map(lambda x: f"log(abs({x}) + 1)")
    extremum = st.tuples(st.sampled_from(["min", "max"]), st.lists(children, min_size=2, max_size=3)).map(lambda t: f"{t[0]}({', '.join(t[1])})")
    choose = st.tuples(_conditions(children), children, children).map(lambda t: f"if({t[0]}, {t[1]}, {t[2]})")
    return st.one_of(binop, power, neg, fn1, sqrt, exp, log, extremum, choose)


arithmetic = st.recursive(st.one_of(names, numbers), _composite, max_leaves=10)
conditions = _conditions(st.recursive(st.one_of(names, numbers), _composite, max_leaves=3))
positive_values = st.one_of(
    st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(2), Fraction(5, 2), Fraction(3)]),
    st.fractions(min_value=Fraction(1, 1000), max_value=1000, max_denominator=1000),
)


class Reject(Exception):
    """The reference cannot judge this case (division by zero, overflow, a tie under rounding)."""


DPS = 50
TIE = mpmath.mpf(10) ** -30
LIMIT = 10**60  # larger intermediate values are overflow for this test


class Reference:
    """Evaluates the expression TEXT on Python's ast, with nothing from chainc/.

    Values are Fractions while the math is rational and mpmath numbers (50 digits)
    otherwise. Every branch of if() is evaluated, so a 1/0 anywhere rejects the case.
    """

    def __init__(self, text: str, values: dict[str, Fraction]):
        self.src = text.replace("if(", "IF(")  # `if` is a keyword; chainc renames it the same way
        self.values = values
        self.scale = mpmath.mpf(1)

    def run(self):
        with mpmath.workdps(DPS):
            return self.visit(ast.parse(self.src, mode="eval").body)

    def mpf(self, x):
        return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else x

    def check(self, x):
        if isinstance(x, Fraction) and (x.numerator.bit_length() > 4000 or x.denominator.bit_length() > 4000):
            raise Reject("huge fraction")
        m = abs(self.mpf(x))
        if m > LIMIT or mpmath.isnan(m) or mpmath.isinf(m):
            raise Reject("overflow")
        self.scale = max(self.scale, m)
        return x

    def visit(self, node):
        return self.check(getattr(self, "v_" + type(node).__name__)(node))

    def v_Constant(self, node):
        return Fraction(ast.get_source_segment(self.src, node).replace("_", ""))

    def v_Name(self, node):
        return self.values[node.id]

    def v_UnaryOp(self, node):
        x = self.visit(node.operand) if not isinstance(node.op, ast.Not) else self.truth(node.operand)
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}[type(node.op)](x)

    def v_BinOp(self, node):
        x, y = self.visit(node.left), self.visit(node.right)
        if isinstance(node.op, ast.Pow):
            if not (isinstance(y, Fraction) and y.denominator == 1):
                raise AssertionError(f"the generator made a non-integer exponent in {self.src}")
            if x == 0 and y < 0:
                raise Reject("0 ** negative")
            return x ** int(y)
        if isinstance(node.op, ast.Div):
            if y == 0:
                raise Reject("division by zero")
            return x / y if isinstance(x, Fraction) and isinstance(y, Fraction) else self.mpf(x) / self.mpf(y)
        op = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}[type(node.op)]
        return op(x, y) if isinstance(x, Fraction) and isinstance(y, Fraction) else op(self.mpf(x), self.mpf(y))

    def compare(self, x, y, op):
        if not (isinstance(x, Fraction) and isinstance(y, Fraction)):
            x, y = self.mpf(x), self.mpf(y)
            if abs(x - y) <= TIE * max(1, abs(x), abs(y)):
                raise Reject("comparison of two inexact values that tie")
        return {ast.Lt: operator.lt, ast.LtE: operator.le, ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Eq: operator.eq, ast.NotEq: operator.ne}[type(op)](x, y)

    def truth(self, node) -> bool:
        if isinstance(node, ast.Compare):
            vals = [self.visit(node.left)] + [self.visit(c) for c in node.comparators]
            return all([self.compare(vals[i], vals[i + 1], op) for i, op in enumerate(node.ops)])
        if isinstance(node, ast.BoolOp):
            parts = [self.truth(v) for v in node.values]  # all of them: no short circuit hides a 1/0
            return all(parts) if isinstance(node.op, ast.And) else any(parts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return not self.truth(node.operand)
        raise AssertionError(f"not a condition: {ast.dump(node)}")

    def v_Call(self, node):
        name = node.func.id
        if name == "IF":
            cond = self.truth(node.args[0])
            x, y = self.visit(node.args[1]), self.visit(node.args[2])
            return x if cond else y
        args = [self.visit(a) for a in node.args]
        if name in ("min", "max"):
            for i in range(len(args)):
                for j in range(i):
                    self.compare(args[i], args[j], ast.Lt())  # rejects ties of inexact values
            pick = min if name == "min" else max
            return pick(args) if all(isinstance(v, Fraction) for v in args) else pick(args, key=self.mpf)
        (x,) = args
        if name == "abs":
            return abs(x)
        if name in ("floor", "ceil"):
            if isinstance(x, Fraction):
                return Fraction(math.floor(x) if name == "floor" else math.ceil(x))
            if abs(x - mpmath.nint(x)) <= TIE * max(1, abs(x)):
                raise Reject("floor/ceil of an inexact value next to an integer")
            return Fraction(int(mpmath.floor(x) if name == "floor" else mpmath.ceil(x)))
        if name == "sqrt":
            if isinstance(x, Fraction) and x >= 0:
                n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
                if n * n == x.numerator and d * d == x.denominator:
                    return Fraction(n, d)
            return mpmath.sqrt(self.mpf(x))
        if name == "exp":
            return Fraction(1) if x == 0 else mpmath.exp(self.mpf(x))
        if name == "log":
            return Fraction(0) if x == 1 else mpmath.log(self.mpf(x))
        raise AssertionError(f"unexpected function {name}")


def number_of(value: sp.Expr) -> mpmath.mpf:
    """chainc's expression after substitution -> a 50-digit number (or the test fails)."""
    v = sp.N(value, DPS)
    assert v.is_number, f"did not evaluate to a number: {value}"
    re_, im = v.as_real_imag()
    assert abs(im) <= TIE * (1 + abs(re_)), f"complex result {v}"
    return mpmath.mpf(str(re_))


def agrees_with_reference(text: str, a: Fraction, b: Fraction, c: Fraction) -> None:
    note(f"text: {text}")
    ref = Reference(text, {"a": a, "b": b, "c": c})
    try:
        want = ref.run()
    except (Reject, ZeroDivisionError, OverflowError):
        assume(False)
    term = parse(text)
    assert term.dim in (DIMENSIONLESS, ex.ANY), f"{text}: dimension {term.dim} from dimensionless parts"
    got_expr = term.expr.xreplace({A: sp.Rational(a.numerator, a.denominator), B: sp.Rational(b.numerator, b.denominator), C: sp.Rational(c.numerator, c.denominator)})
    with mpmath.workdps(DPS):
        got = number_of(got_expr)
        want = ref.mpf(want)
        note(f"chainc: {got_expr} = {got}; reference: {want}")
        tolerance = mpmath.mpf("1e-9") * max(abs(want), abs(got)) + mpmath.mpf("1e-25") * ref.scale
        assert abs(got - want) <= tolerance, f"{text} with a={a}, b={b}, c={c}: chainc gives {got}, the reference {want}"


@SETTINGS
@given(text=arithmetic, a=positive_values, b=positive_values, c=positive_values)
def test_parsed_text_evaluates_like_the_reference(text, a, b, c):
    agrees_with_reference(text, a, b, c)


@SETTINGS
@given(cond=conditions, a=positive_values, b=positive_values, c=positive_values)
def test_conditions_decide_like_the_reference(cond, a, b, c):
    agrees_with_reference(f"if({cond}, 1, 0)", a, b, c)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("-2**2", -4),  # ** binds tighter than unary minus, as in Python
        ("2**3**2", 512),  # and is right-associative
        ("2**-1", Fraction(1, 2)),
        ("7 - 3 - 2", 2),
        ("12 / 3 / 2", 2),
        ("1_000 * 1e-3", 1),
        ("0.1 + 0.2", Fraction(3, 10)),  # exact rationals, not floats
        ("min(3, 1, 2) + max(3, 1, 2)", 4),
        ("floor(-1.5) + ceil(-1.5)", -3),
        ("if(1 < 2, 10, 20)", 10),
        ("if(1 < 2 and 2 < 1, 10, 20)", 20),
        ("if(not (1 > 2), 10, 20)", 10),
        ("if(1 < 2 < 3, 10, 20)", 10),
        ("if(3 > 2 > 2, 10, 20)", 20),
        ("sqrt(16) + abs(-2)", 6),
        ("log(1) + exp(0)", 1),
        ("   1 + 2", 3),  # leading blanks are allowed
        ("1 + 2 # a comment", 3),
    ],
)
def test_known_values(text, value):
    value = Fraction(value)
    term = parse(text)
    assert sp.simplify(term.expr - sp.Rational(value.numerator, value.denominator)) == 0, f"{text} -> {term.expr}"


# --- (b) junk never escapes as anything but ModelError --------------------------------------------

JUNK_TOKENS = (
    keyword.kwlist
    + ["__import__", "__class__", "__builtins__", "__subclasses__", "__globals__", "__dict__", "_x", "self", "os", "system", "eval", "exec", "open", "print", "getattr"]
    + ["(", ")", "[", "]", "{", "}", "'", '"', '"""', "'''", "f'", "b'", "r'", "`", "\\", "\n", "\t", " ", "#", "$", "?", "!", "@", ";", ":", ",", ".", "...", "->"]
    + ["+", "-", "*", "/", "**", "//", "%", "&", "|", "^", "~", "<<", ">>", "<", ">", "<=", ">=", "==", "!=", "=", ":=", "+=", "lambda x:"]
    + ["a", "b", "c", "t", "mem", "tok", "rate", "steps", "steps.done", "steps.nope", "gpu", "llm", "gpu.memory_bandwidth", "prev", "i", "x", "IF"]
    + ["min", "max", "ceil", "floor", "log", "exp", "sqrt", "abs", "if", "sum", "last", "count"]
    + ["0", "1", "2", "2.5", "1e3", "1e999", "1e-999", "0x1f", "0o17", "0b101", "1j", "1_000", "007", "1.5e300", "10**999"]
    + ["[GB]", "[token/s]", "[parsecs]", "[s**-1]", "[1/0]", "[__import__]", "[]", "[ms/token]", "[%]"]
)
junk_soup = st.lists(st.sampled_from(JUNK_TOKENS), min_size=1, max_size=20).flatmap(lambda toks: st.sampled_from([" ".join(toks), "".join(toks)]))

# Operands and operators in turn: closer to expressions, so Python's grammar accepts more of them
OPERANDS = [
    "a",
    "b",
    "t",
    "mem",
    "0",
    "1",
    "2.5",
    "1e3",
    "0x1f",
    "1j",
    "(a)",
    "(-1)",
    "1/0",
    "0/0",
    "sqrt(-1)",
    "log(0)",
    "2[GB]",
    "1[token]",
    "steps.done",
    "count(steps)",
    "True",
    "None",
    "'s'",
    "x",
    "_a",
    "a.b",
    "(a < b)",
]
OPERATORS = ["+", "-", "*", "/", "**", "//", "%", "<", "<=", ">", ">=", "==", "!=", "and", "or", "is", "is not", "in", "not in", "if", "else", "^", "&", "|", ","]
operator_soup = st.lists(st.tuples(st.sampled_from(OPERATORS), st.sampled_from(OPERANDS)), max_size=4).flatmap(
    lambda pairs: st.tuples(st.sampled_from(OPERANDS), st.sampled_from(["", "-", "not "]), st.sampled_from(["{}", "if({}, a, b)", "min({}, a)", "({}) ** 2", "ceil({})"])).map(
        lambda t: t[2].format(t[1] + t[0] + "".join(f" {op} {x}" for op, x in pairs))
    )
)


def assert_only_model_errors(text: str) -> None:
    try:
        parse(text)
    except ModelError as e:
        assert e.loc is not None and e.loc.line >= 1, f"{text!r}: error without a location: {e.message}"
        assert e.message
    except Exception as e:  # noqa: BLE001
        shown = repr(text) if len(text) < 100 else f"{text[:60]!r}... ({len(text)} characters)"
        frame = traceback.extract_tb(e.__traceback__)[-1]
        origin = next((f for f in reversed(traceback.extract_tb(e.__traceback__)) if "/compiler/" in f.filename), frame)
        where = f"{Path(origin.filename).relative_to(ROOT) if origin.filename.startswith(str(ROOT)) else origin.filename}:{origin.lineno}"
        raise AssertionError(f"{shown} raised {type(e).__name__}: {e} at {where} (expected a ModelError or a parse)") from None


@SETTINGS
@given(st.text(max_size=60))
def test_any_text_parses_or_raises_model_error(text):
    assert_only_model_errors(text)


@SETTINGS
@given(junk_soup)
def test_token_soup_parses_or_raises_model_error(text):
    assert_only_model_errors(text)


@SETTINGS
@given(operator_soup)
def test_operator_soup_parses_or_raises_model_error(text):
    assert_only_model_errors(text)


@SETTINGS
@given(arithmetic, st.sampled_from(JUNK_TOKENS), st.data())
def test_well_formed_text_with_one_junk_token_spliced_in(text, token, data):
    at = data.draw(st.integers(0, len(text)))
    assert_only_model_errors(text[:at] + token + text[at:])


@pytest.mark.parametrize(
    "text",
    [
        "__import__('os').system('touch /tmp/chainc-pwned2')",
        "a.__class__",
        "(lambda: 1)()",
        "a[0]",
        "'GB'",
        "a ^ 2",
        "a if b else c",
        "[a, b]",
        "{a: b}",
        "a // b",
        "a % 0",  # a remainder is a - floor(a / b) * b; by 0 it has no value
        "a @ b",
        "a << b",
        "a & b",
        "~a",
        "*a",
        "a(b)",
        "gpu.memory_bandwidth",  # the test scope has no catalog
        "steps.done",
        "sum(steps)",
        "sum(steps.nope)",
        "min(a)",
        "if(a, b, c)",
        "if(a < b, a)",
        "max(a, b=1)",
        "True + a",
        "None",
        "1e999",
        "a ** 1001",
        "a ** b ** c ** 1001",
        "",
        "   ",
        "x" * 5000,
    ],
)
def test_refused_constructs_raise_model_error(text):
    with pytest.raises(ModelError) as info:
        parse(text)
    assert info.value.loc is not None


# Python syntax the whitelist forgets, and constant arithmetic SymPy cannot order: each must be a
# ModelError (or parse fine), never a KeyError, TypeError, ValueError or RecursionError.
KNOWN_CRASHERS = [
    "a is b",
    "a is not b",
    "a in b",
    "a not in b",
    "if(a is b, a, b)",
    "0x1f",
    "0o17 * a",
    "0b101 + a",
    "1/0 < 2",
    "if(0/0 < a, a, b)",
    "min(1/0, a)",
    "max(a, sqrt(-1))",
    "a ** (0/0)",
    "-" * 600 + "a",
    "a" + " + a" * 600,
]


@pytest.mark.parametrize("text", KNOWN_CRASHERS, ids=lambda t: t if len(t) < 30 else t[:12] + f"...({len(t)} chars)")
def test_python_corners_are_model_errors(text):
    assert len(text) <= ex.MAX_TEXT
    assert_only_model_errors(text)


HANG_PROBE = textwrap.dedent(
    """
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))
    from chainc import expr as ex
    from chainc.errors import Loc, ModelError

    class Scope:
        def lookup(self, name, loc): raise ModelError("unknown", loc, "")
        def aggregate(self, *args): raise ModelError("no tables", None, "")
        def is_table(self, name): return False

    try:
        ex.parse_expression(sys.argv[1], lambda line, col: Loc("<t>", line, col + 1, ""), Scope())
    except ModelError:
        pass
    """
)


HANG_TEXTS = ["((9**999)**999)**999", "1[10**10**10]"]
HANG_SECONDS = 20  # a hang ran for a minute; a loaded 2-core machine needs seconds to import chainc


@pytest.fixture(scope="module")
def hang_probes():
    """Start every probe at once (so the wait is paid once), each in its own process with 2 GB of memory."""
    procs = {t: subprocess.Popen([sys.executable, "-c", HANG_PROBE, t], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for t in HANG_TEXTS}
    started = time.monotonic()
    yield procs, started
    for proc in procs.values():
        if proc.poll() is None:
            proc.kill()
        proc.communicate()


@pytest.mark.parametrize("text", HANG_TEXTS)
def test_small_text_does_not_blow_up(hang_probes, text):
    """MAX_TEXT and MAX_EXPONENT bound single operators; nesting them must not make a 20-character expression hang."""
    procs, started = hang_probes
    proc = procs[text]
    try:
        _, err = proc.communicate(timeout=max(HANG_SECONDS - (time.monotonic() - started), 0.1))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"parsing {text!r} ({len(text)} characters) did not finish in {HANG_SECONDS} s", pytrace=False)
    assert proc.returncode == 0, err[-2000:]


# --- (c) dimensions -------------------------------------------------------------------------------

dimensioned = st.sampled_from(sorted(DIM))


@SETTINGS
@given(dimensioned, dimensioned, st.sampled_from(["+", "-"]))
def test_add_and_subtract_need_equal_dimensions(x, y, op):
    text = f"{x} {op} {y}"
    if DIM[x] == DIM[y]:
        assert parse(text).dim == DIM[x]
    else:
        with pytest.raises(UnitError) as info:
            parse(text)
        e = info.value
        assert isinstance(e, ModelError) and isinstance(e, ValueError)
        assert (e.left, e.right) == (dim_str(DIM[x]), dim_str(DIM[y]))
        assert dim_str(DIM[x]) in e.message and dim_str(DIM[y]) in e.message
        assert e.loc.col == text.index(op) + 1  # the mismatch points at the operator
        assert e.hint


@SETTINGS
@given(dimensioned, dimensioned, st.sampled_from(["<", "<=", ">", ">=", "==", "!="]))
def test_comparisons_need_equal_dimensions(x, y, op):
    text = f"if({x} {op} {y}, 1, 2)"
    if DIM[x] == DIM[y]:
        assert parse(text).dim == DIMENSIONLESS
    else:
        with pytest.raises(UnitError):
            parse(text)


@SETTINGS
@given(dimensioned, dimensioned, st.sampled_from(["min({x}, {y})", "max({x}, {y}, {x})", "if(a < b, {x}, {y})"]))
def test_choices_need_equal_dimensions(x, y, form):
    text = form.format(x=x, y=y)
    if DIM[x] == DIM[y]:
        assert parse(text).dim == DIM[x]
    else:
        with pytest.raises(UnitError):
            parse(text)


@SETTINGS
@given(st.lists(st.tuples(dimensioned, st.integers(-3, 3), st.sampled_from(["*", "/"])), min_size=1, max_size=5))
def test_products_and_powers_combine_dimensions(factors):
    text, want = "1", DIMENSIONLESS
    for name, power, op in factors:
        text += f" {op} {name}**{power}" if power != 1 else f" {op} {name}"
        want = want * DIM[name] ** power if op == "*" else want / DIM[name] ** power
    term = parse(text)
    assert term.dim == want, f"{text}: {term.dim} != {want}"


@SETTINGS
@given(dimensioned)
def test_sqrt_halves_and_zero_fits_any_dimension(x):
    assert parse(f"sqrt({x} * {x})").dim == DIM[x]
    assert parse(f"{x} + 0").dim == DIM[x]
    assert parse(f"0 - {x}").dim == DIM[x]
    assert parse(f"if({x} > 0, {x}, 0)").dim == DIM[x]
    if DIM[x] != DIMENSIONLESS:
        for fn in ("ceil", "floor", "exp", "log"):
            with pytest.raises(UnitError):
                parse(f"{fn}({x})")
        with pytest.raises(UnitError):
            parse(f"2 ** {x}")
        assert parse(f"ceil({x} / {x})").dim == DIMENSIONLESS


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [  # base units: second, bit, token, request, FLOP
        ("2[GB]", 16 * 10**9, "GB"),
        ("1[KiB]", 8192, "KiB"),
        ("50[GB/s]", 400 * 10**9, "GB/s"),
        ("10[ms]", Fraction(1, 100), "ms"),
        ("10[ms/token]", Fraction(1, 100), "ms/token"),
        ("3[token/s]", 3, "token/s"),
        ("1.5[TFLOP/s]", 15 * 10**11, "TFLOP/s"),
        ("2[FLOP/token**2]", 2, "FLOP/token**2"),
        ("1[h]", 3600, "h"),
        ("0[GB]", 0, "GB"),
    ],
)
def test_unit_literals(text, value, unit):
    term = parse(text)
    assert term.expr == sp.Rational(Fraction(value).numerator, Fraction(value).denominator)
    assert term.dim == parse_unit(unit)[2]


def test_unit_literal_times_name():
    assert parse("mem / bw").dim == DIM["t"]
    assert parse("tok * kv").dim == DIM["mem"]
    assert parse("tpot * tok").dim == DIM["t"]
    assert parse("rate * t").dim == DIM["tok"]
    assert parse("mem + 1[GiB]").dim == DIM["mem"]
    with pytest.raises(UnitError) as info:
        parse("mem + 1[token]")
    assert "information" in info.value.message and "token" in info.value.message


def test_aggregates():
    assert parse("sum(steps.step_time)").dim == DIM["lat"]
    assert parse("last(steps.done) / 1[token]").dim == DIMENSIONLESS
    assert parse("count(steps)").dim == DIMENSIONLESS
    assert parse("max(steps.step_time) + t").dim == DIM["t"]
    with pytest.raises(UnitError):
        parse("sum(steps.step_time) + tok")


@pytest.mark.parametrize(
    ("text", "message", "col"),
    [  # SymPy would cancel these to a number (1 / (a / 0) is 0) or keep a zoo that no program can hold
        ("1 / (a / min(1, 0))", "division by zero: min(1, 0) is 0", 10),
        ("1 / (a * (b - b) ** -1)", "this expression has no finite real value", 10),
        ("a + 1 / (a / log(1))", "division by zero: log(1) is 0", 14),
        ("1 / (a * log(0))", "this expression has no finite real value", 10),
    ],
)
def test_a_constant_without_a_value_is_refused_where_it_is_written(text, message, col):
    with pytest.raises(ModelError) as info:
        parse(text)
    assert info.value.message == message
    assert info.value.loc.col == col, info.value.loc  # 1-based: the divisor or the constant, not the expression's start


@pytest.mark.parametrize(("text", "per_second"), [("2 1/s", 2), ("5 /s", 5), ("1.5 1/ms", 1500), ("3 1/min", 0.05)])
def test_a_reciprocal_unit_as_chainc_prints_it_is_a_quantity(tmp_path, text, per_second):
    """`2 1/s` (how chainc prints a rate) was a syntax error: in a default, in expect: and on the command line it is 2 per second."""
    import chainc
    from chainc.cli import main

    model = tmp_path / "rates.yaml"
    model.write_text(
        f'name: rates\ntitle: rates\nvariables:\n  rate: {{unit: 1/s, value: "{text}"}}\n  n: {{}}\nequations:\n  - n = rate * 1[s]\nchecks:\n  - about: as written\n    expect: {{rate: "{text}"}}\n'
    )
    assert float(chainc.solve(str(model)).values["n"]) == pytest.approx(per_second)
    assert float(chainc.solve(str(model), rate=text).values["n"]) == pytest.approx(per_second)
    assert chainc.run_checks(str(model))[0].ok
    assert main(["solve", str(model), "--given", f"rate={text}", "--json"]) == 0


def test_a_division_with_spaces_stays_an_expression(tmp_path):
    import chainc

    model = tmp_path / "half.yaml"
    model.write_text('name: half\ntitle: half\nvariables:\n  tp: {value: 4}\n  x: {value: "8 / tp"}\n  y: {}\nequations:\n  - y = x\n')
    with pytest.raises(chainc.errors.ModelError):  # a default is a number, not an expression of other variables: refused, not read as a unit
        chainc.solve(str(model))
