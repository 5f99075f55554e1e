"""The bundled workbook computed by a Python spreadsheet engine, `formulas`, beside LibreOffice and Gnumeric.

`formulas` (vinci1it2000/formulas) parses each cell's formula and computes the whole book
from its inputs, ignoring the cached values, so agreeing with them is a real recalculation.
It is slow on array formulas (erlang-c's 200 sums at search probes take over three minutes),
so the books it computes are those with at most ARRAYS of them; the rest are listed, not
compared, and are LibreOffice's and Gnumeric's (test_excel.py, test_excel_gnumeric.py).
pycel, the other engine issue 17 names, cannot be installed beside chainc: pycel 1.0b30
requires networkx < 2.7, chainc networkx >= 3.2.
"""

from __future__ import annotations

import io
import re
import time

import openpyxl
import pytest

from chainc.backends import BuildOptions
from chainc.backends.excel import build_workbook
from chainc.build import reports_for

from .conftest import CI
from .test_excel import close, live_expected

pytestmark = pytest.mark.slow
formulas = pytest.importorskip("formulas") if not CI else __import__("formulas")

ARRAYS = 50  # SUMPRODUCT cells a book may hold for `formulas` to compute it here
SEEN: dict[str, int] = {}


def computed(path) -> dict[tuple[str, str], object]:
    """(SHEET, A1) -> the value `formulas` computes for every cell of the book at path."""
    solution = formulas.ExcelModel().loads(str(path)).finish().calculate()
    out = {}
    for key, v in solution.items():
        m = re.match(r"'\[[^\]]+\](.+)'!([A-Z]+[0-9]+)$", key)
        if m:
            value = getattr(v, "value", v)
            out[(m.group(1).upper(), m.group(2))] = value.ravel()[0] if hasattr(value, "ravel") else value
    return out


def plain(x):
    """formulas' value as openpyxl reads a cached one: numbers as float, errors as their text."""
    if isinstance(x, bool):
        return x
    try:
        return float(x)
    except (TypeError, ValueError):
        return str(x)


def arrays(data: bytes) -> int:
    wb = openpyxl.load_workbook(io.BytesIO(data))
    return sum(1 for ws in wb.worksheets for row in ws.iter_rows() for c in row if c.data_type == "f" and "SUMPRODUCT" in str(getattr(c.value, "text", c.value)))


@pytest.fixture(scope="module")
def books(project, tmp_path_factory):
    """Each bundled model's own workbook with at most ARRAYS array formulas: name -> (its path, its bytes)."""
    tmp = tmp_path_factory.mktemp("formulas")
    out = {}
    for name in project.model_names():
        reports, catalog = reports_for(project, [name], BuildOptions(out=tmp))
        data, manifest = build_workbook(reports, catalog)
        SEEN[name] = arrays(data)
        if SEEN[name] <= ARRAYS:
            (tmp / f"{name}.xlsx").write_bytes(data)
            out[name] = (tmp / f"{name}.xlsx", data)
    return out


def test_formulas_computes_what_chainc_cached(books):
    """Every formula cell of every book it computes: the number (to 1e-9), the text or the error chainc wrote."""
    assert len(books) >= 8, f"books computed: {sorted(books)}; array formulas per book: {SEEN}"
    compared, wrong = 0, []
    for name, (path, data) in books.items():
        start = time.perf_counter()
        got = computed(path)
        cached = openpyxl.load_workbook(io.BytesIO(data), data_only=True)
        for ws in openpyxl.load_workbook(io.BytesIO(data)).worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if c.data_type != "f":
                        continue
                    want, have = cached[ws.title][c.coordinate].value, plain(got.get((ws.title.upper(), c.coordinate)))
                    compared += 1
                    if not (close(have, want) or (want is None and have in ("", "0.0", 0.0))):
                        wrong.append(f"{name} {ws.title}!{c.coordinate}: formulas {have!r}, chainc {want!r}: {str(getattr(c.value, 'text', c.value))[:120]}")
        assert time.perf_counter() - start < 120, name
    print(f"formulas: {compared:,} formula cells of {len(books)} books compared; not computed here (array formulas): {sorted(set(SEEN) - set(books))}")
    assert compared > 4000 and not wrong, "\n".join(wrong[:40])


def test_formulas_follows_typed_inputs(project, books, tmp_path):
    """goodput at batch 128 on an h200 and kv-ceiling at 4,000 tokens per request, typed in: the solver's numbers there."""
    reports, catalog = reports_for(project, ["littles-law", "goodput", "kv-ceiling"], BuildOptions(out=tmp_path))
    data, manifest = build_workbook(reports, catalog)
    wb = openpyxl.load_workbook(io.BytesIO(data))
    for key, value in ((("goodput", "input", "batch"), 128), (("goodput", "select", "gpu"), "h200"), (("kv-ceiling", "input", "tokens_per_request"), 4000)):
        sheet, coord = manifest.cells[key]
        wb[sheet][coord] = value
    wb.save(tmp_path / "live.xlsx")
    got = computed(tmp_path / "live.xlsx")
    want = {k: v for k, v in live_expected(project, manifest).items() if k[0] in ("littles-law", "goodput", "kv-ceiling") and k in manifest.cells}
    wrong = []
    for key, value in want.items():
        sheet, coord = manifest.cells[key]
        have = plain(got.get((sheet.upper(), coord)))
        if not close(have, value):
            wrong.append(f"{key} {sheet}!{coord}: formulas {have!r}, solver {value!r}")
    assert len(want) > 40 and not wrong, "\n".join(wrong[:40])
    sheet, coord = manifest.cells[("goodput", "question", "max_batch")]
    assert plain(got[(sheet.upper(), coord)]) == 118
