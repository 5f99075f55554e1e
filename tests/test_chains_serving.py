"""The serving chains of issue 19 against arithmetic done here by hand, in fractions.

paged-kv against vLLM's startup log in vllm-project/vllm issue 10517 (RTX 3090,
Llama-3.1-8B-Instruct): "# GPU blocks: 1952", "Maximum concurrency for 20000 tokens per
request: 1.56x" (and 1478 blocks, 0.82x at 29000), from vLLM's own formulas
(vllm/worker/worker.py, vllm/v1/core/kv_cache_utils.py). Every question's answer is found
again here by walking its grid, on the default and on other GPUs and LLMs. The catalog
numbers below are copied from hardware/ (their sources are cited there); no chainc code
computes any expected value.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import pytest

import chainc

from .conftest import ROOT

GIB, MIB = 2**30, 2**20
GPUS = {  # memory (B), bandwidth (B/s), dense BF16 (FLOP/s)
    "h100-sxm": (80 * 10**9, F("3.35e12"), F("989e12")),
    "h200": (141 * 10**9, F("4.8e12"), F("989e12")),
    "a100-sxm-80gb": (80 * 10**9, F("2.039e12"), F("312e12")),
    "l40s": (48 * 10**9, F("0.864e12"), F("362.05e12")),
}
LLMS = {  # params, layers, hidden, kv_heads, heads (BF16 weights and KV)
    "llama-3.1-8b": (8030261248, 32, 4096, 8, 32),
    "qwen2.5-7b": (7615616512, 28, 3584, 4, 28),
    "mistral-7b": (7241732096, 32, 4096, 8, 32),
}


def model(name: str) -> str:
    return str(ROOT / "models" / f"{name}.yaml")


def llm(name: str) -> dict:
    params, layers, hidden, kv_heads, heads = LLMS[name]
    return {
        "weights": 2 * params,
        "kv": 2 * layers * kv_heads * (hidden // heads) * 2,
        "linear": 2 * params,
        "attention": 4 * layers * hidden,
    }


# --- paged-kv -----------------------------------------------------------------------


def vllm_pool(total, weights, activations, non_torch, max_model_len, kv=131072, util=F("0.9"), block=16):
    """vLLM: int((total x util - peak) // block bytes) blocks; concurrency blocks / cdiv(L, block)."""
    budget = total * util - weights - activations - non_torch
    blocks = max(math.floor(budget / (block * kv)), 0)
    return budget, blocks, blocks * block, F(blocks, -(-max_model_len // block))


def gib(text: str) -> F:
    return F(text) * GIB


LOG_20K = {"total_memory": "23.58 GiB", "weight_memory": "14.9888 GiB", "activation_peak": "2.0712 GiB", "non_torch_memory": "0.35 GiB"}


@pytest.mark.parametrize(("length", "torch_peak", "kv_logged", "blocks_logged", "concurrency_logged"), [(20000, "17.06", "3.81", 1952, "1.56"), (29000, "17.98", "2.89", 1478, "0.82")])
def test_paged_kv_reproduces_the_published_startup_log(length, torch_peak, kv_logged, blocks_logged, concurrency_logged):
    activations = F(torch_peak) - F("14.9888")  # peak_torch_memory holds the weights
    values = dict(LOG_20K, activation_peak=f"{float(activations)} GiB", max_model_len=f"{length} token")
    s = chainc.solve(model("paged-kv"), values)
    budget, blocks, tokens, concurrency = vllm_pool(gib("23.58"), gib("14.9888"), activations * GIB, gib("0.35"), length)
    assert s.value("kv_budget") == pytest.approx(float(budget / GIB), rel=1e-12)
    assert s.value("gpu_blocks") == blocks and s.value("cache_tokens") == tokens
    assert s.value("max_concurrency") == pytest.approx(float(concurrency), rel=1e-12)
    # to the log's rounding: memory in GiB to 2 decimals, concurrency to 2 decimals
    assert f"{s.value('kv_budget'):.2f}" == kv_logged
    assert f"{s.value('max_concurrency'):.2f}" == concurrency_logged
    assert f"{blocks_logged * 16 / length:.2f}" == concurrency_logged  # the logged blocks give the logged line too
    # five memories each rounded to 0.01 GiB move the budget by under 0.0125 GiB, 6.4 blocks of 2 MiB
    assert abs(s.value("gpu_blocks") - blocks_logged) <= 6


def test_paged_kv_reproduces_the_h100_profile_of_pr_10511():
    s = chainc.solve(model("paged-kv"), total_memory="79.22 GiB", weight_memory="14.96 GiB")
    assert f"{s.value('kv_budget'):.2f}" == "53.29"  # available_kv_cache_memory 53.29GiB


@pytest.mark.parametrize(("gpu", "name"), [("h100-sxm", "llama-3.1-8b"), ("h200", "llama-3.1-8b"), ("a100-sxm-80gb", "qwen2.5-7b"), ("l40s", "mistral-7b")])
def test_paged_kv_questions_are_the_hand_grid(gpu, name):
    memory = GPUS[gpu][0]
    m = llm(name)

    def pool(util=F("0.9"), length=8192):
        return vllm_pool(memory, m["weights"], gib("1.26"), gib("1.79"), length, kv=m["kv"], util=util)

    a = chainc.ask(model("paged-kv"), "min_utilization", gpu=gpu, llm=name)
    want = next(F(k, 100) for k in range(1, 101) if pool(util=F(k, 100))[3] >= 16)
    assert a.answer() == pytest.approx(float(want), abs=1e-12)
    a = chainc.ask(model("paged-kv"), "max_context", gpu=gpu, llm=name)
    want = max(length for length in range(16, 2_000_000, 16) if pool(length=length)[3] >= 16)
    assert a.answer() == want


# --- cost-per-token -----------------------------------------------------------------


def dollars_per_million(price_per_hour, tokens_per_s, busy=1):
    return F(price_per_hour) / (F(tokens_per_s) * F(busy) * 3600) * 10**6


@pytest.mark.parametrize(
    ("price", "rate", "busy", "published"), [("2.00", 85, 1, "6.54"), ("2.60", 140, 1, "5.16"), ("2.00", 400, 1, "1.39"), ("1.29", 2400, 1, "0.15"), ("1.29", 2400, "0.7", "0.21")]
)
def test_cost_per_token_matches_the_published_examples(price, rate, busy, published):
    s = chainc.solve(model("cost-per-token"), price_per_gpu_hour=f"{price} USD/h", throughput=f"{rate} token/s", busy_fraction=busy)
    assert s.value("cost_per_million") == pytest.approx(float(dollars_per_million(price, rate, busy)), rel=1e-12)
    assert f"{s.value('cost_per_million'):.2f}" == published


@pytest.mark.parametrize(("price", "target", "gpus"), [("2", "0.05", 1), ("3.5", "0.2", 2), ("1.29", "0.013", 8)])
def test_cost_per_token_questions_are_the_hand_bounds(price, target, gpus):
    a = chainc.ask(model("cost-per-token"), "min_throughput", price_per_gpu_hour=f"{price} USD/h", cost_target=f"{target} USD/Mtoken", gpus=gpus)
    want = math.ceil(F(price) * gpus * 10**6 / (F(target) * 3600))
    assert a.answer() == want
    a = chainc.ask(model("cost-per-token"), "max_price", throughput="6450 token/s", cost_target=f"{target} USD/Mtoken", gpus=gpus)
    assert a.answer() == pytest.approx(math.floor(F(target) * 6450 * 3600 / 10**6 / gpus * 100) / 100, abs=1e-12)


# --- prefix-caching -----------------------------------------------------------------


def prefill(m, peak, prompt, hit, mfu=F("0.5"), block=16):
    achieved = mfu * peak
    cached = math.floor(F(hit) * prompt / block) * block
    new = prompt - cached
    full = (m["linear"] * prompt + m["attention"] * F(prompt * (prompt + 1), 2)) / achieved
    ttft = (m["linear"] * new + m["attention"] * new * (cached + F(new + 1, 2))) / achieved
    return cached, full, ttft


def test_prefix_caching_default_numbers():
    s = chainc.solve(model("prefix-caching"))
    cached, full, ttft = prefill(llm("llama-3.1-8b"), GPUS["h100-sxm"][2], 8192, "0.5")
    assert s.value("cached_tokens") == cached == 4096
    assert s.value("full_prefill") == pytest.approx(float(full * 1000), rel=1e-12)
    assert s.value("ttft") == pytest.approx(float(ttft * 1000), rel=1e-12)
    assert s.value("queue_gain") == pytest.approx(8 * 0.5 / 9, rel=1e-12)  # k r / (k + 1), vllm-ascend PR 7468


@pytest.mark.parametrize(
    ("gpu", "name", "prompt", "target"),
    [
        ("h100-sxm", "llama-3.1-8b", 8192, 150),
        ("h200", "llama-3.1-8b", 8192, 150),
        ("a100-sxm-80gb", "llama-3.1-8b", 8192, 150),
        ("l40s", "qwen2.5-7b", 12000, "333.3"),
        ("h100-sxm", "mistral-7b", 32768, 400),
    ],
)
def test_prefix_caching_min_hit_rate_is_the_hand_grid(gpu, name, prompt, target):
    a = chainc.ask(model("prefix-caching"), "min_hit_rate", gpu=gpu, llm=name, prompt_tokens=f"{prompt} token", ttft_target=f"{target} ms")
    want = next(F(k, 100) for k in range(101) if prefill(llm(name), GPUS[gpu][2], prompt, F(k, 100))[2] * 1000 <= F(target))
    assert a.answer() == pytest.approx(float(want), abs=1e-12)


# --- chunked-prefill ----------------------------------------------------------------


def mixed_step(gpu, name, budget, decoders=64, context=2048, prompt=32768, mfu=F("0.5")):
    memory, bandwidth, peak = GPUS[gpu]
    m = llm(name)
    chunk = budget - decoders
    steps = -(-prompt // chunk)
    memory_time = (m["weights"] + decoders * context * m["kv"]) / bandwidth
    compute_time = (m["linear"] * budget + m["attention"] * F(prompt * (prompt + 1), 2) / steps) / (mfu * peak)
    step = max(memory_time, compute_time)
    return steps, memory_time, compute_time, step, steps * step


def test_chunked_prefill_default_numbers():
    s = chainc.solve(model("chunked-prefill"))
    steps, memory_time, compute_time, step, ttft = mixed_step("h100-sxm", "llama-3.1-8b", 2048)
    assert s.value("chunks") == steps == 17
    assert s.value("memory_time") == pytest.approx(float(memory_time * 1000), rel=1e-12)
    assert s.value("compute_time") == pytest.approx(float(compute_time * 1000), rel=1e-12)
    assert s.value("ttft") == pytest.approx(float(ttft), rel=1e-12)


@pytest.mark.parametrize(
    ("gpu", "name", "decoders", "target"),
    [("h100-sxm", "llama-3.1-8b", 64, 30), ("h200", "llama-3.1-8b", 64, 30), ("h100-sxm", "qwen2.5-7b", 32, 30), ("l40s", "llama-3.1-8b", 64, 45), ("a100-sxm-80gb", "mistral-7b", 16, "55.5")],
)
def test_chunked_prefill_max_budget_is_the_hand_grid(gpu, name, decoders, target):
    a = chainc.ask(model("chunked-prefill"), "max_budget", gpu=gpu, llm=name, decoders=decoders, tpot_target=f"{target} ms/token")
    ok = [b for b in range(256, 65536, 16) if mixed_step(gpu, name, b, decoders)[3] * 1000 <= F(target)]
    assert a.answer() == max(ok)


# --- disaggregated ------------------------------------------------------------------


def prefill_queue(gpu, name, rate, gpus, prompt=2048, mfu=F("0.5")):
    m = llm(name)
    d = (m["linear"] * prompt + m["attention"] * F(prompt * (prompt + 1), 2)) / (mfu * GPUS[gpu][2])
    load = F(rate) * d / gpus
    return d, load, d + load * d / (2 * (1 - load)) if load < 1 else None


def decode_step(gpu, name, batch, context=2048 + 256):
    m = llm(name)
    return (m["weights"] + batch * context * m["kv"]) / GPUS[gpu][1]


def test_disaggregated_default_numbers():
    s = chainc.solve(model("disaggregated"))
    d, load, ttft = prefill_queue("h100-sxm", "llama-3.1-8b", 20, 2)
    assert s.value("prefill_time") == pytest.approx(float(d * 1000), rel=1e-12)
    assert s.value("prefill_ttft") == pytest.approx(float(ttft * 1000), rel=1e-12)
    per_gpu = 64 / decode_step("h100-sxm", "llama-3.1-8b", 64)
    assert s.value("decode_gpus") == math.ceil(20 * 512 / per_gpu) == 2


@pytest.mark.parametrize(
    ("gpu", "name", "rate", "target", "tpot"),
    [("h100-sxm", "llama-3.1-8b", 20, "0.2", 10), ("h200", "qwen2.5-7b", "55.5", "0.1", 10), ("l40s", "llama-3.1-8b", 20, "0.2", "30.5"), ("a100-sxm-80gb", "mistral-7b", 3, "0.35", 12)],
)
def test_disaggregated_questions_are_the_hand_loops(gpu, name, rate, target, tpot):
    a = chainc.ask(model("disaggregated"), "min_prefill_gpus", gpu=gpu, llm=name, arrival_rate=f"{rate} request/s", ttft_target=f"{target} s")
    want = next(n for n in range(1, 257) if (q := prefill_queue(gpu, name, rate, n))[2] is not None and q[2] <= F(target))
    assert a.answer() == want
    a = chainc.ask(model("disaggregated"), "max_batch_per_gpu", gpu=gpu, llm=name, tpot_target=f"{tpot} ms/token")
    memory = GPUS[gpu][0]
    m = llm(name)
    fits = [b for b in range(1, 5000) if decode_step(gpu, name, b) <= F(tpot) / 1000 and m["weights"] + b * 2304 * m["kv"] <= memory]
    assert a.answer() == max(fits)


def test_disaggregated_has_no_prefill_answer_when_one_prompt_misses_the_target():
    """On an A100 one 2,048-token prefill takes 218 ms: no number of GPUs brings the mean under 0.2 s."""
    assert prefill_queue("a100-sxm-80gb", "llama-3.1-8b", 20, 256)[0] > F(1, 5)
    with pytest.raises(chainc.errors.SolveError):
        chainc.ask(model("disaggregated"), "min_prefill_gpus", gpu="a100-sxm-80gb")
