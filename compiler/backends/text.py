"""Plain text: the derivation as `chainc solve --explain` prints it (and a Solution's Markdown in a notebook).

The same steps the LaTeX sheet prints (compiler/derivation/), written the way a
model file writes expressions: variables by name, or by value in a substitution.
"""

from __future__ import annotations

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.str import StrPrinter

from ..derivation import LITERALS, Step, aggregate_info, derive
from ..ir import Model
from ..results import Solution


class TextPrinter(StrPrinter):
    """Expressions the way a model file writes them, with variables by name (or by value)."""

    def __init__(self, model: Model, values: dict | None = None):
        super().__init__({"order": "none"})
        self.model = model
        self.values = values or {}

    def _print_Symbol(self, expr):
        if expr.name in LITERALS:
            return str(LITERALS[expr.name])
        if expr in self.values:
            v = self.values[expr]
            return f"({v})" if v.negative or "/" in v.unit or "*" in v.unit else str(v)
        return expr.name.split("#")[0]  # a sum's index, 'k#12.4', is unique by its place; it prints as k

    def _print_Sum(self, expr, fn="sum"):
        body, (k, lo, hi) = expr.args[0], expr.limits[0]
        return f"{fn}({self._print(body)} for {self._print(k)} in range({self._print(lo)}, {self._print(hi + 1)}))"

    def _print_Product(self, expr):
        return self._print_Sum(expr, "prod")

    def _print_Piecewise(self, expr):
        (a, cond), *rest = expr.args
        other = rest[0][0] if len(rest) == 1 and rest[0][1] == sp.true else sp.Piecewise(*rest)
        return f"if({self._print(cond)}, {self._print(a)}, {self._print(other)})"

    def _print_Relational(self, expr):
        """`kv_dtype == fp8`: a choice's code printed as its name (lookups.py)."""
        var = next((v for v in self.model.variables.values() if v.choices and v.sym == expr.lhs), None)
        if isinstance(expr, sp.Eq) and var is not None and expr.rhs.is_Integer and 1 <= int(expr.rhs) <= len(var.choices):
            return f"{self._print(expr.lhs)} == {var.choices[int(expr.rhs) - 1]}"
        return super()._print_Relational(expr)

    def _print_Or(self, expr):
        return " or ".join(self.parenthesize(a, 1) for a in expr.args)

    def _print_ceiling(self, expr):
        return f"ceil({self._print(expr.args[0])})"

    def _print_floor(self, expr):
        return f"floor({self._print(expr.args[0])})"

    def _print_Min(self, expr):
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Max(self, expr):
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Function(self, expr):
        info = aggregate_info(self.model, expr) if isinstance(expr, AppliedUndef) else None
        if info:
            kind, table, column = info
            return f"{kind}({table}.{column})" if column else f"{kind}({table})"
        return super()._print_Function(expr)


def text_step(model: Model, step: Step) -> list[str]:
    """A step as lines of plain text (without the heading)."""
    plain = TextPrinter(model)
    lines = [f"{plain.doprint(lhs)} = {plain.doprint(rhs)}" for lhs, rhs in step.stated]
    if step.method == "numeric":
        lines.append(f"solved numerically for {', '.join(step.unknowns)} ({step.how or 'bracketed root search'})")
    for (n, form), (_, sub) in zip(step.forms, step.substitutions):
        if step.rearranged:
            lines.append(f"solving for {n}: {n} = {plain.doprint(form)}")
        if sub.free_symbols and not sub.is_Symbol:
            lines.append(f"  = {TextPrinter(model, step.values).doprint(sub)}")
    for n, v in step.results:
        lines.append(f"{n} = {v}")
    return lines


def text_lines(solution: Solution) -> list[str]:
    """The derivation of a solution as plain text, one block per step."""
    out = []
    m = solution.model
    for step in derive(solution):
        where = step.equations[0].loc
        title = ", ".join(step.unknowns)
        desc = "; ".join(m.variables[n].description for n in step.unknowns if m.variables[n].description)
        out.append(f"step {step.number}: {title}" + (f" ({desc})" if desc else "") + f"   [{where}]")
        about = "; ".join(e.about for e in step.equations if e.about)
        if about:
            out.append(f"  {about}")
        out += [f"  {line}" for line in text_step(m, step)]
        out.append("")
    return out
