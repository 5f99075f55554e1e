"""The plan cache: prepared query shapes on disk, so a repeated command answers without SymPy or pint.

An entry is keyed by the command's shape (the model file, hardware, question,
which variables are given or found), chainc's version, the format version and the
identity of chainc's own files (an edited checkout is another chainc). It records
every file the answer depends on with its SHA-256 (deps.py: the model, the models
it imports or joins, the catalog entries and fields it reads, the files that
would take their place); an entry whose files changed is rebuilt.

An entry is trusted only when its HMAC-SHA256, under a per-user secret kept in
`<folder>/key` (mode 0600, made on first use), verifies: a corrupted byte, data
rewritten with valid hashes or an entry written by anyone else is a miss, rebuilt
cold, never a number. A key that is not a regular 0600 file of this user turns
the cache off. An entry is not written when a file it depends on changed while
the command ran. Writes are atomic (a temporary file, then a rename), so
concurrent runs cannot leave a torn entry. `--no-cache` skips it; `chainc cache
clear` removes chainc's own files only, recognised by name and format.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import stat
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from . import __version__

FORMAT = 2  # bump when the stored shapes or the entry's layout change meaning
MAGIC = b"chainc-plan"  # an entry's first line: MAGIC, FORMAT, its MAC in hex
KEY_BYTES = 32
STARTED = time.time_ns()  # a dependency modified after this may not be what the command read
SLACK_NS = 20_000_000  # file times come from a coarse clock (a few ms behind)
COARSE_NS = 2_000_000_000  # ... or are kept to the second (FAT: two)


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


@lru_cache(maxsize=1)
def code_id() -> str:
    """chainc's own files by name, size and modification time: a changed checkout never reads another's plans."""
    root = Path(__file__).parent
    items = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for f in sorted(files):
            st = os.stat(os.path.join(here, f))
            items.append((os.path.relpath(os.path.join(here, f), root), st.st_size, st.st_mtime_ns))
    return hashlib.sha256(json.dumps(items).encode()).hexdigest()


def key(*parts) -> str:
    """The key of an entry: chainc's version and files, the limits in force (they change what loads), and the command's shape."""
    limits = sorted((k, v) for k, v in os.environ.items() if k.startswith("CHAINC_MAX_"))
    text = json.dumps([__version__, FORMAT, code_id(), limits, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _path(k: str) -> Path:
    return folder() / f"v{__version__}" / k[:2] / f"{k}.json"


# --- the secret ---------------------------------------------------------------------------------------------


def secret() -> bytes | None:
    """The user's cache key, made on first use; None (no cache: run cold) when it is missing and cannot be made, or not to be trusted."""
    path = folder() / "key"
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError:
        return None
    try:
        _make_key(path)
        return _read_key(path)
    except OSError:
        return None


class UntrustedKey(OSError):
    """The key file is not a regular 0600 file of this user, holding a key."""


def _read_key(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size != KEY_BYTES:
            raise UntrustedKey(f"{path} is not a chainc cache key")
        if hasattr(os, "getuid") and (st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) != 0o600):
            raise UntrustedKey(f"{path} is not this user's alone (owner and mode 0600)")
        data = os.read(fd, KEY_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) != KEY_BYTES:
        raise UntrustedKey(f"{path} is not a chainc cache key")
    return data


def _make_key(path: Path) -> None:
    """Write a fresh key beside the cache, atomically: whole or not at all, and never over another process's."""
    _folders(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".key-")  # O_CREAT | O_EXCL, mode 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(KEY_BYTES))
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)  # fails if the key exists: the first process's key wins
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: create it in place, exclusively
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(Path(tmp).read_bytes())
    finally:
        Path(tmp).unlink(missing_ok=True)


def _folders(path: Path) -> None:
    """The cache's folders, each made private to the user (the folder above it may be shared)."""
    root = folder()
    root.parent.mkdir(parents=True, exist_ok=True)
    root.mkdir(exist_ok=True, mode=0o700)
    for part in path.relative_to(root).parts:
        root = root / part
        root.mkdir(exist_ok=True, mode=0o700)


def _header(secret: bytes, body: bytes) -> bytes:
    mac = hmac.new(secret, body, hashlib.sha256).hexdigest()
    return b"%s %d %s" % (MAGIC, FORMAT, mac.encode())


# --- entries ------------------------------------------------------------------------------------------------


def load(k: str):
    """The stored data for a key, if its MAC verifies and every file it depends on is as it was; else None."""
    s = secret()
    if s is None:
        return None
    try:
        head, sep, body = _path(k).read_bytes().partition(b"\n")
        if not sep or not hmac.compare_digest(head, _header(s, body)):
            return None  # not written by this user's chainc, or changed since: never read further
        data = json.loads(body)
        if data.get("version") != __version__ or data.get("format") != FORMAT or data.get("key") != k:
            return None
        for path, sha in data["deps"]:
            if digest(Path(path)) != sha:
                return None
        from .portable import decode

        return decode(data["data"])
    except Exception:  # noqa: BLE001 - missing, stale or undecodable: rebuilt by the caller, never a traceback
        return None


def _changed_since_start(paths: list[Path]) -> bool:
    """Whether a file (or a symlink on the way) was modified after this command began: its digest may not be what was read."""
    for p in paths:
        for follow in (False, True):
            try:
                st = os.stat(p, follow_symlinks=follow)
            except OSError:
                continue
            for ns in (st.st_mtime_ns, st.st_ctime_ns):
                slack = COARSE_NS if ns % 1_000_000_000 == 0 else SLACK_NS  # whole seconds: a file system that keeps no finer time
                if ns > STARTED - slack:
                    return True
    return False


def store(k: str, deps: list[Path], data) -> None:
    """Write an entry atomically; a cache that cannot be written is not an error (the answer stands)."""
    from .portable import encode

    try:
        paths = sorted({Path(p) for p in deps})
        if not all(p.is_absolute() for p in paths):
            return  # a dependency that could not be named: an entry could not be checked
        s = secret()
        if s is None:
            return
        recorded = [(str(p), digest(p)) for p in paths]
        if _changed_since_start(paths):
            return  # edited while we ran: the next run plans afresh and stores
        body = json.dumps({"version": __version__, "format": FORMAT, "key": k, "deps": recorded, "data": encode(data)}).encode()
        target = _path(k)
        _folders(target.parent)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(_header(s, body) + b"\n" + body)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except (OSError, TypeError, ValueError, RecursionError):
        pass


# --- chainc cache clear -------------------------------------------------------------------------------------

_VERSION = re.compile(r"v[0-9][0-9A-Za-z.+!_-]*")
_SHARD = re.compile(r"[0-9a-f]{2}")
_ENTRY = re.compile(r"[0-9a-f]{64}\.json")
_TEMP = re.compile(r"\.tmp-[A-Za-z0-9_]+\.json")  # a store interrupted before its rename
_KEY_TEMP = re.compile(r"\.key-[A-Za-z0-9_]+")
_FORMATS = (MAGIC + b" ", b'{"version": ')  # this format's first bytes, and format 1's (plain JSON)


def _is_entry(e: os.DirEntry, shard: str) -> bool:
    if not e.is_file(follow_symlinks=False) or not _ENTRY.fullmatch(e.name) or e.name[:2] != shard:
        return False
    try:
        with open(e.path, "rb") as f:
            return f.read(len(MAGIC) + 1).startswith(_FORMATS)
    except OSError:
        return False


def _is_key(e: os.DirEntry) -> bool:
    try:
        st = e.stat(follow_symlinks=False)
    except OSError:
        return False
    mine = not hasattr(os, "getuid") or (st.st_uid == os.getuid() and stat.S_IMODE(st.st_mode) == 0o600)
    return stat.S_ISREG(st.st_mode) and st.st_size == KEY_BYTES and mine


def survey(root: Path) -> tuple[list[Path], list[Path], list[Path], list[Path]]:
    """(entries, other files of chainc's: temporaries and the key, chainc's folders deepest first, foreign files and folders)."""
    entries, own, dirs, foreign = [], [], [], []
    if not root.is_dir():
        return entries, own, dirs, foreign
    with os.scandir(root) as top:
        for e in sorted(top, key=lambda e: e.name):
            if (e.name == "key" and _is_key(e)) or (_KEY_TEMP.fullmatch(e.name) and e.is_file(follow_symlinks=False)):
                own.append(Path(e.path))
            elif _VERSION.fullmatch(e.name) and e.is_dir(follow_symlinks=False):
                with os.scandir(e.path) as shards:
                    for s in sorted(shards, key=lambda e: e.name):
                        if not (_SHARD.fullmatch(s.name) and s.is_dir(follow_symlinks=False)):
                            foreign.append(Path(s.path))
                            continue
                        with os.scandir(s.path) as files:
                            for f in sorted(files, key=lambda e: e.name):
                                if _is_entry(f, s.name):
                                    entries.append(Path(f.path))
                                elif _TEMP.fullmatch(f.name) and f.is_file(follow_symlinks=False):
                                    own.append(Path(f.path))
                                else:
                                    foreign.append(Path(f.path))
                        dirs.append(Path(s.path))
                dirs.append(Path(e.path))
            else:
                foreign.append(Path(e.path))
    return entries, own, dirs, foreign


def clear(force: bool = False) -> tuple[int, list[Path]]:
    """Remove chainc's entries, temporaries and key (and its folders once empty): (entries removed, foreign files and folders).

    A folder holding anything else is left as it is unless `force`; with it, the
    foreign files stay where they are all the same.
    """
    entries, own, dirs, foreign = survey(folder())
    if foreign and not force:
        return 0, foreign
    removed = 0
    for i, p in enumerate(entries + own):
        try:
            p.unlink()
            removed += i < len(entries)
        except FileNotFoundError:
            pass  # another clear got there first
    for d in dirs:
        try:
            d.rmdir()
        except OSError:
            pass  # not empty: a foreign file, or a run writing now
    return removed, foreign
