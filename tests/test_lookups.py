"""Lookups by name (issue 19): `lookups:`, `choices:` inputs and `table[key]`, in every backend.

Every number is derived here from the mapping in tests/models/lookups.yaml (bf16 16, fp8 8,
int4 4.25 bits) times 163,840 elements per token and 4,096 tokens; an unknown name is refused
with its choices and a did-you-mean everywhere. The load errors are corpus cases (test_errors).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import openpyxl
import pytest

from chainc.api import ask, solve
from chainc.cli import main
from chainc.errors import ChaincError
from tests.test_errors import run
from tests.test_hostile_round3 import typed_and_recalculated
from tests.test_python_backend import load

MODEL = Path(__file__).resolve().parent / "models" / "lookups.yaml"
BITS = {"bf16": 16, "fp8": 8, "int4": 4.25}


def kv_mb(dtype: str) -> float:
    return 163840 * 4096 * BITS[dtype] / 8 / 1e6


@pytest.mark.parametrize("dtype", list(BITS))
def test_the_solver_reads_the_lookup_at_the_name(dtype):
    s = solve(str(MODEL), kv_dtype=dtype)
    assert s.value("kv_dtype") == dtype and s.value("kv_bits") == BITS[dtype]
    assert s.value("kv_bytes") == pytest.approx(kv_mb(dtype), rel=1e-12)


def test_the_command_line_takes_and_prints_names(capsys):
    code, out, _ = run(capsys, "solve", MODEL, "--no-cache", "--given", "kv_dtype=int4")
    assert code == 0 and "kv_dtype     int4" in out and "356.5" in out
    code, out, _ = run(capsys, "solve", MODEL, "--no-cache", "--given", "kv_dtype=bf16", "--json")
    assert code == 0 and '"value": "bf16"' in out
    code, out, _ = run(capsys, "solve", MODEL, "--no-cache", "--explain")
    assert code == 0 and "if(kv_dtype == bf16, 16 bit, if(kv_dtype == fp8, 8 bit, 4.25 bit))" in out and "if(fp8 == bf16" in out


def test_an_unknown_name_is_refused_with_a_suggestion(capsys):
    code, _, err = run(capsys, "solve", MODEL, "--no-cache", "--given", "kv_dtype=fp9")
    assert code == 2 and "'fp9' is not one of kv_dtype's choices (bf16, fp8, int4)" in err and "did you mean kv_dtype=fp8?" in err
    with pytest.raises(ChaincError, match="kv_dtype is a name, one of bf16, fp8, int4"):
        solve(str(MODEL), kv_dtype=2)


def test_the_warm_path_takes_names_as_the_cold_one(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CHAINC_CACHE_DIR", str(tmp_path))
    outs = [run(capsys, "solve", MODEL, "--given", f"kv_dtype={d}")[1] for d in ("fp8", "int4", "int4")]
    assert outs[1] == outs[2] and "int4" in outs[2] and outs[0] != outs[1]
    assert run(capsys, "solve", MODEL, "--given", "kv_dtype=fp9")[0] == 2


def test_checks_give_names():
    code = main(["check", str(MODEL), "--no-cache"])
    assert code == 0


def test_a_question_reads_the_lookup(tmp_path):
    """quantization's largest batch at FP8 weights is the brute force's over the bits the dtypes name."""
    assert ask("quantization", "largest_batch", weight_dtype="fp8", scale_bits=0, tpot_target=30).answer() == 28


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    out = tmp_path_factory.mktemp("lookups")
    assert main(["build", str(MODEL), "--out", str(out), "--format", "py", "--numpy"]) == 0
    return load(out / "lookups.py"), load(out / "lookups_np.py")


def test_the_modules_take_a_str(modules):
    plain, vec = modules
    for dtype in BITS:
        r = plain.solve(kv_dtype=dtype)
        assert r.kv_dtype == dtype and r.kv_bytes == pytest.approx(kv_mb(dtype), rel=1e-12)
    r = vec.solve(kv_dtype=list(BITS))
    assert list(r.kv_dtype) == list(BITS) and np.allclose(r.kv_bytes, [kv_mb(d) for d in BITS], rtol=1e-12)
    assert plain.solve().kv_dtype == "fp8"


def test_the_modules_refuse_another_name(modules):
    plain, vec = modules
    for f in (lambda: plain.solve(kv_dtype="fp9"), lambda: plain.solve(kv_dtype=2), lambda: vec.solve(kv_dtype=["fp8", "e4m3"])):
        with pytest.raises(ValueError, match=r"is not one of kv_dtype's choices \(bf16, fp8, int4\)"):
            f()


def test_the_workbook_offers_the_names_as_a_dropdown(tmp_path):
    assert main(["build", str(MODEL), "--out", str(tmp_path), "--format", "xlsx"]) == 0
    ws = openpyxl.load_workbook(tmp_path / "chains.xlsx")["lookups"]
    assert {dv.formula1 for dv in ws.data_validations.dataValidation if dv.type == "list"} == {'"bf16,fp8,int4"'}
    row = next(r for r in ws.iter_rows() if r[0].value == "kv_dtype")
    assert row[4].value == "fp8" and row[1].value.startswith("=IF(")


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["bf16", "int4", "e4m3"])
def test_the_workbook_follows_the_dropdown_live(tmp_path, dtype):
    """A reader picks a dtype: LibreOffice and Gnumeric recompute the KV bytes; a name off the list is flagged."""
    for engine, rows in typed_and_recalculated(tmp_path, MODEL, "lookups", {"kv_dtype": dtype}).items():
        if dtype in BITS:
            assert rows["kv_bits"][1] == BITS[dtype], (engine, rows["kv_bits"])
            assert rows["kv_bytes"][1] == pytest.approx(kv_mb(dtype), rel=1e-9), (engine, rows["kv_bytes"])
        else:
            assert rows["kv_bytes"][1] == "#N/A", (engine, rows["kv_bytes"])
            assert any("is not one of kv_dtype's choices" in str(v) for v in rows["kv_dtype"]), (engine, rows["kv_dtype"])


def test_the_derivation_sheet_prints_names(tmp_path):
    assert main(["build", str(MODEL), "--out", str(tmp_path), "--format", "tex"]) == 0
    tex = (tmp_path / "lookups.tex").read_text()
    assert r"\mathrm{kv\_dtype} = \text{bf16}" in tex and r"= \text{bf16}$)" in tex and "{fp8}" in tex


@pytest.mark.slow
def test_the_derivation_sheet_compiles(tmp_path):
    assert main(["build", str(MODEL), "--out", str(tmp_path), "--format", "tex"]) == 0
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "lookups.tex"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:]
