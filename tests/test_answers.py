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
