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
from .errors import ArgumentError
from .project import Project


def build(project: Project, names: list[str], formats: list[str] | None, options: BuildOptions, notify=print) -> list[Path]:
    explicit = bool(formats)
    formats = formats or list(FORMATS)
    for fmt in formats:
        if fmt not in FORMATS:
            raise ArgumentError(f"unknown format '{fmt}'", None, f"formats: {', '.join(FORMATS)}")
    models = [project.model(n) for n in names]
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
        written = []
        for path in made:
            target = out / Path(path).relative_to(staging)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)
            written.append(target)
    return written
