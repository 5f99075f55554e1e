"""The Erlang C chain (models/erlang-c.yaml) against Erlang's formula computed by hand here.

The published worked example (Westbay Engineers, "The Erlang-C Formula"): 360 calls
per half hour of 240 s each, 55 agents, a 15 s answer target: A = 48 erlangs,
P(wait) = 23.87%, mean wait 8.18 s, 84.6% answered within 15 s. The hand formula
below is the textbook one, in floats, with no code shared with chainc.
"""

from __future__ import annotations

import math

import pytest

import chainc
from chainc.errors import SolveError

from .conftest import ROOT

MODEL = str(ROOT / "models" / "erlang-c.yaml")


def erlang_c(rate_per_min: float, service_s: float, servers: int) -> dict:
    """P(wait), mean wait (s) and the share answered within t (s) of an M/M/c queue."""
    a = rate_per_min / 60 * service_s
    if a >= servers:
        return {"load": a, "p_wait": 1.0, "mean_wait": math.inf}
    top = a**servers / math.factorial(servers) * servers / (servers - a)
    p = top / (sum(a**k / math.factorial(k) for k in range(servers)) + top)
    return {"load": a, "p_wait": p, "mean_wait": p * service_s / (servers - a), "within": lambda t: 1 - p * math.exp(-(servers - a) * t / service_s)}


def fewest_servers(rate, service, target):
    return next(c for c in range(1, 10_000) if erlang_c(rate, service, c)["mean_wait"] <= target)


def largest_rate(servers, service, target, step=0.01):
    lo, hi = 0.0, servers * 60 / service  # the mean wait grows with the rate, without end at the pole A = c
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if erlang_c(mid, service, servers)["mean_wait"] <= target else (lo, mid)
    return math.floor(lo / step + 1e-9) * step


def test_the_worked_example():
    s = chainc.solve(MODEL)
    hand = erlang_c(12, 240, 55)
    assert s.value("load") == pytest.approx(48, rel=1e-12)
    assert s.value("p_wait") == pytest.approx(hand["p_wait"], rel=1e-12) == pytest.approx(0.2387, abs=5e-5)
    assert s.value("mean_wait") == pytest.approx(hand["mean_wait"], rel=1e-12) == pytest.approx(8.18, abs=5e-3)
    assert s.value("service_level") == pytest.approx(100 * hand["within"](15), rel=1e-12) == pytest.approx(84.6, abs=0.05)


@pytest.mark.parametrize(("rate", "target"), [(12, 15), (12, 10), (12, 60), (6, 5), (20, 15), (0.5, 1)])
def test_the_fewest_servers_is_the_hand_loops(rate, target):
    a = chainc.ask(MODEL, "fewest_servers", arrival_rate=rate, wait_target=target)
    want = fewest_servers(rate, 240, target)
    assert a.answer() == want
    assert erlang_c(rate, 240, want - 1)["mean_wait"] > target >= erlang_c(rate, 240, want)["mean_wait"]


@pytest.mark.parametrize(("servers", "target"), [(55, 15), (55, 60), (49, 15), (10, 30)])
def test_the_largest_arrival_rate_is_the_hand_bisection(servers, target):
    a = chainc.ask(MODEL, "max_arrival_rate", servers=servers, wait_target=target)
    assert a.answer() == pytest.approx(largest_rate(servers, 240, target), abs=1e-9)
    assert erlang_c(a.answer(), 240, servers)["mean_wait"] <= target < erlang_c(a.answer() + 0.01, 240, servers)["mean_wait"]


def test_the_inverse_solves_beside_the_pole():
    """--find arrival_rate for a mean wait: the root lies just below the pole at A = c (occupancy 1)."""
    s = chainc.solve(MODEL, find=["arrival_rate"], mean_wait="15 s")
    rate = s.value("arrival_rate")
    assert erlang_c(rate, 240, 55)["mean_wait"] == pytest.approx(15, rel=1e-9)
    assert rate < 55 * 60 / 240  # a stable queue


def test_servers_for_a_wait_no_whole_number_meets_is_said_with_the_neighbours():
    with pytest.raises(SolveError) as e:
        chainc.solve(MODEL, find=["servers"], mean_wait="12.05 s")  # 54 servers give 12.0523 s, 55 give 8.18 s
    assert "54" in e.value.message + e.value.hint and "55" in e.value.message + e.value.hint
    s = chainc.solve(MODEL, find=["servers"], mean_wait=f"{erlang_c(12, 240, 54)['mean_wait']!r} s")
    assert s.value("servers") == 54
