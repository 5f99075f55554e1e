"""Every output agrees, on any model: the solver, the Python module, its NumPy flavour and the workbook.

Random chains come from a grammar (tests/agreement_grammar.py): inputs with units
and domains, computed variables defined from earlier ones (some through equations
SymPy must rearrange or solve numerically), tables with aggregates, questions and
backwards queries. For every chain the solver accepts (it loads and solves at its
defaults), the Python and NumPy modules are built from its Report and called at the
defaults and at other input points:

- every variable and table cell of the forward solve agrees with `chainc.solve` to
  1e-9 relative, in display units, or both raise, with the same kind of error
  (chainc's ChaincError, the module's ChainError: a domain, a division by zero, no
  real value, no admissible root, no answer, ...);
- every question's answer agrees with `chainc.ask`, or both raise;
- a backwards query built as the module's custom function (BuildOptions(find=...,
  given=...)) agrees with `chainc.solve(model, given, find)`;
- the NumPy flavour agrees point by point, and over all points at once.

The chains have nested sums and products, joined models, questions with several
conditions and searches over configurations: each search's best configuration, table
(or frontier), what binds and why each other configuration fails agree with the solver's
Chosen in both flavours (tests/agreement_grammar.py; tests/agreement_compare.py and
tests/agreement_searches.py do the comparing).

A sample of chains is built into one workbook, recalculated by LibreOffice (every
cached value replaced first, so only a real recalculation passes), and compared
with the solver at the defaults and, with inputs typed into the sheet, at another
point. A chain the workbook cannot print is refused with a located error; one whose
nested sum reads an outer index is refused with exactly that error, and its modules are
compared with the solver (agreement_compare.workbook_builds). The default run is small
and the same every time; CI=true runs a few hundred random chains (tests/conftest.py
holds the profiles; the counts print at the end).
"""

from __future__ import annotations

import io
import time

import openpyxl
import pytest
from hypothesis import example, given

from chainc import Project
from chainc.backends.excel import build_workbook

from .agreement_compare import AGREE_SETTINGS, WORKBOOK_CHAINS, WORKBOOK_RUNS, run_chain
from .agreement_examples import (
    DIVISION_AT_THE_CLOSEST_POINT,
    GUARD_BEFORE_ITS_DIVISOR,
    INFINITE_ROOT_IS_NO_ROOT,
    INT64_OVERFLOW,
    JOINED_WITH_CONDITIONS,
    LOOKUP,
    NESTED_APART,
    NESTED_OUTER_BOUNDS,
    NESTED_OUTER_TERMS,
    NO_BRACKET_FROM_THE_START,
    ROUNDING_IS_NO_ROOT,
    SEARCHES,
    SET_FOUND_BY_A_QUERY,
    TWO_ROOTS_ARE_CHOSEN_QUICKLY,
    ZERO_DIVISOR_IN_A_COLUMN,
)
from .agreement_grammar import chains
from .agreement_workbook import compare_live, live_point, workbook_sample
from .conftest import AGREE, AGREE_SECONDS
from .test_excel import compare, report_cells, stale_copy
from .tools import require


@pytest.fixture(scope="module")
def chain_project(tmp_path_factory) -> Project:
    """A project of its own for the random chains, over the bundled catalog."""
    root = tmp_path_factory.mktemp("chains")
    (root / "models").mkdir()
    return Project(root)


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("chain-modules")


@AGREE_SETTINGS
@example(chain=INT64_OVERFLOW)
@example(chain=NO_BRACKET_FROM_THE_START)
@example(chain=DIVISION_AT_THE_CLOSEST_POINT)
@example(chain=TWO_ROOTS_ARE_CHOSEN_QUICKLY)
@example(chain=ROUNDING_IS_NO_ROOT)
@example(chain=ZERO_DIVISOR_IN_A_COLUMN)
@example(chain=INFINITE_ROOT_IS_NO_ROOT)
@example(chain=GUARD_BEFORE_ITS_DIVISOR)
@example(chain=NESTED_APART)
@example(chain=NESTED_OUTER_TERMS)
@example(chain=NESTED_OUTER_BOUNDS)
@example(chain=JOINED_WITH_CONDITIONS)
@example(chain=LOOKUP)
@example(chain=SET_FOUND_BY_A_QUERY)
@example(chain=SEARCHES)
@given(chain=chains())
def test_the_modules_agree_with_the_solver(chain_project, out, chain):
    run_chain(chain_project, out, chain)


# --- the workbook, recalculated by LibreOffice --------------------------------------------------------------------------


def test_the_workbook_agrees_with_the_solver(chain_project, out, tmp_path):
    require("soffice")
    from .excel_recalc import recalculate

    start = time.perf_counter()
    for run in range(WORKBOOK_RUNS):
        sample = workbook_sample(chain_project, out, WORKBOOK_CHAINS)
        assert sample, "no chain of the sample was accepted"
        reports = [r for a in sample for r in a.reports]
        catalog = sample[0].catalog
        data, manifest = build_workbook(reports, catalog)
        stale, _ = stale_copy(data)
        folder = tmp_path / f"run{run}"
        folder.mkdir()
        (folder / "stale.xlsx").write_bytes(stale)
        wb = openpyxl.load_workbook(io.BytesIO(stale))
        lives = {}
        for a in sample:
            found = live_point(chain_project, a)
            if found is None:
                continue
            point, want = found
            keys = {n: (a.model.name, "input", n) for n in point}
            if not all(k in manifest.cells for k in keys.values()):
                continue
            for n, key in keys.items():
                sheet, coord = manifest.cells[key]
                wb[sheet][coord] = point[n]
            lives[a.model.name] = (a, point, want)
        wb.save(folder / "live.xlsx")
        recalc = recalculate([folder / "stale.xlsx", folder / "live.xlsx"], folder / "out")
        got = openpyxl.load_workbook(recalc[0], data_only=True)
        n, wrong = compare(got, manifest, report_cells(reports, catalog, manifest))
        AGREE["workbook chains"] += len(sample)
        AGREE["workbook cells compared"] += n
        live = openpyxl.load_workbook(recalc[1], data_only=True)
        wrong += compare_live(chain_project, live, manifest, lives)
        if wrong:
            texts = "\n".join(f"{a.model.name}:\n{a.chain.text}" for a in sample if any(w.startswith(f"('{a.model.name}'") for w in wrong))
            pytest.fail("the recalculated workbook disagrees with the solver:\n" + "\n".join(wrong[:40]) + "\n" + texts, pytrace=False)
    AGREE_SECONDS["workbook"] += time.perf_counter() - start
