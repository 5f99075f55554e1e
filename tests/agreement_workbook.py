"""The random chains' workbook, for tests/test_agreement*.py: which chains it prints, and its cells against the solver.

`workbook_sample` draws chains the Excel backend prints; what it may refuse is decided in one
place, `workbook_builds` (REFUSED_NESTING: a grid of sums inside a grid, or of a product, not written out);
`live_point` and `compare_live` check a recalculated workbook with typed-in inputs.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import sympy as sp
from hypothesis import given, settings

from chainc import Project, ask, solve
from chainc.backends.excel import ExcelPrintError, build_workbook
from chainc.errors import ChaincError

from .agreement_compare import AGREE_SETTINGS, Accepted, accept, compare_modules, solver
from .agreement_grammar import chains
from .conftest import AGREE
from .test_excel import compare

# --- the workbook, recalculated by LibreOffice --------------------------------------------------------------------------


def workbook_sample(chain_project: Project, out: Path, size: int) -> list[Accepted]:
    """Chains the solver accepts and the Excel backend prints, drawn from the grammar."""
    sample: list[Accepted] = []

    @settings(AGREE_SETTINGS, max_examples=size * 4, phases=[p for p in AGREE_SETTINGS.phases if p.name in ("explicit", "generate")])
    @given(chain=chains())
    def collect(chain):
        if len(sample) >= size:
            return
        a = accept(chain_project, chain, out)
        if a is None:
            return
        if workbook_builds(chain_project, a):
            sample.append(a)

    collect()
    return sample


# The workbook prints a sum inside another one's terms as a grid where it reads the enclosing index (one row
# per outer term): a formula has two axes, so a grid inside a grid, or a grid of a product, is written out
# term by term over an enclosing sum with constant bounds, or else refused with exactly this located error,
# and the modules are still compared.
REFUSED_NESTING = "whose terms read their own index and an enclosing sum's (a formula holds a grid of terms at most"


def refused_grid(e, enclosing: frozenset = frozenset(), axes: int = 0) -> bool:
    """A SymPy sum or product the workbook cannot lay out: its bounds or terms read an enclosing index and its terms
    its own, inside a grid already or as a product (the printer's rule, on SymPy's tree).

    SymPy merges a sum of a sum into one node with several limits (innermost first): each limit is one level.
    """
    if isinstance(e, (sp.Sum, sp.Product)):
        inside = set(enclosing)
        for i in reversed(range(len(e.limits))):
            index = e.limits[i][0]
            body = type(e)(e.function, *e.limits[:i]) if i else e.function
            reads = bool(type(e)(e.function, *e.limits[: i + 1]).free_symbols & inside)
            grid = reads and index in body.free_symbols
            if grid and (axes > 1 or isinstance(e, sp.Product)):
                return True
            axes = axes + 1 if grid else axes if reads else 1
            inside.add(index)
        return refused_grid(e.function, frozenset(inside), axes)
    return any(refused_grid(x, enclosing, axes) for x in e.args)


def nests_an_outer_index(model) -> bool:
    """Anywhere in the model (equations, the joined model's, columns, rows, conditions)."""
    exprs = [x for eq in model.equations for x in (eq.lhs, eq.rhs)]
    exprs += [x for t in model.tables.values() for x in (t.rows, *(c.expr for c in t.columns))]
    exprs += [q.condition for q in model.questions.values()]
    return any(refused_grid(x) for x in exprs)


def workbook_builds(project: Project, a: Accepted) -> bool:
    """Whether the Excel backend prints the chain; a refusal must be a located "cannot print", and the nesting one exactly."""
    refuse = REFUSED_NESTING is not None and nests_an_outer_index(a.model)
    try:
        build_workbook(a.reports, a.catalog)
    except ExcelPrintError as e:
        assert "cannot print" in e.message and e.loc is not None, e.render()
        if refuse:
            assert e.message.count(REFUSED_NESTING) >= 1, e.render()
            AGREE["refused by the workbook: grids"] += 1
            cmp = compare_modules(project, a)  # the other backends still agree
            if cmp is not None:
                cmp.check()
        else:
            assert REFUSED_NESTING is None or REFUSED_NESTING not in e.message, f"the workbook refused a nesting it prints:\n{e.render()}\n{a.chain.text}"
            AGREE["cannot print (Excel)"] += 1
        return False
    if refuse:  # written out term by term: its numbers are compared with the solver's like any other
        AGREE["written out by the workbook: grids"] += 1
    return True


def live_point(project: Project, a: Accepted):
    """A point of the chain to type into the sheet, with the solver's solution there; None if the sheet cannot follow."""
    if a.base.program.numeric:
        return None  # a numeric search is the Report's number in the sheet (Goal Seek), and what it feeds follows that
    for point in a.chain.points:
        if not point:
            continue
        want = solver(lambda point=point: solve(a.model, point, project=project))
        if not isinstance(want, ChaincError):
            return point, want
    return None


def compare_live(project: Project, wb, manifest, lives: dict) -> list[str]:
    """The sheets at the typed-in points: every formula cell follows, as the solver says."""
    fixed = set(manifest.fixed)
    wrong = []
    for name, (a, point, want) in sorted(lives.items()):
        AGREE["workbook live points"] += 1
        expect: dict[tuple, object] = {(name, "var", n): float(want.base(n)) if a.model.variables[n].choices else want.value(n) for n in a.model.variables}  # a choice's cell holds its code
        for t, rows in want.tables.items():
            expect[(name, "rows", t)] = len(rows)
            cols = {c.name: c for c in a.model.tables[t].columns}
            laid_out = max((k[4] for k in manifest.cells if k[:3] == (name, "table", t)), default=0)
            if len(rows) > laid_out:
                expect = {k: v for k, v in expect.items() if k[1] == "rows"}  # the totals show #N/A: the sheet says to rebuild
                break
            for key in manifest.cells:
                if key[:3] == (name, "table", t):
                    _, _, _, col, i = key
                    expect[key] = cols[col].to_display(rows[i - 1][col]) if i <= len(rows) else None
        for q, question in a.model.questions.items():
            kw = {n: v for n, v in point.items() if n != question.find}
            answer = solver(lambda model=a.model, q=q, kw=kw: ask(model, q, kw, project=project))
            expect[(name, "question", q)] = "#N/A" if isinstance(answer, ChaincError) else a.model.variables[question.find].to_display(answer.base)
        expect = {k: (float(v) if isinstance(v, Fraction) else v) for k, v in expect.items() if k in manifest.cells and manifest.cells[k] not in fixed}
        n, bad = compare(wb, manifest, expect)
        AGREE["workbook cells compared"] += n
        wrong += [f"{w} (at {point})" for w in bad]
    return wrong
