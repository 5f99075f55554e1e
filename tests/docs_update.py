"""Rewrite the output shown under each command of README.md and docs/*.md that no longer reads as it prints (`make docs`).

The commands run as tests/test_docs.py runs them; an example that still matches (`...` lines
included) is left as written, one that does not gets the full output it printed now. Review
the diff, and elide long output with `...` lines by hand.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.test_docs import DOCS, FENCE, NOT_HERE, ROOT, _command, environment, matches, prepare, run  # noqa: E402


def update(doc: str, scratch: Path, env: dict) -> int:
    path = ROOT / doc
    text = path.read_text(encoding="utf-8")
    out, last, changed = [], 0, 0
    for m in FENCE.finditer(text):
        kind, body = m.group(1), m.group(2)
        prepare(kind, body, scratch)
        if kind != "console":
            continue
        lines, new = body.splitlines(), []
        i = 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                new.append(lines[i])
                i += 1
                continue
            cmd, j = lines[i], i + 1
            while j < len(lines) and not lines[j].startswith("$ "):
                j += 1
            want = [w.rstrip() for w in lines[i + 1 : j]]
            while want and want[-1] == "":
                want.pop()
            new.append(cmd)
            if _command(cmd[2:]) in NOT_HERE:
                new.extend(lines[i + 1 : j])
            else:
                got, _ = run(_command(cmd[2:]), scratch, env)
                new.extend(lines[i + 1 : j] if matches(want, got) else got)
                changed += not matches(want, got)
            i = j
        out.append(text[last : m.start(2)] + "\n".join(new) + "\n")
        last = m.end(2)
    out.append(text[last:])
    path.write_text("".join(out), encoding="utf-8")
    return changed


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        env = environment(Path(tmp))
        for doc in DOCS:
            scratch = Path(tmp) / Path(doc).stem
            scratch.mkdir()
            print(f"{doc}: {update(doc, scratch, env)} examples rewritten")
    subprocess.run(["git", "-C", str(ROOT), "diff", "--stat", "--", *DOCS], check=False)
