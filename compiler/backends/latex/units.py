"""Units and numbers for siunitx: our pint units as siunitx markup, refusing anything else."""

from __future__ import annotations

import re

from ...derivation import Shown
from .escape import latex_escape

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
