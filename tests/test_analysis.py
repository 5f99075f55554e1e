"""Structural analysis at scale: an iterative Hopcroft-Karp that agrees with networkx and never recurses."""

from __future__ import annotations

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from chainc.analysis import matching


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
