"""After a cold run: the prepared objects it made, stored in the plan cache for warm runs (warm.py reads them).

This is the preparation side of the cache (it plans with SymPy, solver.py); warm.py is the core side
that runs what is stored without SymPy or pint. An entry holds the same Prepared, PreparedQuestion and
PreparedCheck objects the cold run used, with the model's plain description (portable.describe) in
place of the SymPy model, and the files it depends on (deps.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from . import cache
from .checks import prepare_check
from .compare import PreparedCheck
from .deps import dependencies, dependencies_of
from .execute import Prepared, PreparedQuestion
from .portable import EntryInfo, QuestionInfo, describe
from .quantities import UnknownUnit, parse_number, pint_unit
from .results import Query
from .search_data import PreparedChoose, Unavailable
from .solver import prepare, prepare_question
from .warm import check_key, solve_key


def _entries(prep: Prepared) -> dict:
    return {k: EntryInfo(k, e.id, e.title) for k, e in prep.entries.items()}


def portable(prep: Prepared, info) -> Prepared:
    """A prepared shape as the cache stores it: the model's plain description, no plan, no SymPy forms."""
    return replace(prep, model=info, entries=_entries(prep), plan=None, formulas={})


def _units(model, written: list[str]) -> dict:
    """The units a warm run can parse without pint: the model's display units, and those this run was given."""
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


def remember_solve(project, args, model, query) -> None:
    """After a cold `chainc solve`: store the shapes it prepared."""
    info = describe(model)
    data = {"units": _units(model, [item.split("=", 1)[1].strip() for item in args.given if "=" in item])}
    if args.question is not None:
        data["question"] = _question_shapes(model, project.catalog, info, args.question, tuple(query.given), query.gpu, query.llm)
    else:
        data["prepared"] = portable(prepare(model, project.catalog, query), info)
    cache.store(solve_key(project, args, Path(model.path).resolve()), dependencies(project, model, query.gpu, query.llm), data)


def _stored(pq: PreparedQuestion, info) -> PreparedQuestion:
    """A prepared question (solver.prepare_question, as cold runs it) as the cache stores it."""
    q = pq.rule.question
    qi = QuestionInfo(q.name, q.ask, q.find, q.condition_text, q.seek, q.loc)
    boundary = portable(pq.boundary, info) if pq.boundary is not None else None
    return PreparedQuestion(replace(pq.rule, question=qi), portable(pq.at, info), boundary, tuple((label, _stored(p, info)) for label, p in pq.parts))


def _stored_search(pc: PreparedChoose, info) -> PreparedChoose:
    """A prepared search (searches.prepare_search, as cold runs it) as the cache stores it."""
    at = {hw: p if isinstance(p, Unavailable) else portable(p, info) for hw, p in pc.at.items()}
    inner = {hw: tuple((var, _stored(pq, info)) for var, pq in qs) for hw, qs in pc.inner.items()}
    return replace(pc, model=info, at=at, inner=inner)


def _question_shapes(model, catalog, info, name: str, given: tuple, gpu, llm) -> PreparedQuestion:
    return _stored(prepare_question(model, catalog, name, frozenset(n for n, _ in given), gpu, llm), info)


def remember_check(project, names: list[str], models: list, gpu: str | None, llm: str | None) -> None:
    """After a cold `chainc check` in which every model loaded and answered: store each model's prepared checks."""
    catalog = project.catalog
    bundles, roots = [], []
    for model in models:
        g, l_ = (gpu if model.gpu else None), (llm if model.llm else None)
        info = describe(model)
        checks = []
        for c, ci in zip(model.checks, info.checks):
            pc = prepare_check(model, c, catalog, g, l_)
            question = _stored(pc.question, info) if pc.question is not None else None
            forward = portable(pc.forward, info) if pc.forward is not None else None
            search = _stored_search(pc.search, info) if pc.search is not None else None
            checks.append(PreparedCheck(ci, pc.given, question, forward, ci.that, pc.other, search))
        bundles.append(
            {
                "model": info,
                "forward": portable(prepare(model, catalog, Query((), (), g, l_)), info),
                "questions": {name: _question_shapes(model, catalog, info, name, (), g, l_) for name in model.questions},
                "checks": checks,
            }
        )
        roots.append((model, g, l_))
    cache.store(check_key(project, names, gpu, llm), dependencies_of(project, roots), bundles)
