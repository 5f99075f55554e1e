"""`chainc show MODEL`: what a model is, reads and asks, without solving it by hand."""

from __future__ import annotations

import json

from rich.console import Console
from rich.text import Text

from ..api import solve
from ..errors import ChaincError
from ..format import fmt
from ..numbers import in_unit
from ..project import Project
from ..textout import plain
from .args import hardware, nonempty


def describe(model, values: dict | None) -> dict:
    """The model's parts as data: what `show` prints and `show --json` writes."""

    def shown(name, q):
        if values is None or name not in values:
            return None
        return fmt(in_unit(values[name], q.factor), getattr(q, "digits", None))

    inputs, results = [], []
    for n, v in model.variables.items():
        row = {"name": n, "unit": v.unit, "description": v.description, "domain": v.domain.describe(v)}
        if v.default is not None:
            src = v.default.name if getattr(v.default, "is_Symbol", False) and v.default.name in model.params else "default"
            inputs.append({**row, "value": shown(n, v), "from": src})
        else:
            results.append({**row, "value": shown(n, v)})
    return {
        "name": model.name,
        "title": model.title,
        "about": model.about,
        "path": model.path,
        "uses": {k: v for k, v in (("gpu", model.gpu), ("llm", model.llm)) if v} | {"models": {a: m.name for a, m in model.imports}},
        "reads": [{"name": n, "unit": p.unit, "description": p.description, "value": shown(n, p)} for n, p in model.params.items()],
        "inputs": inputs,
        "results": results,
        "tables": [{"name": t.name, "about": t.about, "rows": t.rows_text, "columns": [{"name": c.name, "unit": c.unit, "formula": c.formula} for c in t.columns]} for t in model.tables.values()],
        "questions": [{"name": q.name, "ask": q.ask, "find": q.find, "such_that": q.condition_text, "seek": q.seek} for q in model.questions.values()],
        "sweeps": [{"name": s.name, "over": s.over, "from": float(s.start), "to": float(s.stop), "step": float(s.step), "show": list(s.show)} for s in model.sweeps.values()],
        "checks": [{"line": c.loc.line, "about": c.about, "expect": {e.name: e.written for e in c.expect}, "that": c.that_text or None, "question": c.question} for c in model.checks],
    }


def cmd_show(args, project: Project, out: Console) -> int:
    nonempty(args, "gpu", "llm")
    hardware(project, args)
    model = project.model(args.model)
    try:
        values = solve(model, gpu=args.gpu, llm=args.llm, project=project).values
    except ChaincError:
        values = None  # the structure is still worth showing; `chainc solve` says what fails
    d = describe(model, values)
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    out.print(Text.assemble(plain(d["title"], "bold"), plain(f" ({d['name']}, {d['path']})")))
    if d["about"]:
        out.print(plain(d["about"]))
    uses = [f"{k} {v}" for k, v in d["uses"].items() if k != "models"] + [f"model {m} as {a}" for a, m in d["uses"]["models"].items()]
    if uses:
        out.print(plain("uses: " + ", ".join(uses)))
    sections = [
        ("reads", [(r["name"], r["value"] or "", r["unit"], r["description"]) for r in d["reads"]]),
        ("inputs", [(r["name"], r["value"] or "", r["unit"], r["description"] + (f" (from {r['from']})" if r["from"] != "default" else "")) for r in d["inputs"]]),
        ("results", [(r["name"], r["value"] or "", r["unit"], r["description"]) for r in d["results"]]),
        ("tables", [(t["name"], f"rows = {t['rows']}", "", t["about"] + ": " + ", ".join(c["name"] for c in t["columns"])) for t in d["tables"]]),
        ("questions", [(q["name"], f"{q['seek']} {q['find']}", "", f"{q['ask']} (such that {q['such_that']})") for q in d["questions"]]),
        ("sweeps", [(s["name"], f"{s['over']} {fmt(s['from'])}..{fmt(s['to'])}", "", "shows " + ", ".join(s["show"])) for s in d["sweeps"]]),
        ("checks", [(f"line {c['line']}", ", ".join(f"{k} = {v}" for k, v in c["expect"].items()) or c["that"] or "", "", c["about"]) for c in d["checks"]]),
    ]
    for heading, rows in sections:
        if not rows:
            continue
        out.print()
        out.print(Text(heading, style="bold"))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        for r in rows:
            out.print(plain("  " + "  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3]))
    return 0
