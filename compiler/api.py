"""The Python API: models by name or object, values as people write them, the project found as the CLI finds it.

The solver itself (solve.py) takes a model, a catalog and a Query in base units;
this layer parses values ('10ms', 128 in the display unit) and finds the project.
"""

from __future__ import annotations

from .checks import run_check
from .ir import Model
from .project import Project
from .quantities import given_value
from .results import Answer, CheckOutcome, Query, Solution
from .solve import ask_query, solve_query


def _catalog(model: Model, project: Project | None):
    if project is None and (model.gpu or model.llm or model.imports):
        project = Project()
    return project.catalog if project is not None else None


def _query(model: Model, given: dict | None, find=(), gpu=None, llm=None, extra=(), check_domain=True) -> Query:
    values = tuple((n, given_value(model, n, v)) for n, v in (given or {}).items())
    return Query(values, tuple(find), gpu, llm, tuple(extra), check_domain)


def solve(model: Model, given: dict | None = None, find=(), gpu: str | None = None, llm: str | None = None, project: Project | None = None, extra=(), check_domain: bool = True) -> Solution:
    """Solve `model`: `given` maps names to values ('10ms', 128 in the display unit, or base-unit Fractions)."""
    return solve_query(model, _catalog(model, project), _query(model, given, find, gpu, llm, extra, check_domain))


def ask(model: Model, question: str, given: dict | None = None, gpu: str | None = None, llm: str | None = None, project: Project | None = None) -> Answer:
    """Answer one of the model's questions; `given` as for solve()."""
    return ask_query(model, _catalog(model, project), question, _query(model, given, (), gpu, llm))


def run_checks(model: Model, project: Project | None = None, gpu: str | None = None, llm: str | None = None) -> list[CheckOutcome]:
    """Solve the model forward and answer its questions (errors raise), then run every check."""
    catalog = _catalog(model, project)
    gpu, llm = (gpu if model.gpu else None), (llm if model.llm else None)
    solve_query(model, catalog, Query((), (), gpu, llm))
    for q in model.questions:
        ask_query(model, catalog, q, Query((), (), gpu, llm))
    return [run_check(model, c, catalog, gpu, llm) for c in model.checks]
