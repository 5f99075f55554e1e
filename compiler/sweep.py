"""Sweeps: solve a model over a range of one input, for charts and figures."""

from __future__ import annotations

from fractions import Fraction

from .ir import Model, Sweep
from .numbers import exact
from .results import Query, SweepResult
from .solver import solve_query


def points(sweep: Sweep) -> list[Fraction]:
    start, step = exact(sweep.start), exact(sweep.step)
    n = int((exact(sweep.stop) - start) / step)
    return [start + k * step for k in range(n + 1)]


def run_sweep(model: Model, sweep: Sweep, catalog, gpu: str | None = None, llm: str | None = None, given: tuple = ()) -> SweepResult:
    factor = exact(model.variables[sweep.over].factor)
    xs, series = [], {n: [] for n in sweep.show}
    base = None
    for x in points(sweep):
        s = solve_query(model, catalog, Query((*((n, v) for n, v in given if n != sweep.over), (sweep.over, x * factor)), (), gpu, llm))
        base = s
        xs.append(float(x))
        for n in sweep.show:
            series[n].append(s.value(n))
    ref = base.value(sweep.reference) if (base is not None and sweep.reference) else None
    return SweepResult(sweep, tuple(xs), {n: tuple(v) for n, v in series.items()}, ref)
