"""`chainc build`: evaluate every model once into a Report, then let each requested backend print them.

Models are loaded and evaluated (and so checked for errors) before any file is
written: one Report per model for the chosen hardware, however many formats are
built. Backends write into a staging folder beside the output, reporting each
file as it lands; only a build that succeeds in every format moves its files into
place, so a failure (or Ctrl-C, or SIGTERM) leaves `--out` as it was.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from .backends import FORMATS, BuildOptions, Unavailable, backend, on_note, on_write
from .errors import ArgumentError, Loc, OutputError
from .order import deepest_first
from .project import Project, display_path
from .report import catalog_report, evaluate
from .results import CatalogReport, Report


def reports_for(project: Project, names: list[str], options: BuildOptions) -> tuple[list[Report], CatalogReport]:
    """Each named model evaluated once (imported models shared), and the catalog's entries."""
    queries = {"custom": (tuple(options.find), dict(options.given))} if options.find or options.given else None
    models = [project.model(name) for name in names]
    calibration = _calibration(project, models, options.calibration) if options.calibration else None
    memo: dict = {}
    reports = []
    for model in models:
        if model not in memo:
            mine = calibration if calibration is not None and calibration["model"] == model.name else None
            memo[model] = evaluate(model, project.catalog, options.gpu, options.llm, queries=queries, source=project.source, memo=memo, calibration=mine)
        if memo[model] not in reports:  # a model named twice is built once
            reports.append(memo[model])
    return reports, catalog_report(project.catalog)


def _calibration(project: Project, models: list, name: str) -> dict:
    """calibrations/NAME.yaml, for the one built model it calibrates: refused when that model is not built, or is imported.

    An importer reads the imported model's values at their defaults (its workbook sheet links to the imported
    sheet's cells): a calibrated sheet would hand it calibrated values that its own numbers do not use.
    """
    from .fit.calibration import load

    calibration = load(project, name)
    target, where = calibration["model"], Loc(calibration["path"])
    if not any(m.name == target for m in models):
        built = ", ".join(m.name for m in models)
        raise ArgumentError(
            f"calibration '{name}' is of model '{target}', which this build does not include (it builds {built})", where, f"build that model: chainc build {target} --calibration {name}"
        )
    importers = sorted({m.name for m in models for other in deepest_first([m], lambda x: [o for _, o in x.imports])[:-1] if other.name == target})
    if importers:
        raise ArgumentError(
            f"calibration '{name}' is of model '{target}', which {' and '.join([', '.join(importers[:-1]), importers[-1]] if len(importers) > 1 else importers)} import{'s' if len(importers) == 1 else ''}: "
            f"{'its' if len(importers) == 1 else 'their'} numbers read {target} at its defaults, the calibrated sheet's cells would not",
            where,
            f"build {target} without its importers: chainc build {target} --calibration {name}",
        )
    return calibration


def build(project: Project, names: list[str], formats: list[str] | None, options: BuildOptions, notify=print) -> list[Path]:
    explicit = bool(formats)
    formats = formats or list(FORMATS)
    for fmt in formats:
        if fmt not in FORMATS:
            raise ArgumentError(f"unknown format '{fmt}'", None, f"formats: {', '.join(FORMATS)}")
    started = time.perf_counter()
    reports, catalog = reports_for(project, names, options)
    notify(f"evaluated {len(reports)} model{'s' if len(reports) != 1 else ''} ({time.perf_counter() - started:.1f} s)")
    for r in reports:
        if r.calibration is not None:  # the one line a terminal reader sees of it
            notify(f"{r.model.name}: {r.calibration.sentence}")
    out = Path(options.out)
    try:
        if out.exists() and not out.is_dir():
            raise OutputError(f"--out {display_path(out)} is a file, not a folder", None, "name a folder (it is created if missing)")
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=out, prefix=".chainc-build-") as staging:
            made = _stage(reports, catalog, formats, replace(options, out=Path(staging)), explicit, notify)
            return _move(made, Path(staging), out)
    except OSError as e:
        where = display_path(e.filename) if e.filename else display_path(out)
        raise OutputError(f"cannot write {where}: {e.strerror or e}", None, "check that the output folder exists, is writable and has space (--out DIR picks another)") from None


def _stage(reports, catalog, formats, staged: BuildOptions, explicit: bool, notify) -> list[Path]:
    made: list[Path] = []
    for fmt in formats:
        if fmt == "tex" and "pdf" in formats:
            continue  # pdf builds the .tex on the way
        started = time.perf_counter()
        notify(f"{fmt}:")
        with on_write(lambda path: notify(f"  {Path(path).relative_to(staged.out)}")), on_note(lambda text: notify(f"  {text}")):
            try:
                made += backend(fmt).build(reports, catalog, fmt, staged)
            except Unavailable as e:
                if explicit:
                    raise
                notify(f"  skipped: {e.message}" + (f" ({e.hint})" if e.hint else ""))
                continue
        notify(f"  ({time.perf_counter() - started:.1f} s)")
    return made


def _move(made: list[Path], staging: Path, out: Path) -> list[Path]:
    written = []
    for path in made:
        target = out / Path(path).relative_to(staging)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
        written.append(target)
    return written
