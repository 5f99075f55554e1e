"""Generated modules check their arguments' types (numbers in the docstring's display unit) and agree on ints.

goodput.solve(batch="128") raised "not all arguments converted during string formatting" and
solve(tpot_target="10ms") a bare TypeError; the NumPy flavour's whole-number question returned 118.0
where the plain module returned 118.
"""

from __future__ import annotations

import inspect
from fractions import Fraction

import numpy as np
import pytest

import chainc
from chainc.backends import BuildOptions

from .test_python_backend import build, load

WRONG = ("128", "10ms", True, b"1")  # a str, a quantity as text, a bool, bytes: never numbers here


@pytest.fixture(scope="module")
def modules(project, tmp_path_factory):
    """Every bundled model's plain and NumPy modules: {model name: (plain, numpy)}."""
    out = tmp_path_factory.mktemp("args")
    models = [project.model(n) for n in project.model_names()]
    paths = {p.name: p for p in build(project, models, "py", BuildOptions(out, numpy=True))}
    return {m.name: (load(paths[f"{m.name.replace('-', '_')}.py"]), load(paths[f"{m.name.replace('-', '_')}_np.py"])) for m in models}


def _public(module):
    return [f for name, f in vars(module).items() if inspect.isfunction(f) and not name.startswith("_") and f.__module__ == module.__name__]


def _numeric_keywords(f):
    """The keyword arguments that take a value in a display unit (not the catalog ids gpu= and llm=, nor a choice's name)."""
    return [p.name for p in inspect.signature(f).parameters.values() if p.name not in ("gpu", "llm") and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and not isinstance(p.default, str)]


def test_a_choice_refuses_what_is_not_one_of_its_names(modules):
    """quantization's weight_dtype takes a name (lookups:): a number, a bool, bytes or another name is refused, in both flavours."""
    for module in modules["quantization"]:
        for wrong in (*WRONG, 8, "fp4"):
            with pytest.raises(module.ChainError, match="is not one of weight_dtype's choices"):
                module.solve(weight_dtype=wrong)


def test_every_generated_function_refuses_what_is_not_a_number(modules):
    checked = 0
    for name, pair in modules.items():
        for module in pair:
            for f in _public(module):
                for arg in _numeric_keywords(f):
                    for wrong in WRONG:
                        with pytest.raises(module.ChainError) as e:
                            f(**{arg: wrong})
                        text = str(e.value)
                        assert f"{arg} = {wrong!r} is not a number" in text, (name, f.__name__, arg, text)
                        assert "string formatting" not in text and "unsupported operand" not in text
                    checked += 1
    assert checked > 100  # every model's solve() and questions, both flavours


def test_the_hint_names_the_display_unit_of_the_docstring(modules):
    plain, numpy_ = modules["goodput"]
    for module in (plain, numpy_):
        assert "tpot_target: " in module.solve.__doc__ and "[ms/token]" in module.solve.__doc__
        with pytest.raises(module.ChainError) as e:
            module.solve(tpot_target="10ms")
        assert "in ms/token (its display unit)" in e.value.hint and "write tpot_target=10 for 10 ms/token" in e.value.hint
        with pytest.raises(module.ChainError) as e:
            module.solve(batch="128")
        assert "write batch=128" in e.value.hint and "batch has no unit" in e.value.hint


def test_arrays_only_in_the_numpy_flavour(modules):
    plain, numpy_ = modules["goodput"]
    with pytest.raises(plain.ChainError, match="NumPy flavour"):
        plain.solve(batch=[64, 128])
    for value in ([64, 128], np.array([64, 128]), np.array([64.0, 128.0])):
        assert list(numpy_.solve(batch=value).tpot) == pytest.approx([plain.solve(batch=64).tpot, plain.solve(batch=128).tpot], rel=1e-12)
    for wrong in (np.array(["64"]), np.array([True, False]), ["64", 128]):
        with pytest.raises(numpy_.ChainError, match="is not a number or an array of numbers"):
            numpy_.solve(batch=wrong)


def test_both_flavours_return_an_int_for_a_whole_number_question(modules):
    plain, numpy_ = modules["goodput"]
    # 10 ms/token x 4.8 TB/s of H200 bandwidth, less the weights, over 2,048 tokens of 128 KiB: 118.98 sequences
    want = int((Fraction("0.010") * Fraction("4.8e12") - Fraction("16.060522496e9")) / (2048 * 131072))
    for module in (plain, numpy_):
        got = module.max_batch(gpu="h200")
        assert got == want == 118 and type(got) is int, (module.__name__, got)
    assert chainc.ask("goodput", "max_batch", gpu="h200").value == want
    many = numpy_.max_batch(tpot_target=[10, 20], gpu="h200")
    assert many.dtype == np.int64 and list(many) == [118, plain.max_batch(tpot_target=20, gpu="h200")]
    # a question whose answer is not whole-numbered: a float in both, the same number
    p, n = modules["erlang-c"]
    assert type(p.max_arrival_rate()) is float and type(n.max_arrival_rate()) is float and n.max_arrival_rate() == p.max_arrival_rate()
