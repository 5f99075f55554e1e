"""Questions over configurations, objectives and frontiers, as a model file writes them (loaded by asks.py).

    cheapest:                                   # a question over configurations
      over: {gpu: [h100-sxm, h200], tp: [1, 2, 4, 8]}
      with: {batch: max_batch}                  # inner unknowns: another question's answer at each configuration
      such_that: {ttft: ttft <= ttft_target}
      seek: min cost_per_million_tokens         # an objective: a variable the model computes
    best_tp: {find: tp, seek: min tpot}         # an objective over one variable: its values, or a bounded range
    frontiers:
      interactivity: {x: max tokens_per_user, y: max tokens_per_gpu, over: {...}}

Each becomes an ir.Choose; an objective over a variable with finitely many values is a search over
those values (one axis), and over a bounded continuous variable a numeric optimisation (`free`).
"""

from __future__ import annotations

import re
from typing import Any

import sympy as sp

from .conditions import conditions, variable
from .domains import members
from .errors import ModelError
from .expr import is_condition
from .ir import Axis, Choose, Condition, Goal, Question
from .limits import LIMITS
from .source import KeyPath
from .suggest import close_names

SEEK = re.compile(r"^\s*(max|min)\s+([A-Za-z_][A-Za-z0-9_.]*)\s*$")
SHOW = 5  # rows of the ranked table unless `show:` says


def is_search(q: dict) -> bool:
    """A question entry that is answered by a search: it has `over:` or an objective (`seek: min tpot`)."""
    return isinstance(q, dict) and ("over" in q or bool(SEEK.match(str(q.get("seek", "")))))


def search(b, name: str, q: dict, kp: KeyPath, questions: dict[str, Question]) -> Choose:
    """A question over configurations or with an objective."""
    who = f"question {name}"
    goal = _goal(b, q.get("seek"), kp + ("seek",), who)
    over = _over(b, q.get("over") or {}, kp + ("over",), who)
    free = None
    if "find" in q:
        v = _variable(b, q["find"], kp + ("find",))
        if v.name in (a.name for a in over):
            raise b.fail(kp + ("find",), f"question {name}: {v.name} is both found and listed under over:", "drop find:, or drop it from over:")
        _input(b, v, kp + ("find",), f"question {name}")
        values = _all_values(v)
        if values is not None:
            over = (*over, Axis(v.name, values, b.src.loc(kp + ("find",))))
        elif v.domain.lo is None or v.domain.hi is None or v.domain.integer:
            raise b.fail(
                kp + ("find",),
                f"question {name}: {v.name} has no set of values and no bounds to search between",
                f"give {v.name} values: [...] or min: and max: (an objective is searched over the whole domain)",
            )
        else:
            free = v.name
    elif not over:
        raise b.fail(kp, f"question {name}: an objective needs something to vary", "add find: <variable> or over: {gpu: [...], <variable>: [...]}", key=True)
    return _finish(b, name, who, q, kp, over, (goal,), free, questions)


def frontier(b, name: str, f: dict, kp: KeyPath, questions: dict[str, Question]) -> Choose:
    """A `frontiers:` entry: two goals over configurations, every configuration no other beats on both."""
    who = f"frontier {name}"
    goals = (_goal(b, f.get("x"), kp + ("x",), who), _goal(b, f.get("y"), kp + ("y",), who))
    if goals[0].name == goals[1].name:
        raise b.fail(kp + ("y",), f"frontier {name}: x and y are both {goals[0].name}", "a frontier weighs two different results against each other")
    over = _over(b, f.get("over") or {}, kp + ("over",), who)
    if not over:
        raise b.fail(kp, f"frontier {name}: over: lists nothing to vary", "for example over: {gpu: [h100-sxm, h200], batch: {from: 1, to: 256, step: x2}}", key=True)
    return _finish(b, name, who, {**f, "ask": f.get("about", "")}, kp, over, goals, None, questions, frontier=True)


def _finish(b, name, who, q, kp, over, goals, free, questions, frontier=False) -> Choose:
    inner = _inner(b, q.get("with") or {}, kp + ("with",), who, questions, over)
    varied = {a.name for a in over} | {v for v, _ in inner} | ({free} if free else set())
    for g, where in zip(goals, ("seek",) if len(goals) == 1 else ("x", "y")):
        _check_goal(b, g, kp + (where,), who, varied, over)
    size = 1
    for a in over:
        size *= len(a.values)
    most = LIMITS["configurations"].value()
    if size > most:
        raise b.fail(kp + ("over",), f"{who}: {size:,} configurations are more than the configurations limit of {most:,}", LIMITS["configurations"].how)
    conds = ()
    if q.get("such_that") is not None:
        conds = tuple(_condition(b, who, label, text, at) for label, text, at in conditions(b, q, kp))
    show = q.get("show", SHOW)
    return Choose(name, q.get("ask", ""), over, inner, conds, goals, show, b.src.loc(kp, key=True), free, frontier)


def _goal(b, raw: Any, kp: KeyPath, name: str) -> Goal:
    m = SEEK.match(str(raw or ""))
    if not m:
        raise b.fail(kp, f"{name}: '{raw}' is not an objective", "write max or min and a variable the model computes: seek: min cost_per_million_tokens")
    v = _variable(b, m.group(2), kp)
    return Goal(v.name, m.group(1))


def _check_goal(b, g: Goal, kp: KeyPath, name: str, varied: set, over) -> None:
    """An objective must change from one configuration to another: a result, or an input the search varies."""
    v = b.variables[g.name]
    if v.default is None or g.name in varied:
        return
    kinds = {a.name for a in over if a.catalog}
    if any(str(s).split(".", 1)[0] in kinds for s in v.default.free_symbols):  # gpu.memory follows the gpu axis
        return
    raise b.fail(kp, f"{name}: {g.name} is an input that no configuration changes, so every configuration has the same {g.name}", "seek a result the model computes, or vary it under over:")


def _over(b, spec: Any, kp: KeyPath, name: str) -> tuple[Axis, ...]:
    if not isinstance(spec, dict):
        raise b.fail(kp, f"{name}: over: maps what to vary to its values", "for example over: {gpu: [h100-sxm, h200], tp: [1, 2, 4, 8]}")
    axes = []
    for axis, values in spec.items():
        at = kp + (axis,)
        if axis in ("gpu", "llm"):
            axes.append(Axis(axis, _entries(b, axis, values, at, name), b.src.loc(at)))
            continue
        v = _variable(b, axis, at, key=True)
        _input(b, v, at, name)
        if v.choices:
            raise b.fail(at, f"{name}: {v.name} is a choice among names; list the names it may take in a check instead", "vary numbers, GPUs or LLMs under over:", key=True)
        found = _all_values(v) if values in (None, "all") else members(b, v, values, at, v.domain, f"values of {v.name} in over")
        if found is None:
            raise b.fail(at, f"{name}: {v.name} has no set of values to take all of", "list its values, or write a range such as {from: 1, to: 8, step: x2}")
        axes.append(Axis(v.name, found, b.src.loc(at)))
    return tuple(axes)


def _input(b, v, kp: KeyPath, who: str) -> None:
    """A search varies inputs: a computed variable has no value of its own to set (which input would be freed?)."""
    if v.default is None:
        raise b.fail(kp, f"{who}: {v.name} is computed by the model, so a search cannot set it", "vary an input it is computed from, or answer it with a question under with:", key=kp[-1] != "find")


def _all_values(v) -> tuple | None:
    """Every value a variable may take, when there are finitely many: its set, or the whole numbers between its bounds."""
    d = v.domain
    if d.values is not None:
        return d.values
    if d.integer and d.lo is not None and d.hi is not None:
        lo, hi = int(d.lo / v.factor), int(d.hi / v.factor)
        if hi - lo < LIMITS["configurations"].value():
            return tuple(v.factor * k for k in range(lo, hi + 1))
    return None


def _entries(b, kind: str, values: Any, kp: KeyPath, name: str) -> tuple[str, ...]:
    catalog = b.project.catalog
    if kind not in b.uses:
        raise b.fail(kp, f"{name}: the model uses no {kind.upper()}, so there is none to vary", f"add 'uses: {{{kind}: <id>}}'", key=True)
    ids = catalog.ids(kind)
    if values in (None, "all"):
        return tuple(ids)
    if not isinstance(values, list) or not values:
        raise b.fail(kp, f"{name}: over {kind}: list catalog ids, or write all", f"for example {kind}: [{', '.join(ids[:2])}]")
    out = []
    for k, x in enumerate(values):
        if str(x) not in ids:
            close = close_names(str(x), ids)
            raise b.fail(kp + (k,), f"unknown {kind.upper()} '{x}'", f"did you mean {close[0]}?" if close else f"known: {', '.join(ids)}")
        if str(x) in out:
            raise b.fail(kp + (k,), f"{name}: {kind.upper()} '{x}' is listed twice", "list each once")
        out.append(str(x))
    return tuple(out)


def _inner(b, spec: Any, kp: KeyPath, name: str, questions: dict, over) -> tuple:
    if not isinstance(spec, dict):
        raise b.fail(kp, f"{name}: with: maps a variable to the question that answers it", "for example with: {batch: max_batch}")
    out = []
    for var, question in spec.items():
        v = _variable(b, var, kp + (var,), key=True)
        if v.name in (a.name for a in over):
            raise b.fail(kp + (var,), f"{name}: {v.name} is listed under over: and answered by a question", "drop one of them", key=True)
        q = questions.get(str(question))
        if q is None:
            close = close_names(str(question), list(questions))
            raise b.fail(kp + (var,), f"{name}: unknown question '{question}'", f"did you mean {close[0]}?" if close else f"questions: {', '.join(questions) or 'none'}")
        if q.find != v.name:
            raise b.fail(kp + (var,), f"{name}: question {q.name} finds {q.find}, not {v.name}", f"write {q.find}: {q.name}")
        out.append((v.name, q.name))
    return tuple(out)


def _condition(b, name: str, label: str, text: str, at: KeyPath) -> Condition:
    cond = b.expression(text, at)
    if not is_condition(cond.dim) or not isinstance(cond.expr, (sp.Lt, sp.Le, sp.Gt, sp.Ge)):
        raise b.fail(at, f"{name}: such_that must be comparisons with <, <=, > or >=", "for example: ttft <= ttft_target")
    return Condition(label or _label(text), text.strip(), cond.expr, cond.guards, b.src.loc(at))


def _label(text: str) -> str:
    m = re.match(r"\s*([A-Za-z_][A-Za-z0-9_.]*)", text)
    return m.group(1) if m else "condition"


def _variable(b, name: Any, kp: KeyPath, key: bool = False):
    try:
        return variable(b, name, kp)
    except ModelError as e:  # the same words, at the key where the name is written
        if key:
            raise ModelError(e.message, b.src.loc(kp, key=True), e.hint) from None
        raise


def searched(b, c: Choose, raw: Any, kp: KeyPath) -> tuple[dict, tuple, Any]:
    """A check of a search: (expected values by variable, expected catalog entries, where each is written).

    `expect: 4` names the one variable a search over one variable finds; a mapping names variables
    (values at the best configuration) and gpu/llm (the entries it chooses).
    """
    if c.frontier:
        raise b.fail(kp + ("question",), f"{c.name} is a frontier, which has no one answer to check", "check a question over the same configurations")
    if raw is None:
        raise b.fail(kp, "a search's check needs 'expect:'", "for example: expect: {gpu: h200, tp: 2}")
    if not isinstance(raw, dict):
        found = [a.name for a in c.over if not a.catalog] + ([c.free] if c.free else [])
        if len(found) != 1 or any(a.catalog for a in c.over):
            raise b.fail(kp + ("expect",), f"{c.name} chooses {', '.join(c.axes) or c.free}: name what you expect", f"for example: expect: {{{c.axes[0] if c.axes else c.free}: ...}}")
        return {found[0]: raw}, (), lambda name: kp + ("expect",)
    entries = []
    for kind in ("gpu", "llm"):
        if kind in raw:
            if kind not in c.axes:
                raise b.fail(kp + ("expect", kind), f"{c.name} does not vary the {kind.upper()}", f"vary it under over:, or drop {kind}:", key=True)
            entries.append((kind, str(raw[kind])))
            if str(raw[kind]) not in next(a.values for a in c.over if a.name == kind):
                raise b.fail(
                    kp + ("expect", kind), f"'{raw[kind]}' is not one of the {kind.upper()}s {c.name} searches", f"its {kind.upper()}s: {', '.join(next(a.values for a in c.over if a.name == kind))}"
                )
    return {k: v for k, v in raw.items() if k not in ("gpu", "llm")}, tuple(entries), lambda name: kp + ("expect", name)
