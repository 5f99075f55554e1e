"""`valid_when:` on an equation (issue 19): outside it there is no value, in the solver, both generated flavours,
the live workbook and the derivation sheet. The load errors are corpus cases (test_errors)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from chainc.api import ask, solve
from chainc.cli import main
from chainc.errors import ChaincError
from tests.test_errors import run
from tests.test_hostile_round3 import typed_and_recalculated
from tests.test_python_backend import load

MODEL = Path(__file__).resolve().parent / "models" / "mm1-valid.yaml"
WHY = "line 11: wait = 1[request] / (service_rate - arrival_rate) holds only where load < 1"


def test_a_point_outside_is_refused_with_the_condition_and_its_values(capsys):
    code, _, err = run(capsys, "solve", MODEL, "--no-cache", "--given", "arrival_rate=12")
    assert code == 2 and f"{WHY} (load = 1.2)" in err and "valid_when" in err
    assert solve(str(MODEL), given={"arrival_rate": 9.5}).value("wait") == pytest.approx(2.0)  # 1 / (10 - 9.5)


def test_questions_stop_at_the_edge():
    assert ask(str(MODEL), "max_rate").value == pytest.approx(9)  # W = 1 / (10 - 9) = 1 s
    assert ask(str(MODEL), "max_rate", wait_target="0.25 s").value == pytest.approx(6)
    edge = ask(str(MODEL), "stable")  # load <= 2 holds wherever the model has a value: up to load 1, never past it
    assert 9.999 < edge.value < 10


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    out = tmp_path_factory.mktemp("valid")
    assert main(["build", str(MODEL), "--out", str(out), "--format", "py", "--numpy"]) == 0
    return load(out / "mm1_valid.py"), load(out / "mm1_valid_np.py")


def test_both_flavours_refuse_a_point_outside(modules):
    plain, vec = modules
    for f in (lambda: plain.solve(arrival_rate=12), lambda: vec.solve(arrival_rate=np.array([5.0, 12.0]))):
        with pytest.raises(ValueError, match="holds only where load < 1"):
            f()
    assert plain.max_rate() == pytest.approx(9) and float(vec.max_rate()) == pytest.approx(9)
    assert list(vec.max_rate(wait_target=np.array([1, 0.25]))) == pytest.approx([9, 6])


def test_the_api_raises_a_chainc_error():
    with pytest.raises(ChaincError, match="holds only where load < 1"):
        solve(str(MODEL), given={"arrival_rate": 10})  # at the pole itself: the condition, not a division by zero


@pytest.mark.slow
def test_the_workbook_shows_the_reason_live(tmp_path):
    """A reader types 12 requests/s: the results' wait is #N/A with the condition as its reason, in both engines."""
    for engine, rows in typed_and_recalculated(tmp_path, MODEL, "mm1-valid", {"arrival_rate": 12}).items():
        assert rows["wait"][1] == "#N/A" and any(WHY in str(v) for v in rows["wait"]), (engine, rows["wait"])


def test_the_derivation_sheet_says_where_it_holds(tmp_path):
    assert main(["build", str(MODEL), "--out", str(tmp_path), "--format", "tex"]) == 0
    assert r"Holds only where \texttt{load \textless{} 1}" in next(tmp_path.glob("mm1-valid*.tex")).read_text()
