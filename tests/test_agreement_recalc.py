"""The random chains' workbook, changed and recalculated in LibreOffice and in Gnumeric (issue 17's "done when").

For each sampled chain, a point of the chain's own inputs is typed into the sheet:
one the solver accepts (every cell must follow, as `chainc solve` says there) and one
it refuses because a computed value leaves its domain (that value's cell must be
#N/A, not a number). Both workbooks, and a stale copy of the built one, are
recalculated by both programs and compared with the solver.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import openpyxl
import pytest

from chainc import Project, solve
from chainc.backends.excel import build_workbook
from chainc.errors import ChaincError

from .agreement_compare import WORKBOOK_CHAINS, solver
from .agreement_grammar import ODD_VALUES
from .agreement_workbook import compare_live, live_point, workbook_sample
from .conftest import AGREE, AGREE_SECONDS
from .test_excel import compare, report_cells, stale_copy
from .tools import require

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def chain_project(tmp_path_factory) -> Project:
    """A project of its own for the random chains, over the bundled catalog (as test_agreement's)."""
    root = tmp_path_factory.mktemp("chains")
    (root / "models").mkdir()
    return Project(root)


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("chain-modules")


OUTSIDE = re.compile(r"^(?:given )?([A-Za-z_][A-Za-z0-9_]*) = .* is (?:outside its domain|not a whole number)")


def refused_point(project, a):
    """A point where the solver stops at a computed value outside its domain: (point, that value's name), or None."""
    assigned = {s.name for s in a.base.program.body if type(s).__name__ == "Assign"}
    inputs = sorted({n for p in a.chain.points for n in p})
    # the chain's own points first, then one input at a time at values that may leave a domain downstream
    for point in [*a.chain.points, *({n: v} for n in inputs for v in ODD_VALUES)]:
        if not point:
            continue
        got = solver(lambda point=point: solve(a.model, point, project=project))
        if isinstance(got, ChaincError):
            m = OUTSIDE.match(got.message)
            if m and (m.group(1) in assigned and m.group(1) not in point or got.message.startswith("given ") and m.group(1) in point):
                return point, m.group(1)
    return None


def test_the_changed_workbook_agrees_in_libreoffice_and_gnumeric(chain_project, out, tmp_path):
    require("soffice", "ssconvert")
    from .excel_recalc import recalculate
    from .gnumeric_recalc import recalculate_gnumeric

    start = time.perf_counter()
    sample = workbook_sample(chain_project, out, WORKBOOK_CHAINS)
    assert sample, "no chain of the sample was accepted"
    reports = [r for a in sample for r in a.reports]
    catalog = sample[0].catalog
    data, manifest = build_workbook(reports, catalog)
    stale, _ = stale_copy(data)
    (tmp_path / "stale.xlsx").write_bytes(stale)
    live_wb, refused_wb = openpyxl.load_workbook(io.BytesIO(stale)), openpyxl.load_workbook(io.BytesIO(stale))
    lives, refusals = {}, {}
    for a in sample:
        for book, found, into in ((live_wb, live_point(chain_project, a), lives), (refused_wb, refused_point(chain_project, a), refusals)):
            if found is None:
                continue
            point, what = found
            keys = {n: (a.model.name, "input", n) for n in point}
            if not all(k in manifest.cells for k in keys.values()):
                continue
            for n, key in keys.items():
                sheet, coord = manifest.cells[key]
                book[sheet][coord] = point[n]
            into[a.model.name] = (a, point, what)
    live_wb.save(tmp_path / "live.xlsx")
    refused_wb.save(tmp_path / "refused.xlsx")
    files = [tmp_path / f"{n}.xlsx" for n in ("stale", "live", "refused")]
    programs = {"LibreOffice": recalculate(files, tmp_path / "lo"), "Gnumeric": recalculate_gnumeric(files, tmp_path / "gn")}
    want = report_cells(reports, catalog, manifest)
    wrong, counts = [], {}
    for program, (s, live, refused) in programs.items():
        n, bad = compare(openpyxl.load_workbook(s, data_only=True), manifest, want)
        wrong += [f"{program}: {w}" for w in bad]
        before = AGREE["workbook cells compared"]
        wrong += [f"{program}: {w}" for w in compare_live(chain_project, openpyxl.load_workbook(live, data_only=True), manifest, lives)]
        n += AGREE["workbook cells compared"] - before
        wb = openpyxl.load_workbook(refused, data_only=True)
        for name, (_, point, var) in sorted(refusals.items()):
            sheet, coord = manifest.cells[(name, "var", var)]
            n += 1
            if wb[sheet][coord].value != "#N/A":
                wrong.append(f"{program}: ({name!r}, 'var', {var!r}) at {point}: {wb[sheet][coord].value!r}, where the solver refuses (outside its domain)")
        counts[program] = n
    AGREE_SECONDS["workbook (both programs)"] += time.perf_counter() - start
    print(f"\n{len(sample)} chains, {len(lives)} typed-in points the solver accepts, {len(refusals)} it refuses; cells compared: {counts}")
    if wrong:
        texts = "\n".join(f"{a.model.name}:\n{a.chain.text}" for a in sample if any(f"('{a.model.name}'" in w for w in wrong))
        pytest.fail("the changed workbook disagrees with the solver:\n" + "\n".join(wrong[:40]) + "\n" + texts, pytrace=False)
