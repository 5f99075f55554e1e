"""Compiling with pdflatex: in a temporary folder, without shell escape, halting on the first error.

Same inputs, same bytes: pdflatex runs with SOURCE_DATE_EPOCH, and the documents
set \\pdfinfoomitdate and an empty \\pdftrailerid. A document is run again until
its table of contents settles (at most three runs).
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from ...errors import ChaincError
from .. import Unavailable

INSTALL = "apt-get install texlive-latex-base texlive-latex-recommended texlive-science texlive-fonts-recommended latexmk"
SOURCE_DATE_EPOCH = "1700000000"


class LatexError(ChaincError, RuntimeError):
    """pdflatex stopped on an error."""


@dataclass(frozen=True)
class Compiled:
    pdf: bytes
    log: str
    runs: int


def tools_or_unavailable() -> str:
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        raise Unavailable("pdflatex is not installed, so PDFs cannot be built", None, f"install TeX Live: {INSTALL}; or build --format tex")
    return pdflatex


def tex_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
            "FORCE_SOURCE_DATE": "1",
            "shell_escape": "f",  # belt and braces: -no-shell-escape is on the command line too
            "openout_any": "p",  # write only below the build folder
            "openin_any": "p",  # no reading of dot files or files outside it by relative escape
            "max_print_line": "1000",
        }
    )
    return env


def _errors(log: str) -> str:
    lines = log.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("!") or re.match(r"^[^:\s]+\.tex:\d+: ", line):
            return "\n".join(lines[k : k + 4])
    return "\n".join(lines[-5:])


def _digests(paths: list[Path]) -> list[str | None]:
    return [hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else None for p in paths]


def compile_one(pdflatex: str, workdir: Path, name: str) -> Compiled:
    cmd = [pdflatex, "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error", f"{name}.tex"]
    env = tex_environment()
    aux = [workdir / f"{name}.toc"]  # a table of contents takes a second run (bookmarks do not: the bookmark package)
    runs, log = 0, ""
    while runs < 3:
        runs += 1
        before = _digests(aux)
        proc = subprocess.run(cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
        log_path = workdir / f"{name}.log"
        log = log_path.read_text(errors="replace") if log_path.exists() else proc.stdout.decode(errors="replace")
        if proc.returncode != 0:
            raise LatexError(f"pdflatex failed on {name}.tex:\n{_errors(log)}", None, f"the full log is {name}.log; rebuild with --format tex and run pdflatex on it to see more")
        after = _digests(aux)
        if before == after and "Rerun to get" not in log and "Rerun LaTeX" not in log:
            break
    return Compiled((workdir / f"{name}.pdf").read_bytes(), log, runs)


def compile_documents(files: dict[str, bytes], names: list[str], workdir: Path) -> dict[str, Compiled]:
    """Write `files` into `workdir` and compile each named document there (in parallel)."""
    pdflatex = tools_or_unavailable()
    for rel, data in files.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    workers = max(1, min(len(names), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        # the longest first (derivations.tex takes three runs): it overlaps the others instead of ending last
        started = {n: pool.submit(compile_one, pdflatex, workdir, n) for n in sorted(names, key=lambda n: -len(files.get(f"{n}.tex", b"")))}
        return {n: started[n].result() for n in names}
