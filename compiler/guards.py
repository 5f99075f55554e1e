"""Divisions a model writes, even those SymPy cancelled: `b = a / a` is 1 as an expression, yet a = 0 is a division by zero.

compiler/expr.py records every divisor it reads on the `Term` (`Term.guards`: pairs of
divisor and the if() condition under which it divides). The loader keeps only each
Term's expression on the IR, so this module recovers the divisors by reading the
model's expression texts again, with the same whitelist parser (no eval) over a scope
made from the Model itself; the result is cached per model. The solver checks them
where it evaluates: `division by zero in line 8: b = a / a (a = 0)`.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import sympy as sp

from . import expr as ex
from .errors import ChaincError, Loc
from .ir import Model, Table
from .units import DIMENSIONLESS

Guard = tuple[sp.Expr, sp.Basic]  # (divisor, when it applies)


@dataclass(frozen=True)
class Guards:
    equations: dict[int, tuple[Guard, ...]] = field(default_factory=dict)  # Equation.index ->
    columns: dict[tuple[str, str], tuple[Guard, ...]] = field(default_factory=dict)  # (table, column) ->
    rows: dict[str, tuple[Guard, ...]] = field(default_factory=dict)  # table ->
    questions: dict[str, tuple[Guard, ...]] = field(default_factory=dict)
    checks: dict[int, tuple[Guard, ...]] = field(default_factory=dict)  # Check.index ->


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def guards(model: Model) -> Guards:
    if model not in _CACHE:
        _CACHE[model] = _collect(model)
    return _CACHE[model]


class _ModelScope:
    """Names as the loader resolved them: the model's variables and parameters, its tables' aggregates."""

    def __init__(self, model: Model):
        self.model = model

    def lookup(self, name: str, loc: Loc) -> ex.Term:
        q = self.model.quantity(name)
        if q is None:
            raise ChaincError(f"unknown name '{name}'", loc)
        return ex.Term(q.sym, q.dim)

    def aggregate(self, kind: str, table: str, column: str | None, loc: Loc) -> ex.Term:
        t = self.model.tables[table]
        agg = self.model.aggregates[f"{kind}_{table}" + (f"_{column}" if column else "")]
        dim = DIMENSIONLESS if column is None else next(c.dim for c in t.columns if c.name == column)
        return ex.Term(agg.func(*[self.model.variables[n].sym for n in t.inputs]), dim)

    def is_table(self, name: str) -> bool:
        return name in self.model.tables


class _TableScope(_ModelScope):
    def __init__(self, model: Model, table: Table):
        super().__init__(model)
        self.table = table
        self.columns = {c.name: c for c in table.columns}

    def lookup(self, name: str, loc: Loc) -> ex.Term:
        if name == "i":
            return ex.Term(self.table.index, DIMENSIONLESS)
        if name in self.columns:
            return ex.Term(self.columns[name].sym, self.columns[name].dim)
        if name.startswith("prev.") and name[5:] in self.columns:
            c = self.columns[name[5:]]
            return ex.Term(c.prev, c.dim)
        return super().lookup(name, loc)

    def is_table(self, name: str) -> bool:
        return False


def _divisors(text: str, loc: Loc, scope) -> tuple[Guard, ...]:
    try:
        return ex.parse_expression(text, lambda line, col: loc, scope).guards
    except ChaincError:  # the loader read the same text; a model it accepted reads the same way
        return ()


def _collect(model: Model) -> Guards:
    scope = _ModelScope(model)
    out = Guards()
    for eq in model.equations:
        if eq.text:
            try:
                lhs, rhs, _ = ex.split_equation(eq.text, lambda line, col, loc=eq.loc: loc)
            except ChaincError:
                continue
            found = _divisors(lhs, eq.loc, scope) + _divisors(rhs, eq.loc, scope)
            if found:
                out.equations[eq.index] = tuple(dict.fromkeys(found))
    for t in model.tables.values():
        rows = _divisors(t.rows_text, t.loc, scope)
        if rows:
            out.rows[t.name] = rows
        tscope = _TableScope(model, t)
        for c in t.columns:
            found = _divisors(c.formula, c.loc or t.loc, tscope)
            if found:
                out.columns[(t.name, c.name)] = found
    for q in model.questions.values():
        found = _divisors(q.condition_text, q.loc, scope)
        if found:
            out.questions[q.name] = found
    for c in model.checks:
        if c.that is not None:
            found = _divisors(c.that_text, c.loc, scope)
            if found:
                out.checks[c.index] = found
    return out
