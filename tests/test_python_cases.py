"""The Python backend on the cases that used to break it: domains, LambertW, one-column tables, names, gaps.

Each generated module is compared with the solver (or with what the CLI prints)
in both flavours where the case has numbers.
"""

from __future__ import annotations

import dataclasses
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chainc import Project, ask, solve
from chainc import program as P
from chainc.backends import BuildOptions
from chainc.backends import python as python_backend
from chainc.build import reports_for
from chainc.errors import ChaincError

from .test_python_backend import build, close, load
from .tools import assert_ruff_clean

ROOT = Path(__file__).resolve().parent.parent


def project_with(tmp_path: Path, models: dict[str, str]) -> Project:
    root = tmp_path / "proj"
    (root / "models").mkdir(parents=True)
    shutil.copytree(ROOT / "hardware", root / "hardware")
    for name, text in models.items():
        (root / "models" / f"{name}.yaml").write_text(text.lstrip())
    return Project(root)


def cli_error(*args: str) -> str:
    """What `chainc ARGS` prints for an error, as the generated modules word it: 'message; hint'."""
    run = subprocess.run([sys.executable, "-m", "compiler", *args], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2, run.stdout + run.stderr
    lines = run.stderr.splitlines()
    message = next(line.split(": error: ", 1)[1] for line in lines if ": error: " in line)
    hint = next(line.removeprefix("hint: ") for line in lines if line.startswith("hint: "))
    return f"{message}; {hint}"


@pytest.fixture(scope="module")
def goodput(project, tmp_path_factory):
    paths = build(project, [project.model("goodput")], "py", BuildOptions(tmp_path_factory.mktemp("goodput"), numpy=True))
    return [load(p) for p in paths]


@pytest.mark.parametrize(("given", "kwargs"), [("tpot_target=-1ms", {"tpot_target": -1}), ("batch=64.5", {"batch": 64.5}), ("context=0", {"context": 0})])
def test_generated_inputs_are_checked_as_the_cli_checks_them(goodput, given, kwargs):
    expected = cli_error("solve", "goodput", "--given", given)
    for mod in goodput:
        for fn in (mod.solve, mod.max_batch if "batch" not in kwargs else mod.solve):
            with pytest.raises(mod.ChainError) as e:
                fn(**kwargs)
            assert str(e.value) == expected
    np = pytest.importorskip("numpy")
    ((name, value),) = kwargs.items()
    with pytest.raises(goodput[1].ChainError) as e:  # the first bad element of an array raises the same
        goodput[1].solve(**{name: np.array([12.0, value, value + 1])})
    assert str(e.value) == expected


def test_catalog_defaults_are_checked_as_defaults(goodput, project, tmp_path):
    """A catalog value outside the variable's domain is a 'default' in the message, as in the solver's."""
    scalar = goodput[0]
    scalar.GPUS["broken"] = {"memory_bandwidth": -1.0, "memory": 80.0}
    with pytest.raises(scalar.ChainError, match=r"^default bandwidth = -1 TB/s is outside its domain \(positive\); bandwidth is declared positive$"):
        scalar.solve(gpu="broken")
    with pytest.raises(scalar.ChainError, match="^given bandwidth = -2 TB/s"):
        scalar.solve(gpu="broken", bandwidth=-2)
    scalar.GPUS["empty"] = {"memory_bandwidth": None, "memory": 80.0}
    with pytest.raises(scalar.ChainError, match="^empty has no value for memory_bandwidth; its catalog entry marks it as not available; pick another GPU$"):
        scalar.solve(gpu="empty")
    with pytest.raises(ChaincError) as expected:
        solve(project.model("goodput"), gpu="h100", project=project)
    with pytest.raises(scalar.ChainError) as e:
        scalar.solve(gpu="h100")
    assert str(e.value) == f"{expected.value.message}; {expected.value.hint}"


def test_an_infeasible_question_raises_the_solvers_message(project, tmp_path):
    """goodput on llama-3.3-70b: the weights alone take longer than the target; the module says so as the solver does."""
    options = BuildOptions(tmp_path, numpy=True, llm="llama-3.3-70b")
    reports, catalog = reports_for(project, ["goodput"], options)
    error = reports[0].answers["max_batch"]
    assert isinstance(error, ChaincError)
    expected = f"{error.message}; {error.hint}"
    assert expected == cli_error("solve", "goodput", "--llm", "llama-3.3-70b", "--question", "max_batch")
    for path in python_backend.build(reports, catalog, "py", options):
        mod = load(path)
        assert mod.LLM == "llama-3.3-70b"
        with pytest.raises(mod.ChainError) as e:
            mod.max_batch()
        assert str(e.value) == expected
        assert close(mod.max_batch(llm="llama-3.1-8b"), 64)


LAMBERT = """
name: lambert
title: A closed form through LambertW
variables:
  a: {value: 2}
  b: {}
equations:
  - a = b * exp(b)
"""


def test_lambertw_closed_form(tmp_path):
    p = project_with(tmp_path, {"lambert": LAMBERT})
    model = p.model("lambert")
    assert "LambertW" in str(solve(model, {"a": 3}, ("b",), project=p).formulas["b"])
    paths = build(p, [model], "py", BuildOptions(tmp_path / "out", find=("b",), given={"a": "3"}, numpy=True))
    scalar, vec = (load(path) for path in paths)
    assert "def _lambertw(" in paths[0].read_text() and "def _lambertw_np(" in paths[1].read_text()
    for a in (0.001, 0.5, 2, 3, 10, 1e6):
        expected = solve(model, {"a": a}, ("b",), project=p).value("b")
        assert close(scalar.b_from_a(a).b, expected), a
        assert close(vec.b_from_a(a).b, expected), a
    np = pytest.importorskip("numpy")
    values = np.array([0.001, 0.5, 2, 3, 10, 1e6])
    got = vec.b_from_a(values).b
    for x, g in zip(values, got, strict=True):
        assert close(g, scalar.b_from_a(float(x)).b)
    assert close(scalar.solve().b, solve(model, project=p).value("b"))
    assert_ruff_clean(paths)


ONE_COLUMN = """
name: one-column
title: A table of one column
variables:
  n: {value: 4, integer: true}
  unit: {value: 2.5}
  total: {}
tables:
  costs:
    rows: n
    columns:
      cost:
        formula: i * unit + prev.cost
equations:
  - total = sum(costs.cost)
"""


def test_one_column_table(tmp_path):
    p = project_with(tmp_path, {"one-column": ONE_COLUMN})
    model = p.model("one-column")
    paths = build(p, [model], "py", BuildOptions(tmp_path / "out", numpy=True))
    scalar, vec = (load(path) for path in paths)
    for n in (1, 4, 7):
        expected = solve(model, {"n": n}, project=p)
        got = scalar.solve(n=n)
        assert close(got.total, expected.value("total"))
        assert [r.cost for r in got.costs] == pytest.approx([float(r["cost"]) for r in expected.tables["costs"]], rel=1e-12)
        assert close(vec.solve(n=n).total, expected.value("total"))
    np = pytest.importorskip("numpy")
    got = vec.solve(n=np.array([1, 4, 7]))
    assert np.allclose(got.total, [scalar.solve(n=k).total for k in (1, 4, 7)], rtol=1e-12)
    assert math.isnan(got.costs[3].cost[0]) and close(got.costs[3].cost[1], scalar.solve(n=4).costs[3].cost)
    assert_ruff_clean(paths)


NAMES = """
name: NAME
title: Names that shadow what a module uses
variables:
  round: {value: 3}
  math: {value: 2}
  float: {value: 1.5}
  solve: {value: 4}
  rows: {value: 2, integer: true}
  pick: {}
  answer: {}
tables:
  t:
    rows: rows
    columns:
      len:
        formula: prev.len + round
equations:
  - pick = round * math + float + solve
  - answer = sum(t.len) + pick
questions:
  sorted:
    find: round
    such_that: pick <= 20
    seek: max
    step: 0.5
"""


@pytest.mark.parametrize(("model_name", "module"), [("names", "names"), ("math", "math_chain"), ("numpy", "numpy_chain"), ("2fast", "chain_2fast")])
def test_names_that_shadow_builtins_modules_and_helpers(tmp_path, model_name, module):
    p = project_with(tmp_path, {model_name: NAMES.replace("NAME", model_name)})
    model = p.model(model_name)
    paths = build(p, [model], "py", BuildOptions(tmp_path / "out", numpy=True))
    assert [path.name for path in paths] == [f"{module}.py", f"{module}_np.py"]
    expected = solve(model, {"round": 2}, project=p)
    for path in paths:
        mod = load(path)
        got = mod.solve(round_=2)
        for n, field in (("pick", "pick"), ("answer", "answer"), ("float", "float_"), ("math", "math_"), ("solve", "solve"), ("round", "round_")):
            assert close(getattr(got, field), expected.value(n)), (path.name, n)
        assert close(mod.sorted_(), ask(model, "sorted", project=p).value), path.name
        assert "sorted_" in mod.__all__ and callable(mod.solve)
    assert_ruff_clean(paths)


def test_two_models_with_one_module_name_fail_before_writing(tmp_path):
    text = "name: NAME\ntitle: t\nvariables:\n  x: {value: 1}\n  y: {}\nequations:\n  - y = 2 * x\n"
    p = project_with(tmp_path, {"b-mangle": text.replace("NAME", "b-mangle"), "b.mangle": text.replace("NAME", "b.mangle")})
    out = tmp_path / "out"
    with pytest.raises(python_backend.PythonBackendError, match=r"models 'b-mangle' .* and 'b.mangle' .* both compile to the Python module b_mangle.py"):
        build(p, [p.model("b-mangle"), p.model("b.mangle")], "py", BuildOptions(out))
    assert not out.exists() or not any(out.iterdir())


def test_what_cannot_be_printed_is_one_located_error(project):
    """A hand-made Program with functions no printer knows: one error naming each, its place and the backend."""
    reports, catalog = reports_for(project, ["goodput"], BuildOptions(Path("unused")))
    report = reports[0]
    program = report.solution.program
    body = list(program.body)
    i, _, k = [n for n, s in enumerate(body) if isinstance(s, P.Assign)][:3]  # the first and third assignments
    body[i] = dataclasses.replace(body[i], expr=P.Call("bessel", (P.Ref("batch"),)))
    body[k] = dataclasses.replace(body[k], expr=P.Call("gamma", (P.Ref("batch"), P.Ref("context"))))
    broken = dataclasses.replace(program, body=tuple(body))
    report = dataclasses.replace(report, solution=dataclasses.replace(report.solution, program=broken))
    for numpy, backend in ((False, "Python"), (True, "NumPy")):
        with pytest.raises(python_backend.PythonBackendError) as e:
            python_backend.render(report, catalog, BuildOptions(Path("unused")), numpy=numpy)
        err = e.value
        assert isinstance(err, ChaincError) and isinstance(err, ValueError)
        assert err.message.startswith(f"the {backend} backend cannot print 2 constructs of model 'goodput': ")
        assert "models/goodput.yaml:81:5: the function bessel() with 1 argument (line 81: step_bytes = " in err.message
        assert "models/goodput.yaml:84:5: the function gamma() with 2 arguments (line 84: throughput = batch / tpot)" in err.message
        assert (err.loc.path, err.loc.line, err.loc.col) == ("models/goodput.yaml", 81, 5)
        assert "Traceback" not in err.render()


def test_a_reports_question_programs_are_the_ones_its_answers_ran(project):
    reports, _ = reports_for(project, ["goodput", "p99-knee"], BuildOptions(Path("unused")))
    for report in reports:
        for name, asking in report.asking.items():
            answer = report.answers[name]
            assert asking.at is answer.solution.program
            if asking.question.parts:  # several conditions: the boundary is the binding part's
                part = dict(asking.question.parts)[answer.binding[0]]
                assert report.asking[part].boundary is answer.boundary_solution.program
                continue
            assert asking.boundary is answer.boundary_solution.program
            assert asking.closed == answer.rounding.closed


NO_INPUTS = """
name: no-inputs
title: A question with nothing to give
variables:
  x: {value: 1}
  y: {}
equations:
  - y = 2 * x
questions:
  max_x: {find: x, such_that: y <= 10, seek: max}
"""


def test_a_question_without_inputs(tmp_path):
    p = project_with(tmp_path, {"no-inputs": NO_INPUTS})
    model = p.model("no-inputs")
    paths = build(p, [model], "py", BuildOptions(tmp_path / "out", numpy=True))
    expected = ask(model, "max_x", project=p).value
    for path in paths:
        assert close(load(path).max_x(), expected), path.name
    assert_ruff_clean(paths)


JOINT = """
name: joint
title: Two unknowns searched together
variables:
  a: {value: 3}
  x: {domain: real}
  y: {domain: real}
equations:
  - x + exp(y) = a
  - y + exp(x) = a
"""


def test_the_cli_reports_what_cannot_be_printed_and_writes_nothing(tmp_path):
    """A block of two unknowns searched jointly (mpmath in the solver) has no standard-library form."""
    p = project_with(tmp_path, {"joint": JOINT})
    assert close(solve(p.model("joint"), project=p).value("x"), 0.792059968430677)
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, "-m", "compiler", "--root", str(p.root), "build", "joint", "--format", "py", "--out", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2, run.stderr
    assert "joint.yaml:8:5: error: the Python backend cannot print a numeric block of 2 unknowns (x, y) solved jointly (line 8: x + exp(y) = a) in model 'joint'" in run.stderr
    assert "Traceback" not in run.stderr
    assert not list(out.rglob("*.py"))


ROOT_AT_ZERO = """
name: root-at-zero
title: A numeric root at exactly 0
variables:
  a3: {unit: percent, value: 0.5}
  a4: {unit: percent, domain: real}
equations:
  - a4 + min(a4, a3) = a3 - a3
"""


def test_a_numeric_root_at_zero_is_zero_in_numpy(tmp_path):
    """The NumPy search bisected a bracket around 0 down to 3.4e-89 (relative steps never reach 0), where the scalar
    rule's grid has the point 0 and finds the root exactly (found by the agreement grammar)."""
    p = project_with(tmp_path, {"root-at-zero": ROOT_AT_ZERO})
    scalar, vec = (load(path) for path in build(p, [p.model("root-at-zero")], "py", BuildOptions(tmp_path / "out", numpy=True)))
    np = pytest.importorskip("numpy")
    assert scalar.solve().a4 == 0 and vec.solve().a4 == 0
    assert list(vec.solve(a3=np.array([2.0, 0.5, 7.0])).a4) == [0.0, 0.0, 0.0]


DIVISION_IN_A_SEARCH = """
name: division-in-a-search
title: A numeric block whose equation divides by an input
variables:
  a0: {unit: token, value: 2, min: 2}
  a1: {unit: s, value: 2, domain: nonnegative, max: 2}
  a5: {unit: token, domain: real}
equations:
  - "a5 + min(a5, a0) = if(2[token] <= 7[ms*token] / a1, a0 / 2, a0 / 3)"
questions:
  q0: {find: a1, such_that: "a5 >= a0", seek: min}
"""


def test_a_division_by_zero_in_a_searched_equation_has_no_value_in_numpy_too(tmp_path):
    """At a1 = 0 every trial of the search for a5 divides by zero: no value of a5 solves the equation, say the solver and
    the scalar flavour; NumPy divided quietly, found a5 and then said "division by zero" (found by the agreement grammar)."""
    p = project_with(tmp_path, {"division-in-a-search": DIVISION_IN_A_SEARCH})
    model = p.model("division-in-a-search")
    scalar, vec = (load(path) for path in build(p, [model], "py", BuildOptions(tmp_path / "out", numpy=True)))
    np = pytest.importorskip("numpy")
    want = pytest.raises(ChaincError, ask, model, "q0", project=p).value.message
    assert want.startswith("question q0: no a1 meets a5 >= a0: no value of a5 solves")
    for call in (scalar.q0, vec.q0, lambda: scalar.solve(a1=0), lambda: vec.solve(a1=np.array([2.0, 0.0]))):
        with pytest.raises((scalar.ChainError, vec.ChainError)) as e:
            call()
        assert "no value of a5 solves" in e.value.message and "division by zero" not in e.value.message
    assert e.value.message == pytest.raises(ChaincError, solve, model, {"a1": 0}, project=p).value.message


TABLE_SUM = """
name: table-sum
title: A table's sum, solved backwards
variables:
  a0: {value: 4, integer: true, min: 4}
  a2: {domain: real}
equations:
  - "a2 = 0 + sum(t.c0)"
tables:
  t:
    rows: "min(ceil(a0), 4)"
    columns:
      c0: {formula: "prev.c1", unit: percent, initial: 2}
      c1: {formula: "prev.c0", initial: 2}
"""


def test_a_tables_sum_in_numpy_has_no_rounding_error(tmp_path):
    """2 + 0.02 + 2 + 0.02 added row by row in floats is 4.039999999999999: NumPy's a0 from a2 = 4.04 found no root where the
    solver and the scalar flavour (math.fsum) find a0 = 4 (found by the agreement grammar's CI run); its sums are now fsums."""
    p = project_with(tmp_path, {"table-sum": TABLE_SUM})
    model = p.model("table-sum")
    paths = build(p, [model], "py", BuildOptions(tmp_path / "out", find=("a0",), given={"a2": "4.04"}, numpy=True))
    scalar, vec = (load(path) for path in paths)
    np = pytest.importorskip("numpy")
    assert solve(model, project=p).value("a2") == scalar.solve().a2 == vec.solve().a2 == 4.04
    assert solve(model, {"a2": 4.04}, ("a0",), project=p).value("a0") == scalar.a0_from_a2(4.04).a0 == 4
    assert list(vec.a0_from_a2(np.array([4.04])).a0) == [4]
