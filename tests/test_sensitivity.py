"""Sensitivities: elasticities d ln y / d ln x, symbolic where a closed form exists, checked by hand and by differences."""

from __future__ import annotations

import json

import pytest

from chainc import Project
from chainc.cli import main
from chainc.results import Query
from chainc.sensitivity import _numeric, sensitivities
from chainc.solver import solve_query

from .conftest import ROOT

W, BW, T = 16.060522496e9, 3.35e12, 10e-3  # goodput's defaults: weight bytes, bandwidth, TPOT target


@pytest.fixture(scope="module")
def p():
    return Project(ROOT)


def test_the_boundary_of_max_batch_by_hand(p):
    """b = (BW T - W) / (c kv): d ln b / d ln BW = BW T / (BW T - W), d ln b / d ln W = -W / (BW T - W), c and kv: -1."""
    rows = {s.input: s for s in sensitivities(p.model("goodput"), p.catalog, Query(), question="max_batch")}
    assert rows["bandwidth"].elasticity == pytest.approx(BW * T / (BW * T - W), rel=1e-12)
    assert rows["tpot_target"].elasticity == pytest.approx(BW * T / (BW * T - W), rel=1e-12)
    assert rows["weight_bytes"].elasticity == pytest.approx(-W / (BW * T - W), rel=1e-12)
    assert rows["context"].elasticity == pytest.approx(-1) and rows["kv_bytes_per_token"].elasticity == pytest.approx(-1)
    assert all(s.method == "symbolic" for s in rows.values())
    assert list(rows)[0] in ("bandwidth", "tpot_target")  # sorted by size


@pytest.mark.parametrize("model, target", [("goodput", "throughput"), ("littles-law", "in_system"), ("kv-ceiling", "max_arrival_rate"), ("tenant-cost", None)])
def test_symbolic_agrees_with_differences(p, model, target):
    m = p.model(model)
    s = solve_query(m, p.catalog, Query())
    target = target or [n for n in m.variables if n not in s.plan.known][-1]
    for row in sensitivities(m, p.catalog, Query(), target):
        if row.method != "symbolic" or row.elasticity is None:
            continue
        var = m.variables[row.input]
        if s.values[row.input] == 0:  # an overhead at its default 0: x dy/dx / y is 0, and ln x has no difference to take
            assert row.elasticity == 0, (model, row.input)
            continue

        def at(v, x=row.input):
            return solve_query(m, p.catalog, Query(((x, v),), (), None, None, (), False)).values[target]

        numeric = _numeric(at, row.input, s.values[row.input], var.domain.integer)
        assert numeric == pytest.approx(row.elasticity, rel=1e-3, abs=1e-6), (model, row.input)


def test_numeric_sensitivities_through_tables(p):
    rows = {s.input: s for s in sensitivities(p.model("hol-blocking"), p.catalog, Query(), "fcfs_mean_ttft")}
    assert rows["mfu"].elasticity == pytest.approx(-1, rel=1e-6)  # every step's time is FLOPs / (peak x mfu)
    assert rows["peak_flops"].elasticity == pytest.approx(-1, rel=1e-6)


def test_cli_json(capsys):
    assert main(["solve", "goodput", "--question", "max_batch", "--sensitivity", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["sensitivity"]
    assert data["target"] == "batch" and data["rows"][0]["elasticity"] == pytest.approx(1.921, abs=1e-3)
    assert main(["solve", "goodput", "--sensitivity", "nope"]) == 2
    assert "no variable 'nope'" in capsys.readouterr().err
    assert main(["solve", "goodput", "--sensitivity", "batch"]) == 2
    assert "is an input here" in capsys.readouterr().err
