"""Graphs walked without recursion: imports, and the orders of equations, definitions and columns.

A chain of imports may be as deep as the `import_depth` limit allows, and that limit
can be raised to thousands (CHAINC_MAX_IMPORT_DEPTH): loading, solving, reporting and
printing a chain walk it with an explicit stack, deepest first, so no depth reaches
Python's recursion limit. The orders below are networkx's algorithms (lexicographical
topological sort, find_cycle, condensation) with the same tie-breaking, written out
because importing networkx was 13 % of a cold `chainc solve`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")


def deepest_first(roots: Iterable[T], children: Callable[[T], Iterable[T]], key: Callable[[T], Hashable] = lambda node: node) -> list[T]:
    """Every node reachable from `roots`, each once, after every node it reaches (post-order), in the order met.

    children(node): the nodes it imports, in order; key(node): what identifies a node (id for unhashable ones).
    Loading refuses loops of imports; a loop here would be walked once round, not forever.
    """
    out: list[T] = []
    done: set = set()
    for root in roots:
        if key(root) in done:
            continue
        entered = {key(root)}
        stack = [(root, iter(children(root)))]
        while stack:
            node, kids = stack[-1]
            for kid in kids:
                k = key(kid)
                if k not in done and k not in entered:
                    entered.add(k)
                    stack.append((kid, iter(children(kid))))
                    break
            else:
                stack.pop()
                done.add(key(node))
                out.append(node)
    return out


class Cycle(Exception):
    """A graph that has no topological order; `nodes` is one cycle, in the order of its edges."""

    def __init__(self, nodes: list):
        super().__init__(" -> ".join(map(str, nodes)))
        self.nodes = nodes


def topological(nodes: Iterable[T], edges: Iterable[tuple[T, T]], key: Callable[[T], object] | None = None) -> list[T]:
    """Every node after the nodes with an edge into it; among the nodes free to come next, the least key first (the
    node's place among `nodes` without one). Raises Cycle when the edges loop."""
    order = {n: i for i, n in enumerate(dict.fromkeys(nodes))}
    succ: dict = {n: [] for n in order}
    into = dict.fromkeys(order, 0)
    for a, b in edges:
        succ[a].append(b)
        into[b] += 1
    rank = (lambda n: (key(n), order[n])) if key else order.__getitem__
    ready = [(rank(n), order[n], n) for n, d in into.items() if d == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        node = heapq.heappop(ready)[2]
        out.append(node)
        for b in succ[node]:
            into[b] -= 1
            if into[b] == 0:
                heapq.heappush(ready, (rank(b), order[b], b))
    if len(out) < len(order):
        raise Cycle(find_cycle(order, succ))
    return out


def find_cycle(nodes: Iterable[T], succ: dict) -> list[T]:
    """The first cycle a depth-first walk meets, starting from each node in turn and following edges in order."""
    done: set = set()
    for root in nodes:
        if root in done:
            continue
        path, on_path, stack = [root], {root}, [iter(succ[root])]
        while stack:
            for nxt in stack[-1]:
                if nxt in on_path:
                    return path[path.index(nxt) :]
                if nxt not in done:
                    path.append(nxt)
                    on_path.add(nxt)
                    stack.append(iter(succ[nxt]))
                    break
            else:
                stack.pop()
                on_path.discard(node := path.pop())
                done.add(node)
    return []


def components(nodes: Iterable[T], edges: Iterable[tuple[T, T]], key: Callable[[frozenset], object]) -> list[frozenset]:
    """The strongly connected components (Tarjan's, with an explicit stack), each after every component with an edge
    into it, the least key(component) first among those free to come next."""
    nodes = list(dict.fromkeys(nodes))
    succ: dict = {n: [] for n in nodes}
    for a, b in edges:
        succ[a].append(b)
    index: dict = {}
    low: dict = {}
    stack: list = []
    on_stack: set = set()
    comps: list[frozenset] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(succ[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, kids = work[-1]
            for kid in kids:
                if kid not in index:
                    index[kid] = low[kid] = len(index)
                    stack.append(kid)
                    on_stack.add(kid)
                    work.append((kid, iter(succ[kid])))
                    break
                if kid in on_stack:
                    low[node] = min(low[node], index[kid])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        members.append(m)
                        if m == node:
                            break
                    comps.append(frozenset(members))
    of = {n: i for i, c in enumerate(comps) for n in c}  # numbers: comparing two big components would walk them
    between = dict.fromkeys((of[a], of[b]) for a in nodes for b in succ[a] if of[a] != of[b])
    return [comps[i] for i in topological(range(len(comps)), between, lambda i: key(comps[i]))]
