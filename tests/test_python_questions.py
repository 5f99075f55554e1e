"""Generated question functions follow compiler.ask on every path, in both flavours.

Small models written to a temporary project cover each way ask answers: the boundary
(feasible below or above it), a domain edge, rounding to a step or to whole numbers
(one step back for a strict condition on a step), a numeric boundary (max(), ceil()),
and the errors: infeasible and unbounded, with ask's message and hint.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest

from chainc import Project, ask
from chainc.backends import BuildOptions
from chainc.errors import ChaincError

from .test_python_backend import build, load
from .tools import assert_ruff_clean

ROOT = Path(__file__).resolve().parent.parent
REL = 1e-9

VARIANTS = """
name: variants
title: Question variants
about: Closed-form chains, one question per way ask can answer.
variables:
  x:
    value: 1
    domain: real
    description: an unknown without bounds
  rate:
    value: 2
    domain: real
  limit:
    value: 10
    domain: real
  y:
    domain: real
  w:
    value: 3
    min: 1
    max: 8
    description: an unknown with bounds
  yw:
    domain: real
  sq:
    domain: real
  s:
    value: 1
    domain: nonnegative
  ys:
    domain: real
equations:
  - y = rate * x
  - yw = rate * w
  - sq = (x - 5)**2
  - ys = rate * s
questions:
  max_le: {find: x, such_that: y <= limit, seek: max}
  min_ge: {find: x, such_that: y >= limit, seek: min}
  max_lt: {find: x, such_that: y < limit, seek: max}
  max_ge: {find: x, such_that: y >= limit, seek: max}
  min_le: {find: x, such_that: y <= limit, seek: min}
  max_lt_step: {find: x, such_that: y < limit, seek: max, step: 0.01}
  min_gt_step: {find: x, such_that: limit < y, seek: min, step: 0.01}
  max_le_step: {find: x, such_that: limit >= y, seek: max, step: 0.01}
  max_w_ge: {find: w, such_that: yw >= limit, seek: max}
  min_w_le: {find: w, such_that: yw <= limit, seek: min}
  max_w_le: {find: w, such_that: yw <= limit, seek: max}
  min_w_gt_step: {find: w, such_that: yw > limit, seek: min, step: 0.25}
  max_w_lt_step: {find: w, such_that: yw < limit, seek: max, step: 0.25}
  neither: {find: x, such_that: sq < 0, seek: max}
  both: {find: x, such_that: sq >= 0, seek: min}
  max_s: {find: s, such_that: ys <= limit, seek: max, step: 0.5}
  min_s: {find: s, such_that: ys >= limit, seek: min, step: 0.5}
"""

COUNTS = """
name: counts
title: Whole numbers and units
variables:
  n:
    value: 2
    integer: true
    min: 1
  m:
    value: 4
    integer: true
    min: 1
    max: 6
  unit_cost:
    unit: ms
    value: 3
  budget:
    unit: ms
    value: 10
  cost:
    unit: ms
  mcost:
    unit: ms
  span:
    unit: ms
    value: 20
  gap:
    unit: s
equations:
  - cost = n * unit_cost
  - mcost = m * unit_cost
  - gap = span * 2
questions:
  max_n: {find: n, such_that: cost <= budget, seek: max}
  min_n: {find: n, such_that: cost >= budget, seek: min}
  max_n_strict: {find: n, such_that: cost < budget, seek: max}
  min_n_strict: {find: n, such_that: cost > budget, seek: min}
  max_m: {find: m, such_that: mcost <= budget, seek: max}
  min_m: {find: m, such_that: mcost >= budget, seek: min}
  max_span: {find: span, such_that: "gap <= 1[s]", seek: max, step: 0.5}
  min_span: {find: span, such_that: "gap > 100[ms]", seek: min}
"""

SEARCHED = """
name: searched
title: Boundaries without a closed form
variables:
  load:
    value: 1
  demand: {}
  target:
    value: 30
  c: {}
  level:
    value: 25.5
equations:
  - demand = max(load, 2) * 3 + load
  - c = load + ceil(load / 10)
questions:
  max_load: {find: load, such_that: demand <= target, seek: max}
  max_load_step: {find: load, such_that: demand <= target, seek: max, step: 0.01}
  max_load_strict: {find: load, such_that: demand < target, seek: max}
  min_load: {find: load, such_that: c >= level, seek: min}
  min_load_step: {find: load, such_that: c >= level, seek: min, step: 0.1}
"""

MODELS = {"variants": VARIANTS, "counts": COUNTS, "searched": SEARCHED}

# (model, question, given, what ask answers: a display value, or a piece of its error message)
CASES = [
    # the boundary: seek max with the condition holding below it, seek min with it holding above
    ("variants", "max_le", {}, 5),
    ("variants", "max_le", {"limit": 1}, 0.5),
    ("variants", "min_ge", {}, 5),
    ("variants", "min_le", {"rate": -2}, -5),  # rate < 0: y <= limit holds above the boundary
    ("variants", "max_ge", {"rate": -2}, -5),
    # a domain edge: the condition holds on the far side of the boundary, or there is no boundary
    ("variants", "max_w_ge", {}, 8),
    ("variants", "min_w_le", {}, 1),
    ("variants", "max_w_le", {"limit": 100}, 8),  # the boundary (50) lies outside the domain
    ("variants", "max_w_lt_step", {"rate": -2}, 8),
    ("variants", "min_w_gt_step", {"limit": 1}, 1),
    ("variants", "max_w_le", {}, 5),
    # steps: floor for max, ceiling for min; a strict condition on a step goes one step back
    ("variants", "max_lt_step", {}, 4.99),
    ("variants", "min_gt_step", {}, 5.01),
    ("variants", "max_le_step", {}, 5),
    ("variants", "max_le_step", {"limit": 0.29, "rate": 1}, 0.29),  # 0.29 * 100 is 28.999999999999996 in floats
    ("variants", "max_lt_step", {"limit": 0.29, "rate": 1}, 0.28),
    ("variants", "max_lt_step", {"limit": 3, "rate": 3}, 0.99),
    ("variants", "min_w_gt_step", {}, 5.25),
    ("variants", "max_w_lt_step", {}, 4.75),
    ("variants", "max_s", {"limit": 3.3}, 1.5),
    ("variants", "min_s", {"limit": 3.3}, 2),
    # whole numbers, and units
    ("counts", "max_n", {}, 3),
    ("counts", "min_n", {}, 4),
    ("counts", "max_n_strict", {"budget": 9}, 2),
    ("counts", "min_n_strict", {"budget": 9}, 4),
    ("counts", "max_n", {"budget": 9}, 3),
    ("counts", "max_m", {"budget": 30}, 6),  # the boundary (10) is past max: 6
    ("counts", "min_m", {"budget": 2}, 1),
    ("counts", "max_span", {}, 500),
    ("counts", "max_span", {"unit_cost": 1}, 500),
    # numeric boundaries (max(), ceil()): rounded exactly; a strict one is nudged inward
    ("searched", "max_load", {}, 7.5),
    ("searched", "max_load", {"target": 31}, 7.75),
    ("searched", "max_load_step", {"target": 12.3}, 3.07),
    ("searched", "max_load_strict", {}, 7.4999999999925),
    ("searched", "min_load", {}, 22.5),
    ("searched", "min_load", {"level": 3.3}, 2.3),
    ("searched", "min_load_step", {"level": 3.3}, 2.3),  # c = load + 1 >= 3.3 from load = 2.3 exactly (the old numeric boundary landed above it)
    # infeasible
    ("variants", "max_w_le", {"limit": 1}, "no w meets yw <= limit: at w = 1, yw = 2 > limit = 1"),  # no boundary
    ("variants", "max_w_ge", {"rate": -2}, "no w meets yw >= limit: at w = 1"),
    ("variants", "neither", {}, "no x meets sq < 0: at x = "),  # the condition fails on both sides
    ("variants", "max_lt", {}, "no x meets y < limit: at x = 5, y = 10 >= limit = 10"),  # strict, no step: not at the boundary
    ("variants", "min_s", {"rate": -2}, "no s meets ys >= limit: at s = 0, ys = 0 < limit = 10"),
    ("counts", "max_n", {"budget": 2}, "no n meets cost <= budget: at n = 1, cost = 3 ms > budget = 2 ms"),
    ("counts", "min_span", {}, "no span meets gap > 100[ms]: at span = 50 ms, gap = 0.1 s <= 0.1"),
    ("searched", "max_load", {"target": 5}, "no load meets demand <= target: at load = 1"),
    ("searched", "max_load_step", {"target": 5}, "at load = 0.01"),
    # unbounded
    ("variants", "max_ge", {}, "there is no largest x; y >= limit holds for every value above x = 5"),
    ("variants", "min_le", {}, "there is no smallest x; y <= limit holds for every value below x = 5"),
    ("variants", "max_le", {"rate": -2}, "holds for every value above x = -5"),
    ("variants", "both", {}, "there is no smallest x; sq >= 0 holds for values on both sides of x = 5"),
    ("variants", "max_s", {"rate": -2}, "there is no largest s; ys <= limit holds for every value;"),
    # inputs outside their domain, before anything is solved
    ("variants", "max_s", {"w": 9}, "given w = 9 is outside its domain (positive, at least 1, at most 8); w is declared"),
    ("counts", "max_n", {"budget": -1}, "given budget = -1 ms is outside its domain (positive)"),
    ("counts", "max_span", {"n": 2.5}, "given n = 2.5 is not a whole number; n is declared positive integer, at least 1"),
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    root = tmp_path_factory.mktemp("questions")
    (root / "models").mkdir()
    try:
        (root / "hardware").symlink_to(ROOT / "hardware", target_is_directory=True)
    except OSError:
        shutil.copytree(ROOT / "hardware", root / "hardware")
    for name, text in MODELS.items():
        (root / "models" / f"{name}.yaml").write_text(text.lstrip())
    shutil.copy(ROOT / "models" / "goodput.yaml", root / "models" / "goodput.yaml")
    project = Project(root)
    paths = build(project, [project.model(n) for n in (*MODELS, "goodput")], "py", BuildOptions(root / "out", numpy=True))
    modules = {(p.stem.removesuffix("_np"), p.stem.endswith("_np")): load(p) for p in paths}
    return project, modules, paths


def solver(project, name: str, question: str, given: dict):
    """ask's answer in the display unit, or its error as the generated modules word it (message; hint)."""
    model = project.model(name)
    kw = {k: v for k, v in given.items() if k in ("gpu", "llm")}
    values = {k: v for k, v in given.items() if k not in kw}
    try:
        a = ask(model, question, values, project=project, **kw)
    except ChaincError as e:
        return None, f"{e.message}; {e.hint}"
    return a.base / model.variables[a.question.find].factor, None


def generated_answer(fn, given: dict):
    try:
        return fn(**given), None
    except ValueError as e:
        return None, str(e)


def case_id(case) -> str:
    name, question, given, _ = case
    return f"{name}.{question}" + "".join(f"-{k}={v}" for k, v in given.items())


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
@pytest.mark.parametrize("numpy", [False, True], ids=["py", "np"])
def test_question_agrees_with_ask(generated, case, numpy):
    project, modules, _ = generated
    name, question, given, claim = case
    expected, error = solver(project, name, question, given)
    # the case covers what it says
    if isinstance(claim, str):
        assert error is not None and claim in error, (claim, expected, error)
    else:
        assert error is None and math.isclose(float(expected), claim, rel_tol=REL), (claim, expected, error)
    mod = modules[(name, numpy)]
    got, got_error = generated_answer(getattr(mod, question), given)
    if error is not None:
        assert got_error == error
        with pytest.raises(mod.ChainError):
            getattr(mod, question)(**given)
        return
    assert got_error is None, got_error
    assert math.isclose(float(got), float(expected), rel_tol=REL, abs_tol=1e-300), (got, float(expected))
    var = project.model(name).variables[project.model(name).questions[question].find]
    # one point (scalar arguments): both flavours return a Python int for whole numbers, else a float
    assert type(got) is (int if var.domain.integer else float), (numpy, type(got))


def test_the_cases_cover_every_question(generated):
    project, _, _ = generated
    asked = {(name, q) for name, q, _, _ in CASES}
    for name in MODELS:
        for q in project.model(name).questions:
            assert (name, q) in asked, (name, q)


def test_how_ask_answers_the_cases(generated):
    """The paths the cases mean to cover, as Answer.how names them."""
    project, _, _ = generated
    hows = set()
    for name, question, given, claim in CASES:
        if not isinstance(claim, str):
            hows.add(ask(project.model(name), question, given, project=project).how.split(" ")[0])
    assert {"the", "floor", "ceiling"} <= hows
    how = ask(project.model("variants"), "max_lt_step", project=project).how
    assert "one step back" in how
    assert ask(project.model("variants"), "max_w_ge", project=project).how == "the largest allowed value"
    assert ask(project.model("variants"), "min_w_le", project=project).how == "the smallest allowed value"


def test_numeric_boundaries_are_searched(generated):
    project, _, paths = generated
    model = project.model("searched")
    for q in model.questions:
        a = ask(model, q, project=project)
        assert q and a.boundary_solution is not None and a.question.find in a.boundary_solution.numeric
    for p in paths:
        if p.stem.startswith("searched"):
            assert ("_search_np" if p.stem.endswith("_np") else "_bracket_root") in p.read_text()


def test_numpy_elements_take_their_own_paths(generated):
    """One array mixes the boundary, the edge, rounding and (per element) a failed boundary solve."""
    np = pytest.importorskip("numpy")
    project, modules, _ = generated
    for name, question, arg, values in (
        ("variants", "max_w_le", "limit", [10, 100, 4, 12.5]),
        ("variants", "max_w_lt_step", "limit", [10, 100, 4, 12.5, 0.25 * 2 * 9]),
        ("variants", "min_s", "limit", [10, 1, 3.3, 0.29]),
        ("counts", "max_n_strict", "budget", [10, 9, 18, 30.5]),
        ("counts", "min_n", "budget", [10, 9, 2, 0.5]),
        ("searched", "max_load_step", "target", [30, 31, 12.3]),
        ("searched", "min_load", "level", [25.5, 3.3, 40]),
    ):
        got = getattr(modules[(name, True)], question)(**{arg: np.array(values, dtype=float)})
        assert got.shape == (len(values),)
        for g, v in zip(got, values, strict=True):
            expected, error = solver(project, name, question, {arg: v})
            assert error is None, error
            assert math.isclose(g, float(expected), rel_tol=REL), (name, question, v, g, float(expected))
            assert math.isclose(g, getattr(modules[(name, False)], question)(**{arg: v}), rel_tol=REL)
    grid = modules[("variants", True)].max_le(rate=np.array([[2.0], [4.0]]), limit=np.array([10.0, 20.0, 30.0]))
    assert grid.shape == (2, 3) and np.allclose(grid, [[5, 10, 15], [2.5, 5, 7.5]], rtol=REL, atol=0)


def test_numpy_raises_for_the_first_element_without_an_answer(generated):
    np = pytest.importorskip("numpy")
    project, modules, _ = generated
    mod = modules[("variants", True)]
    _, error = solver(project, "variants", "max_w_le", {"limit": 0.5})
    with pytest.raises(mod.ChainError) as e:
        mod.max_w_le(limit=np.array([10, 0.5, 1.0]))
    assert str(e.value) == error
    _, error = solver(project, "variants", "max_le", {"rate": -2})
    with pytest.raises(ValueError) as e:
        mod.max_le(rate=np.array([2, -2, 4]))
    assert str(e.value) == error
    _, error = solver(project, "counts", "max_m", {"n": 0.5})
    with pytest.raises(ValueError) as e:
        modules[("counts", True)].max_m(n=np.array([1, 2, 0.5, -1]))
    assert str(e.value) == error
    _, error = solver(project, "variants", "max_ge", {"limit": 3})
    with pytest.raises(ValueError) as e:
        mod.max_ge(limit=np.array([3, 4]))
    assert str(e.value) == error


def test_infeasible_message_names_the_hardware(generated):
    project, modules, _ = generated
    _, error = solver(project, "goodput", "max_batch", {"llm": "llama-3.3-70b"})
    assert "meets the condition on NVIDIA H100 SXM5 80GB with Llama 3.3 70B (searched every positive whole number); change another input or the target" in error
    for numpy in (False, True):
        with pytest.raises(ValueError) as e:
            modules[("goodput", numpy)].max_batch(llm="llama-3.3-70b")
        assert str(e.value) == error
    assert modules[("goodput", False)].max_batch() == 64 and type(modules[("goodput", False)].max_batch()) is int
    for target in (5, 10, 12.5, 15):
        expected, _ = solver(project, "goodput", "max_batch", {"tpot_target": target, "gpu": "h200"})
        assert modules[("goodput", False)].max_batch(tpot_target=target, gpu="h200") == expected


def test_generated_question_modules_lint_clean(generated):
    _, _, paths = generated
    assert_ruff_clean(paths)
