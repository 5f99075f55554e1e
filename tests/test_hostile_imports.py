"""Hostile imports and `chainc init`: deep chains, files that share a name, loops, folders that are not folders.

Each case runs through `chainc.cli.main` as the `chainc` console script would, in a project
made by `chainc init` under tmp_path (named with --root, so paths print as tmp_path's):
a located error with a hint (exit 2), or the right value, never a traceback.

- A chain of value imports (m_i reads m_{i-1}.y) may be as deep as the import_depth limit
  (100, CHAINC_MAX_IMPORT_DEPTH); one import more is an error at the `uses:` entry of the
  file whose chain passes it. Loading, solving and printing walk the chain with a stack,
  so a limit raised to hundreds works too (it used to fail with a RecursionError at 199,
  and "the file nests too deeply" past 320).
- Two files of one name in different folders are two models; only a real loop is a loop.
- `chainc init` refuses a symlink, a file, an existing project before it writes anything.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

import chainc.init
from chainc.limits import LIMITS
from tests.test_errors import ROOT, assert_argument_error, assert_located_error, assert_no_traceback, run

CHAIN_LINE, CHAIN_COL = 5, 8  # where `    p: m<i-1>` names the import in each chain file


@pytest.fixture(autouse=True)
def _in_repo(monkeypatch):
    """Run from the repository, as test_errors does; no limit raised from outside."""
    for var in ("CHAINC_ROOT", "CHAINC_MAX_IMPORT_DEPTH", "CHAINC_MAX_YAML_DEPTH"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(ROOT)


@pytest.fixture
def project(tmp_path, capsys) -> Path:
    """A project made by `chainc init` (its example model removed: each test writes its own)."""
    root = tmp_path / "p"
    assert run(capsys, "init", root)[0] == 0
    (root / "models" / "example.yaml").unlink()
    return root


def write_chain(root: Path, depth: int) -> None:
    """m0 (y = 2x, x = 1 s), and m1..m<depth>, each reading the one before: m_i.y = 2 + i seconds."""
    models = root / "models"
    (models / "m0.yaml").write_text("name: m0\ntitle: The start\nvariables:\n  x: {unit: s, value: 1}\n  y: {unit: s}\nequations:\n  - y = 2 * x\n")
    for i in range(1, depth + 1):
        text = f"name: m{i}\ntitle: Step {i}\nuses:\n  models:\n    p: m{i - 1}\nvariables:\n  x: {{unit: s, value: p.y}}\n  y: {{unit: s}}\nequations:\n  - y = x + 1[s]\n"
        (models / f"m{i}.yaml").write_text(text)


def solved_y(capsys, root: Path, model: str) -> float:
    code, out, err = run(capsys, "--root", root, "solve", model, "--json")
    assert_no_traceback(out, err)
    assert code == 0, err
    return json.loads(out)["values"]["y"]["value"]


# --- 1, 2. chains of imports and the import_depth limit --------------------------------------------------------


def test_a_chain_as_deep_as_the_limit_solves(project, capsys):
    write_chain(project, 101)
    assert LIMITS["import_depth"].default == 100
    assert solved_y(capsys, project, "m100") == 102


def test_one_import_past_the_limit_is_located_where_the_chain_passes_it(project, capsys):
    write_chain(project, 101)
    code, out, err = run(capsys, "--root", project, "solve", "m101")
    message = "a chain of 101 imports is more than the limit import_depth (100) allows: m101 -> m100 -> m99 -> ... (96 more) -> m2 -> m1 -> m0"
    assert_located_error(code, out, err, project / "models" / "m101.yaml", CHAIN_LINE, CHAIN_COL, message, "CHAINC_MAX_IMPORT_DEPTH=")


def test_a_far_deeper_chain_is_the_limit_not_a_crash(project, capsys):
    """400 files: this was "the file nests too deeply" (in an 11-line file); the limit comes first, at the same place."""
    write_chain(project, 400)
    for top in ("m400", "m150", "m101"):
        code, out, err = run(capsys, "--root", project, "solve", top)
        assert_located_error(code, out, err, project / "models" / "m101.yaml", CHAIN_LINE, CHAIN_COL, "a chain of 101 imports is more than the limit import_depth (100)", "CHAINC_MAX_IMPORT_DEPTH=")
        assert "nests too deeply" not in err


def test_a_raised_limit_lets_a_deep_chain_solve_and_build(project, capsys, monkeypatch, tmp_path):
    """No recursion: 400 imports deep (the solver recursed to RecursionError at 199), solved and printed."""
    write_chain(project, 401)
    monkeypatch.setenv("CHAINC_MAX_IMPORT_DEPTH", "400")
    assert solved_y(capsys, project, "m400") == 402
    code, out, err = run(capsys, "--root", project, "solve", "m401")
    assert_located_error(code, out, err, project / "models" / "m401.yaml", CHAIN_LINE, CHAIN_COL, "a chain of 401 imports is more than the limit import_depth (400)", "CHAINC_MAX_IMPORT_DEPTH=")
    code, out, err = run(capsys, "--root", project, "build", "m400", "--format", "py,json", "--out", tmp_path / "out")
    assert_no_traceback(out, err)
    assert code == 0, err
    assert json.loads((tmp_path / "out" / "m400.json").read_text())["values"]["y"]["value"] == 402


def test_the_limit_setting_must_be_a_number(project, capsys, monkeypatch):
    write_chain(project, 2)
    monkeypatch.setenv("CHAINC_MAX_IMPORT_DEPTH", "deep")
    code, out, err = run(capsys, "--root", project, "solve", "m2")
    assert_argument_error(code, out, err, "CHAINC_MAX_IMPORT_DEPTH='deep' is not a positive whole number", "unset it for the default, 100")


# --- 3. files of one name in different folders, and real loops --------------------------------------------------

INNER_B = "name: inner\ntitle: Inner, in b\nvariables:\n  x: {unit: s, value: 2}\n  w: {unit: s}\nequations:\n  - w = 2 * x\n"
INNER_A = "name: inner\ntitle: Inner, in a\nuses:\n  models:\n    other: {model: ../b/inner.yaml}\nvariables:\n  y: {unit: s}\nequations:\n  - y = 3 * other.w\n"
TOP = "name: inner\ntitle: The top, named as the others\nuses:\n  models:\n    one: {model: a/inner.yaml}\n    two: {model: b/inner.yaml}\nvariables:\n  z: {unit: s}\nequations:\n  - z = one.y + two.w\n"


@pytest.fixture
def inners(project) -> Path:
    """models/inner.yaml joins models/a/inner.yaml and models/b/inner.yaml; a/inner joins b/inner. Three files named inner."""
    for folder, text in (("a", INNER_A), ("b", INNER_B), (".", TOP)):
        (project / "models" / folder).mkdir(exist_ok=True)
        (project / "models" / folder / "inner.yaml").write_text(text)
    return project


def test_files_of_one_name_in_different_folders_are_not_a_loop(inners, capsys):
    code, out, err = run(capsys, "--root", inners, "solve", inners / "models" / "a" / "inner.yaml", "--json")
    assert code == 0, err
    assert json.loads(out)["values"]["y"]["value"] == 12  # 3 x (2 x 2 s)
    code, out, err = run(capsys, "--root", inners, "solve", "inner", "--json")  # models/inner.yaml, joining both
    assert code == 0, err
    assert json.loads(out)["values"]["z"]["value"] == 12 + 4


def test_a_real_loop_between_files_of_one_name_names_the_files(inners, capsys):
    b = inners / "models" / "b" / "inner.yaml"
    b.write_text(
        "name: inner\ntitle: Inner, in b, joining a\nuses:\n  models:\n    back: {model: ../a/inner.yaml}\nvariables:\n  x: {unit: s, value: 2}\n  w: {unit: s}\nequations:\n  - w = 2 * x + back.y\n"
    )
    code, out, err = run(capsys, "--root", inners, "solve", "inner")
    message = "models import each other in a loop: models/a/inner.yaml -> models/b/inner.yaml -> models/a/inner.yaml"
    assert_located_error(code, out, err, b, 5, 11, message, "only one way round")


def test_a_loop_of_value_imports_is_located_where_it_closes(project, capsys):
    models = project / "models"
    (models / "p.yaml").write_text("name: p\ntitle: P\nuses:\n  models:\n    q: q\nvariables:\n  x: {unit: s, value: q.x}\nequations: []\n")
    (models / "q.yaml").write_text("name: q\ntitle: Q\nuses:\n  models:\n    p: p\nvariables:\n  x: {unit: s, value: p.x}\nequations: []\n")
    code, out, err = run(capsys, "--root", project, "solve", "p")
    assert_located_error(code, out, err, models / "q.yaml", 5, 8, "models import each other in a loop: p -> q -> p", "only one way round")
    code, out, err = run(capsys, "--root", project, "check")
    assert code == 2 and err.count("models import each other in a loop") == 2 and "Traceback" not in err


# --- 4. chainc init writes a whole project or nothing ----------------------------------------------------------


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) + ("@" if p.is_symlink() else "") for p in folder.rglob("*"))


@pytest.mark.parametrize(
    "make, target, message, hint",
    [
        (lambda d: (d / "real").mkdir() or (d / "p").symlink_to("real"), "p", "p is a symlink to real, not a folder", "chainc init real"),
        (lambda d: (d / "p").symlink_to("nowhere"), "p", "p is a symlink to nowhere, which does not exist", "remove the symlink"),
        (lambda d: (d / "p").write_text("a file\n"), "p", "p is a file, not a folder", "pick another folder"),
        (lambda d: (d / "p").write_text("a file\n"), "p/q", "p is a file, not a folder", "pick another folder"),
        (lambda d: (d / "p").mkdir() or (d / "p" / "models").symlink_to("/nonexistent"), "p", "models is a symlink, not a folder", "pick another folder"),
        (lambda d: (d / "p").mkdir() or (d / "p" / "models").write_text(""), "p", "models is a file, not a folder", "pick another folder"),
        (lambda d: (d / "p" / "models").mkdir(parents=True) or (d / "p" / "models" / "example.yaml").symlink_to("x"), "p", "example.yaml is a symlink", "never writes over a file"),
        (lambda d: (d / "p").mkdir() or (d / "p" / "chainc.toml").symlink_to("x"), "p", "chainc.toml is a symlink", "never writes over a file"),
        (lambda d: (d / "p").mkdir() or (d / "p" / "chainc.toml").write_text('[project]\nname = "p"\n'), "p", "chainc.toml exists already", "without a chainc project"),
    ],
    ids=["symlink-to-folder", "dangling-symlink", "file", "under-a-file", "models-symlink", "models-file", "example-symlink", "config-symlink", "existing-project"],
)
def test_init_refuses_before_writing_anything(tmp_path, capsys, monkeypatch, make, target, message, hint):
    monkeypatch.chdir(tmp_path)
    make(tmp_path)
    before = listing(tmp_path)
    code, out, err = run(capsys, "init", target)
    assert_argument_error(code, out, err, message, hint)
    assert listing(tmp_path) == before, "chainc init wrote something before it refused"


def test_init_takes_back_what_it_wrote_when_a_write_fails(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    chmod = os.chmod

    def full_disk(path, mode):
        if Path(path).name == "example.yaml":
            raise OSError(28, "No space left on device")
        chmod(path, mode)

    monkeypatch.setattr(chainc.init.os, "chmod", full_disk)
    code, out, err = run(capsys, "init", "p/q")
    assert_argument_error(code, out, err, "cannot write into p/q: No space left on device", "nothing was written")
    assert listing(tmp_path) == []


def test_init_into_a_folder_of_models_adds_the_project_file(tmp_path, capsys):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "mine.yaml").write_text("name: mine\n")
    assert run(capsys, "init", tmp_path)[0] == 0
    assert listing(tmp_path) == ["chainc.toml", "models", "models/example.yaml", "models/mine.yaml"]


# --- 5. the limit is documented ----------------------------------------------------------------------------------


def test_the_import_depth_limit_is_in_the_security_table():
    limit = LIMITS["import_depth"]
    table = (ROOT / "docs" / "security.md").read_text(encoding="utf-8").split("## Limits", 1)[1]
    row = next((line for line in table.splitlines() if line.startswith(f"| `{limit.name}` |")), None)
    assert row is not None, "docs/security.md's limits table has no row for import_depth"
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1] == f"{limit.default:,}" and cells[2] == f"`{limit.env}`", row
    assert re.search(r"\bimports?\b", cells[3]), row
