"""A model's questions, checks and sweeps: what it asks of its equations, loaded by the loader's Builder.

A question with several conditions becomes one question per condition and the one that
combines them (docs/design.md, "Several conditions are several questions").
"""

from __future__ import annotations

import ast
import difflib
import re
import warnings
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import sympy as sp

from . import expr as ex
from .ir import Check, Expectation, Question, Sweep, Variable
from .joins import joined_name
from .limits import LIMITS
from .lookups import code_of
from .source import KeyPath
from .units import QUANTITY_TEXT, BadUnit, exact_number, parse_quantity, parse_unit

if TYPE_CHECKING:
    pass


def asks(b, d: dict) -> tuple[dict[str, Question], tuple[Check, ...], dict[str, Sweep]]:
    """The questions (several conditions: the parts first), checks and sweeps of a model file's data."""
    questions: dict[str, Question] = {}
    for name, q in (d.get("questions") or {}).items():
        for made in _questions(b, name, q, ("questions", name)):
            if made.name in questions or (made.name in (d.get("questions") or {}) and made.name != name):
                raise b.fail(
                    ("questions", name),
                    f"question {name}: its condition '{made.name[len(name) + 1 :]}' makes a question {made.name}, which is already a question",
                    "name the conditions: such_that: {label: condition, ...}",
                    key=True,
                )
            questions[made.name] = made
    checks = tuple(_check(b, i, c, ("checks", i), questions) for i, c in enumerate(d.get("checks") or []))
    sweeps = {name: _sweep(b, name, s, ("sweeps", name)) for name, s in (d.get("sweeps") or {}).items()}
    return questions, checks, sweeps


def _variable(b, name: Any, kp: KeyPath) -> Variable:
    """A variable named as expressions name it: a joined model's is `alias.name` here too (one spelling everywhere)."""
    alias, dot, field = str(name).partition(".")
    if dot and alias in b.joined:
        if field not in b.joined[alias].variables:
            close = difflib.get_close_matches(field, list(b.joined[alias].variables), n=1)
            raise b.fail(kp, f"model '{b.joined[alias].name}' has no variable '{field}'", f"did you mean {alias}.{close[0]}?" if close else f"its variables: {', '.join(b.joined[alias].variables)}")
        return b.variables[joined_name(alias, field)]
    for alias, other in b.joined.items():
        if str(name).startswith(alias + "_") and str(name)[len(alias) + 1 :] in other.variables and name in b.variables:
            raise b.fail(kp, f"'{name}' is the joined variable {alias}.{str(name)[len(alias) + 1 :]}", f"write {alias}.{str(name)[len(alias) + 1 :]}, as expressions name it")
    if name not in b.variables:
        close = difflib.get_close_matches(str(name), list(b.variables), n=1)
        raise b.fail(kp, f"unknown variable '{name}'", f"did you mean {close[0]}?" if close else "it must be declared under variables:")
    return b.variables[name]


def _conditions(b, q: dict, kp: KeyPath) -> list[tuple[str, str, KeyPath]]:
    """(label, text, where it is written) of each condition: a mapping names them, 'A and B' is split at its top 'and'."""
    such = q["such_that"]
    if isinstance(such, dict):
        return [(str(label), str(text), kp + ("such_that", label)) for label, text in such.items()]
    text, at = str(such), kp + ("such_that",)
    try:
        with warnings.catch_warnings():  # Python's own warnings ("invalid escape sequence") are not for our users
            warnings.simplefilter("ignore")
            tree = ast.parse(text.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # 3,000 unary minuses: RecursionError
        return [("", text, at)]  # the expression parser reports it, located
    if not (isinstance(tree, ast.BoolOp) and isinstance(tree.op, ast.And)):
        return [("", text, at)]
    b.expression(text, at)  # every error located in the text as written
    parts = [ast.get_source_segment(text.strip(), v) for v in tree.values]
    lhs = [v.left.id if isinstance(v, ast.Compare) and isinstance(v.left, ast.Name) else None for v in tree.values]
    return [(x if x and lhs.count(x) == 1 else f"condition_{i + 1}", t, at) for i, (x, t) in enumerate(zip(lhs, parts))]


def _questions(b, name: str, q: dict, kp: KeyPath) -> list[Question]:
    """The question; with several conditions, first one question per condition (its own limit), then the one that combines them."""
    conditions = _conditions(b, q, kp)
    if len(conditions) == 1 and not isinstance(q["such_that"], dict):
        return [_question(b, name, q, kp)]
    parts = []
    for label, text, at in conditions:
        ask = f"{q.get('ask') or name}: the limit of {text} alone"
        parts.append(_question(b, f"{name}_{label}", {**q, "ask": ask, "such_that": text}, kp, at))
    whole = _question(b, name, {**q, "such_that": " and ".join(f"({p.condition_text})" for p in parts)}, kp, kp + ("such_that",), combined=True)
    text = " and ".join(p.condition_text for p in parts)
    guards = tuple(g for p in parts for g in p.guards)
    return [*parts, replace(whole, condition_text=text, guards=guards, parts=tuple((label, p.name) for (label, _, _), p in zip(conditions, parts)))]


def _question(b, name: str, q: dict, kp: KeyPath, at: KeyPath | None = None, combined: bool = False) -> Question:
    v = _variable(b, q["find"], kp + ("find",))
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


def _check(b, index: int, c: dict, kp: KeyPath, questions: dict[str, Question]) -> Check:
    given = []
    for name, value in (c.get("given") or {}).items():
        v = _variable(b, name, kp + ("given", name))
        at = kp + ("given", name)
        given.append((v.name, code_of(b, v, value, at, f"given {name}") if v.choices else b.quantity(value, at, v.unit, v.factor, v.dim, f"given {name}")))
    question = c.get("question")
    expects = []
    raw_expect = c.get("expect")
    if question is not None:
        if question not in questions:
            raise b.fail(kp + ("question",), f"unknown question '{question}'", f"questions: {', '.join(questions) or 'none'}")
        if raw_expect is None or isinstance(raw_expect, dict):
            raise b.fail(kp, "a question check needs 'expect: <answer>'", "for example: expect: 64")
        raw_expect = {questions[question].find: raw_expect}
        ekp = lambda name: kp + ("expect",)  # noqa: E731
    else:
        if isinstance(raw_expect, (int, float, str)):
            raise b.fail(kp + ("expect",), "expect takes {variable: value} here", "or add 'question:' to check a question's answer")
        ekp = lambda name: kp + ("expect", name)  # noqa: E731
    for name, value in (raw_expect or {}).items():
        v = _variable(b, name, ekp(name))
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
    if not expects and that is None:
        raise b.fail(kp, "a check needs 'expect' or 'that'", "for example: expect: {latency: 7.975 s}")
    return Check(index, c.get("about", ""), tuple(given), tuple(expects), that, that_text, question, b.src.loc(kp))


def _sweep(b, name: str, s: dict, kp: KeyPath) -> Sweep:
    over = _variable(b, s["over"], kp + ("over",))
    show = tuple(_variable(b, n, kp + ("show", i)).name for i, n in enumerate(s["show"]))
    ref = _variable(b, s["reference"], kp + ("reference",)).name if s.get("reference") else None
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
