"""A model's questions, checks and sweeps: what it asks of its equations, loaded by the loader's Builder.

A question with several conditions becomes one question per condition and the one that
combines them (docs/design.md, "Several conditions are several questions").
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import sympy as sp

from . import expr as ex
from .conditions import conditions, variable
from .ir import Check, Choose, Expectation, Question, Sweep
from .limits import LIMITS
from .lookups import code_of
from .searches_load import frontier, is_search, search, searched
from .source import KeyPath
from .units import QUANTITY_TEXT, BadUnit, exact_number, parse_quantity, parse_unit

if TYPE_CHECKING:
    pass


def asks(b, d: dict) -> tuple[dict[str, Question], tuple[Check, ...], dict[str, Sweep], dict[str, Choose]]:
    """The questions (several conditions: the parts first), checks, sweeps and searches (over configurations, objectives, frontiers)."""
    questions: dict[str, Question] = {}
    written = d.get("questions") or {}
    for name, q in written.items():
        if is_search(q):
            continue
        for made in _questions(b, name, q, ("questions", name)):
            if made.name in questions or (made.name in written and made.name != name):
                raise b.fail(
                    ("questions", name),
                    f"question {name}: its condition '{made.name[len(name) + 1 :]}' makes a question {made.name}, which is already a question",
                    "name the conditions: such_that: {label: condition, ...}",
                    key=True,
                )
            questions[made.name] = made
    searches = {name: search(b, name, q, ("questions", name), questions) for name, q in written.items() if is_search(q)}
    for name, f in (d.get("frontiers") or {}).items():
        if name in written:
            raise b.fail(("frontiers", name), f"frontier {name}: a question has that name", "name the frontier apart from the questions", key=True)
        searches[name] = frontier(b, name, f, ("frontiers", name), questions)
    checks = tuple(_check(b, i, c, ("checks", i), questions, searches) for i, c in enumerate(d.get("checks") or []))
    sweeps = {name: _sweep(b, name, s, ("sweeps", name)) for name, s in (d.get("sweeps") or {}).items()}
    return questions, checks, sweeps, searches


def _questions(b, name: str, q: dict, kp: KeyPath) -> list[Question]:
    """The question; with several conditions, first one question per condition (its own limit), then the one that combines them."""
    labelled = conditions(b, q, kp)
    if len(labelled) == 1 and not isinstance(q["such_that"], dict):
        return [_question(b, name, q, kp)]
    parts = []
    for label, text, at in labelled:
        ask = f"{q.get('ask') or name}: the limit of {text} alone"
        parts.append(_question(b, f"{name}_{label}", {**q, "ask": ask, "such_that": text}, kp, at))
    whole = _question(b, name, {**q, "such_that": " and ".join(f"({p.condition_text})" for p in parts)}, kp, kp + ("such_that",), combined=True)
    text = " and ".join(p.condition_text for p in parts)
    guards = tuple(g for p in parts for g in p.guards)
    return [*parts, replace(whole, condition_text=text, guards=guards, parts=tuple((label, p.name) for (label, _, _), p in zip(labelled, parts)))]


def _question(b, name: str, q: dict, kp: KeyPath, at: KeyPath | None = None, combined: bool = False) -> Question:
    v = variable(b, q["find"], kp + ("find",))
    if v.choices:  # names have no order to be the largest or smallest of
        raise b.fail(kp + ("find",), f"question {name}: {v.name} is a choice among names, which has no largest or smallest", "find a number; compare the choices with a check per name")
    at = at or kp + ("such_that",)
    cond = b.expression(q["such_that"], at)
    if combined:
        pass  # a conjunction of the parts' comparisons, each checked on its own
    elif cond.expr in (sp.true, sp.false):  # SymPy decided it from the domains: y >= -1[s] with y positive
        raise b.fail(
            at,
            f"question {name}: {str(q['such_that']).strip()} is {'always' if cond.expr == sp.true else 'never'} true, whatever the values (the domains decide it)",
            "a question needs a condition that holds for some values and fails for others: compare with a target that lies in the domain",
        )
    elif not ex.is_condition(cond.dim) or not isinstance(cond.expr, (sp.Lt, sp.Le, sp.Gt, sp.Ge)):
        raise b.fail(at, "such_that must be comparisons with <, <=, > or >=, joined by 'and'", "for example: tpot <= tpot_target and step_bytes <= gpu.memory")
    step = None
    if "step" in q:
        step = b.quantity(q["step"], kp + ("step",), v.unit, v.factor, v.dim, "step")
        if not (step.is_number and step > 0):
            raise b.fail(
                kp + ("step",),
                f"question {name}: the step must be a positive number, not {b.src.raw.get(kp + ('step',), q['step'])}",
                "the answer is rounded to multiples of the step, on the safe side: write a step such as 1 or 0.01",
            )
        if v.domain.integer and not (step / v.factor).is_integer:
            raise b.fail(kp + ("step",), f"question {name}: {v.name} is a whole number, so its step must be one too", "write step: 1, or another whole number")
    elif v.domain.integer:
        step = v.factor
    return Question(name, q.get("ask", ""), v.name, cond.expr, str(q["such_that"]), q["seek"], step, b.src.loc(kp, key=True), cond.guards)


def _tolerance(b, spec: Any, kp: KeyPath, unit: str, factor, dim):
    """'0.1%' -> (None, relative 1/1000); '0.5 ms' or 2 -> (absolute, in base units, None)."""
    text = b.src.raw.get(kp, str(spec)).strip()
    if text.endswith("%"):
        try:
            abs_tol, rel_tol = None, exact_number(text[:-1]) / 100
        except BadUnit:
            raise b.fail(kp, f"tolerance '{text}' is not a percentage", "write a relative tolerance as a number and '%', such as '0.1%'") from None
    else:
        abs_tol, rel_tol = b.quantity(spec, kp, unit, factor, dim, "tolerance"), None
    size = abs_tol if rel_tol is None else rel_tol
    if size.is_number and size < 0:
        raise b.fail(kp, f"tolerance '{text}' is negative", "a tolerance is a distance from the expected value: write it without a sign")
    return abs_tol, rel_tol


def _written_tolerance(raw: str, factor) -> sp.Expr:
    """Half a unit in the last written digit: '9.9' -> 0.05, '8,505' -> 0.5, '1.2e3' -> 50."""
    number, _ = parse_quantity(raw)
    m = re.match(r"\s*[-+]?[\d_,]*(?:\.(\d*))?(?:[eE]([-+]?\d+))?", raw)
    decimals = len(m.group(1) or "") - int(m.group(2) or 0)
    return sp.Rational(1, 2) * sp.Integer(10) ** (-decimals) * factor


def _check(b, index: int, c: dict, kp: KeyPath, questions: dict[str, Question], searches: dict[str, Choose]) -> Check:
    given = []
    for name, value in (c.get("given") or {}).items():
        v = variable(b, name, kp + ("given", name))
        at = kp + ("given", name)
        given.append((v.name, code_of(b, v, value, at, f"given {name}") if v.choices else b.quantity(value, at, v.unit, v.factor, v.dim, f"given {name}")))
    question = c.get("question")
    expects = []
    raw_expect = c.get("expect")
    entries = ()
    if question in searches:  # the best configuration: its catalog entries and values
        raw_expect, entries, ekp = searched(b, searches[question], raw_expect, kp)
    elif question is not None:
        if question not in questions:
            raise b.fail(kp + ("question",), f"unknown question '{question}'", f"questions: {', '.join([*questions, *searches]) or 'none'}")
        if raw_expect is None or isinstance(raw_expect, dict):
            raise b.fail(kp, "a question check needs 'expect: <answer>'", "for example: expect: 64")
        raw_expect = {questions[question].find: raw_expect}
        ekp = lambda name: kp + ("expect",)  # noqa: E731
    else:
        if isinstance(raw_expect, (int, float, str)):
            raise b.fail(kp + ("expect",), "expect takes {variable: value} here", "or add 'question:' to check a question's answer")
        ekp = lambda name: kp + ("expect", name)  # noqa: E731
    for name, value in (raw_expect or {}).items():
        v = variable(b, name, ekp(name))
        raw = b.src.raw.get(ekp(name), str(value))
        base = b.quantity(value, ekp(name), v.unit, v.factor, v.dim, f"expected {name}")
        if "tolerance" in c:
            abs_tol, rel_tol = _tolerance(b, c["tolerance"], kp + ("tolerance",), v.unit, v.factor, v.dim)
        else:
            _, written_unit = parse_quantity(raw) if QUANTITY_TEXT.match(raw) else (None, "")
            wfactor = parse_unit(written_unit)[1] if written_unit else v.factor
            abs_tol, rel_tol = (_written_tolerance(raw, wfactor), None) if QUANTITY_TEXT.match(raw) else (None, sp.Rational(1, 10**9))
        expects.append(Expectation(v.name, base, raw, abs_tol, rel_tol, b.src.loc(ekp(name))))
    that, that_text = None, ""
    if "that" in c:
        term = b.expression(c["that"], kp + ("that",))
        if not ex.is_condition(term.dim):
            raise b.fail(kp + ("that",), "'that' must be a relation, such as a == b or a <= b", "a check's that: is a comparison that must hold")
        that, that_text = term.expr, str(c["that"])
    if not expects and that is None and not entries:
        raise b.fail(kp, "a check needs 'expect' or 'that'", "for example: expect: {latency: 7.975 s}")
    return Check(index, c.get("about", ""), tuple(given), tuple(expects), that, that_text, question, b.src.loc(kp), entries)


def _sweep(b, name: str, s: dict, kp: KeyPath) -> Sweep:
    over = variable(b, s["over"], kp + ("over",))
    show = tuple(variable(b, n, kp + ("show", i)).name for i, n in enumerate(s["show"]))
    ref = variable(b, s["reference"], kp + ("reference",)).name if s.get("reference") else None
    step = _sweep_number(b, kp + ("step",), s["step"]) if "step" in s else sp.Integer(1)
    start, stop = _sweep_number(b, kp + ("from",), s["from"]), _sweep_number(b, kp + ("to",), s["to"])
    if stop < start:
        raise b.fail(kp + ("to",), "a sweep's 'to' must not be below 'from'", "swap from: and to:")
    points = LIMITS["sweep_points"]
    if (stop - start) / step > points.default:
        raise b.fail(kp + ("step",), f"a sweep of more than {points.default:,} points", points.how)
    return Sweep(name, over.name, start, stop, step, show, ref, s.get("about", ""), b.src.loc(kp, key=True))


def _sweep_number(b, kp: KeyPath, value: Any) -> sp.Rational:
    """from, to and step, exact from their written text (the schema has checked they are numbers)."""
    try:
        return exact_number(b.src.raw.get(kp, str(value)))
    except BadUnit as e:
        raise b.fail(kp, str(e), "write a plain decimal number, in the display unit of 'over'") from None
