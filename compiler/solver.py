"""Solving in any direction: a model, a catalog and a query -> a Solution; a question -> an Answer.

The query's shape (which variables are known) is planned once with SymPy and
lowered once into a Program (plan.py, lower.py); the numbers come from running
that program (run.py), exactly where the model is rational. Catalog entries and
imported models are bound when a model loads; here their values are computed
(entries are small models too) for the hardware the query picks. The rule that
answers a question is the runtime's (runtime/answer.py), the same source the
generated modules copy.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from . import lower
from . import program as P
from .errors import ArgumentError, LimitError, SolveError, display_path, spelled
from .execute import Prepared, PreparedQuestion, ask, execute
from .ir import Equation, Model, Question, Variable
from .numbers import exact
from .order import deepest_first
from .plan import make_plan
from .results import Answer, Asking, Plan, Query, Solution
from .run import run_assign

# --- catalog entries and imports -----------------------------------------------------------------------


@lru_cache(maxsize=256)
def entry_solution(entry) -> Solution:
    """A catalog entry solved: its typed values as inputs, its derived sizes computed by its own program."""
    return solve_query(entry.model, None, Query())


def entry_values(entry) -> dict:
    """Every field of a catalog entry in base units (derived ones solved); None where the entry has none."""
    s = entry_solution(entry)
    return {name: s.values.get(name) for name in entry.fields}


def hardware(model: Model, catalog, gpu: str | None, llm: str | None) -> dict:
    out = {}
    for kind, chosen, default in (("gpu", gpu, model.gpu), ("llm", llm, model.llm)):
        if chosen and not default:
            raise ArgumentError(
                f"model '{model.name}' uses no {kind.upper()}, so {spelled('hardware', kind=kind)} does not apply", None, f"drop {spelled('hardware', kind=kind)}; {spelled('reads', model=model.name)}"
            )
        entry_id = chosen or default
        if entry_id:
            entry = catalog.entry(kind, entry_id)
            if entry is None:
                ids = catalog.ids(kind)
                close = difflib.get_close_matches(entry_id, ids, n=1)
                raise ArgumentError(f"unknown {kind.upper()} '{entry_id}'", None, f"did you mean {close[0]}?" if close else f"known: {', '.join(ids)}")
            out[kind] = entry
    return out


def parameters(model: Model, catalog, entries: dict) -> dict:
    """The values of gpu.x / llm.x / alias.x that the model reads (base units)."""
    values = {}
    imported: dict[str, Solution] = {}
    for name, p in model.params.items():
        if p.source in ("gpu", "llm"):
            entry = entries[p.source]
            v = entry_values(entry).get(p.field_name)
            if v is None:
                raise SolveError(f"{entry.title} has no value for {p.field_name}", p.loc, f"its catalog entry ({display_path(entry.path)}) marks it as not available; pick another {p.source.upper()}")
            values[name] = v
        else:
            if p.source not in imported:
                other = dict(model.imports)[p.source]
                gpu, llm = (entries[k].id if k in entries else None for k in ("gpu", "llm"))
                imported[p.source] = imported_solution(other, catalog, gpu, llm)
            values[name] = imported[p.source].values[p.field_name]
    return values


_solved: dict | None = None  # (model, catalog, gpu, llm) -> Solution, while imported_solution solves a chain


def imported_solution(model: Model, catalog, gpu: str | None, llm: str | None) -> Solution:
    """An imported model at its defaults, on its importer's GPU and LLM (gpu, llm) where it uses one.

    The models it imports are solved first, deepest first, so that each one's parameters find
    its own imports solved: a chain of imports never recurses (order.py).
    """
    global _solved

    def node(m: Model, gpu, llm) -> tuple:
        return (m, catalog, gpu if m.gpu else None, llm if m.llm else None)

    def children(n: tuple) -> list:
        m, _, gpu, llm = n
        return [node(other, gpu or m.gpu, llm or m.llm) for _, other in m.imports]  # the importer's hardware: chosen, or its own

    outer, _solved = _solved, {} if _solved is None else _solved
    try:
        want = node(model, gpu, llm)
        if want not in _solved:
            for n in deepest_first([want], children):
                if n not in _solved:
                    m, _, g, ll = n
                    _solved[n] = solve_query(m, catalog, Query(gpu=g, llm=ll))
        return _solved[want]
    finally:
        _solved = outer


# --- solving ------------------------------------------------------------------------------------------


def prepare(model: Model, catalog, query: Query) -> Prepared:
    """Everything about the query's shape that does not depend on the given values: planned once, cached."""
    entries = hardware(model, catalog, query.gpu, query.llm) if catalog is not None else {}
    given = frozenset(n for n, _ in query.given)
    for n in query.find:
        if n not in model.variables:
            close = difflib.get_close_matches(n, list(model.variables), n=2)
            raise ArgumentError(f"model '{model.name}' has no variable '{n}'", None, f"did you mean {' or '.join(close)}?" if close else f"variables: {', '.join(model.variables)}")
        if n in given:
            raise ArgumentError(f"{n} is both given and to be found", None, spelled("both"))
    return _prepare(model, catalog, tuple(sorted((k, e.id) for k, e in entries.items())), given, frozenset(query.find), tuple(query.extra))


@lru_cache(maxsize=1024)
def _prepare(model: Model, catalog, entry_ids: tuple, given: frozenset, find: frozenset, extra: tuple) -> Prepared:
    entries = {k: catalog.entry(k, i) for k, i in entry_ids}
    params = parameters(model, catalog, entries)
    env = dict(params)
    for assign in lower.defaults(model):  # the defaults: constants, or expressions of catalog values
        run_assign(assign, env)
    defaults = {n: env[n] for n, v in model.variables.items() if v.default is not None}
    known = frozenset(n for n, v in model.variables.items() if (v.default is not None and n not in find) or n in given)
    plan = make_plan(model, known, extra)
    formulas = {n: s.candidates[0][n] for s in plan.steps if s.method == "define" for n in s.unknowns}
    return Prepared(model, entries, params, defaults, lower.lower(plan), plan, formulas)


def solve_query(model: Model, catalog, query: Query) -> Solution:
    """Solve a model for every variable: defaults and the query's givens are known, its finds unknown."""
    prep = prepare(model, catalog, query)
    return with_forms(execute(prep, dict(query.given), tuple(query.find), query.check_domain))


def _chosen_forms(plan: Plan, values: dict) -> dict:
    """The closed form of each 'solve' step that produced the values (the admissible candidate)."""
    out = {}
    names = {q.sym: n for n in values if (q := plan.model.quantity(n)) is not None}
    for s in plan.steps:
        if s.method != "solve":
            continue
        if len(s.candidates) == 1:
            out.update(s.candidates[0])
            continue
        # a float's exact binary value: nsimplify would search for a closed form of every value (PSLQ, ~30 ms each);
        # only the symbols the candidates read (all values at every step made a long chain quadratic)
        used = set().union(*(e.free_symbols for c in s.candidates for e in c.values()))
        subs = {sym: sp.Rational(values[n]) for sym in used if (n := names.get(sym)) is not None and n in values}
        best = None
        for c in s.candidates:
            try:
                diff = sum(abs(complex(sp.N(e.xreplace(subs))) - complex(values[n])) for n, e in c.items())
            except (TypeError, ValueError):
                continue
            if best is None or diff < best[0]:
                best = (diff, c)
        if best is not None:
            out.update(best[1])
    return out


# --- questions -------------------------------------------------------------------------------------------


def _edges(q: Question, var: Variable):
    d = lower.domain_of(var)
    step = exact(q.step) if q.step is not None else None
    lo = d.lo if d.lo is not None else (step if step is not None and d.kind == "positive" else Fraction(0) if d.kind == "nonnegative" else None)
    return lo, d.hi, step


def _boundary_equation(model: Model, q: Question) -> Equation:
    return Equation(len(model.equations), _boundary_text(q.condition_text), q.condition.lhs, q.condition.rhs, q.loc)


def asking(model: Model, question: str, given: frozenset = frozenset()) -> Asking:
    """A question's programs and the rule's data, with the variables `given` known besides the defaults."""
    q = model.questions[question]
    var = model.variables[q.find]
    known = frozenset(n for n, v in model.variables.items() if v.default is not None) | frozenset(given)
    at = lower.lower(make_plan(model, known | {q.find}, ()))  # the arguments solve_query passes: one cached plan
    boundary = None  # several conditions have no one boundary: each part has its own
    if not q.parts:
        try:
            boundary = lower.lower(make_plan(model, known - {q.find}, (_boundary_equation(model, q),)))
        except LimitError:
            raise
        except SolveError:
            pass
    lo, hi, step = _edges(q, var)
    probe = lo if lo is not None else hi if hi is not None else (exact(var.default) if var.default is not None and var.default.is_number else exact(var.factor))
    strict = not q.parts and isinstance(q.condition, (sp.StrictLessThan, sp.StrictGreaterThan))
    guards = tuple((lower.expr(d), lower.expr(w)) for d, w in q.guards)
    return Asking(q, lower.expr(q.condition), boundary, at, lo, hi, step, probe, strict, guards)


def prepare_question(model: Model, catalog, question: str, given: frozenset, gpu: str | None, llm: str | None) -> PreparedQuestion:
    """A question's shape, planned once: what `ask` runs, cold and warm (the cache stores this object)."""
    if question not in model.questions:
        raise ArgumentError(f"model '{model.name}' has no question '{question}'", None, f"questions: {', '.join(model.questions) or 'none'}")
    q = model.questions[question]
    if q.find in given:
        raise ArgumentError(f"{q.find} is what question '{question}' finds; it cannot be given", None, f"{spelled('drop_given', name=q.find)}; the question computes it")
    return _prepare_question(model, catalog, question, frozenset(given), gpu, llm)


@lru_cache(maxsize=256)
def _prepare_question(model: Model, catalog, question: str, given: frozenset, gpu, llm) -> PreparedQuestion:
    q = model.questions[question]
    rule = asking(model, question, given)
    names = tuple((n, 0) for n in sorted(given))
    at = prepare(model, catalog, Query((*names, (q.find, 0)), (), gpu, llm, (), False))
    parts = tuple((label, _prepare_question(model, catalog, name, given, gpu, llm)) for label, name in q.parts)
    boundary = None
    # a boundary over whole numbers (the variable bounds a sum) is seldom met exactly, and the search finds the answer
    whole = rule.boundary is not None and any(isinstance(x, P.Search) and q.find in x.whole for x in P.statements(rule.boundary.body))
    if rule.boundary is not None and not whole:
        try:
            boundary = prepare(model, catalog, Query(names, (q.find,), gpu, llm, (_boundary_equation(model, q),)))
        except LimitError:
            raise
        except SolveError:
            pass
    return PreparedQuestion(rule, at, boundary, parts)


def ask_query(model: Model, catalog, question: str, query: Query) -> Answer:
    """The largest (or smallest) value of the question's variable that meets its condition."""
    given = dict(query.given)
    a = ask(prepare_question(model, catalog, question, frozenset(given), query.gpu, query.llm), given)
    return replace(a, solution=with_forms(a.solution), boundary_solution=with_forms(a.boundary_solution))


def with_forms(s: Solution | None) -> Solution | None:
    """A solution with the closed form of each 'solve' step that produced its values (what derivations print)."""
    if s is None or s.plan is None or not any(st.method == "solve" for st in s.plan.steps):
        return s
    return replace(s, formulas=_Forms(s.formulas, s.plan, s.values))


class _Forms(Mapping):
    """Solution.formulas, the chosen closed forms found when first read.

    Choosing one substitutes the values into every candidate (SymPy, exact: a square root of a long
    rational is factored): a second per 100 quadratics, which a solve that prints values never reads.
    """

    def __init__(self, base: Mapping, plan: Plan, values: dict):
        self._base, self._plan, self._values, self._all = base, plan, values, None

    def _forms(self) -> dict:
        if self._all is None:
            self._all = {**self._base, **_chosen_forms(self._plan, self._values)}
        return self._all

    def __getitem__(self, name):
        return self._forms()[name]

    def __iter__(self):
        return iter(self._forms())

    def __len__(self) -> int:
        return len(self._forms())

    def __repr__(self) -> str:
        return repr(self._forms())


def _boundary_text(condition: str) -> str:
    for op in ("<=", ">=", "<", ">"):
        if op in condition:
            return condition.replace(op, "=", 1)
    return condition
