"""The Python API: models by name or object, values as people write them, the project found as the CLI finds it.

    import chainc
    r = chainc.solve("goodput", batch=128, gpu="h200")
    r["tpot"]                   # 10.5 millisecond / token (a pint Quantity)
    r.value("tpot")             # 10.504... (a float in the display unit)
    r.display("tpot")           # 10.5, rounded as the CLI prints it
    chainc.ask("goodput", "max_batch").value        # 64 (an int: batch is a whole number)
    chainc.evaluate("goodput")  # a Report: values, questions, checks

The solver itself (solver.py) takes a model, a catalog and a Query in base units;
this layer parses values ('10ms', 128 in the display unit) and finds the project.
"""

from __future__ import annotations

from .chosen import Chosen
from .errors import ArgumentError, ChaincError, spelled
from .ir import Model
from .project import Project
from .quantities import given_value
from .results import Answer, CheckOutcome, Query, Report, Solution
from .searches import search_query
from .solver import ask_query, solve_query


def _resolve(model: Model | str, project: Project | None) -> tuple[Model, Project | None]:
    """A model object, or a name / path looked up in the project (found as the CLI finds it)."""
    if isinstance(model, Model):
        return model, project
    project = project or Project()
    return project.model(str(model)), project


def _catalog(model: Model, project: Project | None):
    if project is None and (model.gpu or model.llm or model.imports):
        project = Project()
    return project.catalog if project is not None else None


def query_of(model: Model, given: dict | None, find=(), gpu=None, llm=None, extra=(), check_domain=True) -> Query:
    values = tuple((n, given_value(model, n, v)) for n, v in (given or {}).items())
    find = (find,) if isinstance(find, str) else tuple(find)  # find="batch" is one name, not five letters
    return Query(values, find, gpu, llm, tuple(extra), check_domain)


def solve(
    model: Model | str,
    given: dict | None = None,
    find=(),
    gpu: str | None = None,
    llm: str | None = None,
    project: Project | None = None,
    extra=(),
    check_domain: bool = True,
    calibration: str | None = None,
    **values,
) -> Solution:
    """Solve a model (an object, or a name such as "goodput") forward, or backwards for `find`.

    Values are given as keywords or in `given`: '10ms', '4.8 TB/s', or a number in the
    variable's display unit (128); exact Fractions are base units, as Solution.values holds them.
    `calibration` names calibrations/NAME.yaml (chainc fit --save NAME): its fitted values are
    given (yours win), and the solution's notes say what it was calibrated to.
    """
    model, project = _resolve(model, project)
    given = {**(given or {}), **values}
    if calibration is None:
        return solve_query(model, _catalog(model, project), query_of(model, given, find, gpu, llm, extra, check_domain))
    from dataclasses import replace

    from .fit.calibration import given as calibrated
    from .fit.calibration import load, sentence

    project = project or Project()
    data = load(project, calibration)
    solution = solve_query(model, _catalog(model, project), query_of(model, calibrated(model, data, given), find, gpu, llm, extra, check_domain))
    return replace(solution, notes=(*solution.notes, sentence(data, solution)))


def ask(model: Model | str, question: str, given: dict | None = None, gpu: str | None = None, llm: str | None = None, project: Project | None = None, **values) -> Answer | Chosen:
    """Answer one of the model's questions (the largest batch that meets the target, ...); values as for solve().

    A question over configurations or with an objective (`over:`, `seek: min tpot`) and a frontier
    answer with a Chosen: `.value` (the best value, or the best configuration as a dict), `.table(n)`
    (the ranked rows, or the frontier's), `.sentence()`, `.solution` (the model at the best one).
    A search that varies the GPU (or LLM) chooses it: `gpu=` (`llm=`) does not apply to it.
    """
    model, project = _resolve(model, project)
    given = {**(given or {}), **values}
    if question in model.searches:
        varied = [k for k, chosen in (("gpu", gpu), ("llm", llm)) if chosen and k in model.searches[question].axes]
        if varied:
            raise ArgumentError(
                f"question {question} chooses the {varied[0].upper()} itself (over: {varied[0]})", None, f"drop {spelled('hardware', kind=varied[0])}, or list the entries to search under over:"
            )
        return search_query(model, _catalog(model, project), question, query_of(model, given, (), gpu, llm))
    return ask_query(model, _catalog(model, project), question, query_of(model, given, (), gpu, llm))


def evaluate(model: Model | str, gpu: str | None = None, llm: str | None = None, project: Project | None = None, given: dict | None = None, calibration: str | None = None, **values) -> Report:
    """Everything chainc computes of a model at once: the solution, every question's answer, every check, every sweep.

    `calibration` names calibrations/NAME.yaml: its fitted values are given (yours win), and the Report carries it
    (`report.calibration`, `report.calibration_text`), as `chainc build --calibration NAME` prints it.
    """
    from .report import evaluate as _evaluate

    model, project = _resolve(model, project)
    project = project or Project()
    data = None
    if calibration is not None:
        from .fit.calibration import load

        data = load(project, calibration)
    return _evaluate(model, project.catalog, gpu, llm, {**(given or {}), **values}, source=project.source, calibration=data)


def explain(solution: Solution) -> str:
    """The derivation of a solution as text: every step with its formula and numbers (`chainc solve --explain`)."""
    from .backends.text import text_lines

    return "\n".join(text_lines(solution))


def run_checks(model: Model | str, project: Project | None = None, gpu: str | None = None, llm: str | None = None) -> list[CheckOutcome]:
    """Solve the model forward and answer its questions (errors raise), then run every check: the Report's checks."""
    from .report import evaluate as _evaluate

    model, project = _resolve(model, project)
    report = _evaluate(model, _catalog(model, project), gpu, llm, parts=frozenset({"answers", "checks"}))
    for answer in report.answers.values():
        if isinstance(answer, ChaincError):
            raise answer
    return list(report.checks)
