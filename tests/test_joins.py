"""Joined imports (tests/models/fleet.yaml joins models/goodput.yaml by a relative path, binding its batch).

By hand, on the H100 SXM (3.35 TB/s) with Llama 3.1 8B (8,030,261,248 BF16 parameters: 16.06 GB of weights;
2 x 32 layers x 8 KV heads x 128 x 2 B = 131,072 B of KV per token):
  per replica, batch b and context c: throughput = b / ((16.06e9 + b c 131072) / 3.35e12)
  fleet_rate = replicas x throughput: 4 x 6,450.0 = 25,800 token/s at b = 64, c = 2,048;
  backwards, 30,000 token/s from 4 replicas is 7,500 per replica: b = 7500 W / (3.35e12 - 7500 x 2048 x 131072) = 90.11.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import openpyxl
import pytest

import chainc
from chainc.cli import main

from .tools import require

FLEET = str(Path(__file__).parent / "models" / "fleet.yaml")
W, S, B = 2 * 8_030_261_248, 2 * 32 * 8 * 128 * 2, 3.35e12


def throughput(b, c=2048, bandwidth=B):
    return b / ((W + b * c * S) / bandwidth)


def test_forward_through_the_join():
    s = chainc.solve(FLEET)
    assert s.value("decode_batch") == 64 and s.value("decode_context") == 2048
    assert s.value("fleet_rate") == pytest.approx(4 * throughput(64), rel=1e-12)
    s = chainc.solve(FLEET, decoders=32, context=4096, replicas=3)
    assert s.value("fleet_rate") == pytest.approx(3 * throughput(32, 4096), rel=1e-12)


def test_the_batch_is_solved_backwards_through_the_import():
    s = chainc.solve(FLEET, find=["decoders"], fleet_rate="30000 token/s")
    want = 7500 * W / (B - 7500 * 2048 * S)
    assert s.value("decoders") == pytest.approx(want, rel=1e-12) == pytest.approx(90.11, abs=0.005)
    assert s.value("decode_batch") == pytest.approx(want, rel=1e-12)
    s = chainc.solve(FLEET, find=["replicas"], fleet_rate="60000 token/s")
    assert s.value("replicas") == pytest.approx(60000 / throughput(64), rel=1e-12)


def test_a_question_over_the_joined_condition_on_other_hardware():
    assert chainc.ask(FLEET, "largest_batch").answer() == 64
    a = chainc.ask(FLEET, "largest_batch", gpu="h200")  # 4.8 TB/s, 141 GB
    assert a.answer() == int((10e-3 * 4.8e12 - W) // (2048 * S)) == 118


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("fleet")
    assert main(["build", FLEET, "--out", str(out), "--format", "py", "--format", "xlsx", "--format", "tex"]) == 0
    assert main(["build", FLEET, "--out", str(out / "q"), "--format", "py", "--find", "decoders", "--given", "fleet_rate=30000token/s"]) == 0
    return out


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_generated_module_runs_the_joined_system(built):
    mod = _load(built / "fleet.py", "_joins_fleet")
    assert mod.solve().fleet_rate == pytest.approx(4 * throughput(64), rel=1e-9)
    assert mod.largest_batch() == 64 and mod.largest_batch(gpu="h200") == 118
    query = _load(built / "q" / "fleet.py", "_joins_fleet_query")
    assert query.decoders_from_fleet_rate(30000).decoders == pytest.approx(7500 * W / (B - 7500 * 2048 * S), rel=1e-9)


def test_the_sheet_names_the_binding(built):
    tex = (built / "fleet.tex").read_text()
    assert "decode.batch = decoders" in tex.replace(r"\_", "_") or "binds goodput" in tex


def test_the_workbook_recalculates_as_the_solver(built, tmp_path):
    require("soffice")
    from .excel_recalc import recalculate

    wb = openpyxl.load_workbook(built / "chains.xlsx")
    next(r for r in wb["fleet"].iter_rows() if r[0].value == "decoders")[1].value = 32
    wb.save(tmp_path / "typed.xlsx")
    (fresh,) = recalculate([tmp_path / "typed.xlsx"], tmp_path / "out")
    ws = openpyxl.load_workbook(fresh, data_only=True)["fleet"]
    row = next(r for r in ws.iter_rows() if r[0].value == "fleet_rate")
    assert row[1].value == pytest.approx(4 * throughput(32), rel=1e-9)


def _fleet_with(tmp_path, checks: str) -> str:
    text = Path(FLEET).read_text().replace("../../models/goodput.yaml", str(Path(FLEET).parent.parent.parent / "models" / "goodput.yaml"))
    (tmp_path / "fleet.yaml").write_text(text + checks)
    return str(tmp_path / "fleet.yaml")


def test_a_check_names_a_joined_variable_as_expressions_do(tmp_path):
    """decode.tpot in an expression was decode_tpot in expect: and given: keys; now it is decode.tpot everywhere. By hand,
    at 64 decoders: (16.06e9 + 64 x 2,048 x 131,072) B / 3.35 TB/s = 9.92 ms per token."""
    tpot = (W + 64 * 2048 * S) / B * 1e3
    path = _fleet_with(tmp_path, f"checks:\n  - about: the joined TPOT\n    given: {{replicas: 2}}\n    expect: {{decode.tpot: {tpot:.4f} ms/token}}\n")
    (outcome,) = chainc.run_checks(path)
    assert outcome.ok, outcome.lines


def test_the_joined_variables_other_spelling_is_refused_with_the_one_to_write(tmp_path):
    path = _fleet_with(tmp_path, "checks:\n  - about: old\n    expect: {decode_tpot: 9.92 ms/token}\n")
    with pytest.raises(chainc.errors.ModelError) as e:
        chainc.solve(path)
    assert "'decode_tpot' is the joined variable decode.tpot" in e.value.message and e.value.hint.startswith("write decode.tpot")
    path = _fleet_with(tmp_path, "checks:\n  - about: typo\n    expect: {decode.tpto: 9.92 ms/token}\n")
    with pytest.raises(chainc.errors.ModelError) as e:
        chainc.solve(path)
    assert "has no variable 'tpto'" in e.value.message and "did you mean decode.tpot?" in e.value.hint
