"""Every answer the model has: numeric solves past jumps and poles, several roots, intervals, questions that search."""

from __future__ import annotations

import pytest

import chainc

from .conftest import ROOT

MODELS = ROOT / "tests" / "models"
W, BW, CKV = 16.060522496e9, 3.35e12, 2048 * 131072  # goodput's weights, bandwidth, KV bytes per sequence


def test_a_jump_does_not_hide_the_root():
    """goodput = batch / tpot below the cliff: b BW / (W + b c kv) = 6000 -> b = 6000 W / (BW - 6000 c kv)."""
    s = chainc.solve("goodput", goodput="6000token/s", find=["batch"])
    assert s.value("batch") == pytest.approx(6000 * W / (BW - 6000 * CKV), rel=1e-9)
    assert s.value("batch") == pytest.approx(55.4006, abs=1e-4) and not s.notes


def test_an_interval_of_solutions_is_said():
    s = chainc.solve("goodput", goodput="0token/s", find=["tpot_target"])
    assert len(s.notes) == 1 and "tpot_target is not unique: every value up to 9.9225 ms/token" in s.notes[0]
    assert s.value("tpot_target") < 9.9225


def test_the_search_stays_on_the_admissible_side_of_a_pole():
    """rho / (mu - lambda) = 0.1 s with mu = 10/s: lambda / (10 (10 - lambda)) = 0.1 -> lambda = 5."""
    s = chainc.solve(str(MODELS / "mm1.yaml"), wait="0.1 s", find=["arrival_rate"])
    assert s.value("arrival_rate") == pytest.approx(5, rel=1e-9) and not s.notes


def test_a_question_without_closed_form_searches_its_domain():
    a = chainc.ask(str(MODELS / "mm1.yaml"), "max_rate")
    assert a.answer() == pytest.approx(5, rel=1e-9) and a.rounding.how in ("search", "boundary")


@pytest.mark.parametrize("prefill", [5, 6, 7])
def test_a_closed_form_through_a_ceil_is_checked_by_a_search(prefill):
    """ceil(demand / per-GPU throughput) <= 8 - prefill: SymPy's boundary for ceil(y) = 1 is 1/512 request/s, where
    the condition holds on both sides. The answer is the search's, checked here by the model itself on the grid of 0.01
    (it once said 'no largest arrival_rate' with 7 of 8 GPUs prefilling, and quoted the wrong boundary for 5 and 6)."""
    a = chainc.ask("disaggregated", "max_rate_decode", prefill_gpus=prefill)
    rate = a.value
    assert "boundary" not in a.how, a.how
    decode = [chainc.solve("disaggregated", prefill_gpus=prefill, arrival_rate=f"{r} request/s").value("decode_gpus") for r in (rate, round(rate + 0.01, 2))]
    assert decode[0] <= 8 - prefill < decode[1], (rate, decode)


def test_both_generated_flavours_check_a_ceils_closed_form(tmp_path):
    """The generated modules run the same rule (runtime/answer.py copied, answer_np.py vectorised)."""
    import numpy as np

    from chainc import Project
    from chainc.backends import BuildOptions

    from .test_python_backend import build, load

    project = Project(ROOT)
    model = project.model("disaggregated")
    want = [chainc.ask("disaggregated", "max_rate_decode", prefill_gpus=p).value for p in (5, 6, 7)]
    py = next(p for p in build(project, [model], "py", BuildOptions(tmp_path / "py")) if p.stem == "disaggregated")
    npy = next(p for p in build(project, [model], "py", BuildOptions(tmp_path / "np", numpy=True)) if p.stem == "disaggregated_np")
    assert [load(py).max_rate_decode(prefill_gpus=p) for p in (5, 6, 7)] == pytest.approx(want, rel=1e-12)
    assert load(npy).max_rate_decode(prefill_gpus=np.array([5, 6, 7])) == pytest.approx(want, rel=1e-12)
