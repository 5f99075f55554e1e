"""The Python backend's own helpers, copied into generated modules beside the runtime rules (see runtime.py).

They word errors as the solver does (compiler/run.py, compiler/solve.py) and run
the root finder the way the solver runs it. Like the runtime they are plain
standard-library code; they call the runtime under the names the copies have in
a generated module (`_shown`, `_bracket_root`), hence the aliased imports.
"""

from __future__ import annotations

import math
import threading
import time

from ...runtime.answer import NoAnswer as _NoAnswer
from ...runtime.answer import no_answer as _no_answer
from ...runtime.choose import decide as _decide
from ...runtime.choose import nothing as _nothing
from ...runtime.choose import optimised as _optimised
from ...runtime.roots import Beyond as _Beyond
from ...runtime.roots import root_1d as _root_1d
from ...runtime.values import ChainError
from ...runtime.values import real as _real
from ...runtime.values import shown as _shown


def _problem(e: BaseException) -> str:
    """What went wrong while computing a value, in the solver's words."""
    if isinstance(e, ZeroDivisionError):
        return "divides by zero"
    if isinstance(e, ChainError):
        return e.message
    if isinstance(e, OverflowError):
        return f"overflows ({e})" if str(e) else "overflows"
    text = str(e)
    return {"math domain error": "leaves the domain of a function (the root or logarithm of a negative number)"}.get(text, text)


def _number(x, name: str, unit: str = ""):
    """A caller's argument must be one real number, in its display unit: a str ('12', '10ms'), a bool or a list is refused, not computed with."""
    if isinstance(x, (str, bytes, bool)) or not hasattr(x, "__float__") or getattr(x, "ndim", 0):
        arrays = "; the NumPy flavour (chainc build --numpy) takes arrays" if isinstance(x, (list, tuple)) or getattr(x, "ndim", 0) else ""
        raise ChainError(f"{name} = {x!r} is not a number", _pass_as(x, name, unit, "an int or a float") + arrays)
    return x


def _choice(x, name: str, choices: tuple) -> int:
    """A caller's name for a choice argument -> its code, its place among the choices (1-based); anything else is refused."""
    if isinstance(x, str) and x.strip() in choices:
        return choices.index(x.strip()) + 1
    raise ChainError(f"{name} = {x!r} is not one of {name}'s choices ({', '.join(choices)})", f"pass {name} as a str, one of " + ", ".join(repr(c) for c in choices))


def _pass_as(x, name: str, unit: str, what: str) -> str:
    """The hint for an argument of the wrong type: which numbers, in which unit (the docstring's)."""
    text = f"pass {name} as {what} " + (f"in {unit} (its display unit)" if unit else f"({name} has no unit)")
    if isinstance(x, str):  # '10ms': chainc parses quantities, a module takes numbers
        lead = x.strip()[: len(x.strip()) - len(x.strip().lstrip("0123456789."))] or "10"
        text += f"; a module reads no units from text: write {name}={lead}" + (f" for {lead} {unit}" if unit else "")
    return text


def _failed(e: BaseException, name: str, where: str) -> ChainError:
    """The error for a value that could not be computed at `where` ('line 66: tpot = ...')."""
    problem = _problem(e)
    what = (problem if problem.startswith(f"{name} ") else f"{name} {problem}") if isinstance(e, ChainError) else f"the value of {name} {problem}"
    if isinstance(e, ChainError) and e.kind == "limit":  # still a limit, so a search stops at it rather than stepping over
        return ChainError(f"{e.message}, in {where}", e.hint, "limit")
    return ChainError(f"{what}: {where}", "check the inputs, or the equation's domain")


def _failed_row(e: BaseException, row: int, name: str, where: str) -> ChainError:
    """The error for a table cell that could not be computed."""
    if isinstance(e, ZeroDivisionError):
        return ChainError(f"division by zero in row {row}: {where}", "a divisor is 0 here")
    if isinstance(e, ChainError) and e.kind == "limit":
        return ChainError(f"{e.message}, in row {row}: {where}", e.hint, "limit")
    return ChainError(f"row {row}: {name} {_problem(e)}: {where}", "check the inputs, or the equation's domain")


def _outside(value, factor, name: str, unit: str, domain: str, where: str) -> ChainError:
    """The error for a computed value (base units) outside its variable's domain, or no finite real number at all."""
    try:
        _real(value, name)
    except ChainError as e:
        return _failed(e, name, where)
    shown = f"{name} = {_shown(value / factor)} {unit}".rstrip()
    return ChainError(f"{shown} is outside its domain ({domain})", f"from {where}; check the inputs")


def _entry_error(kind: str, entries: dict, titles: dict, entry_id, fields: tuple) -> ChainError:
    """The catalog lookup failed: an unknown id, or an entry without a value the model reads."""
    import difflib

    if entry_id not in entries:
        ids = sorted(entries)
        close = difflib.get_close_matches(str(entry_id), ids, n=1)
        return ChainError(f"unknown {kind.upper()} '{entry_id}'", f"did you mean {close[0]}?" if close else f"known: {', '.join(ids)}")
    title = titles.get(entry_id, entry_id)
    for name in fields:
        value = entries[entry_id].get(name)
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return ChainError(f"{title} has no value for {name}", f"its catalog entry marks it as not available; pick another {kind.upper()}")
    return ChainError(f"{title}: a catalog value is not a number", f"check {kind.upper()}S[{entry_id!r}]")


def _search(trial, start, factor: float, kind: str, lo, hi, name: str, unit: str, where: str, integer: bool = False) -> float:
    """A numeric block's tear: the runtime's 1-D rule over trial(x)[0] (a point without a value is stepped over)."""

    def residual(x: float) -> float:
        try:
            return float(_real(trial(x)[0], "the residual"))
        except ChainError as e:
            if e.kind == "limit":  # not "no value here": the search must not close in on it
                raise _Beyond(e.message) from None
            return math.nan
        except (ArithmeticError, ValueError, TypeError):
            return math.nan

    return _root_1d(residual, start, factor, kind, lo, hi, name, unit, where, integer)[0]


def _question_error(e: _NoAnswer, sides, about: tuple, titles: tuple) -> ChainError:
    """A question without an answer, in the solver's words (the runtime's no_answer): sides(x) gives the condition's sides at x (None: several conditions).

    about: (question, variable, unit, factor, condition text, negated operator, (left, right) labels, domain, seek);
    a label is (name, unit, factor) for a side that is a variable, else None. titles: the hardware's titles.
    """
    question, find, unit, factor, condition, negated, labels, domain, seek = about

    texts = ("", "", "")
    if e.kind == "infeasible" and sides is None:  # several conditions: each holds somewhere, never all at once
        texts = ("the conditions do not all hold", "", "")
    if e.kind == "infeasible" and sides is not None:
        try:
            left, right = sides(e.at)
        except ChainError as err:  # the model has no admissible value even at the closest point: the solver's words
            return ChainError(f"question {question}: no {find} meets {condition}: {err.message}", err.hint)
        texts = (_said(left, labels[0]), negated, _said(right, labels[1]))
    on = f" on {' with '.join(titles)}" if titles else ""
    at = _said(e.at, (find, unit, factor)) if e.at is not None else ""
    boundary = _said(e.boundary, (find, unit, factor)) if e.boundary is not None else ""
    return _no_answer(e, question, find, condition, seek, domain, on, at, texts, boundary)


def _said(value, label) -> str:
    """A value in a message as the solver words it: 'tpot = 42.3219 ms/token' for a variable (label: its name, unit, factor), else the number."""
    return _shown(value) if label is None else f"{label[0]} = {_shown(value / label[2])} {label[1]}".rstrip()


def _whole(x) -> int:
    """A sum's bound: a whole number (a float from arithmetic may carry its last bit)."""
    n = round(x)
    if abs(x - n) > 1e-9 * max(1, abs(n)):
        raise ChainError(f"a bound of a sum is {_shown(x)}, not a whole number", "a sum runs over whole numbers: wrap the bound in ceil() or floor()")
    return n


class _Budget:
    """A public function's time budget, per thread: chainc's solve_seconds default (set _Budget.seconds to change it).

    Every loop of a module is bounded by a limit, and only sums make one step long: _terms checks the clock.
    """

    seconds = 60
    ends: dict = {}


def _begin() -> None:
    """A public function starts: its budget runs from now."""
    _Budget.ends[threading.get_ident()] = time.monotonic() + _Budget.seconds


def _tick() -> None:
    """Raise the limit's error once the budget of the call in this thread has run out."""
    end = _Budget.ends.get(threading.get_ident())
    if end is not None and time.monotonic() > end:
        raise ChainError(
            f"the call took more than the solve_seconds limit of {_Budget.seconds:,} s",
            "if the model is right, set _Budget.seconds of this module to more seconds, or compute it with chainc (CHAINC_MAX_SOLVE_SECONDS)",
            "limit",
        )


def _terms(lo, hi, around=1, most: int = 1_000_000) -> range:
    """A sum's index values lo .. hi - 1: whole-number bounds, at most `most` of them (the solver's sum_terms limit).

    around: the terms of the sums around this one (their counts multiplied): a nested sum counts its terms that many times.
    """
    _tick()
    lo, hi = _whole(lo), _whole(hi)
    if (hi - lo) * around > most:
        times = f", {around:,} times over (the sums around it)" if around > 1 else ""
        raise ChainError(
            f"a sum of {hi - lo:,} terms (from {lo:,} to {hi - 1:,}){times} is more than the sum_terms limit of {most:,}",
            "if the model is right, compute it with chainc and a larger CHAINC_MAX_SUM_TERMS (the generated module keeps the default)",
            "limit",
        )
    return range(lo, hi)


def _factorial(x) -> float:
    """n! of a whole n (as a float, like the rest of the module), else gamma(x + 1)."""
    return float(math.factorial(_whole(x))) if abs(x - round(x)) <= 1e-9 * max(1, abs(x)) and x >= 0 else math.gamma(x + 1)


def _limit_number(x, digits=None) -> str:
    """A side of a physical limit as chainc prints numbers (compiler/format.fmt): 4 significant figures, whole digits kept."""
    digits = digits or 4
    x = float(x)
    if x == 0 or math.isnan(x) or math.isinf(x):
        return "0" if x == 0 else str(x)
    mag = math.floor(math.log10(abs(x)))
    if mag >= 15 or mag < -4:
        return f"{x:.{digits - 1}e}"
    if mag >= digits - 1:
        return f"{round(x):,}"
    text = f"{x:,.{max(digits - 1 - mag, 0)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _limit_warning(template: str, left, right, digits: tuple, about: str, where: str = "", level: int = 3) -> None:
    """A physical limit (limits:) fails: warn, as chainc does beside the numbers; the values are returned all the same."""
    import warnings

    words = template.format(_limit_number(left, digits[0]), _limit_number(right, digits[1]))
    warnings.warn(words + where + (f" ({about})" if about else ""), UserWarning, stacklevel=level)


# --- searches over configurations: the rows a search function collects, and its Choice -------------------------------


def _configurations(axes) -> list:
    """Every configuration of the axes' values, one tuple each, the first axis slowest (the order of the solver's grid)."""
    out = [()]
    for values in axes:
        out = [(*c, v) for c in out for v in values]
    return out


def _at_hardware(cache: dict, hardware, ids: tuple):
    """hardware(*ids) computed once per hardware: the values a search reads there, or the ChainError that says why it has none."""
    if ids not in cache:
        try:
            cache[ids] = hardware(*ids)
        except ChainError as e:
            if e.kind == "limit":
                raise
            cache[ids] = e
    return cache[ids]


def _unvalued(e: ChainError, question: str, inner: list) -> tuple:
    """A configuration's row without values: an inner question without an answer is named, anything else has 'no value'; a limit stops the search."""
    if e.kind == "limit":
        raise e
    return (tuple(inner), None, question if question and e.kind in ("infeasible", "unbounded") else "no value", e.message, None, "")


def _side(x) -> float:
    """One side of a search's condition at a configuration: a finite real number, else the side has no value there."""
    if isinstance(x, complex) or getattr(getattr(x, "dtype", None), "kind", "") == "c":
        raise ValueError("not a real number")
    x = float(x)
    if not math.isfinite(x):
        raise ValueError("not a finite number")
    return x


def _free_row(config, args: list, at: int, lo, hi, seek: str) -> tuple:
    """A configuration whose free variable is optimised (runtime.choose.optimised): config(*args) with each trial value
    at args[at]; its row, x last of the inner answers."""

    def at_x(x):
        return config(*args[:at], x, *args[at + 1 :])

    x, where, row = _optimised(at_x, lambda r: None if r[3] else r[1][0], lo, hi, seek)
    return ((*row[0], x), row[1], row[2], row[3], row[4], where)


def _row_at(label, config, args: list) -> tuple:
    """A configuration's row by the rule at one configuration, config(*args); where the vectorised run found what
    fails (label), the row fails there and its words are config's, computed when first read."""
    if label is None:
        _tick()
        return config(*args)
    return ((), None, label, lambda: config(*args)[3], None, "")


def _chosen(configs: list, rows: list, sizes: tuple, about: tuple) -> dict:
    """A search's rows -> its Choice's fields in display units, by the runtime's rule (runtime.choose.decide).

    configs: per row, one value per axis (a catalog id, or a base value); rows: per row (inner answers, goals
    (None: no values), what fails ('' nothing), why (or a function that words it), shortfall, where the free
    variable sits); about: (question,
    rows shown, axes, inner unknowns (the free variable last), goals, seeks, free variable or None), each a
    (name, factor (None: a catalog id), whole, unit). No configuration that meets the conditions raises ChainError.
    """
    question, show, axes, inner, goals, seeks, free = about
    columns = [[None if r[1] is None else r[1][k] for r in rows] for k in range(len(goals))]
    order, binding, near, placement = _decide(columns, [not r[3] for r in rows], [r[2] for r in rows], [r[4] for r in rows], seeks, sizes)

    def shown(spec, base):
        if base is None or spec[1] is None:
            return base
        return round(base / spec[1]) if spec[2] else base / spec[1]

    def row(i: int, everything: bool = True) -> dict:
        r = rows[i]
        out = {a[0]: shown(a, v) for a, v in zip(axes, configs[i])}
        if everything:
            out.update((s[0], shown(s, r[0][k] if k < len(r[0]) else None)) for k, s in enumerate(inner))
            out.update((s[0], shown(s, None if r[1] is None else r[1][k])) for k, s in enumerate(goals))
        return out

    def text(spec, base) -> str:  # as Chosen.describe: 'gpu = h200', 'batch = 1,258', 'batch: none'
        if spec[1] is None:
            return f"{spec[0]} = {base}"
        return f"{spec[0]}: none" if base is None else f"{spec[0]} = {_limit_number(base / spec[1], 6)} {spec[3]}".rstrip()

    if not order:
        near_text = (
            ", ".join([*(text(a, v) for a, v in zip(axes, configs[near])), *(text(s, rows[near][0][k] if k < len(rows[near][0]) else None) for k, s in enumerate(inner))]) if near is not None else ""
        )
        raise ChainError(
            f"question {question}: " + _nothing(len(rows), near_text, rows[near][3] if near is not None else ""), "relax a condition, search other values, or change an input", "infeasible"
        )
    frontier = len(seeks) == 2
    table = tuple({"rank": k + 1, **row(i)} for k, i in enumerate(order if frontier else order[:show]))
    where = {a[0]: p for a, p in zip(axes, placement) if a[1] is not None}
    if free is not None and not frontier:
        where[free] = rows[order[0]][5]
    best = None if frontier else row(order[0])
    return {
        "question": question,
        "best": best,
        "value": None if best is None else best[goals[0][0]],
        "table": table,
        "binding": tuple(tuple(b) for b in binding),
        "placement": where,
        "configurations": len(rows),
        "feasible": sum(1 for r in rows if not r[3]),
        "frontier": table if frontier else (),
        "_failing": lambda: tuple((row(i, False), r[2], r[3]() if callable(r[3]) else r[3]) for i, r in enumerate(rows) if r[3]),
    }
