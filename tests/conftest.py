from pathlib import Path

import pytest

from compiler import Project

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def project() -> Project:
    return Project(ROOT)
