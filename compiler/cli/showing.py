"""`chainc show MODEL`: what a model is, reads and asks, without solving it by hand; `chainc show gpu ID` / `show llm ID`: a catalog entry, every field with its value, unit and source."""

from __future__ import annotations

import difflib
import json

from rich.console import Console
from rich.text import Text

from ..api import solve
from ..catalog import KINDS
from ..display import label
from ..errors import ArgumentError, ChaincError
from ..format import fmt
from ..numbers import in_unit
from ..project import Project, display_path
from ..textout import plain
from .args import hardware, nonempty


def describe(model, values: dict | None) -> dict:
    """The model's parts as data: what `show` prints and `show --json` writes."""

    def shown(name, q):
        if values is None or name not in values:
            return None
        if getattr(q, "choices", ()):
            return label(values[name], q)
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
    if args.model in KINDS:
        return _show_entry(args, project, out)
    if args.entry is not None:
        raise ArgumentError(f"show takes one model name, not '{args.model} {args.entry}'", None, "chainc show MODEL, chainc show gpu ID or chainc show llm ID")
    nonempty(args, "gpu", "llm")
    hardware(project, args)
    try:
        model = project.model(args.model)
    except ChaincError as e:
        kinds = [k for k in KINDS if project.catalog.path(k, args.model) is not None]
        if not kinds:
            raise
        e.hint = " or ".join(f"'{args.model}' is {'a GPU' if k == 'gpu' else 'an LLM'}: chainc show {k} {args.model}" for k in kinds)
        raise
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


def describe_entry(entry, values: dict, catalog) -> dict:
    """A catalog entry as data: every field with its value in its display unit, unit, meaning and source, or its equation."""
    fields = []
    for name, spec in catalog.fields[entry.kind].items():
        v = values.get(name)
        value = None if v is None else in_unit(v, spec.factor)
        source, note = entry.cited.get(name, (None, ""))
        row = {"name": name, "value": int(value) if value is not None and value == int(value) and abs(value) < 2**53 else value, "unit": spec.unit, "description": spec.description}
        if name in entry.derived:
            row["derived"] = entry.derived[name]
        else:
            row |= {"source": source, "note": note or None}
            if name not in entry.cited:
                row["note"] = "not in this architecture"  # an optional field the entry leaves out
        fields.append(row)
    return {"kind": entry.kind, "id": entry.id, "title": entry.title, "about": entry.about, "path": entry.path, "fields": fields, "sources": dict(entry.sources)}


def _show_entry(args, project: Project, out: Console) -> int:
    from ..solver import entry_values

    kind, entry_id = args.model, args.entry
    catalog = project.catalog
    if args.gpu or args.llm:
        raise ArgumentError(f"--gpu and --llm do not apply to chainc show {kind}", None, f"chainc show {kind} ID shows one entry as it is")
    ids = catalog.ids(kind)
    if entry_id is None:
        raise ArgumentError(f"which {kind.upper()}? chainc show {kind} takes an id", None, f"{kind.upper()}s: {', '.join(ids)}")
    entry = catalog.entry(kind, entry_id)
    if entry is None:
        close = difflib.get_close_matches(entry_id, ids, n=3)
        other = [k for k in KINDS if k != kind and catalog.path(k, entry_id) is not None]
        hint = (
            f"'{entry_id}' is {'a GPU' if other == ['gpu'] else 'an LLM'}: chainc show {other[0]} {entry_id}"
            if other
            else (f"did you mean {' or '.join(close)}?" if close else f"{kind.upper()}s: {', '.join(ids)}")
        )
        raise ArgumentError(f"unknown {kind.upper()} '{entry_id}'", None, hint)
    d = describe_entry(entry, entry_values(entry), catalog)
    d["path"] = display_path(entry.path)
    if args.json:
        print(json.dumps(d, indent=2))
        return 0
    out.print(Text.assemble(plain(d["title"], "bold"), plain(f" ({kind} {d['id']}, {d['path']})")))
    if d["about"]:
        out.print(plain(d["about"]))
    typed = [
        (r["name"], _shown(r["value"]), r["unit"], (f"from {r['source']}" if r["source"] else "") + (f": {r['note']}" if r["note"] and r["source"] else r["note"] or ""))
        for r in d["fields"]
        if "derived" not in r
    ]
    derived = [(r["name"], _shown(r["value"]), r["unit"], "= " + r["derived"].split("=", 1)[1].strip()) for r in d["fields"] if "derived" in r]
    sources = [(k, "", "", v) for k, v in d["sources"].items()]
    for heading, rows in (("values", typed), ("derived", derived), ("sources", sources)):
        if not rows:
            continue
        out.print()
        out.print(Text(heading, style="bold"))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        for r in rows:
            cells = [r[i].ljust(widths[i]) for i in range(3) if widths[i]]
            out.print(plain("  " + "  ".join(cells) + "  " + r[3]))
    return 0


def _shown(value) -> str:
    return "none" if value is None else fmt(value)
