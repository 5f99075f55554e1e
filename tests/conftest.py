import os
import tempfile
from pathlib import Path

import pytest

# The tests' plan cache lives in a folder of their own, not the user's (and starts empty)
os.environ["CHAINC_CACHE_DIR"] = tempfile.mkdtemp(prefix="chainc-test-cache-")

from chainc import Project

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def project() -> Project:
    return Project(ROOT)


def reports(project: Project, names: list[str], **options):
    """The Reports a build makes of these models (what backends print)."""
    from chainc.backends import BuildOptions
    from chainc.build import reports_for

    return reports_for(project, names, BuildOptions(Path("."), **options))[0]
