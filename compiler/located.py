"""Where and why a statement has no value: the located SolveError a person can act on."""

from __future__ import annotations

from fractions import Fraction

from . import bounded as B
from . import program as P
from .closures import _FAILURES, Env, Exactly, compile_expr
from .errors import LimitError, SolveError
from .runtime import values as V


def diagnose(e: P.Expr, env: Env) -> tuple[str, str] | None:
    """The innermost part of `e` that has no value at env, as (problem, hint): what a person can act on."""
    if type(e) is P.Choice:  # only the conditions tried and the branch taken are evaluated
        for value, cond in e.pieces:
            found = diagnose(cond, env)
            if found:
                return found
            if compile_expr(cond)(env):
                return diagnose(value, env)
        return None
    for child in (e.lo, e.hi) if type(e) is P.Sum else P.children(e):  # a sum's terms need its index: the sum answers for them
        found = diagnose(child, env)
        if found:
            return found
    try:
        compile_expr(e)(env)
    except (B.Problem, B.LimitReached) as x:
        return x.message, x.hint
    except ZeroDivisionError:
        bases = [a.base for a in ((e,) if type(e) is P.Pow else e.args if type(e) is P.Mul else ()) if type(a) is P.Pow and type(a.exp) is P.Num and a.exp.value < 0]
        zero = next((b for b in bases if _quietly(b, env) == 0), None)
        return "division by zero", f"the divisor {P.text(zero)} is 0 here" if zero is not None else "a divisor is 0 here"
    except (ValueError, TypeError) as x:
        return (f"{x}", "check the inputs") if str(x) else ("no value", "check the inputs")
    except OverflowError:
        return "a value beyond any computable size", "check the inputs"
    except _FAILURES as x:
        return str(x), "check the inputs"
    return None


def _quietly(e, env):
    try:
        return compile_expr(e)(env)
    except _FAILURES:
        return None


def shown_values(names, env: Env, domains: dict) -> str:
    """'a = 2, c = -1': the variables a statement reads, in their display units."""
    out = []
    for n in sorted(names):
        if n in env and n in domains:
            d = domains[n]
            out.append(f"{n} = {B.count(env[n] / d.factor)} {d.unit}".rstrip())
    return ", ".join(out[:6])


def located(site: P.Site, e: BaseException, expr, env: Env, domains: dict, what: str = "") -> SolveError:
    """A failed evaluation as a located error: the innermost operation that failed, where, and at which values."""
    where = what or site.what
    if isinstance(e, (B.LimitReached, LimitError)):  # not a failure to diagnose: it names the limit, where it was reached
        values = shown_values(P.refs(expr), env, domains) if expr is not None else ""
        return LimitError(f"{e.message}, in {where}" + (f" ({values})" if values else ""), site.loc, e.hint)
    if isinstance(e, OverflowError) and B.shortened and not B.strict and not B.probing:
        raise Exactly from None  # a carried float met a number beyond float range: exact values have no such edge
    found = diagnose(expr, env) if expr is not None else None
    if found is None:
        found = (e.message, e.hint) if isinstance(e, V.ChainError) else ("division by zero", "a divisor is 0 here") if isinstance(e, ZeroDivisionError) else (str(e) or "no value", "check the inputs")
    problem, hint = found
    values = shown_values(P.refs(expr), env, domains) if expr is not None else ""
    sep = " " if problem == "division by zero" else ", "
    return SolveError(f"{problem}{sep}in {where}" + (f" ({values})" if values else ""), site.loc, hint)


def fail(site: P.Site, message: str, hint: str = "", env: Env | None = None, names=()) -> SolveError:
    """A located error; with the values of the names the statement reads."""
    shown = [f"{n} = {V.shown(env[n])}" for n in sorted(names) if env is not None and n in env][:6]
    where = f"{site.what}" + (f" (with {', '.join(shown)}, base units)" if shown else "")
    return SolveError(f"{message}: {where}" if message else where, site.loc, hint or "check the inputs, or the equation's domain")


def _value(v, what: str):
    """A statement's result: a finite real number; a whole Fraction becomes an int (ints are Python's fast path)."""
    t = type(v)
    if t is int:
        return v
    if t is Fraction:
        return v._numerator if v._denominator == 1 else B.shorten(v)
    if t is bool:
        return int(v)
    return V.real(v, what)
