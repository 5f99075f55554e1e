"""Math for the derivation sheets: SymPy -> LaTeX with the model's symbols (`SheetPrinter`), and breaking long lines.

With `values`, the printer prints symbols as their values (a step's substitution);
unit literals print as quantities. `broken` splits a long expression at its sums
into lines of an align environment.
"""

from __future__ import annotations

import re

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE

from ...derivation import LITERALS, aggregate_info
from ...ir import Model
from .escape import latex_escape, name_tex, safe_symbol, symbol_tex
from .units import quantity_tex


class SheetPrinter(LatexPrinter):
    """SymPy -> LaTeX with the model's symbols; with `values`, symbols print as their values (the substitution)."""

    def __init__(self, model: Model, values: dict | None = None):
        super().__init__({"mul_symbol": "dot", "order": "none", "fold_short_frac": False})
        self.model = model
        self.values = values or {}
        self.names: dict = {}
        for q in (*model.variables.values(), *model.params.values()):
            self.names[q.sym] = symbol_tex(q)
        for t in model.tables.values():
            self.names[t.index] = "i"
            for c in t.columns:
                base = safe_symbol(c.latex) or name_tex(c.name)
                self.names[c.sym] = f"{{{base}}}_{{i}}"
                if c.prev is not None:
                    self.names[c.prev] = f"{{{base}}}_{{i-1}}"

    def _print_Symbol(self, expr, style="plain"):
        if expr.name in LITERALS:
            return quantity_tex(LITERALS[expr.name])
        if expr in self.values:
            v = self.values[expr]
            tex = quantity_tex(v)
            return rf"\left({tex}\right)" if v.negative else tex
        if expr in self.names:
            return self.names[expr]
        name = expr.name.split("#")[0]  # a sum's index, 'k#12.4', is unique by its place; it prints as k
        return name_tex(name.replace(".", "_")) if re.fullmatch(r"[A-Za-z0-9_.]+", name) else r"\mathrm{?}"

    def parenthesize_super(self, s):
        """A base raised to a power: a printed value (\\num{1.000e-05}, \\qty{2}{\\milli\\second}) in parentheses.

        siunitx typesets E notation as 1.000 x 10^{-5}, so a bare ^{2} after it is a double
        superscript (and after a unit it would square the unit alone); SymPy's own rule
        braces a base that holds a superscript (x^{*}).
        """
        if s.startswith((r"\num{", r"\qty{")):
            return rf"\left({s}\right)"
        return super().parenthesize_super(s)

    def _print_Function(self, expr, exp=None):
        info = aggregate_info(self.model, expr) if isinstance(expr, AppliedUndef) else None
        if info is None:
            return super()._print_Function(expr, exp)
        kind, table, column = info
        tname = name_tex(table).replace("\\mathrm", "\\mathrm", 1)
        if column is None:
            tex = rf"\#\,{tname}"
        else:
            col = next(c for c in self.model.tables[table].columns if c.name == column)
            ctex = safe_symbol(col.latex) or name_tex(column)
            tex = {
                "sum": rf"\sum_{{{tname}}} {ctex}",
                "last": rf"\operatorname{{last}}_{{{tname}}} {ctex}",
                "max": rf"\max_{{{tname}}} {ctex}",
                "min": rf"\min_{{{tname}}} {ctex}",
            }[kind]
        return rf"\left({tex}\right)^{{{exp}}}" if exp else tex

    def _print_Relational(self, expr):
        """`kv_dtype = 2` as `kv_dtype = fp8`: a choice's code printed as its name (lookups.py)."""
        var = next((v for v in self.model.variables.values() if v.choices and v.sym == expr.lhs), None)
        if isinstance(expr, sp.Eq) and var is not None and expr.rhs.is_Integer and 1 <= int(expr.rhs) <= len(var.choices):
            return rf"{self._print(expr.lhs)} = \text{{{latex_escape(var.choices[int(expr.rhs) - 1])}}}"
        return super()._print_Relational(expr)

    def _print_Piecewise(self, expr):
        rows = []
        for branch, cond in expr.args:
            if cond == sp.true:
                rows.append(rf"{self._print(branch)} & \text{{otherwise}}")
            else:
                rows.append(rf"{self._print(branch)} & \text{{if }} {self._print(cond)}")
        return r"\begin{cases} " + r" \\ ".join(rows) + r" \end{cases}"


# --- breaking long lines ----------------------------------------------------------------------------

_ZERO = {"left", "right", "bigl", "bigr", "Bigl", "Bigr", "displaystyle", "textstyle", "mathrm", "mathit", "operatorname", "text", "num", "qty", "unit", "begin", "end"}


def width(tex: str) -> float:
    """A rough width of printed math, in characters of the body font."""
    total = 0.0
    i = 0
    n = len(tex)

    def group(j: int) -> tuple[str, int]:
        depth, k = 0, j
        while k < n:
            if tex[k] == "{":
                depth += 1
            elif tex[k] == "}":
                depth -= 1
                if depth == 0:
                    return tex[j + 1 : k], k + 1
            k += 1
        return tex[j + 1 :], n

    while i < n:
        ch = tex[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", tex[i:])
            cmd = m.group(1)
            i += len(m.group(0))
            if cmd in ("frac", "dfrac") and i < n and tex[i] == "{":
                a, i = group(i)
                b, i = group(i)
                total += max(width(a), width(b)) + 0.5
            elif cmd in ("qty", "SI") and i < n and tex[i] == "{":
                a, i = group(i)
                u, i = group(i)
                total += width(a) + 0.8 * len(re.findall(r"\\[a-z]+", u)) + 0.5
            elif cmd in _ZERO:
                pass
            elif cmd in (",", ";", "!", " "):
                total += 0.3
            elif cmd == "quad":
                total += 2
            elif cmd in ("cdot", "leq", "geq", "le", "ge", "times"):
                total += 1.6
            else:
                total += 1
        elif ch in "{}":
            i += 1
        elif ch in "_^":
            i += 1
            if i < n and tex[i] == "{":
                a, i = group(i)
                total += 0.7 * width(a)
            else:
                total += 0.7
                i += 1
        elif ch in "=+-<>":
            total += 2
            i += 1
        elif ch == " ":
            i += 1
        else:
            total += 1
            i += 1
    return total


def _split(printer: SheetPrinter, expr: sp.Expr, limit: float, lead: str = "") -> list[str]:
    """Pieces of `expr` that may stand on separate lines, each starting with `lead` (the sign) for the first.

    A sum splits at its terms; a product with a long sum in it, or a fraction over a long
    sum, is written with big brackets (\\Bigl( ... \\Bigr), which may span lines) so that
    sum can split; pieces that are still too long split again.
    """
    whole = printer.doprint(expr)
    if width(whole) + width(lead) <= limit:
        return [lead + whole]
    if isinstance(expr, sp.Add):
        out = []
        for k, t in enumerate(expr.args):
            if k > 0 and t.could_extract_minus_sign():
                out += _split(printer, -t, limit, "- ")
            else:
                out += _split(printer, t, limit, "+ " if k > 0 else "")
        out[0] = lead + out[0] if lead and not out[0].startswith(lead) else out[0]
        return out
    prefix, inner = None, None
    num, den = sp.fraction(expr)
    if den != 1 and isinstance(num, sp.Add):
        prefix, inner = r"\frac{1}{" + printer.doprint(den) + r"} \cdot \Bigl(", num
    elif isinstance(expr, sp.Mul):
        adds = [f for f in expr.args if isinstance(f, sp.Add)]
        if adds:
            inner = max(adds, key=lambda f: width(printer.doprint(f)))
            rest = [f for f in expr.args if f is not inner]
            coeff = sp.Mul(*rest, evaluate=False) if len(rest) > 1 else rest[0]
            if coeff == -1:
                prefix = r"- \Bigl("
            else:
                prefix = printer.parenthesize(coeff, PRECEDENCE["Mul"]) + r" \cdot \Bigl("
    if inner is None:
        return [lead + whole]
    parts = _split(printer, inner, limit)
    parts[0] = lead + prefix + " " + parts[0]
    parts[-1] = parts[-1] + r"\Bigr)"
    return parts


def broken(printer: SheetPrinter, expr: sp.Expr, limit: float) -> list[str]:
    """`expr` as one line, or as several (breaking at + and -) when one would be wider than `limit`."""
    pieces = _split(printer, expr, limit)
    lines, current = [], ""
    for p in pieces:
        if current and width(current + " " + p) > limit:
            lines.append(current)
            current = p
        else:
            current = (current + " " + p).strip()
    lines.append(current)
    return lines
