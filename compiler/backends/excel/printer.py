"""Program expressions -> Excel formula trees (xl.py), in the display units of the cells they read and fill.

A printer in SymPy's style: one method per node type (`_Add`, `_Call`, ...),
the function names as a table of data, and everything it cannot print collected,
never written as something silently wrong. Two kinds of trouble:

- `problems`: a construct no formula can hold (the imaginary unit, a negative
  number to a fractional power, whose value differs between engines, a name with
  no cell); the backend reports them all as one located error;
- `missing`: a function Excel does not have (the Lambert W function of the
  solver's closed forms); the statement becomes a labelled numeric cell.

Programs compute in base units; cells hold display units. A reference to a cell
is its value times its unit's factor, and the result is divided by the target
cell's factor. Numeric coefficients are folded as they are collected (a product's
coefficients multiply, a coefficient is distributed over a sum it multiplies), so
`tpot = step_bytes / bandwidth` prints as `=goodput_step_bytes/goodput_bandwidth`
although the cells hold GB, TB/s and ms/token.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from ... import program as P
from . import xl

# program function -> Excel function with the same arguments
FUNCTIONS = {
    "floor": "INT", "abs": "ABS", "sqrt": "SQRT", "exp": "EXP", "log": "LN", "min": "MIN", "max": "MAX",
    "factorial": "FACT", "gamma": "_xlfn.GAMMA",  # GAMMA is an Excel 2013 function: the file names it with its prefix
}  # fmt: skip
# program functions Excel lacks: what to say about them
MISSING = {"lambertw": "the Lambert W function (Excel has none)"}
COMPARE = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "=", "!=": "<>"}
REL_EQ = Fraction(1, 10**9)  # a check's `==` holds to this relative difference (checks.REL_EQ)

Resolver = Callable[[str], "tuple[object, Fraction] | None"]  # name -> (its cell's node, display -> base factor)


@dataclass(frozen=True)
class Inline:
    """A scope entry that is an expression to print in place (a table's first row reads its initial values)."""

    expr: object


UNROLL_TERMS = 64  # the terms of sums written out, one copy of the body each, in one formula where no array holds them


class _Unroll(Exception):
    """Raised by a grid no formula holds (of a sum or a product: `kind`), for an enclosing sum to write itself out."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


@dataclass(frozen=True)
class At:
    """One term of an unrolled sum: its body with the index at `value`."""

    body: object
    index: str
    value: Fraction


@dataclass
class Prod:
    coef: Fraction | float
    nums: list = field(default_factory=list)  # xl nodes or Sums
    dens: list = field(default_factory=list)


@dataclass
class Sum:
    terms: list  # Prods


def _prod(x) -> Prod:
    return x if isinstance(x, Prod) else Prod(Fraction(1), [x])


class Printer:
    def __init__(self, resolve: Resolver):
        self.resolve = resolve
        self.problems: list[str] = []
        self.missing: list[str] = []
        self.terms = 0  # > 0 inside a sum's body, where a formula is an array (one value per term)
        self.indices: list[str] = []  # the indices of the sums around the formula being printed
        self.axes = 0  # the array's axes there: 1 inside a sum's terms, 2 inside a grid's (a sum reading the one around)
        self.unrolled = 0  # the terms of sums written out term by term so far (UNROLL_TERMS)

    # --- entry points ---------------------------------------------------------------------------

    def value(self, e, factor=Fraction(1)):
        """The tree of `e` (base units) in the display unit whose factor (display -> base) is `factor`."""
        p = _prod(self._conv(e))
        return self._fits(self._node(Prod(p.coef / factor if isinstance(p.coef, float) else p.coef / Fraction(factor), p.nums, p.dens)))

    def condition(self, e, approx_eq: bool = False):
        """A comparison or logic expression; approx_eq: `==` holds to 1e-9 relative, as a check's relation does."""
        if isinstance(e, P.Cmp):
            return self._Cmp(e, approx_eq)
        if isinstance(e, P.Logic) and e.args:
            args = [self.condition(a, approx_eq) for a in e.args]
            if self.terms and e.op != "not":  # AND and OR reduce an array to one value: IF keeps one per term
                out = args[-1]
                for a in reversed(args[:-1]):
                    out = xl.fn("IF", a, out, xl.FALSE) if e.op == "and" else xl.fn("IF", a, xl.TRUE, out)
                return out
            return xl.fn({"and": "AND", "or": "OR", "not": "NOT"}[e.op], *args)
        return self._node(self._conv(e))

    # --- conversion -----------------------------------------------------------------------------

    def _conv(self, e):
        return getattr(self, "_" + type(e).__name__)(e)

    def _Num(self, e):
        return Prod(e.value)

    def _Const(self, e):
        if e.name == "pi":
            return Prod(Fraction(1), [xl.fn("PI")])
        if e.name == "E":
            return Prod(Fraction(1), [xl.fn("EXP", xl.number(1))])
        return self._problem(f"the constant {e.name} (the imaginary unit has no Excel value)")

    def _Ref(self, e):
        found = self.resolve(e.name)
        if found is None:
            return self._problem(f"the name {e.name} (no cell holds it)")
        node, factor = found
        if isinstance(node, Inline):  # base units already
            return self._conv(node.expr)
        return Prod(Fraction(factor) if not isinstance(factor, float) else factor, [node])

    def _Add(self, e):
        terms = []
        for a in e.args:  # terms times zero (a first row's previous values) drop out
            c = self._conv(a)
            if isinstance(c, Sum):
                terms.extend(c.terms)
            elif len(c.nums) == 1 and isinstance(c.nums[0], Sum) and not c.dens:
                terms.extend(_scale(t, c.coef) for t in c.nums[0].terms)
            else:
                terms.append(c)
        terms = [t for t in terms if t.coef != 0]
        consts = [t for t in terms if not t.nums and not t.dens]
        rest = [t for t in terms if t.nums or t.dens]
        if len(consts) > 1:
            total = sum((t.coef for t in consts), Fraction(0))
            consts = [Prod(total)] if total != 0 else []
        terms = rest + consts
        if not terms:
            return Prod(Fraction(0))
        if len(terms) == 1:
            return terms[0]
        c = _common(terms)  # 8e9*a - 8e9*b -> 8e9*(a-b)
        return Sum(terms) if c == 1 else Prod(c, [Sum([_scale(t, 1 / c) for t in terms])])

    def _Mul(self, e):
        out = Prod(Fraction(1))
        for a in e.args:
            p = _prod(self._conv(a))
            out.coef *= p.coef
            out.nums += p.nums
            out.dens += p.dens
        return out if out.coef != 0 else Prod(Fraction(0))

    def _Pow(self, e):
        base, ex = e.base, e.exp
        if isinstance(ex, P.Num):
            k = ex.value
            if isinstance(base, P.Num) and base.value < 0 and k.denominator != 1:
                return self._problem(f"a negative number to a fractional power ({base.value}^({k}): engines differ)")
            pb = _prod(self._conv(base))
            if pb.coef == 0 and k < 0:
                return Prod(Fraction(1), [xl.op("/", xl.number(1), xl.number(0))])
            if k.denominator == 1:
                n = abs(k.numerator)
                if n == 0:
                    return Prod(Fraction(1))
                coef = pb.coef**n if k > 0 else 1 / pb.coef**n
                up, down = [self._power(x, n) for x in pb.nums], [self._power(x, n) for x in pb.dens]
                return Prod(coef, up, down) if k > 0 else Prod(coef, down, up)
            if abs(k) == Fraction(1, 2):
                root = xl.fn("SQRT", self._node(pb))
                return Prod(Fraction(1), [root]) if k > 0 else Prod(Fraction(1), [], [root])
            power = xl.op("^", self._node(pb), xl.number(abs(k)))
            return Prod(Fraction(1), [power]) if k > 0 else Prod(Fraction(1), [], [power])
        if isinstance(base, P.Const) and base.name == "E":
            return Prod(Fraction(1), [xl.fn("EXP", self._node(self._conv(ex)))])
        b, x = self._node(self._conv(base)), self._node(self._conv(ex))
        if isinstance(base, P.Num) and base.value != 0:  # only 0^0 needs the IF
            return Prod(Fraction(1), [xl.op("^", b, x)])
        # 0^0 is 1, as in the solver; Excel and Gnumeric say #NUM!
        return Prod(Fraction(1), [xl.fn("IF", xl.op("=", x, xl.number(0)), xl.number(1), xl.op("^", b, x))])

    def _power(self, x, n: int):
        node = self._node(x) if isinstance(x, (Sum, Prod)) else x
        return node if n == 1 else xl.op("^", node, xl.number(n))

    def _Call(self, e):
        if e.fn in MISSING:
            self.missing.append(MISSING[e.fn])
            return Prod(Fraction(1), [xl.fn("NA")])
        if e.fn == "ceil":  # INT is floor; ROUNDUP rounds away from zero
            return Prod(Fraction(1), [xl.Neg(xl.fn("INT", xl.Neg(self._node(self._conv(e.args[0])))))])
        if e.fn in ("min", "max"):
            args = [self._conv(a) for a in e.args]
            c = _common(args)
            inner = [self._node(_scale(_prod(a), 1 / c)) for a in args]
            if not self.terms:
                return Prod(c, [xl.fn(FUNCTIONS[e.fn], *inner)])
            out = inner[-1]  # MIN and MAX reduce an array to one value: IF keeps one per term
            for a in reversed(inner[:-1]):
                out = xl.fn("IF", xl.op("<=" if e.fn == "min" else ">=", a, out), a, out)
            return Prod(c, [out])
        if e.fn not in FUNCTIONS:
            return self._problem(f"the function {e.fn}()")
        return Prod(Fraction(1), [xl.fn(FUNCTIONS[e.fn], *(self._node(self._conv(a)) for a in e.args))])

    def _Cmp(self, e, approx_eq: bool = False):
        lp, rp = self._conv(e.left), self._conv(e.right)
        lead = _prod(lp).coef if not isinstance(lp, Sum) else (lp.terms[0].coef if lp.terms else 1)
        if lead > 0 and lead != 1:
            lp, rp = _scale(_prod(lp), 1 / lead), _scale(_prod(rp), 1 / lead)
        a, b = self._node(lp), self._node(rp)
        if approx_eq and e.op == "==":
            return xl.fn("OR", xl.op("=", a, b), xl.op("<=", xl.fn("ABS", xl.op("-", a, b)), xl.op("*", xl.number(REL_EQ), xl.fn("ABS", b))))
        return xl.op(COMPARE[e.op], a, b)

    def _Logic(self, e):
        return Prod(Fraction(1), [self.condition(e) if e.args else (xl.TRUE if e.op == "and" else xl.FALSE)])

    def _Choice(self, e):
        values = [self._conv(v) for v, _ in e.pieces]
        c = _common(values)
        last_value, last_cond = e.pieces[-1]
        always = isinstance(last_cond, P.Logic) and last_cond.op == "and" and not last_cond.args
        nodes = [self._node(_scale(_prod(v), 1 / c)) for v in values]
        out = nodes[-1] if always else xl.fn("IF", self.condition(last_cond), nodes[-1], xl.fn("NA"))
        for (_, cond), node in zip(reversed(e.pieces[:-1]), reversed(nodes[:-1])):
            out = xl.fn("IF", self.condition(cond), node, out)
        return Prod(c, [out])

    def _Sum(self, e):
        """SUMPRODUCT over the rows 1..n of ROW(INDIRECT("1:"&n)), n = hi - lo + 1; the index is row + lo - 1.

        A sum whose count or terms read an enclosing sum's index, and whose terms read its own, is a grid
        (xl.Series.width): the enclosing index down a column, its own along a row. A formula has two axes,
        and no function multiplies a row, so a grid inside a grid, or a grid of a product, asks the enclosing
        sum to unroll: one copy of its terms per value of its index, where its bounds are constants and its
        terms few (`_unrolled`). Otherwise it is refused.
        """
        reads = P.refs(e) & set(self.indices)  # an enclosing sum's index: its count or terms vary with it
        grid = bool(reads) and e.index in P.refs(e.body)
        if grid and (self.axes > 1 or e.kind != "sum"):
            raise _Unroll(e.kind)
        count = self._node(self._conv(P.Add((e.hi, P.Mul((P.Num(Fraction(-1)), e.lo)), P.Num(Fraction(1))))))
        width = xl.fn("MAX", count) if grid else None
        rows = xl.fn("ROW", xl.fn("INDIRECT", xl.op("&", xl.Str("1:"), width if grid else count)))
        rows = xl.Index(e.index, xl.fn("TRANSPOSE", rows) if grid else rows)
        row = e.index + "#row"
        index = Inline(P.Add((P.Ref(row), e.lo, P.Num(Fraction(-1)))))  # printed in place, so lo - 1 folds away
        outer = self.resolve
        self.resolve = lambda name: (rows, Fraction(1)) if name == row else (index, 1) if name == e.index else outer(name)
        terms, axes = self.terms, self.axes
        self.terms, self.axes = 1, (axes + 1 if grid else axes if reads else 1)
        self.indices.append(e.index)
        try:
            body = self._node(self._conv(e.body))
        except _Unroll as u:
            body, inner = None, u.kind
        finally:
            self.resolve, self.terms, self.axes = outer, terms, axes
            self.indices.pop()
        if body is None:  # the nearest enclosing sum that can be written out is; beyond the outermost, refused
            return self._unrolled(e, inner)
        if e.index in P.refs(e.body):
            return Prod(Fraction(1), [xl.Series(e.kind, rows, count, body, width)])
        if e.kind == "sum":  # SUMPRODUCT of one number is that number: n terms of it are n times it
            return Prod(Fraction(1), [xl.fn("IF", xl.op("<", count, xl.number(1)), xl.number(0), xl.op("*", count, body))])
        return Prod(Fraction(1), [xl.fn("IF", xl.op("<", count, xl.number(1)), xl.number(1), xl.op("^", body, count))])

    def _unrolled(self, e, inner: str):
        """`e` as one copy of its terms per value of its index: sum(prod(j + k for j in range(k)) for k in range(4))."""
        lo, hi = e.lo, e.hi
        count = hi.value - lo.value + 1 if isinstance(lo, P.Num) and isinstance(hi, P.Num) else None
        if count is not None and count.denominator == 1 and self.unrolled + max(count, 0) <= UNROLL_TERMS:
            self.unrolled += max(int(count), 0)
            terms = tuple(At(e.body, e.index, lo.value + k) for k in range(max(int(count), 0)))
            return self._conv(P.Add(terms) if e.kind == "sum" else P.Mul(terms))
        if self.indices:  # an enclosing sum may be written out instead
            raise _Unroll(inner)
        what = "a product" if inner != "sum" else "a sum inside two enclosing sums"
        return self._problem(
            f"{what} whose terms read their own index and an enclosing sum's (a formula holds a grid of terms at most;"
            f" an enclosing sum is written out term by term only if its bounds are constants, at most {UNROLL_TERMS} terms in all)"
        )

    def _At(self, e):
        outer = self.resolve
        self.resolve = lambda name: (Inline(P.Num(Fraction(e.value))), 1) if name == e.index else outer(name)
        try:
            return self._conv(e.body)
        finally:
            self.resolve = outer

    def _fits(self, tree):
        """The tree, or a problem if its formula is longer than Excel opens (a sum written out term by term can be)."""
        chars = len(xl.text(tree))
        if chars > xl.FORMULA_CHARS:
            self._problem(f"a formula of {chars:,} characters (Excel's limit is {xl.FORMULA_CHARS:,})")
            return xl.fn("NA")
        return tree

    def _problem(self, what: str):
        self.problems.append(what)
        return Prod(Fraction(1), [xl.fn("NA")])

    # --- building the tree ----------------------------------------------------------------------

    def _node(self, x):
        if isinstance(x, Sum):
            return self._sum(x)
        if not isinstance(x, Prod):
            return x
        if x.coef != 1 and len(x.nums) == 1 and isinstance(x.nums[0], Sum) and not x.dens:
            return self._sum(Sum([_scale(t, x.coef) for t in x.nums[0].terms]))
        coef = x.coef
        if coef == 0 or not (x.nums or x.dens):
            return xl.number(coef)
        negative = coef < 0
        c = -coef if negative else coef
        lead, under = _coefficient(c)
        parts = ([xl.number(lead)] if lead is not None else []) + [self._node(n) for n in x.nums]
        tree = parts[0] if parts else xl.number(1)
        for p in parts[1:]:
            tree = xl.op("*", tree, p)
        for d in ([xl.number(under)] if under is not None else []) + [self._node(d) for d in x.dens]:
            tree = xl.op("/", tree, d)
        return xl.Neg(tree) if negative else tree

    def _sum(self, s: Sum):
        if not s.terms:
            return xl.number(0)
        ordered = [t for t in s.terms if t.coef >= 0] + [t for t in s.terms if t.coef < 0]
        first = ordered[0]
        tree = self._node(first)
        for t in ordered[1:]:
            tree = xl.op("-", tree, self._node(_scale(t, -1))) if t.coef < 0 else xl.op("+", tree, self._node(t))
        return tree


def _scale(p: Prod, c) -> Prod:
    return Prod(p.coef * c, list(p.nums), list(p.dens))


def _common(items) -> Fraction:
    """A positive coefficient every item shares (zeros share any), to pull out of min/max/if; else 1."""
    coefs = {abs(_prod(i).coef) for i in items if not (isinstance(i, Prod) and i.coef == 0 and not i.nums)}
    if any(isinstance(i, Sum) for i in items) or len(coefs) != 1:
        return Fraction(1)
    c = coefs.pop()
    return c if c > 0 else Fraction(1)


def _coefficient(c) -> tuple:
    """A positive coefficient as (multiplier or None, divisor or None): 1000*x, x/8, 0.125*x, 3*x/7."""
    if c == 1:
        return None, None
    if isinstance(c, float):
        return c, None
    if c.denominator == 1:
        return c, None
    if c.numerator == 1:
        return None, c.denominator
    if xl.decimal_text(c) is not None and len(xl.decimal_text(c)) <= 8:
        return c, None
    if c.numerator < 10**15 and c.denominator < 10**15:
        return c.numerator, c.denominator
    return float(c), None
