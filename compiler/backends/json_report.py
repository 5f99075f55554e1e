"""JSON: a solution as `chainc solve --json` prints it, and reports (`<model>.json`) with answers and checks."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..checks import run_checks
from ..errors import CheckFailed
from ..format import as_float, sci
from ..ir import Model
from ..solve import Answer, Solution, ask, solve
from . import BuildOptions, write_atomic


def number(x) -> float | str:
    """A value for JSON: a number, or, beyond the range of a double (1e400, or a nonzero 1e-400), a string in E notation.

    JSON has no Infinity or NaN, and chainc never writes them: see docs/cli.md.
    """
    f = as_float(x)
    if f is None or not math.isfinite(f):
        return sci(x, 16)
    return f


def solution_json(solution: Solution, answer: Answer | None = None) -> dict:
    """Every variable in its display unit, tables, and a question's answer: what `solve --json` prints."""
    m = solution.model
    data = {
        "model": m.name,
        "gpu": solution.gpu.id if solution.gpu else None,
        "llm": solution.llm.id if solution.llm else None,
        "values": {n: {"value": number(v.to_display(solution.values[n])), "unit": v.unit} for n, v in m.variables.items()},
        "numeric": sorted(solution.numeric),
        "tables": {name: [{c.name: number(c.to_display(row[c.name])) for c in m.tables[name].columns} for row in rows] for name, rows in solution.tables.items()},
    }
    if answer is not None:
        var = m.variables[answer.question.find]
        data["question"] = answer.question.name
        data["answer"] = {"name": var.name, "value": number(var.to_display(answer.value)), "unit": var.unit, "boundary": number(var.to_display(answer.boundary))}
    return data


def report(project, model: Model, gpu: str | None = None, llm: str | None = None) -> dict:
    gpu, llm = (gpu if model.gpu else None), (llm if model.llm else None)
    data = solution_json(solve(model, gpu=gpu, llm=llm, project=project))
    data["title"] = model.title
    data["answers"] = {}
    for q in model.questions:
        a = ask(model, q, gpu=gpu, llm=llm, project=project)
        var = model.variables[a.question.find]
        data["answers"][q] = {"name": var.name, "value": number(var.to_display(a.value)), "unit": var.unit}
    outcomes = run_checks(model, project, gpu=gpu, llm=llm)
    data["checks"] = [{"about": o.check.about, "ok": o.ok, "lines": list(o.lines)} for o in outcomes]
    failed = [o for o in outcomes if not o.ok]
    if failed and not (gpu or llm):  # the card's numbers hold for the model's own hardware only
        bad = next(line for line in failed[0].lines if not line.startswith("ok"))
        raise CheckFailed(f"{len(failed)} check(s) of {model.name} failed: {bad}", failed[0].check.loc, f"run: chainc check {model.path}")
    return data


def build(project, models: list[Model], fmt: str, options: BuildOptions) -> list[Path]:
    reports = [report(project, m, options.gpu, options.llm) for m in models]  # everything first: no partial output on error
    written = []
    for data in reports:
        path = options.out / f"{data['model']}.json"
        write_atomic(path, (json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n").encode())
        written.append(path)
    return written
