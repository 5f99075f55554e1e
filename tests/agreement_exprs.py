"""Random expressions of a given dimension, for the chains of tests/agreement_grammar.py.

Every expression is built for a dimension, so the units always check: a variable of
that dimension, a literal such as `2[token/s]`, sums and differences of the same
dimension, products and quotients whose dimensions add up, remainders (% and mod), min/max, ceil/floor of a
dimensionless ratio, if(), small powers and `** 0.5`, a table's aggregates, and finite
sums and products, `sum(f(k) for k in range(lo, hi))`, nested too.

A nested sum's inner part is drawn in one of three ways: apart from the outer index
(`sum(sum(j for j in range(3)) for k in range(n))`), with terms that read it
(`sum(sum(j * k for j in range(3)) ...)`), or with bounds that read it
(`sum(sum(j for j in range(k)) ...)`); or freely, reading it or not. A sum's bounds are
small: literals, an enclosing index, a whole-number input capped with min() unless the
input has a `max:` (so a search over that input stays quick), or min(ceil(x), 4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import strategies as st

from .agreement_dims import DIMS, NUMBERS, ZERO, Dim, add, literal, scale, sub, wrap

INDICES = ("k", "j", "m")  # a sum's index by how deeply it nests: fresh names (variables are a0, u0, columns c0, rows i)
NESTING = 2  # sums inside sums, at most


@dataclass
class Scope:
    """What an expression may read: names with their dimensions, a table's aggregates, whole-number inputs (sum bounds)."""

    names: list = field(default_factory=list)  # [(name, dim)]
    aggregates: list = field(default_factory=list)  # [(text, dim)]: sum(t.c0), count(t), ...
    whole: list = field(default_factory=list)  # [(name, dim, bounded)]: integer inputs of ZERO or TOKEN; bounded: it has max:


class Builder:
    """Draws expressions of a given dimension over a scope (records the names each one reads, and the constructs drawn)."""

    def __init__(self, draw, scope: Scope):
        self.draw, self.scope, self.read = draw, scope, set()
        self.indices: list[str] = []  # the enclosing sums' indices this expression may read (innermost last)
        self.frames: list[set] = []  # per sum being drawn: the indices read inside it
        self.made: set[str] = set()  # "sum", "prod", "nested", "nested apart", "outer index in terms", "outer index in bounds"

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 99)) < p * 100

    def name(self, d: Dim) -> str | None:
        names = [n for n, e in self.scope.names if e == d] + (list(self.indices) if d == ZERO else [])
        if not names:
            return None
        n = self.choice(names)
        if n in self.indices:
            for f in self.frames:
                f.add(n)
        else:
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
        kind = self.choice(("name", "name", "literal", "+", "-", "*", "/", "min", "max", "round", "if", "power", "aggregate", "sum", "mod"))
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
        if kind == "mod":  # a remainder: by a quantity of its dimension, written either way
            a, b = self.expr(d, sub_), self.expr(d, sub_, nonzero=True)
            return f"mod({a}, {b})" if self.chance(0.3) else f"{wrap(a)} % {wrap(b)}"
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
        if kind == "sum":
            return self.series(d, depth)
        # an aggregate of a table the scalars can read
        options = [text for text, e in self.scope.aggregates if e == d]
        if not options:
            return self.expr(d, sub_, nonzero)
        text = self.choice(options)
        self.read.add("$table")
        return text

    # --- sums and products -------------------------------------------------------------------------------------

    def series(self, d: Dim, depth: int, inner: bool = False) -> str:
        """sum(term for k in range(...)) of dimension d, or a product (dimensionless terms, times a factor of dimension d).

        inner: the term is (or holds) a sum of its own, so nested sums are common, not a rare draw.
        """
        outer = list(self.indices)
        if len(outer) >= NESTING:
            return self.expr(d, depth - 1)
        index = INDICES[len(outer)]
        mode = self.choice(("apart", "terms", "bounds", "bounds", "free")) if outer else "free"
        kind = "prod" if self.chance(0.3) else "sum"
        self.made |= {kind} | ({"nested"} if outer else set())
        frame: set = set()
        self.frames.append(frame)
        if mode == "apart":  # neither the bounds nor the terms may read an enclosing index
            self.indices = []
        try:
            lo, hi = self.bounds(outer if mode in ("bounds", "free") else [], force=mode == "bounds")
            in_bounds = set(frame)
            self.indices.append(index)
            term_dim = d if kind == "sum" else ZERO
            term = self.term(term_dim, index, depth - 1, inner=not outer and self.chance(0.5))
            if mode == "terms":  # the term reads the enclosing index, whatever was drawn
                o = self.choice(outer)
                frame.add(o)
                term = f"{wrap(term)} * {o}" if self.chance(0.5) else f"{term} + {o}" + ("" if term_dim == ZERO else f" * {literal('1', term_dim)}")
        finally:
            self.indices = outer
            self.frames.pop()
        reads = frame - {index}
        for f in self.frames:  # what this one reads of the indices around it, the sums around it read too
            f |= reads
        if outer:
            if in_bounds & set(outer):
                self.made.add("outer index in bounds")
            if (reads - in_bounds) & set(outer):
                self.made.add("outer index in terms")
            if not reads & set(outer):
                self.made.add("nested apart")
        span = f"range({lo}, {hi})" if lo is not None else f"range({hi})"
        text = f"{kind}({term} for {index} in {span})"
        if kind == "prod" and d != ZERO:
            return f"{wrap(self.expr(d, depth - 1))} * {text}"
        return text

    def bounds(self, outer: list, force: bool) -> tuple[str | None, str]:
        """(lo or None, hi) of a range: small whole numbers; force: at least one reads an enclosing index."""
        his = ["small", "small", "whole", "ceil"] + (["outer"] * (4 if force else 1) if outer else [])
        how = self.choice(his)
        lo = None
        if how == "outer" or (force and outer and self.chance(0.3)):
            o = self.name_of(outer)
            if how == "outer":
                hi = self.choice((o, f"{o} + 1", f"{o} + 2", f"min({o}, 2)"))
            else:
                hi = self.choice(("3", "4", f"{o} + 2"))
                lo = o
            return lo, hi
        if self.chance(0.25):
            lo = self.choice(("1", "2", "0"))
        if how == "whole" and self.scope.whole:
            n, d, bounded = self.choice(self.scope.whole)
            self.read.add(n)
            whole = n if d == ZERO else f"ceil({n} / 1[token])"
            return lo, whole if bounded and self.chance(0.5) else f"min({whole}, {self.choice(('3', '5'))})"
        if how == "ceil":
            return lo, f"min(ceil({self.expr(ZERO, self.draw(st.integers(0, 1)))}), 4)"
        return lo, self.choice(("0", "1", "2", "3", "4", "5"))

    def name_of(self, outer: list) -> str:
        """An enclosing index, recorded as read."""
        o = self.choice(outer)
        for f in self.frames:
            f.add(o)
        return o

    def term(self, d: Dim, index: str, depth: int, inner: bool) -> str:
        """A sum's (or product's) term: an expression of dimension d that reads the index, most of the time."""
        core = self.series(d, depth, inner=True) if inner else self.expr(d, max(depth, 0))
        form = self.choice(("plain", "times", "shift", "over", "power", "factorial"))
        if form == "times":
            return f"{index} * {wrap(core)}"
        if form == "shift":
            return f"{core} + {index}" + ("" if d == ZERO else f" * {literal('1', d)}")
        if form == "over":
            return f"{wrap(core)} / ({index} + 1)"
        if form == "power" and d == ZERO:
            return f"{wrap(core)} ** {index}"
        if form == "factorial":
            return f"{wrap(core)} / factorial({index})"
        return core
