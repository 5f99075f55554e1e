"""Physical limits: conditions that must hold for a model's numbers to describe a real machine.

A model's `limits:` names comparisons such as `memory: step_bytes <= memory` (the weights and KV cache
fit in the GPU). Unlike an equation's `valid_when:` a limit cuts nothing: every solve and question
computes its numbers all the same, and where a limit fails each output shows a warning beside the
values it reads, with both sides' values ("memory limit fails: step_bytes 863.5 GB > memory 48 GB").

Each limit is lowered once (lower.physical, a program.Physical on every Program); the solver's verdict
here, the workbook's live cell, the derivation sheet's status and the generated modules' warnings.warn
are all printed from that node. (Not compiler/limits.py: those are the compiler's own resource bounds.)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from . import program as P
from .format import fmt

OPS = ("<=", ">=", "<", ">")  # a limit is one comparison (two-character operators first, for splitting its text)


@dataclass(frozen=True)
class LimitWarning:
    """A physical limit that fails at a solution: its sides in display units and the values it reads."""

    name: str
    condition: str  # as written: 'step_bytes <= memory'
    about: str
    left: float  # the left side in its display unit
    right: float
    affects: tuple[str, ...]  # the names the condition reads: where the warning stands beside the numbers
    message: str  # 'memory limit fails: step_bytes 863.5 GB > memory 48 GB'

    def __str__(self) -> str:
        return self.message


# --- loading (the loader's Builder calls this; SymPy is imported here, never on the warm path) ---------


def load_limits(b, spec: Any) -> tuple:
    """The `limits:` mapping of a model file as ir.PhysicalLimit, each a located error if malformed."""
    from .ir import PhysicalLimit

    out = []
    for name, item in (spec or {}).items():
        kp = ("limits", name)
        text, about, at = (item.get("that"), item.get("about") or "", kp + ("that",)) if isinstance(item, dict) else (item, "", kp)
        text = str(text).strip()
        op, sides = _split(b, name, text, at)
        left, right = (b.expression(side, at, offset=offset) for side, offset in sides)
        whole = b.expression(text, at)
        from .expr import is_condition, same_dim

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
    from .expr import same_dim

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


# --- the verdict, from the lowered limits (warm path: no SymPy) ------------------------------------


def verdicts(program: P.Program, values: dict) -> tuple[LimitWarning, ...]:
    """The limits of `program` that fail at these values (base units); a limit reading a value not computed is skipped."""
    from .run import evaluate

    out = []
    for x in getattr(program, "physical", ()):
        reads = P.refs(x.cond)
        if not reads <= values.keys():
            continue
        try:
            left, right = evaluate(x.cond.left, values), evaluate(x.cond.right, values)
            holds = bool(evaluate(x.cond, values))
        except (ArithmeticError, ValueError, TypeError):  # a side with no value here: nothing to compare
            continue
        if holds:
            continue
        shown = [float(Fraction(v) / f) if not isinstance(v, float) else v / float(f) for v, (_, _, f, _) in zip((left, right), x.sides)]
        words = P.physical_words(x, *(fmt(v, d) for v, (_, _, _, d) in zip(shown, x.sides)))
        out.append(LimitWarning(x.name, x.text, x.about, shown[0], shown[1], tuple(sorted(reads)), words))
    return tuple(out)
