"""The command line: parse arguments, call the pipeline, print. The only place that turns errors into exit codes."""

from __future__ import annotations

import argparse
import gc
import json
import os
import signal
import sys

from rich.console import Console

from .. import __version__
from ..errors import ChaincError, caller
from ..project import Project, bundled_root, display_path
from ..textout import plain
from .output import error_json

EXAMPLES = """\
examples:
  chainc list                                   models, GPUs and LLMs
  chainc show goodput                           a model's inputs, results, questions and checks
  chainc show gpu h200                          a GPU's values, units and sources
  chainc check                                  run every model's checks
  chainc solve goodput                          solve forward from the defaults
  chainc solve goodput --given batch=128        change an input
  chainc solve goodput --find batch --given tpot=10ms    solve backwards
  chainc solve goodput --question max_batch --gpu h200   ask a question on another GPU
  chainc solve kv-ceiling --llm llama-3.1-70b --explain  show every step
  chainc build                                  check and solve every model into exports/
  chainc fit goodput --data runs.csv --free bandwidth_efficiency   calibrate to measured runs
  chainc init my-project                        start a project of your own chains
  chainc docs model-format                      the manual: how to write a chain
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
        "show",
        help="what a model is (inputs, results, questions, checks), or a GPU's or LLM's every value with its source",
        description="Show a model: title, about, the catalog values it reads, its inputs with defaults and units, its results, tables, questions, sweeps and checks. "
        "Or show a catalog entry (chainc show gpu ID, chainc show llm ID): every field with its value, unit and source, and the derived ones with their equations.",
        epilog="examples:\n  chainc show goodput\n  chainc show goodput --gpu h200 --json\n  chainc show gpu h200\n  chainc show llm deepseek-v3 --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("model", metavar="MODEL", help="a model name or a path to a model file; or gpu / llm, then a catalog id")
    s.add_argument("entry", nargs="?", metavar="ID", help="after gpu or llm: the catalog entry to show (chainc list shows the ids)")
    s.add_argument("--gpu", help="show the values on this GPU")
    s.add_argument("--llm", help="show the values on this LLM")
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
    s.add_argument("--no-cache", action="store_true", help="plan afresh: neither read nor write the plan cache")

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
    s.add_argument("--no-cache", action="store_true", help="plan afresh: neither read nor write the plan cache")
    s.add_argument("--sensitivity", nargs="?", const="", metavar="TARGET", help="each input's elasticity on TARGET (default: the question's answer, else the last result), largest first")
    s.add_argument("--calibration", metavar="NAME", help="apply calibrations/NAME.yaml (chainc fit --save NAME): its fitted values as given values")

    s = sub.add_parser(
        "fit",
        help="fit a model's free inputs (efficiencies, overheads) to measured runs",
        description="Fit free inputs of a model to measured rows of a CSV file by relative least squares (scipy), solving each row in the direction it needs. "
        "The header names model variables with units in brackets (tpot[ms/token]) and catalog choices (gpu, llm); source and note columns are text. "
        "Prints the fitted values with standard errors and 95 % intervals, each row's residual beside the uncalibrated roofline's, MAPE and worst error, and the held-out error.",
        epilog="examples:\n  chainc fit goodput --data measurements/trtllm-0.6.1-h100-fp8-decode.csv --free bandwidth_efficiency\n"
        "  chainc fit tensor-parallel --data runs.csv --free bandwidth_efficiency,step_overhead --holdout 0.3 --save my-cluster",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("model", metavar="MODEL", help="a model name in models/ or a path to a model file")
    s.add_argument("--data", required=True, metavar="FILE.csv", help="the measured rows")
    s.add_argument("--free", action="append", default=[], required=True, metavar="NAME[,NAME]", help="inputs to fit (their defaults start the search)")
    s.add_argument("--bounds", action="append", default=[], metavar="NAME=LOW:HIGH", help="a free input's search range in its display unit (default: its domain)")
    s.add_argument("--measured", action="append", default=[], metavar="NAME", help="the measured columns (default: every column the equations compute)")
    s.add_argument("--holdout", type=float, default=0.0, metavar="FRACTION", help="hold out this fraction of the rows (fixed choice) and report their error under a fit to the rest")
    s.add_argument("--save", metavar="NAME", help="write the fit to calibrations/NAME.yaml (chainc solve --calibration NAME applies it)")
    s.add_argument("--json", action="store_true", help="print JSON")

    s = sub.add_parser(
        "build",
        help="build models into exports/ (json, xlsx, tex, pdf, py)",
        description="Check and build every model (or the named ones) into exports/. Without --format, every available format is built.",
        epilog="examples:\n  chainc build\n  chainc build goodput --format py --find batch --given tpot=10ms\n  chainc build --format xlsx --out /tmp/out\n  chainc build goodput --calibration trtllm-0.6.1-h100-fp8-decode",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("models", nargs="*", metavar="MODEL")
    s.add_argument("--format", action="append", default=[], metavar="FORMAT", help="json, xlsx, tex, pdf or py (repeat for several)")
    s.add_argument("--out", default=None, help="output folder (default: exports/ of the project)")
    s.add_argument("--json", action="store_true", help="print JSON: the files written")
    _query_arguments(s, "py: also compile this query as a function; ")
    s.add_argument("--numpy", action="store_true", help="py: vectorised functions over NumPy arrays")
    s.add_argument("--calibration", metavar="NAME", help="apply calibrations/NAME.yaml (chainc fit --save NAME) to the model it calibrates; every output says so")

    s = sub.add_parser(
        "plot",
        help="draw a model's sweep or frontier",
        description="Draw a model's sweep or Pareto frontier (as in its derivation sheet) to a PNG, SVG or PDF file.",
        epilog="examples:\n  chainc plot goodput -o goodput.png\n  chainc plot tests/models/searches.yaml interactivity -o frontier.png",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("model", metavar="MODEL")
    s.add_argument("name", nargs="?", metavar="NAME", help="a sweep or a frontier (default: the model's first sweep, else its first frontier)")
    s.add_argument("--sweep", metavar="NAME", help="which sweep (the same as NAME)")
    s.add_argument("-o", "--output", required=True, metavar="FILE", help="FILE.png, FILE.svg or FILE.pdf")
    s.add_argument("--gpu", help="catalog GPU id")
    s.add_argument("--llm", help="catalog LLM id")
    s.add_argument("--json", action="store_true", help="print JSON: the file written")

    s = sub.add_parser(
        "cache",
        help="the plan cache: where it is, or clear it",
        description="Repeated commands answer from prepared plans kept in the user's cache folder ($CHAINC_CACHE_DIR, else the platform's), authenticated with a key of the user's; stale or altered entries are rebuilt. clear removes only chainc's own files.",
        epilog="examples:\n  chainc cache path\n  chainc cache clear\n  chainc cache clear --force   # the folder holds other files too: they stay",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("action", choices=["path", "clear"], help="path: print the folder; clear: remove chainc's entries (only them)")
    s.add_argument("--force", action="store_true", help="clear: remove chainc's entries even from a folder that holds other files (those stay)")

    s = sub.add_parser(
        "docs",
        help="print the manual: the tour, the model format, the command line, security",
        description="Print a page of chainc's manual (Markdown), shipped with the package. Without a topic, list the pages.",
        epilog="examples:\n  chainc docs\n  chainc docs model-format | less",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    s.add_argument("topic", nargs="?", metavar="TOPIC", help="readme, model-format, cli, security, design")

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
    # A command is short and makes few reference cycles, but a large model keeps hundreds of thousands of
    # SymPy objects alive, which every cyclic collection rescans: a quarter of a 10,000-equation solve.
    # Off for the command, back on after (main() also runs inside a caller's process, e.g. the tests).
    collecting = gc.isenabled()
    gc.disable()
    try:
        with caller("cli"):  # hints say --find, not find=
            if args.command in ("init", "docs"):  # neither reads a project
                return command(args.command)(args, None, out)
            return command(args.command)(args, Project(args.root), out)
    except ChaincError as e:
        if as_json:
            print(json.dumps({"error": error_json(e)}, indent=2))
        else:
            err.print(plain(e.render()))
        return e.exit_code
    except BrokenPipeError:  # `chainc solve goodput --json | head`: the reader left; end quietly, as a Unix tool does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python's own flush at exit would raise again
        return 141  # 128 + SIGPIPE, what a shell reports for a tool the pipe stopped
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
        if collecting:
            gc.enable()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _terminate(signum, frame):
    raise KeyboardInterrupt


# command -> its module: imported when the command runs, so a cached answer starts without SymPy or pint
COMMANDS = {
    "docs": "docs",
    "cache": "building",
    "show": "showing",
    "list": "catalog",
    "check": "checking",
    "solve": "solving",
    "build": "building",
    "plot": "building",
    "schema": "building",
    "init": "building",
    "fit": "fitting",
}


def command(name: str):
    import importlib

    return getattr(importlib.import_module(f".{COMMANDS[name]}", __name__), f"cmd_{name}")
