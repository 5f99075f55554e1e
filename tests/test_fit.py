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

SETS = sorted((ROOT / "measurements").glob("*.csv"))
CALIBRATIONS = sorted((ROOT / "calibrations").glob("*.yaml"))


def _command(path: Path) -> dict:
    """The fit a shipped calibration records in its first line: # chainc fit MODEL --data FILE --free A,B --holdout F --save NAME."""
    words = path.read_text().splitlines()[0].removeprefix("# chainc fit ").split(":")[0].split()
    options = dict(zip(words[1::2], words[2::2]))
    return {"model": words[0], "data": ROOT / options["--data"], "free": options["--free"].split(","), "holdout": float(options.get("--holdout", 0)), "name": options["--save"]}


def test_every_data_set_has_its_calibration():
    assert {_command(c)["data"] for c in CALIBRATIONS} == set(SETS)
    assert all(_command(c)["name"] == c.stem for c in CALIBRATIONS)
    assert len(SETS) >= 6


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_data_sets_cite_a_source_on_every_row(path):
    data = read(path)
    assert data.meta["source"].split()[-1].startswith("https://") and data.meta["engine"] and data.meta["license"] and data.meta["metric"]
    assert all(row.cells["source"].startswith("https://") for row in data.rows)
    assert all("/blob/" not in row.cells["source"] or len(row.cells["source"].split("/blob/")[1].split("/")[0]) == 40 for row in data.rows)  # GitHub: a pinned commit


# the models' sizes, derived here from their shapes as the sources give them (not read from the data files)
LLAMA2_7B = 32 * (4 * 4096**2 + 3 * 4096 * 11008 + 2 * 4096) + 2 * 32000 * 4096 + 4096  # the TRT-LLM build command's shape
GPTJ_6B = 6_053_381_344  # the GPT-J 6B model card (28 layers, d_model 4096, d_ff 16384, vocab 50400)
SIZES = {  # note prefix -> (params, layers, kv heads x head dim, hidden)
    "LLaMA 7B": (LLAMA2_7B, 32, 32 * 128, 4096),
    "GPT-J 6B": (GPTJ_6B, 28, 16 * 256, 4096),
}


def test_data_sets_arithmetic_matches_the_catalog():
    assert LLAMA2_7B == 6_738_415_616
    # GPT-J's matrices: 28 x (4 x 4096^2 + 2 x 4096 x 16384) + embeddings and head of 50,400: 0.06 % short of the card (biases, norms)
    assert abs(28 * (4 * 4096**2 + 2 * 4096 * 16384) + 2 * 50400 * 4096 - GPTJ_6B) / GPTJ_6B < 1e-3
    catalog = {path.stem: path.read_text() for path in (ROOT / "hardware" / "gpus").glob("*.yaml")}
    peaks = {"h100-sxm": ("flops_fp8", 1978.9), "l40s": ("flops_fp8", 733), "a100-sxm-80gb": ("flops_bf16", 312)}
    checked = 0
    for path in SETS:
        for row in read(path).rows:
            sizes = next((v for k, v in SIZES.items() if row.cells["note"].startswith(k)), None)
            if sizes is None:
                continue
            params, layers, kv_width, hidden = sizes
            if "weight_bytes" in row.cells:  # decode: FP8 weights and KV, one byte each
                assert float(row.cells["weight_bytes"]) == params / 1e9
                assert int(row.cells["kv_bytes_per_token"]) == 2 * layers * kv_width * 1
            else:  # prefill: the catalog's rules, 2 FLOPs a parameter and 4 x layers x hidden a pair
                assert int(row.cells["linear_flops_per_token"]) == 2 * params
                assert int(row.cells["attention_flops_per_pair"]) == 4 * layers * hidden
                field, peak = peaks[row.cells["gpu"]]
                assert float(row.cells["peak_flops"]) == peak and f"{field}: {{value: {peak:g} TFLOP/s" in catalog[row.cells["gpu"]]
                assert int(row.cells["budget"]) == int(row.cells["prompt_tokens"]) + 1 and row.cells["decoders"] == "1"  # one chunk
            checked += 1
    assert checked == 20  # 8 decode rows and 12 prefill rows
    nim = read(ROOT / "measurements" / "nim-1.8.0-h100-tp2-fp8-llama-3.3-70b.csv")
    params_70b = 70_553_706_496  # the catalog's llama-3.3-70b params (hardware/llms/llama-3.3-70b.yaml)
    assert {float(r.cells["weight_bytes"]) for r in nim.rows} == {params_70b / 1e9}
    assert {int(r.cells["kv_bytes_per_token"]) for r in nim.rows} == {2 * 80 * 8 * 128 * 1}
    assert "params: {value: 70553706496," in (ROOT / "hardware" / "llms" / "llama-3.3-70b.yaml").read_text()


@pytest.mark.parametrize("path", CALIBRATIONS, ids=lambda p: p.stem)
def test_each_data_set_holds_its_recorded_accuracy(path, project):
    """The gate, per data set: refitted with the same rows held out, the held-out error stays within the figure the
    shipped calibration records (to its 4 figures), the fit beats the roofline, and the file records every row."""
    run = _command(path)
    recorded = yaml.safe_load(path.read_text())
    r = fit(project.model(run["model"]), read(run["data"]), run["free"], project, holdout=run["holdout"])
    assert r.holdout, "a gate needs held-out rows"
    assert Fit.mape(r.holdout) <= recorded["residuals"]["holdout_mape_percent"] * 1.001
    assert Fit.mape(r.residuals) < Fit.mape(r.roofline)
    assert Fit.mape(r.roofline) == pytest.approx(recorded["residuals"]["roofline_mape_percent"], rel=1e-3)
    assert [x["line"] for x in recorded["residual_rows"]] == [x.line for x in r.residuals]
    assert [x["predicted"] for x in recorded["residual_rows"]] == pytest.approx([x.predicted for x in r.residuals], rel=1e-5)


def test_trtllm_h100_decode_by_hand(project):
    """TRT-LLM v0.6.1 on H100 FP8: the roofline is 26-36 % optimistic; 76 % of the bandwidth is within 4 %.

    LLaMA 7B at batch 112, context 1,152: (6.738 GB + 112 x 1,152 x 262,144 B) / 3.35 TB/s = 12.11 ms a step,
    112 / 12.11 ms = 9,250 tokens/s against 6,818 measured."""
    r = fit(project.model("goodput"), read(ROOT / "measurements" / "trtllm-0.6.1-h100-fp8-decode.csv"), ["bandwidth_efficiency"], project)
    step = (6.738415616e9 + 112 * 1152 * 262144) / 3.35e12
    assert r.roofline[0].predicted == pytest.approx(112 / step, rel=1e-9) and r.roofline[0].measured == 6818
    assert 0.70 < r.fitted[0].value < 0.80
    assert Fit.mape(r.residuals) < 4


def test_trtllm_prefill_by_hand(project):
    """TRT-LLM v0.5 on H100 FP8, batch 1: LLaMA 7B's 2,048-token prompt at 50 % of 1,978.9 TFLOP/s is
    (13.48e9 x 2,049 + 524,288 x 2,048 x 2,049 / 2) / 989.45e12 = 29.0 ms against 36 ms measured."""
    r = fit(project.model("long-prompt"), read(ROOT / "measurements" / "trtllm-0.5-h100-fp8-prefill.csv"), ["mfu", "step_overhead"], project)
    ideal = (13476831232 * 2049 + 524288 * 2048 * 2049 / 2) / (0.5 * 1978.9e12)
    assert r.roofline[1].predicted == pytest.approx(ideal, rel=1e-9) and r.roofline[1].measured == 0.036
    got = {f.name: f.value for f in r.fitted}
    assert 0.4 < got["mfu"] < 0.65 and 3 < got["step_overhead"] < 8  # ms: launches and the weights' read at 128 tokens


def test_nim_tp2_by_hand(project):
    """NIM 1.8.0, Llama 3.3 70B FP8 TP2: 18.58 ms measured against 10.66 ms of roofline at concurrency 1."""
    r = fit(project.model("tensor-parallel"), read(ROOT / "measurements" / "nim-1.8.0-h100-tp2-fp8-llama-3.3-70b.csv"), ["bandwidth_efficiency", "step_overhead"], project)
    first = r.roofline[0]
    assert first.measured == 18.58 and first.predicted == pytest.approx(10.66, abs=0.01)
    assert Fit.mape(r.residuals) < Fit.mape(r.roofline)


def test_solve_with_a_calibration_says_so(capsys):
    assert main(["solve", "goodput", "--calibration", "trtllm-0.6.1-h100-fp8-decode", "--question", "max_batch", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["values"]["bandwidth_efficiency"]["value"] == 0.763012
    assert data["calibration_note"].startswith("calibrated (trtllm-0.6.1-h100-fp8-decode) to 4 measured runs of TensorRT-LLM 0.6.1")
    assert data["calibration"]["sentence"] == data["calibration_note"] and data["calibration"]["fitted"]["bandwidth_efficiency"]["value"] == 0.763012
    # 10 ms at 76.30 % of 3.35 TB/s moves 25.56 GB: (25.56 - 16.06) GB / (2,048 x 131,072 B) = 35.4 sequences
    assert data["answer"]["value"] == 35
    assert main(["solve", "goodput", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["calibration"] is None and data["calibration_note"].startswith("uncalibrated: not fitted to measured runs")
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

    on = solve("goodput", calibration="trtllm-0.6.1-h100-fp8-decode", project=project)
    off = solve("goodput", calibration="trtllm-0.6.1-h100-fp8-decode", gpu="h200", project=project)
    assert not any("applied off" in n for n in on.notes)
    assert any("applied off its measurements, on GPU h200 (measured on h100-sxm)" in n for n in off.notes), off.notes
