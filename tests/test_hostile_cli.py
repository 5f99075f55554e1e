"""Hostile and broken command lines, terminals and file systems: a clear error, exit 2, nothing half-written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chainc.cli import main
from chainc.textout import escape_controls

from .conftest import ROOT
from .test_errors import assert_no_traceback


def run(capsys, *argv):
    capsys.readouterr()
    try:
        code = main([str(a) for a in argv])
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    assert_no_traceback(out, err)
    return code, out, err


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.delenv("CHAINC_ROOT", raising=False)
    monkeypatch.chdir(ROOT)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "goodput", "--given", "batch=64", "--given", "batch=65"], "--given batch appears twice (64 and 65)"),
        (["solve", "goodput", "--given", "batch="], "expected NAME=QUANTITY"),
        (["solve", "goodput", "--given", "=64"], "expected NAME=QUANTITY"),
        (["solve", "goodput", "--find", "tpot"], "--find tpot: tpot is computed by the equations already"),
        (["solve", "goodput", "--find", "batch", "--find", "batch", "--given", "tpot=10ms"], "--find batch appears twice"),
        (["solve", "goodput", "--gpu", ""], "--gpu needs a value"),
        (["solve", "goodput", "--llm", " "], "--llm needs a value"),
        (["solve", "goodput", "--question", ""], "--question needs a value"),
        (["solve", "goodput", "--find", ""], "--find needs a value"),
        (["build", "goodput", "--format", ""], "--format needs a value"),
        (["build", "goodput", "--format", ","], "--format needs a format"),
        (["build", "goodput", "--out", ""], "--out needs a value"),
        (["check", "goodput", "--gpu", "nope"], "unknown GPU 'nope'"),
        (["check", "littles-law", "--gpu", "nope"], "unknown GPU 'nope'"),  # checked even where no model uses it
        (["check", "goodput", "--llm", "../hardware/llms/llama-3.1-8b"], "unknown LLM"),
        (["plot", "goodput", "-o", "x.png", "--gpu", "h300"], "unknown GPU 'h300'"),
        (["build", "goodput", "--format", "docx"], "unknown format 'docx'"),
    ],
)
def test_bad_arguments_are_errors(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2, (out, err)
    assert err.startswith("error: ") and message in err.splitlines()[0], err
    assert "hint: " in err


def test_out_that_is_a_file(capsys, tmp_path):
    target = tmp_path / "file"
    target.write_text("keep")
    code, out, err = run(capsys, "build", "goodput", "--format", "json", "--out", target)
    assert code == 2 and "is a file, not a folder" in err and target.read_text() == "keep"


def test_a_full_disk_is_a_message(capsys, tmp_path, monkeypatch):
    """ENOSPC while writing (simulated: tests run as root, where permissions do not stop writes)."""
    import errno

    import chainc.backends

    def full(fd, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "out" / "goodput.json"))

    monkeypatch.setattr(chainc.backends.os, "fdopen", full)
    code, out, err = run(capsys, "build", "goodput", "--format", "json", "--out", tmp_path / "out")
    assert code == 2 and "cannot write" in err and "No space left on device" in err and "goodput.json" in err
    assert list((tmp_path / "out").iterdir()) == []


def test_out_unwritable_parent(capsys, tmp_path):
    """An --out below a file cannot be made: an error naming the path (works as root too)."""
    (tmp_path / "file").write_text("")
    code, out, err = run(capsys, "build", "goodput", "--format", "json", "--out", tmp_path / "file" / "sub")
    assert code == 2 and "cannot write" in err and str(tmp_path / "file") in err


def test_plot_output_that_is_a_folder(capsys, tmp_path):
    folder = tmp_path / "out.png"
    folder.mkdir()
    code, out, err = run(capsys, "plot", "goodput", "-o", folder)
    assert code == 2 and ("cannot write" in err or "is a folder" in err), err
    assert list(folder.iterdir()) == []


def test_sigterm_leaves_no_staging_folder(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "chainc", "build", "--format", "xlsx", "--format", "json", "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(out.glob(".chainc-build-*")):
        time.sleep(0.02)
    assert list(out.glob(".chainc-build-*")), "the build never started staging"
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "interrupted" in stderr
    assert list(out.iterdir()) == [], "SIGTERM left files behind"


HOSTILE_TEXT = 'name: shout\ntitle: "[/] [link=https://evil.example]click[/link] \\e[31mred\\e[0m \\r\\u202e"\nvariables:\n  a: {unit: s, value: 1, description: "[bold]x[/] \\e]0;title\\a"}\n  b: {unit: s}\nequations:\n  - b = a\n'


@pytest.mark.parametrize("argv", [["solve", "{path}"], ["solve", "{path}", "--explain"], ["list"], ["check", "{path}"]])
def test_model_text_is_printed_as_text(capsys, tmp_path, argv):
    (tmp_path / "models").mkdir()
    path = tmp_path / "models" / "shout.yaml"
    path.write_text(HOSTILE_TEXT)
    os.chdir(tmp_path)
    code, out, err = run(capsys, *[a.format(path=path) for a in argv])
    assert code == 0, err
    text = out + err
    assert "\x1b" not in text and "\r" not in text and "\u202e" not in text and "\x07" not in text
    if argv[0] in ("solve", "list"):
        assert "[/] [link=https://evil.example]click[/link]" in out and "\\x1b[31mred" in out


def test_error_text_is_printed_as_text(capsys, tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text('name: bad\ntitle: t\nvariables:\n  a: {unit: s}\nequations:\n  - "a = [/]\\e[31m"\n')  # YAML's \\e is ESC
    code, out, err = run(capsys, "solve", path)
    assert code == 2 and "\x1b" not in err and "U+001B" in err


def test_escape_controls():
    assert escape_controls("a\x1bb\tc\nd\u202e\x00") == "a\\x1bb\tc\nd\\u202e\\x00"


def test_json_stays_json_for_hostile_text(capsys, tmp_path):
    path = tmp_path / "shout.yaml"
    path.write_text(HOSTILE_TEXT)
    code, out, _ = run(capsys, "solve", path, "--json")
    assert code == 0 and json.loads(out)["model"] == "shout"


def test_no_output_left_when_a_build_fails(capsys, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("keep")
    code, _, err = run(capsys, "build", "goodput", "nope", "--out", out)
    assert code == 2 and sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    assert Path(out / "keep.txt").read_text() == "keep"
