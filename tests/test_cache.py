"""The plan cache: a warm command answers as the cold one does, without SymPy or pint, and never from stale files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

# Run the CLI in a fresh interpreter and report which heavy modules it imported.
PROBE = """
import io, json, sys, contextlib
from chainc.cli import main
buf = io.StringIO()
with contextlib.redirect_stdout(buf):
    code = main(sys.argv[1:])
heavy = sorted(m for m in ("sympy", "pint", "networkx", "yaml", "jsonschema", "openpyxl", "jinja2", "matplotlib") if m in sys.modules)
print(json.dumps({"code": code, "out": buf.getvalue(), "heavy": heavy}))
"""


def chainc(cache: Path, *argv, cwd=ROOT) -> dict:
    r = subprocess.run([sys.executable, "-c", PROBE, *map(str, argv)], cwd=cwd, capture_output=True, text=True, env={**__import__("os").environ, "CHAINC_CACHE_DIR": str(cache)}, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.splitlines()[-1])


@pytest.mark.parametrize(
    "argv",
    [
        ["solve", "goodput", "--json"],
        ["solve", "goodput", "--given", "batch=128", "--json"],
        ["solve", "goodput", "--question", "max_batch", "--gpu", "h200", "--json"],
        ["solve", "goodput", "--find", "batch", "--given", "tpot=10ms", "--json"],
        ["solve", "hol-blocking", "--json"],
        ["solve", "kv-ceiling", "--llm", "llama-3.1-70b"],
        ["solve", "p99-knee", "--question", "max_utilization"],
    ],
)
def test_warm_answers_as_cold_without_sympy_or_pint(tmp_path, argv):
    cold = chainc(tmp_path, *argv)
    warm = chainc(tmp_path, *argv)
    fresh = chainc(tmp_path, *argv, "--no-cache")
    assert cold["code"] == warm["code"] == fresh["code"] == 0
    assert warm["out"] == cold["out"] == fresh["out"]
    assert warm["heavy"] == [], f"the warm run imported {warm['heavy']}"
    assert "sympy" in cold["heavy"]


def test_other_values_of_the_same_shape_are_warm(tmp_path):
    chainc(tmp_path, "solve", "goodput", "--given", "batch=128", "--json")
    warm = chainc(tmp_path, "solve", "goodput", "--given", "batch=100", "--json")
    assert warm["heavy"] == [] and json.loads(warm["out"])["values"]["batch"]["value"] == 100
    other_unit = chainc(tmp_path, "solve", "goodput", "--given", "batch=100", "--json", "--gpu", "h200")
    assert "sympy" in other_unit["heavy"]  # another GPU is another shape: cold, then cached


def test_a_changed_file_is_never_trusted(tmp_path):
    project = tmp_path / "p"
    (project / "models").mkdir(parents=True)
    model = project / "models" / "m.yaml"
    model.write_text("name: m\ntitle: M\nvariables:\n  a: {value: 2}\n  b: {}\nequations:\n  - b = 3 * a\n")
    cache = tmp_path / "cache"
    assert json.loads(chainc(cache, "solve", "m", "--json", cwd=project)["out"])["values"]["b"]["value"] == 6
    assert chainc(cache, "solve", "m", "--json", cwd=project)["heavy"] == []
    model.write_text(model.read_text().replace("3 * a", "5 * a"))
    changed = chainc(cache, "solve", "m", "--json", cwd=project)
    assert json.loads(changed["out"])["values"]["b"]["value"] == 10 and "sympy" in changed["heavy"]


def test_an_override_appearing_in_the_project_is_noticed(tmp_path):
    project = tmp_path / "p"
    (project / "models").mkdir(parents=True)
    cache = tmp_path / "cache"
    first = json.loads(chainc(cache, "solve", "goodput", "--json", cwd=project)["out"])
    assert first["values"]["bandwidth"]["value"] == 3.35
    gpus = project / "hardware" / "gpus"
    gpus.mkdir(parents=True)
    text = (ROOT / "hardware" / "gpus" / "h100-sxm.yaml").read_text().replace("memory_bandwidth: {value: 3.35 TB/s", "memory_bandwidth: {value: 4 TB/s")
    (gpus / "h100-sxm.yaml").write_text(text)
    second = chainc(cache, "solve", "goodput", "--json", cwd=project)
    assert json.loads(second["out"])["values"]["bandwidth"]["value"] == 4


def test_a_corrupted_entry_is_rebuilt(tmp_path):
    chainc(tmp_path, "solve", "goodput", "--json")
    for f in tmp_path.rglob("*.json"):
        f.write_text(f.read_text()[:-40])
    again = chainc(tmp_path, "solve", "goodput", "--json")
    assert again["code"] == 0 and "sympy" in again["heavy"]
    assert chainc(tmp_path, "solve", "goodput", "--json")["heavy"] == []


def test_no_cache_writes_nothing_and_clear_empties(tmp_path):
    chainc(tmp_path, "solve", "goodput", "--json", "--no-cache")
    assert not list(tmp_path.rglob("*.json"))
    chainc(tmp_path, "solve", "goodput", "--json")
    assert list(tmp_path.rglob("*.json"))
    out = chainc(tmp_path, "cache", "clear")["out"]
    assert out.startswith("removed 1 cached plan") and not list(tmp_path.rglob("*.json"))


@pytest.mark.parametrize("argv", [["check"], ["check", "--gpu", "h200"], ["check", "goodput", "hol-blocking", "--json"]])
def test_warm_check_is_the_cold_check(tmp_path, argv):
    cold = chainc(tmp_path, *argv)
    warm = chainc(tmp_path, *argv)
    assert warm["out"] == cold["out"] == chainc(tmp_path, *argv, "--no-cache")["out"]
    assert warm["heavy"] == [] and warm["code"] == cold["code"] == 0
