"""chainc fit: recovering known efficiencies from synthetic runs, the located refusals, and the published data sets."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml

from chainc.cli import main
from chainc.fit.data import read
from chainc.fit.least import fit
from chainc.fit.result import Fit
from chainc.project import Project

ROOT = Path(__file__).resolve().parents[1]
TRT = ROOT / "measurements" / "trtllm-0.6.1-h100-fp8-llama-7b.csv"
NIM = ROOT / "measurements" / "nim-1.8.0-h100-tp2-fp8-llama-3.3-70b.csv"
L40S = ROOT / "measurements" / "trtllm-0.5-l40s-fp8-llama-7b.csv"

# H100 SXM and Llama 3.1 8B as the catalog holds them, written out here so the expected TPOT is derived apart from chainc
W, KV, B = 8.030261248e9 * 2, 131072.0, 3.35e12  # bytes, bytes per token, bytes per second


def tpot_ms(batch: int, context: int, eta: float, overhead_ms: float) -> float:
    return ((W + batch * context * KV) / (eta * B)) * 1e3 + overhead_ms


RUNS = [(1, 1024), (8, 2048), (32, 1024), (64, 2048), (96, 4096), (16, 8192)]


def write(tmp_path: Path, header: list[str], rows: list[list], name: str = "runs.csv") -> Path:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    path = tmp_path / name
    path.write_text(buf.getvalue())
    return path


@pytest.fixture(scope="module")
def project():
    return Project(ROOT)


def test_recovers_known_efficiency_and_overhead(tmp_path, project):
    eta, t0 = 0.8, 0.7
    path = write(tmp_path, ["batch", "context[token]", "tpot[ms/token]"], [[b, c, f"{tpot_ms(b, c, eta, t0):.9g}"] for b, c in RUNS])
    r = fit(project.model("goodput"), read(path), ["bandwidth_efficiency", "step_overhead"], project)
    got = {f.name: f for f in r.fitted}
    assert got["bandwidth_efficiency"].value == pytest.approx(eta, rel=1e-5)
    assert got["step_overhead"].value == pytest.approx(t0, rel=1e-4)
    assert Fit.mape(r.residuals) < 1e-4
    # the roofline (efficiency 1, no overhead) is fast by 1 - 1 / (1/0.8 + t0 / tpot): at least 20 %
    assert all(x.error < -0.2 for x in r.roofline)


def test_recovers_from_rows_solved_backwards(tmp_path, project):
    """Rows that measure the batch at a given TPOT: the fit solves each row for batch."""
    eta = 0.65
    rows = [[c, f"{tpot_ms(b, c, eta, 0):.12g}", b] for b, c in RUNS[1:]]
    path = write(tmp_path, ["context[token]", "tpot[ms/token]", "batch"], rows)
    r = fit(project.model("goodput"), read(path), ["bandwidth_efficiency"], project, measured=["batch"])
    assert r.fitted[0].value == pytest.approx(eta, rel=1e-6)
    assert [x.measured for x in r.residuals] == pytest.approx([b for b, _ in RUNS[1:]], rel=1e-6)


def test_noise_gives_an_interval_that_holds_the_truth(tmp_path, project):
    eta = 0.75
    wobble = [1.01, 0.99, 1.02, 0.985, 1.0, 1.005]  # +-2 % measurement scatter
    path = write(tmp_path, ["batch", "context[token]", "tpot[ms/token]"], [[b, c, tpot_ms(b, c, eta, 0) * w] for (b, c), w in zip(RUNS, wobble)])
    f = fit(project.model("goodput"), read(path), ["bandwidth_efficiency"], project).fitted[0]
    assert f.stderr is not None and 0 < f.stderr < 0.02
    assert f.low < eta < f.high


def _refusal(capsys, argv) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_unknown_column_is_located(tmp_path, capsys):
    path = write(tmp_path, ["batch", "contxt[token]", "tpot[ms/token]"], [[1, 2048, 5]])
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency"])
    assert "runs.csv:1:7: error: column contxt: model 'goodput' has no variable 'contxt'" in err
    assert "did you mean context?" in err


def test_unit_of_the_wrong_dimension_is_located(tmp_path, capsys):
    path = write(tmp_path, ["batch", "context[token]", "tpot[GB]"], [[1, 2048, 5]])
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency"])
    assert "runs.csv:1:22: error: column tpot[GB]" in err and "write tpot[ms/token]" in err


def test_row_outside_the_domain_is_located(tmp_path, capsys):
    path = write(tmp_path, ["batch", "context[token]", "tpot[ms/token]"], [[8, 2048, 9], [0, 2048, 5]])
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency"])
    assert "runs.csv:3:1: error: row 3: " in err and "batch" in err


def test_too_few_rows_for_the_free_inputs(tmp_path, capsys):
    path = write(tmp_path, ["batch", "context[token]", "tpot[ms/token]"], [[8, 2048, 9]])
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency,step_overhead"])
    assert "runs.csv:2:1: error: 1 row(s) of 1 measured value(s) cannot determine 2 free inputs" in err


def test_a_free_input_the_rows_do_not_determine(tmp_path, capsys):
    path = write(tmp_path, ["batch", "context[token]", "tpot[ms/token]"], [[b, c, tpot_ms(b, c, 0.8, 0)] for b, c in RUNS])
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency,memory"])
    assert "the fit did not converge to one answer: the rows do not determine memory" in err


def test_not_a_number_and_a_computed_free_input(tmp_path, capsys):
    path = write(tmp_path, ["batch", "context[token]", "tpot[ms/token]"], [[8, "__import__('os')", 9], [4, 1024, 7]])
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency"])
    assert "runs.csv:2:3: error: context = \"__import__('os')\": expected a number" in err
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "tpot"])
    assert "--free tpot: tpot is computed by the equations" in err
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "batch"])
    assert "--free batch: batch is a column of the data" in err


# --- the published data sets -------------------------------------------------------------------------------------


def test_data_sets_cite_a_source_on_every_row():
    for path in (TRT, NIM, L40S):
        data = read(path)
        assert data.meta["source"].split()[-1].startswith("https://") and data.meta["engine"] and data.meta["license"]
        assert all(row.cells["source"].startswith("https://") for row in data.rows)


def test_data_sets_arithmetic_matches_the_catalog():
    # Llama2-7b from the TRT-LLM build command's shape: 32 layers, hidden 4096, MLP 11008, vocab 32000
    params = 32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) + 2 * 32000 * 4096 + 4096
    assert params == 6_738_415_616
    for path in (TRT, L40S):
        trt = read(path)
        assert {float(r.cells["weight_bytes"]) for r in trt.rows} == {params * 1 / 1e9}  # FP8: one byte a parameter
        assert {int(r.cells["kv_bytes_per_token"]) for r in trt.rows} == {2 * 32 * 32 * 128 * 1}
    nim = read(NIM)
    params_70b = 70_553_706_496  # the catalog's llama-3.3-70b params (hardware/llms/llama-3.3-70b.yaml)
    assert {float(r.cells["weight_bytes"]) for r in nim.rows} == {params_70b / 1e9}
    assert {int(r.cells["kv_bytes_per_token"]) for r in nim.rows} == {2 * 80 * 8 * 128 * 1}
    assert "params: {value: 70553706496," in (ROOT / "hardware" / "llms" / "llama-3.3-70b.yaml").read_text()


def test_trtllm_h100_fit_and_its_recorded_holdout(project):
    """TRT-LLM v0.6.1, LLaMA 7B on H100 FP8: the roofline is 29-36 % optimistic; the fit to 75 % of the bandwidth is within 2.5 %."""
    r = fit(project.model("goodput"), read(TRT), ["bandwidth_efficiency"], project, holdout=0.3)
    assert 0.70 < r.fitted[0].value < 0.80
    assert Fit.mape(r.roofline) > 25
    assert Fit.mape(r.residuals) < 2.5  # measured: 2.41 %
    recorded = yaml.safe_load((ROOT / "calibrations" / "trtllm-0.6.1-h100-fp8-llama-7b.yaml").read_text())
    assert Fit.mape(r.holdout) <= recorded["residuals"]["holdout_mape_percent"] * 1.001  # recorded to 4 figures


def test_trtllm_l40s_fit_and_its_recorded_holdout(project):
    """TRT-LLM v0.5, LLaMA 7B on L40S FP8: the same engine family reaches 76 % of 864 GB/s, within 1 %."""
    r = fit(project.model("goodput"), read(L40S), ["bandwidth_efficiency"], project, holdout=0.3)
    assert 0.70 < r.fitted[0].value < 0.80
    assert Fit.mape(r.roofline) > 25
    assert Fit.mape(r.residuals) < 1.0  # measured: 0.71 %
    recorded = yaml.safe_load((ROOT / "calibrations" / "trtllm-0.5-l40s-fp8-llama-7b.yaml").read_text())
    assert Fit.mape(r.holdout) <= recorded["residuals"]["holdout_mape_percent"] * 1.001  # recorded to 4 figures


def test_nim_tp2_fit_and_its_recorded_holdout(project):
    """NIM 1.8.0, Llama 3.3 70B FP8 TP2: 18.58 ms measured against 10.66 ms of roofline at concurrency 1."""
    r = fit(project.model("tensor-parallel"), read(NIM), ["bandwidth_efficiency", "step_overhead"], project, holdout=0.3)
    first = r.roofline[0]
    assert first.measured == 18.58 and first.predicted == pytest.approx(10.66, abs=0.01)
    assert Fit.mape(r.residuals) < Fit.mape(r.roofline)
    recorded = yaml.safe_load((ROOT / "calibrations" / "nim-1.8.0-h100-tp2-fp8-llama-3.3-70b.yaml").read_text())
    assert Fit.mape(r.holdout) <= recorded["residuals"]["holdout_mape_percent"] * 1.001  # recorded to 4 figures


def test_solve_with_a_calibration_says_so(capsys):
    assert main(["solve", "goodput", "--calibration", "trtllm-0.6.1-h100-fp8-llama-7b", "--question", "max_batch", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["values"]["bandwidth_efficiency"]["value"] == pytest.approx(0.7544, abs=1e-4)
    assert data["calibration"]["note"].startswith("calibrated (trtllm-0.6.1-h100-fp8-llama-7b) to 2 measured runs of TensorRT-LLM 0.6.1")
    # 10 ms at 75.44 % of 3.35 TB/s moves 25.27 GB: (25.27 - 16.06) GB / (2,048 x 131,072 B) = 34.3 sequences
    assert data["answer"]["value"] == 34
    assert main(["solve", "goodput", "--json"]) == 0
    assert "uncalibrated: not fitted to measured runs" in json.loads(capsys.readouterr().out)["calibration"]["note"]
    assert main(["solve", "goodput", "--calibration", "no-such"]) == 2


def test_cli_json_and_bounds(tmp_path, capsys):
    eta = 0.8
    path = write(tmp_path, ["batch", "context[token]", "tpot[ms/token]"], [[b, c, tpot_ms(b, c, eta, 0)] for b, c in RUNS])
    assert main(["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency", "--bounds", "bandwidth_efficiency=0.3:0.7", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # the truth (0.8) is outside the bounds: the fit stops at 0.7 and says so, and every row's TPOT is 0.8 / 0.7 - 1 too long
    assert data["fitted"]["bandwidth_efficiency"]["value"] == 0.7 and data["fitted"]["bandwidth_efficiency"]["at_bound"]
    assert [r["error_percent"] for r in data["residual_rows"]] == pytest.approx([100 * (0.8 / 0.7 - 1)] * len(RUNS), rel=1e-5)
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency", "--bounds", "bandwidth_efficiency=0.3:2"])
    assert "outside bandwidth_efficiency's domain" in err
    err = _refusal(capsys, ["fit", "goodput", "--data", str(path), "--free", "bandwidth_efficiency", "--bounds", "bandwidth_efficiency=a:b"])
    assert "expected NAME=LOW:HIGH" in err


def test_a_calibration_applied_off_its_hardware_says_so(project):
    """The TRT-LLM calibration was measured on an H100 SXM: on it the sentence is plain, on an H200 it says the
    calibration is applied off its measurements (its error there is unknown), in the API as on the command line."""
    from chainc.api import solve

    on = solve("goodput", calibration="trtllm-0.6.1-h100-fp8-llama-7b", project=project)
    off = solve("goodput", calibration="trtllm-0.6.1-h100-fp8-llama-7b", gpu="h200", project=project)
    assert not any("applied off" in n for n in on.notes)
    assert any("applied off its measurements, on GPU h200 (measured on h100-sxm)" in n for n in off.notes), off.notes
