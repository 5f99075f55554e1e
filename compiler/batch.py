"""The runner's batch path: a Program over arrays of points at once, in binary floats, quietly.

A search over configurations runs the same programs at thousands of points; one NumPy pass over
all of them costs what a few scalar runs do. The semantics are the quiet form the NumPy flavour of
generated modules prints (backends/python/vector.py): a point where a statement has no value (a
value outside its domain, a division by zero, a guard, no admissible root, not a finite number) is
marked bad instead of raising, and the caller asks the scalar runner for that point's words.
Statements the batch path does not run (a numeric block's search, a table) make the program
unbatchable: the caller runs it point by point instead. Floats decide here; the rows a reader sees
are recomputed exactly by the scalar runner (choosing.py).
"""

from __future__ import annotations

import math
from functools import lru_cache, reduce

import numpy as np

from . import program as P
from .answer_np import _admits_np
from .limits import limit


class Unbatchable(Exception):
    """A statement or function the batch path does not run: run the program point by point."""


_UNARY = {"floor": np.floor, "ceil": np.ceil, "abs": np.abs, "sqrt": np.sqrt, "exp": np.exp, "log": np.log}
_CMP = {"<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": np.equal, "!=": np.not_equal}


def expr(e):
    """An expression as a function of an environment of arrays (name -> float array or float)."""
    t = type(e)
    if t is P.Num:
        v = float(e.value)
        return lambda env: v
    if t is P.Const:
        v = {"pi": math.pi, "E": math.e}[e.name]
        return lambda env: v
    if t is P.Ref:
        name = e.name
        return lambda env: env[name]
    if t in (P.Add, P.Mul):
        fs, op = [expr(a) for a in e.args], (np.add if t is P.Add else np.multiply)
        return lambda env: reduce(op, (f(env) for f in fs))
    if t is P.Pow:
        base, ex = expr(e.base), expr(e.exp)
        return lambda env: np.power(np.asarray(base(env), dtype=float), ex(env))
    if t is P.Call:
        fs = [expr(a) for a in e.args]
        if e.fn in _UNARY:
            fn = _UNARY[e.fn]
            return lambda env: fn(fs[0](env))
        if e.fn in ("min", "max"):
            op = np.minimum if e.fn == "min" else np.maximum
            return lambda env: reduce(op, (f(env) for f in fs))
        if e.fn in ("factorial", "gamma"):
            from scipy.special import gamma

            shift = 1.0 if e.fn == "factorial" else 0.0
            return lambda env: gamma(np.asarray(fs[0](env), dtype=float) + shift)
        raise Unbatchable(e.fn)
    if t is P.Cmp:
        op, a, b = _CMP[e.op], expr(e.left), expr(e.right)
        return lambda env: op(a(env), b(env))
    if t is P.Logic:
        fs = [expr(a) for a in e.args]
        if e.op == "not":
            return lambda env: np.logical_not(fs[0](env))
        op, unit = (np.logical_and, True) if e.op == "and" else (np.logical_or, False)
        return lambda env: reduce(op, (f(env) for f in fs), unit)
    if t is P.Choice:
        pieces = [(expr(v), expr(c)) for v, c in e.pieces]
        return lambda env: _choose(pieces, env)
    if t is P.Sum:
        return _sum(e)
    raise Unbatchable(type(e).__name__)


def _choose(pieces, env):
    """if/elif/else: each point takes the first piece whose condition holds."""
    out = None
    taken = False
    for value, cond in pieces:
        c = np.asarray(cond(env), dtype=bool) & ~np.asarray(taken)
        v = value(env)
        out = np.where(c, v, np.nan if out is None else out)
        taken = taken | c
    return out


def _sum(e: P.Sum):
    """A finite sum or product over k = lo .. hi, every point at once (terms past a point's hi masked)."""
    lo, hi, body, index = expr(e.lo), expr(e.hi), expr(e.body), e.index
    total0, op = (0.0, np.add) if e.kind == "sum" else (1.0, np.multiply)

    def run(env):
        a, b = np.asarray(lo(env), dtype=float), np.asarray(hi(env), dtype=float)
        if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
            raise Unbatchable("a sum's bounds have no value at some point")
        first, last = int(np.min(a)), int(np.max(b))
        if last - first + 1 > limit("sum_terms"):
            raise Unbatchable("sum_terms")
        total = np.full(np.broadcast_shapes(a.shape, b.shape), total0)
        for k in range(first, last + 1):
            term = body({**env, index: float(k)})
            total = np.where((k >= a) & (k <= b), op(total, term), total)
        return total

    return run


@lru_cache(maxsize=256)
def compiled(program: P.Program):
    """The program's statements as functions (env, bad) -> None over arrays; Unbatchable where one cannot run so."""
    steps = []
    for s in program.body:
        t = type(s)
        if t is P.Assign:
            steps.append(_assign(s.name, expr(s.expr)))
        elif t is P.Guard:
            steps.append(_guard(expr(s.divisor), expr(s.when)))
        elif t is P.Check:
            steps.append(_check(s.name, program.domains[s.name].bounds))
        elif t is P.Pick:
            steps.append(_pick(s, program.domains))
        else:
            raise Unbatchable(t.__name__)
    return tuple(steps)


def run(program: P.Program, env: dict, shape) -> tuple[dict, np.ndarray]:
    """(values, bad): every value of the program at every point; bad marks the points without one."""
    steps = compiled(program)
    env = dict(env)
    bad = np.zeros(shape, dtype=bool)
    with np.errstate(all="ignore"):
        for step in steps:
            bad = step(env, bad)
    return env, bad


def _assign(name, f):
    def step(env, bad):
        v = np.asarray(f(env), dtype=float)
        env[name] = v
        return bad | ~np.isfinite(v)

    return step


def _guard(divisor, when):
    def step(env, bad):
        return bad | (np.asarray(when(env), dtype=bool) & (np.asarray(divisor(env), dtype=float) == 0))

    return step


def _check(name, bounds):
    kind, lo, hi, values = bounds
    lo, hi = (None if x is None else float(x) for x in (lo, hi))
    values = None if values is None else tuple(float(v) for v in values)

    def step(env, bad):
        return bad | ~_admits_np(np.asarray(env[name], dtype=float), kind, lo, hi, values)

    return step


def _pick(s: P.Pick, domains):
    """The one admissible candidate at each point (runtime.values.pick): none, or several, is no value."""
    candidates = [[expr(e) for e in c] for c in s.candidates]
    bounds = []
    for n in s.names:
        kind, lo, hi, values = domains[n].bounds
        bounds.append((kind, None if lo is None else float(lo), None if hi is None else float(hi), None if values is None else tuple(float(v) for v in values)))

    def step(env, bad):
        found = [[np.asarray(f(env), dtype=float) for f in c] for c in candidates]
        oks = [reduce(np.logical_and, (np.isfinite(v) & _admits_np(v, *b) for v, b in zip(vals, bounds))) for vals in found]
        count = np.zeros(np.shape(bad), dtype=int)
        chosen = [np.full(np.shape(bad), np.nan) for _ in s.names]
        for vals, ok in zip(found, oks):  # a root equal to one taken already is the same root
            dup = (count > 0) & reduce(np.logical_and, (np.abs(v - c) <= 1e-12 * (np.abs(c) + 1e-300) for v, c in zip(vals, chosen)))
            take = ok & ~dup
            for k, v in enumerate(vals):
                chosen[k] = np.where(take & (count == 0), v, chosen[k])
            count = count + take
        for n, v in zip(s.names, chosen):
            env[n] = v
        return bad | (count != 1)

    return step
