"""The dimensions, units and literals the random chains of tests/agreement_grammar.py are written in.

The dimensions are exponents of (time, token, information); literals name them with s,
token and GB (or ms and MiB: another spelling of the same dimension).
"""

from __future__ import annotations

Dim = tuple[int, int, int]  # exponents of time, token, information
ZERO: Dim = (0, 0, 0)
TIME, TOKEN, RATE, BYTES = (1, 0, 0), (0, 1, 0), (-1, 1, 0), (0, 0, 1)
DIMS = (ZERO, TIME, TOKEN, RATE, BYTES)
# the display units a variable of each dimension may have (the first is the plainest)
UNITS = {ZERO: ("", "percent"), TIME: ("s", "ms"), TOKEN: ("token",), RATE: ("token/s",), BYTES: ("GB", "MB")}
NUMBERS = ("2", "1", "3", "0.5", "10", "1.5", "0.25", "4", "100", "7")
VALUES = (2, 1, 3, 0.5, 10, 1.5, 4, 0.25, 7, 100, 12.5)
ODD_VALUES = (0, -1, -2.5, 0.5, 1e-3, 1e4)  # points that may fall outside a domain


def add(a: Dim, b: Dim) -> Dim:
    return tuple(x + y for x, y in zip(a, b))


def sub(a: Dim, b: Dim) -> Dim:
    return tuple(x - y for x, y in zip(a, b))


def scale(a: Dim, k: int) -> Dim:
    return tuple(x * k for x in a)


def unit_text(d: Dim, spelling: int = 0) -> str:
    """A unit of dimension d: 'token/s', 'GB*s', '1/s**2'."""
    symbols = (("s", "ms")[spelling % 2], "token", ("GB", "MiB")[spelling % 2])
    up = [s + (f"**{e}" if e > 1 else "") for s, e in zip(symbols, d) if e > 0]
    down = [s + (f"**{-e}" if e < -1 else "") for s, e in zip(symbols, d) if e < 0]
    text = "*".join(up) or "1"
    return text + "".join(f"/{s}" for s in down)


def literal(number: str, d: Dim, spelling: int = 0) -> str:
    return number if d == ZERO else f"{number}[{unit_text(d, spelling)}]"


def wrap(text: str) -> str:
    """Parenthesised unless it is a name, a number, a literal or a call."""
    plain = text.replace("_", "").replace(".", "")
    if plain.isalnum() or (text.endswith("]") and "[" in text and " " not in text) or (text.endswith(")") and _one_call(text)):
        return text
    return f"({text})"


def _one_call(text: str) -> bool:
    """`f(...)` with the parentheses closing only at the end."""
    head = text.split("(", 1)[0]
    if not head.isidentifier():
        return False
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ")" and k != len(text) - 1:
            return False
    return True
