"""A grammar of small random chains, for tests/test_agreement.py.

`chains()` draws a `Chain`: a model written as YAML text (inputs with units and
domains, computed variables each defined from earlier ones, sometimes through an
equation SymPy must rearrange, an occasional table with an aggregate that a scalar
reads, an occasional question, with one condition or several), a few other input
points to evaluate it at, and sometimes a backwards query (find an input from a
computed value).

Expressions (tests/agreement_exprs.py) are built for a dimension, so the units always
check; they include finite sums and products, nested with the inner part apart from
the outer index, reading it in its terms, or in its bounds.

Now and then the chain joins another model: a small chain of its own (inputs, computed
variables, sums; no tables or imports, which a join cannot carry), written to
models/sub/, bound with `uses: {models: {o: {model: sub/inner.yaml, given: {...}}}}` to
expressions of the chain's inputs; the chain reads its variables as `o.<name>`, in
equations and in questions' conditions.

A third of the chains search their inputs (`_searches`): an objective over one input, a grid of
two with a condition, a frontier, sometimes with an inner question answered at each configuration.
What they search is chosen from what was already drawn, so the chains themselves are the ones drawn
before searches joined the grammar.
"""

from __future__ import annotations

import json
import random
import zlib
from dataclasses import dataclass, field

from hypothesis import strategies as st

from .agreement_dims import DIMS, NUMBERS, ODD_VALUES, TOKEN, UNITS, VALUES, ZERO, Dim, literal, sub, unit_text, wrap
from .agreement_exprs import Builder, Scope

__all__ = ["Chain", "chains", "ODD_VALUES", "JOINED"]
JOINED = "o"  # the alias a chain joins its other model under


@dataclass(frozen=True)
class Chain:
    """A random chain: the model's YAML, other input points (display units), an optional backwards query, the models it joins."""

    text: str
    points: tuple = ()  # ({input: value}, ...)
    query: tuple | None = None  # (find, given): an input found from a computed variable's value
    files: tuple = ()  # (stem, YAML): a joined model, written as models/sub/<chain>-<stem>.yaml (the text says sub/<stem>.yaml)
    constructs: frozenset = frozenset()  # what the grammar drew: "sum", "nested", "join", "conditions", ... (for the counts)


@dataclass
class Draft:
    """A model being drawn: its YAML lines, and for each name its dimension, unit and the inputs it reads (through others)."""

    prefix: str  # of its names: a0, a1, ... (the chain) or u0, u1, ... (a joined model)
    variables: list = field(default_factory=list)
    equations: list = field(default_factory=list)
    scope: Scope = field(default_factory=Scope)
    inputs: dict = field(default_factory=dict)  # name -> {dim, integer, domain, value}
    choices: dict = field(default_factory=dict)  # a choice input (lookups:) -> its names; not in inputs (no question or query finds a name)
    deps: dict = field(default_factory=dict)  # name -> the inputs it reads
    dims: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    made: set = field(default_factory=set)
    questions: list = field(default_factory=list)  # (question, the input it finds)
    count: int = 0

    def fresh(self) -> str:
        self.count += 1
        return f"{self.prefix}{self.count - 1}"

    def add_input(self, draw) -> None:
        n = self.fresh()
        d = draw(st.sampled_from(DIMS))
        unit = draw(st.sampled_from(UNITS[d]))
        integer = d in (ZERO, TOKEN) and draw(st.integers(0, 4)) == 0
        unit = "" if integer and unit == "percent" else unit  # 5 percent is no whole number
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
        members = None
        if "min" not in spec and "max" not in spec and draw(st.integers(0, 5)) == 0:  # a set of values around the default
            steps = draw(st.lists(st.sampled_from((1, 2, 3, 5, 16) if integer else (0.5, 1, 2.5, 10)), min_size=1, max_size=4))
            members = spec["values"] = sorted({value, *(value + e for e in steps)})
        self.variables.append(f"  {n}: {_flow(spec)}")
        self.inputs[n] = {"dim": d, "integer": integer, "domain": domain, "value": value, "values": members, "min": spec.get("min"), "max": spec.get("max")}
        self.scope.names.append((n, d))
        if integer:
            self.scope.whole.append((n, d, "max" in spec))
        self.dims[n], self.units[n] = d, unit
        self.deps[n] = {n}

    def add_computed(self, draw, force_aggregate: bool = False, reads: tuple | None = None) -> None:
        n = self.fresh()
        d = draw(st.sampled_from(DIMS))
        unit = draw(st.sampled_from(UNITS[d]))
        domain = draw(st.sampled_from(("real", "real", "positive", "nonnegative")))
        spec = {"unit": unit} if unit else {}
        if domain != "positive":
            spec["domain"] = domain
        self.variables.append(f"  {n}: {_flow(spec)}")
        b = Builder(draw, self.scope)
        rhs = b.expr(d, draw(st.integers(1, 3)))
        if force_aggregate and self.scope.aggregates:
            text, e = draw(st.sampled_from(self.scope.aggregates))
            rhs = f"{wrap(rhs)} + {text} * {literal('1', sub(d, e))}" if sub(d, e) != ZERO else f"{wrap(rhs)} + {text}"
            b.read.add("$table")
        if reads is not None:  # a term it must read (a lookup), scaled to its dimension
            text, e = reads
            rhs = f"{wrap(rhs)} + {text} * {literal('1', sub(d, e))}" if sub(d, e) != ZERO else f"{wrap(rhs)} + {text}"
            b.read.add(text)
        eq = _equation(draw, b, n, d, rhs)
        if draw(st.integers(0, 6)) == 0:  # valid only below a bound: the edge of its domain, in every backend
            name, dim = draw(st.sampled_from([(n, d), *self.scope.names]))
            eq = {"equation": eq, "valid_when": f"{name} <= {literal(draw(st.sampled_from(('0.5', '2', '100'))), dim)}"}
        self.equations.append(eq)
        self.made |= b.made
        self.deps[n] = set().union(*(self.deps.get(r, set()) for r in b.read)) if b.read else set()
        self.scope.names.append((n, d))
        self.dims[n], self.units[n] = d, unit

    def pairs(self) -> list[tuple[str, str]]:
        """(input, computed name that reads it): what a question or a backwards query can ask."""
        return [(x, y) for y, ins in sorted(self.deps.items()) if y not in self.inputs and not y.startswith("$") for x in sorted(ins) if x in self.inputs]


def _flow(spec: dict) -> str:
    return "{" + ", ".join(f"{key}: {json.dumps(v)}" for key, v in spec.items()) + "}"


@st.composite
def chains(draw) -> Chain:
    """A random chain (see the module's docstring)."""
    m = Draft("a")
    for _ in range(draw(st.integers(1, 4))):
        m.add_input(draw)
    uses, files = [], ()
    if draw(st.integers(0, 4)) == 0:
        uses, inner = _join(draw, m)
        files = (("inner", inner),)
        m.made.add("join")
    lookups = _lookup(draw, m) if draw(st.integers(0, 4)) == 0 else []
    table_at = draw(st.integers(0, 4)) if draw(st.integers(0, 3)) == 0 else None
    tables: list[str] = []
    computed = draw(st.integers(1, 5))
    for j in range(computed):
        force_aggregate = False
        if table_at is not None and j == min(table_at, computed - 1) and not tables:
            tables = _table(draw, m)
            force_aggregate = True
        m.add_computed(draw, force_aggregate)
    if lookups:  # one more variable reads the lookup, so every chain that draws one uses it
        m.add_computed(draw, reads=next((t, e) for t, e in m.scope.names if t.startswith("l[")))
    questions = _questions(draw, m)
    lines = ["name: chain", "title: a random chain", *uses, *lookups, "variables:", *m.variables, "equations:", *(f"  - {json.dumps(e)}" for e in m.equations)]
    if tables:
        lines += ["tables:", *tables]
    if questions:
        lines += ["questions:", *questions]
    if len(m.equations) % 3 == 1:  # a physical limit on the last value; chosen from what was drawn, drawing nothing (the stream stays as it was)
        name, dim = m.scope.names[-1]
        op, bound = ("<=", ">", "<", ">=")[len(m.variables) % 4], ("0.5", "2", "100")[len(m.inputs) % 3]
        lines += ["limits:", f"  bound: {json.dumps(f'{name} {op} {literal(bound, dim)}')}"]
        m.made.add("limits")
    points = tuple({**_point(draw, m.inputs), **_names(draw, m.choices)} for _ in range(draw(st.integers(1, 3))))
    query = None
    if draw(st.integers(0, 3)) == 0:
        pairs = [(x, y) for x, y in m.pairs() if "." not in y]  # a query's given is a variable of the chain's own
        if pairs:
            query = draw(st.sampled_from(pairs))
    rng = random.Random(zlib.crc32("\n".join(lines).encode()))
    if rng.randint(0, 2) == 0:  # searches, chosen from what was drawn, drawing nothing (the stream stays as it was)
        searches, frontiers = _searches(rng, m)
        if searches:
            lines += [] if questions else ["questions:"]
            lines[lines.index("questions:") + 1 + len(questions) : lines.index("questions:") + 1 + len(questions)] = searches
        lines += ["frontiers:", *frontiers] if frontiers else []
    return Chain("\n".join(lines) + "\n", points, query, files, frozenset(m.made))


def _join(draw, m: Draft) -> tuple[list[str], str]:
    """A small model joined under JOINED, some of its inputs bound to expressions of m's inputs: (m's uses: lines, its YAML)."""
    inner = Draft("u")
    for _ in range(draw(st.integers(1, 3))):
        inner.add_input(draw)
    for _ in range(draw(st.integers(1, 3))):
        inner.add_computed(draw)
    m.made |= inner.made
    text = "\n".join(["name: inner", "title: a joined model", "variables:", *inner.variables, "equations:", *(f"  - {json.dumps(e)}" for e in inner.equations)]) + "\n"
    given, reads = {}, {}
    for u, spec in inner.inputs.items():
        if spec["integer"]:  # a whole number: bound to a whole-number input of the chain's, if it has one
            whole = [n for n, d, _ in m.scope.whole if d == spec["dim"]]
            if whole and draw(st.integers(0, 9)) < 7:
                given[u] = draw(st.sampled_from(whole))
                reads[u] = {given[u]}
        elif draw(st.integers(0, 9)) < 6:
            b = Builder(draw, Scope(list(m.scope.names)))
            given[u] = b.expr(spec["dim"], draw(st.integers(0, 1)))
            reads[u] = set().union(*(m.deps.get(r, set()) for r in b.read)) if b.read else set()
    for n in inner.dims:  # the chain reads the joined variables as o.<name>
        name = f"{JOINED}.{n}"
        m.scope.names.append((name, inner.dims[n]))
        m.dims[name], m.units[name] = inner.dims[n], inner.units[n]
        m.deps[name] = set().union(*(reads.get(u, set()) for u in inner.deps[n]))
    uses = ["uses:", "  models:", f"    {JOINED}: {{model: sub/inner.yaml, given: {_flow(given)}}}"]
    return uses, text


def _lookup(draw, m: Draft) -> list[str]:
    """A lookup l of one dimension and a choice input that picks from it; `l[<input>]` joins the scope as a value of that dimension."""
    d = draw(st.sampled_from(DIMS))
    unit = draw(st.sampled_from(UNITS[d]))
    keys = draw(st.lists(st.sampled_from(("bf16", "fp8", "int4", "e4m3", "k1")), min_size=1, max_size=4, unique=True))
    values = {k: draw(st.sampled_from(VALUES)) for k in keys}
    body = {"unit": unit, "values": values} if unit else {"values": values}
    n = m.fresh()
    names = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=len(keys), unique=True)) if draw(st.booleans()) else keys
    m.variables.append(f"  {n}: {_flow({'choices': 'l' if names == keys else names, 'value': draw(st.sampled_from(names))})}")
    m.choices[n] = names
    m.scope.names.append((f"l[{n}]", d))
    m.deps[f"l[{n}]"] = set()  # a name is never found: no question or query reads through it
    m.made.add("lookup")
    return ["lookups:", f"  l: {_flow(body)}"]


def _names(draw, choices: dict) -> dict:
    """Other names for some choice inputs."""
    return {n: draw(st.sampled_from(names)) for n, names in choices.items() if draw(st.booleans())}


def _questions(draw, m: Draft) -> list[str]:
    """Questions of one condition or, now and then, several (joined by `and`, or a mapping of labelled conditions)."""
    out = []
    for q in range(draw(st.sampled_from((0, 0, 1, 1, 2)))):
        pairs = m.pairs()
        if not pairs:
            return out
        x, y = draw(st.sampled_from(pairs))
        conditions = [_condition(draw, m, x, y)]
        if draw(st.integers(0, 2)) == 0:  # several conditions on the same variable
            others = [p for p in pairs if p[0] == x]
            for _ in range(draw(st.integers(1, 2))):
                conditions.append(_condition(draw, m, x, draw(st.sampled_from(others))[1]))
            m.made.add("conditions")
        if len(conditions) == 1:
            such_that = conditions[0]
        elif draw(st.booleans()):
            such_that = " and ".join(conditions)
        else:
            such_that = {label: c for label, c in zip(("lat", "mem", "cost"), conditions)}
        spec = {"find": x, "such_that": such_that, "seek": draw(st.sampled_from(("max", "min")))}
        if draw(st.integers(0, 3)) == 0:  # a whole number's step is whole
            spec["step"] = draw(st.sampled_from((1, 2) if m.inputs[x]["integer"] else (0.5, 1, 0.01, 0.25)))
        out.append(f"  q{q}: {_flow(spec)}")
        m.questions.append((f"q{q}", x))
    return out


def _searches(rng: random.Random, m: Draft) -> tuple[list[str], list[str]]:
    """Searches over the chain's inputs (questions: entries) and a frontier (frontiers: entries): an objective over one
    input (its set, its whole numbers between bounds, its range between bounds, or values listed), a grid of two inputs
    with a condition, now and then an inner question (with:) answered at each configuration.

    Chosen by `rng`, seeded from what was drawn, drawing nothing: the chains drawn before searches joined the grammar
    are drawn as they were (a draw here would shift every later example of the derandomized runs)."""
    pairs = [(x, y) for x, y in m.pairs() if "." not in y]  # an objective is a variable of the chain's own
    if not pairs:
        return [], []
    questions, frontiers = [], []
    for k, kind in enumerate(rng.sample(("objective", "grid", "frontier"), rng.randint(1, 2))):
        free = [p for p in pairs if p[0] not in {f for _, f in m.questions}]  # an input no question finds leaves one for with:
        x, y = rng.choice(free if free and kind != "objective" and rng.randint(0, 2) else pairs)
        spec: dict = {"seek": f"{rng.choice(('max', 'min'))} {y}"}
        axes = [x]
        inputs = m.inputs[x]
        if kind == "objective":
            bounded = inputs["min"] is not None and inputs["max"] is not None
            if inputs["values"] or (bounded and (inputs["integer"] or rng.randint(0, 2) == 0)):
                spec["find"] = x  # its set, its whole numbers, or its range (a free variable, optimised)
                m.made.add("free" if bounded and not inputs["integer"] and not inputs["values"] else "objective")
            else:
                spec["over"] = {x: _axis(rng, inputs)}
                m.made.add("objective")
        else:
            others = [n for n in m.inputs if n != x]
            spec["over"] = {x: _axis(rng, inputs)}
            if others:
                other = rng.choice(others)
                spec["over"][other] = _axis(rng, m.inputs[other])
                axes.append(other)
            if kind == "frontier":
                second = [z for _, z in pairs if z != y]
                if not second:
                    continue
                spec = {"x": spec["seek"], "y": f"{rng.choice(('max', 'min'))} {rng.choice(second)}", "over": spec["over"]}
            m.made.add(kind)
        inner = [(q, f) for q, f in m.questions if f not in axes]
        if inner and rng.randint(0, 3):
            q, f = rng.choice(inner)
            spec["with"] = {f: q}
            m.made.add("inner question")
        if kind != "objective" or rng.randint(0, 3) == 0:
            _, z = rng.choice([p for p in pairs if p[0] in axes] or pairs)
            targets = [n for n, v in m.inputs.items() if v["dim"] == m.dims[z] and n != x]
            target = rng.choice(targets) if targets and rng.randint(0, 3) == 0 else literal(rng.choice(NUMBERS + ("20", "0.1", "1000")), m.dims[z])
            spec["such_that"] = {"lim": f"{z} {rng.choice(('<=', '>=', '<', '>'))} {target}"}
        if kind == "frontier":
            frontiers.append(f"  f{k}: {_flow(spec)}")
        else:
            spec["show"] = rng.choice((2, 3, 5))
            questions.append(f"  s{k}: {_flow(spec)}")
    return questions, frontiers


def _axis(rng: random.Random, spec: dict) -> list:
    """A few values an input may take (display units): from its set, else around its default, inside its domain."""
    if spec["values"]:
        return sorted(rng.sample(list(spec["values"]), rng.randint(1, min(3, len(spec["values"])))))
    v = spec["value"]
    near = {v, v + 1, v + 2, v * 2, v - 1} if spec["integer"] else {v, v * 2, v / 2, v + 1, v * 10, -v}
    lo = {"positive": 0, "nonnegative": 0, "real": None}[spec["domain"]]
    admitted = sorted(
        x for x in near if (lo is None or x > lo or (x == lo and spec["domain"] == "nonnegative")) and (spec["min"] is None or x >= spec["min"]) and (spec["max"] is None or x <= spec["max"])
    )
    return sorted(rng.sample(admitted, rng.randint(1, min(3, len(admitted)))))


def _condition(draw, m: Draft, x: str, y: str) -> str:
    op = draw(st.sampled_from(("<=", ">=", "<", ">")))
    targets = [n for n, v in m.inputs.items() if v["dim"] == m.dims[y] and n != x]
    if targets and draw(st.integers(0, 3)) == 0:
        target = draw(st.sampled_from(targets))
    else:
        number = draw(st.sampled_from(NUMBERS + ("20", "0.1", "1000")))
        target = f"{number}[{m.units[y]}]" if m.units[y] else number
    return f"{y} {op} {target}"


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


def _table(draw, m: Draft) -> list[str]:
    """A table t: a small row count, columns over i, prev.<col>, earlier columns and scalars; its aggregates join the scope."""
    scope, inputs, deps = m.scope, m.inputs, m.deps
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
        names = [("i", ZERO)] + [(f"prev.c{p}", e) for p, e in enumerate(col_dims)] + [(c, e) for c, e in cols]
        cb = Builder(draw, Scope(scope.names + names, [], scope.whole))
        formula = cb.expr(d, draw(st.integers(1, 3)))
        m.made |= cb.made
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


def _value(draw, integer: bool, domain: str) -> int | float:
    if integer:
        return draw(st.integers(0 if domain != "positive" else 1, 6))
    v = draw(st.sampled_from(VALUES))
    return -v if domain == "real" and draw(st.integers(0, 9)) == 0 else v


def _point(draw, inputs: dict) -> dict:
    """Other values for some inputs (display units); now and then one outside its domain."""
    point = {}
    for n, v in inputs.items():
        if not draw(st.booleans()):
            continue
        if draw(st.integers(0, 7)) == 0:
            point[n] = draw(st.sampled_from(ODD_VALUES))
        elif v["values"] and draw(st.integers(0, 3)):  # mostly one of its set
            point[n] = draw(st.sampled_from(v["values"]))
        elif v["integer"]:
            point[n] = draw(st.integers(0, 7))
        else:
            point[n] = draw(st.sampled_from(VALUES))
    return point
