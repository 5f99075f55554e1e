"""Golden files: every printer's output of the bundled models, byte for byte (tests/golden/update.py rewrites them)."""

from __future__ import annotations

import difflib
import importlib.util
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


def _update():
    spec = importlib.util.spec_from_file_location("golden_update", GOLDEN / "update.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


UPDATE = _update()


@pytest.mark.parametrize("fmt", sorted(UPDATE.FORMATS))
def test_outputs_match_the_golden_files(fmt):
    rendered = UPDATE.FORMATS[fmt]()
    assert rendered, fmt
    problems = []
    for name, text in sorted(rendered.items()):
        path = GOLDEN / name
        if not path.exists():
            problems.append(f"{name}: no golden file (run `make golden`)")
            continue
        golden = path.read_text(encoding="utf-8")
        if golden != text:
            diff = difflib.unified_diff(golden.splitlines(keepends=True), text.splitlines(keepends=True), f"golden/{name}", f"rendered/{name}", n=2)
            problems.append("".join(diff))
    assert not problems, "outputs differ from tests/golden (review, then `make golden`):\n" + "\n".join(problems)
