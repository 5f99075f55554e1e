"""The wheel works anywhere: built from this tree, installed into a fresh venv, run from an empty folder.

Nothing here uses the test environment's own chainc: the wheel is installed into a
venv of its own and run with a minimal environment (`env -i PATH=/usr/bin:/bin
HOME=...`), from a temporary directory outside the source tree. A wheel missing a
module, a template, the unit definitions or the bundled library fails here.
"""

from __future__ import annotations

import json
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT
from .test_project import PREFILL


def _sh(*argv, cwd=None, env=None, timeout=600) -> subprocess.CompletedProcess:
    r = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, f"{' '.join(map(str, argv))} exited {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    _sh(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", dist, ROOT)
    [whl] = dist.glob("chainc-*.whl")
    return whl


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """bin/ of a fresh venv holding the wheel and its dependencies."""
    env_dir = tmp_path_factory.mktemp("venv")
    venv.create(env_dir, with_pip=True, clear=True)
    _sh(env_dir / "bin" / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel)
    return env_dir / "bin"


@pytest.fixture
def minimal_env(tmp_path) -> dict:
    home = tmp_path / "home"
    home.mkdir()
    return {"PATH": "/usr/bin:/bin", "HOME": str(home)}


def test_the_wheel_carries_every_module_template_and_the_library(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    sources = {p.relative_to(ROOT / "compiler").as_posix() for p in (ROOT / "compiler").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    missing = sorted(s for s in sources if f"chainc/{s}" not in names)
    assert not missing, f"the wheel lacks {missing}"
    library = {p.relative_to(ROOT).as_posix() for folder in ("models", "hardware") for p in (ROOT / folder).rglob("*.yaml")}
    missing = sorted(s for s in library if f"chainc/library/{s}" not in names)
    assert not missing, f"the wheel lacks the bundled {missing}"
    assert not any(n.startswith(("compiler/", "tests/", "models/", "hardware/")) for n in names), "only the chainc package goes into the wheel"
    assert any(n.endswith("licenses/LICENSE") for n in names)


def test_the_installed_chainc_runs_from_an_empty_folder(installed, minimal_env, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    chainc = installed / "chainc"
    version = _sh(chainc, "--version", cwd=empty, env=minimal_env).stdout
    assert version.startswith("chainc 0.1.0") and str(installed.parent) in version and "library" in version
    listing = _sh(chainc, "list", "--json", cwd=empty, env=minimal_env).stdout
    data = json.loads(listing)
    shipped = len(list((ROOT / "models").glob("*.yaml")))
    entries = {kind: len([p for p in (ROOT / "hardware" / kind).glob("*.yaml") if p.stem != "fields"]) for kind in ("gpus", "llms")}
    assert len(data["models"]) == shipped and len(data["gpus"]) == entries["gpus"] and len(data["llms"]) == entries["llms"]
    assert all(m["from"] == "bundled" for m in data["models"])
    check = _sh(chainc, "check", cwd=empty, env=minimal_env).stdout
    assert ", 0 failed" in check and check.count("ok  ") == shipped
    answer = json.loads(_sh(chainc, "solve", "goodput", "--question", "max_batch", "--json", cwd=empty, env=minimal_env).stdout)
    assert answer["answer"]["value"] == 64
    assert "chainc solve goodput" in _sh(installed / "python", "-m", "chainc", "--help", cwd=empty, env=minimal_env).stdout
    assert not (empty / "exports").exists() and list(empty.iterdir()) == []


def test_the_manual_ships_with_the_wheel(wheel, installed, minimal_env, tmp_path):
    """pip users have no repository: `chainc docs` prints its pages from the package, and init's example points there."""
    names = set(zipfile.ZipFile(wheel).namelist())
    pages = ["README.md", *(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md"))]
    assert all(f"chainc/library/{p}" in names for p in pages), sorted(n for n in names if "library/docs" in n)
    chainc = installed / "chainc"
    listing = _sh(chainc, "docs", cwd=tmp_path, env=minimal_env).stdout
    assert all(p.stem in listing for p in (ROOT / "docs").glob("*.md")) and "readme" in listing
    assert _sh(chainc, "docs", "model-format", cwd=tmp_path, env=minimal_env).stdout == (ROOT / "docs" / "model-format.md").read_text()
    _sh(chainc, "init", "fresh", cwd=tmp_path, env=minimal_env)
    example = (tmp_path / "fresh" / "models" / "example.yaml").read_text()
    assert "`chainc docs model-format`" in example and "docs/model-format.md" not in example


def test_a_user_project_made_by_init(installed, minimal_env, tmp_path):
    chainc = installed / "chainc"
    _sh(chainc, "init", "mine", cwd=tmp_path, env=minimal_env)
    project = tmp_path / "mine"
    (project / "models" / "prefill.yaml").write_text(PREFILL)
    listing = _sh(chainc, "list", cwd=project, env=minimal_env).stdout
    assert "prefill" in listing and "example" in listing and "project: models/" in listing
    check = _sh(chainc, "check", cwd=project, env=minimal_env).stdout
    assert "ok  example: 1/1 checks" in check and "ok  prefill: 1/1 checks" in check
    solved = json.loads(_sh(chainc, "solve", "prefill", "--json", cwd=project / "models", env=minimal_env).stdout)
    assert solved["gpu"] == "h100-sxm" and solved["values"]["prefill"]["value"] == pytest.approx(32.4783, rel=1e-5)
    built = _sh(chainc, "build", "--format", "json", "--format", "py", cwd=project, env=minimal_env).stdout
    assert (project / "exports" / "prefill.json").is_file() and (project / "exports" / "prefill.py").is_file(), built


def test_pip_install_dot_is_not_editable_and_works(installed, tmp_path, minimal_env):
    """`pip install .` (what a user types) gives a working chainc too, with the library inside.

    Runs last: it replaces the wheel in the module's venv (dependencies are already there)."""
    _sh(installed / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--force-reinstall", "--no-deps", ROOT)
    lib = next(installed.parent.glob("lib/python*/site-packages/chainc/library/models/goodput.yaml"))
    assert lib.is_file() and not list(installed.parent.glob("lib/python*/site-packages/__editable__*"))
    empty = tmp_path / "empty"
    empty.mkdir()
    out = _sh(installed / "chainc", "solve", "goodput", "--question", "max_batch", "--json", cwd=empty, env=minimal_env).stdout
    assert json.loads(out)["answer"]["value"] == 64
