"""The warm command line: `chainc solve` and `chainc check` from prepared shapes in the plan cache.

A cold run plans with SymPy, answers, and stores what it prepared (portable.py,
cache.py). A warm run with the same shape (the same model files, hardware,
question and names given or found, whatever their values) reads that back and
runs it through the same functions (execute.py, the runtime's answer rule): the
same numbers and messages, without importing SymPy or pint. Whatever the warm
path cannot take (a unit it has not seen, --explain, --sensitivity) goes cold.
"""

from __future__ import annotations

import os
from pathlib import Path

from . import cache
from .compare import run_check
from .execute import ask, execute
from .quantities import UnknownUnit, given_value


def solve_key(project, args, model_path: Path) -> str:
    names = sorted(item.split("=", 1)[0].strip() for item in args.given)
    return cache.key("solve", os.getcwd(), str(model_path), [str(layer.root) for layer in project.layers], args.gpu, args.llm, args.question, sorted(args.find), names)


def solve(project, args, given_texts: dict):
    """(solution, answer) of `chainc solve` from the cache, or None when it holds no such shape."""
    try:
        path = project.resolve(args.model)
    except Exception:  # noqa: BLE001 - the cold path reports it properly
        return None
    data = cache.load(solve_key(project, args, path))
    if data is None:
        return None
    units = data["units"]

    def unit(text: str):
        if text not in units:
            raise _Cold
        return units[text]

    prep = data["question"].at if "question" in data else data["prepared"]
    model = prep.model
    try:
        given = {n: given_value(model, n, v, unit) for n, v in given_texts.items()}
    except _Cold:
        return None
    except UnknownUnit:
        return None
    if "question" not in data:
        return execute(prep, given, tuple(args.find)), None
    a = ask(data["question"], given)
    return a.solution, a


class _Cold(Exception):
    """The warm path cannot take this command: run it cold."""


# --- chainc check -------------------------------------------------------------------------------------------


def check_key(project, names: list[str], gpu: str | None, llm: str | None) -> str:
    paths = []
    for n in names:
        try:
            paths.append(str(project.resolve(n)))
        except Exception:  # noqa: BLE001 - the cold path reports it
            paths.append(n)
    return cache.key("check", os.getcwd(), [str(layer.root) for layer in project.layers], paths, gpu, llm)


def check(project, names: list[str], gpu: str | None, llm: str | None):
    """[(model info, outcomes)] of `chainc check` from the cache, or None: the cold run's prepared checks, run again."""
    bundles = cache.load(check_key(project, names, gpu, llm))
    if bundles is None:
        return None
    out = []
    for b in bundles:
        execute(b["forward"], {})  # every model solves forward and answers every question (errors raise, as cold)
        for pq in b["questions"].values():
            ask(pq, {})
        out.append((b["model"], tuple(run_check(pc) for pc in b["checks"])))
    return out
