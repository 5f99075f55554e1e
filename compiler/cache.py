"""The plan cache: prepared query shapes on disk, so a repeated command answers without SymPy or pint.

An entry is keyed by the command's shape (the model file, hardware, question,
which variables are given or found, chainc's version) and records every file the
answer depends on with its SHA-256: the model and the models it imports, the
catalog entries and fields it reads, and the files that would override them if
they appeared (a project's own `hardware/gpus/h100-sxm.yaml`). An entry whose
files changed, or that does not parse, is ignored and rebuilt, never trusted.
Writes are atomic (a temporary file, then a rename), so concurrent runs cannot
leave a torn entry. `--no-cache` skips it; `chainc cache clear` empties it.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from . import __version__

FORMAT = 1  # bump when the stored shapes change meaning


def folder() -> Path:
    """The user's cache folder: $CHAINC_CACHE_DIR, else platformdirs' user cache dir."""
    override = os.environ.get("CHAINC_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("chainc", appauthor=False))


def digest(path: Path) -> str | None:
    """A file's SHA-256, or None when there is no such file (a dependency may be an absence)."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


def key(*parts) -> str:
    """The key of an entry: chainc's version, the limits in force (they change what loads), and the command's shape."""
    limits = sorted((k, v) for k, v in os.environ.items() if k.startswith("CHAINC_MAX_"))
    text = json.dumps([__version__, FORMAT, limits, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _path(k: str) -> Path:
    return folder() / f"v{__version__}" / k[:2] / f"{k}.json"


def load(k: str):
    """The stored data for a key, if every file it depends on is as it was; else None."""
    try:
        data = json.loads(_path(k).read_text(encoding="utf-8"))
        if data.get("version") != __version__ or data.get("format") != FORMAT or data.get("key") != k:
            return None
        for path, sha in data["deps"]:
            if digest(Path(path)) != sha:
                return None
        from .portable import decode

        return decode(data["data"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None  # missing, stale or corrupted: rebuilt by the caller


def store(k: str, deps: list[Path], data) -> None:
    """Write an entry atomically; a cache that cannot be written is not an error (the answer stands)."""
    from .portable import encode

    try:
        text = json.dumps({"version": __version__, "format": FORMAT, "key": k, "deps": sorted({(str(p), digest(p)) for p in deps}), "data": encode(data)})
        target = _path(k)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError, RecursionError):
        pass


def clear() -> int:
    """Remove every entry; returns how many files were removed."""
    import shutil

    root = folder()
    n = sum(1 for _ in root.rglob("*.json")) if root.is_dir() else 0
    shutil.rmtree(root, ignore_errors=True)
    return n
