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

A sample of chains is built into one workbook, recalculated by LibreOffice (every
cached value replaced first, so only a real recalculation passes), and compared
with the solver at the defaults and, with inputs typed into the sheet, at another
point. The default run is small and the same every time; CI=true runs a few hundred
random chains (tests/conftest.py holds the profiles; the counts print at the end).
"""

from __future__ import annotations

import io
import itertools
import math
import textwrap
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
import openpyxl
import pytest
from hypothesis import example, given, settings

from chainc import Project, ask, solve
from chainc.backends import BuildOptions
from chainc.backends import python as python_backend
from chainc.backends.excel import ExcelPrintError, build_workbook
from chainc.build import reports_for
from chainc.errors import ChaincError

from .agreement_grammar import Chain, chains
from .conftest import AGREE, AGREE_PROFILE, AGREE_SECONDS, AGREE_SLOWEST
from .test_excel import compare, report_cells, stale_copy
from .test_python_backend import load
from .tools import require

REL = 1e-9
AGREE_SETTINGS = settings(settings.get_profile(AGREE_PROFILE))
WORKBOOK_CHAINS = 16 if AGREE_PROFILE == "agree-ci" else 8  # chains per LibreOffice run
WORKBOOK_RUNS = 2 if AGREE_PROFILE == "agree-ci" else 1
_counter = itertools.count()


# --- errors of the same kind ----------------------------------------------------------------------------

KINDS = (  # (kind, what the solver or a module says), the first match wins
    ("domain", ("is outside its domain", "is not a whole number")),
    ("rows", ("rows =", "more than max_rows", "of a table with no rows")),
    ("division by zero", ("division by zero", "divides by zero")),
    ("no real value", ("no real value", "not a finite number", "no finite real value", "leaves the domain of a function", "math domain error", "not a real number")),
    ("root", ("no admissible value", "several admissible values")),
    ("no answer", (" meets ", "there is no largest", "there is no smallest", "no answer")),
    ("numeric", ("no value of", "no exact root", "no numeric solution", "jump past each other")),
    ("size", ("beyond any computable size", "overflows", "digits")),
)


def kind(e: BaseException) -> str:
    text = getattr(e, "message", None) or str(e)
    return next((k for k, words in KINDS if any(w in text for w in words)), f"other: {text}")


# --- calling both sides ---------------------------------------------------------------------------------------


@dataclass
class Failed:
    """What a module raised instead of its ChainError (a crash: never agreement)."""

    error: BaseException


def solver(f):
    """f()'s value, or the ChaincError it raised (anything else propagates: a crash of the solver)."""
    try:
        return f()
    except ChaincError as e:
        return e


def module(f, mod):
    """f()'s value, the module's ChainError, or any other exception as Failed."""
    try:
        return f()
    except mod.ChainError as e:
        return e
    except Exception as e:  # noqa: BLE001 - a module must raise its ChainError, nothing else
        return Failed(e)


def as_float(x) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


def close(got, want, rel=REL) -> bool:
    g, w = as_float(got), as_float(want)
    if math.isnan(g) or math.isnan(w):
        return False
    return g == w or math.isclose(g, w, rel_tol=rel, abs_tol=1e-300)


@dataclass
class Mismatch:
    where: str
    what: str

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


@dataclass
class Comparison:
    """Collects disagreements; the test fails with all of them."""

    chain: Chain
    problems: list = field(default_factory=list)

    def outcome(self, where: str, want, got) -> bool:
        """Both raised (the same kind) or both returned: True when both returned."""
        if isinstance(got, Failed):
            self.problems.append(Mismatch(where, f"the module crashed with {type(got.error).__name__}: {got.error}" + (f" (the solver: {want.message})" if isinstance(want, ChaincError) else "")))
            return False
        if isinstance(want, ChaincError):
            AGREE["errors compared"] += 1
            if not isinstance(got, Exception):
                self.problems.append(Mismatch(where, f"the solver raised '{want.message}', the module returned {got!r:.200}"))
            elif kind(want) != kind(got):
                self.problems.append(Mismatch(where, f"the solver raised {kind(want)} ('{want.message}'), the module {kind(got)} ('{getattr(got, 'message', got)}')"))
            return False
        if isinstance(got, Exception):
            self.problems.append(Mismatch(where, f"the module raised '{getattr(got, 'message', got)}', the solver did not"))
            return False
        return True

    def value(self, where: str, want, got) -> None:
        AGREE["values compared"] += 1
        if not close(got, want):
            self.problems.append(Mismatch(where, f"the module gives {as_float(got)!r}, the solver {as_float(want)!r}"))

    def solution(self, where: str, model, want, got, element=None) -> None:
        """Every variable and table cell; `element`: the index into a NumPy result's arrays."""

        def at(x):
            if element is None:
                return x
            a = np.asarray(x, dtype=float)
            return a.reshape(-1)[element] if a.ndim else float(a)

        for n in model.variables:
            self.value(f"{where}: {n}", want.display(n), at(getattr(got, n)))
        for t, rows in want.tables.items():
            records = getattr(got, t)
            cols = model.tables[t].columns
            if element is None and len(records) != len(rows):
                self.problems.append(Mismatch(f"{where}: table {t}", f"the module has {len(records)} rows, the solver {len(rows)}"))
                continue
            if element is not None and len(records) < len(rows):
                self.problems.append(Mismatch(f"{where}: table {t}", f"the NumPy module has {len(records)} rows, the solver {len(rows)}"))
                continue
            for i, rec in enumerate(records, 1):
                for c in cols:
                    got_value = at(getattr(rec, c.name))
                    if i > len(rows):
                        if not math.isnan(got_value):
                            self.problems.append(Mismatch(f"{where}: {t}[{i}].{c.name}", f"past the solver's {len(rows)} rows the NumPy module has {got_value!r}, not NaN"))
                        continue
                    self.value(f"{where}: {t}[{i}].{c.name}", c.to_display(rows[i - 1][c.name]), got_value)

    def check(self) -> None:
        if self.problems:
            listed = "\n".join(f"  {p}" for p in self.problems[:30])
            more = f"\n  ... and {len(self.problems) - 30} more" if len(self.problems) > 30 else ""
            pytest.fail(f"the outputs disagree on this chain:\n{self.chain.text}points: {self.chain.points}, query: {self.chain.query}\n{listed}{more}", pytrace=False)


# --- one chain ------------------------------------------------------------------------------------------------


@dataclass
class Accepted:
    """A chain the solver accepted: its model, the forward solution, its Report and where things went."""

    chain: Chain
    path: Path
    model: object
    base: object  # the Solution at the defaults
    reports: list
    catalog: object
    options: BuildOptions
    query: tuple | None  # (find, given, value) when the build's custom query was solved


def accept(project: Project, chain: Chain, out: Path) -> Accepted | None:
    """Write, load and solve the chain; evaluate it into a Report (with its backwards query if that solves)."""
    name = f"chain-{next(_counter)}"
    path = project.root / "models" / f"{name}.yaml"
    path.write_text(chain.text.replace("name: chain\n", f"name: {name}\n", 1))
    AGREE["chains"] += 1
    try:
        model = project.model(str(path))
    except ChaincError:
        AGREE["refused by the loader"] += 1
        return None
    try:
        base = solve(model, project=project)
    except ChaincError:
        AGREE["refused by the solver"] += 1
        return None
    AGREE["accepted"] += 1
    options = BuildOptions(out, numpy=True)
    query = None
    if chain.query is not None:
        find, known = chain.query
        value = as_float(base.display(known))
        query = (find, known, value)
        options = BuildOptions(out, find=(find,), given={known: repr(value)}, numpy=True)
    try:
        reports, catalog = reports_for(project, [str(path)], options)
    except ChaincError:  # the backwards query has no answer at the build's value: build without it
        AGREE["queries refused by the solver"] += 1
        query, options = None, BuildOptions(out, numpy=True)
        reports, catalog = reports_for(project, [str(path)], options)
    return Accepted(chain, path, model, base, reports, catalog, options, query)


def points_of(a: Accepted) -> list[dict]:
    """The defaults, then the chain's other points."""
    return [{}] + [dict(p) for p in a.chain.points]


def arrays(point: dict) -> dict:
    return {n: np.array([float(v)]) for n, v in point.items()}


def compare_modules(project: Project, a: Accepted) -> Comparison | None:
    """The Python and NumPy modules against the solver; None when the backend cannot print the chain."""
    try:
        paths = python_backend.build(a.reports, a.catalog, "py", a.options)
    except python_backend.PythonBackendError as e:  # allowed: a located "cannot print" error
        assert "cannot print" in e.message and e.loc is not None, e.render()
        AGREE["cannot print (Python)"] += 1
        return None
    mod, vec = load(paths[0]), load(paths[1])
    model, cmp = a.model, Comparison(a.chain)
    AGREE["built"] += 1
    inputs = [n for n in model.variables if n in a.base.program.inputs]
    expected_points = []
    for point in points_of(a):
        where = f"solve at {point or 'the defaults'}"
        want = solver(lambda point=point: solve(model, point, project=project))
        expected_points.append(want)
        AGREE["points"] += 1
        got = module(lambda point=point: mod.solve(**point), mod)
        if cmp.outcome(f"{where} (Python)", want, got):
            cmp.solution(f"{where} (Python)", model, want, got)
        got = module(lambda point=point: vec.solve(**arrays(point)), vec)
        if cmp.outcome(f"{where} (NumPy)", want, got):
            cmp.solution(f"{where} (NumPy)", model, want, got, element=0)
        for q, question in model.questions.items():
            kw = {n: v for n, v in point.items() if n != question.find}
            var = model.variables[question.find]
            answer = solver(lambda kw=kw, q=q: ask(model, q, kw, project=project))
            AGREE["questions asked"] += 1
            if not isinstance(answer, ChaincError):
                AGREE["questions answered"] += 1
            want = answer if isinstance(answer, ChaincError) else var.to_display(answer.value)
            got = module(lambda kw=kw, q=q: getattr(mod, q)(**kw), mod)
            if cmp.outcome(f"question {q} at {kw or 'the defaults'} (Python)", want, got):
                cmp.value(f"question {q} at {kw or 'the defaults'} (Python)", want, got)
            got = module(lambda kw=kw, q=q: getattr(vec, q)(**arrays(kw)), vec)
            if cmp.outcome(f"question {q} at {kw or 'the defaults'} (NumPy)", want, got):
                cmp.value(f"question {q} at {kw or 'the defaults'} (NumPy)", want, np.asarray(got).reshape(-1)[0])
    # NumPy over every point at once: all agree, or the call raises where the solver does somewhere
    if len(expected_points) > 1:
        defaults = {n: as_float(a.base.display(n)) for n in inputs}
        batch = {n: np.array([float(p.get(n, defaults[n])) for p in points_of(a)]) for n in {n for p in points_of(a) for n in p}}
        got = module(lambda: vec.solve(**batch), vec)
        failures = sum(isinstance(w, ChaincError) for w in expected_points)
        where = "solve at every point at once (NumPy)"
        if isinstance(got, Failed):
            cmp.problems.append(Mismatch(where, f"the module crashed with {type(got.error).__name__}: {got.error}"))
        elif failures and not isinstance(got, Exception):
            cmp.problems.append(Mismatch(where, f"the solver fails at {failures} of {len(expected_points)} points, the module returned"))
        elif not failures and isinstance(got, Exception):
            cmp.problems.append(Mismatch(where, f"the module raised '{got.message}', the solver solves every point"))
        elif not failures:
            for k, want in enumerate(expected_points):
                cmp.solution(f"{where}, point {k}", model, want, got, element=k)
    if a.query is not None:
        find, known, value = a.query
        AGREE["queries built"] += 1
        fname = next(f for f in mod.__all__ if f.endswith(f"_from_{known}") and f.startswith(find))
        for v in (value, value * 1.25, value * 0.5, -value):
            where = f"{find} from {known} = {v!r}"
            want = solver(lambda v=v: solve(model, {known: v}, (find,), project=project))
            AGREE["queries asked"] += 1
            got = module(lambda v=v: getattr(mod, fname)(v), mod)
            if cmp.outcome(f"{where} (Python)", want, got):
                cmp.solution(f"{where} (Python)", model, want, got)
            got = module(lambda v=v: getattr(vec, fname)(np.array([v])), vec)
            if cmp.outcome(f"{where} (NumPy)", want, got):
                cmp.solution(f"{where} (NumPy)", model, want, got, element=0)
    return cmp


# --- the property -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chain_project(tmp_path_factory) -> Project:
    """A project of its own for the random chains, over the bundled catalog."""
    root = tmp_path_factory.mktemp("chains")
    (root / "models").mkdir()
    return Project(root)


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("chain-modules")


def run_chain(chain_project: Project, out: Path, chain: Chain) -> None:
    start = time.perf_counter()
    try:
        accepted = accept(chain_project, chain, out)
        if accepted is None:
            return
        cmp = compare_modules(chain_project, accepted)
        if cmp is not None:
            cmp.check()
    finally:
        seconds = time.perf_counter() - start
        AGREE_SECONDS["modules"] += seconds
        if seconds > AGREE_SLOWEST[0]:
            AGREE_SLOWEST[:] = [seconds, chain.text]


# --- chains that once went wrong, kept as explicit examples ---------------------------------------------------------
#
# Each disagreement (or crash, or time bomb) the property found, shrunk by hand where hypothesis could not.


def yaml(text: str) -> str:
    """A chain's YAML, written indented in this file."""
    return textwrap.dedent(text).lstrip("\n")


# 17 s: every solve at a question's trial point identified each float value with nsimplify (PSLQ)
# to pick the admissible root of the squared equations (compiler/solver.py, _chosen_forms)
TWO_ROOTS_ARE_CHOSEN_QUICKLY = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {unit: "GB", value: 0.5, domain: "nonnegative", min: 0.5}
      a1: {unit: "token/s", domain: "nonnegative"}
      a2: {unit: "s", domain: "nonnegative"}
      a3: {unit: "MB"}
    equations:
      - "a1 ** 2 = 7[token**2/s**2]"
      - "a2 ** 2 = 3[s**2]"
      - "a3 ** 2 = (a0 + a0) * a0"
    questions:
      q0: {find: "a0", such_that: "a3 >= 0.1[MB]", seek: "max"}
    """),
    ({"a0": 12.5},),
)

# a crash (Unlowerable: ComplexInfinity) instead of an error: SymPy cancelled 1 / (prev.c0 / 0) in the column's
# value but kept the divisor prev.c0 * zoo for its guard; a constant 0 divisor is now refused where it is written
ZERO_DIVISOR_IN_A_COLUMN = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {value: 2}
      a1: {domain: "real"}
    equations:
      - "a1 = a0 + sum(t.c0)"
    tables:
      t:
        rows: "2"
        columns:
          c0: {formula: "1 / (prev.c0 / min(1, 0))", initial: 1}
    """)
)

# a2 + a1 = max(2, a1) has no root for a2 = -1; the modules found a1 = 1.8e16, where a2 + a1 rounds to a1
# in floats and the residual was 0: residuals are now summed without cancellation error (runtime exact_sum)
ROUNDING_IS_NO_ROOT = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {unit: "s", value: 2}
      a1: {value: 1, integer: true}
      a2: {domain: "real"}
    equations:
      - "a2 + a1 = max(2, a1)"
    """),
    ({},),
    ("a1", "a2"),
)

# a4 = 2[token] / floor(a0) has no value at a0 = 0.5: the solver's candidate raises ZeroDivisionError, but the
# NumPy module's was inf (NumPy divides by zero quietly) and _pick_np admitted it in a real domain
INFINITE_ROOT_IS_NO_ROOT = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a0: {value: 2}
      a4: {unit: "token", domain: "real"}
    equations:
      - "2[token] / a4 = floor(a0)"
    """),
    ({"a0": 0.5},),
)

# a crash (KeyError: 'a3') in the question's boundary program: a4 = 0 / a3 is the constant 0, so its step came
# first, and the guard of its divisor a3 with it, before the boundary equation computed a3
GUARD_BEFORE_ITS_DIVISOR = Chain(
    yaml("""
    name: chain
    title: a random chain
    variables:
      a1: {unit: "s", value: 2}
      a3: {unit: "token", domain: "real"}
      a4: {unit: "token", domain: "real"}
    equations:
      - "a3 = 4[s*token] / (a1 + a1)"
      - "a4 = (0 * 2[token**2]) / a3"
    questions:
      q0: {find: "a1", such_that: "a3 > 1.5[token]", seek: "max"}
    """),
    ({"a1": 0.5},),
)


@AGREE_SETTINGS
@example(chain=TWO_ROOTS_ARE_CHOSEN_QUICKLY)
@example(chain=ROUNDING_IS_NO_ROOT)
@example(chain=ZERO_DIVISOR_IN_A_COLUMN)
@example(chain=INFINITE_ROOT_IS_NO_ROOT)
@example(chain=GUARD_BEFORE_ITS_DIVISOR)
@given(chain=chains())
def test_the_modules_agree_with_the_solver(chain_project, out, chain):
    run_chain(chain_project, out, chain)


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
        try:
            build_workbook(a.reports, a.catalog)
        except ExcelPrintError as e:  # allowed: a located "cannot print" error
            assert "cannot print" in e.message and e.loc is not None, e.render()
            AGREE["cannot print (Excel)"] += 1
            return
        sample.append(a)

    collect()
    return sample


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


def compare_live(project: Project, wb, manifest, lives: dict) -> list[str]:
    """The sheets at the typed-in points: every formula cell follows, as the solver says."""
    fixed = set(manifest.fixed)
    wrong = []
    for name, (a, point, want) in sorted(lives.items()):
        AGREE["workbook live points"] += 1
        expect: dict[tuple, object] = {(name, "var", n): want.display(n) for n in a.model.variables}
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
            expect[(name, "question", q)] = "#N/A" if isinstance(answer, ChaincError) else a.model.variables[question.find].to_display(answer.value)
        expect = {k: (float(v) if isinstance(v, Fraction) else v) for k, v in expect.items() if k in manifest.cells and manifest.cells[k] not in fixed}
        n, bad = compare(wb, manifest, expect)
        AGREE["workbook cells compared"] += n
        wrong += [f"{w} (at {point})" for w in bad]
    return wrong
