"""The deployment chain's search and frontier against a brute-force loop written out by hand.

Every (GPU, TP degree, batch) is tried in plain Python over the catalog's YAML values (read with
`yaml`, not chainc), in exact fractions, with the chain's formulas spelled out again here: the largest
batch that meets the TPOT target and fits (every batch from 1 until the KV cache no longer fits, the
TPOT tested at each: no monotony assumed), the replicas the load needs, the TTFT, the cost; then the
cheapest configuration, the ranked table, why each other configuration fails and the frontier's set
of points must be chainc's.
"""

from __future__ import annotations

import math
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

import chainc

ROOT = Path(__file__).resolve().parent.parent
UNITS = {"GB": 10**9, "TB/s": 10**12, "GB/s": 10**9, "B": 1, "TFLOP/s": 10**12, "USD/h": F(1, 3600), "us": F(1, 10**6), "W": 1}
GPUS = ["a100-sxm-40gb", "a100-sxm-80gb", "b200", "h100-pcie", "h100-sxm", "h200", "l4", "l40s"]  # the search's list, in its order
TPS = [1, 2, 4, 8]


def values(kind: str, name: str) -> dict:
    """The entry's typed values as exact numbers in base units (None where the catalog has none)."""
    out = {}
    for key, v in yaml.safe_load((ROOT / "hardware" / kind / f"{name}.yaml").read_text())["values"].items():
        v = v["value"] if isinstance(v, dict) else v
        if isinstance(v, str):
            number, unit = v.split(maxsplit=1)
            out[key] = F(number) * UNITS[unit]
        else:
            out[key] = None if v is None else F(v)
    return out


def llm(name: str) -> dict:
    m = values("llms", name)
    m["weight_bytes"] = m["params"] * m["bytes_per_param"]
    m["kv_per_token"] = 2 * m["layers"] * m["kv_heads"] * (m["hidden"] / m["heads"]) * m["kv_bytes_per_element"]
    m["linear_flops"] = 2 * m["params"]  # dense: every parameter is active
    m["attention_flops"] = 4 * m["layers"] * m["hidden"]
    return m


WORKLOAD = {"arrival_rate": F(10), "prompt_tokens": F(2048), "output_tokens": F(256), "ttft_target": F(1), "tpot_target": F(20, 1000)}


class Replica:
    """The chain on one GPU at one TP degree, written out (seconds, bytes, requests per second, dollars)."""

    def __init__(self, g: dict, m: dict, tp: int, w: dict):
        self.g, self.m, self.tp, self.w = g, m, tp, w
        n_in = w["prompt_tokens"]
        self.link = g["gpu_link_bandwidth"] / 2  # per direction
        self.ring = 2 * m["layers"] * 2 * F(tp - 1, tp)  # two ring all-reduces per layer, 2(tp-1)/tp of the message each
        compute = (m["linear_flops"] * n_in + m["attention_flops"] * n_in * (n_in + 1) / 2) / (tp * g["flops_bf16"])
        self.prefill = max(compute, m["weight_bytes"] / (tp * g["memory_bandwidth"])) + self.ring * n_in * m["hidden"] * 2 / self.link

    def resident(self, batch: int):
        w = self.w
        return (self.m["weight_bytes"] + batch * (w["prompt_tokens"] + w["output_tokens"]) * self.m["kv_per_token"]) / self.tp

    def step(self, batch: int):
        m, w = self.m, self.w
        read = (m["weight_bytes"] + batch * (w["prompt_tokens"] + w["output_tokens"] / 2) * m["kv_per_token"]) / self.tp
        return read / self.g["memory_bandwidth"] + self.ring * batch * m["hidden"] * 2 / self.link

    def tpot(self, batch: int):
        return self.step(batch) + (batch - 1) * self.prefill / self.w["output_tokens"]

    def at(self, batch: int) -> dict:
        w, n_out, tp = self.w, self.w["output_tokens"], self.tp
        tpot = self.tpot(batch)
        rate = batch / (self.prefill + n_out * tpot)
        replicas = math.ceil(w["arrival_rate"] / rate)
        busy = w["arrival_rate"] * self.prefill / replicas
        ttft = self.prefill + (busy * self.prefill + (1 - busy) * self.step(batch)) / (2 * (1 - busy))
        cost = replicas * tp * self.g["price_per_hour"] / (w["arrival_rate"] * n_out)  # dollars per output token
        return {"resident": self.resident(batch), "tpot": tpot, "ttft": ttft, "cost": cost * 10**6, "per_user": 1 / tpot, "per_gpu": rate * n_out / tp}


def usable(g: dict) -> bool:
    return g["gpu_link_bandwidth"] is not None and g["price_per_hour"] is not None  # else the chain has no value there


def brute_search(llm_name: str, w: dict) -> tuple[list, dict]:
    """(feasible rows best first as (cost, grid index, gpu, tp, batch), why each other row fails)."""
    m, rows, why = llm(llm_name), [], {}
    for gi, name in enumerate(GPUS):
        g = values("gpus", name)
        for ti, tp in enumerate(TPS):
            i = gi * len(TPS) + ti
            if not usable(g):
                why[(name, tp)] = "no value"
                continue
            r = Replica(g, m, tp, w)
            # every batch until the KV cache no longer fits (it grows with the batch), the TPOT tested at each
            fits, b = [], 1
            while r.resident(b) <= g["memory"]:
                fits += [b] if r.tpot(b) <= w["tpot_target"] else []
                b += 1
            if not fits:
                why[(name, tp)] = "max_batch"
                continue
            batch = max(fits)
            v = r.at(batch)
            if v["ttft"] > w["ttft_target"]:
                why[(name, tp)] = "ttft"
            elif m["kv_heads"] % tp:
                why[(name, tp)] = "heads"
            else:
                rows.append((v["cost"], i, name, tp, batch))
    return sorted(rows), why


CASES = [
    ("llama-3.1-70b", {}),  # the question as the chain asks it
    ("llama-3.1-70b", {"ttft_target": F(5, 100)}),  # 50 ms: the TTFT target binds
    ("llama-3.1-70b", {"arrival_rate": F(40), "tpot_target": F(30, 1000)}),
    ("llama-3.1-8b", {"prompt_tokens": F(512), "output_tokens": F(1024)}),
    ("qwen2.5-7b", {"arrival_rate": F(3)}),  # 4 KV heads: TP 8 leaves heads over
]


def _given(changes: dict) -> dict:
    units = {"arrival_rate": "request/s", "prompt_tokens": "token", "output_tokens": "token", "ttft_target": "s", "tpot_target": "s/token"}
    return {k: f"{float(v)!r} {units[k]}" for k, v in changes.items()}


@pytest.mark.parametrize("llm_name,changes", CASES)
def test_cheapest_is_the_brute_force_answer(llm_name, changes):
    rows, why = brute_search(llm_name, {**WORKLOAD, **changes})
    chosen = chainc.ask("deployment", "cheapest", given=_given(changes), llm=llm_name)
    assert rows, "every case has a feasible configuration"
    best = chosen.value
    cost, _, gpu, tp, batch = rows[0]
    assert (best["gpu"], best["tp"], best["batch"]) == (gpu, tp, batch)
    assert best["cost_per_million_tokens"] == pytest.approx(float(cost), rel=1e-9)
    # the runner-up table: the same rows in the same order (ties go to the row listed first in both)
    table = chosen.table(len(chosen.order))  # every feasible row, not only the `show:` many
    assert [(r["gpu"], r["tp"], r["batch"]) for r in table] == [(g, t, b) for _, _, g, t, b in rows]
    assert [r["cost_per_million_tokens"] for r in table] == pytest.approx([float(c) for c, *_ in rows], rel=1e-9)
    # and every other configuration fails for the reason the loop finds first
    for i, label in enumerate(chosen.failed):
        config = chosen.config(i)
        assert (label or None) == why.get((config["gpu"], config["tp"])), config


def test_the_headline_answer():
    """10 requests/s of 2,048/256 tokens, TTFT <= 1 s, TPOT <= 20 ms on Llama 3.1 70B: two B200 replicas at TP 2."""
    chosen = chainc.ask("deployment", "cheapest")
    assert chosen.value == {"gpu": "b200", "tp": 2, "batch": 33, "cost_per_million_tokens": pytest.approx(24.12 / 9.216, rel=1e-12)}
    assert chosen.solution.values["gpus"] == 4
    assert len(chosen.table()) == 6  # the table a reader sees: the model's `show: 6`
    # the runner-up costs the same: one replica of 4 B200s; the tie goes to the row listed first
    assert chosen.table(2)[1] == {"rank": 2, "gpu": "b200", "tp": 4, "batch": 81, "cost_per_million_tokens": pytest.approx(24.12 / 9.216, rel=1e-12)}


def brute_frontier(llm_name: str, w: dict) -> set:
    """Every feasible (gpu, tp, batch) no other feasible one matches on both goals and beats on one."""
    m, points = llm(llm_name), {}
    for name in GPUS:
        g = values("gpus", name)
        if not usable(g):
            continue
        for tp in TPS:
            for batch in (2**k for k in range(9)):  # 1 .. 256
                v = Replica(g, m, tp, w).at(batch)
                if v["resident"] <= g["memory"] and v["ttft"] <= w["ttft_target"] and m["kv_heads"] % tp == 0:
                    points[(name, tp, batch)] = (v["per_user"], v["per_gpu"])
    return {p for p, (x, y) in points.items() if not any(x2 >= x and y2 >= y and (x2, y2) != (x, y) for x2, y2 in points.values())}


@pytest.mark.parametrize("llm_name,changes", CASES[:2] + CASES[3:4])
def test_frontier_is_the_brute_force_set(llm_name, changes):
    chosen = chainc.ask("deployment", "interactivity", given=_given(changes), llm=llm_name)
    assert {(r["gpu"], r["tp"], r["batch"]) for r in chosen.table()} == brute_frontier(llm_name, {**WORKLOAD, **changes})
