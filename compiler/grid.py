"""A search's grid through the batch path: every configuration of one (GPU, LLM) at once, in floats.

The same programs the scalar rows run (choosing.py), over arrays (batch.py), and the same question
rule (answer_np.py, which the NumPy flavour of generated modules copies): each inner question is
answered at every configuration at once, then the model is run there, the conditions tested and the
goals read. What a point lacks (no answer, no value) is only marked; its words come from the scalar
row when a reader asks for them (chosen.Reasons). None: a program the batch path does not run.
"""

from __future__ import annotations

import numpy as np

from . import batch
from .answer_np import _answer_np, _combine_np
from .search_data import Columns, PreparedChoose, Unavailable


def batch_columns(pc: PreparedChoose, given: dict) -> Columns | None:
    if pc.free is not None:
        return None
    s = pc.search
    n = len(pc.configs)
    cols = Columns([[None] * n for _ in s.goals], [[None] * n for _ in s.inner], [""] * n, [None] * n)
    groups: dict = {}
    for i, hw in enumerate(pc.hardware):
        groups.setdefault(hw, []).append(i)
    try:
        for hw, rows in groups.items():
            _group(pc, hw, np.asarray(rows), given, cols)
    except batch.Unbatchable:
        return None
    return cols


def _floats(values: dict) -> dict:
    return {k: float(v) for k, v in values.items() if v is not None}


def _group(pc: PreparedChoose, hw, rows: np.ndarray, given: dict, cols: Columns) -> None:
    s, shape = pc.search, rows.shape
    at = pc.at[hw]
    if isinstance(at, Unavailable):  # the catalog entry lacks a value the model reads: every row of it says so
        for i in rows:
            cols.failed[i], cols.why[i] = "no value", at.message
        return
    env = _floats(given)
    for k, axis in enumerate(s.over):
        if not axis.catalog:
            env[axis.name] = np.array([float(pc.configs[i][k]) for i in rows])
    live = np.ones(shape, dtype=bool)
    failed = np.full(shape, "", dtype=object)
    for k, (var, pq) in enumerate(pc.inner[hw]):
        values, codes = ask(pq, env, shape)
        stop = live & (codes != 0)
        failed[stop] = pq.rule.question.name
        live &= codes == 0
        env[var] = np.where(live, values, 1.0)  # a row without an answer runs on at a harmless value, marked failed
        for j, i in enumerate(rows):
            cols.inner[k][i] = float(values[j]) if live[j] else None
    values, bad = batch.run(at.program, {**_floats(at.params), **_floats({n: v for n, v in at.defaults.items() if n not in env}), **env}, shape)
    failed[live & bad] = "no value"
    live &= ~bad
    miss = np.zeros(shape)
    for label, _, cmp, guards in pc.conditions:
        left, right = (np.broadcast_to(np.asarray(batch.expr(x)(values), dtype=float), shape) for x in (cmp.left, cmp.right))
        zero = np.zeros(shape, dtype=bool)
        for div, when in guards:
            zero |= np.asarray(batch.expr(when)(values), dtype=bool) & (np.asarray(batch.expr(div)(values), dtype=float) == 0)
        holds = np.broadcast_to(np.asarray(batch.expr(cmp)(values), dtype=bool), shape) & ~zero
        short = np.where(holds, 0.0, np.abs(left - right) / np.maximum(np.maximum(np.abs(left), np.abs(right)), 1e-300))
        miss = np.where(live, np.maximum(miss, short), miss)
        newly = live & (failed == "") & ~holds
        failed[newly] = label
    goals = [np.broadcast_to(np.asarray(values[g.name], dtype=float), shape) for g in s.goals]
    for j, i in enumerate(rows):
        cols.failed[i] = failed[j]
        ok = live[j]
        cols.misses[i] = float(miss[j]) if ok else None
        for k, column in enumerate(goals):
            cols.goals[k][i] = float(column[j]) if ok else None


def ask(pq, env: dict, shape) -> tuple[np.ndarray, np.ndarray]:
    """A question answered at every point (execute.ask's orchestration over arrays): (values, codes), as answer_np returns."""
    r = pq.rule
    q = r.question
    d = r.at.domains[q.find]
    base = {**_floats(pq.at.params), **_floats({n: v for n, v in pq.at.defaults.items() if n != q.find and n not in env}), **env}
    condition = batch.expr(r.condition)
    guards = [(batch.expr(div), batch.expr(when)) for div, when in r.guards]

    def feasible(x, skip):
        values, bad = batch.run(pq.at.program, {**base, q.find: x}, shape)
        zero = np.zeros(shape, dtype=bool)
        if not q.parts:
            for div, when in guards:
                zero |= np.asarray(when(values), dtype=bool) & (np.asarray(div(values), dtype=float) == 0)
        return ~bad & ~zero & np.asarray(condition(values), dtype=bool), zero & ~bad

    domain = (d.kind, _f(d.lo), _f(d.hi)) + ((tuple(float(v) for v in d.values),) if d.values is not None else ())
    edges = (q.seek, _f(r.step), _f(r.lo), _f(r.hi), float(r.probe))
    with np.errstate(all="ignore"):
        if pq.parts:
            limits = [ask(part, env, shape) for _, part in pq.parts]
            return _combine_np(limits, feasible, shape, domain, *edges, d.integer)
        boundary, closed = np.nan, False
        if pq.boundary is not None:
            values, bad = batch.run(pq.boundary.program, {**_floats(pq.boundary.params), **_floats({n: v for n, v in pq.boundary.defaults.items() if n != q.find and n not in env}), **env}, shape)
            boundary, closed = np.where(bad, np.nan, np.broadcast_to(values[q.find], shape)), r.closed
        return _answer_np(boundary, feasible, shape, domain, *edges, closed, r.strict, d.integer)


def _f(x):
    return None if x is None else float(x)
