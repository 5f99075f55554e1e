"""The API reads like the domain (issue 22): display units, checks off their hardware, the API's words, searched domains.

`ask(...).value` was a base-unit Fraction (1237/6000 requests per second for 12.37 per minute); evaluate on
an H200 said 'checks: 9/9 ok' where the CLI says not applicable; API errors advised '--find'; hints quoted
the search grid's ends ('from 1 to 4.61169e+18').
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

import chainc
from chainc.cli import main
from chainc.runtime.answer import NoAnswer, answer
from chainc.runtime.values import domain_words

from .conftest import ROOT
from .test_api import Cells


def test_an_answer_reads_in_its_display_unit_and_keeps_its_exact_base_value():
    a = chainc.ask("erlang-c", "max_arrival_rate")
    assert a.value == 12.37 and type(a.value) is float  # requests per minute, the variable's unit
    assert a.base == Fraction(1237, 100) / 60 and isinstance(a.base, Fraction)  # per second, exact
    assert a.answer() == a.value and a.quantity().to("request/s").magnitude == pytest.approx(float(a.base))
    assert a.boundary == pytest.approx(float(a.base_boundary) * 60) and 12.37 <= a.boundary < 12.38  # floor of it, to 0.01
    batch = chainc.ask("goodput", "max_batch", gpu="h200")
    assert batch.value == 118 and type(batch.value) is int and batch.base == 118
    each = {x.label: x for x in chainc.ask("goodput", "fitting_batch").limits}  # each condition's own limit reads so too
    assert [type(x.value) for x in each.values()] == [int, int] and isinstance(each["memory"].base, Fraction)
    assert each["memory"].value == (80 * 10**9 - 16_060_522_496) // (2048 * 131072) == 238  # GPU memory less the weights, in KV of 2,048 tokens


def test_display_rounds_as_the_cli_prints(capsys):
    s = chainc.solve("goodput", batch=128)
    tpot = (16.060522496 + 128 * 2048 * 131072 / 1e9) / 3.35  # ms/token: 15.0508...
    assert s.value("tpot") == pytest.approx(tpot, rel=1e-12)
    assert s.display("tpot") == round(tpot, 2) == 15.05  # 4 significant figures, as the table shows
    assert s.display("batch") == 128 and type(s.display("batch")) is int and type(s.value("batch")) is int
    assert s.base("tpot") == Fraction(s.values["tpot"]) and isinstance(s.base("tpot"), Fraction)
    assert main(["solve", "goodput", "--given", "batch=128"]) == 0
    assert re.search(r"tpot\s+15\.05\s+ms/token", capsys.readouterr().out)


def test_reprs_show_units_and_the_answer_html_says_found():
    s = chainc.solve("goodput", batch=128, tpot_target="20 ms/token")
    assert "given batch=128, tpot_target=20 ms/token" in repr(s)
    a = chainc.ask("goodput", "max_batch")
    p = Cells()
    p.feed(a._repr_html_())
    i = p.cells.index("batch")
    assert p.cells[i - 1] == "found" and "given" not in p.cells


def test_checks_off_their_hardware_are_not_applicable_in_the_api_as_in_the_cli(capsys):
    own, other = chainc.evaluate("goodput"), chainc.evaluate("goodput", gpu="h200")
    n = len(own.model.checks)
    assert own.ok is True and other.ok is None and not other.ok  # None: no check applies here
    assert (other.tally.passed, other.tally.failed, other.tally.not_applicable) == (0, 0, n)
    assert "checks: n/a, no checks for this hardware" in repr(other) and f"{n}/{n} ok" not in repr(other)
    p = Cells()
    p.feed(other._repr_html_())
    assert p.cells.count("n/a") == n and "ok" not in p.cells
    assert main(["check", "goodput", "--gpu", "h200"]) == 0
    out = capsys.readouterr().out
    assert f"goodput: {other.tally.counts}" in out and f"{n} not applicable" in out  # one rule, one wording
    assert f"checks: ok, {own.tally.counts}" in repr(own) and own.tally.counts == f"{n}/{n} checks"


def test_api_errors_speak_the_apis_words(capsys):
    with pytest.raises(chainc.StructureError) as e:
        chainc.solve("goodput", tpot="10ms")
    assert "free an input with find=" in str(e.value) and "--" not in str(e.value)
    with pytest.raises(chainc.errors.ArgumentError) as e:
        chainc.ask("goodput", "max_batch", batch=3)
    assert "drop batch=... from the values" in e.value.hint and "--given" not in e.value.hint
    with pytest.raises(chainc.errors.ArgumentError) as e:
        chainc.solve("littles-law", gpu="h200")
    assert "gpu= does not apply" in str(e.value) and "--gpu" not in str(e.value)
    assert main(["solve", "goodput", "--given", "tpot=10ms"]) == 2  # the command line keeps its own
    assert "free an input with --find" in capsys.readouterr().err
    assert main(["solve", "littles-law", "--gpu", "h200"]) == 2
    assert "drop --gpu; chainc show littles-law" in capsys.readouterr().err


def test_hints_name_the_searched_domain_in_words():
    with pytest.raises(chainc.SolveError) as e:
        chainc.ask("goodput", "max_batch", tpot_target="1 ms")  # below the weights' own 4.8 ms
    assert "(searched every positive whole number)" in e.value.hint and not re.search(r"e\+1[0-9]", str(e.value))
    with pytest.raises(chainc.SolveError) as e:
        chainc.ask("p99-knee", "max_utilization", p99_target="1 ms")
    assert "(searched every positive value up to 0.999999)" in e.value.hint
    assert domain_words("positive", True, 1) == "every positive whole number"  # at least 1 is what positive says
    assert domain_words("nonnegative", False) == "every non-negative value"
    assert domain_words("real", False, None, None) == "every value"
    assert domain_words("positive", True, 4, 64) == "every whole number from 4 to 64"
    assert domain_words("positive", False, 0.5, None, "ms") == "every value from 0.5 ms up"


@pytest.mark.parametrize("strict", [False, True])
def test_no_answer_shows_only_an_admissible_point(strict):
    """A boundary less than half a step above the domain's edge: the point shown was -0.001 (b - step/2) or 0."""
    positive = lambda x: x > 0  # noqa: E731
    for feasible in (lambda x: False, lambda x: x < 0.004):
        with pytest.raises(NoAnswer) as e:
            answer(0.004, feasible, positive, "max", 0.01, None, None, 1.0, True, strict)
        assert e.value.kind == "infeasible" and positive(e.value.at) and not feasible(e.value.at), e.value.at
    with pytest.raises(NoAnswer) as e:  # the mirror: a smallest value just below a domain's top
        answer(0.996, lambda x: False, lambda x: 0 < x <= 1, "min", 0.01, None, 1, 0.5, True, strict)
    assert 0 < e.value.at <= 1


def test_checks_are_expected_values_unless_the_model_names_its_source(tmp_path):
    """A user's model's checks were labelled 'the card's values'; only a model that says where they come from names it."""
    text = (ROOT / "models" / "goodput.yaml").read_text(encoding="utf-8")
    assert "\nexpected_from: card\n" in text  # the bundled chain names the card; a user's copy without the line does not
    text = text.replace("\nexpected_from: card\n", "\n")
    plain, sourced = tmp_path / "mine.yaml", tmp_path / "sourced.yaml"
    plain.write_text(text.replace("name: goodput", "name: mine"), encoding="utf-8")
    sourced.write_text(text.replace("name: goodput", "name: sourced\nexpected_from: vendor sheet"), encoding="utf-8")
    mine = chainc.evaluate(str(plain), gpu="h200").checks[1].lines[0]
    assert mine.startswith("n/a  tpot = ") and "(expected 9.9 ms/token on NVIDIA H100 SXM5 80GB with Llama 3.1 8B)" in mine
    named = chainc.evaluate(str(sourced), gpu="h200").checks[1].lines[0]
    assert "(vendor sheet: 9.9 ms/token on NVIDIA H100" in named and "card" not in mine + named
    assert chainc.evaluate(str(plain)).checks[1].lines[0].startswith("ok  tpot = 9.923 ms/token (expected 9.9 ms/token)")
