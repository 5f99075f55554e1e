"""The expression language's calls: functions, finite sums and products, table aggregates.

A mixin of the expression walk (expr._Builder): it checks arity, dimensions and domains
where the call is written, and builds the SymPy term by hand.
"""

from __future__ import annotations

import ast
from fractions import Fraction

import sympy as sp

from .errors import Loc, ModelError, UnitError
from .terms import AGGREGATES, ANY, FINITE, FUNCTIONS, IF, Term, held, is_condition, same_dim
from .units import DIMENSIONLESS, dim_str

_USAGE = {
    "sum": "sum(a**k / factorial(k) for k in range(0, n)) adds a term per whole number k from 0 to n - 1; prod() multiplies",
    "min": "min(a, b, ...) takes two or more values; min(table.column) takes one column",
    "max": "max(a, b, ...) takes two or more values; max(table.column) takes one column",
    "if": "if(cond, a, b): a when cond holds, else b",
    "log": "log(x) is the natural logarithm; log(x, base) another base",
}


class Calls:
    def visit_Call(self, node: ast.Call) -> Term:
        if not isinstance(node.func, ast.Name):
            raise self.fail(node, "only the built-in functions can be called", "functions: " + ", ".join(FUNCTIONS))
        name = "if" if node.func.id == IF else node.func.id
        if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise self.fail(node, f"{name}() takes plain arguments", "no keywords or *args: write min(a, b)")
        if name in FINITE and len(node.args) == 1 and isinstance(node.args[0], ast.GeneratorExp):
            return self.finite(node, name, node.args[0])
        if name == "prod":
            raise self.fail(node, "prod() takes a generator: prod(expr for k in range(lo, hi))", _USAGE["sum"])
        if name in AGGREGATES and len(node.args) == 1 and self.names_table(node.args[0]):
            return self.aggregate(node, name, node.args[0])
        if name not in FUNCTIONS:
            raise self.fail(node.func, f"unknown function '{name}'", "functions: " + ", ".join(FUNCTIONS) + "; aggregates over tables: " + ", ".join(AGGREGATES))
        if name == "if" and len(node.args) == 3:
            args = [self.visit(node.args[0])]
            for arg, when in zip(node.args[1:], (args[0].expr, sp.Not(args[0].expr)) if is_condition(args[0].dim) else (sp.true, sp.true)):
                self.branch.append(when)  # a division inside a branch applies when the branch is taken
                args.append(self.visit(arg))
                self.branch.pop()
        else:
            args = [self.visit(a) for a in node.args]
        return getattr(self, "call_" + name)(node, args)

    def finite(self, node: ast.Call, kind: str, gen: ast.GeneratorExp) -> Term:
        """sum(expr for k in range(lo, hi)) and prod(...): the index runs over the whole numbers lo .. hi - 1."""
        if len(gen.generators) == 1 and gen.generators[0].ifs:
            raise self.fail(gen.generators[0].ifs[0], f"{kind}() takes no 'if' filter", f"choose each term instead: {kind}(if(k > 1, k, {0 if kind == 'sum' else 1}) for k in range(n))")
        if len(gen.generators) != 1 or gen.generators[0].is_async:
            raise self.fail(gen, f"{kind}() takes one 'for k in range(lo, hi)'", _USAGE["sum"])
        comp = gen.generators[0]
        if not isinstance(comp.target, ast.Name):
            raise self.fail(comp.target, "the index of a sum is one name", _USAGE["sum"])
        it = comp.iter
        if not (isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" and 1 <= len(it.args) <= 2 and not it.keywords):
            raise self.fail(it, f"{kind}() runs over range(lo, hi): the whole numbers lo, lo + 1, ..., hi - 1", _USAGE["sum"])
        bounds = [self.visit(a) for a in it.args]
        for b, n in zip(bounds, it.args):
            self.want_number(n, b)
            if b.dim not in (DIMENSIONLESS, ANY):
                raise UnitError(f"the bounds of a sum are whole numbers, not {dim_str(b.dim)}", self.loc(n), "divide by a unit first, such as range(0, servers)", dim_str(b.dim), "dimensionless")
        lo, hi = (sp.Integer(0), bounds[0].expr) if len(bounds) == 1 else (bounds[0].expr, bounds[1].expr)
        name = comp.target.id
        if name.startswith("_") or not name.isidentifier():
            raise self.fail(comp.target, f"name '{name}' is not allowed", "an index is a short name such as k")
        try:  # an index that hides a name of the model would make the term mean something else than it reads
            self.scope.lookup(name, self.loc(comp.target))
        except ModelError:
            pass
        else:
            raise self.fail(comp.target, f"the index '{name}' hides the name '{name}' of this model", "name the index something else, such as k")
        k = sp.Symbol(f"{name}#{node.lineno}.{node.col_offset}", integer=True)  # unique: a model variable k is another symbol
        outer, before = self.scope, len(self.divisors)
        self.scope = _Index(outer, name, k)
        try:
            body = self.visit(gen.elt)
        finally:
            self.scope = outer
        # a division by the index itself is checked where each term is computed, not as a guard outside the sum
        self.divisors[before:] = [d for d in self.divisors[before:] if k not in d[0].free_symbols | d[1].free_symbols]
        self.want_number(gen.elt, body)
        if kind == "prod" and body.dim not in (DIMENSIONLESS, ANY):
            raise UnitError(f"a product's terms must be dimensionless, not {dim_str(body.dim)}", self.loc(gen.elt), "divide each term by its unit", dim_str(body.dim), "dimensionless")
        dim = body.dim if kind == "sum" else DIMENSIONLESS
        if lo.is_Integer and hi.is_Integer and hi <= lo:  # no terms, as in Python: SymPy would count range(5, 2) backwards
            return Term(sp.Integer(0 if kind == "sum" else 1), dim)
        return Term((sp.Sum if kind == "sum" else sp.Product)(body.expr, (k, lo, hi - 1)), dim)

    def names_table(self, arg: ast.AST) -> bool:
        if isinstance(arg, ast.Attribute) and isinstance(arg.value, ast.Name):
            return self.scope.is_table(arg.value.id)
        return isinstance(arg, ast.Name) and self.scope.is_table(arg.id)

    def aggregate(self, node: ast.Call, kind: str, arg: ast.AST) -> Term:
        if kind == "count":
            table = arg.id if isinstance(arg, ast.Name) else arg.value.id
            return self.scope.aggregate("count", table, None, self.loc(node))
        if not isinstance(arg, ast.Attribute):
            raise self.fail(arg, f"{kind}() takes a table column, such as {kind}({arg.id}.step_time)", "name the column after the table and a dot")
        return self.scope.aggregate(kind, arg.value.id, arg.attr, self.loc(node))

    def arity(self, node: ast.Call, args: list[Term], low: int, high: int | None = None) -> None:
        high = low if high is None else high
        if not low <= len(args) <= high:
            want = str(low) if low == high else f"{low} to {high}" if high < 99 else f"at least {low}"
            name = node.func.id if node.func.id != IF else "if"
            raise self.fail(node, f"{name}() takes {want} arguments, got {len(args)}", _USAGE.get(name, "see chainc docs model-format"))
        for a, n in zip(args, node.args):
            if not is_condition(a.dim) or node.func.id == IF:
                continue
            raise self.fail(n, "a condition cannot be used as a number", "use if(cond, a, b)")

    def dimensionless(self, node: ast.Call, args: list[Term]) -> None:
        for a, n in zip(args, node.args):
            if a.dim not in (DIMENSIONLESS, ANY):
                raise UnitError(
                    f"{node.func.id}() needs a dimensionless argument, not {dim_str(a.dim)}",
                    self.loc(n),
                    f"divide by a unit first, such as {node.func.id}(x / 1[token])",
                    dim_str(a.dim),
                    "dimensionless",
                )

    def extremum(self, node: ast.Call, args: list[Term], fn) -> Term:
        self.arity(node, args, 2, 99)
        dims = [a.dim for a in args if a.dim is not ANY]
        for a, n in zip(args, node.args):
            if dims and not same_dim(a.dim, dims[0]):
                raise UnitError(f"{node.func.id}() mixes {dim_str(dims[0])} and {dim_str(a.dim)}", self.loc(n), "all arguments need the same dimension", dim_str(dims[0]), dim_str(a.dim))
        return Term(held(fn, *[a.expr for a in args]), dims[0] if dims else ANY)

    def call_min(self, node, args):
        return self.extremum(node, args, sp.Min)

    def call_max(self, node, args):
        return self.extremum(node, args, sp.Max)

    def unary(self, node, args, fn) -> Term:
        self.arity(node, args, 1)
        self.dimensionless(node, args)
        return Term(held(fn, args[0].expr), DIMENSIONLESS if args[0].dim is not ANY else ANY)

    def call_ceil(self, node, args):
        return self.unary(node, args, sp.ceiling)

    def call_floor(self, node, args):
        return self.unary(node, args, sp.floor)

    def call_mod(self, node, args):
        self.arity(node, args, 2)
        return self.modulo(node, args[0], args[1], node.args[0], node.args[1])

    def modulo(self, node: ast.AST, a: Term, b: Term, an: ast.AST, bn: ast.AST) -> Term:
        """a % b = a - floor(a / b) * b, Python's and Excel's MOD (the sign of b): said with floor, so every backend prints it."""
        self.want_number(an, a)
        self.want_number(bn, b)
        if not same_dim(a.dim, b.dim):
            raise UnitError(f"mod of {dim_str(a.dim)} by {dim_str(b.dim)}", self.loc(node), "both sides of % need the same dimension, as in 70[GB] % 16[GB]", dim_str(a.dim), dim_str(b.dim))
        if b.expr.is_zero:
            raise self.fail(bn, "a remainder by zero" + ("" if self.segment(bn).strip() == "0" else f": {self.segment(bn)} is 0"), "a remainder by 0 has no value")
        if not b.expr.is_number:
            self.divisors.append((b.expr, sp.And(*self.branch)))
        return Term(a.expr - held(sp.floor, a.expr / b.expr) * b.expr, b.dim if a.dim is ANY else a.dim)

    def call_exp(self, node, args):
        return self.unary(node, args, sp.exp)

    def call_log(self, node, args):
        self.arity(node, args, 1, 2)
        self.dimensionless(node, args)
        return Term(held(sp.log, *[a.expr for a in args]), DIMENSIONLESS)

    def call_sqrt(self, node, args):
        self.arity(node, args, 1)
        dim = args[0].dim
        return Term(held(sp.sqrt, args[0].expr), dim if dim is ANY else dim ** Fraction(1, 2))

    def call_factorial(self, node, args):
        return self.unary(node, args, sp.factorial)

    def call_gamma(self, node, args):
        return self.unary(node, args, sp.gamma)

    def call_abs(self, node, args):
        self.arity(node, args, 1)
        return Term(held(sp.Abs, args[0].expr), args[0].dim)

    def call_if(self, node, args):
        self.arity(node, args, 3)
        cond, a, b = args
        self.want_bool(node.args[0], cond)
        self.want_number(node.args[1], a)
        self.want_number(node.args[2], b)
        if not same_dim(a.dim, b.dim):
            raise UnitError(f"if() branches differ: {dim_str(a.dim)} and {dim_str(b.dim)}", self.loc(node), "both branches need the same dimension", dim_str(a.dim), dim_str(b.dim))
        dim, test = (b.dim if a.dim is ANY else a.dim), cond.expr
        if not test.free_symbols and all(x.is_Integer for f in test.atoms(sp.Sum, sp.Product) for lim in f.limits for x in lim[1:]):
            # a condition of whole-bound sums with no variable in it is decided here: a Piecewise held on it is rebuilt
            # (evaluated) by every later substitution, and SymPy's collapse of such a condition rebuilds itself without end
            test = test.doit()
        # SymPy's collapse of a condition over an if(), a sum or a product can run for ever (Piecewise.eval rebuilds itself)
        collapse = not test.has(sp.Piecewise, sp.Sum, sp.Product)
        try:
            return Term(sp.Piecewise((a.expr, test), (b.expr, True), evaluate=collapse), dim)
        except (KeyError, TypeError, NotImplementedError) as e:  # SymPy rewriting an if() inside the test
            raise self.fail(
                node.args[0], f"this condition is beyond what chainc can analyse ({type(e).__name__} in SymPy)", "take the inner if() out of the condition into a variable of its own"
            ) from None

    # --- guards -------------------------------------------------------------------
    def want_number(self, node: ast.AST, term: Term) -> None:
        if is_condition(term.dim):
            raise self.fail(node, "a condition cannot be used as a number", "use if(cond, a, b) to choose between values")

    def want_bool(self, node: ast.AST, term: Term) -> None:
        if not is_condition(term.dim):
            raise self.fail(node, "expected a condition (a comparison such as tpot <= tpot_target)", "if(cond, a, b) takes a comparison first, then the two values")


class _Index:
    """The names inside a sum's term: its index, then everything the sum itself can see."""

    def __init__(self, outer, name: str, sym: sp.Symbol):
        self.outer, self.name, self.sym = outer, name, sym

    def lookup(self, name: str, loc: Loc) -> Term:
        if name == self.name:
            return Term(self.sym, DIMENSIONLESS)
        return self.outer.lookup(name, loc)

    def aggregate(self, kind, table, column, loc):
        return self.outer.aggregate(kind, table, column, loc)

    def is_table(self, name: str) -> bool:
        return self.outer.is_table(name)

    def lookup_table(self, table: str, key: str, loc: Loc) -> Term:
        return self.outer.lookup_table(table, key, loc)
