"""`chainc build`, `plot`, `init` and `schema`: the commands that write."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from ..errors import ArgumentError
from ..project import Project, display_path
from ..schema import MODEL_SCHEMA
from ..textout import plain
from .args import givens, hardware, nonempty


def cmd_build(args, project: Project, out: Console) -> int:
    from ..backends import BuildOptions
    from ..build import build

    nonempty(args, "gpu", "llm", "find", "format", "out", "calibration")
    hardware(project, args)
    names = args.models or project.model_names()
    if not names:
        raise ArgumentError(f"no models in {display_path(project.own.models)}", None, "add a model file there, or start from `chainc init`")
    outdir = Path(args.out) if args.out is not None else project.exports
    formats = [f.strip() for item in args.format for f in item.split(",") if f.strip()]
    if args.format and not formats:
        raise ArgumentError("--format needs a format", None, "formats: json, xlsx, tex, pdf, py")
    options = BuildOptions(outdir, tuple(args.find), givens(args.given), args.numpy, args.gpu, args.llm, args.calibration)
    progress = (lambda msg: None) if args.json else (lambda msg: out.print(plain(msg)))
    written = build(project, names, formats, options, notify=progress)
    if args.json:
        print(json.dumps({"written": [str(p) for p in written]}, indent=2))
    else:
        out.print(plain(f"wrote {len(written)} file{'s' if len(written) != 1 else ''} into {display_path(outdir)}/"))
    return 0


def cmd_plot(args, project: Project, out: Console) -> int:
    from ..backends.plot import FORMATS, plot
    from ..report import evaluate

    nonempty(args, "gpu", "llm", "sweep", "name", "output")
    hardware(project, args)
    model = project.model(args.model)
    if Path(args.output).suffix.lower() not in FORMATS:
        raise ArgumentError(f"cannot draw to '{Path(args.output).name}'", None, "write FILE.png, FILE.svg or FILE.pdf")
    if args.name and args.sweep and args.name != args.sweep:
        raise ArgumentError(f"two names to draw: {args.name} and --sweep {args.sweep}", None, "give one")
    frontiers = [n for n, s in model.searches.items() if s.frontier]
    name = args.name or args.sweep or next(iter(model.sweeps), None) or next(iter(frontiers), None)
    drawable = ", ".join([*model.sweeps, *frontiers])
    if name is None:
        raise ArgumentError(f"model '{model.name}' has no sweep or frontier to draw", model.loc, "add one under sweeps: (see models/goodput.yaml) or frontiers:")
    if name in frontiers:
        return _plot_frontier(args, project, model, name, out)
    if name not in model.sweeps:
        asked = f" ({name} is a question: chainc solve --question {name} answers it)" if name in model.searches or name in model.questions else ""
        raise ArgumentError(f"model '{model.name}' has no sweep or frontier '{name}'{asked}", None, f"sweeps and frontiers: {drawable or 'none'}")
    report = evaluate(model, project.catalog, args.gpu, args.llm, source=project.source, parts=frozenset({"sweeps"}))
    result, solution = report.sweeps[name], report.solution  # the entries the sweep ran on, for the title
    titles = " with ".join(e.title for e in (solution.gpu, solution.llm) if e is not None)
    return _wrote(args, out, plot(model, result, Path(args.output), titles))


def _plot_frontier(args, project: Project, model, name: str, out: Console) -> int:
    """A frontier's chart: its configurations run as `chainc solve --question NAME` runs them (the API's ask)."""
    from ..api import ask
    from ..backends.frontier import plot_frontier

    chosen = ask(model, name, gpu=args.gpu, llm=args.llm, project=project)
    axes = model.searches[name].axes
    entries = [project.catalog.entry(k, getattr(args, k) or getattr(model, k)) for k in ("gpu", "llm") if k not in axes and getattr(model, k)]
    titles = " with ".join(e.title for e in entries if e is not None)  # the hardware every configuration shares
    return _wrote(args, out, plot_frontier(model, chosen, Path(args.output), titles))


def _wrote(args, out: Console, path: Path) -> int:
    if args.json:
        print(json.dumps({"written": [str(path)]}, indent=2))
    else:
        out.print(plain(f"wrote {path}"))
    return 0


def cmd_init(args, project: Project | None, out: Console) -> int:
    from ..init import init

    for path in init(Path(args.dir)):
        out.print(plain(f"wrote {display_path(path)}"))
    out.print(plain(f"next: cd {args.dir} && chainc check && chainc solve example" if args.dir != "." else "next: chainc check && chainc solve example"))
    return 0


def cmd_schema(args, project: Project, out: Console) -> int:
    print(json.dumps(MODEL_SCHEMA, indent=2))
    return 0


def cmd_cache(args, project: Project, out: Console) -> int:
    from .. import cache

    root = cache.folder()
    if args.action != "clear":
        out.print(plain(str(root)))
        return 0
    if root.exists() and not root.is_dir():
        raise ArgumentError(f"the cache folder {root} is a file", None, "point CHAINC_CACHE_DIR at a folder")
    removed, foreign = cache.clear(force=args.force)
    names = ", ".join(display_path(p) + ("/" if p.is_dir() and not p.is_symlink() else "") for p in foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
    if foreign and not args.force:
        raise ArgumentError(
            f"the cache folder {root} holds {len(foreign)} file{'s' if len(foreign) != 1 else ''} chainc did not write: {names}; nothing was removed",
            None,
            "move them elsewhere (or point CHAINC_CACHE_DIR at a folder of chainc's own), or pass --force to remove chainc's entries and leave those files",
        )
    left = f"; left {len(foreign)} file{'s' if len(foreign) != 1 else ''} that chainc did not write: {names}" if foreign else ""
    out.print(plain(f"removed {removed} cached plan{'s' if removed != 1 else ''} from {root}{left}"))
    return 0
