"""Searches over configurations and frontiers in the derivation sheet, in `chainc plot`, and in the CLI's words.

The sheet prints the Report's choice (never solving): the question, what is varied, the conditions and
the objective, the best configuration with where it sits and what binds, the ranked table in S columns,
why the others fail; a frontier's chart and points. The PDF's text must hold the numbers, which are
also worked out here by hand where that is short.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from chainc import ask, chosen_words
from chainc.backends import BuildOptions, latex
from chainc.backends.frontier import frontier_bytes, points
from chainc.backends.latex.assemble import environment, sheet_body
from chainc.cli import main
from tests.conftest import ROOT, reports
from tests.tools import require

SEARCHES = str(ROOT / "tests" / "models" / "searches.yaml")


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def pdf_text(path: Path) -> str:
    pypdf = pytest.importorskip("pypdf")
    return "\n".join(p.extract_text() for p in pypdf.PdfReader(str(path)).pages)


@pytest.fixture(scope="module")
def built(project, tmp_path_factory):
    """The sheets of tests/models/searches.yaml and tensor-parallel, compiled once for the module."""
    require("pdflatex")
    out = tmp_path_factory.mktemp("exports")
    rs = reports(project, [SEARCHES, "tensor-parallel"])
    result = latex.build_documents(rs, "pdf", BuildOptions(out))
    return out, result, {r.model.name: r for r in rs}


def _section(text: str, head: str, end: str | None = None) -> str:
    start = text.index(head)
    stop = text.index(end, start) if end else len(text)
    return flat(text[start:stop])


def test_cheapest_reads_as_worked_out_by_hand(built):
    """h200, tp 8: 20 ms - 0.5 ms x 8 x 0.5 - 1 ms / 0.5 = 16 ms for the bytes, 16 ms x 4.8 TB/s x 8 = 614.4 GB per step;
    (614.4 - 141.1) GB / (2,048 x 327,680 B) = 705.3 -> batch 705; tpot 19.995 ms, 35,258 token/s; 8 x 4.54 USD/h -> 0.2861 USD/Mtoken."""
    out, _, _ = built
    text = _section(pdf_text(out / "searches.pdf"), "Question cheapest", "Frontier interactivity")
    assert "Find the gpu and tp with the lowest cost." in text
    assert "Varied 16 configurations (gpu 4 x tp 4)" in text and "gpu h100-sxm, h200, l40s, a100-sxm-80gb" in text and "tp 1, 2, 4, 8" in text
    assert "the answer of question max_batch: the largest batch such that tpot ≤ tpot_target" in text
    assert "Such that memory: step_bytes ≤ memory" in text
    assert "gpu = h200, tp = 8, batch = 705 cost = 0.2861" in text
    assert "The lowest of the 6 configurations that meet every condition (16 searched)." in text
    assert "tp = 8 is the last of its values" in text  # an edge: a larger tp was not searched
    assert "10 configurations have no cost to compare (failing max_batch)" in text
    assert "The best 3 of the 6 that meet every condition, ranked" in text
    for row in ("1 h200 8 705 0.2861", "2 h200 4 276 0.3655", "3 h100-sxm 8 428 0.3922"):
        assert row in text, row
    assert "10 of 16 configurations fail" in text
    assert "max_batch 10 gpu = h100-sxm, tp = 1 no batch meets tpot ≤ tpot_target: at batch = 1, tpot = 44.5719 ms/token > tpot_target = 20 ms/token" in text


def test_tensor_parallel_names_the_binding_condition(built):
    out, _, rs = built
    text = _section(pdf_text(out / "tensor-parallel.pdf"), "Question fastest_tp", "Checks")
    c = rs["tensor-parallel"].searches["fastest_tp"]
    assert c.binding == (("heads", 3),) and c.config(c.best) == {"tp": 8}
    assert "Binding condition: heads, which rules out 3 configurations that would be better." in text
    assert "tp = 8 is next to tp = 16, which fails heads" in text
    assert "The lowest of the 2 configurations that meet every condition (7 searched)." in text
    assert "1 8 7.52" in text and "2 4 14.29" in text  # the model's checks: TP 8 7.52 ms, TP 4 14.3 ms
    assert "5 of 7 configurations fail" in text
    assert "heads 3 tp = 16 heads_left = 8 > 0" in text
    assert "memory 2 tp = 1 decode_step_bytes = 184.057 GB > decode_memory = 80 GB" in text


def test_frontier_has_its_chart_table_and_points(built):
    out, _, rs = built
    c = rs["searches"].searches["interactivity"]
    text = _section(pdf_text(out / "searches.pdf"), "Frontier interactivity", "Checks")
    assert "5 configurations are on the frontier, the highest per_user first (27 of 30 meet every condition)" in text
    assert (out / "figures" / "searches-interactivity-frontier.pdf").read_bytes().startswith(b"%PDF")
    assert "the 3 that fail a condition are not drawn" in text
    for k, i in enumerate(c.order, 1):
        row = " ".join([str(k), *chosen_words.cells(c, i)])
        assert row in text, row
        assert f"{k}: h200, tp 8" in text or k == 4  # the chart labels each point where there is room (4 has none)
    assert "memory 3 gpu = h100-sxm, tp = 2, batch = 64 step_bytes = 92.0285 GB > memory = 80 GB" in text
    # by hand: h200, tp 8, batch 1: (141.1 GB + 671 MB) / 8 / 4.8 TB/s = 3.692 ms, + 2 + 2 ms = 7.692 ms -> 130 token/s each
    assert "1 h200 8 1 130 130" in text


def test_logs_are_clean(built):
    _, result, _ = built
    for name, compiled in result.compiled.items():
        assert "Missing character" not in compiled.log, name
        for m in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\)", compiled.log):
            assert float(m.group(1)) <= 10, f"{name}: {m.group(0)}"


def test_the_sheet_and_the_cli_say_the_same(built, capsys):
    out, _, rs = built
    c = rs["tensor-parallel"].searches["fastest_tp"]
    assert main(["solve", "tensor-parallel", "--question", "fastest_tp"]) == 0
    cli = flat(capsys.readouterr().out)
    sheet = flat(pdf_text(out / "tensor-parallel.pdf"))
    for phrase in (chosen_words.binding(c), chosen_words.among(c), *chosen_words.placement(c), chosen_words.failing(c)):
        assert phrase in cli, phrase
        assert phrase[:1].upper() + phrase[1:] in sheet or phrase in sheet, phrase


def test_search_tables_use_s_columns_and_model_text_is_escaped(project):
    body, files = sheet_body(environment(), reports(project, [SEARCHES])[0])
    section = body[body.index("Question \\mbox{\\texttt{cheapest}}") :]
    assert "S[table-format=1.4]" in section  # cost: 0.2861
    assert "{\\unit{\\dollar\\per\\mega\\token}}" in section  # the unit in the header
    assert "figures/searches-interactivity-frontier.pdf" in files and files["figures/searches-interactivity-frontier.pdf"].startswith(b"%PDF")
    assert "cheapest GPU and TP degree" in section


def test_no_configuration_says_so(project):
    """At a 1 ms TPOT target no batch meets it anywhere: no answer, and why, with the numbers."""
    from chainc.report import evaluate

    report = evaluate(project.model(SEARCHES), project.catalog, given={"tpot_target": "1ms"}, source=project.source)
    body, _ = sheet_body(environment(), report)
    section = flat(body[body.index("Question \\mbox{\\texttt{cheapest}}") : body.index("Frontier")])
    assert "\\textbf{No answer.} No configuration meets every condition (16 searched)." in section
    assert "16 of 16 configurations fail" in section


# --- the chart: one function for the sheet and `chainc plot` ---------------------------------------------------


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_frontier_chart_is_deterministic(project, fmt, magic):
    m = project.model(SEARCHES)
    c = ask(m, "interactivity", project=project)
    a, b = frontier_bytes(m, c, fmt, "Llama 3.1 70B"), frontier_bytes(m, c, fmt, "Llama 3.1 70B")
    assert a.startswith(magic) and a == b
    rows, xs, ys = points(c)
    assert len(rows) == c.feasible == 27 and set(c.order) <= set(rows)


def test_plot_cli_draws_a_frontier(tmp_path, capsys):
    one, two = tmp_path / "one.png", tmp_path / "two.png"
    assert main(["plot", SEARCHES, "interactivity", "-o", str(one)]) == 0
    assert main(["plot", SEARCHES, "-o", str(two)]) == 0  # no sweep: its first frontier
    assert one.read_bytes() == two.read_bytes() and one.stat().st_size > 10_000
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([SEARCHES, "cheapest"], "cheapest is a question: chainc solve --question cheapest answers it"),
        ([SEARCHES, "interactivity", "--gpu", "h200"], "question interactivity chooses the GPU itself"),
        (["goodput", "batch", "--sweep", "other"], "two names to draw"),
    ],
)
def test_plot_cli_errors(tmp_path, capsys, argv, message):
    assert main(["plot", *argv, "-o", str(tmp_path / "x.png")]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# --- the CLI's words ---------------------------------------------------------------------------------------------


def test_cli_prints_the_choice(capsys):
    assert main(["solve", SEARCHES, "--question", "cheapest"]) == 0
    out = capsys.readouterr().out
    text = flat(out)
    assert "cheapest: The cheapest GPU and TP degree at the largest batch that meets the target" in out
    assert "searched 16 configurations (gpu 4 x tp 4)" in text
    assert "best gpu = h200, tp = 8, batch = 705: cost = 0.2861 USD/Mtoken, the lowest of the 6 configurations that meet every condition (16 searched)" in text
    assert "binding none: no configuration that would be better fails a condition" in text
    assert "10 of 16 configurations fail: max_batch 10 configurations; the first, gpu = h100-sxm, tp = 1: no batch meets" in text
    assert re.search(r"1\s+h200\s+8\s+705\s+0\.2861", out)


def test_cli_prints_a_frontier_and_a_free_optimum(capsys):
    assert main(["solve", SEARCHES, "--question", "interactivity"]) == 0
    text = flat(capsys.readouterr().out)
    assert "frontier 5 configurations are on the frontier, the highest per_user first (27 of 30 meet every condition)" in text
    assert "memory 3 configurations; the first, gpu = h100-sxm, tp = 2, batch = 64: step_bytes = 92.0285 GB > memory = 80 GB" in text
    assert main(["solve", SEARCHES, "--question", "best_overlap"]) == 0
    text = flat(capsys.readouterr().out)
    assert "overlap the best value from 0.01 to 1" in text
    assert "best overlap = 0.5: tpot = 10.87 ms/token, the lowest over overlap's range" in text
    assert "overlap = 0.5 is inside its range" in text
