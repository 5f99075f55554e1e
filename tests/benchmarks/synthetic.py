"""Synthetic chains for scale benchmarks: x_i = x_{i-1} * k + 1[ms], every third also + x_{i-2} / 2.

python tests/benchmarks/synthetic.py 1000 > /tmp/chain-1000.yaml
python tests/benchmarks/synthetic.py 1000 1.001 > /tmp/decimal-1000.yaml
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


if __name__ == "__main__":
    sys.stdout.write(chain(int(sys.argv[1]), k=sys.argv[2] if len(sys.argv) > 2 else "0.5"))
