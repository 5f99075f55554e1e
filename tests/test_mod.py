"""Remainders, `a % b` and `mod(a, b)`: Python's rule (the sign of b) in the solver, both flavours, the sheet and the workbook.

The hand values are Python's own `%` here, not chainc's; a question over a remainder finds the largest
TP degree that divides the KV heads.
"""

from __future__ import annotations

import io
from fractions import Fraction

import numpy as np
import openpyxl
import pytest

import chainc
from chainc.cli import main

from .test_python_backend import load
from .tools import require

MODEL = """name: remainders
title: remainders
variables:
  kv_heads: {value: 8, integer: true}
  tp: {value: 3, integer: true, min: 1, max: 64}
  memory: {unit: GB, value: 70}
  block: {unit: GB, value: 16}
  rest: {unit: GB, domain: real}
  left: {domain: nonnegative}
  signed: {domain: real}
equations:
  - "rest = memory % block"
  - "left = mod(kv_heads, tp)"
  - "signed = (tp - 9) % (2 - kv_heads / 2)"
questions:
  most_tp_dividing:
    find: tp
    seek: max
    such_that: left <= 0
"""

POINTS = [(8, 3, 70, 16), (8, 4, 64, 16), (40, 6, 70.5, 0.25), (7, 64, 1, 3), (12, 5, 0.3, 0.1)]


def hand(kv_heads, tp, memory, block) -> dict:
    """Exact, as chainc reads the decimals written: 0.3 % 0.1 is 0 (floats give 0.09999999999999998)."""
    memory, block = Fraction(str(memory)), Fraction(str(block))
    return {"rest": float(memory % block), "left": kv_heads % tp, "signed": float((tp - 9) % (2 - Fraction(kv_heads, 2)))}


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("mod")
    (root / "remainders.yaml").write_text(MODEL)
    assert main(["build", str(root / "remainders.yaml"), "--out", str(root / "out"), "--format", "py", "--format", "xlsx", "--format", "tex", "--numpy"]) == 0
    return root


@pytest.mark.parametrize("point", POINTS)
def test_every_flavour_takes_pythons_remainder(built, point):
    kv_heads, tp, memory, block = point
    want = hand(*point)
    given = {"kv_heads": kv_heads, "tp": tp, "memory": f"{memory} GB", "block": f"{block} GB"}
    solved = chainc.solve(str(built / "remainders.yaml"), **given)
    mod, vec = load(built / "out" / "remainders.py"), load(built / "out" / "remainders_np.py")
    one = mod.solve(kv_heads=kv_heads, tp=tp, memory=memory, block=block)
    arr = vec.solve(kv_heads=np.array([kv_heads] * 2), tp=np.array([tp] * 2), memory=np.array([memory] * 2), block=np.array([block] * 2))
    for name, value in want.items():
        shown = float(solved.value(name))  # in the variable's own unit
        assert shown == pytest.approx(value, rel=1e-12, abs=1e-12), (name, point)
        assert getattr(one, name) == pytest.approx(value, rel=1e-12, abs=1e-12), (name, point)
        assert list(getattr(arr, name)) == pytest.approx([value] * 2, rel=1e-12, abs=1e-12), (name, point)


def test_the_question_over_a_remainder_finds_the_largest_divisor(built):
    for heads, want in ((8, 8), (40, 40), (12, 12), (96, 48), (7, 7)):
        assert chainc.ask(str(built / "remainders.yaml"), "most_tp_dividing", kv_heads=heads).value == want
        assert max(t for t in range(1, 65) if heads % t == 0) == want


def test_a_remainder_by_a_value_that_is_zero_is_located(built):
    with pytest.raises(chainc.errors.ChaincError) as e:
        chainc.solve(str(built / "remainders.yaml"), kv_heads=4)  # 2 - 4 / 2 = 0
    assert e.value.loc is not None and e.value.loc.line == 14


def test_the_sheet_writes_the_floor(built):
    tex = (built / "out" / "remainders.tex").read_text()
    assert r"\left\lfloor{\frac{\mathrm{memory}}{\mathrm{block}}}\right\rfloor" in tex


@pytest.mark.slow
@pytest.mark.parametrize("program", ["LibreOffice", "Gnumeric"])
def test_the_workbook_finds_the_divisor_live_at_typed_kv_heads(built, tmp_path, program):
    """A condition that turns many times (40 % tp == 0 at 1, 2, 4, 5, 8, 10, 20, 40): the domain 1..64 is small, so the
    workbook, like the solver, probes every value from the top; a bisection answered 20 in the solver and 2 in the book."""
    require("soffice" if program == "LibreOffice" else "ssconvert")
    from chainc.backends.excel import build_workbook
    from chainc.build import BuildOptions, reports_for

    from .excel_recalc import recalculate
    from .gnumeric_recalc import recalculate_gnumeric

    project = chainc.Project()  # the bundled library; the model is named by its path
    data, man = build_workbook(*reports_for(project, [str(built / "remainders.yaml")], BuildOptions(out=tmp_path)))
    wb = openpyxl.load_workbook(io.BytesIO(data))
    sheet, coord = man.cells[("remainders", "input", "kv_heads")]
    books = []
    for heads in (40, 96, 7):
        wb[sheet][coord] = heads
        wb.save(tmp_path / f"heads{heads}.xlsx")
        books.append(tmp_path / f"heads{heads}.xlsx")
    out = (recalculate if program == "LibreOffice" else recalculate_gnumeric)(books, tmp_path / "out")
    qsheet, qcoord = man.cells[("remainders", "question", "most_tp_dividing")]
    for heads, path in zip((40, 96, 7), out):
        want = chainc.ask(str(built / "remainders.yaml"), "most_tp_dividing", kv_heads=heads).value
        assert openpyxl.load_workbook(path, data_only=True)[qsheet][qcoord].value == want, (program, heads)


@pytest.mark.slow
def test_libreoffice_recalculates_the_same_remainders(built, tmp_path):
    require("soffice")
    from .excel_recalc import recalculate

    (out,) = recalculate([built / "out" / "chains.xlsx"], tmp_path)
    cached = openpyxl.load_workbook(built / "out" / "chains.xlsx", data_only=True)["remainders"]
    fresh = openpyxl.load_workbook(out, data_only=True)["remainders"]
    numbers = [(c.coordinate, c.value) for row in fresh.iter_rows() for c in row if isinstance(cached[c.coordinate].value, float | int) and not isinstance(c.value, bool)]
    assert len(numbers) >= 8
    for where, value in numbers:
        assert value == pytest.approx(cached[where].value, rel=1e-12), where
