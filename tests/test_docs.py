"""The docs cannot drift: every command shown in README.md and docs/*.md runs here, and its output must read as shown.

A ```console block holds commands (`$ ...`) each followed by the output it prints. A line `...`
stands for any number of lines, a time in parentheses, (0.3 s), for any time, a line ending in ` ...` for any line that starts with what is
before it; everything else must match the output line for line (trailing spaces aside). A
command whose shown output holds `error:` must exit 2, one showing `FAIL` 1, any other 0.

The commands run in the repository (so paths print as a user in a clone sees them), one doc
file after another, in a shell with this checkout's .venv first on PATH, a plan cache and a
HOME of their own, 100 columns and no colour; the checkout prints as ~/chainc. Every `/tmp/` in a command is a fresh folder of
this test's (and is printed back as /tmp/), so the docs can write files without touching the
repository or the machine. A ```yaml block whose first line is `# file: /tmp/NAME.yaml` is
written there before the commands that follow it run; a ```python block written as a doctest
(`>>> `) is run as one.
"""

from __future__ import annotations

import doctest
import os
import re
import subprocess
from pathlib import Path

import pytest

from .conftest import ROOT

DOCS = ["README.md", "docs/cli.md", "docs/model-format.md", "docs/security.md"]
# Commands shown but not run here, each with the test that runs it instead.
NOT_HERE = {
    "make build": "CI runs it (.ci/run), and test_install builds from a wheel",
    "make test": "CI runs it (.ci/run): it is this suite",
    "chainc schema > docs/model.schema.json": "test_cli compares docs/model.schema.json with `chainc schema`",
}
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)


def blocks(doc: str) -> list[tuple[str, str, int]]:
    text = (ROOT / doc).read_text(encoding="utf-8")
    return [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1) for m in FENCE.finditer(text)]


def examples(body: str) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line.rstrip())
    return out


_SECONDS = re.compile(r"\(\d+(?:\.\d+)? s\)")


def matches(want: list[str], got: list[str]) -> bool:
    """want, with `...` lines and `prefix ...` lines, against got, line for line; a time such as (0.3 s) is any time."""
    want, got = [_SECONDS.sub("(# s)", w) for w in want], [_SECONDS.sub("(# s)", g) for g in got]
    return _matches(want, got)


def _matches(want: list[str], got: list[str]) -> bool:
    if not want:
        return not got
    head, rest = want[0], want[1:]
    if head == "...":
        return any(_matches(rest, got[i:]) for i in range(len(got) + 1))
    if not got:
        return False
    same = got[0].startswith(head[:-4]) if head.endswith(" ...") else got[0] == head
    return same and _matches(rest, got[1:])


def _command(cmd: str) -> str:
    return re.sub(r"\s+#[^'\"]*$", "", cmd).strip()  # a trailing comment is the doc's, not the shell's


def environment(tmp: Path) -> dict:
    (tmp / "home").mkdir(exist_ok=True)
    return {
        "PATH": f"{ROOT / '.venv' / 'bin'}:/usr/bin:/bin",
        "HOME": str(tmp / "home"),
        "CHAINC_CACHE_DIR": str(tmp / "cache"),
        "COLUMNS": "100",
        "NO_COLOR": "1",
        "TERM": "dumb",
        "LC_ALL": "C.UTF-8",
    }


def prepare(kind: str, body: str, scratch: Path) -> None:
    """A ```yaml block that names its file (`# file: /tmp/NAME.yaml`) is written there."""
    first = body.split("\n", 1)[0]
    if kind == "yaml" and first.startswith("# file: /tmp/"):
        target = scratch / first.removeprefix("# file: /tmp/").strip()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body, encoding="utf-8")


def run(cmd: str, scratch: Path, env: dict) -> tuple[list[str], int]:
    """The command's output lines (stdout and stderr as a terminal interleaves them, /tmp/ as the docs write it) and its exit code."""
    done = subprocess.run(["bash", "-c", cmd.replace("/tmp/", f"{scratch}/")], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    got = done.stdout.replace(f"{scratch}/", "/tmp/").replace(str(scratch), "/tmp").replace(str(ROOT), "~/chainc")
    return [g.rstrip() for g in got.splitlines()], done.returncode


def _untracked() -> set[str]:
    """Files in the checkout that git neither tracks nor ignores."""
    done = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--others", "--exclude-standard"], capture_output=True, text=True)
    return set(done.stdout.split()) if done.returncode == 0 else set()


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("docs")
    return tmp, environment(tmp)


@pytest.mark.parametrize("doc", DOCS)
def test_every_command_in_the_docs_prints_what_they_show(doc, shell):
    tmp, env = shell
    scratch = tmp / Path(doc).stem
    scratch.mkdir()
    before = _untracked()
    wrong = []
    ran = 0
    for kind, body, line in blocks(doc):
        prepare(kind, body, scratch)
        if kind == "python" and ">>> " in body:
            test = doctest.DocTestParser().get_doctest(body, {}, f"{doc}:{line}", doc, line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            cwd = os.getcwd()
            os.chdir(ROOT)
            try:
                runner.run(test, out=lambda s, at=line: wrong.append(f"{doc}:{at}: {s}"))
            finally:
                os.chdir(cwd)
            ran += 1
        if kind != "console":
            continue
        for cmd, want in examples(body):
            cmd = _command(cmd)
            if cmd in NOT_HERE:
                continue
            got, rc = run(cmd, scratch, env)
            while want and want[-1] == "":
                want = want[:-1]
            code = 2 if any("error:" in w for w in want) else 1 if any("FAIL" in w for w in want) else 0
            ran += 1
            if not matches(want, got) or rc != code:
                wrong.append(f"{doc}:{line}: $ {cmd}\n  exit {rc} (want {code})\n  shown:\n" + "\n".join("    " + w for w in want) + "\n  printed:\n" + "\n".join("    " + g for g in got))
    assert ran, f"{doc} shows no command"
    assert _untracked() == before, f"{doc}'s commands wrote into the checkout: {sorted(_untracked() - before)} (write to /tmp/ or exports/)"
    assert not wrong, "\n\n".join(wrong) + "\n\n(`make docs` rewrites what no longer matches; review its diff)"
