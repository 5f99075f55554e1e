"""Projects: found as git and ruff find theirs, layered over the bundled library, started by `chainc init`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chainc import Project
from chainc.cli import main
from chainc.project import bundled_root
from chainc.solver import entry_values

from .conftest import ROOT

PREFILL = """\
name: prefill
title: Prefill time of a prompt
uses: {gpu: h100-sxm, llm: llama-3.1-8b}
variables:
  flops_per_token: {unit: FLOP/token, value: llm.linear_flops_per_token}
  peak: {unit: TFLOP/s, value: gpu.flops_bf16}
  mfu: {unit: 1, value: 0.5}
  prompt: {unit: token, value: 1000}
  prefill: {unit: ms}
equations:
  - prefill = prompt * flops_per_token / (peak * mfu)
checks:
  - about: "1000 tokens x 16.06 GFLOP / (989 x 0.5 TFLOP/s) = 32.48 ms"
    expect: {prefill: 32.48 ms}
"""


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def user(tmp_path, monkeypatch):
    """A user's folder holding only models/prefill.yaml, entered as the working directory."""
    monkeypatch.delenv("CHAINC_ROOT", raising=False)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "prefill.yaml").write_text(PREFILL)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_prefill_flops_are_what_the_check_says(user):
    s = __import__("chainc").solve(Project().model("prefill"))
    assert s.values["flops_per_token"] == 2 * 8030261248  # llm.linear_flops_per_token = 2 x params
    assert float(s.value("prefill")) == pytest.approx(1000 * 2 * 8.030261248e9 / (989e12 * 0.5) * 1e3, rel=1e-12)


def test_a_folder_with_only_models_is_a_project(user, capsys):
    assert run(capsys, "check")[0] == 0
    code, out, _ = run(capsys, "solve", "prefill", "--json")
    assert code == 0 and json.loads(out)["values"]["prefill"]["value"] == pytest.approx(32.4783, rel=1e-5)
    code, out, _ = run(capsys, "list", "--json")
    data = json.loads(out)
    assert code == 0 and data["root"] == str(user)
    own = [m for m in data["models"] if m["from"] == "project"]
    assert [m["name"] for m in own] == ["prefill"]
    assert {m["name"] for m in data["models"] if m["from"] == "bundled"} >= {"goodput", "littles-law"}
    assert all(g["from"] == "bundled" for g in data["gpus"])


def test_found_from_a_subfolder_and_by_chainc_toml(user, capsys, monkeypatch):
    deep = user / "notes" / "deeper"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    assert Project().root == user
    (deep / "chainc.toml").write_text('[project]\nname = "inner"\n')  # nearest wins, even without models/
    assert Project().root == deep


def test_root_and_env_take_precedence(user, tmp_path_factory, capsys, monkeypatch):
    other = tmp_path_factory.mktemp("other")
    (other / "chainc.toml").write_text("")
    monkeypatch.setenv("CHAINC_ROOT", str(other))
    assert Project().root == other
    assert Project(user).root == user  # --root beats CHAINC_ROOT


@pytest.mark.parametrize("how", ["--root", "CHAINC_ROOT"])
def test_a_bad_root_is_an_error_not_an_empty_listing(tmp_path, capsys, monkeypatch, how):
    monkeypatch.delenv("CHAINC_ROOT", raising=False)
    for bad, message in ((tmp_path / "missing", "no folder"), (tmp_path, "holds no models/ folder and no chainc.toml")):
        argv = ["list"]
        if how == "--root":
            argv = ["--root", str(bad), "list"]
        else:
            monkeypatch.setenv("CHAINC_ROOT", str(bad))
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == ""
        assert message in err and "hint: " in err and "chainc init" in err


def test_no_project_means_the_bundled_library(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CHAINC_ROOT", raising=False)
    monkeypatch.chdir(tmp_path)
    p = Project()
    assert p.bundled_only and p.root == bundled_root() and p.exports == tmp_path / "exports"
    code, out, _ = run(capsys, "solve", "goodput", "--question", "max_batch", "--json")
    assert code == 0 and json.loads(out)["answer"]["value"] == 64


def test_project_hardware_overrides_the_bundled_entry(user, capsys):
    gpus = user / "hardware" / "gpus"
    gpus.mkdir(parents=True)
    text = (bundled_root() / "hardware" / "gpus" / "h100-sxm.yaml").read_text()
    (gpus / "h100-sxm.yaml").write_text(text.replace("memory_bandwidth: {value: 3.35 TB/s", "memory_bandwidth: {value: 4 TB/s").replace("title: ", "title: Our ", 1))
    (gpus / "tpu-x.yaml").write_text(text.replace("id: h100-sxm", "id: tpu-x").replace("title: ", "title: Tiny ", 1))
    p = Project()
    assert p.catalog.entry("gpu", "h100-sxm").title.startswith("Our ")
    assert entry_values(p.catalog.entry("gpu", "h100-sxm"))["memory_bandwidth"] == 4 * 10**12 * 8
    assert "tpu-x" in p.catalog.ids("gpu")
    code, out, _ = run(capsys, "list")
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("h100-sxm") and "Our" in ln)
    assert "project: hardware/gpus/" in line and "overrides the bundled one" in line
    assert any(ln.startswith("h100-sxm") and "overridden" in ln and ln.rstrip().endswith("bundled") for ln in out.splitlines())
    assert run(capsys, "solve", "goodput", "--question", "max_batch", "--json")[0] == 0  # the bundled chain reads our H100


def test_bundled_chains_are_importable_from_a_project(user, capsys):
    (user / "models" / "fleet.yaml").write_text(
        "name: fleet\ntitle: Fleet\nuses: {models: {g: goodput}}\nvariables:\n"
        "  per_gpu: {unit: token/s, value: g.goodput}\n  gpus: {unit: 1, value: 8}\n  fleet: {unit: token/s}\n"
        "equations:\n  - fleet = gpus * per_gpu\n"
    )
    code, out, _ = run(capsys, "solve", "fleet", "--json")
    assert code == 0 and json.loads(out)["values"]["fleet"]["value"] == pytest.approx(8 * 6449.9, rel=1e-4)


def test_init_writes_a_project_that_checks(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CHAINC_ROOT", raising=False)
    target = tmp_path / "mine"
    code, out, _ = run(capsys, "init", target)
    assert code == 0
    assert sorted(str(p.relative_to(target)) for p in target.rglob("*")) == ["chainc.toml", "models", "models/example.yaml"]
    monkeypatch.chdir(target)
    code, out, _ = run(capsys, "check")
    assert code == 0 and "ok  example: 1/1 checks" in out
    code, out, err = run(capsys, "init", target)
    assert code == 2 and "exists already" in err  # never overwrites


def test_one_broken_model_does_not_hide_the_rest(user, capsys):
    (user / "models" / "broken.yaml").write_text("name: broken\ntitle: Broken\nvariables:\n  a: {unit: s}\nequations:\n  - a = zebra\n")
    code, out, err = run(capsys, "list")
    assert code == 2
    assert "prefill" in out and "broken" in out and "models/broken.yaml:6:" in out and "unknown name 'zebra'" in out
    code, out, err = run(capsys, "check")
    assert code == 2
    assert "ok  prefill: 1/1 checks" in out and "1 model with errors" in out
    assert err.startswith("models/broken.yaml:6:") and "unknown name 'zebra'" in err and "hint:" in err
    code, out, _ = run(capsys, "check", "--json")
    data = json.loads(out)
    assert code == 2 and data["broken"] == 1 and data["passed"] == 1
    broken = next(m for m in data["models"] if m["name"] == "broken")
    assert broken["error"]["line"] == 6 and broken["error"]["path"] == "models/broken.yaml" and broken["error"]["hint"]


def test_failed_checks_exit_1_and_broken_models_exit_2(user, capsys):
    (user / "models" / "prefill.yaml").write_text(PREFILL.replace("32.48 ms", "30 ms"))
    assert run(capsys, "check")[0] == 1
    (user / "models" / "broken.yaml").write_text("name: broken\n")
    assert run(capsys, "check")[0] == 2


def test_json_errors_are_json_on_stdout(user, capsys):
    code, out, err = run(capsys, "solve", "goodput", "--given", "batch=-1", "--json")
    assert code == 2 and err == ""
    e = json.loads(out)["error"]
    assert set(e) >= {"path", "line", "column", "message", "hint"} and "outside its domain" in e["message"]
    code, out, _ = run(capsys, "solve", "nope", "--json")
    assert code == 2 and json.loads(out)["error"]["message"] == "no model 'nope'"


def test_check_json_reports_each_check(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, _ = run(capsys, "check", "goodput", "--json")
    data = json.loads(out)
    assert code == 0 and data["failed"] == 0 and data["broken"] == 0
    [g] = data["models"]
    assert g["name"] == "goodput" and g["ok"] and len(g["checks"]) == data["passed"] > 0
    assert all(c["ok"] and c["line"] > 0 and c["lines"] for c in g["checks"])


def test_version_says_where_the_library_lives(capsys):
    with pytest.raises(SystemExit):
        main(["--version"])
    out = capsys.readouterr().out
    assert out.startswith("chainc 0.1.0 ") and str(bundled_root()) in out


def test_versions_agree():
    import tomllib

    import chainc

    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] == chainc.__version__


# --- nothing outside the project is read -----------------------------------------------------------

SECRET = "chainc-marker-secret-7f3a"


@pytest.fixture
def secret(tmp_path):
    """A YAML file outside every project, whose text must never appear in any output."""
    folder = tmp_path / "secret"
    folder.mkdir()
    (folder / "secret.yaml").write_text(f"id: secret\ntitle: {SECRET}\nvalues: {{memory_bandwidth: 1 TB/s}}\n# {SECRET}\n")
    return folder / "secret.yaml"


def _traversals(secret: Path, start: Path) -> list[str]:
    rel = Path(*[".."] * len(start.parts[1:])) / secret.relative_to("/")
    return [str(rel.with_suffix("")), "../../../../secret/secret", str(secret.with_suffix("")), f"h100-sxm/../../{rel.with_suffix('')}"]


def test_a_catalog_id_is_never_a_path(user, secret, capsys):
    for bad in _traversals(secret, user / "hardware" / "gpus"):
        model = PREFILL.replace("gpu: h100-sxm", f"gpu: '{bad}'")
        (user / "models" / "prefill.yaml").write_text(model)
        for argv in (["solve", "prefill"], ["check"], ["list"], ["solve", "goodput", "--gpu", bad], ["check", "goodput", "--gpu", bad], ["solve", "prefill", "--json"]):
            code, out, err = run(capsys, *argv)
            assert SECRET not in out + err, (bad, argv)
            if argv[0] != "list":
                assert code == 2, (bad, argv, out, err)


def test_a_symlink_out_of_the_catalog_is_not_followed(user, secret, capsys):
    gpus = user / "hardware" / "gpus"
    gpus.mkdir(parents=True)
    (gpus / "leak.yaml").symlink_to(secret)
    code, out, err = run(capsys, "solve", "goodput", "--gpu", "leak")
    assert code == 2 and SECRET not in out + err


def test_an_import_name_is_never_a_path(user, secret, capsys):
    for bad in ["../../secret/secret", str(secret), str(secret.with_suffix(""))]:
        (user / "models" / "imp.yaml").write_text(f"name: imp\ntitle: Imp\nuses: {{models: {{s: '{bad}'}}}}\nvariables:\n  a: {{unit: s, value: 1}}\n  b: {{unit: s}}\nequations:\n  - b = a\n")
        code, out, err = run(capsys, "solve", "imp")
        assert code == 2 and SECRET not in out + err
        assert "is not a model name" in err or "not a valid name" in err or "no model" in err
