"""`chainc list`: every model and catalog entry, with the folder each comes from."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..errors import ChaincError
from ..project import Project, display_path
from ..textout import plain
from .output import error_json


def cmd_list(args, project: Project, out: Console) -> int:
    """Every model and catalog entry with its folder; a broken model is listed with its error."""
    models, broken = [], 0
    for name, path, layer, overridden in project.all_models():
        row = {"name": name, "path": display_path(path), "from": layer.label, "overridden": overridden}
        if not overridden:
            try:
                row["title"] = project.load(path).title
            except ChaincError as e:
                row["error"] = error_json(e)
                broken += 1
        models.append(row)
    catalog = {}
    for kind in ("gpu", "llm"):
        rows = []
        for entry_id, path, label, overridden in project.catalog.files(kind):
            row = {"id": entry_id, "path": display_path(path), "from": label, "overridden": overridden}
            if not overridden:
                try:
                    row["title"] = project.catalog.entry(kind, entry_id).title
                except ChaincError as e:
                    row["error"] = error_json(e)
                    broken += 1
            rows.append(row)
        catalog[kind] = rows
    if args.json:
        print(
            json.dumps(
                {"root": str(project.root), "layers": [{"from": layer.label, "path": str(layer.root)} for layer in project.layers], "models": models, "gpus": catalog["gpu"], "llms": catalog["llm"]},
                indent=2,
            )
        )
        return 2 if broken else 0
    out.print(Text.assemble(("project ", "bold"), plain(str(project.root) + (" (the bundled library alone: no project found)" if project.bundled_only else ""))))
    for heading, key, rows in (("models", "name", models), ("GPUs", "id", catalog["gpu"]), ("LLMs", "id", catalog["llm"])):
        out.print()
        out.print(Text(heading, style="bold"))
        lines = []
        for r in rows:
            # the bundled library's folder is one for every row (chainc --version, list --json name it): after a pip
            # install it is a long site-packages path, which would wrap every row in 80 columns
            where = r["from"] if r["from"] == "bundled" else f"{r['from']}: {display_path(Path(r['path']).parent)}/"
            if r["overridden"]:
                title, style = "(overridden by the project's own)", "dim"
            elif "error" in r:
                title, style = "error: " + r["error"]["message"], "red"
            else:
                overrides = any(o[key] == r[key] and o["overridden"] for o in rows)
                title, style = r["title"], ""
                where += " (overrides the bundled one)" if overrides else ""
            lines.append((r[key], title, style, where))
        # plain aligned columns: ids and paths are meant to be copied, so on a narrow terminal only titles are cut
        w1, w2 = (max((len(x[i]) for x in lines), default=0) for i in (0, 1))
        if out.is_terminal:
            w2 = max(min(w2, out.width - w1 - 4 - max((len(x[3]) for x in lines), default=0)), 12)
        for entry_id, title, style, where in lines:
            title = title if len(title) <= w2 else title[: w2 - 1] + "…"
            out.print(Text.assemble(plain(entry_id.ljust(w1), "bold"), "  ", plain(title.ljust(w2), style), "  ", plain(where)))
    errors = [r for rows in (models, catalog["gpu"], catalog["llm"]) for r in rows if "error" in r]
    for r in errors:
        e = r["error"]
        out.print()
        out.print(plain(f"{e['path']}:{e['line']}:{e['column']}: error: {e['message']}" + (f"\nhint: {e['hint']}" if e["hint"] else "")))
    return 2 if broken else 0
