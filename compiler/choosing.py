"""Running a search over configurations: every configuration's row, then the runtime's rule chooses.

A configuration is one value per axis of `over:`. At each, the inner questions are answered first
(execute.ask: the existing question rule, the largest batch that meets the target on that GPU), the
model is solved there (execute.execute), the conditions are tested in order and the goals read. The
rows go to runtime/choose.py, which ranks them (or finds the frontier), names what binds and the
closest miss; the generated modules copy that rule, and the workbook prints it as formulas.

A large grid runs through the batch path (grid.py: the same programs and question rule over arrays,
in floats); the rows a reader sees (the ranked table, the frontier, the closest miss, any reason
asked for) are then computed again one by one by the solver, exactly, and the rule runs again over
them until the rows shown are rows computed exactly.
"""

from __future__ import annotations

from .chosen import Chosen, Reasons
from .deadline import budgeted
from .errors import LimitError, NoAnswerError, SolveError
from .execute import ask, execute, failing_sides
from .physical import verdicts
from .run import evaluate
from .runtime import choose as rule
from .search_data import Columns, PreparedChoose, Row, Unavailable

BATCH_FROM = 48  # configurations from which the batch path runs a grid (below it, one by one costs less)


@budgeted
def choose(pc: PreparedChoose, given: dict) -> Chosen:
    """Every configuration's row at these givens (base units), then the rule's choice."""
    n = len(pc.configs)
    cols = None
    if n >= BATCH_FROM:
        from .grid import batch_columns

        cols = batch_columns(pc, given)
    if cols is None:  # a small grid, or programs the batch path does not run: one by one
        cols = _columns(pc, [(i, configuration(pc, i, given)) for i in range(n)], n)
        return decide(pc, given, cols)
    for _ in range(4):  # the rows shown, computed exactly, until the rule shows no other
        chosen = decide(pc, given, cols)
        shown = {*(chosen.order if chosen.frontier else chosen.order[: pc.search.show]), *([chosen.closest] if chosen.closest is not None else [])}
        todo = sorted(shown - set(cols.rows))
        if not todo:
            return chosen
        _update(cols, [(i, configuration(pc, i, given)) for i in todo])
    return decide(pc, given, cols)


def _columns(pc: PreparedChoose, rows: list, n: int) -> Columns:
    width = len(pc.search.inner) + (1 if pc.free else 0)
    cols = Columns([[None] * n for _ in pc.search.goals], [[None] * n for _ in range(width)], [""] * n, [None] * n)
    _update(cols, rows)
    return cols


def _update(cols: Columns, rows: list) -> None:
    """Rows computed one by one replace the batch path's numbers for them."""
    for i, r in rows:
        cols.rows[i] = r
        cols.failed[i], cols.misses[i], cols.why[i] = r.failed, r.miss, r.why
        for k, column in enumerate(cols.inner):
            column[i] = r.inner[k] if len(r.inner) > k else None
        if r.free_where:
            cols.free_where[i] = r.free_where


def decide(pc: PreparedChoose, given: dict, cols: Columns) -> Chosen:
    """The rule over the rows: ranked (or the frontier), what binds, the closest miss, the best solved exactly."""
    s = pc.search
    for k, g in enumerate(s.goals):  # the goals of rows computed one by one
        for i, r in cols.rows.items():
            cols.goals[k][i] = None if r.values is None else r.values[g.name]
    feasible = [not f for f in cols.failed]
    order, binding, closest, placement = rule.decide(cols.goals, feasible, cols.failed, cols.misses, [g.seek for g in s.goals], pc.sizes)
    solution, free_where = None, ""
    if order and not s.frontier:
        solution = _solve_row(pc, order[0], given, [c[order[0]] for c in cols.inner])
        free_where = cols.free_where.get(order[0], "")
    reasons = Reasons(len(pc.configs), dict(cols.why), lambda i: configuration(pc, i, given).why if cols.failed[i] else "")
    shown = set(order if s.frontier else order[: s.show])
    warned = {i: verdicts(pc.at[pc.hardware[i]].program, r.values) for i, r in cols.rows.items() if i in shown and r.values is not None}
    return Chosen(
        s, pc.model, pc.configs, tuple(tuple(c) for c in cols.goals), tuple(tuple(c) for c in cols.inner), reasons, tuple(cols.failed), tuple(cols.misses),
        tuple(order), tuple(binding), closest, solution, tuple(placement), free_where, frozenset(cols.rows), {i: w for i, w in warned.items() if w},
    )  # fmt: skip


def givens(pc: PreparedChoose, i: int, given: dict) -> dict:
    """The givens at row i: the query's, and the row's value of each variable axis."""
    g = dict(given)
    for axis, v in zip(pc.search.over, pc.configs[i]):
        if not axis.catalog:
            g[axis.name] = v
    return g


def configuration(pc: PreparedChoose, i: int, given: dict) -> Row:
    """Row i computed by the solver, exactly: the free variable (if any) optimised first."""
    g = givens(pc, i, given)
    if pc.free is None:
        return _at(pc, i, g)
    name, lo, hi = pc.free
    goal = pc.search.goals[0].name
    x, where, r = rule.optimised(lambda x: _at(pc, i, {**g, name: x}), lambda r: None if r.why else r.values[goal], lo, hi, pc.search.goals[0].seek)
    r.inner, r.free_where = (*r.inner, x), where
    return r


def _at(pc: PreparedChoose, i: int, g: dict) -> Row:
    """One configuration's row: inner answers, the model's values, the first condition that fails."""
    row = Row()
    hw = pc.hardware[i]
    if isinstance(pc.at[hw], Unavailable):  # the catalog entry lacks a value the model reads
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


def _solve_row(pc: PreparedChoose, i: int, given: dict, inner: list):
    """The model at row i, solved exactly by the solver (the Solution every output reads for the best)."""
    g = givens(pc, i, given)
    names = [v for v, _ in pc.search.inner] + ([pc.free[0]] if pc.free else [])
    g.update((n, v) for n, v in zip(names, inner) if v is not None)
    return execute(pc.at[pc.hardware[i]], g)
