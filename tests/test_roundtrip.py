"""Round trip over every chain: make an input unknown, give a value computed from it, solve back.

For each variable with a default that the equations use, the test looks for a
computed variable to give (those sharing an equation with it first) from which
the solver recovers the input to 1e-9 relative. The input is first moved off its
default (x 1.37), since numeric searches start from the default. The pairs that cannot work are
listed with the reason, and the test proves that they indeed cannot.
"""

from pathlib import Path

import pytest
import sympy as sp

from chainc import ChaincError, Project, solve
from chainc.analysis import variables_of

ROOT = Path(__file__).resolve().parent.parent

# (model, input): why no computed value determines it
NOT_INVERTIBLE = {
    ("goodput", "tpot_target"): "the target only decides whether goodput is all of throughput or 0; goodput is flat on either side, so no value of it pins the target",
    ("chunked-prefill", "decode_tpot_target"): "the joined goodput's target, unbound: it decides only decode.goodput, flat on either side (as goodput's own)",
    ("paged-kv", "max_model_len"): "a request takes ceil(max_model_len / 16) blocks: every length within one block gives the same values",
    ("prefix-caching", "hit_rate"): "only whole 16-token blocks are cached: every hit rate within one block gives the same values",
    ("prefix-caching", "block_size"): "the cached tokens are floor(h n / block) x block, a step function of the block size: neighbouring sizes give the same values",
    ("moe", "experts_per_token"): "at batch 64 every expert is touched: 8 (1 - (1 - k/8)^64) is within 2e-11 of 8 for k near 2.74, so no computed value (all pass through it) pins k to 1e-9",
    ("tensor-parallel", "kv_heads"): "it appears only in the remainder kv_heads % tp, and many head counts leave the same remainder",
    ("quantization", "kv_dtype"): "bf16 and fp16 are both 16 bits: a KV size at 16 bits names neither, and the round trip moves fp8 to fp16",
    ("tensor-parallel", "largest_tp"): "it appears only in the remainder largest_tp % tp, and many values leave the same remainder",
    ("deployment", "kv_heads"): "it appears only in the remainder kv_heads % tp, and many head counts leave the same remainder",
    ("deployment", "arrival_rate"): (
        "it enters as replicas = ceil(arrival_rate / replica_rate), and every value that reads it depends on the rate per replica alone"
        " (or is a step): 13.7 requests/s on 2 replicas and 6.85 on 1 give the same load, prefill wait, TTFT and cost per token"
    ),
}


def _cases():
    project = Project(ROOT)
    for name in project.model_names():
        m = project.model(name)
        used = {v for eq in m.equations for v in variables_of(m, eq)}
        for x in m.inputs():
            if x in used:
                yield name, x


def _candidates(m, x):
    direct, rest = [], []
    computed = [n for n, v in m.variables.items() if v.default is None]
    for y in computed:
        share = any(x in variables_of(m, eq) and y in variables_of(m, eq) for eq in m.equations)
        (direct if share else rest).append(y)
    return direct + rest


def _recover(project, model, x):
    m = project.model(model)
    # Move the input off its default, so a numeric search that starts at the default cannot pass by luck.
    var = m.variables[x]
    default = solve(m, project=project).values[x]
    # The first move whose chain still solves: 1.37 x an arrival rate can overload an Erlang C queue.
    moves = [default * f if default != 0 else f * var.factor for f in (sp.Rational(137, 100), sp.Rational(73, 100))]  # an overhead at 0: 1.37 of its display unit
    if var.domain.values is not None:  # a set's own values, the nearest first (tp 8 -> 16, 4)
        moves = sorted((v for v in var.domain.values if v != default), key=lambda v: abs(v - default))
    base = None
    for want in moves:
        if var.domain.integer:  # a whole number stays whole (batch 64 -> 88)
            want = sp.Integer(round(want / var.factor)) * var.factor
        if not var.domain.admits(want):
            continue
        try:
            base = solve(m, {x: want}, project=project)
        except ChaincError:
            continue
        break
    assert base is not None, f"{model}: no move of {x} off its default solves"
    tried = []
    for y in _candidates(m, x):
        try:
            value = base.values[y]  # base units; a bare float would be read in the display unit
            s = solve(m, {y: sp.Float(value) if isinstance(value, float) else value}, find=[x], project=project)
        except ChaincError as e:
            tried.append(f"{y}: {e.message}")
            continue
        got = s.values[x]
        if abs(got - want) <= 1e-9 * abs(want):
            return y, s
        tried.append(f"{y}: got {float(got)!r}, want {float(want)!r}")
    return None, tried


@pytest.mark.parametrize(("model", "x"), list(_cases()))
def test_round_trip(project, model, x):
    y, result = _recover(project, model, x)
    if (model, x) in NOT_INVERTIBLE:
        assert y is None, f"{model}.{x} is listed as not invertible, but {y} recovers it"
    else:
        assert y is not None, f"{model}.{x} could not be recovered from any computed variable:\n" + "\n".join(result)
