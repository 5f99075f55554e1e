"""chainc build --calibration: every output says what its numbers are, and bad calibrations are refused whole.

The shipped TRT-LLM H100 calibration fits goodput's bandwidth_efficiency to 0.763012. By hand: at 10 ms a
step the H100 SXM moves 0.763012 x 3.35 TB/s x 10 ms = 25.56 GB; Llama 3.1 8B's weights take 16.06 GB and
each sequence 2,048 x 131,072 B, so (25.56 - 16.06) GB / 268.4 MB = 35.4 sequences: max_batch is 35
(uncalibrated, 33.5 GB gives 64.97: 64).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import openpyxl
import pytest
import yaml

from chainc.calibrated import IDEAL
from chainc.cli import main

from .conftest import ROOT, reports
from .tools import require

NAME = "trtllm-0.6.1-h100-fp8-decode"
EFFICIENCY = 0.763012
W, KV, B = 8.030261248e9 * 2, 2048 * 131072, 3.35e12
CALIBRATED_BATCH = int((EFFICIENCY * B * 0.010 - W) // KV)
assert CALIBRATED_BATCH == 35 and int((B * 0.010 - W) // KV) == 64


def build(tmp_path: Path, *args: str, code: int = 0, root: Path | None = None) -> Path:
    out = tmp_path / "out"
    assert main([*(["--root", str(root)] if root else []), "build", *args, "--out", str(out)]) == code
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("calibrated") / "out"
    assert main(["build", "goodput", "--calibration", NAME, "--format", "json,xlsx,tex,py", "--numpy", "--out", str(out)]) == 0
    return out


def test_json_carries_the_calibration(built):
    data = json.loads((built / "goodput.json").read_text())
    c = data["calibration"]
    assert c["name"] == NAME and c["model"] == "goodput" and c["runs"] == 4 and c["file"] == f"calibrations/{NAME}.yaml"
    assert c["fitted"]["bandwidth_efficiency"]["value"] == EFFICIENCY and data["values"]["bandwidth_efficiency"]["value"] == EFFICIENCY
    assert data["calibration_note"] == c["sentence"] and c["sentence"].startswith(f"calibrated ({NAME}) to 4 measured runs of TensorRT-LLM 0.6.1 on 1x H100")
    assert data["answers"]["max_batch"]["value"] == CALIBRATED_BATCH


def test_uncalibrated_json_says_ideal(tmp_path):
    data = json.loads((build(tmp_path, "goodput", "--format", "json") / "goodput.json").read_text())
    assert data["calibration"] is None and data["calibration_note"] == IDEAL
    assert data["answers"]["max_batch"]["value"] == 64


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_generated_module_is_calibrated_and_says_so(built):
    text = (built / "goodput.py").read_text()
    doc = " ".join(text.split('"""')[1].split())
    assert f"Calibrated ({NAME}) to 4 measured runs of TensorRT-LLM 0.6.1" in doc and "Each fitted value is its input's default here." in doc
    module = _module(built / "goodput.py", "calibrated_goodput")
    assert module.solve().bandwidth_efficiency == EFFICIENCY and module.max_batch() == CALIBRATED_BATCH
    assert module.max_batch(bandwidth_efficiency=1) == 64  # the ideal machine, one argument away
    numpy = _module(built / "goodput_np.py", "calibrated_goodput_np")
    assert int(numpy.max_batch()) == CALIBRATED_BATCH
    assert "Uncalibrated: not fitted to measured runs" in " ".join((ROOT / "tests" / "golden" / "goodput.py").read_text().split('"""')[1].split())


def test_a_query_function_takes_the_calibrated_values(tmp_path):
    """build --find batch --given tpot=10ms: the query's batch at 10 ms is (0.763012 x 3.35 TB/s x 10 ms - 16.06 GB) / 268.4 MB = 35.39."""
    out = build(tmp_path, "goodput", "--calibration", NAME, "--format", "py", "--find", "batch", "--given", "tpot=10ms")
    module = _module(out / "goodput.py", "calibrated_goodput_query")
    assert module.batch_from_tpot(10).batch == pytest.approx((EFFICIENCY * B * 0.010 - W) / KV, rel=1e-12)


def test_workbook_says_so_on_the_cover_and_the_sheet(built):
    wb = openpyxl.load_workbook(built / "chains.xlsx")
    cover = {row[0]: row[1] for row in wb["Cover"].iter_rows(values_only=True) if row[0]}
    assert cover["Calibration"].startswith(f"goodput is calibrated ({NAME}) to 4 measured runs") and "MAPE 2.54 %" in cover["Calibration"]
    sheet = wb["goodput"]
    assert sheet["A4"].value.startswith(f"Calibrated ({NAME})") and "typed in the inputs below" in sheet["A4"].value
    row = next(r for r in sheet.iter_rows() if r[0].value == "bandwidth_efficiency")
    assert row[3].value == EFFICIENCY and row[4].value == 1  # typed (yours), beside the ideal default
    assert f"[calibrated ({NAME})" in row[5].value


def test_derivation_sheet_has_the_fit_and_the_rows(built):
    tex = (built / "goodput.tex").read_text()
    assert r"\textbf{Calibrated.} Calibrated (trtllm-0.6.1-h100-fp8-decode)" in tex
    assert r"\chainsubsection{Calibration}" in tex and "figures/goodput-calibration.pdf" in tex
    recorded = yaml.safe_load((ROOT / "calibrations" / f"{NAME}.yaml").read_text())["residual_rows"]
    for r in recorded:  # each row: measured, calibrated, its error, the roofline and its error
        error, ideal = 100 * (r["predicted"] / r["measured"] - 1), 100 * (r["roofline"] / r["measured"] - 1)
        assert f"{r['line']} & {r['measured']:.0f} & {round(r['predicted'])} & {error:.1f} & " in tex
        assert f" & {ideal:.1f} & " in tex
    assert (built / "figures" / "goodput-calibration.pdf").read_bytes().startswith(b"%PDF")
    plain = (ROOT / "tests" / "golden" / "goodput.tex-body").read_text()
    assert "Uncalibrated: not fitted to measured runs" in plain and "chainsubsection{Calibration}" not in plain


def test_same_inputs_same_bytes(built, tmp_path):
    again = build(tmp_path, "goodput", "--calibration", NAME, "--format", "json,xlsx,tex,py", "--numpy")
    for rel in ("goodput.json", "chains.xlsx", "goodput.tex", "goodput.py", "goodput_np.py", "figures/goodput-calibration.pdf"):
        assert (again / rel).read_bytes() == (built / rel).read_bytes(), rel


def test_pdf_has_the_calibration(tmp_path):
    require("pdflatex", "pdftotext")
    import subprocess

    out = build(tmp_path, "goodput", "--calibration", NAME, "--format", "pdf")
    text = subprocess.run(["pdftotext", "-layout", str(out / "goodput.pdf"), "-"], capture_output=True, text=True, check=True).stdout
    assert "Calibration" in text and "MAPE 2.54 %" in text and "6,818" in text and "9,250" in text


def test_recalculated_calibrated_workbook_matches_the_report(project, tmp_path):
    """LibreOffice recalculates the calibrated sheet to the compiler's numbers; clearing the typed efficiency
    gives the ideal machine's answer back (64)."""
    require("soffice")
    from chainc.backends.excel import build_workbook
    from chainc.report import catalog_report

    from .excel_recalc import recalculate
    from .test_excel import compare, error_cells, report_cells, stale_copy

    rs, catalog = reports(project, ["goodput"], calibration=NAME), catalog_report(project.catalog)
    data, manifest = build_workbook(rs, catalog)
    stale, _ = stale_copy(data)
    (tmp_path / "stale.xlsx").write_bytes(stale)
    wb = openpyxl.load_workbook(tmp_path / "stale.xlsx")
    sheet, coord = manifest.cells[("goodput", "input", "bandwidth_efficiency")]
    wb[sheet][coord] = None
    wb.save(tmp_path / "cleared.xlsx")
    got, cleared = recalculate([tmp_path / "stale.xlsx", tmp_path / "cleared.xlsx"], tmp_path / "out")
    book = openpyxl.load_workbook(got, data_only=True)
    want = report_cells(rs, catalog, manifest)
    for key in want:  # the card's checks are the ideal machine's: beside calibrated values they are references
        if key[1] == "status":
            want[key] = "reference"
    n, wrong = compare(book, manifest, want)
    assert not wrong and n > 30, "\n".join(wrong[:20])
    assert not error_cells(book, manifest)
    sheet, coord = manifest.cells[("goodput", "question", "max_batch")]
    assert book[sheet][coord].value == CALIBRATED_BATCH
    assert openpyxl.load_workbook(cleared, data_only=True)[sheet][coord].value == 64


def test_api_evaluate_with_a_calibration(project):
    import chainc

    r = chainc.evaluate("goodput", calibration=NAME, project=project)
    assert r.calibration.name == NAME and r.calibration_text.startswith(f"calibrated ({NAME})") and r.answer("max_batch").value == CALIBRATED_BATCH
    assert r.calibration.rows[0].measured == 6818 and r.calibration.rows[0].roofline == pytest.approx(112 / ((6.738415616e9 + 112 * 1152 * 262144) / B), rel=1e-5)
    assert f"calibrated ({NAME})" in repr(r)
    assert chainc.evaluate("goodput", project=project).calibration_text == IDEAL


def test_a_check_with_no_value_under_the_calibration_is_a_reference(tmp_path):
    """NIM's TP2 calibration halves tensor-parallel's bandwidth (0.487): the card's check that TP 8 meets 8 ms has no
    answer there (TP 8 reads (17.64 + 5.37) GB a step at 0.487 x 3.35 TB/s: 14.1 ms before its all-reduces), which is the calibration's
    reference, not a failed check: the build writes its JSON."""
    data = json.loads((build(tmp_path, "tensor-parallel", "--calibration", "nim-1.8.0-h100-tp2-fp8-llama-3.3-70b", "--format", "json") / "tensor-parallel.json").read_text())
    none = [c for c in data["checks"] if c["lines"][0].startswith("n/a  no value here")]
    assert len(none) == 1 and none[0]["ok"] and not none[0]["applies"] and "TP 8 meets it" in none[0]["about"]
    assert "(written for the uncalibrated chain): question smallest_tp: no tp meets" in none[0]["lines"][0]
    assert not any(c["applies"] for c in data["checks"])


# --- refusals: exit 2, a located error with a hint, and nothing written ------------------------------------------


def _refused(capsys, tmp_path, *args: str, root: Path | None = None) -> str:
    out = build(tmp_path, *args, code=2, root=root)
    assert not out.exists() or not any(out.iterdir()), "a refused build wrote files"
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


def test_a_calibration_of_a_model_not_built(capsys, tmp_path):
    err = _refused(capsys, tmp_path, "kv-ceiling", "--calibration", NAME, "--format", "json")
    assert f"calibrations/{NAME}.yaml: error: calibration '{NAME}' is of model 'goodput', which this build does not include (it builds kv-ceiling)" in err
    assert f"hint: build that model: chainc build goodput --calibration {NAME}" in err


def test_a_calibration_of_an_imported_model(capsys, tmp_path):
    err = _refused(capsys, tmp_path, "goodput", "long-prompt", "--calibration", NAME, "--format", "json")
    assert "is of model 'goodput', which long-prompt imports" in err and f"chainc build goodput --calibration {NAME}" in err


def test_an_unknown_calibration(capsys, tmp_path):
    err = _refused(capsys, tmp_path, "goodput", "--calibration", "no-such", "--format", "json")
    assert "error: no calibration 'no-such' in calibrations/" in err and NAME in err


@pytest.mark.parametrize(
    "text, why",
    [
        ("model: goodput\nfitted: [1, 2]\n", "model and fitted values expected"),
        ("model: goodput\nfitted: {bandwidth_efficiency: {value: .inf}}\n", "model and fitted values expected"),
        ("model: goodput\nfitted: {bandwidth_efficiency: {value: 0.8, stderr: x}}\n", "fitted bandwidth_efficiency: stderr is not a number"),
        ("model: goodput\nfitted: {bandwidth_efficiency: {value: 0.8}}\nresiduals: {mape_percent: high}\n", "residuals: numbers expected"),
        ("model: goodput\nfitted: {bandwidth_efficiency: {value: 0.8}}\nresidual_rows:\n- {line: 2, name: tpot, measured: 5, predicted: x, roofline: 4}\n", "row 1 of residual_rows"),
        ("model: goodput\nfitted: {bandwidth_efficiency: {value: 0.8}}\nresidual_rows:\n- {line: 2, name: tpot, measured: 0, predicted: 1, roofline: 4}\n", "row 1 of residual_rows"),
        ("model: goodput\nfitted: {tpot_target_x: {value: 0.8}}\n", "fits tpot_target_x, which model 'goodput' does not have"),
        ("model: goodput\nhardware: 5\nfitted: {bandwidth_efficiency: {value: 0.8}}\n", "hardware: text expected"),
        ("model: goodput\ngpus: h100-sxm\nfitted: {bandwidth_efficiency: {value: 0.8}}\n", "gpus, llms: lists of catalog ids"),
        ("model: goodput\nfitted: {bandwidth_efficiency: {value: 0.8, unit: [ms]}}\n", "unit is not text"),
        ("model: goodput\nfitted: {bandwidth_efficiency: {value: 0.8}\n", "not a calibration ("),
    ],
)
def test_a_corrupt_calibration_is_refused_at_its_file(capsys, tmp_path, text, why):
    root = tmp_path / "project"
    (root / "models").mkdir(parents=True)
    (root / "calibrations").mkdir()
    (root / "calibrations" / "bad.yaml").write_text(text)
    err = _refused(capsys, tmp_path, "goodput", "--calibration", "bad", "--format", "json", root=root)
    assert "bad.yaml: error: " in err and why in err and "hint: " in err
