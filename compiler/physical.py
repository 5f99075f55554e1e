"""Physical limits: conditions that must hold for a model's numbers to describe a real machine.

A model's `limits:` names comparisons such as `memory: step_bytes <= memory` (the weights and KV cache
fit in the GPU). Unlike an equation's `valid_when:` a limit cuts nothing: every solve and question
computes its numbers all the same, and where a limit fails each output shows a warning beside the
values it reads, with both sides' values ("memory limit fails: step_bytes 863.5 GB > memory 48 GB").

Each limit is loaded by physical_load.py and lowered once (lower.physical, a program.Physical on every
Program); the solver's verdict here, the workbook's live cell, the derivation sheet's status and the
generated modules' warnings.warn are all printed from that node. This module is on the warm path (no
SymPy). (Not compiler/limits.py: those are the compiler's own resource bounds.)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from . import program as P
from .format import fmt


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
