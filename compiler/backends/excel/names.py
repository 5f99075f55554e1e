"""Valid Excel names: mangled per chain, never cell-like, unique without regard to case.

Excel forbids names that look like cell references (`A1`, `x1`, R1C1 forms such
as `R`, `C`, `RC2`) or booleans, and names are case-insensitive (LibreOffice
silently resolves `v` to `V`): the table makes each key's name once and gives a
second key whose text collides, in any case, a numbered name.
"""

from __future__ import annotations

import re

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
