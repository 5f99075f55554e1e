"""Structural analysis at scale: an iterative Hopcroft-Karp that agrees with networkx and never recurses."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chainc.analysis import matching
from chainc.order import Cycle, components, topological


class Eq:
    def __init__(self, index):
        self.index = index


def _size(match) -> int:
    return sum(1 for k in match if k[0] == "e")


def _valid(match, uses) -> None:
    for k, v in match.items():
        assert match[v] == k
        if k[0] == "e":
            assert v[1] in uses[k[1]]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 12), st.integers(1, 12), st.data())
def test_matching_is_maximum(n_eq, n_var, data):
    eqs = [Eq(i) for i in range(n_eq)]
    uses = {e: sorted(set(data.draw(st.lists(st.integers(0, n_var - 1), max_size=4)))) for e in eqs}
    match = matching(eqs, {e: [f"x{v}" for v in vs] for e, vs in uses.items()})
    _valid(match, {e.index: [f"x{v}" for v in vs] for e, vs in uses.items()})
    g = nx.Graph()
    g.add_nodes_from(("e", e.index) for e in eqs)
    g.add_edges_from((("e", e.index), ("v", f"x{v}")) for e, vs in uses.items() for v in vs)
    top = [("e", e.index) for e in eqs]
    assert _size(match) == len(nx.bipartite.hopcroft_karp_matching(g, top_nodes=top)) // 2


def test_a_long_augmenting_path_does_not_recurse():
    """The greedy start leaves eq 0 unmatched; its augmenting path runs through all 50,000 others."""
    n = 50_000
    eqs = [Eq(i) for i in range(1, n)] + [Eq(0)]
    uses = {e: [f"x{e.index}", f"x{e.index + 1}"] for e in eqs[:-1]}
    uses[eqs[-1]] = ["x1"]
    match = matching(eqs, uses)
    assert _size(match) == n
    assert match[("e", 0)] == ("v", "x1") and match[("e", n - 1)] == ("v", f"x{n}")


def _graph(data, n):
    edges = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda e: e[0] != e[1]), max_size=3 * n, unique=True))
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges)
    return g, edges


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 14), st.data())
def test_the_orders_are_networkx_orders(n, data):
    """order.py's topological order, cycle and components break ties as networkx does, so plans (and outputs) stay the same."""
    g, edges = _graph(data, n)
    key = data.draw(st.sampled_from([None, lambda v: -v, lambda v: v % 3]))
    try:
        want = list(nx.lexicographical_topological_sort(g, key=key or (lambda v: v)))
    except nx.NetworkXUnfeasible:
        with pytest.raises(Cycle) as loop:
            topological(range(n), edges, key)
        assert loop.value.nodes == [u for u, _ in nx.find_cycle(g)]
    else:
        assert topological(range(n), edges, key) == want
    cond = nx.condensation(g)
    want = [frozenset(cond.nodes[c]["members"]) for c in nx.lexicographical_topological_sort(cond, key=lambda c: min(cond.nodes[c]["members"]))]
    assert components(range(n), edges, key=min) == want


def test_the_orders_walk_100000_nodes_without_recursion():
    n = 100_000
    edges = [(i, i + 1) for i in range(n - 1)] + [(n - 1, 0)]
    assert len(components(range(n), edges, key=min)) == 1
    with pytest.raises(Cycle) as loop:
        topological(range(n), edges)
    assert len(loop.value.nodes) == n
