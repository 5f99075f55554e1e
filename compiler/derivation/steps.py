"""A solved plan's steps as a derivation: the equations as stated, the forms solved for, the substitutions, the results.

`derive(solution)` turns a solved plan into steps: the equations as the model
states them, the rearranged form where the solver solved for a variable, the
substitution (which symbols take which values) and the result. The steps hold
SymPy expressions and base-unit values only; printers decide how they look.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp
from sympy.core.function import AppliedUndef

from ..format import fmt
from ..ir import Model
from ..results import Solution
from .literals import Dims
from .shown import Shown, shown


@dataclass(frozen=True)
class Step:
    """One step of a derivation, in solving order."""

    number: int
    unknowns: tuple[str, ...]
    method: str  # define | solve | numeric
    equations: tuple  # ir.Equation, as the model states them
    stated: tuple[tuple[sp.Expr, sp.Expr], ...]  # each equation's sides, with unit literals restored
    forms: tuple[tuple[str, sp.Expr], ...]  # name -> closed form used (define: the right side; solve: rearranged)
    rearranged: bool  # True when the solver rearranged the equation(s) ('solving for x')
    how: str  # numeric: how it was solved ('bracketed root search, relative tolerance 1e-12')
    substitutions: tuple[tuple[str, sp.Expr], ...]  # name -> form with aggregates replaced by value symbols
    values: dict  # Symbol -> Shown, for every symbol a substitution uses
    results: tuple[tuple[str, Shown], ...]

    @property
    def loop(self) -> bool:
        return len(self.equations) > 1


def _aggregate_symbol(model: Model, node: AppliedUndef) -> sp.Symbol:
    agg = model.aggregates[node.func.__name__]
    what = f"{agg.table}.{agg.column}" if agg.column else agg.table
    return sp.Symbol(f"{agg.kind}({what})", real=True)


def aggregate_info(model: Model, node: AppliedUndef):
    """(kind, table, column or None) of an aggregate function node, or None for another function."""
    agg = model.aggregates.get(node.func.__name__)
    return (agg.kind, agg.table, agg.column) if agg else None


def derive(solution: Solution, only: set[str] | None = None) -> list[Step]:
    """The plan's steps with their numbers; `only` keeps the steps that compute these names and what they need."""
    m = solution.model
    dims = Dims(m)
    steps = list(solution.plan.steps)
    if only is not None:
        steps = _needed(m, steps, only)
    by_sym = {q.sym: q for q in (*m.variables.values(), *m.params.values())}
    out = []
    for k, st in enumerate(steps, 1):
        if st.method == "numeric":
            forms = ()
        else:
            forms = tuple((n, solution.formulas.get(n, st.candidates[0][n])) for n in st.unknowns)
        rearranged = st.method == "solve" or any(not (e.lhs == m.variables[n].sym) for (n, _), e in zip(forms, st.equations))
        forms = tuple((n, dims.restore(f, m.variables[n].dim)) for n, f in forms)
        stated = tuple((dims.restore(e.lhs, _side_dim(dims, e.lhs, e.rhs)), dims.restore(e.rhs, _side_dim(dims, e.rhs, e.lhs))) for e in st.equations)
        values: dict = {}
        subs = []
        for n, form in forms:
            replaced = form
            if form.has(AppliedUndef):
                mapping = {}
                for node in sorted(form.atoms(AppliedUndef), key=sp.default_sort_key):
                    sym = _aggregate_symbol(m, node)
                    mapping[node] = sym
                    agg = m.aggregates[node.func.__name__]
                    value = solution.values[node.func.__name__]
                    if agg.column:
                        col = next(c for c in m.tables[agg.table].columns if c.name == agg.column)
                        values[sym] = shown(col, value)
                    else:
                        values[sym] = Shown(fmt(value), "", float(value), bool(value < 0))
                replaced = form.xreplace(mapping)
            for sym in sorted(replaced.free_symbols, key=sp.default_sort_key):
                q = by_sym.get(sym)
                if q is not None and q.name in solution.values:
                    values[sym] = shown(q, solution.values[q.name])
            subs.append((n, replaced))
        how = solution.numeric.get(st.unknowns[0], "") if st.method == "numeric" else ""
        results = tuple((n, shown(m.variables[n], solution.values[n], m.variables[n].digits)) for n in st.unknowns)
        out.append(Step(k, st.unknowns, st.method, st.equations, stated, forms, rearranged, how, tuple(subs), values, results))
    return out


def _side_dim(dims: Dims, side, other):
    """The dimension an equation's side must have: the other side's, when that is a plain quantity."""
    if other.is_Symbol and other.free_symbols:
        return dims.natural(other)
    return dims.natural(side) if side.free_symbols else dims.natural(other)


def _needed(model: Model, steps: list, names: set[str]) -> list:
    """The steps that compute `names`, and the steps those depend on, in order."""
    sym_to_name = {v.sym: n for n, v in model.variables.items()}
    want = set(names)
    keep = []
    for st in reversed(steps):
        if want & set(st.unknowns):
            keep.append(st)
            for e in st.equations:
                for expr in (e.lhs, e.rhs):
                    want |= {sym_to_name[s] for s in expr.free_symbols if s in sym_to_name}
                    for node in expr.atoms(AppliedUndef):
                        want |= {sym_to_name[s] for s in node.free_symbols if s in sym_to_name}
    return list(reversed(keep))


def closed_form(solution: Solution, name: str) -> sp.Expr | None:
    """`name`'s formula with every computed variable replaced by its own formula: an expression of inputs."""
    m = solution.model
    syms = {v.sym: n for n, v in m.variables.items()}
    expr = solution.formulas.get(name)
    if expr is None:
        return None
    for _ in range(len(m.variables) + 1):
        repl = {s: solution.formulas[n] for s, n in syms.items() if s in expr.free_symbols and n in solution.formulas and n != name}
        if not repl:
            break
        expr = sp.simplify(expr.xreplace(repl))
    if any(syms.get(s) in solution.numeric for s in expr.free_symbols):
        return None
    return expr
