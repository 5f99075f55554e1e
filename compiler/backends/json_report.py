"""JSON: a solution as `chainc solve --json` prints it, and reports (`<model>.json`) with answers and checks."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ..calibrated import IDEAL, Calibration
from ..display import label
from ..errors import ChaincError, CheckFailed
from ..format import sci
from ..numbers import display, exact
from ..results import Answer, CatalogReport, Report, Solution
from . import BuildOptions, write_atomic


def dumps(data, indent: str = "") -> str:
    """JSON indented like json.dumps(indent=2), but a list of flat rows one row a line.

    A table of 200,000 rows is 2 million lines otherwise, and indenting disables the C encoder:
    each row encoded compactly takes a fifth of the time, and reads as a table.
    """
    inner = indent + "  "
    if isinstance(data, dict) and data:
        items = (f"{inner}{json.dumps(str(k))}: {dumps(v, inner)}" for k, v in data.items())
        return "{\n" + ",\n".join(items) + f"\n{indent}}}"
    if isinstance(data, list) and data:
        flat = all(not isinstance(x, (dict, list)) or (isinstance(x, dict) and not any(isinstance(v, (dict, list)) for v in x.values())) for x in data)
        parts = (f"{inner}{json.dumps(x) if flat and isinstance(x, dict) else dumps(x, inner)}" for x in data)
        return "[\n" + ",\n".join(parts) + f"\n{indent}]"
    return json.dumps(data)


def number(q, base) -> float | str:
    """A value in its display unit; beyond float range, a string of 16 significant figures (JSON has no Infinity)."""
    if getattr(q, "choices", ()):
        return label(base, q)  # a choice's name, not its code
    x = display(base, q.factor)
    return x if isinstance(x, float) and math.isfinite(x) else sci(x, 16)


def _rows(columns, rows: list) -> list:
    """A table's rows in display units; each column's factor made exact once, not once per cell."""
    cols = [(c.name, _Factor(exact(c.factor))) for c in columns]
    return [{name: number(f, row[name]) for name, f in cols} for row in rows]


class _Factor:
    __slots__ = ("factor",)

    def __init__(self, factor):
        self.factor = factor


def solution_json(solution: Solution, answer: Answer | None = None) -> dict:
    """Every variable in its display unit, tables, and a question's answer: what `solve --json` prints."""
    m = solution.model
    data = {
        "model": m.name,
        "gpu": solution.gpu.id if solution.gpu else None,
        "llm": solution.llm.id if solution.llm else None,
        "values": {n: {"value": number(v, solution.values[n]), "unit": v.unit} for n, v in m.variables.items()},
        "numeric": sorted(solution.numeric),
        "notes": list(solution.notes),
        "tables": {name: _rows(m.tables[name].columns, rows) for name, rows in solution.tables.items()},
        "warnings": warnings_json(solution.warnings),
    }
    if answer is not None:
        var = m.variables[answer.question.find]
        data["question"] = answer.question.name
        data["answer"] = {"name": var.name, "value": number(var, answer.base), "unit": var.unit, "boundary": number(var, answer.base_boundary), "how": answer.rounding.how, **limits(var, answer)}
        data["answer"]["warnings"] = warnings_json(answer.warnings)
    return data


def warnings_json(warned) -> list:
    """Physical limits that fail (physical.LimitWarning): each with its sides' values and the names it reads."""
    return [{"limit": w.name, "condition": w.condition, "about": w.about, "left": w.left, "right": w.right, "affects": list(w.affects), "message": w.message} for w in warned]


def limits(var, answer) -> dict:
    """A question with several conditions: each one's own limit (null: it sets none), and the binding ones."""
    if not answer.limits:
        return {}
    return {
        "binding": list(answer.binding),
        "limits": [{"label": x.label, "condition": x.condition_text, "value": None if x.base is None else number(var, x.base), "kind": x.kind} for x in answer.limits],
    }


def calibration_json(c: Calibration | None) -> dict:
    """What the numbers are: the calibration's name, sentence, fitted values and figures (null: uncalibrated), and the sentence."""
    if c is None:
        return {"calibration": None, "calibration_note": IDEAL}
    fitted = {f.name: {"value": f.value, "unit": f.unit, "stderr": f.stderr, "interval_95": None if f.low is None else [f.low, f.high], "at_bound": f.at_bound} for f in c.fitted}
    figures = {"mape_percent": c.mape, "worst_percent": c.worst, "roofline_mape_percent": c.roofline_mape, "holdout_mape_percent": c.holdout_mape, "holdout_rows": c.holdout_rows}
    about = {"data": c.data, "source": c.source, "engine": c.engine, "hardware": c.hardware, "metric": c.metric}
    return {"calibration": {"name": c.name, "file": c.file, "model": c.model, "sentence": c.sentence, "runs": c.count, "fitted": fitted, **figures, **about}, "calibration_note": c.sentence}


def report_json(report: Report) -> dict:
    m = report.model
    data = solution_json(report.solution)
    data.update(calibration_json(report.calibration))
    data["title"] = m.title
    data["answers"] = {}
    for q, a in report.answers.items():
        if isinstance(a, ChaincError):
            data["answers"][q] = {"error": a.message}
            continue
        var = m.variables[a.question.find]
        data["answers"][q] = {"name": var.name, "value": number(var, a.base), "unit": var.unit, **limits(var, a), "warnings": warnings_json(a.warnings)}
    data["searches"] = {name: {"error": c.message} if isinstance(c, ChaincError) else search_json(c) for name, c in report.searches.items()}
    data["checks"] = [{"about": o.check.about, "ok": o.ok, "applies": o.applies, "lines": list(o.lines)} for o in report.checks]
    return data


def search_json(c, table: int | None = None) -> dict:
    """A search over configurations: the best (or the frontier), the ranked table, what binds, why the others fail."""
    s, m = c.search, c.model

    def value(name, base):
        return None if base is None else number(m.variables[name], base)

    def row(i: int) -> dict:
        out = {a.name: (v if a.catalog else value(a.name, v)) for a, v in zip(s.over, c.configs[i])}
        out.update((n, value(n, c.inner[k][i])) for k, n in enumerate(c.inner_names()))
        out.update((g.name, value(g.name, c.goals[k][i])) for k, g in enumerate(s.goals))
        return out

    counts: dict = {}
    for f in c.failed:
        if f:
            counts[f] = counts.get(f, 0) + 1
    rows = c.order if c.frontier else c.order[: table or s.show]
    return {
        "kind": "frontier" if c.frontier else "best",
        "goals": [{"name": g.name, "seek": g.seek, "unit": m.variables[g.name].unit} for g in s.goals],
        "units": {n: m.variables[n].unit for n in (*(a.name for a in s.over if not a.catalog), *c.inner_names())},
        "sentence": c.sentence(),
        "configurations": len(c.configs),
        "feasible": c.feasible,
        "best": None if c.best is None else row(c.best),
        "table": [{"rank": k + 1, **row(i), "limits_failing": [w.name for w in c.limits.get(i, ())]} for k, i in enumerate(rows)],
        "binding": [{"condition": label, "rules_out": n} for label, n in c.binding],
        "placement": {a.name: p for a, p in zip(s.over, c.placement) if not a.catalog},
        "failing": counts,
        "closest": None if c.closest is None else {**row(c.closest), "why": c.why[c.closest]},
        "warnings": warnings_json(c.warnings),
    }


def build(reports: list[Report], catalog: CatalogReport, fmt: str, options: BuildOptions) -> list[Path]:
    for r in reports:  # everything first: no partial output on error
        failed = [o for o in r.checks if not o.ok]
        if failed:  # on other hardware a check is a reference (ok, not applicable), never a failure
            bad = next(line for line in failed[0].lines if not line.startswith("ok"))
            raise CheckFailed(f"{len(failed)} check(s) of {r.model.name} failed: {bad}", failed[0].check.loc, f"run: chainc check {r.source}")
        for a in r.answers.values():
            if isinstance(a, ChaincError):
                raise a
    written = []
    for r in reports:
        path = options.out / f"{r.model.name}.json"
        write_atomic(path, (json.dumps(report_json(r), indent=2, sort_keys=True) + "\n").encode())
        written.append(path)
    return written
