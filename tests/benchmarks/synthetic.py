"""Synthetic chains for scale benchmarks: x_i = x_{i-1} * k + 1[ms], every third also + x_{i-2} / 2.

python tests/benchmarks/synthetic.py 1000 > /tmp/chain-1000.yaml
python tests/benchmarks/synthetic.py 1000 1.001 > /tmp/decimal-1000.yaml
python tests/benchmarks/synthetic.py 1000 mixed > /tmp/mixed-1000.yaml
"""

from __future__ import annotations

import sys


def chain(n: int, name: str | None = None, k: str = "0.5") -> str:
    """A model of n equations in n + 2 variables (k and x_0 are inputs), solved forward in n steps.

    k = 0.5 keeps exact values short; a decimal k (1.001) grows an exact numerator with every equation.
    """
    name = name or f"chain-{n}"
    lines = [f"name: {name}", f"title: A synthetic chain of {n} equations", "variables:", f"  k: {{unit: 1, value: {k}}}", "  x_0: {unit: ms, value: 1}"]
    lines += [f"  x_{i}: {{unit: ms}}" for i in range(1, n + 1)]
    lines.append("equations:")
    for i in range(1, n + 1):
        rhs = f"x_{i - 1} * k + 1[ms]"
        if i % 3 == 0 and i >= 2:
            rhs += f" + x_{i - 2} / 2"
        lines.append(f"  - x_{i} = {rhs}")
    return "\n".join(lines) + "\n"


def mixed(n: int, name: str | None = None) -> str:
    """A chain of n equations that mixes what real models have: decimal coefficients, a quadratic every
    tenth equation (two roots, the positive one admissible), a step table of 100 rows whose total feeds the
    chain, and a question (the largest k whose last value meets a target) answered over the whole chain."""
    name = name or f"mixed-{n}"
    lines = [f"name: {name}", f"title: A mixed chain of {n} equations", "variables:"]
    lines += ["  k: {unit: 1, value: 1.001, min: 0.5, max: 2}", "  x_0: {unit: ms, value: 1}", "  rows: {value: 100, integer: true}", "  target: {unit: ms, value: 20}"]
    lines += ["  table_total: {unit: ms}"]
    lines += [f"  x_{i}: {{unit: ms, min: 0}}" for i in range(1, n)]
    lines += [
        "tables:",
        "  steps:",
        "    rows: rows",
        "    columns:",
        "      load: {unit: ms, formula: prev.load * k + x_0, initial: '0 ms'}",
        "equations:",
        "  - table_total = sum(steps.load)",
    ]
    for i in range(1, n):
        if i % 10 == 0:
            lines.append(f"  - x_{i} ** 2 + x_{i} * 1[ms] = x_{i - 1} ** 2 * k + x_{i - 1} * 1[ms]")
        else:
            lines.append(f"  - x_{i} = x_{i - 1} * k + 1[ms]" + (" + table_total / 1000" if i == 1 else ""))
    lines += [
        "questions:",
        "  max_k:",
        "    ask: The largest growth factor whose ninth value meets the target",
        "    find: k",
        f"    such_that: x_{min(9, n - 1)} <= target",
        "    seek: max",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    n, kind = int(sys.argv[1]), sys.argv[2] if len(sys.argv) > 2 else "0.5"
    sys.stdout.write(mixed(n) if kind == "mixed" else chain(n, k=kind))
