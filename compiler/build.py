"""`chainc build`: load every model first, then run each requested backend.

Models are loaded (and so checked for errors) before any file is written; each
backend writes atomically, so a failure leaves no partial output.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import replace
from pathlib import Path

from .backends import FORMATS, BuildOptions, Unavailable, backend
from .errors import ArgumentError, ModelError
from .project import Project


def build(project: Project, names: list[str], formats: list[str] | None, options: BuildOptions, notify=print) -> list[Path]:
    explicit = bool(formats)
    formats = formats or list(FORMATS)
    for fmt in formats:
        if fmt not in FORMATS:
            raise ArgumentError(f"unknown format '{fmt}'", None, f"formats: {', '.join(FORMATS)}")
    models = _distinct([project.model(n) for n in names])
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    # Backends write into a staging folder beside the output; only a build that
    # succeeds in every format moves its files into place.
    with tempfile.TemporaryDirectory(dir=out, prefix=".chainc-build-") as staging:
        staged = replace(options, out=Path(staging))
        made: list[Path] = []
        for fmt in formats:
            if fmt == "tex" and "pdf" in formats:
                continue  # pdf builds the .tex on the way
            try:
                made += backend(fmt).build(project, models, fmt, staged)
            except Unavailable as e:
                if explicit:
                    raise
                notify(f"skipped {fmt}: {e.message}" + (f" ({e.hint})" if e.hint else ""))
        twice = sorted({str(Path(p).relative_to(staging)) for p in made if made.count(p) > 1})
        if twice:  # a backend's own check should have named the models; never move half a build
            raise ArgumentError(f"two outputs of this build have the same name: {', '.join(twice)}", None, "rename one of the models")
        written = []
        for path in made:
            target = out / Path(path).relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            written.append(target)
    return written


def _distinct(models: list) -> list:
    """The models to build, each once; two files with the same model name would overwrite each other's outputs."""
    out, seen = [], {}
    for m in models:
        key = Path(m.path).resolve()
        if any(Path(o.path).resolve() == key for o in out):
            continue  # named twice (goodput and models/goodput.yaml): built once
        if m.name in seen:
            other = seen[m.name]
            raise ModelError(f"two models are named '{m.name}': {other.path} and {m.path}; their outputs would overwrite each other", m.loc, "build them separately, or rename one")
        seen[m.name] = m
        out.append(m)
    return out
