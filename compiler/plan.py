"""Planning with SymPy: per block of the structural analysis, a closed form or a numeric tear.

A plan depends only on which variables are known (the query's shape), so it is
made once per shape and cached. SymPy rearranges each block where it can
(several closed forms when the block has several roots); a block through ceil,
floor, min/max, a condition or a table aggregate has no closed form we trust, and
is torn instead: explicit definitions plus the few tear variables a bracketed
search runs over. This is the only place that solves with SymPy.
"""

from __future__ import annotations

from functools import lru_cache

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.polys.polyerrors import BasePolynomialError

from .analysis import Block, plan_blocks
from .deadline import OutOfTime, StepOutOfTime, budgeted, step
from .errors import LimitError
from .ir import Equation, Model
from .limits import limit
from .order import Cycle, topological
from .results import Plan, Step

MAX_CLOSED_DEGREE = 24  # a polynomial block of a higher degree is solved numerically (_high_degree)
NOT_INVERTIBLE = (sp.Piecewise, sp.Min, sp.Max, sp.ceiling, sp.floor, sp.Abs, AppliedUndef, sp.Sum, sp.Product, sp.factorial, sp.gamma)


@lru_cache(maxsize=1024)
@budgeted
def make_plan(model: Model, known: frozenset[str], extra: tuple[Equation, ...] = ()) -> Plan:
    steps = []
    for b in plan_blocks(model, known, extra):
        try:
            steps.append(_plan_block(model, b))
        except OutOfTime as e:
            eq = b.equations[0]
            raise LimitError(f"{e.message}, solving line {eq.loc.line}: {eq.text}" if eq.loc else e.message, eq.loc, e.hint) from None
    return Plan(model, known, tuple(steps), extra)


def _high_degree(residuals: list, syms: list) -> bool:
    """A polynomial block of a degree SymPy's closed forms do not pay for: it factors before it gives up
    (0.15 s at degree 80, minutes at 1000), and past degree 4 a root is seldom in radicals anyway."""
    for r in residuals:
        poly = r.as_poly(*syms) if r.is_polynomial(*syms) else None
        if poly is not None and poly.total_degree() > MAX_CLOSED_DEGREE:
            return True
    return False


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
    found = _solve(residuals, syms)
    found = [s for s in found if all(sym in s for sym in syms)]
    if not found:
        return Step(block.unknowns, block.equations, "numeric")
    by_name = tuple({n: s[sym] for n, sym in zip(block.unknowns, syms)} for s in found)
    return Step(block.unknowns, block.equations, "solve", by_name)


def _solve(residuals: list, syms: list) -> list[dict]:
    """sp.solve of a block, memoised by the block's shape: its symbols renamed in order, so a chain of
    blocks alike but for their names (x_i**2 + x_i = x_(i-1)**2 * k, a thousand times) is solved once.

    Its sums and products (none reads an unknown: such a block is searched) are atoms to sp.solve, which
    would otherwise evaluate them, and wrongly: a geometric series' Piecewise pulled out of a product left
    the product's index free in the closed form.
    """
    series = sorted({n for r in residuals for n in sp.preorder_traversal(r) if isinstance(n, (sp.Sum, sp.Product))}, key=sp.default_sort_key)
    atoms = {n: sp.Symbol(f"_series{i}", real=True) for i, n in enumerate(series)}
    residuals = [r.xreplace(atoms) for r in residuals]
    others = sorted({x for r in residuals for x in r.free_symbols} - set(syms), key=lambda x: x.name)
    order = [*syms, *others]
    to = {x: sp.Symbol(f"_shape{i}", **x.assumptions0) for i, x in enumerate(order)}
    back = {v: k for k, v in to.items()}
    back.update({to[a]: n for n, a in atoms.items() if a in to})
    found = _solve_shape(tuple(r.xreplace(to) for r in residuals), tuple(to[x] for x in syms))
    return [{back[k]: v.xreplace(back) for k, v in sol.items()} for sol in found]


@lru_cache(maxsize=4096)
def _solve_shape(residuals: tuple, syms: tuple) -> tuple:
    if _high_degree(residuals, syms):  # checked once per shape, as the solve it saves
        return ()
    try:
        with step(limit("plan_step_seconds")):  # a coupled polynomial system can keep Groebner bases busy for hours
            return tuple(sp.solve(list(residuals), list(syms), dict=True, check=False))  # roots are filtered by domain when evaluated
    except StepOutOfTime:  # no closed form in time: the block is solved numerically, as one without one
        return ()
    except (NotImplementedError, ValueError, TypeError, BasePolynomialError):  # NotAlgebraic: a Sum of constant terms as a coefficient
        return ()


def tear(model: Model, step: Step) -> tuple[list[tuple[str, sp.Expr, Equation]], list[str], list[Equation]]:
    """Split a block into explicit definitions, tear variables and residual equations.

    Equations written as `x = expr` define x from the tear variables; the others are
    residuals. A numeric search then runs over the tear variables only (often one),
    evaluating the definitions in order, so ceil/floor and tables inside a loop stay
    cheap and bracketable.
    """
    unknowns = set(step.unknowns)
    syms = {model.variables[n].sym: n for n in step.unknowns}
    defs: dict[str, tuple[Equation, sp.Expr]] = {}
    for eq in step.equations:
        for a, b in ((eq.lhs, eq.rhs), (eq.rhs, eq.lhs)):
            if a in syms and syms[a] not in defs and a not in b.free_symbols:
                defs[syms[a]] = (eq, b)
                break
    while True:
        edges = [(syms[s], n) for n, (_, expr) in defs.items() for s in expr.free_symbols if s in syms and syms[s] in defs]
        try:
            order = topological(defs, edges, key=lambda n: n)
            break
        except Cycle as loop:
            del defs[max(loop.nodes, key=lambda n: defs[n][0].index)]
    used = {id(eq) for eq, _ in defs.values()}
    residuals = [eq for eq in step.equations if id(eq) not in used]
    tears = [n for n in step.unknowns if n not in defs]
    if len(tears) != len(residuals):  # no clean split: search over every unknown
        return [], list(step.unknowns), list(step.equations)
    return [(n, defs[n][1], defs[n][0]) for n in order if n in unknowns], tears, residuals
