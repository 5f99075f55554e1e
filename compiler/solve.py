"""Solving in any direction: plan a query with SymPy, then evaluate it exactly.

A plan depends only on which variables are known, so it is made once per query
shape and cached; evaluation substitutes exact rationals. Closed forms come from
SymPy; where none exists (ceil, floor, piecewise, min/max, tables) a bracketed
numeric search finds the root, and the step says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import sympy as sp
from sympy.core.function import AppliedUndef

from .analysis import Block, plan_blocks
from .errors import ArgumentError, SolveError
from .evaluate import DPS, EvalProblem, bounded, evaluate, exact, finite_real, limit, real_part
from .evaluate import shown as shown_number
from .format import as_float
from .guards import guards as model_guards
from .ir import Equation, Model, Question, Table, Variable
from .rootfind import NoRoot, bracket_root
from .units import BadUnit, dim_str, parse_quantity, parse_unit

NOT_INVERTIBLE = (sp.Piecewise, sp.Min, sp.Max, sp.ceiling, sp.floor, sp.Abs, AppliedUndef)
# Counting dimensions: on the command line, "tpot=10ms" means 10 ms per token when tpot is ms/token.
COUNTING = {"[token]", "[request]"}  # digits kept for irrational intermediate values


@dataclass(frozen=True)
class Step:
    """One block of the plan: what it computes, from which equations, and how."""

    unknowns: tuple[str, ...]
    equations: tuple[Equation, ...]
    method: str  # 'define' (x = expr as written), 'solve' (SymPy rearranged it), 'numeric'
    candidates: tuple[dict[str, sp.Expr], ...] = ()  # closed forms; several when SymPy finds several roots


@dataclass(frozen=True)
class Plan:
    model: Model
    known: frozenset[str]
    steps: tuple[Step, ...]


@dataclass
class Solution:
    model: Model
    plan: Plan
    gpu: object | None  # catalog Entry
    llm: object | None
    values: dict[str, sp.Expr]  # every variable and parameter, base units, exact where possible
    given: dict[str, sp.Expr] = field(default_factory=dict)
    numeric: dict[str, str] = field(default_factory=dict)  # name -> how it was found numerically
    tables: dict[str, list[dict[str, sp.Expr]]] = field(default_factory=dict)
    # name -> the closed form that computed it (base units, in terms of other symbols); numeric steps have none
    formulas: dict[str, sp.Expr] = field(default_factory=dict)

    def display(self, name: str) -> float | sp.Expr:
        """The value in its display unit: a float, or the exact number when a float cannot hold it (1e400)."""
        q = self.model.quantity(name)
        value = q.to_display(self.values[name])
        f = as_float(value)
        return f if f is not None else value


@dataclass(frozen=True)
class Answer:
    question: Question
    value: sp.Expr  # base units, rounded as the question says
    boundary: sp.Expr  # where the condition turns, before rounding
    solution: Solution  # the model solved at the answer
    boundary_solution: Solution | None
    how: str = ""  # how the answer follows from the boundary: 'floor of the boundary 64.97', 'the largest allowed value'


# --- planning ------------------------------------------------------------------------------


@lru_cache(maxsize=512)
def make_plan(model: Model, known: frozenset[str], extra: tuple[Equation, ...] = ()) -> Plan:
    steps = tuple(_plan_block(model, b) for b in plan_blocks(model, known, extra))
    return Plan(model, known, steps)


def _involved_in_non_invertible(expr: sp.Expr, syms: set) -> bool:
    return any(isinstance(node, NOT_INVERTIBLE) and node.free_symbols & syms for node in sp.preorder_traversal(expr))


def _plan_block(model: Model, block: Block) -> Step:
    syms = [model.variables[n].sym for n in block.unknowns]
    if len(block.equations) == 1:
        eq, sym = block.equations[0], syms[0]
        for a, b in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
            if a == sym and sym not in b.free_symbols:
                return Step(block.unknowns, block.equations, "define", ({block.unknowns[0]: b},))
    residuals = [eq.residual for eq in block.equations]
    if any(_involved_in_non_invertible(r, set(syms)) for r in residuals):
        return Step(block.unknowns, block.equations, "numeric")
    try:
        found = sp.solve(residuals, syms, dict=True, check=False)  # roots are filtered by domain when evaluated
    except (NotImplementedError, ValueError, TypeError):
        found = []
    found = [s for s in found if all(sym in s for sym in syms)]
    if not found:
        return Step(block.unknowns, block.equations, "numeric")
    by_name = tuple({n: s[sym] for n, sym in zip(block.unknowns, syms)} for s in found)
    return Step(block.unknowns, block.equations, "solve", by_name)


# --- evaluation ----------------------------------------------------------------------------


class RowsNotWhole(SolveError):
    """A table's row count is not a whole number (a search may have probed between whole numbers)."""


class JumpError(SolveError):
    """A numeric search found no root but a jump: the two sides change sign at `at` without meeting."""

    def __init__(self, message: str, loc, hint: str, var: str, at: sp.Rational, whole: bool):
        super().__init__(message, loc, hint)
        self.var, self.at, self.whole = var, at, whole  # whole: the search probed whole numbers only


class Evaluator:
    """Substitutes known values into expressions; evaluates table aggregates on demand.

    Evaluation is bounded (compiler/evaluate.py): what has no finite real value, or would be
    too large, raises EvalProblem; callers that know the equation make it a located error.
    """

    def __init__(self, model: Model, values: dict[str, sp.Expr]):
        self.model = model
        self.subs = {model.quantity(n).sym: v for n, v in values.items()}
        self.tables: dict[str, list[dict[str, sp.Expr]]] = {}

    def __call__(self, expr: sp.Expr) -> sp.Expr:
        return exact(evaluate(expr, self.subs, self._aggregate))

    def _aggregate(self, node: AppliedUndef) -> sp.Expr:
        agg = self.model.aggregates[node.func.__name__]
        rows = self.table(agg.table)
        if agg.kind == "count":
            return sp.Integer(len(rows))
        if not rows:
            raise SolveError(f"{agg.kind}({agg.table}.{agg.column}) of a table with no rows", self.model.tables[agg.table].loc, "check the table's rows expression")
        col = [r[agg.column] for r in rows]
        return {"sum": lambda: exact(bounded(sp.Add(*col), limit())), "last": lambda: col[-1], "max": lambda: sp.Max(*col), "min": lambda: sp.Min(*col)}[agg.kind]()

    def table(self, name: str) -> list[dict[str, sp.Expr]]:
        if name not in self.tables:
            self.tables[name] = run_table(self.model.tables[name], self)
        return self.tables[name]


def _involved(model: Model, exprs, subs: dict, table: Table | None = None) -> str:
    """'a = 2, gpu.memory_bandwidth = 3.35 TB/s': the values an expression was evaluated at."""
    by_sym = {q.sym: q for q in (*model.variables.values(), *model.params.values())}
    cols = {}
    if table is not None:
        for c in table.columns:
            cols[c.sym], cols[c.prev] = (c.name, c), (f"prev.{c.name}", c)
        cols[table.index] = ("i", None)
    syms = set()
    for e in exprs:
        syms |= e.free_symbols
    parts = []
    for s in sorted(syms, key=str):
        if s not in subs:
            continue
        v = subs[s]
        if s in by_sym:
            q = by_sym[s]
            parts.append(f"{q.name} = {_value_text(q.to_display(v))} {q.unit}".rstrip())
        elif s in cols:
            name, c = cols[s]
            parts.append(f"{name} = {_value_text(c.to_display(v) if c is not None else v)} {c.unit if c is not None else ''}".rstrip())
    return ", ".join(parts[:8]) + (", ..." if len(parts) > 8 else "")


def _value_text(v) -> str:
    return shown_number(v) if getattr(v, "is_number", False) else str(v)


def _at(where: str, involved: str) -> str:
    return f"{where} ({involved})" if involved else where


def _eq_where(eq: Equation) -> str:
    return f"line {eq.loc.line}: {eq.text}"


def located(problem: EvalProblem, loc, where: str, involved: str) -> SolveError:
    """An evaluation problem at the place that was being evaluated."""
    hint = problem.hint or "log() and sqrt() need arguments above zero, a negative number has no fractional power, and nothing divides by zero; check the inputs"
    return SolveError(f"{problem.message}, in {_at(where, involved)}", loc, hint)


def not_finite(name: str, value: sp.Expr, loc, where: str, involved: str) -> SolveError:
    return SolveError(
        f"no finite real value in {where}: {name} = {shown_number(value)}" + (f" ({involved})" if involved else ""),
        loc,
        "log() and sqrt() need arguments above zero, a negative number has no fractional power, and nothing divides by zero; check the inputs, or the variables' domains",
    )


def check_guards(model: Model, found: tuple, subs: dict, loc, where: str, table: Table | None = None, aggregate=None) -> None:
    """Every division the text writes (even one SymPy cancelled, a / a) must have a nonzero divisor here."""
    for divisor, when in found:
        try:
            applies = when is sp.true or evaluate(when, subs, aggregate) is sp.true
            if not applies:
                continue
            d = exact(evaluate(divisor, subs, aggregate))
        except EvalProblem:
            continue  # the expression itself reports it
        if d.is_number and d.is_zero:
            involved = _involved(model, [divisor], subs, table)
            raise SolveError(
                f"division by zero in {_at(where, involved)}",
                loc,
                f"the divisor {divisor} is 0 here" + (f" ({involved})" if involved else "") + "; check the inputs, or bound the variables with min:",
            )


def equation_guards(model: Model, eq: Equation) -> tuple:
    """The divisions line eq writes (none for an equation a question adds)."""
    if 0 <= eq.index < len(model.equations) and model.equations[eq.index] is eq:
        return model_guards(model).equations.get(eq.index, ())
    return ()


def run_table(table: Table, ev: Evaluator) -> list[dict[str, sp.Expr]]:
    model = ev.model
    g = model_guards(model)
    where = f"table '{table.name}': rows = {table.rows_text}"
    try:
        n = ev(table.rows)
    except EvalProblem as p:
        raise located(p, table.loc, where, _involved(model, [table.rows], ev.subs)) from None
    check_guards(model, g.rows.get(table.name, ()), ev.subs, table.loc, where, aggregate=ev._aggregate)
    if not (finite_real(n) and n == int(n) and n >= 0):
        cls = RowsNotWhole if finite_real(n) and n > 0 else SolveError
        raise cls(f"table '{table.name}': rows = {table.rows_text} is {shown_number(n)}, not a whole number", table.loc, "wrap the count in ceil() or floor()")
    if n > table.max_rows:
        raise SolveError(f"table '{table.name}' would have {int(n)} rows, more than max_rows = {table.max_rows}", table.loc, "raise max_rows, or check the inputs")
    prev = {}
    for c in table.columns:
        try:
            prev[c.prev] = ev(c.initial)
        except EvalProblem as p:
            raise located(p, c.loc or table.loc, f"table '{table.name}': the initial value of {c.name}", "") from None
    rows = []
    for i in range(1, int(n) + 1):
        scope = {**ev.subs, **prev, table.index: sp.Integer(i)}
        row = {}
        for c in table.columns:
            cwhere = f"table '{table.name}', row {i}: {c.name} = {c.formula}"
            try:
                v = exact(evaluate(c.expr, scope))
            except EvalProblem as p:
                check_guards(model, g.columns.get((table.name, c.name), ()), scope, c.loc or table.loc, cwhere, table)
                raise located(p, c.loc or table.loc, cwhere, _involved(model, [c.expr], scope, table)) from None
            check_guards(model, g.columns.get((table.name, c.name), ()), scope, c.loc or table.loc, cwhere, table)
            if not v.is_number:
                raise SolveError(f"table '{table.name}', row {i}: column {c.name} did not evaluate to a number", c.loc, "a column may use i, prev.<column>, this row's columns and scalars")
            if not finite_real(v):
                raise not_finite(c.name, v, c.loc or table.loc, f"table '{table.name}', row {i}: {c.name} = {c.formula}", _involved(model, [c.expr], scope, table))
            scope[c.sym] = v
            row[c.name] = v
        rows.append(row)
        prev = {c.prev: row[c.name] for c in table.columns}
    return rows


def _num(x) -> str:
    try:
        return f"{float(x):.6g}" if as_float(x) is not None else shown_number(x)
    except TypeError:
        return shown_number(x) if getattr(x, "is_number", False) else str(x)


def _admissible(var: Variable, value: sp.Expr) -> bool:
    r = real_part(value) if getattr(value, "is_number", False) else None
    return r is not None and var.domain.admits(r)


def evaluate_plan(plan: Plan, known: dict[str, sp.Expr]) -> tuple[dict[str, sp.Expr], dict[str, str], dict[str, sp.Expr], Evaluator]:
    model = plan.model
    values = dict(known)
    numeric: dict[str, str] = {}
    formulas: dict[str, sp.Expr] = {}
    ev = Evaluator(model, values)
    for step in plan.steps:
        if step.method == "numeric":
            found = _numeric(model, step, ev)
            for name in found:
                numeric[name] = "bracketed root search, relative tolerance 1e-12"
        else:
            found, chosen = _pick(model, step, ev)
            formulas.update(chosen)
        eq = step.equations[0]
        for name, v in found.items():
            if not finite_real(v):
                for e in step.equations:  # a zero divisor says more than the infinity it makes
                    check_guards(model, equation_guards(model, e), {**ev.subs, **{model.variables[n].sym: x for n, x in found.items()}}, e.loc, _eq_where(e), aggregate=ev._aggregate)
                expr = step.candidates[0].get(name, eq.residual) if step.candidates else eq.residual
                raise not_finite(name, v, eq.loc, _eq_where(eq), _involved(model, [expr], ev.subs))
            values[name] = v
            ev.subs[model.variables[name].sym] = v
            if name in model.variables and not _admissible(model.variables[name], v) and step.method == "define":
                var = model.variables[name]
                raise SolveError(f"{_show(var, v)} is outside its domain ({var.domain.describe(var)})", eq.loc, f"from line {eq.loc.line}: {eq.text}; check the inputs")
        for e in step.equations:
            check_guards(model, equation_guards(model, e), ev.subs, e.loc, _eq_where(e), aggregate=ev._aggregate)
    return values, numeric, formulas, ev


def _pick(model: Model, step: Step, ev: Evaluator) -> tuple[dict[str, sp.Expr], dict[str, sp.Expr]]:
    """The admissible candidate's values, and the candidate (closed forms) itself."""
    eq = step.equations[0]
    if step.method == "define":
        ((name, e),) = step.candidates[0].items()
        try:
            return {name: ev(e)}, step.candidates[0]
        except EvalProblem as p:
            check_guards(model, equation_guards(model, eq), ev.subs, eq.loc, _eq_where(eq), aggregate=ev._aggregate)  # a zero divisor says more
            raise located(p, eq.loc, _eq_where(eq), _involved(model, [e], ev.subs)) from None
    options = []
    for cand in step.candidates:
        try:
            vals = {n: ev(e) for n, e in cand.items()}
        except EvalProblem as p:
            if p.cause == "limit":
                raise located(p, eq.loc, _eq_where(eq), _involved(model, list(cand.values()), ev.subs)) from None
            continue  # this root has no value here
        reals = {n: real_part(v) for n, v in vals.items()}
        if all(r is not None and model.variables[n].domain.admits(r) for n, r in reals.items()):
            options.append((reals, cand))
    unique = []
    for o, cand in options:
        if not any(all(abs(float(o[n] - u[n])) <= 1e-12 * (abs(float(u[n])) + 1e-300) for n in o) for u, _ in unique):
            unique.append((o, cand))
    names = ", ".join(step.unknowns)
    if not unique:

        def root(n, e):
            try:
                return _num(model.variables[n].to_display(ev(e)))
            except EvalProblem:
                return "undefined"

        roots = "; ".join(", ".join(f"{n} = {root(n, e)}" for n, e in c.items()) for c in step.candidates)
        raise SolveError(
            f"no admissible value of {names} solves line {eq.loc.line}: {eq.text}",
            eq.loc,
            f"the roots ({roots}) fall outside the domain ({', '.join(model.variables[n].domain.describe(model.variables[n]) for n in step.unknowns)})",
        )
    if len(unique) > 1:
        roots = " or ".join(", ".join(f"{n} = {_num(model.variables[n].to_display(v))}" for n, v in u.items()) for u, _ in unique)
        raise SolveError(f"{names} has several admissible values: {roots}", eq.loc, f"narrow the domain of {step.unknowns[0]} with min: or max:")
    return unique[0]


def tear(model: Model, step: Step) -> tuple[list[tuple[str, sp.Expr]], list[str], list[Equation]]:
    """Split a block into explicit definitions, tear variables and residual equations.

    Equations written as `x = expr` define x from the tear variables; the others are
    residuals. A numeric search then runs over the tear variables only (often one),
    evaluating the definitions in order, so ceil/floor and tables inside a loop stay
    cheap and bracketable.
    """
    import networkx as nx

    unknowns = set(step.unknowns)
    syms = {model.variables[n].sym: n for n in step.unknowns}
    defs: dict[str, tuple[Equation, sp.Expr]] = {}
    for eq in step.equations:
        for a, b in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
            if a in syms and syms[a] not in defs and a not in b.free_symbols:
                defs[syms[a]] = (eq, b)
                break
    while True:
        g = nx.DiGraph()
        g.add_nodes_from(defs)
        for n, (_, expr) in defs.items():
            g.add_edges_from((syms[s], n) for s in expr.free_symbols if s in syms and syms[s] in defs)
        try:
            order = list(nx.lexicographical_topological_sort(g))
            break
        except nx.NetworkXUnfeasible:
            cycle = [u for u, _ in nx.find_cycle(g)]
            drop = max(cycle, key=lambda n: defs[n][0].index)
            del defs[drop]
    used = {id(eq) for eq, _ in defs.values()}
    residuals = [eq for eq in step.equations if id(eq) not in used]
    tears = [n for n in step.unknowns if n not in defs]
    if len(tears) != len(residuals):  # no clean split: search over every unknown
        return [], list(step.unknowns), list(step.equations)
    return [(n, defs[n][1]) for n in order if n in unknowns], tears, residuals


def _numeric(model: Model, step: Step, ev: Evaluator) -> dict[str, sp.Expr]:
    defs, tears, residuals = tear(model, step)
    tear_vars = [model.variables[n] for n in tears]

    def run(xs) -> tuple[Evaluator, dict[str, sp.Expr]]:
        sub = Evaluator(model, {})
        sub.subs = dict(ev.subs)
        found = {}
        for v, x in zip(tear_vars, xs):
            sub.subs[v.sym] = found[v.name] = x if isinstance(x, sp.Rational) else sp.Rational(x) if isinstance(x, float) else sp.Float(x, DPS)
        for n, expr in defs:
            sub.subs[model.variables[n].sym] = found[n] = sub(expr)
        return sub, found

    def residual(xs) -> list[float]:
        try:
            sub, _ = run(xs)
            values = [sub(eq.residual) for eq in residuals]
        except EvalProblem:
            return [math.nan] * len(residuals)  # undefined here: the search steps over it
        return [float(r) if finite_real(r) else math.nan for r in values]

    def final(xs) -> dict[str, sp.Expr]:
        try:
            return run(xs)[1]
        except EvalProblem as p:
            eq = step.equations[0]
            raise located(p, eq.loc, _eq_where(eq), _involved(model, [eq.residual], ev.subs)) from None

    if len(tears) == 1:
        var = tear_vars[0]
        whole: list[bool] = []  # set when a table's rows made the search probe whole numbers only

        def f(x: float) -> float:
            try:
                return residual([x])[0]
            except RowsNotWhole:
                if not var.domain.integer or x == math.floor(x):
                    raise
                whole.append(True)  # an integer variable feeds a table's rows: between whole numbers, take the one below
                below = sp.Integer(math.floor(x))
                if not var.domain.admits(below):
                    return math.nan  # below the domain (0 for a positive count): undefined, stepped over
                return residual([below])[0]

        x = _root_1d(var, f, residuals[0], ev, whole)
        if whole and x != sp.floor(x):
            x = sp.floor(x)
        return final([x]) | {tears[0]: x}
    guess = [float(v.default.xreplace(ev.subs)) if v.default is not None and v.default.xreplace(ev.subs).is_number else float(v.factor) for v in tear_vars]
    try:
        root = mpmath.findroot(lambda *xs: residual(list(xs)), guess, tol=1e-24)
    except (ValueError, ZeroDivisionError) as e:
        eq = step.equations[0]
        raise SolveError(f"no numeric solution for {', '.join(step.unknowns)} jointly: {e}", eq.loc, "give better defaults as starting points, or reformulate") from None
    xs = [float(r) for r in (root if len(tears) > 1 else [root])]
    return final(xs)


def _root_1d(var: Variable, f, eq: Equation, ev: Evaluator, whole: list | None = None) -> sp.Expr:
    """The bracketed search of rootfind.py over var's domain, starting at its default."""
    dom = var.domain
    start = var.default.xreplace(ev.subs) if var.default is not None else None
    start = float(start) if start is not None and start.is_number else None
    lo, hi = (float(dom.lo) if dom.lo is not None else None), (float(dom.hi) if dom.hi is not None else None)
    try:
        return sp.Rational(bracket_root(f, start, float(var.factor), dom.kind, lo, hi))
    except NoRoot as e:
        if e.jump is None:
            raise SolveError(
                f"no value of {var.name} solves line {eq.loc.line}: {eq.text}",
                eq.loc,
                f"searched {var.name} from {_num(var.to_display(sp.Rational(e.low)))} to {_num(var.to_display(sp.Rational(e.high)))} {var.unit} and the two sides never crossed",
            ) from None
        raise JumpError(
            f"no value of {var.name} makes line {eq.loc.line} hold exactly: {eq.text}",
            eq.loc,
            f"the two sides jump past each other at {_show(var, sp.Rational(e.jump))} (a step of ceil, floor or a condition); ask a question with such_that: instead",
            var.name,
            sp.Rational(e.jump),
            bool(whole),
        ) from None


# --- the public entry points -----------------------------------------------------------------


def given_value(model: Model, name: str, text: str | float | sp.Expr) -> sp.Expr:
    """A value for a variable: '10ms', '4.8 TB/s', '128', 64 -> base units; a bare number is in the display unit.

    A unit that lacks only the variable's per-token or per-request part is read as
    "per one token" (or request): tpot=10ms is 10 ms/token.
    """
    var = model.variables.get(name)
    if var is None:
        import difflib

        close = difflib.get_close_matches(name, list(model.variables), n=2)
        raise ArgumentError(f"model '{model.name}' has no variable '{name}'", None, f"did you mean {' or '.join(close)}?" if close else f"variables: {', '.join(model.variables)}")
    if isinstance(text, sp.Expr):
        return text
    if isinstance(text, (int, float)):
        return sp.Rational(str(text)) * var.factor
    try:
        number, unit = parse_quantity(text)
        _, factor, dim = parse_unit(unit) if unit else (None, var.factor, var.dim)
    except BadUnit as e:
        raise ArgumentError(f"{name}={text}: {e}", None, f"write a number with an optional unit, such as {name}=10{var.unit or ''}") from None
    if dim != var.dim and not _omits_per_count(var.dim, dim):
        raise ArgumentError(f"{name}={text}: that is {dim_str(dim)}, but {name} is {dim_str(var.dim)} ({var.unit or 'dimensionless'})", None, f"for example {name}=1{var.unit}")
    return number * factor


def _omits_per_count(want, got) -> bool:
    """True when `got` is `want` without some of its per-token / per-request part (10ms for ms/token)."""
    ratio = dict(want / got)
    return all(k in COUNTING and v < 0 and dict(want).get(k, 0) <= v for k, v in ratio.items())


def require_in_domain(var: Variable, value: sp.Expr, what: str) -> None:
    """Inputs must lie in their variable's domain: sign, whole number, bounds."""
    if not value.is_number:
        return
    problem = None
    if var.domain.integer and value != sp.floor(value):
        problem = "is not a whole number"
    elif not var.domain.admits(value):
        problem = f"is outside its domain ({var.domain.describe(var)})"
    if problem:
        raise ArgumentError(f"{what} {_show(var, value)} {problem}", var.loc, f"{var.name} is declared {var.domain.describe(var)}")


def _entries(model: Model, gpu: str | None, llm: str | None, project):
    out = {}
    for kind, chosen, default in (("gpu", gpu, model.gpu), ("llm", llm, model.llm)):
        if chosen and not default:
            raise ArgumentError(f"model '{model.name}' uses no {kind.upper()}, so --{kind} does not apply", None, f"drop --{kind}; chainc list shows which models use which catalog entries")
        entry_id = chosen or default
        if entry_id:
            entry = project.catalog.entry(kind, entry_id)
            if entry is None:
                import difflib

                ids = project.catalog.ids(kind)
                close = difflib.get_close_matches(entry_id, ids, n=1)
                raise ArgumentError(f"unknown {kind.upper()} '{entry_id}'", None, f"did you mean {close[0]}?" if close else f"known: {', '.join(ids)}")
            out[kind] = entry
    return out


def param_values(model: Model, entries: dict, project) -> dict[str, sp.Expr]:
    values = {}
    for name, p in model.params.items():
        if p.source in ("gpu", "llm"):
            entry = entries[p.source]
            v = entry.values.get(p.field_name)
            if v is None:
                raise SolveError(f"{entry.title} has no value for {p.field_name}", p.loc, f"its catalog entry ({entry.path}) marks it as not available; pick another {p.source.upper()}")
            values[name] = v
        else:
            alias = dict(model.imports)[p.source]
            other = project.model(alias)
            sub = solve(other, project=project, gpu=entries["gpu"].id if "gpu" in entries and other.gpu else None, llm=entries["llm"].id if "llm" in entries and other.llm else None)
            values[name] = sub.values[p.field_name]
    return values


def solve(
    model: Model,
    given: dict[str, object] | None = None,
    find: tuple[str, ...] | list[str] = (),
    gpu: str | None = None,
    llm: str | None = None,
    project=None,
    extra: tuple[Equation, ...] = (),
    check_domain: bool = True,
) -> Solution:
    """Solve a model for every variable: defaults and `given` are known, `find` are made unknown.

    Known values must lie in their domains (check_domain=False lets a question probe past them).
    """
    if model.params and project is None:
        from .project import Project

        project = Project()
    entries = _entries(model, gpu, llm, project) if project is not None else {}
    params = param_values(model, entries, project)
    given = {n: given_value(model, n, v) for n, v in (given or {}).items()}
    for n in find:
        if n not in model.variables:
            given_value(model, n, "0")  # raises the unknown-variable error
        if n in given:
            raise ArgumentError(f"{n} is both given and to be found", None, "drop one of --given and --find for it")
    ev = Evaluator(model, params)
    known = {}
    for name, var in model.variables.items():
        if name in given:
            known[name] = given[name]
        elif var.default is not None and name not in find:
            try:
                known[name] = ev(var.default)
            except EvalProblem as p:
                raise located(p, var.loc, f"the default of {name}", _involved(model, [var.default], ev.subs)) from None
            if not finite_real(known[name]):
                raise not_finite(name, known[name], var.loc, f"the default of {name}", _involved(model, [var.default], ev.subs))
        else:
            continue
        if check_domain:
            require_in_domain(var, known[name], "given" if name in given else "default")
    plan = make_plan(model, frozenset(known), tuple(extra))
    values, numeric, formulas, final = evaluate_plan(plan, {**params, **known})
    tables = {name: final.table(name) for name in model.tables}
    return Solution(model, plan, entries.get("gpu"), entries.get("llm"), values, given, numeric, tables, formulas)


def ask(model: Model, question: str, given: dict[str, object] | None = None, gpu: str | None = None, llm: str | None = None, project=None) -> Answer:
    """Answer a question: the largest (or smallest) value of `find` that meets the condition.

    Solve the boundary (the condition as an equation), probe both sides to learn
    which side is feasible, then take the boundary or the domain's edge, rounded
    to the question's step on the safe side.

    Where evaluation rounded (an irrational boundary is pinned to DPS digits), sides of
    the condition that agree to within that precision are equal: the condition holds
    there unless it is strict, so sqrt(2) is the largest a with a**2 <= 2 whichever way
    its last digit falls. A boundary found as a jump of a step function (ceil, a table's
    whole rows) is a boundary too: the condition changes there.
    """
    if question not in model.questions:
        raise ArgumentError(f"model '{model.name}' has no question '{question}'", None, f"questions: {', '.join(model.questions) or 'none'}")
    q = model.questions[question]
    var = model.variables[q.find]
    given = dict(given or {})
    if q.find in given:
        raise ArgumentError(f"{q.find} is what question '{question}' finds; it cannot be given", None, f"drop --given {q.find}=...; the question computes it")
    strict = isinstance(q.condition, (sp.StrictLessThan, sp.StrictGreaterThan))

    def at(x: sp.Expr) -> Solution:
        return solve(model, {**given, q.find: x}, gpu=gpu, llm=llm, project=project, check_domain=False)

    def feasible(x: sp.Expr) -> bool:
        return condition_holds(model, q, at(x).values, strict)

    boundary_eq = Equation(len(model.equations), _boundary_text(q.condition_text), q.condition.lhs, q.condition.rhs, q.loc)
    jump = False
    try:
        bsol = solve(model, given, find=(q.find,), gpu=gpu, llm=llm, project=project, extra=(boundary_eq,))
        boundary = bsol.values[q.find]
    except JumpError as e:  # a step function: the condition turns at the jump
        bsol, boundary, jump = None, None, e.var == q.find
        if jump:
            # searched over whole numbers (a table's rows): the sign changes between k - 1 and k
            boundary = sp.Integer(round(e.at)) - sp.Rational(1, 2) if e.whole else e.at
    except SolveError:
        bsol, boundary = None, None
    dom = var.domain
    lo = dom.lo if dom.lo is not None else (q.step if q.step is not None and dom.kind == "positive" else sp.Integer(0) if dom.kind == "nonnegative" else None)
    hi = dom.hi
    want_max = q.seek == "max"
    numeric = jump or (bsol is not None and q.find in bsol.numeric)
    if boundary is None:
        probe = lo if lo is not None else hi if hi is not None else (var.default if var.default is not None and var.default.is_number else var.factor)
        if not feasible(probe):
            raise _infeasible(model, q, var, at(probe))
        edge = hi if want_max else lo
        if edge is None:
            raise _unbounded(q, var, "every value")
        value, how = edge, f"the {'largest' if want_max else 'smallest'} allowed value"
    else:
        b = boundary
        delta = max(abs(b) * sp.Rational(1, 10**6), q.step / 2 if q.step else 0)

        def side(x: sp.Expr, up: bool) -> bool:
            """Feasibility just below (or above) b; an integer variable feeding a table's rows is probed at whole numbers."""
            try:
                return feasible(x)
            except RowsNotWhole:
                if not var.domain.integer:
                    raise
                return feasible(sp.floor(b) + 1 if up else sp.ceiling(b) - 1)

        below, above = side(b - delta, False), side(b + delta, True)
        if not below and not above:
            raise _infeasible(model, q, var, at(b - delta if want_max else b + delta))
        turn = None
        if below and above and numeric:
            # the search met the condition's two sides where they are equal over a stretch (ceil(x) = 4 from 3 to 4):
            # the answer is where that stretch ends
            turn = _turn(feasible, b, want_max, lo, hi, var)
        if turn is not None:
            value = b = boundary = turn
        elif below and above:
            edge = hi if want_max else lo
            if edge is None:
                raise _unbounded(q, var, f"values on both sides of {_show(var, b)}")
            value = edge
        elif want_max:
            value = b if below else hi
        else:
            value = b if above else lo
        how = "the boundary" if value is b else f"the {'largest' if want_max else 'smallest'} allowed value"
        if value is None:
            raise _unbounded(q, var, f"{'every value above' if want_max else 'every value below'} {_show(var, b)}")
    if q.step and value not in (lo, hi):
        ratio = value / q.step
        k = sp.floor(ratio) if want_max else sp.ceiling(ratio)
        near = sp.Integer(round(ratio))
        tol = _SEARCH_PRECISION if numeric else _PRECISION
        if near != k and (numeric or not ratio.is_Rational) and abs(ratio - near) <= tol * max(abs(ratio), 1) and feasible(near * q.step):
            k = near  # the boundary is that step: its pinned digits (or the search) fell a hair on the wrong side of it
        rounded = k * q.step
        how = f"{'floor' if want_max else 'ceiling'} of the boundary {_num(var.to_display(value))} to steps of {_num(var.to_display(q.step))}"
        if not feasible(rounded):
            rounded += -q.step if want_max else q.step
            how += ", one step back to meet a strict condition"
        value = rounded
    if not q.step and _admissible(var, value) and not feasible(value) and numeric:
        # a numeric boundary can land a hair on the wrong side: step inward by the search's tolerance
        inward = -1 if want_max else 1
        nudged = value * (1 + inward * sp.Rational(1, 10**12) * (1 if value > 0 else -1))
        if feasible(nudged):
            value = nudged
    if not _admissible(var, value) or not feasible(value):
        raise _infeasible(model, q, var, at(lo if lo is not None and want_max else value))
    return Answer(q, value, boundary if boundary is not None else value, at(value), bsol, how)


def check_holds(model: Model, check, values: dict[str, sp.Expr]) -> bool:
    """A check's `that:` at these values: an equation to 1e-9 relative, a comparison exactly; located errors where it has no value."""
    ev = Evaluator(model, values)
    where = f"check: {check.that_text}"
    rel = check.that.replace(lambda x: isinstance(x, sp.Eq), lambda x: sp.Le(sp.Abs(x.lhs - x.rhs), sp.Rational(1, 10**9) * sp.Abs(x.rhs)))
    try:
        result = ev(rel)
    except EvalProblem as p:
        raise located(p, check.loc, where, _involved(model, [check.that], ev.subs)) from None
    if result not in (sp.true, sp.false):
        raise SolveError(f"{where} is {result}, neither true nor false", check.loc, "a check's that: compares numbers the model computes")
    check_guards(model, model_guards(model).checks.get(check.index, ()), ev.subs, check.loc, where, aggregate=ev._aggregate)
    return result is sp.true


_PRECISION = sp.Rational(1, 10 ** (DPS - 6))  # relative agreement that counts as equal where evaluation rounded
_SEARCH_PRECISION = sp.Rational(1, 10**9)  # how near a step a numeric boundary (bisected to 1e-13) may be on it


def condition_holds(model: Model, q: Question, values: dict[str, sp.Expr], strict: bool | None = None) -> bool:
    """Whether a question's condition holds at these values; located errors where it has no value."""
    if strict is None:
        strict = isinstance(q.condition, (sp.StrictLessThan, sp.StrictGreaterThan))
    ev = Evaluator(model, values)
    where = f"question {q.name}: {q.condition_text}"
    try:
        lhs, rhs = ev(q.condition.lhs), ev(q.condition.rhs)
    except EvalProblem as p:
        raise located(p, q.loc, where, _involved(model, [q.condition], ev.subs)) from None
    check_guards(model, model_guards(model).questions.get(q.name, ()), ev.subs, q.loc, where, aggregate=ev._aggregate)
    for side, value in ((q.condition.lhs, lhs), (q.condition.rhs, rhs)):
        if not finite_real(value):
            raise SolveError(
                f"{where} compares {shown_number(value)}, which is not a finite real number" + (f" ({_involved(model, [side], ev.subs)})" if side.free_symbols else ""),
                q.loc,
                "the condition has no value here; check the inputs",
            )
    if not (lhs.is_Rational and rhs.is_Rational):  # evaluation rounded: sides equal to within its precision are equal
        scale = max(abs(lhs), abs(rhs), *_term_sizes(ev, q.condition.lhs), *_term_sizes(ev, q.condition.rhs))
        if abs(lhs - rhs) <= _PRECISION * scale:
            return not strict
    return bool(q.condition.func(lhs, rhs))


def _term_sizes(ev: Evaluator, side: sp.Expr) -> list:
    """|term| of each term of a sum as written (b - 2 <= 0 compares terms of size 2, not their tiny difference)."""
    out = []
    for t in sp.Add.make_args(side):
        try:
            v = ev(t)
        except EvalProblem:
            continue
        if finite_real(v):
            out.append(abs(v))
    return out


def _turn(feasible, b: sp.Expr, up: bool, lo, hi, var: Variable) -> sp.Expr | None:
    """From a feasible b, the last feasible value before the condition turns, searching up (or down); None if it never does.

    Steps grow geometrically until a value fails (or an edge holds), then bisect to the
    root finder's tolerance; an integer variable is searched over whole numbers.
    """
    whole = var.domain.integer
    ok, bad = b, None
    size = abs(b) if b != 0 else sp.Integer(1)  # as the generated _turn does, in base units
    for k in range(200):
        y = b + (size * 2**k if up else -size * 2**k)
        if whole:
            y = sp.ceiling(y) if up else sp.floor(y)
        y = min(y, hi) if up and hi is not None else max(y, lo) if not up and lo is not None else y
        if not up and var.domain.kind != "real" and y <= 0:
            y = ok / 2 if not whole else ok - 1
        if y == ok or (whole and y < 1 and var.domain.kind == "positive"):
            return None  # at the domain's edge, and it holds there: the edge is the answer
        try:
            holds = feasible(y)
        except SolveError:
            return None  # the model has no value this far out: the search ends here
        if not holds:
            bad = y
            break
        ok = y
    if bad is None:
        return None
    for _ in range(200):
        if whole and abs(bad - ok) <= 1 or abs(bad - ok) <= sp.Rational(1, 10**13) * max(abs(ok), abs(bad)):
            break
        m = (ok + bad) / 2
        m = sp.floor(m) if whole else m
        if feasible(m):
            ok = m
        else:
            bad = m
    return ok


def _boundary_text(condition: str) -> str:
    for op in ("<=", ">=", "<", ">"):
        if op in condition:
            return condition.replace(op, "=", 1)
    return condition


def _show(q, base_value) -> str:
    """'tpot = 42.3219 ms/token' style text of a value, without a trailing space for unitless values."""
    return f"{q.name} = {_num(q.to_display(base_value))} {q.unit}".rstrip()


def _unbounded(q: Question, var: Variable, where: str) -> SolveError:
    bound = "largest" if q.seek == "max" else "smallest"
    return SolveError(
        f"question {q.name}: there is no {bound} {q.find}; {q.condition_text} holds for {where}",
        q.loc,
        f"bound {q.find} with {'max' if q.seek == 'max' else 'min'}: in its declaration, or did you mean seek: {'min' if q.seek == 'max' else 'max'}?",
    )


def _infeasible(model: Model, q: Question, var: Variable, s: Solution) -> SolveError:
    ev = Evaluator(model, s.values)
    parts = []
    for side in (q.condition.lhs, q.condition.rhs):
        names = [n for n, v in model.variables.items() if v.sym == side]
        parts.append(_show(model.variables[names[0]], s.values[names[0]]) if names else _num(ev(side)))
    negated = {"StrictLessThan": ">=", "LessThan": ">", "StrictGreaterThan": "<=", "GreaterThan": "<"}[type(q.condition).__name__]
    hardware = " with ".join(e.title for e in (s.gpu, s.llm) if e)
    return SolveError(
        f"question {q.name}: no {q.find} meets {q.condition_text}: at {_show(var, s.values[q.find])}, {parts[0]} {negated} {parts[1]}",
        q.loc,
        f"no {q.find} in its domain ({var.domain.describe(var)}) meets the condition{' on ' + hardware if hardware else ''}; change another input or the target",
    )
