"""The expression printers against the runner: random Program expressions, printed, evaluate as run.py evaluates them.

Evaluating the printed text here is what importing a generated module does; the
trees are random Program nodes, never model text.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from chainc import program as P
from chainc.backends.python.exprs import Gap, NumpyPrinter, ScalarPrinter
from chainc.run import compile_expr

ENV = {"a": Fraction(3, 2), "b": Fraction(7), "c": Fraction(-5, 4)}
NAMES = {n: n for n in ENV}

numbers = st.one_of(st.integers(-5, 9), st.fractions(min_value=-6, max_value=6, max_denominator=8)).map(lambda x: P.Num(Fraction(x)))
atoms = st.one_of(numbers, st.sampled_from([P.Ref("a"), P.Ref("b"), P.Ref("c")]), st.just(P.Const("pi")))


def _tree(children):
    arith = st.one_of(
        st.lists(children, min_size=2, max_size=3).map(lambda xs: P.Add(tuple(xs))),
        st.lists(children, min_size=2, max_size=3).map(lambda xs: P.Mul(tuple(xs))),
        st.tuples(children, st.sampled_from([-2, -1, 2, 3])).map(lambda t: P.Pow(t[0], P.Num(Fraction(t[1])))),
        st.tuples(st.sampled_from(["floor", "ceil", "abs"]), children).map(lambda t: P.Call(t[0], (t[1],))),
        st.tuples(st.sampled_from(["min", "max"]), st.lists(children, min_size=2, max_size=3)).map(lambda t: P.Call(t[0], tuple(t[1]))),
    )
    cmp = st.tuples(st.sampled_from(["<", "<=", ">", ">=", "==", "!="]), children, children).map(lambda t: P.Cmp(*t))
    cond = st.one_of(
        cmp,
        st.lists(cmp, min_size=2, max_size=3).map(lambda xs: P.Logic("and", tuple(xs))),
        st.lists(cmp, min_size=2, max_size=2).map(lambda xs: P.Logic("or", tuple(xs))),
        cmp.map(lambda c: P.Logic("not", (c,))),
    )
    choice = st.tuples(children, cond, children).map(lambda t: P.Choice(((t[0], t[1]), (t[2], P.TRUE))))
    return st.one_of(arith, arith, choice)


exprs = st.recursive(atoms, _tree, max_leaves=12)


def _value(f):
    try:
        v = f()
    except (ArithmeticError, ValueError, TypeError):
        return None
    return None if isinstance(v, complex) or not math.isfinite(float(v)) or abs(float(v)) > 1e12 else float(v)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs)
def test_scalar_printer_evaluates_as_the_runner(e):
    expected = _value(lambda: compile_expr(e)(ENV))
    assume(expected is not None)
    text = ScalarPrinter(NAMES).code(e)
    got = _value(lambda: eval(compile(text, "<printed>", "eval"), {"math": math}, {n: float(v) for n, v in ENV.items()}))  # noqa: S307
    assert got is not None and math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9), (text, got, expected)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(exprs)
def test_numpy_printer_evaluates_as_the_runner(e):
    np = pytest.importorskip("numpy")
    expected = _value(lambda: compile_expr(e)(ENV))
    assume(expected is not None)
    text = NumpyPrinter(NAMES).code(e)
    with np.errstate(all="ignore"):
        try:
            got = eval(compile(text, "<printed>", "eval"), {"np": np, "_cpow": np.power}, {n: np.full(3, float(v)) for n, v in ENV.items()})  # noqa: S307
        except ZeroDivisionError:  # numbers alone divided by zero (SymPy folds those): not an array operation
            assume(False)
    got = np.broadcast_to(np.asarray(got, dtype=float), (3,))
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-9), (text, got, expected)


def test_what_a_printer_has_no_rule_for_is_a_gap():
    for printer in (ScalarPrinter(NAMES), NumpyPrinter(NAMES)):
        for e, construct in (
            (P.Call("bessel", (P.Ref("a"),)), "the function bessel() with 1 argument"),
            (P.Call("lambertw", (P.Ref("a"),)), "the function lambertw() with 1 argument"),
            (P.Const("tau"), "the constant tau"),
        ):
            with pytest.raises(Gap) as g:
                printer.code(P.Add((P.Ref("b"), e)))
            assert g.value.construct == construct


def _random_tree(rng, depth: int):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([P.Num(Fraction(rng.randint(-5, 9), rng.choice([1, 1, 2, 3]))), P.Ref("a"), P.Ref("b"), P.Const("pi")])
    kind = rng.choice(["add", "mul", "pow", "call", "minmax", "choice"])
    kid = lambda: _random_tree(rng, depth - 1)  # noqa: E731
    if kind == "add":
        return P.Add(tuple(kid() for _ in range(rng.randint(2, 3))))
    if kind == "mul":
        return P.Mul(tuple(kid() for _ in range(rng.randint(2, 3))))
    if kind == "pow":
        return P.Pow(kid(), P.Num(Fraction(rng.choice([-2, -1, 2, 3, 1]), rng.choice([1, 2]))))
    if kind == "call":
        return P.Call(rng.choice(["floor", "ceil", "abs", "exp", "log", "sqrt"]), (kid(),))
    if kind == "minmax":
        return P.Call(rng.choice(["min", "max"]), (kid(), kid()))
    cond = P.Logic(rng.choice(["and", "or"]), (P.Cmp("<", kid(), kid()), P.Cmp(">=", kid(), kid())))
    return P.Choice(((kid(), cond), (kid(), P.TRUE)))


@pytest.mark.parametrize("numpy", [False, True], ids=["py", "np"])
def test_printed_assignments_are_laid_out_as_ruff_formats_them(tmp_path, numpy):
    """Short ones as printed, long ones split into temporaries (or an if statement): ruff changes nothing."""
    import random

    from chainc.backends.python import runtime
    from chainc.backends.python.layout import Out
    from chainc.backends.python.vector import writer_for

    from .tools import assert_ruff_clean

    rng = random.Random(7)
    writer = writer_for(numpy)(P.Program("m", ("a", "b"), (), ()), "f", NAMES, [], "")
    out = Out("    ")
    for i in range(300):
        writer.assign(out, f"x{i}", _random_tree(rng, 5 if i % 3 else 3))
    out.call("return ", [f"x{i}" for i in range(300)], "", "(", ")")
    path = tmp_path / "printed.py"
    helpers = "".join(f"\n\n{h}\n" for h in runtime.sources(writer.used | writer.pr.used - {"np", "math"})[0])
    path.write_text("\n".join(["import math" if not numpy else "import numpy as np", "", "", "def f(a, b):", *out.lines]) + "\n" + helpers)
    assert_ruff_clean([path])


@pytest.mark.parametrize("numpy", [False, True], ids=["py", "np"])
def test_split_assignments_compute_what_the_runner_computes(numpy):
    """Temporaries, if statements for long choices and nested ifs for long and/or change no value."""
    import random

    from chainc.backends.python.layout import Out
    from chainc.backends.python.vector import writer_for

    np = pytest.importorskip("numpy") if numpy else None
    rng = random.Random(11)
    env = {"a": Fraction(3, 2), "b": Fraction(7)}
    compared = 0
    for _ in range(200):
        tree = _random_tree(rng, 5)
        expected = _value(lambda tree=tree: compile_expr(tree)(env))
        if expected is None:
            continue
        writer = writer_for(numpy)(P.Program("m", ("a", "b"), (), ()), "f", NAMES, [], "")
        out = Out("    ")
        writer.assign(out, "x", tree, "x" if numpy else None)
        source = "\n".join(["def f(a, b):", *out.lines, "    return x"])
        scope = {"math": math, "np": np}
        if numpy:
            from chainc.backends.python import runtime

            for helper in runtime.sources({"_cpow", "_real_np"})[0]:
                exec(compile(helper, "<helper>", "exec"), scope)  # noqa: S102 - the backend's own helper source
        exec(compile(source, "<printed>", "exec"), scope)  # noqa: S102 - printed from a random Program, not model text
        args = (np.full(2, 1.5), np.full(2, 7.0)) if numpy else (1.5, 7.0)
        if numpy:
            with np.errstate(all="ignore"):
                try:
                    got = np.broadcast_to(np.asarray(scope["f"](*args), dtype=float), (2,))
                except ZeroDivisionError:  # numbers alone divided by zero in a branch np.where also evaluates (SymPy folds those)
                    continue
            assert np.allclose(got, expected, rtol=1e-9, atol=1e-9), source
        else:
            got = scope["f"](*args)
            assert math.isclose(float(got), expected, rel_tol=1e-9, abs_tol=1e-9), source
        compared += 1
    assert compared > 50
