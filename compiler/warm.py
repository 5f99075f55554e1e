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
from pathlib import Path

from . import cache
from .compare import PreparedCheck, run_check
from .deps import dependencies
from .execute import Prepared, PreparedQuestion, ask, execute
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

    prep = data["question"].at if "question" in data else data["prepared"]
    model = prep.model
    try:
        given = {n: given_value(model, n, v, unit) for n, v in given_texts.items()}
    except _Cold:
        return None
    except UnknownUnit:
        return None
    if "question" not in data:
        return execute(prep, given, tuple(args.find)), None
    a = ask(data["question"], given)
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


def _stored(pq: PreparedQuestion, info) -> PreparedQuestion:
    """A prepared question (solver.prepare_question, as cold runs it) as the cache stores it."""
    from .portable import QuestionInfo

    q = pq.rule.question
    qi = QuestionInfo(q.name, q.ask, q.find, q.condition_text, q.seek, q.loc)
    boundary = portable(pq.boundary, info) if pq.boundary is not None else None
    return PreparedQuestion(replace(pq.rule, question=qi), portable(pq.at, info), boundary, tuple((label, _stored(p, info)) for label, p in pq.parts))


def _question_shapes(model, catalog, info, name: str, given: tuple, gpu, llm) -> PreparedQuestion:
    from .solver import prepare_question

    return _stored(prepare_question(model, catalog, name, frozenset(n for n, _ in given), gpu, llm), info)


def remember_check(project, names: list[str], models: list, gpu: str | None, llm: str | None) -> None:
    """After a cold `chainc check` in which every model loaded and answered: store each model's prepared checks."""
    from .checks import prepare_check
    from .portable import describe
    from .results import Query
    from .solver import prepare

    catalog = project.catalog
    bundles, deps = [], []
    for model in models:
        g, l_ = (gpu if model.gpu else None), (llm if model.llm else None)
        info = describe(model)
        checks = []
        for c, ci in zip(model.checks, info.checks):
            pc = prepare_check(model, c, catalog, g, l_)
            question = _stored(pc.question, info) if pc.question is not None else None
            forward = portable(pc.forward, info) if pc.forward is not None else None
            checks.append(PreparedCheck(ci, pc.given, question, forward, ci.that, pc.other))
        bundles.append(
            {
                "model": info,
                "forward": portable(prepare(model, catalog, Query((), (), g, l_)), info),
                "questions": {name: _question_shapes(model, catalog, info, name, (), g, l_) for name in model.questions},
                "checks": checks,
            }
        )
        deps += dependencies(project, model, g, l_)
    cache.store(check_key(project, names, gpu, llm), deps, bundles)


def check(project, names: list[str], gpu: str | None, llm: str | None):
    """[(model info, outcomes)] of `chainc check` from the cache, or None: the cold run's prepared checks, run again."""
    bundles = cache.load(check_key(project, names, gpu, llm))
    if bundles is None:
        return None
    out = []
    for b in bundles:
        execute(b["forward"], {})  # every model solves forward and answers every question (errors raise, as cold)
        for pq in b["questions"].values():
            ask(pq, {})
        out.append((b["model"], tuple(run_check(pc) for pc in b["checks"])))
    return out
