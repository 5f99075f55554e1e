"""`chainc check`: each model's checks; a broken model is reported and the others still run."""

from __future__ import annotations

import json

from rich.console import Console
from rich.text import Text

from ..errors import ArgumentError, ChaincError
from ..project import Project, display_path
from ..results import tally
from ..textout import plain
from .args import hardware
from .output import error_json


def cmd_check(args, project: Project, out: Console) -> int:
    """Each model in turn: a broken one is reported (on stderr) with its error, and the others still run."""
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    hardware(project, args)
    names = args.models or project.model_names()
    if not names:
        raise ArgumentError(f"no models in {display_path(project.own.models)}", None, "add a model file there, or start from `chainc init`")
    results = _warm(project, names, args) if not args.no_cache else None
    if results is None:
        results = _cold(project, names, args)
    failed = total = broken = skipped = 0
    report = []
    for name, model, outcomes in results:
        entry = {"name": name}
        if isinstance(outcomes, ChaincError):
            broken += 1
            entry["error"] = error_json(outcomes)
            report.append(entry)
            if not args.json:
                err.print(plain(outcomes.render()))
            continue
        entry.update(name=model.name, path=model.path)
        bad = [o for o in outcomes if not o.ok]
        refs = [o for o in outcomes if not o.applies]
        t = tally(outcomes)  # the API's Report counts them so too
        total += t.applicable
        failed += t.failed
        skipped += t.not_applicable
        entry["ok"] = not bad
        entry["checks"] = [{"line": o.check.loc.line, "about": o.check.about, "ok": o.ok, "applies": o.applies, "lines": list(o.lines)} for o in outcomes]
        report.append(entry)
        if args.json:
            continue
        mark = Text(t.verdict, style={"FAIL": "red", "ok": "green", "n/a": "yellow"}[t.verdict])
        out.print(Text.assemble(mark, plain(f"  {model.name}: {t.counts}")))
        for o in bad + refs:
            out.print(plain(f"      {o.check.loc}: {o.check.about or 'check'}"))
            for line in o.lines:
                out.print(plain(f"        {line}"))
    code = 2 if broken else 1 if failed else 0
    if args.json:
        print(json.dumps({"models": report, "passed": total - failed, "failed": failed, "not_applicable": skipped, "broken": broken}, indent=2))
    else:
        tail = (f", {skipped} not applicable (written for other hardware)" if skipped else "") + (f", {broken} model{'s' if broken > 1 else ''} with errors" if broken else "")
        out.print(f"{total - failed} passed, {failed} failed{tail}")
    return code


def _warm(project: Project, names: list[str], args):
    from ..warm import check

    try:
        hit = check(project, names, args.gpu, args.llm)
    except ChaincError:
        return None  # the cold run says it properly
    except Exception:  # noqa: BLE001 - an entry that verified but does not run: plan afresh, never a traceback
        return None
    return None if hit is None else [(name, info, outcomes) for name, (info, outcomes) in zip(names, hit)]


def _cold(project: Project, names: list[str], args) -> list:
    """(name, model, outcomes or the error) per model; stores the shapes when every model answered."""
    from ..api import run_checks

    results, models = [], []
    for name in names:
        try:
            model = project.model(name)
            results.append((name, model, tuple(run_checks(model, project, args.gpu, args.llm))))
            models.append(model)
        except ChaincError as e:
            results.append((name, None, e))
    if len(models) == len(names) and not args.no_cache:
        from ..remember import remember_check

        remember_check(project, names, models, args.gpu, args.llm)
    return results
