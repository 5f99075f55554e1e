"""The Python API as a notebook user meets it: names not objects, display units first, short reprs, HTML."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

import chainc
from chainc.cli import main


class Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self.tags = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        if data.strip():
            self.cells.append(data.strip())


def test_solve_by_name_with_keywords():
    r = chainc.solve("goodput", batch=128, gpu="h200")
    assert r.value("tpot") == pytest.approx((16.060522496 + 128 * 2048 * 131072 / 1e9) / 4.8, rel=1e-12)
    q = r["tpot"]
    assert str(q.units) == "millisecond / token" and q.magnitude == pytest.approx(r.value("tpot"))
    assert r.quantity("weight_bytes").to("GB").magnitude == pytest.approx(16.060522496)  # bytes, not bits


def test_reprs_are_short():
    r = chainc.solve("goodput", batch=128)
    a = chainc.ask("goodput", "max_batch")
    rep = chainc.evaluate("goodput")
    for obj in (r, a, rep):
        text = repr(obj)
        assert len(text) < 600 and text.count("\n") <= 6, text
    assert "tpot = 15.05 ms/token" in repr(r) and "given batch=128" in repr(r)
    assert "batch = 64" in repr(a) and a.answer() == 64 and isinstance(a.answer(), int)
    assert f"checks: ok, {len(rep.model.checks)}/{len(rep.model.checks)} checks" in repr(rep)


def test_html_is_a_table_of_values_questions_and_checks():
    rep = chainc.evaluate("goodput")
    p = Cells()
    p.feed(rep._repr_html_())
    assert {"table", "tr", "td"} <= set(p.tags)
    assert "tpot" in p.cells and "9.923" in p.cells and "ms/token" in p.cells
    assert any("max_batch: batch = 64" in c for c in p.cells)
    assert p.cells.count("ok") == len(rep.model.checks)


def test_html_escapes_model_text(tmp_path):
    path = tmp_path / "evil.yaml"
    path.write_text('name: evil\ntitle: "<script>alert(1)</script>"\nvariables:\n  a: {value: 1, description: "<b>x</b>"}\n  b: {}\nequations:\n  - b = a\n')
    html = chainc.solve(str(path))._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;" in html and "<b>x</b>" not in html


def test_markdown_shows_the_values_and_explain_the_derivation():
    s = chainc.solve("littles-law")
    md = s._repr_markdown_()
    assert md.startswith("**Little's law") and "in_system" in md
    assert "step 1:" in chainc.explain(s)


def test_to_dataframe():
    import pandas as pd  # an optional dependency of chainc, a test dependency here

    df = chainc.solve("goodput").to_dataframe()
    assert isinstance(df, pd.DataFrame) and df.loc["tpot", "unit"] == "ms/token"
    assert df.loc["tpot", "value"] == pytest.approx(9.9225, rel=1e-4)


def test_show(capsys):
    assert main(["show", "goodput"]) == 0
    out = capsys.readouterr().out
    assert "inputs" in out and "tpot_target" in out and "questions" in out and "max_batch" in out and "llm.weight_bytes" in out
    assert main(["show", "goodput", "--gpu", "h200", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["uses"] == {"gpu": "h100-sxm", "llm": "llama-3.1-8b", "models": {}}
    assert next(r for r in d["reads"] if r["name"] == "gpu.memory_bandwidth")["value"] == "4.8"
    assert [q["name"] for q in d["questions"]] == ["max_batch", "fitting_batch_latency", "fitting_batch_memory", "fitting_batch"] and len(d["checks"]) == 9


def test_find_takes_one_name_and_errors_carry_their_hint():
    """find="batch" was split into letters ("no variable 'b'"); str() of an error dropped its hint, which a traceback shows."""
    import chainc

    assert chainc.solve("goodput", find="batch", tpot="10ms").value("batch") == pytest.approx(64.967116355896)
    with pytest.raises(chainc.errors.ArgumentError) as e:
        chainc.solve("goodput", bach=3)
    assert str(e.value) == "model 'goodput' has no variable 'bach'\nhint: did you mean batch?"
