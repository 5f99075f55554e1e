"""Sensitivities: how much a result moves when an input moves, as elasticities d ln y / d ln x.

An elasticity of 0.8 says a 1% larger input makes the result 0.8% larger. Where the
result has a closed form in the inputs, the derivative is SymPy's (exact, then
evaluated); otherwise it is a central difference of two solves, 0.01% either side
of the input (whole-number inputs one unit either side). A question's answer has
sensitivities too: those of its boundary b, before rounding. Where b has no closed
form it is implicit, F(b, x) = 0 with F the condition's two sides' difference, so
db/dx = -(dF/dx) / (dF/db): four forward solves at the boundary per input, where
re-asking the question would run its whole search twice per input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import sympy as sp
from sympy.core.function import AppliedUndef

from .errors import ChaincError
from .ir import Model
from .numbers import exact
from .results import Query, Solution
from .solver import ask_query, solve_query

H = 1e-4  # relative step of the central difference


@dataclass(frozen=True)
class Sensitivity:
    target: str
    input: str
    value: float  # the input, display unit
    elasticity: float | None  # None: undefined (the target is 0 there, or the solve failed)
    method: str  # 'symbolic' | 'numeric'
    note: str = ""


def _closed_form(solution: Solution, name: str) -> sp.Expr | None:
    from .derivation import closed_form

    e = closed_form(solution, name)
    if e is None or e.has(AppliedUndef):  # a table aggregate has no derivative SymPy knows
        return None
    return e


def _symbolic(model: Model, solution: Solution, form: sp.Expr, target_value, x: str) -> float | None:
    sym = model.variables[x].sym
    if sym not in form.free_symbols:
        return 0.0
    subs = {n: sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else sp.Integer(v) if isinstance(v, int) else sp.Float(v, 17) for n, v in solution.values.items()}
    syms = {model.quantity(n).sym: v for n, v in subs.items() if model.quantity(n) is not None}
    d = sp.diff(form, sym).xreplace(syms)
    try:
        dy = float(sp.N(d, 30))
    except (TypeError, ValueError):
        return None
    y, xv = float(target_value), float(solution.values[x])
    return dy * xv / y if y != 0 and math.isfinite(dy) else None


def _numeric(target_at, x: str, xv, integer: bool) -> float | None:
    """Central difference of ln y in ln x; `target_at(value)` re-solves with the input at value (base units)."""
    xv = exact(xv)
    lo, hi = (xv - 1, xv + 1) if integer and abs(xv) >= 2 else (xv * (1 - exact(H)), xv * (1 + exact(H)))
    try:
        y0, y1 = float(target_at(lo)), float(target_at(hi))
    except (ChaincError, ArithmeticError, ValueError):
        return None
    if y0 <= 0 or y1 <= 0 or lo <= 0:
        return None
    return (math.log(y1) - math.log(y0)) / (math.log(float(hi)) - math.log(float(lo)))


def _implicit(model: Model, catalog, q, query: Query, b):
    """x -> the elasticity of the boundary b in x from F(b, x) = 0 (None where F has no derivative there)."""
    from . import lower
    from .run import evaluate

    cond = lower.expr(q.condition)
    if not hasattr(cond, "left"):
        return None
    given = dict(query.given)

    def F(at: dict) -> float:
        s = solve_query(model, catalog, replace(query, given=tuple({**given, **at}.items()), check_domain=False))
        return float(evaluate(cond.left, s.values)) - float(evaluate(cond.right, s.values))

    b = exact(b)
    try:
        db = (F({q.find: b * (1 + exact(H))}) - F({q.find: b * (1 - exact(H))})) / (2 * float(H) * float(b))
    except (ChaincError, ArithmeticError, ValueError, TypeError):
        return None
    if not db or not math.isfinite(db) or b <= 0:
        return None

    def root(x: str, v) -> float:
        """The boundary with x at v: secant steps on F from b (a whole-number step moves it too far to linearise)."""
        x0, f0 = float(b), F({q.find: b, x: v})
        x1 = x0 - f0 / db
        for _ in range(30):
            f1 = F({q.find: exact(x1), x: v})
            if f1 == 0 or abs(x1 - x0) <= 1e-13 * abs(x1):
                return x1
            x0, f0, x1 = x1, f1, x1 - f1 * (x1 - x0) / (f1 - f0)
        raise ValueError("the boundary's secant steps did not settle")

    def elasticity(x: str, xv, integer: bool) -> float | None:
        xv = exact(xv)
        lo, hi = (xv - 1, xv + 1) if integer and abs(xv) >= 2 else (xv * (1 - exact(H)), xv * (1 + exact(H)))
        if lo <= 0:
            return None
        try:
            if integer:
                y0, y1 = root(x, lo), root(x, hi)
                e = (math.log(y1) - math.log(y0)) / (math.log(float(hi)) - math.log(float(lo))) if y0 > 0 and y1 > 0 else None
            else:
                e = -(F({q.find: b, x: hi}) - F({q.find: b, x: lo})) / float(hi - lo) / db * float(xv) / float(b)
        except (ChaincError, ArithmeticError, ValueError, TypeError):
            return None
        return e + 0.0 if e is not None and math.isfinite(e) else None  # + 0.0: no -0 in a table

    return elasticity


def sensitivities(model: Model, catalog, query: Query, target: str | None = None, question: str | None = None) -> tuple[Sensitivity, ...]:
    """Every input's elasticity on `target` (a computed variable) or on a question's boundary, largest first."""
    if question is not None:
        answer = ask_query(model, catalog, question, query)
        q = model.questions[question]
        base = answer.boundary_solution
        name, target_value = q.find, answer.base_boundary
        form = _closed_form(base, q.find) if base is not None else None
        known = [n for n in (base.known if base is not None else answer.solution.known) if n != q.find]
        ref = base if base is not None else answer.solution

        def target_at_(x, v):
            return ask_query(model, catalog, question, replace(query, given=(*((k, w) for k, w in query.given if k != x), (x, v)))).base_boundary

        implicit = _implicit(model, catalog, q, query, target_value) if form is None and base is not None else None

    else:
        ref = solve_query(model, catalog, query)
        name = target
        target_value = ref.values[name]
        form = _closed_form(ref, name)
        known = list(ref.known)

        def target_at_(x, v):
            return solve_query(model, catalog, replace(query, given=(*((k, w) for k, w in query.given if k != x), (x, v)), check_domain=False)).values[name]

        implicit = None

    out = []
    for x in sorted(known, key=list(model.variables).index):
        var = model.variables[x]
        xv = ref.values[x]
        shown = float(exact(xv) / exact(var.factor)) if not isinstance(xv, float) else xv / float(var.factor)
        e, method = (None, "symbolic")
        if form is not None:
            e = _symbolic(model, ref, form, target_value, x)
        if e is None and implicit is not None:
            e, method = implicit(x, xv, var.domain.integer), "numeric"
        if e is None:
            e, method = _numeric(lambda v, x=x: target_at_(x, v), x, xv, var.domain.integer), "numeric"
        note = "" if e is not None else ("the target is 0 here" if float(target_value) == 0 else "undefined here")
        out.append(Sensitivity(name, x, shown, e, method, note))
    return tuple(sorted(out, key=lambda s: (s.elasticity is None, -abs(s.elasticity or 0), s.input)))


def default_target(model: Model, solution: Solution) -> str:
    """The result a sensitivity table is about when none is named: the last computed variable."""
    computed = [n for n in model.variables if n not in solution.known]
    return computed[-1]
