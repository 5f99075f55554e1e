"""Sweeps: solve a model over a range of one input, for charts and figures."""

from __future__ import annotations

from dataclasses import dataclass

from .ir import Model, Sweep
from .solve import solve


@dataclass(frozen=True)
class SweepResult:
    sweep: Sweep
    xs: tuple[float, ...]  # the swept input, display unit
    series: dict[str, tuple[float, ...]]  # each shown variable, display unit
    reference: float | None  # the reference variable's value (display unit), e.g. the TPOT target


def points(sweep: Sweep) -> list:
    n = int((sweep.stop - sweep.start) / sweep.step)
    return [sweep.start + k * sweep.step for k in range(n + 1)]


def run_sweep(model: Model, sweep: Sweep, project, gpu: str | None = None, llm: str | None = None, given: dict | None = None) -> SweepResult:
    var = model.variables[sweep.over]
    xs, series = [], {n: [] for n in sweep.show}
    base = None
    for x in points(sweep):
        s = solve(model, {**(given or {}), sweep.over: var.from_display(x)}, gpu=gpu, llm=llm, project=project)
        base = s
        xs.append(float(x))
        for n in sweep.show:
            series[n].append(s.display(n))
    ref = base.display(sweep.reference) if (base is not None and sweep.reference) else None
    return SweepResult(sweep, tuple(xs), {n: tuple(v) for n, v in series.items()}, ref)
