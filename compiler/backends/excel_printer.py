"""SymPy -> Excel formula text, and valid Excel names.

`ExcelPrinter` is a SymPy `CodePrinter`: one `_print_<Node>` per node type, name
tables kept as data, and every node it cannot print collected and reported as an
`ExcelPrintError` at build time, never written as something silently wrong.

Excel's grammar differs from mathematics in ways that matter (measured in
LibreOffice 7.4; Excel documents the same):

- unary minus binds tighter than ``^``: ``=-x^2`` is ``(-x)^2``, so a negated
  power, product or sum is printed as ``-(...)`` unless what follows the sign is
  a single atom (a number, a name, a function call);
- ``^`` is left-associative (``2^3^2`` is 64): a power's base and exponent are
  parenthesised unless they are atoms;
- a space is the range-intersection operator: no spaces anywhere;
- ``INT`` is floor; a ceiling is ``-INT(-x)`` (``ROUNDUP`` rounds away from zero).

Every printed string carries a precedence level, so parentheses are added where
the context needs them and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.codeprinter import CodePrinter

from ..errors import ChaincError

# precedence levels of printed text, loosest first
CMP, ADD, MUL, POW, NEG, ATOM = 10, 20, 30, 40, 50, 60


class ExcelPrintError(ChaincError, ValueError):
    """An expression has a node with no Excel equivalent."""


class _F(str):
    """Formula text with the precedence level of its outermost operator."""

    level: int = ATOM

    def __new__(cls, text: str, level: int = ATOM):
        s = super().__new__(cls, text)
        s.level = level
        return s


# SymPy function name -> Excel function (same arguments, same order)
FUNCTIONS = {
    "Abs": "ABS",
    "exp": "EXP",
    "log": "LN",
    "sin": "SIN",
    "cos": "COS",
    "tan": "TAN",
    "asin": "ASIN",
    "acos": "ACOS",
    "atan": "ATAN",
    "sinh": "SINH",
    "cosh": "COSH",
    "tanh": "TANH",
    "sign": "SIGN",
    "Mod": "MOD",
    "Min": "MIN",
    "Max": "MAX",
}

RELATIONS = {"==": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def _decimal(p: int, q: int) -> str | None:
    """p/q as an exact decimal with at most 15 significant digits, or None."""
    n, twos, fives = q, 0, 0
    while n % 2 == 0:
        n //= 2
        twos += 1
    while n % 5 == 0:
        n //= 5
        fives += 1
    if n != 1:
        return None
    places = max(twos, fives)
    digits = str(abs(p) * 10**places // q)
    if len(digits.lstrip("0").rstrip("0")) > 15:
        return None
    if places == 0:
        text = digits
    else:
        digits = digits.rjust(places + 1, "0")
        text = (digits[:-places] + "." + digits[-places:]).rstrip("0").rstrip(".")
    return ("-" if p < 0 else "") + text


def _float_text(x: float) -> str:
    text = repr(float(x)).upper()
    if text.endswith(".0"):
        text = text[:-2]
    return text.replace("E+", "E+").replace(".0E", "E")


class ExcelPrinter(CodePrinter):
    """Print a SymPy expression as the text of an Excel formula (without the leading '=').

    names: symbol -> cell reference or defined name (any text that is an atom in a formula).
    functions: name of an undefined function (a table aggregate) -> text, or a callable(args) -> text.
    """

    printmethod = "_excel"
    language = "Excel"
    _default_settings = {**CodePrinter._default_settings, "strict": False, "human": True, "allow_unknown_functions": False, "order": "none"}

    def __init__(self, names: Mapping[sp.Symbol, str] | None = None, functions: Mapping[str, str | Callable] | None = None):
        super().__init__({})
        self.names = dict(names or {})
        self.undefined = dict(functions or {})
        self._not_supported = set()

    # --- entry point ------------------------------------------------------------------------

    def formula(self, expr) -> str:
        """The formula text of `expr`; raises ExcelPrintError listing every node it cannot print."""
        self._not_supported = set()
        text = self._print(sp.sympify(expr))
        if self._not_supported:
            bad = sorted({str(n) for n in self._not_supported})
            raise ExcelPrintError(
                f"cannot write as an Excel formula: {', '.join(bad)}",
                None,
                "Excel formulas support + - * / ^, comparisons, and/or/not, if, min, max, floor, ceil, abs, exp, log, sqrt; names must be mapped to cells",
            )
        return str(text)

    def doprint(self, expr, assign_to=None):
        return self.formula(expr)

    # --- helpers ----------------------------------------------------------------------------

    def _fail(self, expr) -> _F:
        self._not_supported.add(expr)
        return _F(f"?{expr}?")

    def _p(self, expr) -> _F:
        out = self._print(expr)
        return out if isinstance(out, _F) else _F(str(out), ATOM)

    def _wrap(self, expr, ok: Callable[[int], bool]) -> str:
        s = self._p(expr)
        return str(s) if ok(s.level) else f"({s})"

    def _atom(self, expr) -> str:
        return self._wrap(expr, lambda lv: lv == ATOM)

    def _factor(self, expr) -> str:
        return self._wrap(expr, lambda lv: lv in (POW, ATOM))

    def _call(self, name: str, args) -> _F:
        return _F(f"{name}({','.join(str(self._p(a)) for a in args)})", ATOM)

    @staticmethod
    def _negate(s: _F) -> _F:
        return _F(f"-{s}" if s.level == ATOM else f"-({s})", NEG)

    def _print(self, expr, **kwargs):
        """Dispatch only to this class's own methods: a node StrPrinter would print as Python text is an error here."""
        for cls in type(expr).__mro__:
            for klass in type(self).__mro__:
                if klass is CodePrinter:
                    break
                method = klass.__dict__.get("_print_" + cls.__name__)
                if method is not None:
                    return method(self, expr)
        return self._fail(expr)

    def emptyPrinter(self, expr):
        return self._fail(expr)

    def _print_not_supported(self, expr):
        return self._fail(expr)

    # --- atoms ------------------------------------------------------------------------------

    def _print_Symbol(self, expr):
        if expr in self.names:
            return _F(self.names[expr], ATOM)
        return self._fail(expr)

    _print_Dummy = _print_Symbol

    def _print_Integer(self, expr):
        p = int(expr)
        text = str(abs(p)) if abs(p) < 10**15 else _float_text(abs(p))
        return _F(("-" if p < 0 else "") + text, NEG if p < 0 else ATOM)

    _print_Zero = _print_One = _print_NegativeOne = _print_Integer

    def _print_Rational(self, expr):
        p, q = int(expr.p), int(expr.q)
        if q == 1:
            return self._print_Integer(expr)
        dec = _decimal(p, q)
        if dec is not None:
            return _F(dec, NEG if p < 0 else ATOM)
        if abs(p) < 10**15 and q < 10**15:
            return _F(f"{p}/{q}", MUL)
        return self._print_Float(sp.Float(expr, 17))

    _print_Half = _print_Rational

    def _print_Float(self, expr):
        x = float(expr)
        if x != x or x in (float("inf"), float("-inf")):
            return self._fail(expr)
        text = _float_text(x)
        return _F(text, NEG if x < 0 else ATOM)

    def _print_BooleanTrue(self, expr):
        return _F("TRUE", ATOM)

    def _print_BooleanFalse(self, expr):
        return _F("FALSE", ATOM)

    def _print_Exp1(self, expr):
        return _F("EXP(1)", ATOM)

    def _print_Pi(self, expr):
        return _F("PI()", ATOM)

    def _print_NaN(self, expr):
        return self._fail(expr)

    _print_Infinity = _print_NegativeInfinity = _print_ComplexInfinity = _print_ImaginaryUnit = _print_NaN

    # --- arithmetic -------------------------------------------------------------------------

    def _print_Add(self, expr, order=None):
        terms = list(expr.as_ordered_terms())
        pos = [t for t in terms if not t.could_extract_minus_sign()]
        neg = [t for t in terms if t.could_extract_minus_sign()]
        ordered = pos + neg
        out = str(self._p(ordered[0]))
        for t in ordered[1:]:
            if t.could_extract_minus_sign():
                out += "-" + self._wrap(-t, lambda lv: lv in (MUL, POW, ATOM))
            else:
                out += "+" + self._wrap(t, lambda lv: lv in (MUL, POW, ATOM))
        return _F(out, ADD)

    def _print_Mul(self, expr):
        coeff, rest = expr.as_coeff_Mul()
        negative = bool(coeff < 0) if coeff.is_number else False
        if negative:
            coeff = -coeff
        num, den = [], []
        if coeff.is_Rational:
            if coeff.p != 1:
                num.append(sp.Integer(coeff.p))
            if coeff.q != 1:
                den.append(sp.Integer(coeff.q))
        elif coeff != 1:
            num.append(coeff)
        for f in sp.Mul.make_args(rest):
            if f.is_Pow and f.exp.is_number and f.exp.is_extended_negative:
                den.append(f.base if f.exp == -1 else sp.Pow(f.base, -f.exp, evaluate=False))
            else:
                num.append(f)
        pieces = [self._factor(f) for f in num] or ["1"]
        text = "*".join(pieces)
        for d in den:
            text += "/" + self._factor(d)
        single = len(pieces) == 1 and not den
        if not negative:
            if single:
                return self._p(num[0]) if num else _F("1", ATOM)
            return _F(text, MUL)
        first = self._p(num[0]) if num else _F("1", ATOM)
        if first.level == ATOM and pieces[0] == str(first):
            return _F("-" + text, NEG if single else MUL)
        return _F(f"-({text})", NEG)

    def _print_Pow(self, expr):
        base, e = expr.base, expr.exp
        if base is sp.E:
            return self._call("EXP", [e])
        if base.is_number and base.is_extended_negative and not e.is_integer:
            return self._fail(expr)  # (-8)^(1/3) differs between engines
        if e == sp.S.Half:
            return self._call("SQRT", [base])
        if e.is_number and e.is_extended_negative:
            inner = base if e == -1 else sp.Pow(base, -e, evaluate=False)
            if e == -sp.S.Half:
                return _F(f"1/SQRT({self._p(base)})", MUL)
            return _F("1/" + self._factor(inner), MUL)
        return _F(f"{self._atom(base)}^{self._atom(e)}", POW)

    # --- functions --------------------------------------------------------------------------

    def _print_Function(self, expr):
        name = expr.func.__name__
        if isinstance(expr, AppliedUndef):
            if name in self.undefined:
                f = self.undefined[name]
                return _F(f(expr.args) if callable(f) else f, ATOM)
            return self._fail(expr)
        if name in FUNCTIONS:
            return self._call(FUNCTIONS[name], expr.args)
        return self._fail(expr)

    def _print_log(self, expr):
        if len(expr.args) == 2:
            x, b = expr.args
            return _F(f"LN({self._p(x)})/LN({self._p(b)})", MUL)
        return self._call("LN", expr.args)

    def _print_floor(self, expr):
        return self._call("INT", expr.args)

    def _print_ceiling(self, expr):
        return _F(f"-INT({self._p(-expr.args[0])})", NEG)

    def _print_atan2(self, expr):
        y, x = expr.args
        return self._call("ATAN2", [x, y])

    def _print_Piecewise(self, expr):
        pieces = list(expr.args)
        if pieces[-1].cond == sp.true:
            out = str(self._p(pieces[-1].expr))
            pieces = pieces[:-1]
        else:
            out = "NA()"
        for e, c in reversed(pieces):
            out = f"IF({self._p(c)},{self._p(e)},{out})"
        return _F(out, ATOM)

    # --- logic ------------------------------------------------------------------------------

    def _print_Relational(self, expr):
        op = RELATIONS.get(expr.rel_op)
        if op is None:
            return self._fail(expr)
        ok = lambda lv: lv > CMP  # noqa: E731
        return _F(f"{self._wrap(expr.lhs, ok)}{op}{self._wrap(expr.rhs, ok)}", CMP)

    _print_Equality = _print_Unequality = _print_StrictLessThan = _print_LessThan = _print_StrictGreaterThan = _print_GreaterThan = _print_Relational

    def _print_And(self, expr):
        return self._call("AND", sorted(expr.args, key=sp.default_sort_key))

    def _print_Or(self, expr):
        return self._call("OR", sorted(expr.args, key=sp.default_sort_key))

    def _print_ITE(self, expr):
        return self._call("IF", expr.args)

    def _print_Not(self, expr):
        return self._call("NOT", expr.args)

    def _print_Min(self, expr):
        return self._call("MIN", expr.args)

    def _print_Max(self, expr):
        return self._call("MAX", expr.args)


def excel_formula(expr, names: Mapping[sp.Symbol, str] | None = None, functions: Mapping[str, str | Callable] | None = None) -> str:
    """'=' + the formula of `expr`."""
    return "=" + ExcelPrinter(names, functions).formula(expr)


# --- names -------------------------------------------------------------------------------------

_A1 = re.compile(r"^\$?[A-Za-z]{1,3}\$?[0-9]+$")
_R1C1 = re.compile(r"^[Rr]([0-9]*|\[-?[0-9]+\])?([Cc]([0-9]*|\[-?[0-9]+\])?)?$|^[Cc]([0-9]*|\[-?[0-9]+\])?$")
_RESERVED = {"TRUE", "FALSE", "NULL"}


def looks_like_reference(name: str) -> bool:
    """True for A1-style references (A1, xfd1048576), R1C1 forms (R, C, R1, C1, RC, R1C1) and names Excel reserves."""
    return bool(_A1.match(name) or _R1C1.match(name)) or name.upper() in _RESERVED


class NameTable:
    """Valid, case-insensitively unique Excel names for dotted model names ('goodput.tpot' -> 'goodput_tpot')."""

    def __init__(self):
        self.taken: dict[str, str] = {}  # upper-case name -> the key it was made for
        self.by_key: dict[str, str] = {}

    @staticmethod
    def mangle(text: str) -> str:
        name = re.sub(r"[^A-Za-z0-9_]", "_", text)
        if not name or not (name[0].isalpha() or name[0] == "_"):
            name = "_" + name
        if looks_like_reference(name):
            name = "_" + name
        return name[:200]

    def name(self, key: str) -> str:
        """The name for `key` (any text), made once: later calls return the same name."""
        if key in self.by_key:
            return self.by_key[key]
        base = self.mangle(key)
        name, k = base, 1
        while name.upper() in self.taken or looks_like_reference(name):
            k += 1
            name = f"{base}_{k}"
        self.taken[name.upper()] = key
        self.by_key[key] = name
        return name
