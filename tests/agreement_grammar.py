"""A grammar of small random chains, for tests/test_agreement.py.

`chains()` draws a `Chain`: a model written as YAML text (inputs with units and
domains, computed variables each defined from earlier ones, sometimes through an
equation SymPy must rearrange, an occasional table with an aggregate that a scalar
reads, an occasional question), a few other input points to evaluate it at, and
sometimes a backwards query (find an input from a computed value).

Every expression is built for a dimension, so the units always check: a variable of
that dimension, a literal such as `2[token/s]`, sums and differences of the same
dimension, products and quotients whose dimensions add up, min/max, ceil/floor of a
dimensionless ratio, if(), small powers and `** 0.5`. The dimensions are exponents of
(time, token, information); literals name them with s, token and GB.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from hypothesis import strategies as st

Dim = tuple[int, int, int]  # exponents of time, token, information
ZERO: Dim = (0, 0, 0)
TIME, TOKEN, RATE, BYTES = (1, 0, 0), (0, 1, 0), (-1, 1, 0), (0, 0, 1)
DIMS = (ZERO, TIME, TOKEN, RATE, BYTES)
# the display units a variable of each dimension may have (the first is the plainest)
UNITS = {ZERO: ("", "percent"), TIME: ("s", "ms"), TOKEN: ("token",), RATE: ("token/s",), BYTES: ("GB", "MB")}
NUMBERS = ("2", "1", "3", "0.5", "10", "1.5", "0.25", "4", "100", "7")
VALUES = (2, 1, 3, 0.5, 10, 1.5, 4, 0.25, 7, 100, 12.5)
ODD_VALUES = (0, -1, -2.5, 0.5, 1e-3, 1e4)  # points that may fall outside a domain


def add(a: Dim, b: Dim) -> Dim:
    return tuple(x + y for x, y in zip(a, b))


def sub(a: Dim, b: Dim) -> Dim:
    return tuple(x - y for x, y in zip(a, b))


def scale(a: Dim, k: int) -> Dim:
    return tuple(x * k for x in a)


def unit_text(d: Dim, spelling: int = 0) -> str:
    """A unit of dimension d: 'token/s', 'GB*s', '1/s**2'."""
    symbols = (("s", "ms")[spelling % 2], "token", ("GB", "MiB")[spelling % 2])
    up = [s + (f"**{e}" if e > 1 else "") for s, e in zip(symbols, d) if e > 0]
    down = [s + (f"**{-e}" if e < -1 else "") for s, e in zip(symbols, d) if e < 0]
    text = "*".join(up) or "1"
    return text + "".join(f"/{s}" for s in down)


def literal(number: str, d: Dim, spelling: int = 0) -> str:
    return number if d == ZERO else f"{number}[{unit_text(d, spelling)}]"


def wrap(text: str) -> str:
    """Parenthesised unless it is a name, a number, a literal or a call."""
    plain = text.replace("_", "").replace(".", "")
    if plain.isalnum() or (text.endswith("]") and "[" in text and " " not in text) or (text.endswith(")") and _one_call(text)):
        return text
    return f"({text})"


def _one_call(text: str) -> bool:
    """`f(...)` with the parentheses closing only at the end."""
    head = text.split("(", 1)[0]
    if not head.isidentifier():
        return False
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ")" and k != len(text) - 1:
            return False
    return True


@dataclass(frozen=True)
class Chain:
    """A random chain: the model's YAML, other input points (display units), and an optional backwards query."""

    text: str
    points: tuple = ()  # ({input: value}, ...)
    query: tuple | None = None  # (find, given): an input found from a computed variable's value


@dataclass
class Scope:
    """What an expression may read: names with their dimensions, and a table's columns (for aggregates)."""

    names: list = field(default_factory=list)  # [(name, dim)]
    aggregates: list = field(default_factory=list)  # [(text, dim)]: sum(t.c0), count(t), ...


class Builder:
    """Draws expressions of a given dimension over a scope (records the names each one reads)."""

    def __init__(self, draw, scope: Scope):
        self.draw, self.scope, self.read = draw, scope, set()

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 99)) < p * 100

    def name(self, d: Dim) -> str | None:
        names = [n for n, e in self.scope.names if e == d]
        if not names:
            return None
        n = self.choice(names)
        self.read.add(n.split(".")[-1] if n.startswith("prev.") else n)
        return n

    def maybe_name(self, d: Dim) -> str | None:
        """A name of dimension d, most of the time (None: write a literal instead)."""
        return self.name(d) if self.chance(0.8) else None

    def literal(self, d: Dim, nonzero: bool = False) -> str:
        if not nonzero and self.chance(0.05):
            return "0"  # a bare 0 has every dimension
        return literal(self.choice(NUMBERS), d, self.draw(st.integers(0, 1)))

    def expr(self, d: Dim, depth: int, nonzero: bool = False) -> str:
        """An expression of dimension d; `nonzero`: no literal 0 at its top (a divisor: x / 0 is refused at load)."""
        if depth <= 0:
            n = self.maybe_name(d)
            return n if n is not None else self.literal(d, nonzero)
        kind = self.choice(("name", "name", "literal", "+", "-", "*", "/", "min", "max", "round", "if", "power", "aggregate"))
        sub_ = depth - 1
        if kind == "name":
            n = self.name(d)
            return n if n is not None else self.expr(d, sub_, nonzero)
        if kind == "literal":
            return self.literal(d, nonzero)
        if kind in "+-":
            return f"{self.expr(d, sub_)} {kind} {wrap(self.expr(d, sub_))}"
        if kind == "*":
            e = self.choice(DIMS)
            return f"{wrap(self.expr(e, sub_))} * {wrap(self.expr(sub(d, e), sub_))}"
        if kind == "/":
            e = self.choice(DIMS)
            return f"{wrap(self.expr(add(d, e), sub_))} / {wrap(self.expr(e, sub_, nonzero=True))}"
        if kind in ("min", "max"):
            return f"{kind}({self.expr(d, sub_)}, {self.expr(d, sub_)})"
        if kind == "round":
            fn = self.choice(("ceil", "floor"))
            if d == ZERO:
                return f"{fn}({self.expr(ZERO, sub_)})"
            unit = literal(self.choice(("1", "0.5", "2")), d)
            return f"{fn}({wrap(self.expr(d, sub_))} / {unit}) * {unit}"
        if kind == "if":
            e = self.choice(DIMS)
            op = self.choice(("<", "<=", ">", ">="))
            return f"if({self.expr(e, sub_)} {op} {self.expr(e, sub_)}, {self.expr(d, sub_)}, {self.expr(d, sub_)})"
        if kind == "power":
            if d == ZERO:
                k = self.choice(("2", "3", "-1", "0.5", "-2"))
                return f"{wrap(self.expr(ZERO, sub_))} ** {k}"
            if all(x % 2 == 0 for x in d) and self.chance(0.5):
                return f"{wrap(self.expr(tuple(x // 2 for x in d), sub_))} ** 2"
            form = self.choice(("** 0.5", "sqrt"))
            inner = self.expr(scale(d, 2), sub_)
            return f"{wrap(inner)} ** 0.5" if form == "** 0.5" else f"sqrt({inner})"
        # an aggregate of a table the scalars can read
        options = [text for text, e in self.scope.aggregates if e == d]
        if not options:
            return self.expr(d, sub_, nonzero)
        text = self.choice(options)
        self.read.add("$table")
        return text


def _value(draw, integer: bool, domain: str) -> int | float:
    if integer:
        return draw(st.integers(0 if domain != "positive" else 1, 6))
    v = draw(st.sampled_from(VALUES))
    return -v if domain == "real" and draw(st.integers(0, 9)) == 0 else v


def _number(x) -> str:
    return json.dumps(x)


@st.composite
def chains(draw) -> Chain:
    """A random chain (see the module's docstring)."""
    variables: list[str] = []  # YAML lines
    equations: list[str] = []
    scope = Scope()
    inputs: dict[str, dict] = {}  # name -> {dim, unit, integer, domain, value}
    deps: dict[str, set] = {}  # computed name -> the inputs it reads (through others)
    dims: dict[str, Dim] = {}
    units: dict[str, str] = {}
    k = 0

    def fresh() -> str:
        nonlocal k
        k += 1
        return f"a{k - 1}"

    for _ in range(draw(st.integers(1, 4))):
        n = fresh()
        d = draw(st.sampled_from(DIMS))
        unit = draw(st.sampled_from(UNITS[d]))
        integer = d in (ZERO, TOKEN) and draw(st.integers(0, 4)) == 0
        domain = draw(st.sampled_from(("positive", "positive", "nonnegative", "real")))
        value = _value(draw, integer, domain)
        spec = {"unit": unit} if unit else {}
        spec["value"] = value
        if domain != "positive":
            spec["domain"] = domain
        if integer:
            spec["integer"] = True
        if draw(st.integers(0, 6)) == 0:  # bounds around the default
            spec["min"] = value - draw(st.sampled_from((0, 1, 0.5)))
            if domain == "positive" and spec["min"] <= 0:
                del spec["min"]
        if draw(st.integers(0, 6)) == 0:
            spec["max"] = value + draw(st.sampled_from((0, 2, 10)))
        variables.append(f"  {n}: {{{', '.join(f'{key}: {_number(v)}' for key, v in spec.items())}}}")
        inputs[n] = {"dim": d, "integer": integer, "domain": domain, "value": value}
        scope.names.append((n, d))
        dims[n], units[n] = d, unit
        deps[n] = {n}

    table_at = draw(st.integers(0, 4)) if draw(st.integers(0, 3)) == 0 else None
    tables: list[str] = []
    computed = draw(st.integers(1, 5))
    force_aggregate = False
    for j in range(computed):
        if table_at is not None and j == min(table_at, computed - 1) and not tables:
            tables = _table(draw, scope, inputs, deps)
            force_aggregate = True
        n = fresh()
        d = draw(st.sampled_from(DIMS))
        unit = draw(st.sampled_from(UNITS[d]))
        domain = draw(st.sampled_from(("real", "real", "positive", "nonnegative")))
        spec = {"unit": unit} if unit else {}
        if domain != "positive":
            spec["domain"] = domain
        variables.append(f"  {n}: {{{', '.join(f'{key}: {_number(v)}' for key, v in spec.items())}}}" if spec else f"  {n}: {{}}")
        b = Builder(draw, scope)
        depth = draw(st.integers(1, 3))
        rhs = b.expr(d, depth)
        if force_aggregate and scope.aggregates:
            text, e = draw(st.sampled_from(scope.aggregates))
            rhs = f"{wrap(rhs)} + {text} * {literal('1', sub(d, e))}" if sub(d, e) != ZERO else f"{wrap(rhs)} + {text}"
            b.read.add("$table")
            force_aggregate = False
        equations.append(_equation(draw, b, n, d, rhs))
        deps[n] = set().union(*(deps.get(r, set()) for r in b.read)) if b.read else set()
        scope.names.append((n, d))
        dims[n], units[n] = d, unit

    questions = _questions(draw, inputs, deps, dims, units)
    lines = ["name: chain", "title: a random chain", "variables:", *variables, "equations:", *(f"  - {json.dumps(e)}" for e in equations)]
    if tables:
        lines += ["tables:", *tables]
    if questions:
        lines += ["questions:", *questions]
    points = tuple(_point(draw, inputs) for _ in range(draw(st.integers(1, 3))))
    query = None
    if draw(st.integers(0, 3)) == 0:
        pairs = [(x, y) for y, ins in sorted(deps.items()) if y not in inputs and not y.startswith("$") for x in sorted(ins) if x in inputs]
        if pairs:
            query = draw(st.sampled_from(pairs))
    return Chain("\n".join(lines) + "\n", points, query)


def _equation(draw, b: Builder, n: str, d: Dim, rhs: str) -> str:
    """n defined by rhs, sometimes written so that SymPy must rearrange it (or solve it numerically)."""
    form = draw(st.sampled_from(("plain", "plain", "plain", "scaled", "shifted", "over", "square", "numeric")))
    if form == "scaled":
        c = draw(st.sampled_from(("2", "0.5", "3")))
        return f"{n} * {c} = {rhs}" if draw(st.booleans()) else f"{c} * {n} = {rhs}"
    if form == "shifted":
        return f"{n} + {wrap(b.expr(d, 1))} = {rhs}"
    if form == "over":  # rhs / n = r: n = rhs / r
        return f"{wrap(rhs)} / {n} = {wrap(b.expr(ZERO, 1, nonzero=True))}"
    if form == "square":  # two roots: the domain picks one (or cannot)
        return f"{n} ** 2 = {wrap(rhs)} * {wrap(b.expr(d, 1))}"
    if form == "numeric":  # no closed form: a bracketed search
        return f"{n} + {draw(st.sampled_from(('min', 'max')))}({n}, {b.expr(d, 0)}) = {rhs}"
    return f"{n} = {rhs}"


def _table(draw, scope: Scope, inputs: dict, deps: dict) -> list[str]:
    """A table t: a small row count, columns over i, prev.<col>, earlier columns and scalars; its aggregates join the scope."""
    b = Builder(draw, scope)
    whole = [n for n, v in inputs.items() if v["integer"]]
    if whole and draw(st.booleans()):
        n = draw(st.sampled_from(whole))
        rows = n if inputs[n]["dim"] == ZERO else f"ceil({n} / 1[token])"
        b.read.add(n)
    else:
        rows = f"min(ceil({b.expr(ZERO, draw(st.integers(0, 2)))}), {draw(st.sampled_from((4, 3, 6, 1, 0)))})"
    cols: list[tuple[str, Dim]] = []
    out = ["  t:", f"    rows: {json.dumps(rows)}"]
    if draw(st.integers(0, 4)) == 0:
        out.append(f"    max_rows: {draw(st.integers(2, 6))}")
    out.append("    columns:")
    count = draw(st.integers(1, 3))
    col_dims = [draw(st.sampled_from(DIMS)) for _ in range(count)]
    for j, d in enumerate(col_dims):
        names = [("i", ZERO)] + [(f"prev.c{m}", e) for m, e in enumerate(col_dims)] + [(f"c{m}", e) for m, e in cols]
        cb = Builder(draw, Scope(scope.names + names, []))
        formula = cb.expr(d, draw(st.integers(1, 3)))
        b.read |= {r for r in cb.read if not r.startswith("c") and r != "i"}
        unit = draw(st.sampled_from(UNITS[d]))
        spec = {"formula": formula}
        if unit:
            spec["unit"] = unit
        if draw(st.integers(0, 3)) == 0:
            v = draw(st.sampled_from(VALUES))
            spec["initial"] = f"{v} {unit_text(d)}" if d != ZERO else v
        out.append(f"      c{j}: {{{', '.join(f'{key}: {json.dumps(v)}' for key, v in spec.items())}}}")
        cols.append((f"c{j}", d))
    reads = set().union(*(deps.get(r, set()) for r in b.read)) if b.read else set()
    deps["$table"] = reads
    for name, d in cols:
        for kind in ("sum", "last", "max", "min"):
            scope.aggregates.append((f"{kind}(t.{name})", d))
    scope.aggregates.append(("count(t)", ZERO))
    return out


def _questions(draw, inputs: dict, deps: dict, dims: dict, units: dict) -> list[str]:
    out = []
    for q in range(draw(st.sampled_from((0, 0, 1, 1, 2)))):
        pairs = [(x, y) for y, ins in sorted(deps.items()) if y not in inputs and not y.startswith("$") for x in sorted(ins) if x in inputs]
        if not pairs:
            return out
        x, y = draw(st.sampled_from(pairs))
        op = draw(st.sampled_from(("<=", ">=", "<", ">")))
        targets = [n for n, v in inputs.items() if v["dim"] == dims[y] and n != x]
        if targets and draw(st.integers(0, 3)) == 0:
            target = draw(st.sampled_from(targets))
        else:
            number = draw(st.sampled_from(NUMBERS + ("20", "0.1", "1000")))
            target = f"{number}[{units[y]}]" if units[y] else number
        spec = {"find": x, "such_that": f"{y} {op} {target}", "seek": draw(st.sampled_from(("max", "min")))}
        if draw(st.integers(0, 3)) == 0:
            spec["step"] = draw(st.sampled_from((0.5, 1, 0.01, 0.25)))
        out.append(f"  q{q}: {{{', '.join(f'{key}: {json.dumps(v)}' for key, v in spec.items())}}}")
    return out


def _point(draw, inputs: dict) -> dict:
    """Other values for some inputs (display units); now and then one outside its domain."""
    point = {}
    for n, v in inputs.items():
        if not draw(st.booleans()):
            continue
        if draw(st.integers(0, 7)) == 0:
            point[n] = draw(st.sampled_from(ODD_VALUES))
        elif v["integer"]:
            point[n] = draw(st.integers(0, 7))
        else:
            point[n] = draw(st.sampled_from(VALUES))
    return point
