"""Backends are printers: each turns Model + Plan + Solution into files.

A backend module exposes `build(project, models, fmt, options) -> list[Path]`
for the formats it handles, and writes with `write_atomic`. It raises
`Unavailable` when a tool it needs (pdflatex) is missing: an explicit
`--format` then fails, a plain `chainc build` skips it and says so.
"""

from __future__ import annotations

import contextlib
import contextvars
import importlib
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ChaincError

# format -> module that builds it, in the order a plain `chainc build` runs them (all of them)
FORMATS = {
    "json": ".json_report",
    "xlsx": ".excel",
    "tex": ".latex",
    "pdf": ".latex",
    "py": ".python",
}


class Unavailable(ChaincError, RuntimeError):
    """A tool this format needs is not installed."""


@dataclass(frozen=True)
class BuildOptions:
    out: Path
    find: tuple[str, ...] = ()
    given: dict[str, str] = field(default_factory=dict)
    numpy: bool = False
    gpu: str | None = None
    llm: str | None = None
    calibration: str | None = None  # calibrations/NAME.yaml, applied to the model it calibrates


def backend(fmt: str):
    return importlib.import_module(FORMATS[fmt], __package__)


_WATCHER: contextvars.ContextVar[Callable[[Path], None] | None] = contextvars.ContextVar("chainc_on_write", default=None)


@contextlib.contextmanager
def on_write(callback: Callable[[Path], None]) -> Iterator[None]:
    """Call `callback(path)` for each file `write_atomic` writes inside the block: build's progress lines."""
    token = _WATCHER.set(callback)
    try:
        yield
    finally:
        _WATCHER.reset(token)


_NOTES: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar("chainc_on_note", default=None)


@contextlib.contextmanager
def on_note(callback: Callable[[str], None]) -> Iterator[None]:
    """Call `callback(text)` for each note a backend makes inside the block (a located line: what an output cannot do)."""
    token = _NOTES.set(callback)
    try:
        yield
    finally:
        _NOTES.reset(token)


def note(text: str) -> None:
    """Tell the build's reader something about an output, e.g. a workbook cell that cannot follow its inputs."""
    callback = _NOTES.get()
    if callback is not None:
        callback(text)


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary file beside `path`, then rename: never a half-written output."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; outputs are ordinary files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    watcher = _WATCHER.get()
    if watcher is not None:
        watcher(path)
