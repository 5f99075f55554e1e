"""JSON reports: each model's solution, question answers and checks, as `<model>.json`."""

from __future__ import annotations

import json
from pathlib import Path

from ..checks import run_checks
from ..errors import SolveError
from ..ir import Model
from ..solve import ask, solve
from . import BuildOptions, write_atomic


def report(project, model: Model) -> dict:
    from ..cli import solution_json

    data = solution_json(solve(model, project=project))
    data["title"] = model.title
    data["answers"] = {}
    for q in model.questions:
        a = ask(model, q, project=project)
        var = model.variables[a.question.find]
        data["answers"][q] = {"name": var.name, "value": float(var.to_display(a.value)), "unit": var.unit}
    outcomes = run_checks(model, project)
    data["checks"] = [{"about": o.check.about, "ok": o.ok, "lines": list(o.lines)} for o in outcomes]
    failed = [o for o in outcomes if not o.ok]
    if failed:
        raise SolveError(f"{len(failed)} check(s) of {model.name} failed: {failed[0].lines[0]}", failed[0].check.loc, "run chainc check " + model.name)
    return data


def build(project, models: list[Model], fmt: str, options: BuildOptions) -> list[Path]:
    reports = [report(project, m) for m in models]  # everything first: no partial output on error
    written = []
    for data in reports:
        path = options.out / f"{data['model']}.json"
        write_atomic(path, (json.dumps(data, indent=2, sort_keys=True) + "\n").encode())
        written.append(path)
    return written
