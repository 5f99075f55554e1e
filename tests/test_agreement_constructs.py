"""One chain of each construct the agreement grammar draws for issue 18, quickly (tests/agreement_examples.py).

Nested sums and products (the inner part apart from the outer index, reading it in its
terms, in its bounds), a joined model, questions with several conditions: each chain is
compared across the solver, the Python module and its NumPy flavour as tests/test_agreement.py's
property does, checked against values by hand, and built into a workbook, which prints it or
refuses it as agreement_compare.workbook_builds decides. And the grammar draws each construct.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from chainc import Project, ask, solve

from .agreement_compare import accept, run_chain
from .agreement_examples import CONSTRUCTS
from .agreement_grammar import chains
from .agreement_workbook import workbook_builds

# at the defaults, by hand (the sums written out in tests/agreement_examples.py)
VALUES = {
    "nested apart": {"a2": 18},  # 3 x (0 + 1 + 2) x 2 s
    "outer index in terms": {"a2": 18},  # (0 + 1 + 2) x (0 + 1 + 2) x 2 s
    "outer index in bounds": {"a2": 2, "a3": 63},  # 2 s x C(3, 3); (2 + 3 + 4) x (3 + 4)
    "join": {"a2": 7, "o_u2": 6},  # a0 a1 (a1 - 1) + a0 at a0 = 1 s, a1 = 3
    "limits": {"a1": 3},  # 3 x 1 s: past the limit of 2 s, and computed all the same
    "lookup": {"a2": 3, "a3": 6},  # 3 x 1 GB (fp8); 1 + 2 + 3 GB
}
ANSWERS = {
    "nested apart": {"q0": 16},  # 6 a0 <= 100
    "outer index in terms": {"q0": 6},  # 3 a0 (a0 - 1) <= 100
    "outer index in bounds": {"q0": 7},  # 2 C(a0, 3) <= 100: C(7, 3) = 35, C(8, 3) = 56
    "join": {"q0": 10, "q0_lat": 100 / 7, "q0_mem": 10, "q1": 7},  # mem binds; a1 (a1 - 1) + 1 <= 50
    "limits": {"q0": 100 / 3},  # 3 a0 <= 100 s; the limit warns there, it does not move the answer
    "lookup": {"q0": 5},  # a0 x 1 GB <= 5 GB
}


@pytest.fixture(scope="module")
def chain_project(tmp_path_factory) -> Project:
    root = tmp_path_factory.mktemp("constructs")
    (root / "models").mkdir()
    return Project(root)


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("construct-modules")


@pytest.mark.parametrize("construct", sorted(CONSTRUCTS))
def test_each_construct_agrees_across_the_solver_and_the_modules(chain_project, out, construct):
    run_chain(chain_project, out, CONSTRUCTS[construct])


@pytest.mark.parametrize("construct", sorted(CONSTRUCTS))
def test_each_construct_has_the_values_by_hand(chain_project, out, construct):
    a = accept(chain_project, CONSTRUCTS[construct], out)
    assert a is not None
    s = solve(a.model, project=chain_project)
    for name, want in VALUES[construct].items():
        assert float(s.value(name)) == pytest.approx(want, rel=1e-12), name
    for q, want in ANSWERS[construct].items():
        answer = ask(a.model, q, project=chain_project)
        assert float(a.model.variables[a.model.questions[q].find].to_display(answer.base)) == pytest.approx(want, rel=1e-9), q


@pytest.mark.parametrize("construct", sorted(CONSTRUCTS))
def test_the_workbook_prints_each_construct(chain_project, out, construct):
    """The inner sums that read the outer index included: a grid of terms, one row per outer term."""
    a = accept(chain_project, CONSTRUCTS[construct], out)
    assert workbook_builds(chain_project, a)


def test_the_grammar_draws_every_construct():
    seen: Counter = Counter()

    @settings(max_examples=150, derandomize=True, database=None, deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(chain=chains())
    def draw(chain):
        seen.update(chain.constructs)
        seen["chains"] += 1

    draw()
    wanted = ("sum", "prod", "nested", "nested apart", "outer index in terms", "outer index in bounds", "join", "conditions", "limits", "lookup")
    assert all(seen[c] >= 5 for c in wanted), seen
