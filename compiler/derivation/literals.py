"""Unit literals, put back into printed forms.

A model writes `output_tokens - 1[token]`; in base units the literal is the bare number 1,
so a printed substitution would read "300 token - 1". `Dims.restore` puts the unit back:
it walks the expression with the dimension each part must have and turns a number that
stands for a quantity into a literal symbol printed as "1 token" (LITERALS holds its value).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from sympy.core.function import AppliedUndef

from ..format import fmt
from ..ir import Model, Quantity
from ..units import DIMENSIONLESS
from .shown import Shown

LITERALS: dict[str, Shown] = {}  # literal symbol name -> its value; names are derived from the value, so stable
BASE_UNITS = {"[token]": "token", "[request]": "request", "[time]": "s", "[information]": "bit", "[compute]": "FLOP", "[currency]": "USD", "[power]": "W"}


def _literal(value: sp.Expr, dim, hint: Quantity | None) -> sp.Expr:
    if dim is None or dim == DIMENSIONLESS or value == 0:
        return value
    sign = -1 if value < 0 else 1
    value = abs(value)
    if hint is not None and hint.dim == dim:
        shown_ = Shown(fmt(value / hint.factor), hint.unit, float(value / hint.factor))
    else:
        shown_ = Shown(fmt(value), base_unit(dim), float(value))
    name = f"\x00{shown_.text} {shown_.unit}"
    LITERALS[name] = shown_
    sym = sp.Symbol(name, positive=True)
    return sym if sign > 0 else -sym


def base_unit(dim) -> str:
    """A dimension's base unit as written: 'bit/s', 'token/request', '1/s'; '' when dimensionless."""
    if dim == DIMENSIONLESS:
        return ""
    num = [BASE_UNITS.get(k, k.strip("[]")) + (f"^{_power(v)}" if v != 1 else "") for k, v in sorted(dim.items()) if v > 0]
    den = [BASE_UNITS.get(k, k.strip("[]")) + (f"^{_power(-v)}" if v != -1 else "") for k, v in sorted(dim.items()) if v < 0]
    unit = "*".join(num) or "1"
    if den:
        unit += "/" + "/".join(den)
    return unit


def _power(v) -> str:
    """A unit's exponent as written: 2, not 2.0 (pint keeps exponents as floats); 1/2 stays 0.5."""
    return str(int(v)) if float(v) == int(v) else str(v)


class Dims:
    """Dimensions of the model's symbols, and the unit-literal restoration that uses them."""

    def __init__(self, model: Model):
        self.model = model
        self.of: dict = {}
        for q in (*model.variables.values(), *model.params.values()):
            self.of[q.sym] = q
        for t in model.tables.values():
            for c in t.columns:
                self.of[c.sym] = c
                if c.prev is not None:
                    self.of[c.prev] = c

    def natural(self, e):
        if e.is_Number or e.is_NumberSymbol:
            return DIMENSIONLESS
        if e.is_Symbol:
            if e.name in LITERALS:
                return None
            q = self.of.get(e)
            return q.dim if q is not None else DIMENSIONLESS
        if isinstance(e, sp.Add | sp.Min | sp.Max):
            dims = [self.natural(t) for t in e.args if t.free_symbols]
            dims = [d for d in dims if d is not None]
            return max(dims, key=dims.count) if dims else DIMENSIONLESS
        if isinstance(e, sp.Mul):
            out = DIMENSIONLESS
            for f in e.args:
                d = self.natural(f)
                if d is None:
                    return None
                out = out * d
            return out
        if isinstance(e, sp.Pow):
            d = self.natural(e.base)
            if d is None or not e.exp.is_Rational:
                return d
            return d ** Fraction(int(e.exp.p), int(e.exp.q))
        if isinstance(e, sp.Piecewise):
            for branch, _ in e.args:
                if branch.free_symbols:
                    return self.natural(branch)
            return DIMENSIONLESS
        if isinstance(e, AppliedUndef):
            agg = self.model.aggregates.get(e.func.__name__)
            if agg is None or agg.column is None:
                return DIMENSIONLESS
            return next(c.dim for c in self.model.tables[agg.table].columns if c.name == agg.column)
        return DIMENSIONLESS

    def hint(self, e, dim):
        for t in e.args if isinstance(e, sp.Add) else ():
            for s in sorted(t.free_symbols, key=sp.default_sort_key):
                q = self.of.get(s)
                if q is not None and q.dim == dim and q.unit:
                    return q
        return None

    def unit_of(self, e, dim) -> Quantity | None:
        """A quantity of `e` (a symbol of it, left side first) with this dimension and a unit: the unit to write it in."""
        sides = (e.lhs, e.rhs) if isinstance(e, sp.core.relational.Relational) else (e,)
        for side in sides:
            for s in sorted(side.free_symbols, key=sp.default_sort_key):
                q = self.of.get(s)
                if q is not None and q.dim == dim and q.unit:
                    return q
        return None

    def restore(self, e, want=None, hint=None):
        if e.is_Number:
            return _literal(e, want, hint) if want is not None else e
        if e.is_Atom or isinstance(e, AppliedUndef):
            return e
        if isinstance(e, sp.Add):
            want = want if want is not None else self.natural(e)
            h = self.hint(e, want) or hint
            terms = sorted(e.args, key=lambda t: bool(t.could_extract_minus_sign()))  # a positive term first
            return sp.Add(*[self.restore(t, want, h) for t in terms], evaluate=False)
        if isinstance(e, sp.Mul):
            coeff, rest = e.as_coeff_Mul()
            factors = [self.restore(f, self.natural(f)) for f in sp.Mul.make_args(rest)]
            nd = self.natural(rest) if rest != 1 else None
            if want is not None and nd is not None and nd != want and coeff.is_Number:
                ratio = want / nd
                if all(v < 0 for _, v in ratio.items()):  # a literal divided by: decoding / tpot / 1[request]
                    lit = _literal(1 / abs(coeff), 1 / ratio, None)
                    sign = [sp.Integer(-1)] if coeff < 0 else []
                    return sp.Mul(*sign, *factors, sp.Pow(lit, -1, evaluate=False), evaluate=False)
                lit = _literal(abs(coeff), ratio, None)
                sign = [sp.Integer(-1)] if coeff < 0 else []
                return sp.Mul(*sign, *factors, lit, evaluate=False)
            if rest == 1 and want is not None:
                return _literal(coeff, want, hint)
            return sp.Mul(coeff, *factors, evaluate=False) if coeff != 1 else sp.Mul(*factors, evaluate=False)
        if isinstance(e, sp.Pow):
            return sp.Pow(self.restore(e.base, self.natural(e.base)), e.exp, evaluate=False)
        if isinstance(e, sp.Piecewise):
            return sp.Piecewise(*[(self.restore(b, want, hint), self.restore(c)) for b, c in e.args], evaluate=False)
        if isinstance(e, sp.core.relational.Relational):
            dl, dr = self.natural(e.lhs), self.natural(e.rhs)
            d = dl if e.lhs.free_symbols else dr
            h = self.unit_of(e, d)  # a bare number compared with GB is written in GB, not bits
            return e.func(self.restore(e.lhs, d, h), self.restore(e.rhs, d, h), evaluate=False)
        if isinstance(e, sp.Min | sp.Max):
            want = want if want is not None else self.natural(e)
            return e.func(*[self.restore(a, want) for a in e.args], evaluate=False)
        if isinstance(e, sp.Function):
            return e.func(*[self.restore(a, self.natural(a)) for a in e.args], evaluate=False)
        if isinstance(e, sp.And | sp.Or | sp.Not):
            return e.func(*[self.restore(a) for a in e.args], evaluate=False)
        return e
