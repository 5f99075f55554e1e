"""Several conditions in one question, in every output, against hand computations.

conditions.yaml (the smallest whole number of replicas):
  utilization = 1000 / (120 r) <= 0.8  ->  r >= 10.42  -> 11
  share       = 600 GB / r <= 40 GB    ->  r >= 15
  cost        = 2 r <= 100             ->  holds from the domain's edge r = 1 (up to 50)
  so r = 15, bound by the share; with 300 GB the share allows 8 and utilization binds at 11;
  with a budget of 20 (r <= 10) no r meets all three, although each holds somewhere.
stretches.yaml (the largest x in [0, 10]): f = (x - 2)(x - 6) >= 0 holds for x <= 2 and x >= 6.
  cap 8: the curve allows 10, the cap 8, f(8) = 12 >= 0: x = 8, bound by the cap;
  cap 5: the most restrictive limit 5 fails the curve (f(5) = -3): searched together, x = 2.
goodput on the card's H100 with Llama 3.1 8B: latency allows 64; memory allows
  floor((80 - 16.06) GB / (2,048 x 131,072 B)) = floor(238.19) = 238: the answer is 64, bound by latency.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import openpyxl
import pytest

import chainc
from chainc.cli import main
from chainc.errors import SolveError

from .conftest import ROOT
from .test_python_backend import load
from .tools import require

MODELS = Path(__file__).parent / "models"
REPLICAS = MODELS / "conditions.yaml"
STRETCHES = MODELS / "stretches.yaml"


def hand_replicas(total_memory=600, budget=100):
    """(answer, binding label, each label's own limit) by a loop over whole numbers."""
    ok = {
        "utilization": lambda r: 1000 / (r * 120) <= 0.8,
        "share": lambda r: total_memory / r <= 40,
        "cost": lambda r: 2 * r <= budget,
    }
    own = {k: next(r for r in range(1, 10_000) if f(r)) for k, f in ok.items()}
    both = [r for r in range(1, 10_000) if all(f(r) for f in ok.values())]
    return (both[0] if both else None), own


def test_the_answer_is_the_tightest_condition_and_names_it():
    for memory, budget in ((600, 100), (300, 100), (900, 100)):
        want, own = hand_replicas(memory, budget)
        a = chainc.ask(str(REPLICAS), "fewest_replicas", total_memory=memory, budget=budget)
        assert a.answer() == want
        assert {x.label: int(x.value) for x in a.limits} == own
        assert a.binding == tuple(k for k, v in own.items() if v == want)
        assert f"bound by {a.question.condition_text.split(' and ')[list(own).index(a.binding[0])]}" in a.how


def test_no_answer_only_when_no_value_meets_them_all():
    want, own = hand_replicas(600, 20)
    assert want is None and all(v is not None for v in own.values())  # each holds somewhere, never all three
    with pytest.raises(SolveError) as e:
        chainc.ask(str(REPLICAS), "fewest_replicas", budget=20)
    assert "the conditions do not all hold" in e.value.message and "(searched every positive whole number)" in e.value.hint


def test_a_condition_on_two_stretches_is_searched_together():
    a = chainc.ask(str(STRETCHES), "largest_x")
    assert a.answer() == 8 and a.binding == ("cap",)
    a = chainc.ask(str(STRETCHES), "largest_x", cap=5)
    assert a.answer() == pytest.approx(2, rel=1e-12) and a.binding == ()  # x <= 2 is the only stretch under the cap
    assert (a.answer() - 2) * (a.answer() - 6) >= 0


def test_goodput_fits_in_memory_and_a_405b_model_does_not_fit_an_l40s(project):
    a = chainc.ask(project.model("goodput"), "fitting_batch", project=project)
    limits = {x.label: x.value for x in a.limits}
    assert a.answer() == 64 and a.binding == ("latency",)
    assert limits["latency"] == 64 and limits["memory"] == math.floor((80e9 - 16.06e9) / (2048 * 131072)) == 238
    with pytest.raises(SolveError) as e:
        chainc.ask(project.model("goodput"), "fitting_batch", gpu="l40s", llm="llama-3.1-405b", project=project)
    assert "no batch meets step_bytes <= memory: at batch = 1, step_bytes = 812.764 GB > memory = 48 GB" in e.value.message
    a = chainc.ask(project.model("goodput"), "fitting_batch", tpot_target=100, project=project)
    assert a.answer() == 238 and a.binding == ("memory",)


def test_the_cli_prints_the_binding_condition_and_json_each_limit(capsys):
    assert main(["solve", "goodput", "--question", "fitting_batch", "--no-cache"]) == 0
    out = capsys.readouterr().out
    assert "bound by tpot <= tpot_target (latency allows 64, memory allows 238)" in out
    assert main(["solve", "goodput", "--question", "fitting_batch", "--json", "--no-cache"]) == 0
    data = json.loads(capsys.readouterr().out)["answer"]
    assert data["binding"] == ["latency"] and [(x["label"], x["value"]) for x in data["limits"]] == [("latency", 64), ("memory", 238)]
    assert main(["solve", "goodput", "--question", "fitting_batch", "--gpu", "l40s", "--llm", "llama-3.1-405b"]) == 2
    assert "step_bytes = 812.764 GB > memory = 48 GB" in capsys.readouterr().err


def test_the_warm_path_answers_as_cold(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CHAINC_CACHE_DIR", str(tmp_path))
    outs = []
    for _ in range(2):
        assert main(["solve", str(REPLICAS), "--question", "fewest_replicas", "--given", "total_memory=300GB", "--json"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and json.loads(outs[0])["answer"]["value"] == 11


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("conditions")
    models = [str(REPLICAS), str(STRETCHES)]
    assert main(["build", *models, "--out", str(out), "--format", "py", "--format", "xlsx", "--format", "tex"]) == 0
    assert main(["build", *models, "--out", str(out), "--format", "py", "--numpy"]) == 0
    return out


def test_the_generated_modules_combine_as_the_solver(built):
    mod, vec = load(built / "conditions.py"), load(built / "conditions_np.py")
    for memory in (300, 600, 900):
        want, _ = hand_replicas(memory)
        assert mod.fewest_replicas(total_memory=memory) == want
        assert mod.fewest_replicas_share(total_memory=memory) == math.ceil(memory / 40)
    assert list(vec.fewest_replicas(total_memory=np.array([300.0, 600.0, 900.0]))) == [11, 15, 23]
    with pytest.raises(mod.ChainError) as e:
        mod.fewest_replicas(budget=20)
    solver = pytest.raises(SolveError, chainc.ask, str(REPLICAS), "fewest_replicas", budget=20).value
    assert (e.value.message, e.value.hint) == (solver.message, solver.hint)
    stretch = load(built / "stretches.py")
    assert stretch.largest_x() == 8 and stretch.largest_x(cap=5) == pytest.approx(2, rel=1e-12)


def test_the_sheet_tabulates_each_limit(built):
    tex = (built / "conditions.tex").read_text()
    assert r"\textbf{binding}" in tex and "Its own limit" in tex
    stretches = (built / "stretches.tex").read_text()
    assert "All the conditions hold at the binding condition's answer" in stretches and stretches.count(r"\textbf{binding}") == 1


def test_the_workbook_combines_live_and_libreoffice_agrees(built, tmp_path):
    require("soffice")
    from .excel_recalc import recalculate

    cases = [({}, 15), ({"total_memory": 300}, 11), ({"total_memory": 900}, 23), ({"budget": 20}, None)]
    files = []
    for k, (typed, _) in enumerate(cases):
        wb = openpyxl.load_workbook(built / "chains.xlsx")
        ws = wb["conditions"]
        for row in ws.iter_rows():
            if row[0].value in typed:
                row[1].value = typed[row[0].value]
        files.append(tmp_path / f"case{k}.xlsx")
        wb.save(files[-1])
    for (typed, want), path in zip(cases, recalculate(files, tmp_path / "out")):
        ws = openpyxl.load_workbook(path, data_only=True)["conditions"]
        row = next(r for r in ws.iter_rows() if r[0].value == "fewest_replicas")
        try:
            a = chainc.ask(str(REPLICAS), "fewest_replicas", **typed)
            expected = (a.answer(), f"replicas = {a.answer()}: {a.how}")
        except SolveError as e:
            expected = ("#N/A", e.message)
            # the tightest limit fails another condition: the solver searched and found none, formulas say they cannot search
            if "the conditions do not all hold" in e.message:
                expected = ("#N/A", row[3].value)
                assert "do not all hold at the most restrictive limit, replicas = 15; the answer needs a search" in row[3].value
        assert (row[1].value, row[3].value) == expected, typed
        assert want is None or row[1].value == want
    # the cap at 5: the tightest limit fails the curve; formulas cannot search, so #N/A and the message says so
    wb = openpyxl.load_workbook(built / "chains.xlsx")
    next(r for r in wb["stretches"].iter_rows() if r[0].value == "cap")[1].value = 5
    wb.save(tmp_path / "cap5.xlsx")
    (path,) = recalculate([tmp_path / "cap5.xlsx"], tmp_path / "out5")
    row = next(r for r in openpyxl.load_workbook(path, data_only=True)["stretches"].iter_rows() if r[0].value == "largest_x")
    assert row[1].value == "#N/A" and "run chainc solve stretches --question largest_x" in row[3].value


def test_goodput_in_the_workbook_follows_the_dropdowns(tmp_path):
    require("soffice")
    from .excel_recalc import recalculate

    out = tmp_path / "book"
    assert main(["build", str(ROOT / "models" / "goodput.yaml"), "--format", "xlsx", "--out", str(out)]) == 0
    cases = [("l40s", "llama-3.1-405b"), ("mi300x", "llama-3.1-70b"), ("h100-sxm", "llama-3.1-8b")]
    files = []
    for k, (gpu, llm) in enumerate(cases):
        wb = openpyxl.load_workbook(out / "chains.xlsx")
        ws = wb["goodput"]
        for row in ws.iter_rows(max_row=10):
            if row[0].value in ("GPU", "LLM"):
                row[1].value = gpu if row[0].value == "GPU" else llm
        files.append(tmp_path / f"g{k}.xlsx")
        wb.save(files[-1])
    for (gpu, llm), path in zip(cases, recalculate(files, tmp_path / "out")):
        ws = openpyxl.load_workbook(path, data_only=True)["goodput"]
        row = next(r for r in ws.iter_rows() if r[0].value == "fitting_batch")
        try:
            a = chainc.ask("goodput", "fitting_batch", gpu=gpu, llm=llm, project=chainc.Project(ROOT))
            expected = (a.answer(), f"batch = {a.answer()}: {a.how}")
        except SolveError as e:
            expected = ("#N/A", e.message)
        assert (row[1].value, row[3].value) == expected, (gpu, llm)


def test_a_condition_that_cannot_be_planned_is_a_located_gap_in_the_module(tmp_path, capsys):
    """A KeyError escaped the Python backend: the question was planned, one of its conditions (not reading x) was not."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "part.yaml").write_text(
        "name: part\ntitle: a condition without x\nvariables:\n  x: {value: 4, integer: true, min: 0}\n  a: {unit: s, value: 1}\n  y: {unit: s}\n"
        "equations:\n  - y = x * a\nquestions:\n  q: {find: x, such_that: {lat: 'y <= 100[s]', other: 'a <= 50[s]'}, seek: max}\n"
    )
    for flavour in ([], ["--numpy"]):
        assert main(["--root", str(tmp_path), "build", "part", "--format", "py", *flavour, "--out", str(tmp_path / "out")]) == 2
        err = capsys.readouterr().err
        assert "cannot print" in err and re.search(r"question q \((its condition q_other|it) cannot be planned: under-determined", err) and "part.yaml:1:1" in err, err
