"""The bundled workbook recalculated by Gnumeric (`ssconvert --recalc`), as test_excel.py does with LibreOffice.

Gnumeric reads some argument forms differently from Excel and LibreOffice: a lone index
into a one-row range (INDEX(row, k) is #REF! there), or a function over a SUMPRODUCT's
terms outside an array formula (FACT takes the first term only). The workbook uses the
forms every program reads alike; this test recalculates a stale copy (every cached value
replaced) and a copy with changed inputs, and compares every cell with chainc's value.
"""

from __future__ import annotations

import io
import re

import openpyxl
import pytest

from chainc.backends.excel import build_workbook

from .test_excel import all_reports, close, compare, error_cells, formula_cells, live_expected, report_cells, stale_copy
from .tools import require

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gnumeric(project, tmp_path_factory):
    require("ssconvert")
    from .gnumeric_recalc import recalculate_gnumeric

    tmp = tmp_path_factory.mktemp("gnumeric")
    reports, catalog = all_reports(project)
    data, manifest = build_workbook(reports, catalog)
    stale, count = stale_copy(data)
    assert count > 1000
    (tmp / "stale.xlsx").write_bytes(stale)
    wb = openpyxl.load_workbook(io.BytesIO(data))
    for key, value in (
        (("goodput", "input", "batch"), 128),
        (("goodput", "select", "gpu"), "h200"),
        (("kv-ceiling", "input", "tokens_per_request"), 4000),
        (("long-prompt", "input", "peak_flops"), 900),
    ):
        sheet, coord = manifest.cells[key]
        wb[sheet][coord] = value
    wb.save(tmp / "live.xlsx")
    outs = recalculate_gnumeric([tmp / "stale.xlsx", tmp / "live.xlsx"], tmp / "out")
    return {
        "reports": reports,
        "catalog": catalog,
        "manifest": manifest,
        "built": openpyxl.load_workbook(io.BytesIO(data), data_only=True),
        "formulas": openpyxl.load_workbook(io.BytesIO(data)),
        "stale": openpyxl.load_workbook(outs[0], data_only=True),
        "live": openpyxl.load_workbook(outs[1], data_only=True),
    }


def _same(got, want) -> bool:
    """close(), where Gnumeric writes a number into text with 20 digits ("hit_rate = 0.54000000000000000002"): the
    numbers inside two texts are compared to 12 significant figures, the words exactly."""
    if isinstance(got, str) and isinstance(want, str):
        number = re.compile(r"-?\d+\.\d+(?:[eE][-+]?\d+)?")
        return (
            number.split(got) == number.split(want)
            and all(close(float(a), float(b)) for a, b in zip(number.findall(got), number.findall(want), strict=False))
            and len(number.findall(got)) == len(number.findall(want))
        )
    return close(got, want)


def test_gnumeric_recalculates_every_cell_to_chainc_values(gnumeric):
    want = report_cells(gnumeric["reports"], gnumeric["catalog"], gnumeric["manifest"])
    n, wrong = compare(gnumeric["stale"], gnumeric["manifest"], want)
    assert not wrong, "\n".join(wrong[:40])
    assert n > 1500
    assert not error_cells(gnumeric["stale"], gnumeric["manifest"])
    rest = formula_cells(gnumeric["formulas"]) - {gnumeric["manifest"].cells[k] for k in want}
    got, built = gnumeric["stale"], gnumeric["built"]
    differ = [f"{s}!{c}: Gnumeric {got[s][c].value!r}, cached {built[s][c].value!r}" for s, c in sorted(rest) if not _same(got[s][c].value, built[s][c].value)]
    assert not differ, "\n".join(differ[:40])
    print(f"\nGnumeric: {n} Report cells and {len(rest)} other formula cells agree")


def test_gnumeric_follows_changed_inputs_and_dropdowns(project, gnumeric):
    n, wrong = compare(gnumeric["live"], gnumeric["manifest"], live_expected(project, gnumeric["manifest"]))
    assert not wrong, "\n".join(wrong[:40])
    assert n > 100
    assert not error_cells(gnumeric["live"], gnumeric["manifest"])


ZERO_POWERS = """\
name: zero-powers
title: 0 to the power 0 is 1
variables:
  x: {value: 0, domain: nonnegative}
  n: {value: 0, integer: true, domain: nonnegative}
  s: {domain: real}
  p: {domain: real}
equations:
  - s = sum(x ** k for k in range(3))
  - p = x ** n + 1
"""


def test_zero_to_the_power_zero_is_one_in_both_programs(tmp_path):
    """x^k with a variable exponent was #NUM! in Gnumeric (and Excel) at 0^0, 1 in LibreOffice and the solver (found by the
    agreement grammar's x ** k terms); by hand s = 0^0 + 0^1 + 0^2 = 1 and p = 0^0 + 1 = 2."""
    require("soffice", "ssconvert")
    from chainc import Project
    from chainc.backends import BuildOptions
    from chainc.build import reports_for

    from .excel_recalc import recalculate
    from .gnumeric_recalc import recalculate_gnumeric

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "zero-powers.yaml").write_text(ZERO_POWERS)
    reports, catalog = reports_for(Project(tmp_path), ["zero-powers"], BuildOptions(tmp_path))
    data, manifest = build_workbook(reports, catalog)
    stale, _ = stale_copy(data)
    (tmp_path / "stale.xlsx").write_bytes(stale)
    want = {("zero-powers", "var", "s"): 1, ("zero-powers", "var", "p"): 2}
    for program, recalc in (("LibreOffice", recalculate), ("Gnumeric", recalculate_gnumeric)):
        out = recalc([tmp_path / "stale.xlsx"], tmp_path / program)[0]
        n, wrong = compare(openpyxl.load_workbook(out, data_only=True), manifest, want)
        assert n == 2 and not wrong, (program, wrong)
