"""Loading `limits:` (compiler/physical.py says what a physical limit is): one comparison each, its sides shown in units.

The loader's Builder calls load_limits after the variables and equations; each mistake is a located error.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from .expr import is_condition, same_dim
from .ir import PhysicalLimit

OPS = ("<=", ">=", "<", ">")  # a limit is one comparison (two-character operators first, for splitting its text)


def load_limits(b, spec: Any) -> tuple:
    """The `limits:` mapping of a model file as ir.PhysicalLimit, each a located error if malformed."""
    out = []
    for name, item in (spec or {}).items():
        kp = ("limits", name)
        text, about, at = (item.get("that"), item.get("about") or "", kp + ("that",)) if isinstance(item, dict) else (item, "", kp)
        text = str(text).strip()
        op, sides = _split(b, name, text, at)
        left, right = (b.expression(side, at, offset=offset) for side, offset in sides)
        whole = b.expression(text, at)
        if not is_condition(whole.dim) or not same_dim(left.dim, right.dim):
            raise b.fail(at, f"limit {name}: '{text}' is not a comparison of two values", "write one comparison, such as step_bytes <= memory")
        if not (left.expr.free_symbols or right.expr.free_symbols):
            raise b.fail(at, f"limit {name}: '{text}' reads no value of the model", "compare a computed value with its bound, such as step_bytes <= memory")
        shown = _display(b, (sides[0][0], sides[1][0]), (left, right))
        out.append(PhysicalLimit(str(name), text, op, left.expr, right.expr, shown, str(about).strip(), b.src.loc(at)))
    return tuple(out)


def _split(b, name: str, text: str, kp) -> tuple[str, tuple]:
    """The comparison operator at the top level of `text` and its two sides (each with its column offset)."""
    depth, found = 0, []
    k = 0
    while k < len(text):
        ch = text[k]
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth == 0 and ch in "<>=!":
            two = text[k : k + 2]
            found.append((k, two if two in ("<=", ">=", "==", "!=") else ch))
            k += len(found[-1][1])
            continue
        k += 1
    if not found:
        raise b.fail(kp, f"limit {name}: '{text}' is a value, not a comparison", "write one comparison, such as step_bytes <= memory")
    if len(found) > 1:
        raise b.fail(kp, f"limit {name}: '{text}' makes several comparisons", "write one limit for each comparison")
    if found[0][1] not in OPS:
        raise b.fail(kp, f"limit {name}: '{text}' is an equality, not a bound", "a limit is a bound: write <, <=, > or >=")
    at, op = found[0]
    left, right = text[:at], text[at + len(op) :]
    if not left.strip() or not right.strip():
        raise b.fail(kp, f"limit {name}: '{text}' has only one side", "write one comparison, such as step_bytes <= memory")
    return op, ((left.strip(), len(left) - len(left.lstrip())), (right.strip(), at + len(op) + len(right) - len(right.lstrip())))


def _display(b, texts: tuple, terms: tuple) -> tuple:
    """How a warning shows each side: a bare name in its own unit, an expression in the unit of a name it reads."""
    quantities = {q.sym: q for q in (*b.variables.values(), *b.params.values())}
    own = [quantities.get(t.expr) for t in terms]
    dim = terms[0].dim
    near = [q for q in own if q is not None] + sorted((quantities[s] for t in terms for s in t.expr.free_symbols if s in quantities), key=lambda q: q.name)
    common = next((q for q in near if same_dim(q.dim, dim)), None)
    out = []
    for text, q, t in zip(texts, own, terms):
        text = text if t.expr.free_symbols else ""  # a constant side shows as its value alone: 'kv_budget -3.1 GiB <= 0 GiB'
        q = q or common
        unit, factor, digits = (q.unit, Fraction(int(q.factor.p), int(q.factor.q)), getattr(q, "digits", None)) if q is not None else ("", Fraction(1), None)
        out.append((text, unit, factor, digits))
    return tuple(out)
