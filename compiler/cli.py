"""The command line: parse arguments, call the pipeline, print. The only place that exits."""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from . import __version__
from .api import ask, solve
from .backends.json_report import solution_json
from .errors import ArgumentError, ChaincError
from .format import fmt
from .project import Project, bundled_root, display_path
from .report import evaluate
from .results import Answer, Solution
from .schema import MODEL_SCHEMA
from .textout import plain

EXAMPLES = """\
examples:
  chainc list                                   models, GPUs and LLMs
  chainc check                                  run every model's checks
  chainc solve goodput                          solve forward from the defaults
  chainc solve goodput --given batch=128        change an input
  chainc solve goodput --find batch --given tpot=10ms    solve backwards
  chainc solve goodput --question max_batch --gpu h200   ask a question on another GPU
  chainc solve kv-ceiling --llm llama-3.1-70b --explain  show every step
  chainc build                                  check and solve every model into exports/
  chainc init my-project                        start a project of your own chains
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="chainc", description="A compiler for chains of LLM-serving capacity math.", epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"chainc {__version__} (bundled library: {bundled_root()})")
    p.add_argument("--root", metavar="DIR", help="the project folder (default: $CHAINC_ROOT, else the nearest folder upward with chainc.toml or models/)")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser(
        "list",
        help="list models, GPUs and LLMs, and where each comes from",
        description="List the project's models and the catalog's GPUs and LLMs, with the folder each comes from (the project's own, or the bundled library).",
        epilog="example: chainc list --json",
    )
    s.add_argument("--json", action="store_true", help="print JSON")

    s = sub.add_parser(
        "init",
        help="start a project: chainc.toml and models/ with an example chain",
        description="Write chainc.toml and models/ with one commented example chain that uses the bundled catalog. Nothing else is written, and nothing is overwritten.",
        epilog="example: chainc init my-project && cd my-project && chainc check",
    )
    s.add_argument("dir", nargs="?", default=".", metavar="DIR", help="the folder (default: the working folder)")

    s = sub.add_parser(
        "check",
        help="load, unit-check and run every check of models",
        description="Load and unit-check models and run their checks. Exit 0: all good; 1: a check failed; 2: a model error.",
        epilog="example: chainc check goodput kv-ceiling",
    )
    s.add_argument("models", nargs="*", metavar="MODEL", help="model names or paths (default: all of models/)")
    s.add_argument("--gpu", help="run on this GPU instead of each model's own")
    s.add_argument("--llm", help="run on this LLM instead of each model's own")
    s.add_argument("--json", action="store_true", help="print JSON: each model and each check")

    s = sub.add_parser(
        "solve",
        help="solve a model in any direction",
        description="Solve a model. Defaults are inputs; --given fixes a value, --find makes a variable unknown; --question answers a named question.",
        epilog="examples:\n  chainc solve goodput --given batch=128\n  chainc solve goodput --find batch --given tpot=10ms\n  chainc solve p99-knee --question max_utilization --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("model", metavar="MODEL", help="a model name in models/ or a path to a model file")
    _query_arguments(s, "")
    s.add_argument("--question", metavar="NAME", help="answer one of the model's questions")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.add_argument("--explain", action="store_true", help="show each step: equation, rearranged form, numbers, result")

    s = sub.add_parser(
        "build",
        help="build models into exports/ (json, xlsx, tex, pdf, py)",
        description="Check and build every model (or the named ones) into exports/. Without --format, every available format is built.",
        epilog="examples:\n  chainc build\n  chainc build goodput --format py --find batch --given tpot=10ms\n  chainc build --format xlsx --out /tmp/out",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("models", nargs="*", metavar="MODEL")
    s.add_argument("--format", action="append", default=[], metavar="FORMAT", help="json, xlsx, tex, pdf or py (repeat for several)")
    s.add_argument("--out", default=None, help="output folder (default: exports/ of the project)")
    s.add_argument("--json", action="store_true", help="print JSON: the files written")
    _query_arguments(s, "py: also compile this query as a function; ")
    s.add_argument("--numpy", action="store_true", help="py: vectorised functions over NumPy arrays")

    s = sub.add_parser(
        "plot", help="draw a model's sweep", description="Draw a model's sweep (as in its derivation sheet) to a PNG, SVG or PDF file.", epilog="example: chainc plot goodput -o goodput.png"
    )
    s.add_argument("model", metavar="MODEL")
    s.add_argument("--sweep", metavar="NAME", help="which sweep (default: the model's first)")
    s.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.pdf")
    s.add_argument("--gpu", help="catalog GPU id")
    s.add_argument("--llm", help="catalog LLM id")
    s.add_argument("--json", action="store_true", help="print JSON: the file written")

    sub.add_parser("schema", help="print the model file's JSON Schema", description="Print the JSON Schema of model files, for editors.", epilog="example: chainc schema > model.schema.json")
    return p


def _query_arguments(s: argparse.ArgumentParser, prefix: str) -> None:
    """--given, --find, --gpu and --llm: a query, as solve and build take it."""
    s.add_argument("--given", action="append", default=[], metavar="NAME=QUANTITY", help=prefix + "fix a value: tpot=10ms, bandwidth=4.8TB/s, batch=128 (a bare number is in the display unit)")
    s.add_argument("--find", action="append", default=[], metavar="NAME", help=prefix + "make NAME unknown (drops its default)")
    s.add_argument("--gpu", help="catalog GPU id (chainc list)")
    s.add_argument("--llm", help="catalog LLM id (chainc list)")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    out = Console(highlight=False, soft_wrap=True)
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    as_json = getattr(args, "json", False)
    # SIGTERM unwinds like an exception, so staging folders and temporary files are removed
    previous = signal.signal(signal.SIGTERM, _terminate) if _main_thread() else None
    try:
        if args.command == "init":
            return cmd_init(args, None, out)
        return COMMANDS[args.command](args, Project(args.root), out)
    except ChaincError as e:
        if as_json:
            print(json.dumps({"error": error_json(e)}, indent=2))
        else:
            err.print(plain(e.render()))
        return e.exit_code
    except OSError as e:  # writing an output (plot -o, a cache): say which file, never a traceback
        message = f"cannot write {display_path(e.filename) if e.filename else 'a file'}: {e.strerror or e}"
        if as_json:
            print(json.dumps({"error": {"kind": "error", "path": e.filename, "line": None, "column": None, "message": message, "hint": "check the path and its permissions"}}, indent=2))
        else:
            err.print(plain(f"error: {message}\nhint: check the path and its permissions"))
        return 2
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        return 130
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _terminate(signum, frame):
    raise KeyboardInterrupt


def error_json(e: ChaincError) -> dict:
    loc = e.loc
    return {"kind": e.kind, "path": loc.path if loc else None, "line": loc.line if loc else None, "column": loc.col if loc else None, "message": e.message, "hint": e.hint}


# --- list --------------------------------------------------------------------------------------


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
            where = f"{r['from']}: {display_path(Path(r['path']).parent)}/"
            if r["overridden"]:
                title, style = "(overridden by the project's own)", "dim"
            elif "error" in r:
                title, style = "error: " + r["error"]["message"], "red"
            else:
                overrides = any(o[key] == r[key] and o["overridden"] for o in rows)
                title, style = r["title"], ""
                where += " (overrides the bundled one)" if overrides else ""
            lines.append((r[key], title, style, where))
        # plain aligned columns, never wrapped or cut: ids and paths are meant to be copied
        w1, w2 = (max((len(x[i]) for x in lines), default=0) for i in (0, 1))
        for entry_id, title, style, where in lines:
            out.print(Text.assemble(plain(entry_id.ljust(w1), "bold"), "  ", plain(title.ljust(w2), style), "  ", plain(where)))
    errors = [r for rows in (models, catalog["gpu"], catalog["llm"]) for r in rows if "error" in r]
    for r in errors:
        e = r["error"]
        out.print()
        out.print(plain(f"{e['path']}:{e['line']}:{e['column']}: error: {e['message']}" + (f"\nhint: {e['hint']}" if e["hint"] else "")))
    return 2 if broken else 0


# --- check -------------------------------------------------------------------------------------


def _hardware(project: Project, args) -> None:
    """--gpu and --llm must name catalog entries, whichever model they are used with."""
    for kind in ("gpu", "llm"):
        chosen = getattr(args, kind, None)
        if chosen is None:
            continue
        if project.catalog.path(kind, chosen) is None:
            import difflib

            ids = project.catalog.ids(kind)
            close = difflib.get_close_matches(chosen, ids, n=1)
            raise ArgumentError(f"unknown {kind.upper()} '{chosen}' (--{kind})", None, f"did you mean {close[0]}?" if close else f"{kind.upper()}s: {', '.join(ids)} (chainc list)")


def cmd_check(args, project: Project, out: Console) -> int:
    """Each model in turn: a broken one is reported (on stderr) with its error, and the others still run."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    _hardware(project, args)
    names = args.models or project.model_names()
    if not names:
        raise ArgumentError(f"no models in {display_path(project.own.models)}", None, "add a model file there, or start from `chainc init`")
    failed = total = broken = 0
    report = []
    for name in names:
        entry = {"name": name}
        try:
            model = project.model(name)
            entry.update(name=model.name, path=model.path)
            evaluated = evaluate(model, project.catalog, args.gpu, args.llm, source=project.source)
            for answer in evaluated.answers.values():  # every question must have its answer on this hardware
                if isinstance(answer, ChaincError):
                    raise answer
            outcomes = evaluated.checks
        except ChaincError as e:
            broken += 1
            entry["error"] = error_json(e)
            report.append(entry)
            if not args.json:
                err.print(plain(e.render()))
            continue
        bad = [o for o in outcomes if not o.ok]
        total += len(outcomes)
        failed += len(bad)
        entry["ok"] = not bad
        entry["checks"] = [{"line": o.check.loc.line, "about": o.check.about, "ok": o.ok, "lines": list(o.lines)} for o in outcomes]
        report.append(entry)
        if args.json:
            continue
        mark = Text("ok", style="green") if not bad else Text("FAIL", style="red")
        out.print(Text.assemble(mark, f"  {model.name}: {len(outcomes) - len(bad)}/{len(outcomes)} checks"))
        for o in bad:
            out.print(plain(f"      {o.check.loc}: {o.check.about or 'check'}"))
            for line in o.lines:
                out.print(plain(f"        {line}"))
    code = 2 if broken else 1 if failed else 0
    if args.json:
        print(json.dumps({"models": report, "passed": total - failed, "failed": failed, "broken": broken}, indent=2))
    else:
        out.print(f"{total - failed} passed, {failed} failed" + (f", {broken} model{'s' if broken > 1 else ''} with errors" if broken else ""))
    return code


# --- solve -------------------------------------------------------------------------------------


def _givens(items: list[str]) -> dict[str, str]:
    given = {}
    for item in items:
        if "=" not in item:
            raise ArgumentError(f"--given {item}: expected NAME=QUANTITY", None, "for example --given tpot=10ms")
        name, value = (s.strip() for s in item.split("=", 1))
        if not name or not value:
            raise ArgumentError(f"--given {item}: expected NAME=QUANTITY", None, "both sides are needed, for example --given tpot=10ms")
        if name in given:
            raise ArgumentError(f"--given {name} appears twice ({given[name]} and {value})", None, "give each variable once")
        given[name] = value
    return given


def _nonempty(args, *names: str) -> None:
    """An option that is present must say something: --gpu '' is a mistake, not an absence."""
    for name in names:
        value = getattr(args, name, None)
        values = value if isinstance(value, list) else [value]
        if any(v is not None and not str(v).strip() for v in values):
            raise ArgumentError(f"--{name} needs a value, got an empty one", None, f"drop --{name}, or give it a value (chainc {args.command} --help)")


def _finds(model, finds: list[str]) -> tuple[str, ...]:
    """--find frees an input: naming a computed variable (already found) or one twice is a mistake."""
    for i, name in enumerate(finds):
        var = model.variables.get(name)
        if var is not None and var.default is None:
            inputs = ", ".join(n for n, v in model.variables.items() if v.default is not None)
            raise ArgumentError(f"--find {name}: {name} is computed by the equations already", None, f"--find frees an input (one with a default): {inputs}")
        if name in finds[:i]:
            raise ArgumentError(f"--find {name} appears twice", None, "name each variable once")
    return tuple(finds)


def cmd_solve(args, project: Project, out: Console) -> int:
    _nonempty(args, "gpu", "llm", "question", "find")
    _hardware(project, args)
    model = project.model(args.model)
    given = _givens(args.given)
    answer = None
    if args.question is not None:
        if args.find:
            raise ArgumentError("--question and --find do not go together", None, "a question says what it finds")
        answer = ask(model, args.question, given, gpu=args.gpu, llm=args.llm, project=project)
        solution = answer.solution
    else:
        solution = solve(model, given, _finds(model, args.find), gpu=args.gpu, llm=args.llm, project=project)
    if args.json:
        print(json.dumps(solution_json(solution, answer), indent=2))
        return 0
    _print_solution(out, solution, answer, args.explain)
    return 0


def _print_solution(out: Console, s: Solution, answer: Answer | None, explain: bool) -> None:
    m = s.model
    hardware = ", ".join(e.title for e in (s.gpu, s.llm) if e)
    out.print(Text.assemble(plain(m.title, "bold"), plain(f" ({m.name}{', ' + hardware if hardware else ''})")))
    if explain:
        _explain(out, s)
    t = RichTable(show_edge=False, box=None, pad_edge=False)
    for col in ("", "name", "value", "unit", "description"):
        t.add_column(col, justify="right" if col == "value" else "left")
    for n, v in m.variables.items():
        kind = "answer" if answer is not None and n == answer.question.find else "given" if n in s.given else "input" if n in s.plan.known else "numeric" if n in s.numeric else ""
        t.add_row(kind, plain(n), fmt(s.display(n), v.digits), plain(v.unit), plain(v.description))
    out.print(t)
    for name, rows in s.tables.items():
        table = m.tables[name]
        rt = RichTable(title=plain(f"table {name}: {table.about}"), title_justify="left", show_edge=False, box=None, pad_edge=False)
        rt.add_column("i", justify="right")
        for c in table.columns:
            rt.add_column(plain(f"{c.name}\n{c.unit}"), justify="right")
        for i, row in enumerate(rows, 1):
            rt.add_row(str(i), *[fmt(c.to_display(row[c.name])) for c in table.columns])
        out.print()
        out.print(rt)
    if s.numeric:
        out.print(plain(f"\nsolved numerically: {', '.join(sorted(s.numeric))} ({next(iter(s.numeric.values()))})"))
    if answer is not None:
        q, var = answer.question, m.variables[answer.question.find]
        out.print()
        out.print(Text.assemble(plain(q.name, "bold"), plain(f": {q.ask or q.condition_text}")))
        how = f" ({answer.how})" if answer.how and answer.how != "the boundary" else ""
        out.print(plain(f"  {var.name} = {fmt(var.to_display(answer.value), 6)} {var.unit}".rstrip() + f"{how}; {q.condition_text} holds there"))


def _explain(out: Console, s: Solution) -> None:
    """The derivation, step by step, as plain text: the same structure the LaTeX sheet prints."""
    from .derivation import text_lines

    out.print()
    for line in text_lines(s):
        out.print(plain(line, "bold" if line.startswith("step ") else ""))


# --- build, schema -------------------------------------------------------------------------------


def cmd_build(args, project: Project, out: Console) -> int:
    from .backends import BuildOptions
    from .build import build

    _nonempty(args, "gpu", "llm", "find", "format", "out")
    _hardware(project, args)
    names = args.models or project.model_names()
    if not names:
        raise ArgumentError(f"no models in {display_path(project.own.models)}", None, "add a model file there, or start from `chainc init`")
    outdir = Path(args.out) if args.out is not None else project.exports
    formats = [f.strip() for item in args.format for f in item.split(",") if f.strip()]
    if args.format and not formats:
        raise ArgumentError("--format needs a format", None, "formats: json, xlsx, tex, pdf, py")
    options = BuildOptions(outdir, tuple(args.find), _givens(args.given), args.numpy, args.gpu, args.llm)
    progress = (lambda msg: None) if args.json else (lambda msg: out.print(plain(msg)))
    written = build(project, names, formats, options, notify=progress)
    if args.json:
        print(json.dumps({"written": [str(p) for p in written]}, indent=2))
    else:
        out.print(plain(f"wrote {len(written)} file{'s' if len(written) != 1 else ''} into {display_path(outdir)}/"))
    return 0


def cmd_plot(args, project: Project, out: Console) -> int:
    from .backends.plot import FORMATS, plot
    from .sweep import run_sweep

    _nonempty(args, "gpu", "llm", "sweep", "output")
    _hardware(project, args)
    model = project.model(args.model)
    if Path(args.output).suffix.lower() not in FORMATS:
        raise ArgumentError(f"cannot draw to '{Path(args.output).name}'", None, "write FILE.png, FILE.svg or FILE.pdf")
    if not model.sweeps:
        raise ArgumentError(f"model '{model.name}' has no sweep to draw", model.loc, "add one under sweeps: (see models/goodput.yaml)")
    name = args.sweep or next(iter(model.sweeps))
    if name not in model.sweeps:
        raise ArgumentError(f"model '{model.name}' has no sweep '{name}'", None, f"sweeps: {', '.join(model.sweeps)}")
    result = run_sweep(model, model.sweeps[name], project.catalog, args.gpu if model.gpu else None, args.llm if model.llm else None)
    path = plot(model, result, Path(args.output))
    if args.json:
        print(json.dumps({"written": [str(path)]}, indent=2))
    else:
        out.print(plain(f"wrote {path}"))
    return 0


def cmd_init(args, project: Project | None, out: Console) -> int:
    from .init import init

    for path in init(Path(args.dir)):
        out.print(plain(f"wrote {display_path(path)}"))
    out.print(plain(f"next: cd {args.dir} && chainc check && chainc solve example" if args.dir != "." else "next: chainc check && chainc solve example"))
    return 0


def cmd_schema(args, project: Project, out: Console) -> int:
    print(json.dumps(MODEL_SCHEMA, indent=2))
    return 0


COMMANDS = {"list": cmd_list, "check": cmd_check, "solve": cmd_solve, "build": cmd_build, "plot": cmd_plot, "schema": cmd_schema}

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
