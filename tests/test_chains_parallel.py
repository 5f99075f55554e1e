"""The parallelism and serving-trick chains (tensor-parallel, pipeline-parallel, quantization, moe,
speculative-decoding): each question's answer against a computation of its own, in exact fractions,
by brute force over the whole numbers where the answer is one.

The hardware and architecture numbers are read from the catalog's YAML (plain `yaml`, not chainc), and
the sizes derived here: weights = params x bytes, KV per token = 2 x layers x kv_heads x hidden/heads x bytes.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest
import yaml

import chainc
from chainc.cli import main
from chainc.errors import NoAnswerError

ROOT = Path(__file__).resolve().parent.parent
UNITS = {"GB": 10**9, "TB/s": 10**12, "GB/s": 10**9, "B": 1}


def _values(kind: str, name: str) -> dict:
    """The entry's typed values as exact numbers in base units (a quantity's unit must be one this test knows)."""
    out = {}
    for key, v in yaml.safe_load((ROOT / "hardware" / kind / f"{name}.yaml").read_text())["values"].items():
        v = v["value"] if isinstance(v, dict) else v  # {value: 80 GB, source: datasheet}
        if isinstance(v, str):  # a quantity: kept as text (unusable in arithmetic) unless its unit is one of UNITS
            number, unit = v.split(maxsplit=1)
            out[key] = F(number) * UNITS[unit] if unit in UNITS else v
        else:
            out[key] = None if v is None else F(v)
    return out


def gpu(name):
    return _values("gpus", name)


def llm(name):
    v = _values("llms", name)
    v["weight_bytes"] = v["params"] * v["bytes_per_param"]
    v["kv_per_token"] = 2 * v["layers"] * v["kv_heads"] * (v["hidden"] / v["heads"]) * v["kv_bytes_per_element"]
    return v


# --- tensor-parallel -------------------------------------------------------------------------------------


def smallest_tp(g, m, target_ms=20, batch=64, context=2048):
    """Try every TP degree 1..64: per-GPU bytes over HBM plus 2 ring all-reduces per layer over half the NVLink total."""
    for tp in range(1, 65):
        if m["kv_heads"] % tp or 64 % tp:
            continue
        step = (m["weight_bytes"] + batch * context * m["kv_per_token"]) / tp
        comm = 2 * m["layers"] * 2 * F(tp - 1, tp) * batch * m["hidden"] * 2 / (g["gpu_link_bandwidth"] / 2)
        if step <= g["memory"] and step / g["memory_bandwidth"] + comm <= F(target_ms, 1000):
            return tp
    return None


TP_CASES = [
    ("h100-sxm", "llama-3.1-70b", {}),
    ("h100-sxm", "llama-3.1-70b", {"tpot_target": 8}),
    ("h200", "llama-3.1-70b", {}),
    ("b200", "llama-3.1-405b", {}),
    ("h100-sxm", "llama-3.1-405b", {}),  # 8 KV heads cap TP at 8, and 101 GB per GPU does not fit
    ("h100-sxm", "llama-3.1-8b", {"tpot_target": 4.5}),
    ("mi300x", "llama-3.1-70b", {"batch": 128, "context": 4096, "tpot_target": 12.5}),
    # where the all-reduces decide (at the link's full total instead of half, each answer would be one step smaller)
    ("h100-sxm", "llama-3.1-8b", {"tpot_target": 5}),
    ("a100-sxm-80gb", "llama-3.1-8b", {"batch": 512, "context": 128, "tpot_target": 4}),
    ("h100-sxm", "llama-3.1-70b", {"batch": 512, "context": 512, "tpot_target": 20}),
    ("h100-sxm", "llama-3.1-70b", {"context": 512, "tpot_target": 6}),
]


@pytest.mark.parametrize("g, m, given", TP_CASES)
def test_the_tp_degree_is_the_smallest_power_of_two_divisor_that_meets_the_target(g, m, given):
    want = smallest_tp(gpu(g), llm(m), **{("target_ms" if k == "tpot_target" else k): F(str(v)) for k, v in given.items()})
    if want is None:
        with pytest.raises(NoAnswerError):
            chainc.ask("tensor-parallel", "smallest_tp", gpu=g, llm=m, **given)
    else:
        assert chainc.ask("tensor-parallel", "smallest_tp", gpu=g, llm=m, **given).answer() == want


def test_the_defaults_need_tp_4_and_8_ms_needs_tp_8():
    assert smallest_tp(gpu("h100-sxm"), llm("llama-3.1-70b")) == 4  # TP 2 holds 92 GB per GPU
    assert smallest_tp(gpu("h100-sxm"), llm("llama-3.1-70b"), 8) == 8


def test_tp_1_has_no_all_reduce():
    s = chainc.solve("tensor-parallel", tp=1)
    m, g = llm("llama-3.1-70b"), gpu("h100-sxm")
    assert s.value("comm_time") == 0
    want = (m["weight_bytes"] + 64 * 2048 * m["kv_per_token"]) / g["memory_bandwidth"] * 1000
    assert s.value("tpot") == pytest.approx(float(want), rel=1e-12)


# --- pipeline-parallel ----------------------------------------------------------------------------------


def fewest_microbatches(p, target, v=1, multiple=False):
    for m in range(1, 257):
        if (p - 1) / (v * F(m) + p - 1) <= F(target) and (not multiple or m % p == 0):
            return m
    return None


@pytest.mark.parametrize("p, target, v", [(4, "0.05", 1), (8, "0.1", 1), (8, "0.0123", 1), (2, "0.5", 1), (16, "0.2", 2), (4, "0.05", 2), (8, "0.1", 3), (1, "0.01", 1)])
def test_the_fewest_microbatches_for_a_bubble_target(p, target, v):
    given = {"stages": p, "bubble_target": target, "chunks": v}
    for question, multiple in (("fewest_microbatches", False), ("fewest_interleaved", True)):
        want = fewest_microbatches(p, target, v, multiple)
        if want is None:
            with pytest.raises(NoAnswerError):
                chainc.ask("pipeline-parallel", question, **given)
        else:
            assert chainc.ask("pipeline-parallel", question, **given).answer() == want


def test_the_bubble_is_gpipe_s_and_megatron_s():
    s = chainc.solve("pipeline-parallel", stages=8, microbatches=32, chunks=2)
    assert s.value("bubble_fraction") == pytest.approx(7 / (2 * 32 + 7), rel=1e-12)
    assert s.value("bubble_ratio") == pytest.approx(7 / (2 * 32), rel=1e-12)  # (1/v)(p - 1)/m


# --- quantization ---------------------------------------------------------------------------------------


def largest_quantized_batch(g, m, weight_bits=4, scale_bits=16, group=128, kv_bits=8, target_ms=20, context=2048):
    weights = m["params"] * (F(weight_bits) + F(scale_bits) / group) / 8
    kv = 2 * m["layers"] * m["kv_heads"] * (m["hidden"] / m["heads"]) * F(kv_bits) / 8
    best = None
    for b in range(1, 100_000):
        step = weights + b * context * kv
        if step > g["memory"]:
            break
        if step / g["memory_bandwidth"] <= F(target_ms, 1000):
            best = b
    return best


@pytest.mark.parametrize(
    "g, m, given",
    [
        ("h100-sxm", "llama-3.1-70b", {}),
        ("h100-sxm", "llama-3.1-70b", {"weight_dtype": "fp8", "scale_bits": 0, "tpot_target": 30}),
        ("h200", "llama-3.1-70b", {}),
        ("mi300x", "qwen2.5-72b", {"weight_dtype": "fp8", "scale_bits": 0, "tpot_target": 25.5}),
        ("a100-sxm-80gb", "llama-3.1-70b", {"group_size": 64, "tpot_target": 33.3}),
        ("h100-sxm", "llama-3.1-8b", {"weight_dtype": "bf16", "scale_bits": 0, "kv_dtype": "bf16", "tpot_target": 10}),
        ("h100-sxm", "llama-3.1-405b", {}),  # 209 GB of int4 weights: nothing fits
    ],
)
def test_the_largest_quantized_batch_that_fits_and_meets_the_target(g, m, given):
    names = {"weight_dtype": "weight_bits", "scale_bits": "scale_bits", "group_size": "group", "kv_dtype": "kv_bits", "tpot_target": "target_ms"}
    bits = {"bf16": 16, "fp8": 8}  # the dtypes' widths, independently of the chain's lookup
    want = largest_quantized_batch(gpu(g), llm(m), **{names[k]: F(bits.get(v, v) if isinstance(v, str) else str(v)) for k, v in given.items()})
    if want is None:
        with pytest.raises(NoAnswerError):
            chainc.ask("quantization", "largest_batch", gpu=g, llm=m, **given)
    else:
        assert chainc.ask("quantization", "largest_batch", gpu=g, llm=m, **given).answer() == want


def test_fp16_and_16_bit_kv_is_goodput():
    """With the catalog's own BF16 sizes the join is goodput again: the same largest batch, 64."""
    assert chainc.ask("quantization", "largest_batch", llm="llama-3.1-8b", weight_dtype="bf16", scale_bits=0, kv_dtype="bf16", tpot_target=10).answer() == 64
    assert chainc.ask("goodput", "fitting_batch").answer() == 64


# --- moe ------------------------------------------------------------------------------------------------


def largest_moe_batch(g, m, ep=2, target_ms=20, context=2048):
    e, k, layers = m["experts"], m["experts_per_token"], m["layers"]
    expert = 3 * m["hidden"] * m["intermediate"] * m["bytes_per_param"]
    shared = m["weight_bytes"] - e * layers * expert
    best, miss = None, F(1)
    for b in range(1, 4097):
        miss *= 1 - k / e  # (1 - k/E)^b: an expert no token of the batch is routed to
        kv = F(b, ep) * context * m["kv_per_token"]
        step = shared + e * (1 - miss) / ep * layers * expert + kv
        resident = shared + e / ep * layers * expert + kv
        if resident <= g["memory"] and step / g["memory_bandwidth"] <= F(target_ms, 1000):
            best = b
    return best


@pytest.mark.parametrize(
    "g, m, given",
    [
        ("h100-sxm", "mixtral-8x7b", {}),
        ("h100-sxm", "mixtral-8x7b", {"tpot_target": 10}),
        ("h200", "mixtral-8x7b", {}),
        ("h100-sxm", "mixtral-8x7b", {"expert_parallel": 8, "tpot_target": 12.5}),
        ("h100-sxm", "mixtral-8x7b", {"expert_parallel": 1}),  # 93.4 GB of experts on one 80 GB GPU
        ("h100-sxm", "llama-3.1-8b", {"expert_parallel": 1, "tpot_target": 10}),  # dense: goodput's 64
    ],
)
def test_the_largest_moe_batch(g, m, given):
    names = {"expert_parallel": "ep", "tpot_target": "target_ms"}
    want = largest_moe_batch(gpu(g), llm(m), **{names[k]: F(str(v)) for k, v in given.items()})
    if want is None:
        with pytest.raises(NoAnswerError):
            chainc.ask("moe", "largest_batch", gpu=g, llm=m, **given)
    else:
        assert chainc.ask("moe", "largest_batch", gpu=g, llm=m, **given).answer() == want


def test_experts_touched_is_k_at_batch_1_and_nearly_e_at_64():
    for b, want in ((1, 2), (2, 8 * (1 - F(9, 16))), (64, 8 * (1 - F(3, 4) ** 64))):
        assert chainc.solve("moe", batch=b).value("experts_touched") == pytest.approx(float(want), rel=1e-12)


# --- speculative-decoding -------------------------------------------------------------------------------


def speedup(a, g, c):
    a, c = F(a), F(c)
    tokens = sum(a**k for k in range(g + 1))  # (1 - a^(g+1))/(1 - a), without the pole at a = 1
    return tokens / (g * c + 1)


@pytest.mark.parametrize("g, c, target", [(4, "0.02", 2), (7, "0.02", 2), (3, "0", "1.5"), (7, "0.02", 3), (5, "0.11", "2.25"), (7, "0.02", 9)])
def test_the_acceptance_a_speedup_needs(g, c, target):
    """The speedup rises with alpha, so the answer is the first hundredth that meets the target."""
    want = next((F(k, 100) for k in range(101) if speedup(F(k, 100), g, c) >= F(str(target))), None)
    given = {"draft_tokens": g, "draft_cost": c, "speedup_target": target}
    if want is None:
        with pytest.raises(NoAnswerError):
            chainc.ask("speculative-decoding", "needed_acceptance", **given)
    else:
        assert chainc.ask("speculative-decoding", "needed_acceptance", **given).answer() == pytest.approx(float(want), abs=1e-9)


@pytest.mark.parametrize("a, c, target", [("0.75", "0.02", 2), ("0.75", "0.02", 3), ("0.9", "0.05", 4), ("0.5", "0.02", "2.5"), ("0.8", "0", "4.5"), ("0.6", "0.1", "1.5")])
def test_the_fewest_draft_tokens(a, c, target):
    """The speedup rises and then falls with gamma (drafting costs gamma c): every gamma is tried."""
    want = next((g for g in range(1, 65) if speedup(a, g, c) >= F(str(target))), None)
    given = {"acceptance": a, "draft_cost": c, "speedup_target": target}
    if want is None:
        with pytest.raises(NoAnswerError):
            chainc.ask("speculative-decoding", "fewest_draft_tokens", **given)
    else:
        assert chainc.ask("speculative-decoding", "fewest_draft_tokens", **given).answer() == want


def test_leviathan_table_1_speeds():
    """Table 1 of Leviathan et al. 2023 (c = 0), to its two decimals."""
    for a, g, speed in (("0.6", 2, "1.96"), ("0.7", 3, "2.53"), ("0.8", 2, "2.44"), ("0.8", 5, "3.69"), ("0.9", 2, "2.71"), ("0.9", 10, "6.86")):
        assert abs(speedup(a, g, 0) - F(speed)) <= F(5, 1000)
        got = chainc.solve("speculative-decoding", acceptance=a, draft_tokens=g, draft_cost=0).value("speedup")
        assert got == pytest.approx(float(speedup(a, g, 0)), rel=1e-12)


# --- the generated modules answer the same -------------------------------------------------------------


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    out = tmp_path_factory.mktemp("parallel")
    names = ["tensor-parallel", "pipeline-parallel", "quantization", "moe", "speculative-decoding"]
    assert main(["build", *names, "--out", str(out), "--format", "py"]) == 0
    loaded = {}
    for name in names:
        stem = name.replace("-", "_")
        spec = importlib.util.spec_from_file_location(f"_parallel_{stem}", out / f"{stem}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        loaded[name] = module
    return loaded


def test_the_modules_answer_as_the_brute_force_does(modules):
    assert modules["tensor-parallel"].smallest_tp() == smallest_tp(gpu("h100-sxm"), llm("llama-3.1-70b"))
    assert modules["tensor-parallel"].smallest_tp(gpu="h200") == smallest_tp(gpu("h200"), llm("llama-3.1-70b"))
    assert modules["pipeline-parallel"].fewest_interleaved(stages=8, chunks=3, bubble_target=0.1) == fewest_microbatches(8, "0.1", 3, True)
    assert modules["quantization"].largest_batch(weight_dtype="fp8", scale_bits=0, tpot_target=30) == largest_quantized_batch(gpu("h100-sxm"), llm("llama-3.1-70b"), 8, 0, 128, 8, 30)
    assert modules["moe"].largest_batch(tpot_target=10) == largest_moe_batch(gpu("h100-sxm"), llm("mixtral-8x7b"), target_ms=10)
    assert modules["speculative-decoding"].fewest_draft_tokens() == next(g for g in range(1, 65) if speedup("0.75", g, "0.02") >= 2)
    assert math.isclose(modules["speculative-decoding"].needed_acceptance(draft_tokens=4), 0.57)
