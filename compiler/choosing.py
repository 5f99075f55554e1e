"""Running a search over configurations: every configuration's row, then the runtime's rule chooses.

A configuration is one value per axis of `over:`. At each, the inner questions are answered first
(execute.ask: the existing question rule, the largest batch that meets the target on that GPU), the
model is solved there (execute.execute), the conditions are tested in order and the goals read. The
rows go to runtime/choose.py, which ranks them (or finds the frontier), names what binds and the
closest miss; the generated modules copy that rule, and the workbook prints it as formulas.
A grid the vectorised path can run (batch.py) runs there; the rows shown are then solved one by
one, so every number a reader sees is the solver's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from .chosen import Chosen
from .deadline import budgeted
from .errors import LimitError, NoAnswerError, SolveError
from .execute import ask, execute, failing_sides
from .run import evaluate
from .runtime import choose as rule


@dataclass(frozen=True, eq=False)
class PreparedChoose:
    """A search's shape ready to run: its grid, and per hardware the model's program and the inner questions'."""

    search: object  # ir.Choose
    model: object
    configs: tuple  # per row: one value per axis (catalog ids, base values)
    hardware: tuple  # per row: its (gpu, llm) ids, the key of `at` and `inner`
    at: dict  # (gpu, llm) -> Prepared: the model with the axes, inner unknowns and free variable given
    inner: dict  # (gpu, llm) -> ((variable, PreparedQuestion), ...)
    conditions: tuple  # (label, text, P.Cmp, guards)
    sizes: tuple  # each axis's number of values
    free: tuple | None = None  # (name, lo, hi): a continuous variable optimised at each configuration


@dataclass
class _Row:
    values: dict | None = None
    inner: tuple = ()
    failed: str = ""
    why: str = ""
    miss: float | None = None
    free_where: str = ""


@budgeted
def choose(pc: PreparedChoose, given: dict) -> Chosen:
    """Every configuration's row at these givens (base units), then the rule's choice."""
    rows = [_configuration(pc, i, given) for i in range(len(pc.configs))]
    return decide(pc, given, rows, exact=tuple(range(len(rows))))


def decide(pc: PreparedChoose, given: dict, rows: list, exact: tuple = ()) -> Chosen:
    """The rule over the rows: ranked (or the frontier), what binds, the closest miss, the best solved exactly."""
    s = pc.search
    goals = tuple(tuple(None if r.values is None else r.values[g.name] for r in rows) for g in s.goals)
    feasible = [not r.why for r in rows]
    order, binding, closest, placement = rule.decide(goals, feasible, [r.failed for r in rows], [r.miss for r in rows], [g.seek for g in s.goals], pc.sizes)
    solution, free_where = None, ""
    if order and not s.frontier:
        solution = _solve_row(pc, order[0], given, rows[order[0]])
        free_where = rows[order[0]].free_where if pc.free else ""
    width = len(s.inner) + (1 if s.free else 0)
    inner = tuple(tuple(r.inner[k] if len(r.inner) > k else None for r in rows) for k in range(width))
    return Chosen(
        s, pc.model, pc.configs, goals, inner, tuple(r.why for r in rows), tuple(r.failed for r in rows), tuple(r.miss for r in rows),
        tuple(order), tuple(binding), closest, solution, tuple(placement), free_where, exact,
    )  # fmt: skip


def _givens(pc: PreparedChoose, i: int, given: dict) -> dict:
    g = dict(given)
    for axis, v in zip(pc.search.over, pc.configs[i]):
        if not axis.catalog:
            g[axis.name] = v
    return g


def _configuration(pc: PreparedChoose, i: int, given: dict) -> _Row:
    g = _givens(pc, i, given)
    if pc.free is None:
        return _at(pc, i, g)
    name, lo, hi = pc.free
    goal = pc.search.goals[0].name
    x, where, r = rule.optimised(lambda x: _at(pc, i, {**g, name: x}), lambda r: None if r.why else r.values[goal], lo, hi, pc.search.goals[0].seek)
    r.inner, r.free_where = (*r.inner, x), where
    return r


def _at(pc: PreparedChoose, i: int, g: dict) -> _Row:
    """One configuration's row: inner answers, the model's values, the first condition that fails."""
    row = _Row()
    hw = pc.hardware[i]
    if isinstance(pc.at[hw], SolveError):  # the catalog entry lacks a value the model reads
        row.failed, row.why = "no value", pc.at[hw].message
        return row
    answers = []
    try:
        for var, pq in pc.inner[hw]:
            try:
                a = ask(pq, g)
            except NoAnswerError as e:
                row.inner, row.failed, row.why = tuple(answers), pq.rule.question.name, e.message
                return row
            g[var] = a.base
            answers.append(a.base)
        values = execute(pc.at[hw], g).values
    except LimitError:
        raise
    except SolveError as e:
        row.inner, row.failed, row.why = tuple(answers), "no value", e.message
        return row
    row.inner, row.values = tuple(answers), values

    def sides(cmp, guards):
        if any(evaluate(when, values) and evaluate(div, values) == 0 for div, when in guards):  # SymPy may have cancelled it
            raise ZeroDivisionError("division by zero")
        return evaluate(cmp.left, values), evaluate(cmp.right, values)

    tests = [(label, text, cmp.op, lambda c=cmp, g=guards: sides(c, g), lambda _l, _r, c=cmp: failing_sides(pc.model, c, values)) for label, text, cmp, guards in pc.conditions]
    row.failed, row.why, row.miss = rule.tested(tests)
    return row


def _solve_row(pc: PreparedChoose, i: int, given: dict, row: _Row):
    """The model at row i, solved exactly by the solver (the Solution every output reads for the best)."""
    g = _givens(pc, i, given)
    names = [v for v, _ in pc.search.inner] + ([pc.free[0]] if pc.free else [])
    g.update((n, v) for n, v in zip(names, row.inner) if v is not None)
    return execute(pc.at[pc.hardware[i]], g)
