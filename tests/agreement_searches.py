"""A random chain's searches in both generated flavours against the solver's Chosen, for tests/agreement_compare.py.

At each point of the chain (what a search varies left out), `chainc.ask` gives the solver's Chosen and
each module's search function its Choice (or both raise, alike). They must agree on how many
configurations meet the conditions, what fails at each of the others (and the kind of why), the best
configuration and its ranked table (or the frontier), values to 1e-9 relative, what binds and where
the best sits. Floats cannot settle two things the solver decides exactly: a condition whose sides are
equal within 1e-9 (it holds exactly, and a float may put it a hair either side), and two
configurations whose goals are that close (the float order may swap them). Such a search is counted
and its order not compared (its rows' values still are).
"""

from __future__ import annotations

import math

from chainc import ask
from chainc.errors import ChaincError

from .agreement_compare import AGREE, Comparison, Mismatch, close, kind, module, solver


def compare_searches(project, a, cmp: Comparison, mod, vec, points: list) -> None:
    model = a.model
    for name, s in model.searches.items():
        varied = {x.name for x in s.over} | {v for v, _ in s.inner} | ({s.free} if s.free else set())
        for point in points:
            kw = {n: v for n, v in point.items() if n not in varied}
            want = solver(lambda kw=kw, name=name: ask(model, name, kw, project=project))
            AGREE["searches asked"] += 1
            if not isinstance(want, ChaincError) and want.order:
                AGREE["searches answered"] += 1
            for flavour, m in (("Python", mod), ("NumPy", vec)):
                got = module(lambda kw=kw, m=m, name=name: getattr(m, name)(**kw), m)
                _compare(cmp, f"search {name} at {kw or 'the defaults'} ({flavour})", want, got, project, model, name, kw)


def _compare(cmp: Comparison, where: str, want, got, project, model, name: str, kw: dict) -> None:
    if not isinstance(want, ChaincError) and not want.order:  # no configuration: the module raises the solver's words
        if isinstance(got, Exception) and not isinstance(got, ChaincError) and getattr(got, "message", "").endswith(want.sentence()):
            AGREE["searches compared"] += 1
            return
        if _edge(project, model, name, kw):
            AGREE["searches at a rounding edge"] += 1
            return
        cmp.problems.append(Mismatch(where, f"the solver finds no configuration ({want.sentence()}), the module {getattr(got, 'message', got)!r:.300}"))
        return
    if not cmp.outcome(where, want, got):
        return
    AGREE["searches compared"] += 1
    problems = _differences(want, got)
    if problems and _edge(project, model, name, kw):
        AGREE["searches at a rounding edge"] += 1
        return
    cmp.problems += [Mismatch(where, p) for p in problems]


def _differences(want, got) -> list[str]:
    s = want.search
    out = []
    failing = [(want.config(i), want.failed[i], want.why[i]) for i in range(len(want.why)) if want.why[i]]
    AGREE["search rows compared"] += len(want.why)
    if got.configurations != len(want.configs) or got.feasible != want.feasible:
        return [f"the module searched {got.configurations} configurations, {got.feasible} feasible; the solver {len(want.configs)}, {want.feasible}"]
    if len(got.failing) != len(failing):
        return [f"{len(got.failing)} configurations fail in the module, {len(failing)} in the solver"]
    for (config, label, why), (w_config, w_label, w_why) in zip(got.failing, failing):
        if not _same(config, w_config) or label != w_label or kind(_Text(why)) != kind(_Text(w_why)):
            return [f"at {w_config} the solver fails at {w_label} ('{w_why}'), the module at {config}, {label} ('{why}')"]
    rows = want.table() if want.frontier else want.table(s.show)
    mine = got.frontier if want.frontier else got.table
    tied = _tied(want)
    if tied:
        AGREE["searches with tied goals"] += 1
    if len(mine) != len(rows):
        return [f"the module's table has {len(mine)} rows, the solver's {len(rows)}"] if not tied else []
    goals = [g.name for g in s.goals]
    for k, (g, w) in enumerate(zip(mine, rows)):
        if tied and not all(close(g[n], w[n]) for n in goals):
            out.append(f"row {k + 1}'s goals: the module {[g[n] for n in goals]}, the solver {[w[n] for n in goals]}")
        elif not tied and not _same(g, w):
            out.append(f"row {k + 1}: the module {g}, the solver {w}")
    if tied:
        return out
    if got.binding != want.binding:
        out.append(f"binding: the module {got.binding}, the solver {want.binding}")
    if not want.frontier:
        where = {x.name: p for x, p in zip(s.over, want.placement) if not x.catalog}
        if s.free:
            where[s.free] = want.free_where
        if got.placement != where:
            out.append(f"placement: the module {got.placement}, the solver {where}")
    return out


class _Text:
    def __init__(self, message: str):
        self.message = message


def _same(got: dict, want: dict) -> bool:
    return got.keys() == want.keys() and all((got[n] is None) == (want[n] is None) and (want[n] is None or close(got[n], want[n])) for n in want)


def _tied(want) -> bool:
    """Two feasible configurations whose goals are within 1e-9 of each other (a frontier: on either goal)."""
    for column in want.goals[: 2 if want.frontier else 1]:
        values = sorted(float(column[i]) for i in range(len(want.why)) if not want.why[i] and column[i] is not None)
        if any(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-300) for a, b in zip(values, values[1:])):
            return True
    return False


def _edge(project, model, name: str, kw: dict) -> bool:
    """Whether a condition's sides, or an inner question's, are equal within 1e-9 at some configuration (the solver's
    exact decision there is one a float cannot settle): each row's values by the solver, its conditions evaluated."""
    from chainc.choosing import _configuration
    from chainc.quantities import given_value
    from chainc.run import evaluate
    from chainc.searches import prepare_search

    given = {n: given_value(model, n, v) for n, v in kw.items()}
    pc = prepare_search(model, project.catalog, name, frozenset(given), None, None)
    for i in range(len(pc.configs)):
        row = _configuration(pc, i, given)
        if row.values is None:
            continue
        for _, _, cmp, _ in pc.conditions:
            try:
                left, right = float(evaluate(cmp.left, row.values)), float(evaluate(cmp.right, row.values))
            except (ArithmeticError, ValueError, TypeError, OverflowError):
                continue
            if math.isclose(left, right, rel_tol=1e-9, abs_tol=1e-300):
                return True
    return False
