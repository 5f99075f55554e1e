"""The warm command line: `chainc solve` and `chainc check` from prepared shapes in the plan cache.

A cold run plans with SymPy, answers, and stores what it prepared (portable.py,
cache.py). A warm run with the same shape (the same model files, hardware,
question and names given or found, whatever their values) reads that back and
runs it through the same functions (execute.py, the runtime's answer rule): the
same numbers and messages, without importing SymPy or pint. Whatever the warm
path cannot take (a unit it has not seen, --explain, --sensitivity) goes cold.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

from . import cache
from .deps import dependencies
from .errors import NoAnswerError, SolveError
from .execute import Prepared, answer_question, execute
from .quantities import UnknownUnit, given_value


def _entries(prep: Prepared) -> dict:
    from .portable import EntryInfo

    return {k: EntryInfo(k, e.id, e.title) for k, e in prep.entries.items()}


def portable(prep: Prepared, info) -> Prepared:
    """A prepared shape as the cache stores it: the model's plain description, no plan, no SymPy forms."""
    return replace(prep, model=info, entries=_entries(prep), plan=None, formulas={})


def _units(model, written: list[str]) -> dict:
    """The units a warm run can parse without pint: the model's display units, and those this run was given."""
    from .quantities import UnknownUnit, parse_number, pint_unit

    texts = [q.unit for q in (*model.variables.values(), *(c for t in model.tables.values() for c in t.columns))]
    for w in written:
        try:
            texts.append(parse_number(w)[1])
        except UnknownUnit:
            pass
    out = {}
    for t in texts:
        if t and t not in out:
            try:
                out[t] = pint_unit(t)
            except UnknownUnit:
                pass
    return out


# --- chainc solve -------------------------------------------------------------------------------------------


def solve_key(project, args, model_path: Path) -> str:
    names = sorted(item.split("=", 1)[0].strip() for item in args.given)
    return cache.key("solve", os.getcwd(), str(model_path), [str(layer.root) for layer in project.layers], args.gpu, args.llm, args.question, sorted(args.find), names)


def remember_solve(project, args, model, query) -> None:
    """After a cold `chainc solve`: store the shapes it prepared."""
    from .portable import describe
    from .solver import prepare

    info = describe(model)
    data = {"units": _units(model, [item.split("=", 1)[1].strip() for item in args.given if "=" in item])}
    if args.question is not None:
        data["question"] = _question_shapes(model, project.catalog, info, args.question, tuple(query.given), query.gpu, query.llm)
    else:
        data["prepared"] = portable(prepare(model, project.catalog, query), info)
    cache.store(solve_key(project, args, Path(model.path).resolve()), dependencies(project, model, query.gpu, query.llm), data)


def solve(project, args, given_texts: dict):
    """(solution, answer) of `chainc solve` from the cache, or None when it holds no such shape."""
    try:
        path = project.resolve(args.model)
    except Exception:  # noqa: BLE001 - the cold path reports it properly
        return None
    data = cache.load(solve_key(project, args, path))
    if data is None:
        return None
    units = data["units"]

    def unit(text: str):
        if text not in units:
            raise _Cold
        return units[text]

    prep = data["question"]["at"] if "question" in data else data["prepared"]
    model = prep.model
    try:
        given = {n: given_value(model, n, v, unit) for n, v in given_texts.items()}
    except _Cold:
        return None
    except UnknownUnit:
        return None
    if "question" not in data:
        return execute(prep, given, tuple(args.find)), None
    a = _ask(data["question"], given)
    return a.solution, a


class _Cold(Exception):
    """The warm path cannot take this command: run it cold."""


# --- chainc check -------------------------------------------------------------------------------------------


def check_key(project, names: list[str], gpu: str | None, llm: str | None) -> str:
    paths = []
    for n in names:
        try:
            paths.append(str(project.resolve(n)))
        except Exception:  # noqa: BLE001 - the cold path reports it
            paths.append(n)
    return cache.key("check", os.getcwd(), [str(layer.root) for layer in project.layers], paths, gpu, llm)


def _question_shapes(model, catalog, info, name: str, given: tuple, gpu, llm) -> dict:
    from .portable import QuestionInfo
    from .results import Query
    from .solver import _boundary_equation, asking, prepare

    q = model.questions[name]
    rule = asking(model, name, frozenset(n for n, _ in given))
    at = prepare(model, catalog, Query((*given, (q.find, 0)), (), gpu, llm, (), False))
    boundary = None  # several conditions: none of their own, each part has one
    if not q.parts:
        try:
            boundary = portable(prepare(model, catalog, Query(given, (q.find,), gpu, llm, (_boundary_equation(model, q),))), info)
        except SolveError:
            pass
    qi = QuestionInfo(q.name, q.ask, q.find, q.condition_text, q.seek, q.loc)
    parts = [(label, _question_shapes(model, catalog, info, part, given, gpu, llm)) for label, part in q.parts]
    return {"rule": replace(rule, question=qi), "at": portable(at, info), "boundary": boundary, "parts": parts}


def remember_check(project, names: list[str], models: list, gpu: str | None, llm: str | None) -> None:
    """After a cold `chainc check` in which every model loaded and answered: store each model's shapes."""
    from .compare import written_for
    from .numbers import exact
    from .portable import describe
    from .results import Query
    from .solver import prepare

    catalog = project.catalog
    bundles, deps = [], []
    for model in models:
        g, l_ = (gpu if model.gpu else None), (llm if model.llm else None)
        info = describe(model)
        checks = []
        for c in model.checks:
            given = tuple((n, exact(v)) for n, v in c.given)
            if c.question:
                checks.append({"question": _question_shapes(model, catalog, info, c.question, given, g, l_)})
            else:
                checks.append({"prepared": portable(prepare(model, catalog, Query(given, (), g, l_)), info)})
        bundles.append(
            {
                "model": info,
                "forward": portable(prepare(model, catalog, Query((), (), g, l_)), info),
                "questions": {name: _question_shapes(model, catalog, info, name, (), g, l_) for name in model.questions},
                "checks": checks,
                "written_for": written_for(model, catalog, g, l_),
            }
        )
        deps += dependencies(project, model, g, l_)
    cache.store(check_key(project, names, gpu, llm), deps, bundles)


def _ask(shapes: dict, given: dict):
    rule = shapes["rule"]

    @lru_cache(maxsize=256)
    def at(x):
        return execute(shapes["at"], {**given, rule.question.find: x}, (), False)

    parts = []
    for label, part in shapes["parts"]:  # several conditions: each one's own answer first, as cold
        try:
            parts.append((label, part["rule"].question, _ask(part, given)))
        except NoAnswerError as e:
            parts.append((label, part["rule"].question, e))
    if parts:
        return answer_question(shapes["at"].model, rule, at, None, tuple(parts))
    bsol = None
    if shapes["boundary"] is not None:
        try:
            bsol = execute(shapes["boundary"], given, (rule.question.find,))
        except SolveError:
            bsol = None
    return answer_question(shapes["at"].model, rule, at, bsol)


def check(project, names: list[str], gpu: str | None, llm: str | None):
    """[(model info, outcomes)] of `chainc check` from the cache, or None."""
    from .compare import outcome
    from .errors import ChaincError
    from .results import CheckOutcome

    bundles = cache.load(check_key(project, names, gpu, llm))
    if bundles is None:
        return None
    out = []
    for b in bundles:
        info = b["model"]
        execute(b["forward"], {})  # every model solves forward and answers every question (errors raise, as cold)
        for shapes in b["questions"].values():
            _ask(shapes, {})
        outcomes = []
        for c, shapes in zip(info.checks, b["checks"]):
            given = dict(c.given)
            try:
                if "question" in shapes:
                    answer = _ask(shapes["question"], given)
                    solution = answer.solution
                else:
                    answer, solution = None, execute(shapes["prepared"], given)
            except ChaincError as e:
                outcomes.append(CheckOutcome(c, False, error=e))
                continue
            outcomes.append(outcome(c, solution, answer, c.that, b["written_for"]))
        out.append((info, tuple(outcomes)))
    return out
