"""External tools the tests drive (LibreOffice, pdflatex, pdftotext).

On a developer machine without the tool a test skips; under CI (CI=true) a
missing tool is a failure, never a skip: .ci/run installs them.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


def require(*tools: str) -> dict[str, str]:
    """Paths of the tools; skip (or fail under CI) if one is missing."""
    found = {t: shutil.which(t) for t in tools}
    missing = [t for t, p in found.items() if p is None]
    if missing:
        message = f"needs {', '.join(missing)} (installed by .ci/run)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + "; CI must not skip it")
        pytest.skip(message)
    return found


def ruff() -> list[str]:
    """The ruff command of this environment (a test dependency, so never missing under CI)."""
    beside = Path(sys.executable).with_name("ruff")
    if beside.exists():
        return [str(beside)]
    if shutil.which("ruff"):
        return [shutil.which("ruff")]
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    require("ruff")
    return ["ruff"]


def assert_ruff_clean(paths) -> None:
    """Generated code passes the project's lint rules and is formatted as ruff would leave it."""
    cmd, files = ruff(), [str(p) for p in paths]
    check = subprocess.run([*cmd, "check", "--isolated", "--select", "E,F,W,I,B,UP", "--ignore", "E501,B905", "--target-version", "py311", *files], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    fmt = subprocess.run([*cmd, "format", "--isolated", "--line-length", "200", "--check", "--diff", *files], capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
