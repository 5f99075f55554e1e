"""`chainc build`: check and solve models, then write their outputs atomically.

Until the document backends land, the output is each model's solution as JSON
(`exports/<model>.json`): every variable, table, question answer and check.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .checks import run_checks
from .errors import SolveError
from .project import Project
from .solve import ask, solve


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename: never a half-written output."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def model_report(project: Project, name: str) -> dict:
    from .cli import solution_json

    model = project.model(name)
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
        raise SolveError(f"{len(failed)} check(s) of {name} failed: {failed[0].lines[0]}", failed[0].check.loc, "run chainc check " + name)
    return data


def build(project: Project, names: list[str], outdir: Path) -> list[Path]:
    reports = {name: model_report(project, name) for name in names}  # everything first: no partial output on error
    written = []
    for report in reports.values():
        path = outdir / f"{report['model']}.json"
        write_atomic(path, (json.dumps(report, indent=2, sort_keys=True) + "\n").encode())
        written.append(path)
    return written
