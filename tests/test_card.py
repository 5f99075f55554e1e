"""Every number of the card (shared/card/serving-chains.txt), at the card's rounding.

A value written with d decimals must lie within half a unit of its last digit
(9.9 ms admits 9.85..9.95). The numbers are typed here, from the card, and not
read from the models' own checks, so editing a model cannot make this pass.
"""

import pytest

from chainc import ask, run_checks, solve

# (model, given, variable, card value in the variable's display unit, decimals on the card)
CARD = [
    ("littles-law", {}, "latency", 7.975, 3),
    ("littles-law", {}, "in_system", 79.75, 2),
    ("littles-law", {}, "decoding", 74.75, 2),
    ("littles-law", {}, "token_rate", 2990, 0),
    ("kv-ceiling", {}, "kv_bytes_per_token", 327680, 0),
    ("kv-ceiling", {}, "kv_in_flight", 43.1, 1),
    ("kv-ceiling", {}, "max_arrival_rate", 37, 0),
    ("kv-ceiling", {}, "in_system", 79.75, 2),
    ("kv-ceiling", {}, "latency", 7.975, 3),
    ("goodput", {}, "weight_bytes", 16.06, 2),
    ("goodput", {}, "tpot", 9.9, 1),
    ("goodput", {}, "throughput", 6450, 0),
    ("goodput", {}, "goodput", 6450, 0),
    ("goodput", {"batch": 128}, "tpot", 15.1, 1),
    ("goodput", {"batch": 128}, "throughput", 8505, 0),
    ("goodput", {"batch": 128}, "goodput", 0, 0),
    ("swap-recompute", {}, "kv_bytes_per_token", 131072, 0),
    ("swap-recompute", {}, "achieved_flops", 494.5, 1),
    ("swap-recompute", {}, "swap_time", 5.2, 1),
    ("swap-recompute", {}, "recompute_time", 34.7, 1),
    ("swap-recompute", {}, "break_even_bandwidth", 7.6, 1),
    ("swap-recompute", {}, "swap_bytes_per_token", 262144, 0),
    ("hol-blocking", {}, "steps_before_short", 4, 0),
    ("hol-blocking", {}, "fcfs_short_ttft", 1.80, 2),
    ("hol-blocking", {}, "sorted_short_ttft", 0.27, 2),
    ("hol-blocking", {}, "long_delay", 0.16, 2),
    ("hol-blocking", {}, "fcfs_mean_ttft", 1.78, 2),
    ("hol-blocking", {}, "sorted_mean_ttft", 0.41, 2),
    ("p99-knee", {}, "slope", 11, 0),
    ("p99-knee", {"utilization": 0.5}, "slope", 4, 0),
    ("p99-knee", {}, "tail_factor", 4.6, 1),
    ("long-prompt", {}, "achieved_flops", 494.5, 1),
    ("long-prompt", {}, "chunk", 8128, 0),
    ("long-prompt", {}, "chunks", 13, 0),
    ("long-prompt", {}, "first_linear", 266, 0),
    ("long-prompt", {}, "first_attention", 35, 0),
    ("long-prompt", {}, "first_step", 301, 0),
    ("long-prompt", {}, "attention_growth", 70, 0),
    ("long-prompt", {}, "decode_tpot", 9.9, 1),
    ("tenant-cost", {}, "cost_a", 500, 0),
    ("tenant-cost", {}, "cost_b", 11000, 0),
    ("tenant-cost", {}, "cost_ratio", 22, 0),
    ("tenant-cost", {}, "round_robin_share_b", 0.96, 2),
]


def agrees(got: float, card: float, decimals: int) -> bool:
    return abs(got - card) <= 0.5 * 10.0**-decimals + 1e-12


@pytest.mark.parametrize(("model", "given", "name", "card", "decimals"), CARD, ids=[f"{m}-{n}{'-' + str(g) if g else ''}" for m, g, n, *_ in CARD])
def test_card_number(project, model, given, name, card, decimals):
    s = solve(project.model(model), given, project=project)
    assert agrees(s.value(name), card, decimals), f"{model}.{name} = {s.value(name)!r}, card says {card}"


def test_pool_tokens_about_487600(project):
    # The card says "about 487,600"; 159.8e9 / 327,680 = 487,670.9. Within 0.05%.
    got = solve(project.model("kv-ceiling"), project=project).value("pool_tokens")
    assert got == pytest.approx(159.8e9 / 327680, rel=1e-12)
    assert abs(got - 487600) / 487600 < 5e-4


@pytest.mark.parametrize(("model", "question", "name", "card", "decimals"), [("goodput", "max_batch", "batch", 64, 0), ("p99-knee", "max_utilization", "utilization", 0.69, 2)])
def test_card_questions(project, model, question, name, card, decimals):
    a = ask(project.model(model), question, project=project)
    var = project.model(model).variables[name]
    assert float(var.to_display(a.base)) == pytest.approx(card, abs=1e-12)
    assert a.question.find == name


def test_goodput_boundary_is_64_97(project):
    a = ask(project.model("goodput"), "max_batch", project=project)
    assert float(a.base_boundary) == pytest.approx((10e-3 * 3.35e12 - 2 * 8030261248) / (2048 * 131072), rel=1e-12)


def test_max_batch_on_h200_uses_its_bandwidth(project):
    a = ask(project.model("goodput"), "max_batch", gpu="h200", project=project)
    assert a.base == int((10e-3 * 4.8e12 - 2 * 8030261248) / (2048 * 131072))  # 118


def test_p99_ttft_is_computed_from_utilization(project):
    m = project.model("p99-knee")
    for rho in (0.3, 0.5, 0.7, 0.9):
        s = solve(m, {"utilization": rho}, project=project)
        assert s.value("p99_ttft") == pytest.approx(-__import__("math").log(0.01) * 0.0665 / (1 - rho), rel=1e-12)


def test_long_prompt_table_every_chunk(project):
    """The decoders' inter-token latency for every chunk: 301 ms, then +70 ms per full chunk."""
    s = solve(project.model("long-prompt"), project=project)
    rows = s.tables["steps"]
    assert len(rows) == 13
    itl = [float(r["step_time"]) * 1e3 for r in rows]
    assert round(itl[0]) == 301
    growth = s.value("attention_growth")
    for k in range(1, 12):
        assert itl[k] - itl[k - 1] == pytest.approx(growth, rel=1e-9)
    assert sum(float(r["prefill"]) for r in rows) == 100000
    assert s.value("worst_itl") == pytest.approx(max(itl), rel=1e-12)


def test_hol_tables_schedule(project):
    s = solve(project.model("hol-blocking"), project=project)
    fcfs, by_length = s.tables["fcfs"], s.tables["sorted"]
    assert [int(r["long_chunk"]) for r in fcfs] == [8192, 8192, 8192, 8192, 0]
    assert [int(r["short_chunk"]) for r in fcfs] == [0, 0, 0, 0, 5000]
    # sorted: the short prompts' 5,000 tokens and the long prompt's first 3,192 share the first step
    assert (int(by_length[0]["short_chunk"]), int(by_length[0]["long_chunk"])) == (5000, 3192)
    assert len(by_length) == 5


def test_every_model_check_passes(project):
    for name in project.model_names():
        outcomes = run_checks(project.model(name), project)
        assert outcomes, name
        bad = [o.lines for o in outcomes if not o.ok]
        assert not bad, (name, bad)
