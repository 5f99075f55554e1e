"""Generated search functions choose as chainc's search does, in both flavours.

The modules of tests/models/searches.yaml (an objective over a value set, one over a bounded range,
a grid over GPUs and TP degrees with an inner question and a condition, a frontier),
speculative-decoding and tensor-parallel are built and called at their defaults and at other
givens; the best configuration, the ranked table (a frontier's rows), what binds, where the best
sits and why each other configuration fails equal the solver's Chosen (`Report.searches`, and
`chainc.ask` at other givens), values to 1e-9 relative. No configuration raises the module's
ChainError in the solver's words; a wrong argument raises its located ChainError. A hand-written
loop over the cheapest search's grid gives its best configuration and table independently.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest

from chainc import Project, ask
from chainc.backends import BuildOptions
from chainc.backends import python as python_backend
from chainc.build import reports_for

from .test_python_backend import load
from .tools import assert_ruff_clean

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = "tests/models/searches.yaml"
MODELS = (FIXTURE, "speculative-decoding", "tensor-parallel")
REL = 1e-9


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(reports by model, {(model, numpy): module}, the files) of the three models, both flavours."""
    project = Project(ROOT)
    out = tmp_path_factory.mktemp("py_searches")
    options = BuildOptions(out, numpy=True)
    reports, catalog = reports_for(project, list(MODELS), options)
    paths = python_backend.build(reports, catalog, "py", options)
    mods = {(p.stem.removesuffix("_np"), p.stem.endswith("_np")): load(p) for p in paths}
    return {r.model.name: r for r in reports}, mods, paths


def _module(built, model: str, numpy: bool):
    return built[1][(python_backend.module_name(Path(model).stem), numpy)]


def close(got, want) -> bool:
    if isinstance(want, str) or want is None or isinstance(got, str) or got is None:
        return got == want
    return math.isclose(float(got), float(want), rel_tol=REL, abs_tol=1e-300)


def same_rows(got: dict, want: dict) -> bool:
    return got.keys() == want.keys() and all(close(got[k], want[k]) for k in want)


def agree(choice, chosen) -> None:
    """A module's Choice against the solver's Chosen: best, table, binding, placement, counts, why each fails."""
    s = chosen.search
    assert choice.question == s.name
    assert choice.configurations == len(chosen.configs) and choice.feasible == chosen.feasible
    if chosen.frontier:
        want = chosen.table()
        assert choice.best is None and choice.value is None
        assert len(choice.frontier) == len(want) and all(same_rows(g, w) for g, w in zip(choice.frontier, want))
        assert choice.table == choice.frontier
    else:
        assert same_rows(choice.best, chosen.values(chosen.best))
        assert close(choice.value, chosen.values(chosen.best)[s.goals[0].name])
        want = chosen.table(s.show)
        assert len(choice.table) == len(want) and all(same_rows(g, w) for g, w in zip(choice.table, want)), (choice.table, want)
        where = {a.name: p for a, p in zip(s.over, chosen.placement) if not a.catalog}
        if s.free:
            where[s.free] = chosen.free_where
        assert choice.placement == where
    assert choice.binding == chosen.binding
    failing = [(chosen.config(i), chosen.failed[i], chosen.why[i]) for i in range(len(chosen.why)) if chosen.why[i]]
    assert len(choice.failing) == len(failing)
    for (config, label, why), (want_config, want_label, want_why) in zip(choice.failing, failing):
        assert same_rows(config, want_config) and label == want_label and why == want_why, (config, label, why, want_why)


CASES = [
    (FIXTURE, "fastest_tp", {}),
    (FIXTURE, "best_overlap", {}),
    (FIXTURE, "cheapest", {}),
    (FIXTURE, "interactivity", {}),
    (FIXTURE, "fastest_tp", {"tpot_target": 15}),
    (FIXTURE, "best_overlap", {"launch": 0.2}),
    (FIXTURE, "cheapest", {"tpot_target": 15}),
    (FIXTURE, "cheapest", {"tpot_target": 40}),  # the memory condition binds
    (FIXTURE, "cheapest", {"tpot_target": 40, "llm": "llama-3.1-8b"}),
    (FIXTURE, "interactivity", {"tpot_target": 15, "context": 8192}),
    ("speculative-decoding", "best_draft_tokens", {}),
    ("speculative-decoding", "best_draft_tokens", {"acceptance": 0.9}),
    ("speculative-decoding", "best_draft_tokens", {"acceptance": 0.5, "draft_cost": 0.3}),
    ("tensor-parallel", "fastest_tp", {}),
    ("tensor-parallel", "fastest_tp", {"tpot_target": 15}),
    ("tensor-parallel", "fastest_tp", {"tpot_target": 40}),
]


@pytest.mark.parametrize("numpy", [False, True], ids=["python", "numpy"])
@pytest.mark.parametrize("model, search, given", CASES)
def test_a_search_function_chooses_as_the_solver_does(built, model, search, given, numpy):
    reports = built[0]
    name = Path(model).stem
    m = reports[name].model
    if given:
        values = {k: v for k, v in given.items() if k != "llm"}
        want = ask(m, search, {k: f"{v} {m.variables[k].unit}".strip() for k, v in values.items()}, llm=given.get("llm"), project=Project(ROOT))
    else:
        want = reports[name].searches[search]
    agree(getattr(_module(built, name, numpy), search)(**given), want)


@pytest.mark.parametrize("numpy", [False, True], ids=["python", "numpy"])
@pytest.mark.parametrize(
    "search, given, closest",
    [
        ("cheapest", {"memory": 1}, "the closest is gpu = a100-sxm-80gb, tp = 8, batch = 178: memory: step_bytes = 32.5701 GB > memory = 1 GB"),
        ("cheapest", {"tpot_target": 1}, None),  # every configuration fails its inner question: none is closest
        ("interactivity", {"memory": 1}, "the closest is gpu = h100-sxm, tp = 8, batch = 1: memory: step_bytes = 17.7223 GB > memory = 1 GB"),
    ],
)
def test_no_configuration_raises_the_solvers_words(built, search, given, closest, numpy):
    m = built[0]["searches"].model
    want = ask(m, search, {k: f"{v} {m.variables[k].unit}" for k, v in given.items()}, project=Project(ROOT))
    assert want.best is None and not want.order
    mod = _module(built, FIXTURE, numpy)
    with pytest.raises(mod.ChainError) as e:
        getattr(mod, search)(**given)
    assert e.value.message == f"question {search}: {want.sentence()}"
    assert e.value.kind == "infeasible" and e.value.hint
    if closest:
        assert e.value.message.endswith(closest)
    else:
        assert "closest" not in e.value.message


@pytest.mark.parametrize("numpy", [False, True], ids=["python", "numpy"])
@pytest.mark.parametrize(
    "given, words",
    [
        ({"tpot_target": "20ms"}, "tpot_target = '20ms' is not a number; pass tpot_target as an int or a float in ms/token (its display unit)"),
        ({"tpot_target": -3}, "given tpot_target = -3 ms/token is outside its domain (positive)"),
        ({"bandwidth": 0}, "given bandwidth = 0 TB/s is outside its domain (positive)"),
        ({"overlap": 2}, "given overlap = 2 is outside its domain"),
        ({"llm": "llama-70b"}, "unknown LLM 'llama-70b'"),
    ],
)
def test_a_wrong_argument_raises_the_modules_error(built, given, words, numpy):
    mod = _module(built, FIXTURE, numpy)
    with pytest.raises(mod.ChainError) as e:
        mod.cheapest(**given)
    assert str(e.value).startswith(words), str(e.value)


def test_the_numpy_flavour_takes_one_number_per_argument(built):
    vec = _module(built, FIXTURE, True)
    with pytest.raises(vec.ChainError, match="tpot_target = .* is not one number; a search runs every configuration at one point"):
        vec.cheapest(tpot_target=np.array([15.0, 20.0]))
    assert vec.cheapest(tpot_target=np.float64(20)).best == vec.cheapest().best


def test_what_a_search_varies_is_not_an_argument(built):
    m = built[0]["searches"].model
    for numpy in (False, True):
        mod = _module(built, FIXTURE, numpy)
        for search, argument in (("cheapest", {"tp": 2}), ("cheapest", {"gpu": "h200"}), ("cheapest", {"batch": 8}), ("best_overlap", {"overlap": 0.5})):
            with pytest.raises(TypeError, match="unexpected keyword argument"):
                getattr(mod, search)(**argument)
        agree(mod.fastest_tp(gpu="h200"), ask(m, "fastest_tp", gpu="h200", project=Project(ROOT)))  # a kind it does not vary is an argument


def _hand_cheapest(mod, tpot_target_ms: float = 20.0) -> list[tuple]:
    """The cheapest search by hand: per (gpu, tp) the largest batch with tpot <= target (the roofline solved for batch,
    floored, 1..4096), the memory condition, then cost = tp * price / (batch / tpot); ranked cheapest first."""
    llm = mod.LLMS[mod.LLM]
    weights, kv = llm["weight_bytes"] * 1e9, llm["kv_bytes_per_token"]
    context, launch, overlap, target = 2048, 0.5e-3, 0.5, tpot_target_ms * 1e-3
    rows = []
    for gpu in ("h100-sxm", "h200", "l40s", "a100-sxm-80gb"):
        g = mod.GPUS[gpu]
        bw, mem, price = g["memory_bandwidth"] * 1e12, g["memory"] * 1e9, g["price_per_hour"]
        for tp in (1, 2, 4, 8):
            room = target - launch * tp * overlap - 1e-3 / overlap  # seconds left for reading bytes
            batch = min(math.floor((room * bw * tp - weights) / (context * kv)), 4096)
            if batch < 1:
                continue
            step = (weights + batch * context * kv) / tp
            if step > mem:
                continue
            tpot = step / bw + launch * tp * overlap + 1e-3 / overlap
            rows.append((tp * price / 3600 / (batch / tpot) * 1e6, gpu, tp, batch))
    return sorted(rows)


@pytest.mark.parametrize("numpy", [False, True], ids=["python", "numpy"])
@pytest.mark.parametrize("target", [20, 15, 40])
def test_the_cheapest_configuration_by_hand(built, target, numpy):
    mod = _module(built, FIXTURE, numpy)
    hand = _hand_cheapest(mod, target)
    choice = mod.cheapest(tpot_target=target)
    assert choice.feasible == len(hand)
    for row, (cost, gpu, tp, batch) in zip(choice.table, hand):
        assert (row["gpu"], row["tp"], row["batch"]) == (gpu, tp, batch)
        assert math.isclose(row["cost"], cost, rel_tol=1e-12)


@pytest.mark.parametrize("numpy", [False, True], ids=["python", "numpy"])
def test_a_catalog_axis_iterates_the_modules_catalog(tmp_path, numpy):
    """gpu: all runs every entry of the module's GPUS (as it stands when called); an entry without a value the model
    reads gives its rows the solver's reason."""
    (tmp_path / "models").mkdir()
    text = (ROOT / FIXTURE).read_text().replace("name: searches\n", "name: every-gpu\n")
    text = text.replace("over: {gpu: [h100-sxm, h200, l40s, a100-sxm-80gb], tp: [1, 2, 4, 8]}", "over: {gpu: all, tp: [1, 2, 4, 8]}")
    (tmp_path / "models" / "every-gpu.yaml").write_text(text)
    project = Project(tmp_path)
    options = BuildOptions(tmp_path / "out", numpy=True)
    reports, catalog = reports_for(project, ["every-gpu"], options)
    paths = python_backend.build(reports, catalog, "py", options)
    mod = load(paths[1] if numpy else paths[0])
    assert "tuple(GPUS)" in paths[0].read_text()
    want = reports[0].searches["cheapest"]
    choice = mod.cheapest()
    agree(choice, want)
    assert any(why == "NVIDIA H20 96GB has no value for price_per_hour" for _, _, why in choice.failing)
    del mod.GPUS["h20"]
    assert mod.cheapest().configurations == choice.configurations - 4


def test_the_numpy_flavour_decides_the_rows_at_once(built):
    """Every row with values is decided by the vectorised run; the rule at one configuration is left only the rows
    without an inner answer, whose words it computes when `failing` is read."""
    vec = _module(built, FIXTURE, True)
    calls = []
    rule = vec._config_cheapest

    def counted(*args):
        calls.append(args)
        return rule(*args)

    vec._config_cheapest = counted
    try:
        choice = vec.cheapest(tpot_target=40)
        assert calls == []
        choice.failing  # noqa: B018 - the words of the rows without an inner answer, now
        assert len(calls) == sum(1 for _, label, _ in choice.failing if label == "max_batch") > 0
    finally:
        vec._config_cheapest = rule


def test_generated_search_functions_are_lint_clean(built):
    assert_ruff_clean(built[2])


def test_a_large_grid_runs_vectorised(tmp_path):
    """24,000 configurations (4 GPUs x 4 TP degrees x 1,500 contexts, the largest batch that meets the target at each)
    run by the NumPy flavour's vectorised rows in one call, each row as the rule at one configuration makes it."""
    (tmp_path / "models").mkdir()
    text = (ROOT / FIXTURE).read_text().replace("name: searches\n", "name: contexts\n")
    text = text.replace("tp: [1, 2, 4, 8]}\n    with:", "tp: [1, 2, 4, 8], context: [1024, 2048]}\n    with:")
    (tmp_path / "models" / "contexts.yaml").write_text(text)
    options = BuildOptions(tmp_path / "out", numpy=True)
    reports, catalog = reports_for(Project(tmp_path), ["contexts"], options)
    vec = load(python_backend.build(reports, catalog, "py", options)[1])
    agree(vec.cheapest(), reports[0].searches["cheapest"])
    configs = vec._configurations((("h100-sxm", "h200", "l40s", "a100-sxm-80gb"), (1, 2, 4, 8), tuple(range(256, 256 + 1500 * 8, 8))))
    hardware = [vec._at_hardware({}, vec._hardware_cheapest, (c[0], vec.LLM)) for c in configs]
    start = time.perf_counter()
    rows = vec._vector_cheapest(configs, hardware, None, None, None, None, None, 0.5e-3, 20e-3, 0.5)
    seconds = time.perf_counter() - start
    decided = [j for j, r in enumerate(rows) if isinstance(r, tuple)]
    assert len(decided) > 5000 and all(isinstance(r, tuple) or r == "max_batch" for r in rows)
    vec._begin()
    for j in decided[:: len(decided) // 50]:  # a sample, by the rule at one configuration
        _, tp, context = configs[j]
        one = vec._config_cheapest(hardware[j], None, None, None, None, None, context, tp, 0.5e-3, 20e-3, 0.5)
        assert one[0] == rows[j][0] and one[2:5] == rows[j][2:5] and math.isclose(one[1][0], rows[j][1][0], rel_tol=REL)
    assert seconds < 10, f"{seconds:.1f} s"


def test_every_copied_definition_has_a_name_of_its_own():
    """The runtime's rules are copied under private names (`holds` -> `_holds`), beside the backend's own helpers: two
    definitions of one name would leave a module calling the wrong one (runtime.answer's `_holds` and a `holds` of
    runtime.choose did)."""
    import ast
    import inspect

    from chainc.backends.python import helpers, runtime

    names: dict[str, list[str]] = {}
    for module in runtime._RUNTIME:
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
                names.setdefault(runtime._private(name), []).append(module.__name__)
    for name, obj in vars(helpers).items():
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == helpers.__name__:
            names.setdefault(name, []).append(helpers.__name__)
    here = ROOT / "compiler" / "backends" / "python"
    for file in (here / "helpers_np.py", ROOT / "compiler" / "answer_np.py", here / "choose_np.py"):
        for node in ast.parse(file.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.setdefault(node.name, []).append(file)
    assert {n: where for n, where in names.items() if len(where) > 1} == {}


HOSTILE = """
name: hostile
title: variables named like what a search function calls
variables:
  enumerate: {value: 2, values: [1, 2, 4]}
  isinstance: {value: 3}
  tuple: {value: 1}
  h: {}
  j: {}
equations:
  - h = enumerate * isinstance + tuple
  - j = h / enumerate
questions:
  best: {find: enumerate, seek: min j}
frontiers:
  both: {x: max h, y: min j, over: {enumerate: [1, 2, 4], isinstance: [1, 3]}}
"""


@pytest.mark.parametrize("numpy", [False, True], ids=["python", "numpy"])
def test_variables_named_like_what_the_functions_call(tmp_path, numpy):
    """A variable named enumerate (or isinstance, tuple, j, h) is no builtin or comprehension variable of a search's functions."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "hostile.yaml").write_text(HOSTILE)
    options = BuildOptions(tmp_path / "out", numpy=True)
    reports, catalog = reports_for(Project(tmp_path), ["hostile"], options)
    mod = load(python_backend.build(reports, catalog, "py", options)[1 if numpy else 0])
    agree(mod.best(), reports[0].searches["best"])
    agree(mod.both(), reports[0].searches["both"])
    assert mod.best().best["enumerate"] == 4
