"""Searches over configurations, objectives and frontiers (issue 21): the rule, the solver against a loop by hand, the batch path.

tests/models/searches.yaml is a decode roofline split over tp GPUs; the loops below write its
equations out in plain Python over the catalog's numbers as its YAML files give them, so a
wrong grid, inner answer, condition or ranking in chainc shows as a disagreement.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
import yaml

import chainc
from chainc import choosing
from chainc.errors import ArgumentError, ChaincError
from chainc.runtime import choose as rule

from .conftest import ROOT

MODEL = ROOT / "tests" / "models" / "searches.yaml"


def _catalog(kind: str, entry: str, field: str) -> float:
    text = yaml.safe_load((ROOT / "hardware" / kind / f"{entry}.yaml").read_text())
    values = text.get("values", text)
    return float(str(values[field]["value"]).split()[0])


# --- the rule, on its own --------------------------------------------------------------------------


def test_ranked_breaks_ties_by_the_row_listed_first_and_skips_rows_without_a_value():
    assert rule.ranked([3, 1, None, 1, 2], [True, True, True, True, False], "min") == [1, 3, 0]
    assert rule.ranked([3, 1, None, 1, 2], [True] * 5, "max") == [0, 4, 1, 3]


def test_the_frontier_keeps_what_no_other_beats_on_both_goals():
    xs = [1, 2, 3, 2, 3, 0.5]
    ys = [5, 4, 1, 4, 2, 5]  # row 3 equals row 1 (both stay); row 2 is beaten by row 4; row 5 by row 0
    assert rule.frontier(xs, ys, [True] * 6, "max", "max") == [4, 1, 3, 0]
    assert rule.frontier(xs, ys, [True, True, True, True, False, True], "max", "max") == [2, 1, 3, 0]


def test_binding_counts_what_keeps_better_rows_out():
    goal = [1, 2, 3, 4, None]
    assert rule.binding(goal, ["latency", "memory", "", "latency", "max_batch"], 3, "min") == [("latency", 1), ("memory", 1)]
    assert rule.binding(goal, ["a", "a", "b", "", ""], None, "min") == [("a", 2), ("b", 1)]


def test_shortfall_and_closest():
    assert rule.shortfall("<=", 12, 10) == pytest.approx(2 / 12)
    assert rule.shortfall("<=", 10, 10) == 0
    assert rule.closest([None, 0.5, 0.2, 0.2]) == 2


def test_placement_along_each_axis():
    # 2 x 3 grid; goal minimised at row 4 (axis 0 at 1: its last value, axis 1 at 1: between 3 and 5)
    goal = [9, 9, 9, 3, 1, 5]
    assert rule.placement(4, (2, 3), goal, [True] * 6, "min") == ["edge", "interior"]
    assert rule.placement(4, (2, 3), goal, [True, True, True, False, True, True], "min") == ["edge", "bound"]


def test_the_optimum_of_a_parabola_inside_at_an_edge_and_against_a_condition():
    x, y, where = rule.optimum(lambda x: (x - 0.3) ** 2, 0.0, 1.0, "min")
    assert (abs(x - 0.3) < 1e-9, where) == (True, "interior")
    x, _, where = rule.optimum(lambda x: (x - 2.0) ** 2, 0.0, 1.0, "min")
    assert (x, where) == (1.0, "edge")
    x, _, where = rule.optimum(lambda x: None if x > 0.6 else -x, 0.0, 1.0, "min")  # a condition cuts at 0.6
    assert abs(x - 0.6) < 1e-9 and where == "bound"
    with pytest.raises(ValueError):
        rule.optimum(lambda x: None, 0.0, 1.0, "min")


# --- the solver against the model written out by hand -------------------------------------------------


W = 70_553_706_496 * 2 / 1e9  # GB: llama-3.1-70b's params x 2 B
KV = 2 * 80 * 8 * 128 * 2  # B/token


def _tpot_ms(batch, tp, bw_tbs, context=2048, launch=0.5, overlap=0.5):
    return (W + batch * context * KV / 1e9) / tp / (bw_tbs * 1e3) * 1e3 + launch * tp * overlap + 1 / overlap


def _cheapest_by_hand(target=20.0):
    rows = []
    for gpu in ("h100-sxm", "h200", "l40s", "a100-sxm-80gb"):
        bw, memory, price = (_catalog("gpus", gpu, f) for f in ("memory_bandwidth", "memory", "price_per_hour"))
        for tp in (1, 2, 4, 8):
            fits = [b for b in range(1, 4097) if _tpot_ms(b, tp, bw) <= target]
            if not fits:
                rows.append((gpu, tp, None, None, "max_batch"))
                continue
            b = max(fits)
            step_gb = (W + b * 2048 * KV / 1e9) / tp
            cost = tp * price / (b / (_tpot_ms(b, tp, bw) / 1e3)) * 1e6 / 3600  # USD/h / token/s -> USD/Mtoken
            rows.append((gpu, tp, b, cost, "" if step_gb <= memory else "memory"))
    return rows


@pytest.mark.parametrize("target", [20, 15, 40])
def test_cheapest_agrees_with_a_loop_by_hand(target):
    c = chainc.ask(str(MODEL), "cheapest", tpot_target=target)
    rows = _cheapest_by_hand(target)
    ok = sorted((r for r in rows if not r[4]), key=lambda r: r[3])
    assert c.best is not None and ok
    assert (c.value["gpu"], c.value["tp"], c.value["batch"]) == ok[0][:3]
    assert c.value["cost"] == pytest.approx(ok[0][3], rel=1e-9)
    assert [(r["gpu"], r["tp"], r["batch"]) for r in c.table()] == [r[:3] for r in ok[:3]]
    assert [f or "" for f in c.failed] == [r[4] for r in rows]
    assert c.feasible == len(ok)


def test_no_configuration_names_the_closest_one():
    c = chainc.ask(str(MODEL), "cheapest", tpot_target=2.5)  # no batch meets 2.5 ms anywhere: every row fails max_batch
    assert c.best is None and c.solution is None
    assert "no configuration meets the conditions (16 searched)" in c.sentence()
    c = chainc.ask(str(MODEL), "cheapest", tpot_target=1000)  # 4,096 sequences meet 1 s, and their KV fits no GPU
    assert c.best is None and c.closest is not None
    assert f"the closest is {c.describe(c.closest)}" in c.sentence() and "memory: step_bytes = " in c.sentence()


def test_the_fastest_tp_by_hand_and_where_it_sits():
    c = chainc.ask(str(MODEL), "fastest_tp")
    times = {tp: _tpot_ms(64, tp, 3.35) for tp in (1, 2, 4, 8, 16, 32, 64)}
    assert c.value == min(times, key=times.get) == 16
    assert c.placement == ("interior",)
    assert [r["tp"] for r in c.table()] == sorted(times, key=times.get)[:5]


def test_a_continuous_objective_is_optimised_inside_its_range():
    c = chainc.ask(str(MODEL), "best_overlap")
    # 6.868 ms + 4 ms x o + 1 ms / o at tp 8: least at o = 1/2
    assert c.value == pytest.approx(0.5, rel=1e-6)
    assert c.free_where == "interior"
    assert float(c.solution.value("tpot")) == pytest.approx(_tpot_ms(64, 8, 3.35), rel=1e-9)


def test_the_frontier_by_hand():
    c = chainc.ask(str(MODEL), "interactivity")
    points = []
    for gpu in ("h100-sxm", "h200"):
        bw, memory = _catalog("gpus", gpu, "memory_bandwidth"), _catalog("gpus", gpu, "memory")
        for tp in (2, 4, 8):
            for b in (1, 4, 16, 64, 256):
                if (W + b * 2048 * KV / 1e9) / tp <= memory:
                    t = _tpot_ms(b, tp, bw)
                    points.append((gpu, tp, b, 1e3 / t, b * 1e3 / t))
    front = [p for p in points if not any(q[3] >= p[3] and q[4] >= p[4] and (q[3] > p[3] or q[4] > p[4]) for q in points)]
    got = [(r["gpu"], r["tp"], r["batch"]) for r in c.table()]
    assert sorted(got) == sorted(p[:3] for p in front)
    assert got == [p[:3] for p in sorted(front, key=lambda p: -p[3])]  # best x first


# --- the batch path gives the rows the one-by-one path gives ---------------------------------------------


def test_the_batch_path_agrees_with_the_rows_one_by_one(monkeypatch):
    from chainc.project import Project
    from chainc.searches import prepare_search

    project = Project()
    model = project.model(str(MODEL))
    for name in ("cheapest", "interactivity", "fastest_tp"):
        pc = prepare_search(model, project.catalog, name, frozenset(), None, None)
        monkeypatch.setattr(choosing, "BATCH_FROM", 1)
        fast = choosing.choose(pc, {})
        monkeypatch.setattr(choosing, "BATCH_FROM", 10**9)
        slow = choosing.choose(pc, {})
        assert fast.order == slow.order and fast.failed == slow.failed and fast.binding == slow.binding
        for a, b in zip(fast.goals[0], slow.goals[0]):
            assert (a is None) == (b is None) and (a is None or math.isclose(float(a), float(b), rel_tol=1e-9))
        assert fast.frontier or fast.solution.values == slow.solution.values  # the best, solved exactly either way
        assert len(fast.exact) < len(pc.configs) or name == "fastest_tp"


def test_the_rows_shown_are_the_solvers_exact_numbers(monkeypatch):
    monkeypatch.setattr(choosing, "BATCH_FROM", 1)
    c = chainc.ask(str(MODEL), "cheapest")
    assert set(c.order[: c.search.show]) <= c.exact
    assert all(isinstance(c.goals[0][i], Fraction) for i in c.order[: c.search.show])


# --- bad input -------------------------------------------------------------------------------------------


def test_a_gpu_given_to_a_search_that_chooses_it_is_refused():
    with pytest.raises(ArgumentError, match="chooses the GPU itself"):
        chainc.ask(str(MODEL), "cheapest", gpu="h200")


def test_a_value_the_search_varies_cannot_be_given():
    with pytest.raises(ArgumentError, match="tp is what question 'cheapest' varies"):
        chainc.ask(str(MODEL), "cheapest", tp=2)


def test_a_string_where_a_number_goes_is_a_located_error():
    with pytest.raises(ChaincError):
        chainc.ask(str(MODEL), "cheapest", tpot_target="fast")


def test_the_cli_answers_in_json(capsys):
    from chainc.cli import main

    assert main(["solve", str(MODEL), "--question", "cheapest", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    s = data["search"]
    assert s["kind"] == "best" and s["best"]["gpu"] == data["gpu"]
    assert [r["rank"] for r in s["table"]] == [1, 2, 3]
    assert s["failing"] == {"max_batch": 9} or sum(s["failing"].values()) == s["configurations"] - s["feasible"]


def test_a_block_sympy_cannot_close_in_time_is_solved_numerically(tmp_path, monkeypatch):
    """Three coupled quadratics kept sp.solve busy for minutes; past plan_step_seconds the block is searched."""
    import time

    from chainc.plan import _solve_shape

    monkeypatch.setenv("CHAINC_MAX_PLAN_STEP_SECONDS", "1")
    _solve_shape.cache_clear()
    path = tmp_path / "coupled.yaml"
    path.write_text(
        "name: coupled\ntitle: coupled quadratics\nvariables:\n  a: {value: 3}\n  b: {value: 2}\n  c: {value: 3}\n  x: {}\n  y: {}\n  z: {}\n"
        "equations:\n  - x**2 + y**2 + z = a\n  - x*y + z**2 = b\n  - x + y**2 + z**2 = c\n"
    )
    start = time.monotonic()
    s = chainc.solve(str(path))
    assert time.monotonic() - start < 30
    assert set(s.numeric) == {"x", "y", "z"}
    assert [s.value(n) for n in "xyz"] == pytest.approx([1, 1, 1], rel=1e-9)  # 1 + 1 + 1 = 3, 1 + 1 = 2, 1 + 1 + 1 = 3


def test_a_search_check_fails_alike_cold_and_warm(tmp_path):
    """The plan cache stores a search's prepared grid: a warm `chainc check` compares the chosen GPU too, without SymPy."""
    from .test_cache import chainc as cli

    text = MODEL.read_text() + "  - about: the cheapest is on an H100 (it is not, the H200 at TP 8 is)\n    question: cheapest\n    expect: {gpu: h100-sxm}\n"
    (tmp_path / "searches.yaml").write_text(text)
    cold, warm = (cli(tmp_path / "cache", "check", "searches.yaml", cwd=tmp_path) for _ in range(2))
    assert cold["code"] == warm["code"] == 1
    assert cold["out"] == warm["out"] and "FAIL" in cold["out"] and "2/3 checks" in cold["out"]
    assert "sympy" in cold["heavy"] and "sympy" not in warm["heavy"]
