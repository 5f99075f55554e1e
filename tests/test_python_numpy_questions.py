"""The NumPy flavour's question functions: one vectorised program that agrees with the scalar module point by point.

For every question of every bundled model, each numeric argument of its function is swept
over multiples of its default, far enough to leave the answer (no value meets the condition)
and the model's domains. Over the whole array at once the _np function gives, element by
element, the scalar function's answer, or raises the scalar function's error for the first
element that has none; the scalar answers agree with chainc's ask. The generated code holds
no loop over the points (the scalar rule runs only for an error), and the rule is fast.
"""

from __future__ import annotations

import inspect
import math
import time
from pathlib import Path

import numpy as np
import pytest

from chainc import Project, ask
from chainc.backends import BuildOptions
from chainc.errors import ChaincError

from .test_python_backend import build, load

ROOT = Path(__file__).resolve().parent.parent
FACTORS = (0.001, 0.05, 0.3, 0.7, 0.95, 1.0, 1.05, 1.3, 2.0, 7.5, 40.0, 1000.0)


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    project = Project(ROOT)
    out = tmp_path_factory.mktemp("numpy_questions")
    paths = build(project, [project.model(n) for n in project.model_names()], "py", BuildOptions(out, numpy=True))
    mods = {(p.stem.removesuffix("_np"), p.stem.endswith("_np")): load(p) for p in paths}
    return project, mods, paths


def _questions(project):
    for name in project.model_names():
        model = project.model(name)
        for q in model.questions:
            yield name, q


def _numeric_arguments(fn) -> dict[str, float]:
    """The arguments of a question function with a numeric default (the catalog's are None), and their defaults."""
    return {p.name: float(p.default) for p in inspect.signature(fn).parameters.values() if isinstance(p.default, (int, float)) and not isinstance(p.default, bool)}


def _scalar(fn, **kw):
    try:
        return fn(**kw), None
    except ValueError as e:
        return None, str(e)


def _same_error(got: str, want: str) -> bool:
    """The scalar function's error; where the scalar flavour overflows a float the NumPy one has NaN, so the cause is worded apart."""
    if "stopped: " in want:  # a limit stopped the search: the scalar flavour says at which line, the vectorised one cannot
        return got.split(";")[0] == want.split(", in line")[0]
    return got == want or ("overflows" in want and got.split(": ")[:2] == want.split(": ")[:2])


def _cases():
    """(model, question) of every bundled question; erlang-c's sums of thousands of terms over the sweeps take seconds."""
    return [pytest.param(n, q, marks=[pytest.mark.slow] if n == "erlang-c" else []) for n, q in _questions(Project(ROOT))]


def _sweep(fn_py, arg: str, default: float) -> list[tuple[float, object, str | None]]:
    values = sorted({default * f if default else f - 1 for f in FACTORS})
    return [(v, *_scalar(fn_py, **{arg: v})) for v in values]


def test_every_bundled_question_is_swept(modules):
    """The sweeps reach answers and errors: the cases below test both sides."""
    project, mods, _ = modules
    answered = failed = 0
    for name, q in _questions(project):
        mod = name.replace("-", "_")
        fn = getattr(mods[(mod, False)], q)
        for arg, default in _numeric_arguments(fn).items():
            for _, _value, error in _sweep(fn, arg, default):
                answered += error is None
                failed += error is not None
    assert answered > 100 and failed > 20, (answered, failed)


@pytest.mark.parametrize("model,question", _cases())
def test_numpy_question_agrees_with_the_scalar_one(modules, model, question):
    project, mods, _ = modules
    mod = model.replace("-", "_")
    fn_py, fn_np = getattr(mods[(mod, False)], question), getattr(mods[(mod, True)], question)
    integer = project.model(model).variables[project.model(model).questions[question].find].domain.integer
    for arg, default in _numeric_arguments(fn_py).items():
        sweep = _sweep(fn_py, arg, default)
        good = [(v, value) for v, value, error in sweep if error is None]
        if good:  # every element answered: the scalar answers, element by element, as int64 for whole numbers
            got = fn_np(**{arg: np.array([v for v, _ in good])})
            assert got.shape == (len(good),) and got.dtype.kind == ("i" if integer else "f"), (arg, got.dtype)
            for (v, value), g in zip(good, got, strict=True):
                assert g == value or math.isclose(g, value, rel_tol=1e-12), (arg, v, g, value)
        bad = [(k, v, error) for k, (v, _, error) in enumerate(sweep) if error is not None]
        if bad:  # the whole sweep at once: inputs are checked first (the first outside its domain), then the first without an answer
            with pytest.raises(mods[(mod, True)].ChainError) as e:
                fn_np(**{arg: np.array([v for v, _, _ in sweep])})
            refused = [b for b in bad if "is outside its domain" in b[2] or "is not a whole number" in b[2]]
            first = (refused or bad)[0]
            assert _same_error(str(e.value), first[2]), (arg, first[1], str(e.value), first[2])
            for _, v, error in bad:  # and each on its own, after an element that has an answer
                if good:
                    with pytest.raises(mods[(mod, True)].ChainError) as e:
                        fn_np(**{arg: np.array([good[0][0], v])})
                    assert _same_error(str(e.value), error), (arg, v, str(e.value), error)


@pytest.mark.parametrize("model,question", _cases())
def test_scalar_answers_agree_with_ask(modules, model, question):
    """The answers compared above are chainc's: at the first argument's sweep, ask gives them too.

    Within 0.05 to 2 times the default: further out the generated modules' floats leave float range where
    the exact solver does not (erlang-c at 90 requests/min needs 171! and more), a limit of both flavours alike.
    """
    project, mods, _ = modules
    m = project.model(model)
    fn = getattr(mods[(model.replace("-", "_"), False)], question)
    arg, default = next(iter(_numeric_arguments(fn).items()))
    factor = m.variables[m.questions[question].find].factor
    for v, value, error in _sweep(fn, arg, default):
        if default and not 0.05 <= v / default <= 2:
            continue
        try:
            a = ask(m, question, {arg: v}, project=project)
        except ChaincError:
            assert error is not None, (arg, v, value)
            continue
        assert error is None and math.isclose(value, float(a.base / factor), rel_tol=1e-9), (arg, v, value, error)


def test_numpy_question_functions_hold_no_loop_over_points(modules):
    """Every point goes through the vectorised rule; the scalar rule (_ask_*) is called only by _answered_np, for an error."""
    project, _, paths = modules
    for path in paths:
        if not path.stem.endswith("_np"):
            continue
        text = path.read_text()
        assert "np.ndindex(_out.shape)" not in text, path.name
        model = project.model(next(n for n in project.model_names() if n.replace("-", "_") == path.stem.removesuffix("_np")))
        for q in model.questions:
            assert f"_vector_{q}(*_points)" in text, (path.name, q)


def test_numpy_max_batch_is_fast(modules):
    """1,000 targets in well under a millisecond each call (it took 155 ms as a loop over the scalar rule)."""
    _, mods, _ = modules
    fn = mods[("goodput", True)].max_batch
    targets = np.linspace(5, 50, 1000)
    fn(tpot_target=targets)
    start = time.perf_counter()
    for _ in range(20):
        fn(tpot_target=targets)
    per_call = (time.perf_counter() - start) / 20
    assert per_call < 0.02, per_call  # loose for a busy machine; the bench row measures the real figure


def test_numpy_question_broadcasts_and_keeps_shape(modules):
    _, mods, _ = modules
    g, s = mods[("goodput", True)], mods[("goodput", False)]
    got = g.fitting_batch(tpot_target=np.array([[8.0], [12.0]]), context=np.array([1024.0, 4096.0, 32768.0]))
    assert got.shape == (2, 3) and got.dtype == np.int64
    for i, t in enumerate((8.0, 12.0)):
        for j, c in enumerate((1024.0, 4096.0, 32768.0)):
            assert got[i, j] == s.fitting_batch(tpot_target=t, context=c)
    assert type(g.max_batch()) is int and g.max_batch() == s.max_batch()  # one point: a Python int, as the plain flavour
