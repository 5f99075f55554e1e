"""The plan cache cannot lie: every dependency is in the key, entries are authenticated, clear removes only its own.

Each warm run here is compared with the same command run with --no-cache (the cold
answer), never with numbers written into the test: a cache that answered from an
old or altered entry would print something else.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from chainc import cache
from chainc.cli import main
from chainc.deps import UNRESOLVED
from chainc.portable import decode, encode

from .conftest import ROOT

INNER = "name: inner\ntitle: Inner\nvariables:\n  x: {value: 2}\n  y: {}\nequations:\n  - y = 3 * x\n"
BYID = "name: byid\ntitle: By id\nvariables:\n  u: {value: 1}\n  v: {}\nequations:\n  - v = u + 7\n"
BASE = "name: base\ntitle: Base\nvariables:\n  k: {value: 2}\n  m: {}\nequations:\n  - m = k * 10\n"
MYGPU = (ROOT / "hardware" / "gpus" / "h100-sxm.yaml").read_text().replace("id: h100-sxm", "id: mygpu")
OUTER = """name: outer
title: Outer
uses:
  gpu: mygpu
  models:
    o: {model: sub/inner.yaml, given: {x: a}}
    j: {model: byid, given: {u: a}}
    b: base
    g: littles-law
variables:
  a: {value: 5}
  bm: {value: b.m}
  gl: {unit: request, value: g.in_system}
  bw: {unit: TB/s, value: gpu.memory_bandwidth}
  z: {}
equations:
  - z = o.y + j.v + bm + gl / 1[request] + bw / 1[TB/s]
checks:
  - about: z as first solved
    expect: {z: %s}
"""


class Runs:
    """chainc's CLI in this process, on one cache folder; counts the entries it read."""

    def __init__(self, cache_dir: Path, cwd: Path, monkeypatch, capsys):
        self.cache_dir, self.cwd, self.mp, self.capsys = cache_dir, cwd, monkeypatch, capsys
        self.hits = 0
        load = cache.load

        def counting(k):
            data = load(k)
            self.hits += data is not None
            return data

        monkeypatch.setattr(cache, "load", counting)

    def __call__(self, *argv, cached=True) -> tuple[int, str]:
        self.mp.setenv("CHAINC_CACHE_DIR", str(self.cache_dir))
        self.mp.chdir(self.cwd)
        time.sleep(1.5 * cache.SLACK_NS / 1e9)  # a file written just before a command may be one it is reading
        self.mp.setattr(cache, "STARTED", time.time_ns())  # a command's clock starts when it does
        self.capsys.readouterr()
        code = main([*argv] if cached else [*argv, "--no-cache"])
        out, err = self.capsys.readouterr()
        assert "Traceback" not in err
        return code, out

    def warm(self, *argv) -> tuple[int, str]:
        """A run expected to answer from the cache."""
        before = self.hits
        got = self(*argv)
        assert self.hits == before + 1, "the entry was not used"
        return got


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json"))


@pytest.fixture
def project(tmp_path):
    p = tmp_path / "p"
    (p / "models" / "sub").mkdir(parents=True)
    (p / "hardware" / "gpus").mkdir(parents=True)
    (p / "models" / "sub" / "inner.yaml").write_text(INNER)
    (p / "models" / "byid.yaml").write_text(BYID)
    (p / "models" / "base.yaml").write_text(BASE)
    (p / "hardware" / "gpus" / "mygpu.yaml").write_text(MYGPU)
    (p / "models" / "outer.yaml").write_text(OUTER % 0)
    return p


def z_of(out: str) -> float:
    return json.loads(out)["values"]["z"]["value"]


EDITS = {
    "the model": lambda p: _sub(p / "models" / "outer.yaml", "o.y + j.v", "o.y + 2 * j.v"),
    "a joined model by path": lambda p: _sub(p / "models" / "sub" / "inner.yaml", "3 * x", "4 * x"),
    "a joined model by id": lambda p: _sub(p / "models" / "byid.yaml", "u + 7", "u + 9"),
    "a value import": lambda p: _sub(p / "models" / "base.yaml", "{value: 2}", "{value: 3}"),
    "a catalog entry": lambda p: _sub(p / "hardware" / "gpus" / "mygpu.yaml", "memory_bandwidth: {value: 3.35 TB/s", "memory_bandwidth: {value: 4 TB/s"),
    "a model appearing in the project over a bundled one": lambda p: (p / "models" / "littles-law.yaml").write_text(
        (ROOT / "models" / "littles-law.yaml").read_text().replace("value: 10\n", "value: 20\n", 1)
    ),
    "a field appearing in the project": lambda p: (p / "hardware" / "gpus" / "fields.yaml").write_text("fields: {}\n"),
}


def _sub(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


@pytest.mark.parametrize("what", list(EDITS))
def test_editing_any_dependency_after_a_warm_run_is_seen(project, tmp_path, monkeypatch, capsys, what):
    run = Runs(tmp_path / "cache", project, monkeypatch, capsys)
    code, out = run("solve", "outer", "--json", cached=False)
    assert code == 0
    first = z_of(out)
    _sub(project / "models" / "outer.yaml", "{z: 0}", f"{{z: {first!r}}}")
    cold = run("solve", "outer", "--json")
    assert cold == run.warm("solve", "outer", "--json") == run("solve", "outer", "--json", cached=False)
    assert run("check", "outer")[0] == 0 and run.warm("check", "outer")[0] == 0
    EDITS[what](project)
    fresh = run("solve", "outer", "--json", cached=False)
    fresh_check = run("check", "outer", cached=False)
    assert run("solve", "outer", "--json") == fresh
    assert run("check", "outer") == fresh_check
    if what != "a field appearing in the project":  # that one is an error (the fields are the bundled library's)
        assert z_of(fresh[1]) != first and fresh_check[0] == 1
        assert run.warm("solve", "outer", "--json") == fresh  # and the new answer is cached in turn
    else:
        assert fresh[0] == 2 and fresh_check[0] == 2


# --- authentication -----------------------------------------------------------------------------------------


@pytest.fixture
def goodput(tmp_path, monkeypatch, capsys):
    """A cold goodput solve, its entry and the cold output; runs in the bundled library."""
    run = Runs(tmp_path / "cache", ROOT, monkeypatch, capsys)
    cold = run("solve", "goodput", "--json")
    (entry,) = entries(tmp_path / "cache")
    assert run.warm("solve", "goodput", "--json") == cold
    return run, entry, cold


def test_every_flipped_byte_is_a_miss_with_the_cold_answer(goodput):
    run, entry, cold = goodput
    original = entry.read_bytes()
    positions = sorted({i * (len(original) - 1) // 39 for i in range(40)})  # the header, the MAC, the body, the last byte
    assert len(positions) == 40
    for i in positions:
        b = bytearray(original)
        b[i] = ord("7") if chr(b[i]).isdigit() and b[i] != ord("7") else ord("3") if chr(b[i]).isdigit() else b[i] ^ 0x01
        entry.write_bytes(bytes(b))
        hits = run.hits
        assert run("solve", "goodput", "--json") == cold, f"byte {i}"
        assert run.hits == hits, f"the entry with byte {i} changed was read"
        assert entry.read_bytes() == original  # the cold run wrote the entry again, the same bytes
    assert run.warm("solve", "goodput", "--json") == cold


def test_every_flipped_byte_of_a_check_entry_is_a_miss(tmp_path, monkeypatch, capsys):
    run = Runs(tmp_path / "cache", ROOT, monkeypatch, capsys)
    cold = run("check", "goodput", "hol-blocking")
    assert cold[0] == 0 and run.warm("check", "goodput", "hol-blocking") == cold
    (entry,) = entries(tmp_path / "cache")
    original = entry.read_bytes()
    for i in sorted({i * (len(original) - 1) // 11 for i in range(12)}):
        b = bytearray(original)
        b[i] ^= 0x04
        entry.write_bytes(bytes(b))
        hits = run.hits
        assert run("check", "goodput", "hol-blocking") == cold and run.hits == hits, f"byte {i}"


def test_an_entry_whose_files_cannot_all_be_named_is_not_written(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "STARTED", time.time_ns() + 10**9)
    (tmp_path / "dep").write_text("x")
    cache.store("cd" * 32, [tmp_path / "dep", UNRESOLVED], {"n": 1})
    assert cache.load("cd" * 32) is None and entries(tmp_path / "cache") == []
    cache.store("cd" * 32, [tmp_path / "dep"], {"n": 1})  # the control
    assert cache.load("cd" * 32) == {"n": 1}
    (tmp_path / "dep").write_text("y")
    assert cache.load("cd" * 32) is None


def test_an_entry_is_not_written_from_a_file_edited_while_the_command_ran(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "STARTED", time.time_ns())
    (tmp_path / "dep").write_text("edited after the command began")
    cache.store("ef" * 32, [tmp_path / "dep"], {"n": 1})
    assert entries(tmp_path / "cache") == []


def _forge(entry: Path, secret: bytes | None) -> float:
    """The entry with the bandwidth default 1.4 times as large, its dependency hashes kept; MAC'd with secret, or its old header."""
    head, _, body = entry.read_bytes().partition(b"\n")
    data = json.loads(body)
    stored = decode(data["data"])
    prep = stored["prepared"]
    factor = prep.model.variables["bandwidth"].factor
    bigger = prep.defaults["bandwidth"] * Fraction(14, 10)
    stored["prepared"] = replace(prep, defaults={**prep.defaults, "bandwidth": bigger}, params={**prep.params, "gpu.memory_bandwidth": bigger})
    forged = json.dumps({**data, "data": encode(stored)}).encode()
    assert json.loads(forged)["deps"] == data["deps"]
    entry.write_bytes((cache._header(secret, forged) if secret is not None else head) + b"\n" + forged)
    return float(bigger / factor)


def test_rewritten_data_with_valid_hashes_is_rejected(goodput):
    run, entry, cold = goodput
    bandwidth = json.loads(cold[1])["values"]["bandwidth"]["value"]
    _forge(entry, None)  # the old MAC
    assert run("solve", "goodput", "--json") == cold
    _forge(entry, b"someone else's key, 32 bytes...!")  # a MAC under another key: another user's entry
    assert run("solve", "goodput", "--json") == cold
    forged = _forge(entry, cache.secret())  # the control: signed with this user's key it would be read
    code, out = run.warm("solve", "goodput", "--json")
    assert json.loads(out)["values"]["bandwidth"]["value"] == pytest.approx(forged) != bandwidth


def test_a_verified_entry_that_does_not_run_is_answered_cold(goodput):
    run, entry, cold = goodput
    for data in ({"objects": [], "root": {"r": 5}}, {"objects": [], "root": {"d": []}}, {"objects": [["Num"]], "root": {"r": 0}}):
        body = json.loads(entry.read_bytes().partition(b"\n")[2])
        body = json.dumps({**body, "data": data}).encode()
        entry.write_bytes(cache._header(cache.secret(), body) + b"\n" + body)  # verifies, then fails (IndexError, KeyError, TypeError)
        assert run("solve", "goodput", "--json") == cold


@pytest.mark.parametrize("bad", ["mode 0644", "another owner", "a symlink", "a folder", "short", "unreadable"])
def test_a_key_not_of_this_user_alone_turns_the_cache_off(tmp_path, monkeypatch, capsys, bad):
    folder = tmp_path / "cache"
    folder.mkdir()
    key = folder / "key"
    if bad == "mode 0644":
        key.write_bytes(os.urandom(cache.KEY_BYTES))
        key.chmod(0o644)
    elif bad == "another owner":
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            pytest.skip("giving a file to another user needs root")
        key.write_bytes(os.urandom(cache.KEY_BYTES))
        key.chmod(0o600)
        os.chown(key, 12345, -1)
    elif bad == "a symlink":
        (tmp_path / "elsewhere").write_bytes(os.urandom(cache.KEY_BYTES))
        (tmp_path / "elsewhere").chmod(0o600)
        key.symlink_to(tmp_path / "elsewhere")
    elif bad == "a folder":
        key.mkdir()
    elif bad == "short":
        key.write_bytes(b"x")
        key.chmod(0o600)
    else:
        key.write_bytes(os.urandom(cache.KEY_BYTES))
        key.chmod(0o600)
        monkeypatch.setattr(cache, "_read_key", lambda path: (_ for _ in ()).throw(PermissionError(13, "Permission denied", str(path))))
    run = Runs(folder, ROOT, monkeypatch, capsys)
    cold = run("solve", "goodput", "--json", cached=False)
    assert run("solve", "goodput", "--json") == run("solve", "goodput", "--json") == cold
    assert run.hits == 0 and entries(folder) == []


def test_the_key_is_made_once_mode_0600_even_by_racing_processes(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINC_CACHE_DIR", str(tmp_path / "new"))
    got = []
    threads = [threading.Thread(target=lambda: got.append(cache.secret())) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    key = tmp_path / "new" / "key"
    assert len(set(got)) == 1 and got[0] == key.read_bytes() and len(got[0]) == cache.KEY_BYTES
    assert key.stat().st_mode & 0o777 == 0o600 and sorted(p.name for p in key.parent.iterdir()) == ["key"]


# --- concurrent writers -------------------------------------------------------------------------------------


def test_two_processes_writing_one_entry_leave_a_valid_one(tmp_path):
    env = {**os.environ, "CHAINC_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-m", "chainc", "solve", "goodput", "--question", "max_batch", "--json"]
    procs = [subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outs[0][0] == outs[1][0], outs
    (entry,) = entries(tmp_path / "cache")
    assert not [p for p in entry.parent.iterdir() if p.name.startswith(".tmp-")]
    head, _, body = entry.read_bytes().partition(b"\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CHAINC_CACHE_DIR", str(tmp_path / "cache"))
        mp.chdir(ROOT)
        assert head == cache._header(cache.secret(), body) and cache.load(entry.stem) is not None  # it verifies, and its files are as recorded
    warm = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert warm.stdout == outs[0][0] and entries(tmp_path / "cache") == [entry]


def test_threads_storing_one_key_never_tear_it(tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINC_CACHE_DIR", str(tmp_path / "cache"))
    k, dep = "ab" * 32, tmp_path / "dep.txt"
    dep.write_text("x")
    monkeypatch.setattr(cache, "STARTED", time.time_ns() + 10**9)
    values = [{"n": n, "pad": "y" * (n * 5000)} for n in range(4)]  # entries of different sizes
    seen, stop = [], threading.Event()

    def write(v):
        for _ in range(25):
            cache.store(k, [dep], v)

    def read():
        while not stop.is_set():
            seen.append(cache.load(k))

    reader = threading.Thread(target=read)
    reader.start()
    writers = [threading.Thread(target=write, args=(v,)) for v in values]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stop.set()
    reader.join()
    assert cache.load(k) in values
    assert all(s is None or s in values for s in seen) and any(s is not None for s in seen)


# --- chainc cache clear -------------------------------------------------------------------------------------


def test_clear_refuses_a_folder_with_foreign_files_and_force_leaves_them(goodput, tmp_path):
    run, entry, cold = goodput
    folder = tmp_path / "cache"
    run("solve", "goodput", "--question", "max_batch", "--json")
    ours = entries(folder)
    assert len(ours) == 2
    foreign = [folder / "notes.txt", folder / "data" / "a.csv", entry.parent / "mine.json", folder / entry.parent.parent.name / "zz" / "x.txt"]
    lookalike = entry.parent / (entry.parent.name + "f" * 62 + ".json")  # an entry's name, not its format
    for f in (*foreign, lookalike):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("the user's own\n")
    code, out = run("cache", "clear")
    assert code == 2 and out == ""
    assert all(f.exists() for f in (*ours, *foreign, lookalike, folder / "key"))
    code, out = run("cache", "clear", "--force")
    assert code == 0 and out.startswith(f"removed 2 cached plans from {folder}") and "left 5 files" in out
    assert all(f.read_text() == "the user's own\n" for f in (*foreign, lookalike))
    assert not any(f.exists() for f in ours) and not (folder / "key").exists()
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == sorted(str(p.relative_to(folder)) for p in (*foreign, lookalike))


def test_clear_says_what_it_refused(tmp_path, capsys, monkeypatch):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    monkeypatch.setenv("CHAINC_CACHE_DIR", str(folder))
    capsys.readouterr()
    assert main(["cache", "clear"]) == 2
    err = capsys.readouterr().err
    assert "notes.txt" in err and "--force" in err and "nothing was removed" in err and "Traceback" not in err
    assert (folder / "notes.txt").read_text() == "mine"


def test_clear_of_chainc_s_own_folder_removes_everything_it_wrote(goodput, tmp_path):
    run, entry, cold = goodput
    folder = tmp_path / "cache"
    (entry.parent / ".tmp-abc123.json").write_text("{")  # a store interrupted before its rename
    code, out = run("cache", "clear")
    assert (code, out.strip()) == (0, f"removed 1 cached plan from {folder}")
    assert list(folder.iterdir()) == []
    assert run("solve", "goodput", "--json") == cold and len(entries(folder)) == 1  # and the cache works again, with a new key
