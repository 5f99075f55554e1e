"""How questions name what they ask about: a variable as expressions name it, and conditions split into labelled parts.

Shared by the questions of asks.py and the searches of searches_load.py.
"""

from __future__ import annotations

import ast
import difflib
import warnings
from typing import Any

from .ir import Variable
from .joins import joined_name
from .source import KeyPath


def variable(b, name: Any, kp: KeyPath) -> Variable:
    """A variable named as expressions name it: a joined model's is `alias.name` here too (one spelling everywhere)."""
    alias, dot, field = str(name).partition(".")
    if dot and alias in b.joined:
        if field not in b.joined[alias].variables:
            close = difflib.get_close_matches(field, list(b.joined[alias].variables), n=1)
            raise b.fail(kp, f"model '{b.joined[alias].name}' has no variable '{field}'", f"did you mean {alias}.{close[0]}?" if close else f"its variables: {', '.join(b.joined[alias].variables)}")
        return b.variables[joined_name(alias, field)]
    for alias, other in b.joined.items():
        if str(name).startswith(alias + "_") and str(name)[len(alias) + 1 :] in other.variables and name in b.variables:
            raise b.fail(kp, f"'{name}' is the joined variable {alias}.{str(name)[len(alias) + 1 :]}", f"write {alias}.{str(name)[len(alias) + 1 :]}, as expressions name it")
    if name not in b.variables:
        close = difflib.get_close_matches(str(name), list(b.variables), n=1)
        raise b.fail(kp, f"unknown variable '{name}'", f"did you mean {close[0]}?" if close else "it must be declared under variables:")
    return b.variables[name]


def conditions(b, q: dict, kp: KeyPath) -> list[tuple[str, str, KeyPath]]:
    """(label, text, where it is written) of each condition: a mapping names them, 'A and B' is split at its top 'and'."""
    such = q["such_that"]
    if isinstance(such, dict):
        return [(str(label), str(text), kp + ("such_that", label)) for label, text in such.items()]
    text, at = str(such), kp + ("such_that",)
    try:
        with warnings.catch_warnings():  # Python's own warnings ("invalid escape sequence") are not for our users
            warnings.simplefilter("ignore")
            tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 3,000 unary minuses: RecursionError
        return [("", text, at)]  # the expression parser reports it, located
    if not (isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And)):
        return [("", text, at)]
    b.expression(text, at)  # every error located in the text as written
    parts = [ast.get_source_segment(text.strip(), v) for v in tree.values]
    lhs = [v.left.id if isinstance(v, ast.Compare) and isinstance(v.left, ast.Name) else None for v in tree.values]
    return [(x if x and lhs.count(x) == 1 else f"condition_{i + 1}", t, at) for i, (x, t) in enumerate(zip(lhs, parts))]
