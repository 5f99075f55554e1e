"""Preparing a search over configurations (SymPy plans it once); choosing.py runs it, cold and warm alike.

The grid is the product of the axes' values, the first axis slowest. Per (GPU, LLM) of the grid,
the model is prepared with the axes, the inner unknowns and the free variable known, and each inner
question with the axes (and the inner unknowns before it) given: the plans do not depend on the
hardware, so a grid over ten GPUs plans once and runs ten times.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from . import lower
from .choosing import choose
from .chosen import Chosen
from .errors import ArgumentError, LimitError, SolveError
from .ir import Model
from .numbers import exact
from .results import Query
from .search_data import PreparedChoose, Unavailable, plain
from .solver import prepare, prepare_question


def prepare_search(model: Model, catalog, name: str, given: frozenset, gpu: str | None, llm: str | None) -> PreparedChoose:
    if name not in model.searches:
        raise ArgumentError(f"model '{model.name}' has no question '{name}'", None, f"questions: {', '.join([*model.questions, *model.searches]) or 'none'}")
    s = model.searches[name]
    varied = {a.name for a in s.over} | {v for v, _ in s.inner} | ({s.free} if s.free else set())
    clash = sorted(varied & set(given))
    if clash:
        raise ArgumentError(f"{clash[0]} is what question '{name}' varies; it cannot be given", None, f"drop {clash[0]}; the search tries its values")
    return _prepare(model, catalog, name, frozenset(given), gpu, llm)


@lru_cache(maxsize=256)
def _prepare(model: Model, catalog, name: str, given: frozenset, gpu, llm) -> PreparedChoose:
    s = model.searches[name]
    configs = tuple(itertools.product(*(a.values if a.catalog else tuple(exact(v) for v in a.values) for a in s.over)))
    kinds = [a.name for a in s.over]
    hardware = tuple(
        (c[kinds.index("gpu")] if "gpu" in kinds else gpu or model.gpu, c[kinds.index("llm")] if "llm" in kinds else llm or model.llm) for c in configs
    )  # fmt: skip
    axes = {a.name for a in s.over if not a.catalog}
    known = set(given) | axes | ({s.free} if s.free else set())
    at, inner = {}, {}
    for hw in dict.fromkeys(hardware):
        g, ll = (x if x and getattr(model, k) else None for x, k in zip(hw, ("gpu", "llm")))
        questions, before = [], set(known)
        try:
            for var, q in s.inner:
                questions.append((var, prepare_question(model, catalog, q, frozenset(before), g, ll)))
                before.add(var)
            names = tuple((n, 0) for n in sorted(before))
            at[hw], inner[hw] = prepare(model, catalog, Query(names, (), g, ll)), tuple(questions)
        except LimitError:
            raise
        except SolveError as e:  # an entry without a value the model reads: its rows say so, the others run
            at[hw], inner[hw] = Unavailable(e.message), ()
    conditions = tuple((c.label, c.text, lower.expr(c.expr), tuple((lower.expr(d), lower.expr(w)) for d, w in c.guards)) for c in s.conditions)
    free = None
    if s.free:
        d = lower.domain_of(model.variables[s.free])
        free = (s.free, d.lo, d.hi)
    sizes = tuple(len(a.values) for a in s.over)
    return PreparedChoose(plain(s), model, configs, hardware, at, inner, conditions, sizes, free)


def search_query(model: Model, catalog, name: str, query: Query) -> Chosen:
    """Run a search at the query's givens (base units) on its hardware (the axes' own where they vary it)."""
    given = dict(query.given)
    return choose(prepare_search(model, catalog, name, frozenset(given), query.gpu, query.llm), given)
