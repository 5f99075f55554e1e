"""The command line: parse arguments, call the pipeline, print. The only place that exits."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table as RichTable

from . import __version__
from .backends.json_report import solution_json
from .checks import run_checks
from .errors import ArgumentError, ChaincError
from .format import fmt
from .project import Project
from .schema import MODEL_SCHEMA
from .solve import Answer, Solution, ask, solve

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
"""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="chainc", description="A compiler for chains of LLM-serving capacity math.", epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"chainc {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    s = sub.add_parser("list", help="list models, GPUs and LLMs", description="List the models in models/ and the catalog's GPUs and LLMs.", epilog="example: chainc list --json")
    s.add_argument("--json", action="store_true", help="print JSON")

    s = sub.add_parser(
        "check",
        help="load, unit-check and run every check of models",
        description="Load and unit-check models and run their checks. Exit 0: all good; 1: a check failed; 2: a model error.",
        epilog="example: chainc check goodput kv-ceiling",
    )
    s.add_argument("models", nargs="*", metavar="MODEL", help="model names or paths (default: all of models/)")
    s.add_argument("--gpu", help="run on this GPU instead of each model's own")
    s.add_argument("--llm", help="run on this LLM instead of each model's own")

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
    try:
        return COMMANDS[args.command](args, Project(), out)
    except ChaincError as e:
        err.print(e.render(), markup=False)
        return e.exit_code


# --- list --------------------------------------------------------------------------------------


def cmd_list(args, project: Project, out: Console) -> int:
    models = [project.model(n) for n in project.model_names()]
    catalog = {kind: [(e.id, e.title) for e in project.catalog.entries(kind)] for kind in ("gpu", "llm")}
    if args.json:
        data = {"models": [{"name": m.name, "title": m.title} for m in models]}
        data.update({f"{k}s": [{"id": i, "title": t} for i, t in v] for k, v in catalog.items()})
        print(json.dumps(data, indent=2))
        return 0
    for heading, rows in (("models", [(m.name, m.title) for m in models]), ("GPUs", catalog["gpu"]), ("LLMs", catalog["llm"])):
        t = RichTable(title=heading, title_justify="left", show_header=False, box=None, pad_edge=False)
        t.add_column(style="bold")
        t.add_column()
        for row in rows:
            t.add_row(*row)
        out.print(t)
        out.print()
    return 0


# --- check -------------------------------------------------------------------------------------


def cmd_check(args, project: Project, out: Console) -> int:
    names = args.models or project.model_names()
    failed = 0
    total = 0
    for name in names:
        model = project.model(name)
        outcomes = run_checks(model, project, gpu=args.gpu if model.gpu else None, llm=args.llm if model.llm else None)
        bad = [o for o in outcomes if not o.ok]
        total += len(outcomes)
        failed += len(bad)
        mark = "[green]ok[/]" if not bad else "[red]FAIL[/]"
        out.print(f"{mark}  {model.name}: {len(outcomes) - len(bad)}/{len(outcomes)} checks")
        for o in bad:
            out.print(f"      {o.check.loc}: {o.check.about or 'check'}", markup=False)
            for line in o.lines:
                out.print(f"        {line}", markup=False)
    out.print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


# --- solve -------------------------------------------------------------------------------------


def _givens(items: list[str]) -> dict[str, str]:
    given = {}
    for item in items:
        if "=" not in item:
            raise ArgumentError(f"--given {item}: expected NAME=QUANTITY", None, "for example --given tpot=10ms")
        name, value = item.split("=", 1)
        given[name.strip()] = value.strip()
    return given


def cmd_solve(args, project: Project, out: Console) -> int:
    model = project.model(args.model)
    given = _givens(args.given)
    answer = None
    if args.question:
        if args.find:
            raise ArgumentError("--question and --find do not go together", None, "a question says what it finds")
        answer = ask(model, args.question, given, gpu=args.gpu, llm=args.llm, project=project)
        solution = answer.solution
    else:
        solution = solve(model, given, args.find, gpu=args.gpu, llm=args.llm, project=project)
    if args.json:
        print(json.dumps(solution_json(solution, answer), indent=2))
        return 0
    _print_solution(out, solution, answer, args.explain)
    return 0


def _print_solution(out: Console, s: Solution, answer: Answer | None, explain: bool) -> None:
    m = s.model
    hardware = ", ".join(e.title for e in (s.gpu, s.llm) if e)
    out.print(f"[bold]{m.title}[/] ({m.name}{', ' + hardware if hardware else ''})")
    if explain:
        _explain(out, s)
    t = RichTable(show_edge=False, box=None, pad_edge=False)
    for col in ("", "name", "value", "unit", "description"):
        t.add_column(col, justify="right" if col == "value" else "left")
    for n, v in m.variables.items():
        kind = "answer" if answer is not None and n == answer.question.find else "given" if n in s.given else "input" if n in s.plan.known else "numeric" if n in s.numeric else ""
        t.add_row(kind, n, fmt(s.display(n), v.digits), v.unit, v.description)
    out.print(t)
    for name, rows in s.tables.items():
        table = m.tables[name]
        rt = RichTable(title=f"table {name}: {table.about}", title_justify="left", show_edge=False, box=None, pad_edge=False)
        rt.add_column("i", justify="right")
        for c in table.columns:
            rt.add_column(f"{c.name}\n{c.unit}", justify="right")
        for i, row in enumerate(rows, 1):
            rt.add_row(str(i), *[fmt(c.to_display(row[c.name])) for c in table.columns])
        out.print()
        out.print(rt)
    if s.numeric:
        out.print(f"\nsolved numerically: {', '.join(sorted(s.numeric))} ({next(iter(s.numeric.values()))})")
    if answer is not None:
        q, var = answer.question, m.variables[answer.question.find]
        out.print()
        out.print(f"[bold]{q.name}[/]: {q.ask or q.condition_text}", markup=True)
        how = f" ({answer.how})" if answer.how and answer.how != "the boundary" else ""
        out.print(f"  {var.name} = {fmt(var.to_display(answer.value), 6)} {var.unit}".rstrip() + f"{how}; {q.condition_text} holds there", markup=False)


def _explain(out: Console, s: Solution) -> None:
    """The derivation, step by step, as plain text: the same structure the LaTeX sheet prints."""
    from rich.markup import escape

    from .derivation import text_lines

    out.print()
    for line in text_lines(s):
        if line.startswith("step "):
            out.print(f"[bold]{escape(line)}[/]")
        else:
            out.print(line, markup=False)


# --- build, schema -------------------------------------------------------------------------------


def cmd_build(args, project: Project, out: Console) -> int:
    from .backends import BuildOptions
    from .build import build

    names = args.models or project.model_names()
    outdir = Path(args.out) if args.out else project.root / "exports"
    formats = [f.strip() for item in args.format for f in item.split(",") if f.strip()]
    options = BuildOptions(outdir, tuple(args.find), _givens(args.given), args.numpy, args.gpu, args.llm)
    written = build(project, names, formats, options, notify=lambda msg: out.print(msg, markup=False))
    for path in written:
        out.print(f"wrote {path}", markup=False)
    return 0


def cmd_plot(args, project: Project, out: Console) -> int:
    from .backends.plot import plot

    path = plot(project, project.model(args.model), Path(args.output), sweep=args.sweep, gpu=args.gpu, llm=args.llm)
    out.print(f"wrote {path}", markup=False)
    return 0


def cmd_schema(args, project: Project, out: Console) -> int:
    print(json.dumps(MODEL_SCHEMA, indent=2))
    return 0


COMMANDS = {"list": cmd_list, "check": cmd_check, "solve": cmd_solve, "build": cmd_build, "plot": cmd_plot, "schema": cmd_schema}

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
