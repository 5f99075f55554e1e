"""Physical limits (`limits:`, issue 22 point 5): a limit that fails warns in every output, beside the numbers.

The issue's case: goodput for Llama 3.1 405B on an L40S (48 GB) answers max_batch with batch 49 at a
1,000 ms target, where a step reads 863.5 GB: no such machine exists. Derived here from the catalog's
published values, not from chainc's output: the weights are 405,853,388,800 parameters x 2 B
(the safetensors index) = 811.7068 GB; a token's KV is 2 x 126 layers x 8 KV heads x 128 x 2 B =
516,096 B (config.json); the L40S streams 0.864 TB/s and holds 48 GB (datasheet). At T = 1 s,
batch = floor((T x 864e9 B - 811.7068e9 B) / (2,048 x 516,096 B)) = floor(49.47) = 49, and
step_bytes = 811.7068e9 + 49 x 2,048 x 516,096 = 863.498 GB > 48 GB.
The load errors are corpus cases (test_errors: limit-*.yaml).
"""

from __future__ import annotations

import html
import json
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from chainc.api import ask, evaluate, solve
from chainc.cli import main
from tests.test_errors import run
from tests.test_python_backend import load

WEIGHTS = 405853388800 * 2  # B
KV = 2 * 126 * 8 * 128 * 2  # B/token
BATCH = math.floor((1.0 * 0.864e12 - WEIGHTS) / (2048 * KV))
STEP_GB = (WEIGHTS + BATCH * 2048 * KV) / 1e9
WARNING = "memory limit fails: step_bytes 863.5 GB > memory 48 GB"
ISSUE = ["solve", "goodput", "--llm", "llama-3.1-405b", "--gpu", "l40s", "--question", "max_batch", "--given", "tpot_target=1000ms"]


def test_the_derivation_is_the_issues():
    assert BATCH == 49 and round(STEP_GB, 1) == 863.5


@pytest.mark.parametrize("cache", [["--no-cache"], []])  # planned afresh, and from the plan cache (the warm path)
def test_the_issues_command_says_the_answer_describes_no_machine(capsys, cache):
    for _ in range(2):  # the second run of the cached case reads the stored plan
        code, out, _ = run(capsys, *ISSUE, *cache)
        assert code == 0
        assert f"batch = {BATCH} (floor of the boundary" in out and f"holds there — but {WARNING}" in out
        assert f"warning: {WARNING}" in out and "limit: step_bytes <= memory" in out
        assert out.count("[memory limit fails]") == 2  # beside step_bytes and memory, the values it reads


def test_json_carries_the_warning_on_the_solution_and_the_answer(capsys):
    code, out, _ = run(capsys, *ISSUE, "--json")
    data = json.loads(out)
    for w in (data["warnings"][0], data["answer"]["warnings"][0]):
        assert w["limit"] == "memory" and w["condition"] == "step_bytes <= memory" and w["message"] == WARNING
        assert w["left"] == pytest.approx(STEP_GB) and w["right"] == pytest.approx(48) and w["affects"] == ["memory", "step_bytes"]
    assert data["answer"]["value"] == BATCH


def test_no_warning_where_the_limit_holds(capsys):
    code, out, _ = run(capsys, "solve", "goodput", "--json")
    data = json.loads(out)
    assert data["warnings"] == [] and "limit fails" not in out  # 16.06 + 64 x 2,048 x 131,072 B = 33.2 GB fit in 80 GB


def test_the_api_shows_it_in_values_reprs_and_html():
    a = ask("goodput", "max_batch", gpu="l40s", llm="llama-3.1-405b", tpot_target="1000 ms")
    assert a.value == BATCH and [w.message for w in a.warnings] == [WARNING]
    assert WARNING in repr(a) and html.escape(WARNING) in a._repr_html_() and WARNING in a.sentence()
    s = solve("goodput", gpu="l40s", llm="llama-3.1-405b", batch=BATCH)
    (w,) = s.warnings
    assert w.left == pytest.approx(STEP_GB) and w.right == 48 and str(w) == WARNING
    assert f"warning: {WARNING}" in repr(s) and "warning" in s._repr_html_()
    assert solve("goodput").warnings == () and "warning" not in repr(solve("goodput"))
    r = evaluate("goodput", gpu="l40s", llm="llama-3.1-405b")
    assert r.warnings and "memory limit fails: step_bytes 879.4 GB > memory 48 GB" in repr(r)  # batch 64: 811.7 + 67.6 GB


def test_every_bundled_memory_bound_is_declared():
    """The chains whose questions bound memory declare it as a limit too, read the same way."""
    for name in ("goodput", "kv-ceiling", "paged-kv", "quantization", "moe", "tensor-parallel", "disaggregated", "chunked-prefill"):
        assert "memory" in {x.name for x in solve(name).program.physical} or name == "kv-ceiling", name
        assert solve(name).warnings == (), name  # on their own hardware, at their defaults, they all hold
    # tensor parallelism of 1 on the default H100: 141.1 GB of 70B weights alone exceed 80 GB
    (w,) = solve("tensor-parallel", tp=1).warnings
    assert w.message.startswith("memory limit fails: decode.step_bytes ") and w.left > 141 and w.right == 80


def test_a_constant_side_shows_its_value_alone():
    (w,) = solve("paged-kv", gpu_memory_utilization=0.2).warnings  # 0.2 x 80 GB cannot hold 8B weights (14.96 GiB)
    assert w.message.startswith("memory limit fails: kv_budget -") and w.message.endswith(" GiB <= 0 GiB")


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    out = tmp_path_factory.mktemp("limits")
    assert main(["build", "goodput", "--out", str(out), "--format", "py", "--numpy"]) == 0
    return load(out / "goodput.py"), load(out / "goodput_np.py")


def test_generated_modules_warn(modules):
    plain, vec = modules
    with pytest.warns(UserWarning, match=WARNING):
        s = plain.solve(gpu="l40s", llm="llama-3.1-405b", batch=BATCH)
    assert s.step_bytes == pytest.approx(STEP_GB)  # the numbers are returned all the same
    with pytest.warns(UserWarning, match=r"memory limit fails: step_bytes 812\.8 GB > memory 48 GB at 2 of 2 points"):
        vec.solve(gpu="l40s", llm="llama-3.1-405b", batch=np.array([1, BATCH]))  # 811.7 + 1.057 GB at batch 1
    with pytest.warns(UserWarning, match=WARNING):  # the question's answer where the limit fails says so
        assert plain.max_batch(gpu="l40s", llm="llama-3.1-405b", tpot_target=1000) == BATCH
    with pytest.warns(UserWarning, match=WARNING + r" at 2 of 2 points, the first at index \(0,\)"):  # the NumPy flavour's answers too
        assert list(vec.max_batch(gpu="l40s", llm="llama-3.1-405b", tpot_target=np.array([1000.0, 1000.0]))) == [BATCH, BATCH]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # where the limit holds: no warning
        plain.solve()
        vec.solve(batch=np.array([1, 64]))
        assert plain.max_batch() == 64
        assert list(vec.max_batch(tpot_target=np.array([10.0, 12.0]))) == [64, plain.max_batch(tpot_target=12)]


def test_the_derivation_sheet_lists_each_limit_with_its_status(tmp_path):
    assert main(["build", "goodput", "--out", str(tmp_path / "a"), "--format", "tex", "--gpu", "l40s", "--llm", "llama-3.1-405b"]) == 0
    tex = (tmp_path / "a" / "goodput.tex").read_text()
    assert r"\chainsubsection{Physical limits}" in tex and r"\textbf{Fails here:} memory limit fails: step\_" in tex and "879.4 GB" in tex
    assert main(["build", "goodput", "--out", str(tmp_path / "b"), "--format", "tex"]) == 0
    assert r"\texttt{step\_bytes \textless{}= memory}" in (tmp_path / "b" / "goodput.tex").read_text() and "Holds here." in (tmp_path / "b" / "goodput.tex").read_text()


def test_the_sheet_says_so_at_an_answer():
    from chainc.backends.latex.assemble import environment, sheet_body

    report = evaluate("goodput", gpu="l40s", llm="llama-3.1-405b", tpot_target="1000 ms")
    body, _ = sheet_body(environment(), report)
    assert r"\textbf{But at this answer the memory limit fails: step\_" in body and "863.5 GB" in body


@pytest.mark.slow
def test_the_workbook_recalculates_the_verdict_live(tmp_path):
    """A reader types batch 300 on the default H100: 16.06 + 300 x 2,048 x 131,072 B = 96.6 GB > 80 GB, in both engines."""
    import openpyxl

    from .tools import require

    require("soffice", "ssconvert")
    from .excel_recalc import recalculate
    from .gnumeric_recalc import recalculate_gnumeric

    assert main(["build", "goodput", "--out", str(tmp_path), "--format", "xlsx"]) == 0
    wb = openpyxl.load_workbook(tmp_path / "chains.xlsx")
    ws = wb["goodput"]
    header = next(r for r in ws.iter_rows() if r[0].value == "name")
    column = next(i for i, c in enumerate(header) if c.value == "your value")
    next(r for r in ws.iter_rows() if r[0].value == "batch")[column].value = 300
    wb.save(tmp_path / "typed.xlsx")
    before = _limit_row(openpyxl.load_workbook(tmp_path / "chains.xlsx", data_only=True)["goodput"])
    assert before[1] == "OK"  # as built, at batch 64: 33.2 GB
    for engine, recalc in {"LibreOffice": recalculate, "Gnumeric": recalculate_gnumeric}.items():
        (fresh,) = recalc([tmp_path / "typed.xlsx"], tmp_path / engine)
        row = _limit_row(openpyxl.load_workbook(fresh, data_only=True)["goodput"])
        assert row[1] == "FAILS", (engine, row)
        assert row[2] == pytest.approx(16.060522496 + 300 * 2048 * 131072 / 1e9) and row[3] == pytest.approx(80)
        assert str(row[4]).startswith("memory limit fails: step_bytes 96.59") and str(row[4]).endswith(" GB > memory 80 GB"), (engine, row[4])


@pytest.mark.slow
def test_the_workbooks_answer_says_so_live(tmp_path):
    """A reader types a 100 ms target on the default H100 with Llama 3.1 8B: max_batch is
    floor((0.1 s x 3.35e12 B/s - 16.0605e9 B) / (2,048 x 131,072 B)) = floor(1188.14) = 1188, where a step reads
    16.0605 + 1188 x 0.268435 = 334.96 GB > 80 GB: the answer's message says so, in both engines."""
    import openpyxl

    from .tools import require

    require("soffice", "ssconvert")
    from .excel_recalc import recalculate
    from .gnumeric_recalc import recalculate_gnumeric

    assert main(["build", "goodput", "--out", str(tmp_path), "--format", "xlsx"]) == 0
    wb = openpyxl.load_workbook(tmp_path / "chains.xlsx")
    ws = wb["goodput"]
    header = next(r for r in ws.iter_rows() if r[0].value == "name")
    column = next(i for i, c in enumerate(header) if c.value == "your value")
    next(r for r in ws.iter_rows() if r[0].value == "tpot_target")[column].value = 100
    wb.save(tmp_path / "typed.xlsx")
    built = next(r for r in openpyxl.load_workbook(tmp_path / "chains.xlsx", data_only=True)["goodput"].iter_rows(values_only=True) if r[0] == "max_batch")
    assert "limit fails" not in str(built[3])  # batch 64 at 10 ms fits
    for engine, recalc in {"LibreOffice": recalculate, "Gnumeric": recalculate_gnumeric}.items():
        (fresh,) = recalc([tmp_path / "typed.xlsx"], tmp_path / engine)
        row = next(r for r in openpyxl.load_workbook(fresh, data_only=True)["goodput"].iter_rows(values_only=True) if r[0] == "max_batch")
        assert row[1] == 1188, (engine, row)
        assert str(row[3]).startswith("batch = 1188: ") and " — but memory limit fails: step_bytes 334.96" in str(row[3]) and str(row[3]).endswith(" GB > memory 80 GB"), (engine, row[3])


def _limit_row(ws) -> list:
    rows = list(ws.iter_rows(values_only=True))
    start = next(k for k, r in enumerate(rows) if r[0] == "Physical limits")
    return list(next(r for r in rows[start:] if r[0] == "memory"))


def test_a_model_of_ones_own(tmp_path, capsys):
    """An expression side shows in the unit of a name it reads; `about` is optional."""
    path = Path(tmp_path) / "fit.yaml"
    path.write_text(
        "name: fit\ntitle: Fit\nvariables:\n  memory: {unit: GB, value: 80}\n  weights: {unit: GB, value: 70}\n  kv: {unit: GB, value: 5}\n"
        "  used: {unit: GB}\nequations:\n  - used = weights + kv\nlimits:\n  headroom: weights + kv <= 0.9 * memory\n"
    )
    assert solve(str(path)).warnings[0].message == "headroom limit fails: weights + kv 75 GB > 0.9 * memory 72 GB"
    assert solve(str(path), kv="1 GB").warnings == ()
    code, out, _ = run(capsys, "solve", str(path), "--no-cache")
    assert code == 0 and "warning: headroom limit fails" in out
