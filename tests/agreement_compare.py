"""Comparing a random chain's outputs with the solver's, for tests/test_agreement*.py.

`accept` writes a chain (and the model it joins) into a project, loads and solves it and
evaluates its Report; `compare_modules` calls the Python and NumPy modules built from
that Report at every point, question and backwards query, against `chainc.solve` and
`chainc.ask`; `workbook_sample` draws chains the workbook prints, and `compare_live`
checks a recalculated workbook with typed-in inputs. What the workbook may refuse is
decided in one place: `workbook_refusal`.
"""

from __future__ import annotations

import itertools
import math
import time
import warnings
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

from chainc import Project, ask, solve
from chainc.backends import BuildOptions
from chainc.backends import python as python_backend
from chainc.build import reports_for
from chainc.errors import ChaincError

from .agreement_grammar import Chain
from .conftest import AGREE, AGREE_PROFILE, AGREE_SECONDS, AGREE_SLOWEST
from .test_python_backend import load

REL = 1e-9
AGREE_SETTINGS = settings(settings.get_profile(AGREE_PROFILE))
WORKBOOK_CHAINS = 16 if AGREE_PROFILE == "agree-ci" else 8  # chains per LibreOffice run
WORKBOOK_RUNS = 2 if AGREE_PROFILE == "agree-ci" else 1
_counter = itertools.count()


# --- errors of the same kind ----------------------------------------------------------------------------

KINDS = (  # (kind, what the solver or a module says), the first match wins
    ("limit", ("sum_terms limit",)),
    ("validity", ("holds only where",)),  # an equation's valid_when: fails
    ("sum bound", ("bound of a sum is",)),  # not a whole number
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


def module(f, mod, warned: list | None = None):
    """f()'s value, the module's ChainError, or any other exception as Failed; `warned` collects the warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return f()
        except mod.ChainError as e:
            return e
        except Exception as e:  # noqa: BLE001 - a module must raise its ChainError, nothing else
            return Failed(e)
        finally:
            if warned is not None:
                warned.extend(str(w.message) for w in caught)


def limits_agree(cmp, where: str, want, warned: list) -> None:
    """The physical limits the module warned of are those the solver's solution fails (one at its edge, to 1e-9, may go either way)."""
    from chainc.run import evaluate

    edge = set()
    for x in want.program.physical:
        try:
            left, right = (as_float(evaluate(side, want.values)) for side in (x.cond.left, x.cond.right))
        except (ArithmeticError, ValueError, TypeError, KeyError):
            continue
        if math.isfinite(left) and math.isfinite(right) and abs(left - right) <= 1e-9 * max(abs(left), abs(right), 1e-300):
            edge.add(x.name)
    solver_says = {w.name for w in want.warnings} - edge
    module_says = {m.split(" limit fails: ", 1)[0] for m in warned if " limit fails: " in m} - edge
    AGREE["limits compared"] += 1
    if solver_says != module_says:
        cmp.problems.append(Mismatch(where, f"the solver warns of limits {sorted(solver_says)}, the module of {sorted(module_says)}"))


def as_float(x) -> float:
    if isinstance(x, (str, np.str_)):  # a choice's name (lookups:): compared as it is
        return str(x)
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


def close(got, want, rel=REL) -> bool:
    g, w = as_float(got), as_float(want)
    if isinstance(g, str) or isinstance(w, str):
        return g == w
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
            a = np.asarray(x)
            a = a if a.dtype.kind in "US" else a.astype(float)  # a choice's names stay names
            return a.reshape(-1)[element] if a.ndim else a.item()

        for n in model.variables:
            self.value(f"{where}: {n}", want.value(n), at(getattr(got, n)))
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
    text = chain.text.replace("name: chain\n", f"name: {name}\n", 1)
    for stem, inner in chain.files:  # a joined model, under a name of this chain's: sub/inner.yaml -> sub/chain-7-inner.yaml
        (project.root / "models" / "sub").mkdir(exist_ok=True)
        (project.root / "models" / "sub" / f"{name}-{stem}.yaml").write_text(inner.replace(f"name: {stem}\n", f"name: {name}-{stem}\n", 1))
        text = text.replace(f"model: sub/{stem}.yaml", f"model: sub/{name}-{stem}.yaml")
    path.write_text(text)
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
    for construct in chain.constructs:
        AGREE[f"accepted with {construct}"] += 1
    options = BuildOptions(out, numpy=True)
    query = None
    if chain.query is not None:
        find, known = chain.query
        value = as_float(base.value(known))
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
    return {n: np.array([scalar(v)]) for n, v in point.items()}


def scalar(v):
    """A point's value for an array: a number as a float, a choice's name as it is."""
    return v if isinstance(v, str) else float(v)


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
        warned: list = []
        got = module(lambda point=point: mod.solve(**point), mod, warned)
        if cmp.outcome(f"{where} (Python)", want, got):
            cmp.solution(f"{where} (Python)", model, want, got)
            limits_agree(cmp, f"{where} (Python)", want, warned)
        warned = []
        got = module(lambda point=point: vec.solve(**arrays(point)), vec, warned)
        if cmp.outcome(f"{where} (NumPy)", want, got):
            cmp.solution(f"{where} (NumPy)", model, want, got, element=0)
            limits_agree(cmp, f"{where} (NumPy)", want, warned)
        for q, question in model.questions.items():
            kw = {n: v for n, v in point.items() if n != question.find}
            var = model.variables[question.find]
            answer = solver(lambda kw=kw, q=q: ask(model, q, kw, project=project))
            AGREE["questions asked"] += 1
            if not isinstance(answer, ChaincError):
                AGREE["questions answered"] += 1
            want = answer if isinstance(answer, ChaincError) else var.to_display(answer.base)
            got = module(lambda kw=kw, q=q: getattr(mod, q)(**kw), mod)
            if cmp.outcome(f"question {q} at {kw or 'the defaults'} (Python)", want, got):
                cmp.value(f"question {q} at {kw or 'the defaults'} (Python)", want, got)
            got = module(lambda kw=kw, q=q: getattr(vec, q)(**arrays(kw)), vec)
            if cmp.outcome(f"question {q} at {kw or 'the defaults'} (NumPy)", want, got):
                cmp.value(f"question {q} at {kw or 'the defaults'} (NumPy)", want, np.asarray(got).reshape(-1)[0])
    if model.searches:  # each search at every point, both flavours against the solver's Chosen
        from .agreement_searches import compare_searches

        compare_searches(project, a, cmp, mod, vec, points_of(a))
    # NumPy over every point at once: all agree, or the call raises where the solver does somewhere
    if len(expected_points) > 1:
        defaults = {n: as_float(a.base.value(n)) for n in inputs}
        batch = {n: np.array([scalar(p.get(n, defaults[n])) for p in points_of(a)]) for n in {n for p in points_of(a) for n in p}}
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
            for flavour, call in (("Python", lambda v=v: getattr(mod, fname)(v)), ("NumPy", lambda v=v: getattr(vec, fname)(np.array([v])))):
                got = module(call, mod if flavour == "Python" else vec)
                if isinstance(want, ChaincError) != isinstance(got, Exception) and rounding_edge(project, model, known, find, v):
                    AGREE["queries at a rounding edge"] += 1
                    continue
                if cmp.outcome(f"{where} ({flavour})", want, got):
                    cmp.solution(f"{where} ({flavour})", model, want, got, element=0 if flavour == "NumPy" else None)
    return cmp


def rounding_edge(project: Project, model, known: str, find: str, v: float) -> bool:
    """Whether the solver's query has a root at v read as its decimal (1.02 as 51/50) and none at the float exactly, or
    at a neighbouring float, or the other way round: a root one rounding of the input away, which floats cannot settle."""
    outcomes = set()
    for w in (v, Fraction(v), Fraction(math.nextafter(v, math.inf)), Fraction(math.nextafter(v, -math.inf))):
        outcomes.add(isinstance(solver(lambda w=w: solve(model, {known: w}, (find,), project=project)), ChaincError))
    return len(outcomes) > 1


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
