"""A parsed expression's value: a SymPy expression and its dimension (or BOOL, for a condition)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import sympy as sp

from .errors import Loc
from .units import Dim

BOOL = "bool"  # the "dimension" of a condition
ANY = None  # the dimension of a literal zero: it matches every dimension
FUNCTIONS = ("min", "max", "ceil", "floor", "mod", "log", "exp", "sqrt", "abs", "if", "factorial", "gamma")
FINITE = ("sum", "prod")  # sum(expr for k in range(lo, hi)), prod(...): a finite sum or product over a whole-number index
AGGREGATES = ("sum", "last", "count", "max", "min")
IF = "IF"  # `if` is a Python keyword; it is renamed token-wise (same length, so columns hold)


@dataclass(frozen=True)
class Term:
    expr: sp.Basic
    dim: Dim | str | None
    # (divisor, condition under which it divides): every division the text writes, kept because
    # SymPy may cancel it (a / a is 1), so evaluation can refuse a zero divisor all the same
    guards: tuple[tuple[sp.Expr, sp.Basic], ...] = ()


class Scope(Protocol):
    def lookup(self, name: str, loc: Loc) -> Term: ...
    def aggregate(self, kind: str, table: str, column: str | None, loc: Loc) -> Term: ...
    def is_table(self, name: str) -> bool: ...


Where = Callable[[int, int], Loc]  # (lineno, col_offset) inside the text -> file location


def is_condition(dim: Dim | str | None) -> bool:
    """Whether a Term's dimension is BOOL: a type test, since `dim == BOOL` on a pint dimension parses the string "bool"."""
    return isinstance(dim, str)


def same_dim(a: Dim | str | None, b: Dim | str | None) -> bool:
    return a is ANY or b is ANY or a == b


def held(fn: Callable, *args: sp.Basic) -> sp.Basic:
    """fn(*args), left unevaluated by SymPy when an argument holds a sum or a product: SymPy reads range(5, 2) backwards
    as -3 terms (Karr's convention) where Python and chainc read no terms, and would decide min(), ceil() or a comparison on that."""
    return fn(*args, evaluate=not any(sp.sympify(a).has(sp.Sum, sp.Product) for a in args))
