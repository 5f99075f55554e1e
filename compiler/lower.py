"""Plan -> Program: SymPy's closed forms and tears become frozen program nodes, once per plan.

Symbols become `Ref`s by name (variables, `gpu.x` parameters, `t.col` columns,
aggregates by their function's name); numbers become exact `Num`s. A closed form
with something the program cannot hold (SymPy's `re`, `RootOf`, ...) is not an
error: that block is searched numerically instead, as a block with no closed form
would be. Tables are looped where their aggregates are first needed, inside a
search when they depend on its tear.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from functools import lru_cache

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.functions.elementary.piecewise import ExprCondPair

from . import program as P
from .ir import Equation, Model, Table, Variable
from .plan import tear
from .results import Plan, Step


class Unlowerable(ValueError):
    """A SymPy construct the program has no node for."""


_CALLS = {sp.floor: "floor", sp.ceiling: "ceil", sp.Abs: "abs", sp.exp: "exp", sp.log: "log", sp.Min: "min", sp.Max: "max", sp.LambertW: "lambertw", sp.factorial: "factorial", sp.gamma: "gamma"}
_CMP = {sp.Lt: "<", sp.Le: "<=", sp.Gt: ">", sp.Ge: ">=", sp.Eq: "==", sp.Ne: "!="}


def expr(e: sp.Basic) -> P.Expr:
    """A SymPy expression as a program expression (iteratively, bottom-up: deep trees do not recurse)."""
    done: dict[int, P.Expr] = {}
    stack = [(e, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in done:
            continue
        if isinstance(node, (sp.Sum, sp.Product)):  # its limits are (index, lo, hi) Tuples, innermost first
            kind, body = "sum" if isinstance(node, sp.Sum) else "prod", expr(node.function)
            for k, lo, hi in node.limits:  # SymPy merges a sum of a sum into one node with several limits
                body = P.Sum(kind, k.name, expr(lo), expr(hi), body)
            done[id(node)] = body
            continue
        args = node.args if not isinstance(node, (sp.Symbol, sp.Number, AppliedUndef)) else ()
        if not ready and args:
            stack.append((node, True))
            stack.extend((a, False) for a in args if id(a) not in done)
            continue
        done[id(node)] = _node(node, [done[id(a)] for a in args])
    return done[id(e)]


def _node(e: sp.Basic, args: list) -> P.Expr:
    if isinstance(e, sp.RisingFactorial):  # SymPy's prod(x + k for k in range(n)), as the product it is (n whole, as ever)
        x, n = args
        k = "k#rf" + hashlib.sha1(sp.srepr(e).encode()).hexdigest()[:8]  # a name of its own, the same every run
        return P.Sum("prod", k, P.Num(Fraction(0)), P.Add((n, P.Num(Fraction(-1)))), P.Add((x, P.Ref(k))))
    if isinstance(e, sp.Symbol):
        return P.Ref(e.name)
    if isinstance(e, AppliedUndef):  # a table aggregate, applied to the table's inputs for the dependency graph
        return P.Ref(e.func.__name__)
    if e is sp.true:
        return P.TRUE
    if e is sp.false:
        return P.Logic("or", ())
    if isinstance(e, sp.Rational):
        return P.Num(Fraction(int(e.p), int(e.q)))
    if isinstance(e, sp.Float):
        return P.Num(Fraction(*float(e).as_integer_ratio()))
    if e is sp.pi:
        return P.Const("pi")
    if e is sp.E:
        return P.Const("E")
    if e is sp.I:
        return P.Const("I")
    if isinstance(e, sp.Add):
        return P.Add(tuple(args))
    if isinstance(e, sp.Mul):
        return P.Mul(tuple(args))
    if isinstance(e, sp.Pow):
        return P.Pow(*args)
    if isinstance(e, sp.Piecewise):
        return P.Choice(tuple(tuple(pair) for pair in args))
    if isinstance(e, ExprCondPair):
        return args  # (value, condition), taken apart by the Piecewise above
    for cls, name in _CALLS.items():
        if isinstance(e, cls):
            if name == "lambertw" and len(args) == 1:
                args = [*args, P.Num(Fraction(0))]
            return P.Call(name, tuple(args))
    for cls, op in _CMP.items():
        if isinstance(e, cls):
            return P.Cmp(op, *args)
    if isinstance(e, (sp.And, sp.Or, sp.Not)):
        return P.Logic({sp.And: "and", sp.Or: "or", sp.Not: "not"}[type(e)], tuple(args))
    if isinstance(e, sp.ITE):  # SymPy folds a condition choosing between conditions into ITE(c, a, b)
        c, a, b = args
        return P.Logic("or", (P.Logic("and", (c, a)), P.Logic("and", (P.Logic("not", (c,)), b))))
    if isinstance(e, sp.Implies):
        return P.Logic("or", (P.Logic("not", (args[0],)), args[1]))
    raise Unlowerable(f"{type(e).__name__} has no program node")


def site(eq: Equation) -> P.Site:
    return P.Site(eq.loc, f"line {eq.loc.line}: {eq.text}")


def _guards(eq: Equation) -> list[P.Guard]:
    where = [P.Guard(P.Num(Fraction(0)), P.Logic("not", (expr(c),)), site(eq), text) for c, text in getattr(eq, "valid", ())]
    return [P.Guard(expr(d), expr(w), site(eq)) for d, w in getattr(eq, "guards", ())] + where


class _Lowerer:
    """Lowers one plan; tracks which tables have been looped in the current scope."""

    def __init__(self, model: Model, known=()):
        self.model = model
        self.by_aggregate = {name: agg.table for name, agg in model.aggregates.items()}
        self.looped: set[str] = set()
        self.known: set[str] = set(known)  # the names computed so far (inputs first)
        self.pending: list[tuple[P.Guard, frozenset[str]]] = []  # divisors that read a name not computed yet, with the names they read
        self.scanned: tuple[int, int] = (0, 0)  # (id of the body, its statements already counted in known): each is read once

    def guards(self, guards, body: list) -> None:
        """Each guard once every name it reads is computed: a step can come before the divisor it guards.

        a4 = 0 / a3 is the constant 0 (the step needs nothing), but its divisor a3 comes from a later step.
        """
        start = self.scanned[1] if self.scanned[0] == id(body) else 0
        for stmt in body[start:]:
            if isinstance(stmt, (P.Assign, P.Pick, P.Search, P.Loop)):
                self.known |= _defines(stmt)
        self.pending.extend((g, frozenset(P.refs(g.divisor) | P.refs(g.when))) for g in guards)
        ready = [(g, needs) for g, needs in self.pending if needs <= self.known]
        if ready:
            self.pending = [(g, needs) for g, needs in self.pending if not needs <= self.known]
        for g, needs in ready:
            at = len(body)
            while g.why and at and (isinstance(body[at - 1], P.Check) and body[at - 1].name not in needs or isinstance(body[at - 1], P.Guard) and not body[at - 1].why):
                at -= 1  # outside where its equation holds is the reason, not the domain its value then leaves
            body.insert(at, g)
        self.scanned = (id(body), len(body))

    def loop(self, table: Table) -> P.Loop:
        m = self.model
        columns = []
        for c in table.columns:
            csite = P.Site(c.loc, f"{c.name} = {c.formula}")
            guards = tuple(P.Guard(expr(d), expr(w), csite) for d, w in getattr(c, "guards", ()))
            columns.append(P.Column(c.name, expr(c.expr), expr(c.initial), csite, guards))
        aggs = tuple((name, a.kind, a.column) for name, a in sorted(m.aggregates.items()) if a.table == table.name)
        return P.Loop(table.name, expr(table.rows), table.rows_text, table.max_rows, tuple(columns), aggs, P.Site(table.loc, f"table {table.name}"))

    def tables_for(self, exprs, body: list) -> None:
        """Loop every table whose aggregates these expressions use, if not looped yet in this scope."""
        for e in exprs:
            for name in sorted(P.refs(e)):
                t = self.by_aggregate.get(name)
                if t is not None and t not in self.looped:
                    self.looped.add(t)
                    body.append(self.loop(self.model.tables[t]))

    def step(self, s: Step, body: list) -> None:
        guards = [g for eq in s.equations for g in _guards(eq)]
        first = [g for g in guards if g.why and not P.refs(g.when) & set(s.unknowns)]  # before the step: its own division is no reason
        self.guards(first, body)
        if s.method == "define":
            name = s.unknowns[0]
            try:
                e = expr(s.candidates[0][name])
            except Unlowerable:  # SymPy's form has a node the program lacks (a product it evaluated to RisingFactorial): search
                return self.search(s, body)
            self.tables_for([e], body)
            body.append(P.Assign(name, e, site(s.equations[0])))
            body.append(P.Check(name, site(s.equations[0])))
        elif s.method == "solve":
            try:
                cands = tuple(tuple(expr(c[n]) for n in s.unknowns) for c in s.candidates)
            except Unlowerable:
                return self.search(s, body)
            self.tables_for([e for c in cands for e in c], body)
            body.append(P.Pick(s.unknowns, cands, site(s.equations[0])))
        else:
            self.search(s, body)
        self.guards([g for g in guards if g not in first], body)

    def search(self, s: Step, body: list) -> None:
        m = self.model
        defs, tears, residuals = tear(m, s)
        outer = self.looped
        self.looped = set()  # tables inside the search are recomputed at each trial point
        inner: list = []
        for name, e, eq in defs:
            pe = expr(e)
            self.tables_for([pe], inner)
            inner.append(P.Assign(name, pe, site(eq)))
            inner.append(P.Check(name, site(eq)))  # a trial point where it leaves its domain is no solution
        res = tuple(expr(eq.residual) for eq in residuals)
        self.tables_for(res, inner)
        self.looped = outer | {t for t in self.looped if all(v not in tears for v in m.tables[t].inputs)}
        starts = tuple(expr(m.variables[t].default) if m.variables[t].default is not None else None for t in tears)
        # a whole-number tear that sets a sum's bound (itself or through the block) has values only at whole numbers
        moving = set(tears) | {name for name, _, _ in defs}
        parts = [x.expr for x in inner if isinstance(x, P.Assign)] + list(res)
        bounds = {r for e in parts for n in P.walk(e) if isinstance(n, P.Sum) for r in P.refs(n.lo) | P.refs(n.hi)}
        whole = tuple(t for t in tears if m.variables[t].domain.integer and bounds & moving)
        body.append(P.Search(tuple(tears), starts, tuple(inner), res, site(residuals[0] if residuals else s.equations[0]), whole))


def _defines(s) -> set[str]:
    """The names a statement computes."""
    if isinstance(s, P.Assign):
        return {s.name}
    if isinstance(s, P.Pick):
        return set(s.names)
    if isinstance(s, P.Search):
        return set(s.tears) | {n for x in P.statements(s.body) for n in _defines(x)}
    if isinstance(s, P.Loop):
        return {name for name, _, _ in s.aggregates}
    return set()


def _fraction(x) -> Fraction | None:
    return None if x is None else Fraction(int(sp.Rational(x).p), int(sp.Rational(x).q))


@lru_cache(maxsize=4096)
def domain_of(v: Variable) -> P.Domain:
    d = v.domain
    values = tuple(_fraction(x) for x in d.values) if d.values is not None else None
    return P.Domain(d.kind, d.integer, _fraction(d.lo), _fraction(d.hi), d.describe(v), v.unit, _fraction(v.factor), values)


def domain(model: Model, name: str) -> P.Domain:
    return domain_of(model.variables[name])


@lru_cache(maxsize=1024)
def lower(plan: Plan) -> P.Program:
    m = plan.model
    low = _Lowerer(m, tuple(plan.known) + tuple(m.params))
    body: list = []
    for s in plan.steps:
        low.step(s, body)
    for name, t in m.tables.items():  # tables no step needed are still part of the solution
        if name not in low.looped:
            body.append(low.loop(t))
    body.extend(g for g, _ in low.pending)
    outputs = tuple(n for s in plan.steps for n in s.unknowns)
    numeric = tuple(n for s in plan.steps if s.method == "numeric" for n in s.unknowns)
    inputs = tuple(sorted(plan.known)) + tuple(m.params)
    return P.Program(m.name, inputs, tuple(body), outputs, {n: domain(m, n) for n in m.variables}, numeric, tuple(m.tables), physical(m))


@lru_cache(maxsize=256)
def physical(model: Model) -> tuple[P.Physical, ...]:
    """The model's physical limits, lowered once: the solver's verdict and every backend's warning print these nodes."""
    return tuple(
        P.Physical(x.name, x.text, P.Cmp(x.op, expr(x.left), expr(x.right)), x.sides, x.about, P.Site(x.loc, f"line {x.loc.line}: limit {x.name}: {x.text}")) for x in getattr(model, "limits", ())
    )


@lru_cache(maxsize=256)
def defaults(model: Model) -> tuple[P.Assign, ...]:
    """Each input's default as an assignment from the parameters (catalog values, imported values)."""
    return tuple(P.Assign(n, expr(v.default), P.Site(v.loc, f"the default of {n}")) for n, v in model.variables.items() if v.default is not None)
