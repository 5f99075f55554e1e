"""Evaluate once: a Report per (model, hardware, givens), which every backend and the CLI print.

A Report holds the solution, every question's answer (or why it has none), every
check's outcome with what it compared, every sweep, and the custom queries a build
asked for. The CatalogReport holds every catalog entry's solved values. Backends
read these and the Programs inside them; they never call the solver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from .catalog import Catalog, Entry, FieldSpec
from .checks import CheckOutcome, run_check
from .errors import ChaincError
from .ir import Model
from .program import Program
from .quantities import exact, given_value
from .solve import Answer, Asking, Query, Solution, ask_query, asking, entry_solution, entry_values, solve_query
from .sweep import SweepResult, run_sweep


@dataclass(frozen=True)
class Report:
    model: Model
    solution: Solution  # the model solved forward on its hardware, at the givens
    answers: dict[str, Answer | ChaincError]  # question -> answer, or the error that says why there is none
    checks: tuple[CheckOutcome, ...]
    sweeps: dict[str, SweepResult]
    queries: dict[str, Solution] = field(default_factory=dict)  # custom queries (build --find/--given), by name
    given: tuple[tuple[str, Fraction | float], ...] = ()
    source: str = ""  # the model file as outputs name it: 'models/goodput.yaml' (relative to its library folder)
    imports: dict[str, Report] = field(default_factory=dict)  # alias -> the imported model's own report
    asking: dict[str, Asking] = field(default_factory=dict)  # question -> its programs and edges (also when it has no answer)

    @property
    def gpu(self) -> Entry | None:
        return self.solution.gpu

    @property
    def llm(self) -> Entry | None:
        return self.solution.llm

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def answer(self, question: str) -> Answer:
        a = self.answers[question]
        if isinstance(a, ChaincError):
            raise a
        return a


@dataclass(frozen=True)
class CatalogReport:
    """Every entry of the catalog with its values (base units; None where it has none), and the fields."""

    fields: dict[str, dict[str, FieldSpec]]
    entries: dict[str, tuple[tuple[Entry, dict], ...]]  # kind -> ((entry, values), ...)
    programs: dict[tuple[str, str], Program] = field(default_factory=dict)  # (kind, id) -> the program computing its derived fields

    def values(self, kind: str, entry_id: str) -> dict:
        return next(v for e, v in self.entries[kind] if e.id == entry_id)


def evaluate(
    model: Model, catalog: Catalog | None, gpu: str | None = None, llm: str | None = None, given: dict | None = None, queries: dict | None = None, source=None, memo: dict | None = None
) -> Report:
    """Solve, answer, check and sweep a model once. Errors of the forward solve raise; a question's are kept.

    source(path) names model files in outputs; memo (model -> Report) shares imported models' reports.
    """
    memo = {} if memo is None else memo
    imports = {}
    for alias, other in model.imports:
        if other not in memo:
            memo[other] = evaluate(other, catalog, gpu, llm, source=source, memo=memo)
        imports[alias] = memo[other]
    gpu, llm = (gpu if model.gpu else None), (llm if model.llm else None)
    values = tuple((n, given_value(model, n, v)) for n, v in (given or {}).items())
    solution = solve_query(model, catalog, Query(values, (), gpu, llm))
    answers: dict = {}
    shapes: dict = {}
    for name in model.questions:
        try:
            answers[name] = ask_query(model, catalog, name, Query(values, (), gpu, llm))
        except ChaincError as e:
            answers[name] = e
        try:
            shapes[name] = asking(model, name, frozenset(n for n, _ in values))
        except ChaincError:
            pass  # the question cannot be planned: its answer holds the error
    checks = tuple(run_check(model, c, catalog, gpu, llm) for c in model.checks)
    sweeps = {name: run_sweep(model, sw, catalog, gpu, llm, values) for name, sw in model.sweeps.items()}
    custom = {}
    for name, (find, qgiven) in (queries or {}).items():
        qvalues = tuple((n, given_value(model, n, v)) for n, v in qgiven.items())
        custom[name] = solve_query(model, catalog, Query(qvalues, tuple(find), gpu, llm))
    return Report(model, solution, answers, checks, sweeps, custom, values, source(model.path) if source else model.path, imports, shapes)


def catalog_report(catalog: Catalog) -> CatalogReport:
    entries = {kind: tuple((e, entry_values(e)) for e in catalog.entries(kind)) for kind in ("gpu", "llm")}
    programs = {(kind, e.id): entry_solution(e).program for kind, pairs in entries.items() for e, _ in pairs}
    return CatalogReport(catalog.fields, entries, programs)


def display(q, base) -> float:
    """A base-unit value in a quantity's display unit, as a float."""
    return float(exact(base) / exact(q.factor)) if not isinstance(base, float) else base / float(q.factor)
