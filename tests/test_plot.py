"""`chainc plot`: the sweep's figure, in PNG, SVG and PDF, the same bytes every time."""

from __future__ import annotations

import pytest

from chainc.backends.plot import plot
from chainc.cli import main
from chainc.sweep import run_sweep


def _sweep(project, name="goodput"):
    m = project.model(name)
    return m, run_sweep(m, next(iter(m.sweeps.values())), project.catalog)


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_plot_writes_a_deterministic_figure(project, tmp_path, suffix, magic):
    m, result = _sweep(project)
    a = plot(m, result, tmp_path / f"a{suffix}")
    b = plot(m, result, tmp_path / f"b{suffix}")
    assert a == tmp_path / f"a{suffix}"
    assert a.read_bytes().startswith(magic)
    assert a.read_bytes() == b.read_bytes()
    if suffix == ".pdf":
        assert b"CreationDate" not in a.read_bytes()


def test_plot_shows_the_series_and_the_target(project, tmp_path):
    m, result = _sweep(project)
    svg = plot(m, result, tmp_path / "g.svg").read_text()
    assert svg.count("<path") > 10


def test_plot_cli(tmp_path, capsys):
    out = tmp_path / "goodput.png"
    assert main(["plot", "goodput", "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["littles-law", "-o", "x.png"], "no sweep"), (["goodput", "-o", "x.gif"], "cannot draw"), (["goodput", "-o", "x.png", "--sweep", "nope"], "no sweep or frontier 'nope'")],
)
def test_plot_errors(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(["--root", str(__import__("tests.conftest").conftest.ROOT), "plot", *argv]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


# --- a chart a reader can read (issue 13.3) -----------------------------------------------------------------


def test_coinciding_series_are_told_apart(project):
    from chainc.backends.plot import figure

    m, result = _sweep(project)
    fig = figure(m, result, "NVIDIA H100 SXM5 80GB with Llama 3.1 8B")
    upper, lower = fig.axes
    lines = {line.get_label(): line for line in upper.get_lines()}
    throughput, goodput = lines["throughput"], lines["goodput"]
    assert throughput.get_linestyle() == "-" and goodput.get_linestyle() == "--"  # goodput lies on throughput up to the cliff
    assert goodput.get_zorder() > throughput.get_zorder() and throughput.get_linewidth() > goodput.get_linewidth()
    assert list(result.series["goodput"][:10]) == list(result.series["throughput"][:10])  # they do coincide there


def test_axes_run_over_the_data_and_titles_name_the_hardware(project):
    from chainc.backends.plot import figure

    m, result = _sweep(project)
    fig = figure(m, result, "NVIDIA H100 SXM5 80GB with Llama 3.1 8B")
    upper, lower = fig.axes
    assert lower.get_xlim() == (result.xs[0], result.xs[-1]) == (1, 256)  # not 300 for data that stops at 256
    assert upper.get_ylim()[1] < 1.1 * max(result.series["throughput"])
    texts = [t.get_text() for t in upper.texts] + [upper.get_title(loc="left")]
    assert "NVIDIA H100 SXM5 80GB with Llama 3.1 8B" in texts
    assert "Throughput keeps rising past the SLO; goodput falls off a cliff at it" in texts
    assert [t.get_text() for t in lower.texts] == ["tpot target = 10 ms/token"]  # the reference line, labelled with its value
    assert upper.yaxis.get_major_formatter()(10000) == "10,000"


def test_plot_cli_names_the_hardware_it_ran_on(tmp_path, monkeypatch):
    from chainc.backends import plot as plot_module

    seen = []
    real = plot_module.figure_bytes
    monkeypatch.setattr(plot_module, "figure_bytes", lambda model, result, fmt, hardware="": seen.append(hardware) or real(model, result, fmt, hardware))
    assert main(["plot", "goodput", "--gpu", "h200", "-o", str(tmp_path / "g.png")]) == 0
    assert seen == ["NVIDIA H200 SXM 141GB with Llama 3.1 8B"]


def test_movers_chart_is_deterministic(project):
    from chainc.backends.plot import movers_bytes, movers_figure
    from chainc.derivation import sheet
    from tests.conftest import reports

    movers = next(m for m in sheet(reports(project, ["goodput"])[0]).movers if m.question.name == "max_batch")
    assert movers_bytes(project.model("goodput"), movers, "pdf", "x") == movers_bytes(project.model("goodput"), movers, "pdf", "x")
    ax = movers_figure(project.model("goodput"), movers).axes[0]
    by_height = [t.get_text() for _, t in sorted(zip(ax.get_yticks(), ax.get_yticklabels()), key=lambda p: -p[0])]
    # the largest on top; bandwidth_efficiency scales the bandwidth, so it moves the boundary as much;
    # memory and step_overhead (at its default 0) move nothing
    assert by_height[:6] == ["bandwidth", "bandwidth efficiency", "tpot target", "context", "kv bytes per token", "weight bytes"]
    assert sorted(by_height[6:]) == ["memory", "step overhead"]
    assert [p.get_width() for p in ax.patches][0] == pytest.approx(1.921, abs=1e-3)
