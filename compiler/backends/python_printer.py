"""Printing for the Python backend: expressions, identifiers and literals that cannot break out.

`ExprPrinter` is a SymPy `PythonCodePrinter` that prints in the layout `ruff format`
keeps (spaces around binary operators, `**` hugged only between simple operands),
with `math` functions for the scalar flavour and NumPy ufuncs for the vectorised
one. Every symbol is printed through a name map, so no model text reaches the code
except through `ident` (validated identifiers) and `literal` (escaped strings).
"""

from __future__ import annotations

import keyword
import re
import unicodedata

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.pycode import PythonCodePrinter

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_SIMPLE = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_.]*|\d+(?:\.\d*)?(?:e[-+]?\d+)?)$")
_BREAKS = {"\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"}

# precedence levels, as Python binds them
COND, OR, AND, NOT, CMP, ADD, MUL, UNARY, POW, ATOM = range(1, 11)


def is_ident(name: str) -> bool:
    """A plain ASCII identifier that is no keyword and has no leading underscore (soft keywords are valid names)."""
    return bool(_IDENT.match(name)) and not keyword.iskeyword(name)


class Names:
    """Allocates distinct, valid identifiers; a model name is kept when it is one and free."""

    def __init__(self, reserved=()):
        self.taken = set(reserved)

    def take(self, preferred: str, prefix: str = "v") -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", preferred.encode("ascii", "replace").decode()) or prefix
        if not base[0].isalpha():
            base = f"{prefix}_{base.lstrip('_')}" if base.lstrip("_") else prefix
        if not is_ident(base) or base in self.taken:
            base += "_"
        name, k = base, 2
        while name in self.taken or not is_ident(name):
            name, k = f"{base.rstrip('_')}_{k}", k + 1
        self.taken.add(name)
        return name


def clean(text: str, *, lines: bool = False) -> str:
    """Text with every control, format and line-breaking character replaced by a space (newlines kept if `lines`)."""
    out = []
    for ch in str(text):
        if lines and ch == "\n":
            out.append(ch)
        elif ch in _BREAKS or unicodedata.category(ch)[0] in "CZ" and ch != " ":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def comment(text: str) -> str:
    """Text safe to follow `# ` on one line."""
    return " ".join(clean(text).split())


def docstring_text(text: str) -> str:
    """Text safe inside a triple-double-quoted docstring: backslashes and quotes escaped, one line per line."""
    text = clean(text, lines=True).replace("\\", "\\\\").replace('"', '\\"')
    return "\n".join(line.rstrip() for line in text.split("\n"))


def literal(text: str) -> str:
    """A double-quoted Python string literal for any text."""
    out = ['"']
    for ch in str(text):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch.isprintable() and ch not in _BREAKS:
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


def number(x) -> str:
    """A float literal for an exact number (repr round-trips)."""
    v = float(x)
    if v != v or v in (float("inf"), float("-inf")):
        raise ValueError(f"not a finite number: {x}")
    return repr(v)


def scale(text: str, factor, to_base: bool) -> str:
    """`text` times `factor` (to_base) or divided by it, printed with the exact integers of the factor."""
    f = sp.Rational(factor)
    p, q = (int(f.p), int(f.q)) if to_base else (int(f.q), int(f.p))
    if p == 1 and q == 1:
        return text
    if q == 1:
        return f"{text} * {p}"
    if p == 1:
        return f"{text} / {q}"
    return f"{text} * {p} / {q}"


class ExprPrinter(PythonCodePrinter):
    """SymPy -> Python source in ruff-format layout, over a name map; `numpy=True` prints ufuncs."""

    def __init__(self, names: dict, numpy: bool = False):
        super().__init__({"fully_qualified_modules": True, "standard": "python3"})
        self.names = names
        self.numpy = numpy
        self.mod = "np" if numpy else "math"

    # entry point: precedence-aware printing
    def code(self, expr, prec: int = 0) -> str:
        text, own = self._p(sp.sympify(expr))
        return f"({text})" if own < prec else text

    def doprint(self, expr, assign_to=None):  # noqa: ARG002 - the base signature
        return self.code(expr)

    def _p(self, e) -> tuple[str, int]:
        if isinstance(e, sp.Symbol):
            return self.names[e], ATOM
        if isinstance(e, AppliedUndef):
            return self.names[e.func.__name__], ATOM
        if e is sp.true or e is sp.false:
            if self.numpy:
                return ("np.True_" if e is sp.true else "np.False_"), ATOM
            return ("True" if e is sp.true else "False"), ATOM
        if e is sp.nan:
            return f"{self.mod}.nan", ATOM
        if e in (sp.oo, sp.zoo):
            return f"{self.mod}.inf", ATOM
        if e is sp.S.NegativeInfinity:
            return f"-{self.mod}.inf", UNARY
        if e is sp.pi:
            return f"{self.mod}.pi", ATOM
        if e is sp.E:
            return f"{self.mod}.e", ATOM
        if isinstance(e, sp.Integer):
            return str(int(e)), (ATOM if e >= 0 else UNARY)
        if isinstance(e, sp.Rational):
            sign = "-" if e < 0 else ""
            return f"{sign}{abs(int(e.p))} / {int(e.q)}", MUL
        if isinstance(e, sp.Float):
            t = number(e)
            return t, (UNARY if t.startswith("-") else ATOM)
        if isinstance(e, sp.Add):
            return self._add(e), ADD
        if isinstance(e, sp.Mul):
            return self._mul(e)
        if isinstance(e, sp.Pow):
            return self._pow(e)
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e)
        if isinstance(e, (sp.Min, sp.Max)):
            args = [self.code(a) for a in sp.ordered(e.args)]
            if not self.numpy:
                return f"{'min' if isinstance(e, sp.Min) else 'max'}({', '.join(args)})", ATOM
            fn = "np.minimum" if isinstance(e, sp.Min) else "np.maximum"
            out = args[-1]
            for a in reversed(args[:-1]):
                out = f"{fn}({a}, {out})"
            return out, ATOM
        if isinstance(e, (sp.floor, sp.ceiling)):
            fn = "floor" if isinstance(e, sp.floor) else "ceil"
            return f"{self.mod}.{fn}({self.code(e.args[0])})", ATOM
        if isinstance(e, sp.log):
            if len(e.args) != 1:
                raise NotImplementedError("log with a base")
            return f"{self.mod}.log({self.code(e.args[0])})", ATOM
        if isinstance(e, sp.exp):
            return f"{self.mod}.exp({self.code(e.args[0])})", ATOM
        if isinstance(e, sp.Abs):
            return f"{'np.abs' if self.numpy else 'abs'}({self.code(e.args[0])})", ATOM
        if isinstance(e, sp.core.relational.Relational):
            op = {"<=": "<=", "<": "<", ">=": ">=", ">": ">", "==": "==", "!=": "!="}[e.rel_op]
            return f"{self.code(e.lhs, ADD)} {op} {self.code(e.rhs, ADD)}", CMP
        if isinstance(e, (sp.And, sp.Or)):
            args = list(sp.ordered(e.args))
            if self.numpy:
                fn = "np.logical_and" if isinstance(e, sp.And) else "np.logical_or"
                out = self.code(args[-1])
                for a in reversed(args[:-1]):
                    out = f"{fn}({self.code(a)}, {out})"
                return out, ATOM
            word, prec = (" and ", AND) if isinstance(e, sp.And) else (" or ", OR)
            return word.join(self.code(a, prec + 1) for a in args), prec
        if isinstance(e, sp.Not):
            if self.numpy:
                return f"np.logical_not({self.code(e.args[0])})", ATOM
            return f"not {self.code(e.args[0], NOT)}", NOT
        raise NotImplementedError(f"the Python backend cannot print {type(e).__name__}: {e}")

    def _add(self, e) -> str:
        out = ""
        for i, t in enumerate(e.as_ordered_terms()):
            neg = t.could_extract_minus_sign()
            body = self.code(-t if neg else t, MUL if (neg or i) else ADD)
            if i == 0:
                out = f"-{body}" if neg else body
            else:
                out += f" - {body}" if neg else f" + {body}"
        return out

    def _mul(self, e) -> tuple[str, int]:
        coeff, factors = e.as_coeff_mul()
        sign = ""
        if coeff < 0:
            sign, coeff = "-", -coeff
        num, den = [], []
        if isinstance(coeff, sp.Rational):
            if coeff.p != 1:
                num.append(str(int(coeff.p)))
            if coeff.q != 1:
                den.append(str(int(coeff.q)))
        elif coeff != 1:
            num.append(number(coeff))
        for f in sp.Mul(*factors).as_ordered_factors() if factors else []:
            if isinstance(f, sp.Pow) and f.exp.is_number and f.exp.is_negative:
                inner = f.base if f.exp == -1 else sp.Pow(f.base, -f.exp, evaluate=False)
                den.append(self.code(inner, MUL + 1))
            else:
                num.append(self.code(f, MUL))
        if not num:
            num = ["1"]
        text = " * ".join(num)
        if den:
            text += " / " + (den[0] if len(den) == 1 else "(" + " * ".join(den) + ")")
        if sign:
            return f"-{text}", MUL
        return text, MUL

    def _pow(self, e) -> tuple[str, int]:
        base, ex = e.base, e.exp
        if ex.is_number and ex.is_negative:
            inner = base if ex == -1 else sp.Pow(base, -ex, evaluate=False)
            return f"1 / {self.code(inner, MUL + 1)}", MUL
        if ex == sp.S.Half:
            return f"{self.mod}.sqrt({self.code(base)})", ATOM
        b = self.code(base, ATOM)
        x = self.code(ex, ATOM)
        if _SIMPLE.match(b) and _SIMPLE.match(x):
            return f"{b}**{x}", POW
        return f"{b} ** {x}", POW

    def _piecewise(self, e) -> tuple[str, int]:
        pieces = list(e.args)
        if pieces[-1].cond is sp.true:
            tail = self.code(pieces[-1].expr, COND if not self.numpy else 0)
            pieces = pieces[:-1]
        else:
            tail = f"{self.mod}.nan"
        if self.numpy:
            out = tail
            for p in reversed(pieces):
                out = f"np.where({self.code(p.cond)}, {self.code(p.expr)}, {out})"
            return out, ATOM
        out = tail
        for p in reversed(pieces):
            out = f"{self.code(p.expr, COND + 1)} if {self.code(p.cond, COND + 1)} else {out}"
        return out, COND
