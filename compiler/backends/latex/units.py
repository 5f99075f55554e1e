"""Units and numbers for siunitx: our pint units as siunitx markup, refusing anything else."""

from __future__ import annotations

import re

from ...derivation import Shown
from .escape import Tex, latex_escape

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
    if getattr(v, "label", False):  # a choice's name
        return rf"\text{{{latex_escape(v.text)}}}"
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


# --- decimal-aligned table columns (siunitx S) ----------------------------------------------------------

_S_NUMBER = re.compile(r"(?P<cmp>\\[lg]eq |[<>] )?(?P<sign>-)?(?P<int>\d+)(?:\.(?P<dec>\d+))?(?:e(?P<esign>[-+])?(?P<exp>\d+))?")
COMPARATORS = {"<": "< ", ">": "> ", "<=": r"\leq ", ">=": r"\geq "}  # a bound in an S cell: '\geq 34.35'


def s_cell(text: str, comparator: str = "") -> Tex:
    """A number for an S column ('6,450' -> 6450, '5.243e-06'), optionally after a comparator; anything else as braced text."""
    number = COMPARATORS.get(comparator, "") + _number(text)
    return Tex(number if _S_NUMBER.fullmatch(number) else "{" + latex_escape(text) + "}")


def s_column(cells: list[str], fixed: float | None = None) -> Tex:
    """The S column that aligns these cells (made by s_cell) on the decimal point: S[table-format=<-6.3e-2].

    `fixed`: the column is this many em wide, or wider if the numbers need it (a longtable of
    fixed-width columns is laid out in one pdflatex run; a header wider than the numbers
    would otherwise widen the column after the first page and ask for another run).
    """
    cmp = sign = esign = False
    whole, decimals, exponent = 1, 0, 0
    for cell in cells:
        m = _S_NUMBER.fullmatch(cell)
        if m is None:
            continue
        cmp |= bool(m.group("cmp"))
        sign |= bool(m.group("sign"))
        whole = max(whole, len(m.group("int")))
        decimals = max(decimals, len(m.group("dec") or ""))
        if m.group("exp"):
            exponent = max(exponent, len(str(int(m.group("exp")))))
            esign |= m.group("esign") == "-"
    spec = ("<" if cmp else "") + ("-" if sign else "") + f"{whole}.{decimals}"
    if exponent:
        spec += "e" + ("-" if esign else "") + str(exponent)
    if fixed is None:
        return Tex(f"S[table-format={spec}]")
    # digits are half an em; a separator or the point a quarter; a comparator, the sign, x 10^e about an em each
    em = 0.5 * (whole + decimals) + 0.25 * ((whole - 1) // 3 + bool(decimals)) + 1.1 * cmp + 0.6 * sign + (2.0 + 0.4 * (exponent + esign) if exponent else 0)
    return Tex(f"S[table-format={spec},table-column-width={max(fixed, round(em + 0.5, 1))}em]")
