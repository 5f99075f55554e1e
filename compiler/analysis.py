"""Structural analysis: which equation computes which unknown, and in what order.

A maximum bipartite matching pairs equations with unknowns; what stays unmatched
is reported in Dulmage-Mendelsohn terms (variables that cannot be determined,
equations that are redundant or conflict). The matched graph's strongly
connected components are the blocks: one equation is an assignment, more are an
algebraic loop solved jointly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .errors import StructureError, spelled
from .ir import Equation, Model
from .order import components


@dataclass(frozen=True)
class Block:
    equations: tuple[Equation, ...]
    unknowns: tuple[str, ...]


@lru_cache(maxsize=256)
def _symbols(model: Model) -> dict:
    """symbol -> (position, name) of every variable: one dictionary per model, so lookups are O(1)."""
    return {v.sym: (i, n) for i, (n, v) in enumerate(model.variables.items())}


def variables_of(model: Model, eq: Equation) -> tuple[str, ...]:
    """The model's variables an equation uses, in the model's order."""
    syms = _symbols(model)
    found = [syms[s] for s in eq.lhs.free_symbols | eq.rhs.free_symbols if s in syms]
    return tuple(n for _, n in sorted(found))


def matching(equations: list, uses: dict) -> dict:
    """A maximum matching equation -> unknown (Hopcroft-Karp), with explicit stacks: no recursion on model size.

    uses: equation -> its unknowns in a fixed order. Returns both directions: ('e', i) <-> ('v', name).
    """
    eq_of: dict = {}  # unknown -> equation index
    var_of: dict = {}  # equation index -> unknown
    order = [eq.index for eq in equations]
    adj = {eq.index: uses[eq] for eq in equations}
    for e in order:  # a greedy start makes most chains a single pass
        for v in adj[e]:
            if v not in eq_of:
                eq_of[v], var_of[e] = e, v
                break
    INF = float("inf")
    while True:
        dist, queue, found = {}, [], False
        for e in order:
            if e not in var_of:
                dist[e] = 0
                queue.append(e)
        head = 0
        while head < len(queue):  # BFS: layers of alternating paths from the free equations
            e = queue[head]
            head += 1
            for v in adj[e]:
                nxt = eq_of.get(v)
                if nxt is None:
                    found = True
                elif nxt not in dist:
                    dist[nxt] = dist[e] + 1
                    queue.append(nxt)
        if not found:
            break
        for root in order:  # DFS along the layers, iteratively; paths of one phase share no equation
            if root in var_of:
                continue
            stack, via, its = [root], [], {root: iter(adj[root])}
            while stack:
                e = stack[-1]
                for v in its[e]:
                    nxt = eq_of.get(v)
                    if nxt is None:  # a free unknown: flip the path, each equation takes the unknown it came by
                        for x, w in zip(stack, [*via, v]):
                            eq_of[w], var_of[x] = x, w
                            dist[x] = INF
                        stack = []
                        break
                    if dist.get(nxt) == dist[e] + 1:
                        via.append(v)
                        stack.append(nxt)
                        its[nxt] = iter(adj[nxt])
                        break
                else:
                    dist[e] = INF  # a dead end: not visited again in this phase
                    stack.pop()
                    if via:
                        via.pop()
    out = {("e", e): ("v", v) for e, v in var_of.items()}
    out.update({("v", v): ("e", e) for v, e in eq_of.items()})
    return out


@lru_cache(maxsize=512)
def plan_blocks(model: Model, known: frozenset[str], extra: tuple[Equation, ...] = ()) -> tuple[Block, ...]:
    equations = model.equations + extra
    unknowns = [n for n in model.variables if n not in known]
    uses = {eq: [v for v in variables_of(model, eq) if v not in known] for eq in equations}
    match = matching(list(equations), uses)
    by_index = {eq.index: eq for eq in equations}
    free_vars = [v for v in unknowns if ("v", v) not in match]
    free_eqs = [eq for eq in equations if ("e", eq.index) not in match]
    if free_vars or free_eqs:  # the bipartite graph (each node's neighbours), for the diagnosis only
        g = {("e", eq.index): [("v", v) for v in uses[eq]] for eq in equations} | {("v", v): [] for v in unknowns}
        for eq in equations:
            for v in uses[eq]:
                g[("v", v)].append(("e", eq.index))
        if free_vars:
            _underdetermined(model, g, match, free_vars, by_index, known)
        _overdetermined(model, g, match, free_eqs, by_index, known)
    edges = ((match[("v", v)][1], eq.index) for eq in equations for v in uses[eq] if match[("v", v)][1] != eq.index)
    blocks = []
    for c in components((eq.index for eq in equations), edges, key=min):
        members = sorted(c)
        eqs = tuple(by_index[i] for i in members)
        blocks.append(Block(eqs, tuple(match[("e", i)][1] for i in members)))
    return tuple(blocks)


def _alternating(g: dict, matching: dict, starts: list, free_side: str) -> set:
    """Nodes reachable from unmatched nodes along alternating paths."""
    seen = set(starts)
    stack = list(starts)
    while stack:
        node = stack.pop()
        if node[0] == free_side:
            nxt = g[node]
        else:
            nxt = [matching[node]] if node in matching else []
        for n in nxt:
            if n not in seen:
                seen.add(n)
                stack.append(n)
    return seen


def _line(eq: Equation) -> str:
    return f"line {eq.loc.line}: {eq.text}"


def _underdetermined(model, g, matching, free_vars, by_index, known) -> None:
    reach = _alternating(g, matching, [("v", v) for v in free_vars], "v")
    stuck = sorted(n for kind, n in reach if kind == "v")
    eqs = sorted((by_index[i] for kind, i in reach if kind == "e"), key=lambda e: e.index)
    how = f"{len(stuck)} unknown{'s' if len(stuck) > 1 else ''} but {len(eqs) or 'no'} equation{'s' if len(eqs) != 1 else ''} to determine them"
    detail = "; ".join(_line(e) for e in eqs)
    hint = f"give a value to {' or '.join(stuck[:3])} ({spelled('give', name='NAME')} or a default), or add an equation"
    if detail:
        hint = f"these equations involve them: {detail}. " + hint
    raise StructureError(f"under-determined: cannot determine {', '.join(stuck)} ({how})", (eqs[0].loc if eqs else model.variables[stuck[0]].loc), hint, undetermined=stuck)


def _overdetermined(model, g, matching, free_eqs, by_index, known) -> None:
    reach = _alternating(g, matching, [("e", eq.index) for eq in free_eqs], "e")
    eqs = sorted((by_index[i] for kind, i in reach if kind == "e"), key=lambda e: e.index)
    names = sorted({v for eq in eqs for v in variables_of(model, eq)})
    fixed = [n for n in names if n in known]
    inputs = [n for n in fixed if model.variables[n].default is not None]
    given = [n for n in fixed if n not in inputs]
    hint = "drop one of these equations, or make one of its variables unknown"
    if given:
        hint = f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} given but computed by the equations; free an input with {spelled('find')} ({', '.join(inputs[:4]) or 'one of them'})"
    elif inputs:
        hint = f"these inputs are all fixed: {', '.join(inputs)}; make one unknown with {spelled('find')}, or drop an equation"
    raise StructureError(
        f"over-determined: {len(eqs)} equation{'s' if len(eqs) > 1 else ''} for {len(eqs) - len(free_eqs)} unknown{'s' if len(eqs) - len(free_eqs) != 1 else ''}; redundant or conflicting: "
        + "; ".join(_line(e) for e in eqs),
        eqs[0].loc,
        hint,
        redundant=[e.text for e in eqs],
    )
