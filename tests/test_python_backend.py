"""The Python backend: generated modules agree with the solver, stay standalone, lint clean, build deterministically."""

from __future__ import annotations

import ast
import importlib.util
import itertools
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chainc import ask, solve
from chainc.backends import BuildOptions
from chainc.backends import python as python_backend
from chainc.backends.python import module_name
from chainc.build import reports_for
from chainc.errors import ChaincError

from .tools import assert_ruff_clean

REL = 1e-9
# catalog choices to compare on, besides each model's defaults
GPUS = ("h200", "a100-sxm-80gb")
LLMS = ("llama-3.3-70b", "qwen2.5-7b")

_counter = itertools.count()


def build(project, models, fmt: str, options: BuildOptions) -> list[Path]:
    """Evaluate the models into Reports as `chainc build` does, then print them with the Python backend."""
    reports, catalog = reports_for(project, [m.name for m in models], options)
    return python_backend.build(reports, catalog, fmt, options)


def load(path: Path):
    """Import a generated file under a fresh module name."""
    name = f"_chainc_generated_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def close(a, b, rel=REL) -> bool:
    if isinstance(a, str) or isinstance(b, str):  # a choice's name (lookups:)
        return a == b
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-300) or (float(a) == 0 == float(b))


@pytest.fixture(scope="module")
def built(project, tmp_path_factory):
    out = tmp_path_factory.mktemp("py")
    models = [project.model(n) for n in project.model_names()]
    paths = build(project, models, "py", BuildOptions(out, numpy=True))
    return out, paths


def choices(model):
    """Keyword sets to compare on: the defaults, then other GPUs and LLMs where the model uses them."""
    out = [{}]
    if model.gpu:
        out += [{"gpu": g} for g in GPUS]
    if model.llm:
        out += [{"llm": m} for m in LLMS]
    if model.gpu and model.llm:
        out.append({"gpu": GPUS[0], "llm": LLMS[0]})
    return out


def outcome(f):
    """f()'s value, or the ValueError it raised."""
    try:
        return f()
    except ValueError as e:
        return e


def model_names() -> list[str]:
    return sorted(p.stem for p in (Path(__file__).resolve().parent.parent / "models").glob("*.yaml"))


def test_one_module_per_chain(built, project):
    out, paths = built
    names = {p.name for p in paths}
    for n in project.model_names():
        assert f"{n.replace('-', '_')}.py" in names
        assert f"{n.replace('-', '_')}_np.py" in names
    assert (out / "hol_blocking.py").is_file() and (out / "goodput.py").is_file()
    for p in paths:
        assert p.stem.isidentifier()


@pytest.mark.parametrize("name", model_names())
def test_solve_and_questions_agree_with_the_solver(built, project, name):
    out, _ = built
    model = project.model(name)
    mod = load(out / f"{module_name(model)}.py")
    compared = 0
    for kw in choices(model):
        expected = outcome(lambda kw=kw: solve(model, project=project, **kw))
        got = outcome(lambda kw=kw: mod.solve(**kw))
        if isinstance(expected, ValueError) or isinstance(expected, ArithmeticError):
            assert isinstance(got, ValueError), (kw, got)
            continue
        assert not isinstance(got, Exception), (kw, got)
        for n in model.variables:
            assert close(getattr(got, n), expected.value(n)), (kw, n, getattr(got, n), expected.value(n))
            compared += 1
        for t, rows in expected.tables.items():
            records = getattr(got, t)
            assert len(records) == len(rows)
            for rec, row in zip(records, rows, strict=True):
                for c in model.tables[t].columns:
                    assert close(getattr(rec, c.name), c.to_display(row[c.name])), (kw, t, c.name)
                    compared += 1
        for q in model.questions:
            try:
                a = ask(model, q, project=project, **kw)
            except ChaincError:
                with pytest.raises(ValueError):
                    getattr(mod, q)(**kw)
                continue
            var = model.variables[a.question.find]
            assert close(getattr(mod, q)(**kw), var.to_display(a.base)), (kw, q)
    assert compared > 0


def test_inputs_in_display_units(built, project):
    out, _ = built
    model = project.model("goodput")
    mod = load(out / "goodput.py")
    got = mod.solve(batch=128, tpot_target=12, bandwidth=4.8)
    expected = solve(model, {"batch": 128, "tpot_target": "12 ms", "bandwidth": "4.8 TB/s"}, project=project)
    for n in model.variables:
        assert close(getattr(got, n), expected.value(n)), n
    assert close(mod.max_batch(tpot_target=15), model.variables["batch"].to_display(ask(model, "max_batch", {"tpot_target": "15 ms"}, project=project).value))


def test_p99_question_rounds_to_its_step(built, project):
    mod = load(built[0] / "p99_knee.py")
    assert mod.max_utilization() == pytest.approx(0.69, rel=1e-12)
    model = project.model("p99-knee")
    for target in (0.5, 2, 10):
        expected = ask(model, "max_utilization", {"p99_target": target}, project=project).value
        assert close(mod.max_utilization(p99_target=target), expected)


def test_infeasible_question_raises_with_the_numbers(built, project):
    mod = load(built[0] / "goodput.py")
    with pytest.raises(ChaincError):
        ask(project.model("goodput"), "max_batch", llm="llama-3.3-70b", project=project)
    with pytest.raises(ValueError, match=r"no batch meets tpot <= tpot_target: at batch = 1, tpot = [\d.]+ ms/token > tpot_target = 10 ms/token") as e:
        mod.max_batch(llm="llama-3.3-70b")
    assert "Llama 3.3 70B" in str(e.value)
    assert isinstance(e.value, mod.ChainError)


def test_catalog_values_and_switching(built, project):
    mod = load(built[0] / "goodput.py")
    assert mod.GPU == "h100-sxm" and mod.LLM == "llama-3.1-8b"
    assert mod.GPU_MEMORY_BANDWIDTH == pytest.approx(3.35)
    assert set(mod.GPUS) == set(project.catalog.ids("gpu"))
    assert set(mod.LLMS) == set(project.catalog.ids("llm"))
    with pytest.raises(ValueError, match="unknown GPU 'nope'"):
        mod.solve(gpu="nope")
    mod.GPUS["mine"] = {"memory_bandwidth": 6.0, "memory": 80.0}
    assert close(mod.solve(gpu="mine").bandwidth, 6.0)
    assert close(mod.solve(bandwidth=6.0).tpot, mod.solve(gpu="mine").tpot)


def test_imported_models_are_inlined(built, project):
    out, _ = built
    for name, alias_var in (("long-prompt", "decode_tpot"), ("kv-ceiling", "in_system")):
        model = project.model(name)
        mod = load(out / f"{module_name(model)}.py")
        for kw in choices(model):
            assert close(getattr(mod.solve(**kw), alias_var), solve(model, project=project, **kw).value(alias_var)), (name, kw)
        tree = ast.parse((out / f"{module_name(model)}.py").read_text())
        imported = {a.name for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)) for a in node.names}
        assert not imported & {"goodput", "littles_law"}


def test_custom_direction_batch_from_tpot(project, tmp_path):
    model = project.model("goodput")
    (path,) = build(project, [model], "py", BuildOptions(tmp_path, find=("batch",), given={"tpot": "10ms"}))
    mod = load(path)
    assert "batch_from_tpot" in mod.__all__
    for tpot, kw in ((10, {}), (12.5, {}), (9.0, {"gpu": "h200"}), (20, {"llm": "qwen2.5-7b"})):
        expected = solve(model, {"tpot": f"{tpot} ms"}, ("batch",), project=project, **kw)
        got = mod.batch_from_tpot(tpot, **kw)
        for n in model.variables:
            assert close(getattr(got, n), expected.value(n)), (tpot, kw, n)
    assert close(mod.batch_from_tpot().batch, solve(model, {"tpot": "10ms"}, ("batch",), project=project).value("batch"))


@pytest.mark.parametrize(
    ("name", "given", "find", "fname"),
    [
        ("long-prompt", {"prefill_time": "3 s"}, ("prompt_tokens",), "prompt_tokens_from_prefill_time"),
        ("hol-blocking", {"fcfs_mean_ttft": "2 s"}, ("mfu",), "mfu_from_fcfs_mean_ttft"),
        ("long-prompt", {"worst_itl": "700 ms"}, ("mfu",), "mfu_from_worst_itl"),
    ],
)
def test_custom_direction_through_a_table_is_a_numeric_search(project, tmp_path, name, given, find, fname):
    """No closed form (the unknown feeds a table): the module carries a bracketed search, and agrees with the solver."""
    model = project.model(name)
    expected = solve(model, given, find, project=project)
    assert expected.numeric, "expected a numeric step"
    (path,) = build(project, [model], "py", BuildOptions(tmp_path, find=find, given=given))
    assert "_bracket_root" in path.read_text()
    mod = load(path)
    got = getattr(mod, fname)()
    for n in model.variables:
        assert close(getattr(got, n), expected.value(n), rel=1e-9), n
    for t, rows in expected.tables.items():
        for rec, row in zip(getattr(got, t), rows, strict=True):
            for c in model.tables[t].columns:
                assert close(getattr(rec, c.name), c.to_display(row[c.name]), rel=1e-9), (t, c.name)
    (gname,) = given
    value = float(given[gname].split()[0]) * 1.2
    unit = given[gname].split()[1]
    other = solve(model, {gname: f"{value} {unit}"}, find, project=project)
    moved = getattr(mod, fname)(value)
    for f in find:
        assert close(getattr(moved, f), other.value(f), rel=1e-9), f


def test_a_query_with_no_exact_root_raises_like_the_solver(project, tmp_path):
    model = project.model("goodput")
    with pytest.raises(ChaincError, match="no value of batch"):
        solve(model, {"goodput": "7000 token/s"}, ("batch",), project=project)  # above the 6,497 token/s at the cliff
    (path,) = build(project, [model], "py", BuildOptions(tmp_path, find=("batch",), given={"tpot": "10 ms"}))
    mod = load(path)
    with pytest.raises(ValueError):
        mod.batch_from_tpot(1e-6)  # below the weights' own read time: batch would be negative


def test_numpy_flavour_matches_the_scalar_one(built):
    np = pytest.importorskip("numpy")
    out, _ = built
    scalar = load(out / "goodput.py")
    vec = load(out / "goodput_np.py")
    batch = np.arange(1, 201, dtype=float)
    s = vec.solve(batch=batch)
    for i, b in enumerate(batch):
        one = scalar.solve(batch=float(b))
        for n in ("step_bytes", "tpot", "throughput", "goodput"):
            assert close(getattr(s, n)[i], getattr(one, n)), (b, n)
    targets = np.array([5.0, 10.0, 12.5, 30.0])
    assert np.allclose(vec.max_batch(tpot_target=targets), [scalar.max_batch(tpot_target=float(t)) for t in targets], rtol=REL, atol=0)
    with pytest.raises(ValueError):
        vec.max_batch(tpot_target=np.array([10.0, 0.5]))
    p99s = load(out / "p99_knee.py")
    p99v = load(out / "p99_knee_np.py")
    util = np.linspace(0.05, 0.95, 19)
    got = p99v.solve(utilization=util)
    for i, u in enumerate(util):
        assert close(got.p99_ttft[i], p99s.solve(utilization=float(u)).p99_ttft)
    targets = np.array([0.5, 1.0, 2.0])
    assert np.allclose(p99v.max_utilization(p99_target=targets), [p99s.max_utilization(p99_target=float(t)) for t in targets], rtol=REL, atol=0)


def test_numpy_flavour_vectorises_tables(built):
    """A table runs row by row over all points; a point with fewer rows has NaN past them."""
    np = pytest.importorskip("numpy")
    out, _ = built
    scalar = load(out / "hol_blocking.py")
    vec = load(out / "hol_blocking_np.py")
    budgets = np.array([2048.0, 4096.0, 8192.0, 16384.0, 5000.0])
    got = vec.solve(budget=budgets)
    for i, b in enumerate(budgets):
        one = scalar.solve(budget=float(b))
        for n in ("steps", "fcfs_mean_ttft", "sorted_mean_ttft", "steps_before_short", "long_delay"):
            assert close(getattr(got, n)[i], getattr(one, n)), (b, n)
        for t in ("fcfs", "sorted"):
            rows, records = getattr(one, t), getattr(got, t)
            assert len(records) == max(len(getattr(scalar.solve(budget=float(x)), t)) for x in budgets)
            for k, rec in enumerate(records):
                for c in rec._fields:
                    value = getattr(rec, c)[i]
                    assert (k >= len(rows) and math.isnan(value)) or close(value, getattr(rows[k], c)), (b, t, k, c)
    text = (out / "hol_blocking_np.py").read_text()
    assert "np.vectorize" not in text and "for _i in np.ndindex" not in text


@pytest.mark.parametrize(
    ("name", "given", "find", "fname", "values"),
    [
        ("hol-blocking", {"fcfs_mean_ttft": "2 s"}, ("mfu",), "mfu_from_fcfs_mean_ttft", [1.5, 2.0, 3.0, 2.5]),
        ("long-prompt", {"prefill_time": "3 s"}, ("prompt_tokens",), "prompt_tokens_from_prefill_time", [1.0, 3.0, 4.5, 0.5]),
    ],
)
def test_numpy_searches_bisect_every_point_together(project, tmp_path, name, given, find, fname, values):
    np = pytest.importorskip("numpy")
    model = project.model(name)
    paths = build(project, [model], "py", BuildOptions(tmp_path, find=find, given=given, numpy=True))
    scalar, vec = (load(p) for p in paths)
    got = getattr(vec, fname)(np.array(values))
    for i, v in enumerate(values):
        one = getattr(scalar, fname)(v)
        for n in model.variables:
            assert close(np.broadcast_to(getattr(got, n), (len(values),))[i], getattr(one, n)), (v, n)
    assert "np.vectorize" not in paths[1].read_text()


def test_only_the_standard_library(built):
    out, paths = built
    for p in paths:
        tree = ast.parse(p.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                roots = [a.name.split(".")[0] for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                roots = [(node.module or "").split(".")[0]]
            else:
                continue
            allowed = set(sys.stdlib_module_names) | {"__future__"} | ({"numpy"} if p.stem.endswith("_np") else set())
            assert set(roots) <= allowed, (p.name, roots)


def test_ruff_check_and_format(built):
    out, paths = built
    assert_ruff_clean(paths)


def test_deterministic(project, tmp_path):
    models = [project.model(n) for n in project.model_names()]
    a = build(project, models, "py", BuildOptions(tmp_path / "a", numpy=True))
    b = build(project, models, "py", BuildOptions(tmp_path / "b", numpy=True))
    assert [p.name for p in a] == [p.name for p in b]
    for pa, pb in zip(a, b, strict=True):
        assert pa.read_bytes() == pb.read_bytes(), pa.name


def test_deterministic_across_processes(tmp_path):
    """Hash seeds differ between processes; the output must not."""
    root = Path(__file__).resolve().parent.parent
    for i, seed in enumerate(("1", "2")):
        subprocess.run(
            [sys.executable, "-m", "compiler", "build", "goodput", "hol-blocking", "--format", "py", "--numpy", "--out", str(tmp_path / str(i))],
            cwd=root,
            check=True,
            capture_output=True,
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
        )
    for p in sorted((tmp_path / "0").iterdir()):
        assert p.read_bytes() == (tmp_path / "1" / p.name).read_bytes(), p.name


def test_module_docstring_and_documentation(built, project):
    out, _ = built
    import chainc

    mod = load(out / "goodput.py")
    assert mod.__doc__.startswith("Goodput at a TPOT target")
    assert f"chainc {chainc.__version__}" in mod.__doc__
    assert "[ms/token]" in mod.solve.__doc__ and "[ms/token]" in mod.max_batch.__doc__
    assert mod.solve.__annotations__["batch"] == "float"
    import dataclasses

    assert dataclasses.is_dataclass(mod.Solution)
    with pytest.raises(dataclasses.FrozenInstanceError):
        mod.solve().batch = 3


def test_query_modules_lint_clean(project, tmp_path):
    paths = []
    for name, given, find in (("long-prompt", {"prefill_time": "3 s"}, ("prompt_tokens",)), ("hol-blocking", {"fcfs_mean_ttft": "2 s"}, ("mfu",)), ("goodput", {"tpot": "10ms"}, ("batch",))):
        paths += build(project, [project.model(name)], "py", BuildOptions(tmp_path / name, find=find, given=given, numpy=True))
    assert_ruff_clean(paths)


HOSTILE = r"""
name: hostile-text
title: 'Quotes QQQ and \ backslashes QQQ'
about: |
  A docstring breaker: QQQ then \QQQ and TRIPLE and a trailing quote"
  {braces} %s # not a comment
  import os; os.system("echo pwned")
variables:
  float:
    value: 2
    description: 'shadows a builtin QQQ; raise SystemExit  # \n'
  match:
    unit: ms
    value: 3
    description: "a soft keyword\r\nwith a carriage return and a form\ffeed"
  len:
    unit: s
    description: "TRIPLE"
  type:
    description: "\0 nul \x07 bell \u2028 separator \e escape"
equations:
  - len = float * match
  - type = len / 1[s] + 1
questions:
  max_float:
    ask: 'The largest float QQQ whose len stays under 1 s'
    find: float
    such_that: len <= 1[s]
    seek: max
    step: 0.5
""".replace("TRIPLE", "'" * 3).replace("QQQ", '"' * 3)


def test_model_text_cannot_break_out(project, tmp_path):
    from chainc import Project

    root = tmp_path / "proj"
    shutil.copytree(project.root / "hardware", root / "hardware")
    (root / "models").mkdir()
    (root / "models" / "hostile-text.yaml").write_text(HOSTILE.lstrip())
    p = Project(root)
    model = p.model("hostile-text")
    (path,) = build(p, [model], "py", BuildOptions(tmp_path / "out"))
    assert path.name == "hostile_text.py"
    mod = load(path)
    assert 'Quotes """ and \\ backslashes' in mod.__doc__
    assert "os.system" in mod.__doc__
    tree = ast.parse(path.read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import) and any(a.name == "os" for a in n.names)]
    s = mod.solve(float_=4, match=5)
    expected = solve(model, {"float": 4, "match": 5}, project=p)
    for n, field in (("float", "float_"), ("match", "match"), ("len", "len_"), ("type", "type")):
        assert close(getattr(s, field), expected.value(n)), n
    assert close(mod.max_float(), ask(model, "max_float", project=p).value)
    assert_ruff_clean([path])
