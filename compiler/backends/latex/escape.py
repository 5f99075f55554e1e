"""Prose and symbols for the derivation sheets: nothing a model file says is glued into LaTeX as is.

Prose goes through `latex_escape`; a declared `symbol:` is used only when it
passes a whitelist (`safe_symbol`), otherwise the variable's name is typeset
(`name_tex`); identifiers in text (`ident`) are escaped too. Units are units.py's,
math is printer.py's.
"""

from __future__ import annotations

import re
import unicodedata

from ...ir import Quantity


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


_URL = re.compile(r"https?://\S+")


def latex_escape(text: str) -> Tex:
    """Prose from a model as LaTeX that typesets it literally: \\input{x} prints as \\input{x} and runs nothing."""
    out = []
    text = str(text)
    breaks = {m.start() + i + 1 for m in _URL.finditer(text) for i, c in enumerate(m.group()) if c in "/.-"}
    for at, ch in enumerate(text):
        if at in breaks:  # a long address breaks after its slashes, dots and hyphens instead of running into the margin
            out.append(r"\allowbreak{}")
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


def ident(name: str, breakable: bool = False) -> Tex:
    """An identifier in text, in one piece; `breakable`: it may break after '.' or '_', where a mark shows it goes on."""
    if not breakable:
        return Tex(r"\mbox{\texttt{" + latex_escape(name) + "}}")
    return Tex(r"\texttt{" + _breakable(name) + "}")


def _breakable(name: str) -> str:
    mark = r"\discretionary{\chainbreakmark}{}{}"
    return latex_escape(name).replace(r"\_", r"\_" + mark).replace(".", "." + mark)


_PLAIN = {
    "µ": "u",
    "μ": "u",
    "×": "x",
    "·": ".",
    "–": "-",
    "—": "-",
    "‘": "'",
    "’": "'",
    "“": '"',
    "”": '"',
    "…": "...",
    "≤": "<=",
    "≥": ">=",
    "≈": "~",
    "→": "->",
    "±": "+/-",
    "°": " deg",
    "²": "^2",
    "³": "^3",
    "€": "EUR",
}


def pdf_text(text: str) -> Tex:
    """Prose for a PDF string (a bookmark, the document title): escaped as latex_escape does, but only with
    commands hyperref turns into characters, so nothing is lost from the outline."""
    plain = "".join(_PLAIN.get(ch, ch) if ord(ch) >= 128 and not (0xC0 <= ord(ch) <= 0xFF) else ch for ch in str(text))
    return latex_escape(plain)


_IDENT = re.compile(r"([A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)*_[A-Za-z0-9]+(?:[_.][A-Za-z0-9]+)*)")


def prose(text: str) -> Tex:
    """Prose as latex_escape makes it, where a name written in it (max_num_batched_tokens) may break
    after '_' or '.' with a visible mark, as `ident(..., breakable=True)` does, instead of running into the margin."""
    parts = _IDENT.split(str(text))
    out = [_breakable(p) if k % 2 else latex_escape(p) for k, p in enumerate(parts)]
    return Tex("".join(out))
