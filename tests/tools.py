"""External tools the tests drive (LibreOffice, pdflatex, pdftotext).

On a developer machine without the tool a test skips; under CI (CI=true) a
missing tool is a failure, never a skip: .ci/run installs them.
"""

from __future__ import annotations

import os
import shutil

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
