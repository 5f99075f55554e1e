"""`values:` sets (issue 19): the solver, both generated flavours and the live workbook answer from the set.

Every answer is checked against a brute force over the set in plain Python; an input outside
the set is refused with the same words everywhere. The load errors are corpus cases (test_errors).
"""

from __future__ import annotations

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

MODEL = Path(__file__).resolve().parent / "models" / "value-sets.yaml"
TP = [2**k for k in range(7)]
BATCH = [1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256]


def widest_tp(kv_heads: int) -> int:
    return max(t for t in TP if kv_heads % t == 0)


def largest_batch(target_ms: float, tp: int = 8, most: float = float("inf")) -> int:
    return max(b for b in BATCH if 4 + 0.1 * b * 8 / tp <= target_ms and b <= most)


CASES = [(40, 20, 8), (96, 10, 8), (7, 5, 1), (64, 30, 64), (12, 9.9, 4)]


@pytest.mark.parametrize(("kv_heads", "target", "tp"), CASES)
def test_the_solver_answers_from_the_set(kv_heads, target, tp):
    given = {"kv_heads": kv_heads, "tpot_target": f"{target} ms", "tp": tp}
    assert ask(str(MODEL), "widest_tp", given={"kv_heads": kv_heads}).value == widest_tp(kv_heads)
    assert ask(str(MODEL), "largest_batch", given=given).value == largest_batch(target, tp)
    assert ask(str(MODEL), "bounded_batch", given=given).value == largest_batch(target, tp, 100)


def test_an_input_outside_the_set_is_refused_in_its_words(capsys):
    code, _, err = run(capsys, "solve", MODEL, "--no-cache", "--given", "tp=3")
    assert code == 2 and "given tp = 3 is outside its domain (positive integer, one of 1, 2, 4, 8, 16, 32, 64)" in err
    with pytest.raises(ChaincError, match="outside its domain"):
        solve(str(MODEL), given={"batch": 12})


def test_an_inverse_solve_lands_on_the_set_or_says_it_does_not(capsys):
    assert solve(str(MODEL), find="tp", given={"tpot": "5.6 ms"}).values["tp"] == 4  # 4 + 0.1 * 8 * 8 / 4
    code, _, err = run(capsys, "solve", MODEL, "--no-cache", "--find", "tp", "--given", "tpot=10ms")
    assert code == 2 and "tp = 1.06667" in err and "one of 1, 2, 4" in err


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    out = tmp_path_factory.mktemp("sets")
    assert main(["build", str(MODEL), "--out", str(out), "--format", "py", "--numpy"]) == 0
    return load(out / "value_sets.py"), load(out / "value_sets_np.py")


@pytest.mark.parametrize(("kv_heads", "target", "tp"), CASES)
def test_both_flavours_answer_from_the_set(modules, kv_heads, target, tp):
    plain, vec = modules
    assert plain.widest_tp(kv_heads=kv_heads) == widest_tp(kv_heads)
    assert plain.largest_batch(tpot_target=target, tp=tp) == largest_batch(target, tp)
    assert plain.bounded_batch(tpot_target=target, tp=tp) == largest_batch(target, tp, 100)
    assert int(vec.widest_tp(kv_heads=kv_heads)) == widest_tp(kv_heads)
    assert int(vec.largest_batch(tpot_target=target, tp=tp)) == largest_batch(target, tp)


def test_the_numpy_flavour_answers_each_point_from_the_set(modules):
    _, vec = modules
    heads = np.array([40, 96, 7, 64, 12])
    assert list(vec.widest_tp(kv_heads=heads)) == [widest_tp(h) for h in heads]
    targets = np.array([20, 10, 5, 30, 9.9])
    assert list(vec.largest_batch(tpot_target=targets)) == [largest_batch(t) for t in targets]


def test_the_modules_refuse_a_value_outside_the_set(modules):
    plain, vec = modules
    for f in (lambda: plain.solve(tp=3), lambda: vec.solve(tp=np.array([2, 3]))):
        with pytest.raises(ValueError, match=r"given tp = 3 is outside its domain \(positive integer, one of 1, 2, 4"):
            f()


@pytest.mark.slow
@pytest.mark.parametrize(("kv_heads", "target", "tp"), [(96, 10, 8), (12, 9.9, 4), (40, 20, 3)])
def test_the_workbook_answers_from_the_set_live(tmp_path, kv_heads, target, tp):
    """A reader types the heads, the target and tp: LibreOffice and Gnumeric answer from the set; tp = 3 is flagged."""
    typed = {"kv_heads": kv_heads, "tpot_target": target, "tp": tp}
    for engine, rows in typed_and_recalculated(tmp_path, MODEL, "value-sets", typed).items():
        assert rows["widest_tp"][1] == widest_tp(kv_heads), (engine, rows["widest_tp"])
        if tp in TP:
            assert rows["largest_batch"][1] == largest_batch(target, tp), (engine, rows["largest_batch"])
            assert rows["bounded_batch"][1] == largest_batch(target, tp, 100), (engine, rows["bounded_batch"])
        else:
            assert rows["tp"][1] == "#N/A" and any("outside its domain" in str(v) for v in rows["tp"]), (engine, rows["tp"])


def test_the_workbook_offers_the_set_as_a_dropdown(tmp_path):
    assert main(["build", str(MODEL), "--out", str(tmp_path), "--format", "xlsx"]) == 0
    lists = {dv.formula1 for dv in openpyxl.load_workbook(tmp_path / "chains.xlsx")["value-sets"].data_validations.dataValidation if dv.type == "list"}
    assert lists == {'"1,2,4,8,16,32,64"', '"' + ",".join(map(str, BATCH)) + '"'}


def test_the_derivation_sheet_says_each_value_is_tried(tmp_path):
    assert main(["build", str(MODEL), "--out", str(tmp_path), "--format", "tex"]) == 0
    tex = next(tmp_path.glob("value-sets*.tex")).read_text()
    assert "Each value of the set of" in tex and "one of 1, 2, 4, 8, 16, 32, 64" in tex
