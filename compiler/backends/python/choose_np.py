"""A search over configurations in the NumPy flavour, copied into `<module>_np.py` (runtime.py reads this file as text; chainc never imports it).

`_vector_<search>` runs every configuration at once, through the vectorised question rules and the
quiet programs, over the rows still undecided (`_i`: their places in the grid). A row that has no
value somewhere, or no inner answer, leaves the arrays with what fails there; its words are
`_config_<search>`'s, the rule at one configuration, computed when the Choice's `failing` is first
read (the scalar flavour's words, at the cost of the scalar rule, for the rows a reader asks about). A
row the vectorised rules cannot name (a question's condition that raised) is left to that rule at
once. These helpers carry the rows: the hardware's values as columns, the rows kept, the sides of a
condition, and the rows decided, each tested by runtime.choose.tested (copied) on its numbers.
"""

from __future__ import annotations

import numpy as np

from ...runtime.choose import tested as _tested
from ...runtime.values import ChainError
from .helpers import _number


def _one_number_np(x, name: str, unit: str = ""):
    """A search's argument: one number, in its display unit (a search runs every configuration at one point)."""
    if isinstance(x, (list, tuple)) or getattr(x, "ndim", 0):
        raise ChainError(f"{name} = {x!r} is not one number", f"a search runs every configuration at one point: call it once per value of {name}")
    return _number(x, name, unit)


def _hardware_np(hardware: list, rows, width: int) -> list:
    """Per value a hardware function returns after the titles, an array over `rows` (places in the grid)."""
    return [np.array([hardware[j][k + 1] for j in rows], dtype=float) for k in range(width)]


def _over_np(x, n: int):
    """x over n rows (a scalar broadcast), as floats."""
    return np.broadcast_to(np.asarray(x, dtype=float), (n,)).copy()


def _subset_np(keep, *arrays) -> tuple:
    """Each array (a scalar broadcast first) at the rows kept."""
    return tuple(np.broadcast_to(np.asarray(a, dtype=float), keep.shape)[keep] for a in arrays)


def _side_np(x, n: int) -> tuple:
    """A condition's side over n rows, and where it is a finite real number (elsewhere the rule at one configuration says why)."""
    x = np.broadcast_to(np.asarray(x), (n,))
    ok = np.isfinite(x) & (np.imag(x) == 0) if np.iscomplexobj(x) else np.isfinite(x)
    return np.real(x).astype(float), ok


def _dropped_np(out: list, rows, keep, label: str) -> None:
    """The rows not kept fail at `label` (what fails, as the rule at one configuration would name it); their words come later."""
    for j in np.asarray(rows)[~np.broadcast_to(keep, np.shape(rows))].tolist():
        out[j] = label


def _decided_np(out: list, rows, inner: list, goals: list, conditions: list) -> list:
    """out, with the rows the vectorised run decided, each as the rule at one configuration makes it (runtime.choose.tested).

    rows: the decided rows' places in the grid; inner, goals: per column its values over them; conditions:
    (label, text, op, lefts, rights, words) with each side's values over them.
    """
    n = len(rows)
    inner = [_over_np(a, n).tolist() for a in inner]
    goals = [_over_np(a, n).tolist() for a in goals]
    sides = [(label, text, op, _over_np(left, n).tolist(), _over_np(right, n).tolist(), words) for label, text, op, left, right, words in conditions]
    for k, j in enumerate(np.asarray(rows).tolist()):
        tests = [(label, text, op, (lambda left=left[k], right=right[k]: (left, right)), words) for label, text, op, left, right, words in sides]
        out[j] = (tuple(a[k] for a in inner), tuple(g[k] for g in goals), *_tested(tests), "")
    return out
