"""Evaluate once: a Report per (model, hardware, givens), which every backend and the CLI print.

A Report holds the solution, every question's answer (or why it has none), every
check's outcome with what it compared, every sweep, and the custom queries a build
asked for. The CatalogReport holds every catalog entry's solved values. Backends
read these and the Programs inside them; they never call the solver.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from .catalog import Catalog
from .checks import run_check
from .choosing import choose
from .errors import ChaincError
from .ir import Model
from .order import deepest_first
from .quantities import given_value
from .results import CatalogReport, Query, Report
from .searches import prepare_search
from .solver import ask_query, entry_solution, entry_values, prepare_question, solve_query
from .sweep import run_sweep

EVERYTHING = frozenset({"answers", "sensitivities", "checks", "sweeps"})


def evaluate(
    model: Model,
    catalog: Catalog | None,
    gpu: str | None = None,
    llm: str | None = None,
    given: dict | None = None,
    queries: dict | None = None,
    source=None,
    memo: dict | None = None,
    parts: frozenset = EVERYTHING,
    calibration: dict | None = None,
) -> Report:
    """Solve, answer, check and sweep a model once. Errors of the forward solve raise; a question's are kept.

    source(path) names model files in outputs; memo (model -> Report) shares imported models' reports; parts
    names what a command needs beyond the solution (`chainc check` its answers and checks, `chainc plot` its sweeps);
    calibration (fit.calibration.load) gives its fitted values (the caller's givens win) and goes into the Report.
    """
    memo = {} if memo is None else memo
    if calibration is not None:
        from .fit.calibration import given as calibrated

        given = calibrated(model, calibration, given or {})
        queries = {name: (find, calibrated(model, calibration, qgiven)) for name, (find, qgiven) in (queries or {}).items()}
    # the imported models' reports first, deepest first: each finds its own imports' in memo, so a chain never recurses
    for other in deepest_first([model], lambda m: [o for _, o in m.imports if o not in memo])[:-1]:
        memo[other] = evaluate(other, catalog, gpu, llm, source=source, memo=memo, parts=parts)
    imports = {alias: memo[other] for alias, other in model.imports}
    gpu, llm = (gpu if model.gpu else None), (llm if model.llm else None)
    values = tuple((n, given_value(model, n, v)) for n, v in (given or {}).items())
    solution = solve_query(model, catalog, Query(values, (), gpu, llm))
    answers: dict = {}
    rules: dict = {}
    for name in model.questions if "answers" in parts else ():
        try:
            answers[name] = ask_query(model, catalog, name, Query(values, (), gpu, llm))
        except ChaincError as e:
            answers[name] = e
        try:  # the rule the answer ran (not one planned again: a cache evicted since would make another Program)
            rules[name] = prepare_question(model, catalog, name, frozenset(n for n, _ in values), gpu, llm).rule
        except ChaincError:
            pass  # a question whose shape cannot be planned: its answer holds the error
    searches, choosing = {}, {}
    for name in model.searches if "answers" in parts else ():
        try:
            choosing[name] = prepare_search(model, catalog, name, frozenset(n for n, _ in values), gpu, llm)
            searches[name] = choose(choosing[name], dict(values))
        except ChaincError as e:
            searches[name] = e
    sensitivities = {name: _sensitivities(model, catalog, name, Query(values, (), gpu, llm)) for name, a in answers.items() if "sensitivities" in parts and not isinstance(a, ChaincError)}
    fitted = tuple((n, v) for n, v in values if calibration is not None and n in calibration["fitted"])
    checks = tuple(run_check(model, c, catalog, gpu, llm, fitted) for c in model.checks) if "checks" in parts else ()
    sweeps = {name: run_sweep(model, sw, catalog, gpu, llm, values) for name, sw in model.sweeps.items()} if "sweeps" in parts else {}
    custom = {}
    for name, (find, qgiven) in (queries or {}).items():
        qvalues = tuple((n, given_value(model, n, v)) for n, v in qgiven.items())
        custom[name] = solve_query(model, catalog, Query(qvalues, tuple(find), gpu, llm))
    where = source(model.path) if source else model.path
    carried = None
    if calibration is not None:
        from .fit.calibration import of

        carried = of(calibration, solution)
    return Report(model, solution, answers, checks, sweeps, custom, values, where, imports, rules, {n: t for n, t in sensitivities.items() if t}, _digest(model.path), searches, choosing, carried)


def _sensitivities(model: Model, catalog, question: str, query: Query) -> tuple:
    """What moves a question's boundary most; () when that cannot be worked out (the numbers are a bonus, not a result)."""
    from .sensitivity import sensitivities

    try:
        return sensitivities(model, catalog, query, question=question)
    except (ChaincError, ArithmeticError, ValueError, TypeError):
        return ()


def _digest(path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return ""


def catalog_report(catalog: Catalog) -> CatalogReport:
    entries = {kind: tuple((e, entry_values(e)) for e in catalog.entries(kind)) for kind in ("gpu", "llm")}
    programs = {(kind, e.id): entry_solution(e).program for kind, pairs in entries.items() for e, _ in pairs}
    return CatalogReport(catalog.fields, entries, programs)
