"""LaTeX for the derivation sheets: escaping prose, symbols, units for siunitx, and math.

Nothing a model file says is glued into LaTeX as is. Prose goes through
`latex_escape`; a declared `symbol:` is used only when it passes a whitelist
(`safe_symbol`), otherwise the variable's name is typeset; math is printed from
SymPy by `SheetPrinter`; units go through `si_unit`, which knows our units and
refuses anything else.
"""

from __future__ import annotations

import re
import unicodedata

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.latex import LatexPrinter
from sympy.printing.precedence import PRECEDENCE

from ..derivation import LITERALS, Shown, aggregate_info
from ..ir import Model, Quantity


class Tex(str):
    """Text that is LaTeX already (made by this module): templates print it as is; any other str is escaped."""


# --- prose ------------------------------------------------------------------------------------------

_ESCAPES = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\textasciicircum{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\textasciitilde{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
    '"': r"\textquotedbl{}",
    "\n": " ",
    "\t": " ",
    "\r": " ",
}
# Characters beyond ASCII that pdflatex (T1, utf8) does not know are spelled out.
_UNICODE = {
    "µ": r"\textmu{}",
    "μ": r"\textmu{}",
    "×": r"\texttimes{}",
    "·": r"\textperiodcentered{}",
    "–": "--",
    "—": "---",
    "‘": "`",
    "’": "'",
    "“": "``",
    "”": "''",
    "…": r"\ldots{}",
    "≤": r"\ensuremath{\leq}",
    "≥": r"\ensuremath{\geq}",
    "≈": r"\ensuremath{\approx}",
    "→": r"\ensuremath{\rightarrow}",
    "±": r"\textpm{}",
    "°": r"\textdegree{}",
    "²": r"\texttwosuperior{}",
    "³": r"\textthreesuperior{}",
    "€": r"\texteuro{}",
    "\u00a0": "~",
}
GREEK = (
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega "
    "Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"
).split()
for _name in GREEK:
    if not _name.startswith("var"):
        _letter = "LAMDA" if _name.lower() == "lambda" else _name.upper()
        _ch = unicodedata.lookup(("GREEK SMALL LETTER " if _name.islower() else "GREEK CAPITAL LETTER ") + _letter)
        _UNICODE.setdefault(_ch, rf"\ensuremath{{\{_name}}}")


def latex_escape(text: str) -> Tex:
    """Prose from a model as LaTeX that typesets it literally: \\input{x} prints as \\input{x} and runs nothing."""
    out = []
    for ch in str(text):
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(" ")
        elif ord(ch) < 128:
            out.append(ch)
        elif ch in _UNICODE:
            out.append(_UNICODE[ch])
        elif 0xC0 <= ord(ch) <= 0xFF and ch not in "×÷":
            out.append(ch)  # Latin-1 letters: T1 + utf8 typeset them
        else:
            out.append("?")
    # '--' and '``' are ligatures in T1; keep a model's text literal
    return Tex("".join(out).replace("--", "-{}-").replace("``", "`{}`").replace("''", "'{}'"))


# --- symbols ----------------------------------------------------------------------------------------

_SAFE_COMMANDS = set(GREEK) | {
    "mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathcal", "text", "textrm", "operatorname",
    "bar", "hat", "tilde", "vec", "dot", "ddot", "overline", "underline", "widehat", "widetilde",
    "prime", "partial", "nabla", "infty", "ell", "hbar", "max", "min", "log", "exp", "ln",
    "cdot", "times", "ast", "star", "dagger", "circ", "bullet", "top", "perp", "sum", "prod",
    "epsilon", "varepsilon", "lbrace", "rbrace", "langle", "rangle", "lVert", "rVert", "vert",
}  # fmt: skip
_SAFE_CHARS = re.compile(r"[A-Za-z0-9 _^{}()\[\]+\-*/.,'|=<>!:;]*")


def safe_symbol(latex: str) -> str | None:
    """A declared LaTeX symbol if it only uses harmless math markup, else None (the name is typeset instead)."""
    if not latex or len(latex) > 120:
        return None
    body = re.sub(r"\\([A-Za-z]+|[,;! ])", lambda m: "" if (m.group(1) in _SAFE_COMMANDS or m.group(1) in ",;! ") else "\x00", latex)
    if "\x00" in body or "\\" in body or not _SAFE_CHARS.fullmatch(body):
        return None
    depth = 0
    scripts = {"_": 0, "^": 0}
    for i, ch in enumerate(latex):
        depth += ch == "{"
        depth -= ch == "}"
        if depth < 0:
            return None
        if ch in "_^" and (i == 0 or latex[i - 1] != "\\"):
            rest = latex[i + 1 :].lstrip()
            if not rest or rest[0] in "_^}":
                return None
            if depth == 0:
                scripts[ch] += 1
    if depth != 0 or max(scripts.values()) > 1:
        return None
    return latex


def name_tex(name: str) -> str:
    """A variable's name as math, when it declares no symbol.

    Greek names become the letters (rho -> \\rho); a short head with one suffix reads as a
    subscript (t_swap -> t_{swap}, rho_max -> \\rho_{max}, p99 -> p_{99}); a single letter is
    italic; any other name is typeset upright as written (\\mathrm{kv\\_bytes\\_per\\_token}),
    so the sheet and the model file use the same words and can be searched for each other.
    """
    if name in GREEK:
        return "\\" + name
    if len(name) == 1 and name.isalpha():
        return name
    m = re.fullmatch(r"([A-Za-z]+)_([A-Za-z0-9]+)", name)
    if m and (m.group(1) in GREEK or len(m.group(1)) == 1):
        head = "\\" + m.group(1) if m.group(1) in GREEK else m.group(1)
        return f"{head}_{{\\mathrm{{{m.group(2)}}}}}"
    m = re.fullmatch(r"([A-Za-z])([0-9]+)", name)
    if m:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    return "\\mathrm{" + latex_escape(name) + "}"


def symbol_tex(q: Quantity) -> str:
    return safe_symbol(q.latex) or name_tex(q.name.split(".")[-1] if "." in q.name and not q.latex else q.name)


# --- units ------------------------------------------------------------------------------------------

_UNITS = {
    "s": r"\second", "sec": r"\second", "second": r"\second", "min": r"\minute", "minute": r"\minute", "h": r"\hour", "hr": r"\hour", "hour": r"\hour", "d": r"\day", "day": r"\day",
    "B": r"\byte", "byte": r"\byte", "bytes": r"\byte", "b": r"\bit", "bit": r"\bit",
    "token": r"\token", "tok": r"\token", "tokens": r"\token",
    "request": r"\request", "req": r"\request", "requests": r"\request", "seq": r"\sequence", "sequence": r"\sequence", "sequences": r"\sequence",
    "FLOP": r"\flop", "flop": r"\flop", "FLOPs": r"\flop", "Hz": r"\hertz", "hertz": r"\hertz", "%": r"\percent", "percent": r"\percent", "pct": r"\percent",
    "USD": r"\dollar", "dollar": r"\dollar",
}  # fmt: skip
_PREFIXES = {
    "Ki": r"\kibi", "Mi": r"\mebi", "Gi": r"\gibi", "Ti": r"\tebi", "Pi": r"\pebi", "Ei": r"\exbi",
    "k": r"\kilo", "K": r"\kilo", "M": r"\mega", "G": r"\giga", "T": r"\tera", "P": r"\peta", "E": r"\exa",
    "m": r"\milli", "u": r"\micro", "µ": r"\micro", "μ": r"\micro", "n": r"\nano", "p": r"\pico", "f": r"\femto", "c": r"\centi",
}  # fmt: skip
_POWERS = {"2": r"\squared", "3": r"\cubed"}


def _si_factor(text: str) -> str | None:
    m = re.fullmatch(r"([^\s^]+?)(?:\^(-?\d+))?", text.strip())
    if not m:
        return None
    name, power = m.group(1), m.group(2)
    tex = _UNITS.get(name)
    if tex is None:
        for p in sorted(_PREFIXES, key=len, reverse=True):
            if name.startswith(p) and name[len(p) :] in _UNITS:
                tex = _PREFIXES[p] + _UNITS[name[len(p) :]]
                break
    if tex is None:
        return None
    if power and power != "1":
        tex += _POWERS.get(power, rf"\tothe{{{power}}}")
    return tex


def si_unit(unit: str) -> str | None:
    """A pint unit as we write them ('ms/token', 'FLOP/token^2', '1/token', 'KiB/token') as siunitx markup.

    None for a unit outside our vocabulary (the caller prints it escaped instead).
    """
    text = unit.replace(" ", "").replace("**", "^")
    if text in ("", "1"):
        return ""
    if "(" in text or ")" in text:
        return None
    parts = re.split(r"([*/])", text)
    out = []
    op = "*"
    for part in parts:
        if part in ("*", "/"):
            op = part
            continue
        if part == "1" and op == "*":
            continue
        tex = _si_factor(part)
        if tex is None:
            return None
        out.append((r"\per" if op == "/" else "") + tex)
    return "".join(out)


def _number(text: str) -> str:
    return text.replace(",", "")


def quantity_tex(v: Shown) -> str:
    """A value and its unit for math mode: \\qty{9.923}{\\milli\\second\\per\\token}."""
    unit = si_unit(v.unit)
    if not v.unit:
        return rf"\num{{{_number(v.text)}}}"
    if unit is None:
        return rf"\num{{{_number(v.text)}}}\,\text{{{latex_escape(v.unit)}}}"
    return rf"\qty{{{_number(v.text)}}}{{{unit}}}"


def unit_tex(unit: str) -> str:
    """A unit alone, for text mode (table headers and columns)."""
    if not unit:
        return ""
    si = si_unit(unit)
    return rf"\unit{{{si}}}" if si is not None else latex_escape(unit)


def number_tex(text: str) -> str:
    return rf"\num{{{_number(text)}}}"


# --- math -------------------------------------------------------------------------------------------


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
