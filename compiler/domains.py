"""Where a value may be, as a model writes it beyond a sign and bounds: sets of values and equations' validity.

`values:` on a variable is the finite set of values it may take (TP degrees, block sizes,
CUDA-graph batches): a list of numbers or quantities (`[1, 2, 4, 8]`, `[8 token, 16 token]`), or a
range, `{from: 1, to: 64, step: x2}` (geometric) or `{from: 8, to: 32, step: 8}` (arithmetic). The
set becomes part of the variable's domain (`ir.Domain.values`, ascending, base units): every input
is checked against it, and a question over the variable answers from it, every value tried.

`valid_when:` on an equation is where it holds (M/M/1 below load 1): lowered to a guard after the
values it reads (program.Guard.why), so every backend refuses a point outside it, and a question's
search treats it as the domain's edge.
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from .expr import is_condition
from .ir import Domain, Variable
from .limits import LIMITS


def symbol_for(name: str, domain: Domain | None = None) -> sp.Symbol:
    """A variable's SymPy symbol, with its domain's sign as an assumption (it picks the roots SymPy keeps)."""
    if domain is None or domain.kind == "real":
        return sp.Symbol(name, real=True)
    return sp.Symbol(name, positive=True) if domain.kind == "positive" else sp.Symbol(name, nonnegative=True)


def value_set(loader, v: Variable, variable: dict, at: tuple) -> Domain:
    """v's domain restricted to the set written under its `values:` (variable: its spec), or a located error."""
    for bound in ("min", "max"):
        if bound in variable:
            raise loader.fail(at + (bound,), f"{v.name} has values: and {bound}:, but a set has its own ends", f"drop {bound}:, or leave out the values beyond it", key=True)
    d = v.domain
    ordered = members(loader, v, variable["values"], at + ("values",), Domain(d.kind, d.integer))
    return Domain(d.kind, d.integer, ordered[0], ordered[-1], ordered)


def members(loader, v: Variable, spec, kp: tuple, domain: Domain, what: str = "") -> tuple:
    """The values a list or a range ({from, to, step}) writes, ascending, in base units; each in `domain`, or a located error."""
    most = LIMITS["set_values"].value()
    what = what or f"values of {v.name}"
    if isinstance(spec, dict):
        found = _range(loader, v, spec, kp, most)
    else:
        found = [_number(loader, v, x, kp + (k,), what) for k, x in enumerate(spec)]
    if not found:
        raise loader.fail(kp, f"{what}: the set is empty", "list at least one value, or check that from is at most to")
    if len(found) > most:
        raise loader.fail(kp, f"{what}: {len(found):,} values are more than the set_values limit of {most:,}", LIMITS["set_values"].how)
    for k, x in enumerate(found):
        where = kp + (k,) if not isinstance(spec, dict) else kp
        if not domain.admits(x) or (domain.integer and x / v.factor % 1 != 0):
            shown = f"{float(x / v.factor):g}" + (f" {v.unit}" if v.unit else "")
            raise loader.fail(where, f"{what}: {shown} is outside the variable's domain ({domain.describe(v)})", "leave it out, or change domain: or integer:")
    return tuple(sorted(set(found)))


def _number(loader, v: Variable, x: Any, kp: tuple, what: str) -> sp.Expr:
    value = loader.quantity(x, kp, v.unit, v.factor, v.dim, what)
    if not (isinstance(value, sp.Number) and value.is_real):
        raise loader.fail(kp, f"{what}: '{x}' is not a number", "a set's values are numbers or quantities, such as 16 or '16 token'")
    return value


def _range(loader, v: Variable, spec: dict, kp: tuple, most: int) -> list:
    what = f"values of {v.name}"
    first, last = (_number(loader, v, spec[k], kp + (k,), what) for k in ("from", "to"))
    step = spec["step"]
    text = str(step).strip()
    if text[:1] in ("x", "*", "×"):  # geometric: x2 doubles
        try:
            ratio = sp.Rational(text[1:].strip())
        except (TypeError, ValueError, sp.SympifyError):
            ratio = None
        if ratio is None or ratio <= 1:
            raise loader.fail(kp + ("step",), f"step of {v.name}: '{text}' is not a factor above 1", "write x2 for doubling, x1.5, x10")
        if first <= 0:
            raise loader.fail(kp + ("from",), f"{what}: a geometric range starts above zero", "start at the smallest positive value")
        members, x = [], first
        while x <= last and len(members) <= most:
            members.append(x)
            x = x * ratio
        return members
    size = _number(loader, v, step, kp + ("step",), f"step of {v.name}")
    if size <= 0:
        raise loader.fail(kp + ("step",), f"step of {v.name}: a range's step is positive", "write the distance between neighbouring values, such as 8")
    count = int(sp.floor((last - first) / size)) + 1
    if count > most:
        raise loader.fail(kp, f"{what}: {count:,} values are more than the set_values limit of {most:,}", LIMITS["set_values"].how)
    return [first + k * size for k in range(max(count, 0))]


def validity(loader, raw: Any, kp: tuple) -> tuple:
    """valid_when: a condition on the model's values, as ((condition, its text),)."""
    text = str(raw).strip()
    cond = loader.expression(text, kp)
    if not is_condition(cond.dim):
        raise loader.fail(kp, f"valid_when: '{text}' is a value, not a condition", "write a comparison, such as load < 1")
    return ((cond.expr, text),)
