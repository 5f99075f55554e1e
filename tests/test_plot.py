"""`chainc plot`: the sweep's figure, in PNG, SVG and PDF, the same bytes every time."""

from __future__ import annotations

import pytest

from chainc.backends.plot import plot
from chainc.cli import main
from chainc.errors import ArgumentError


@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_plot_writes_a_deterministic_figure(project, tmp_path, suffix, magic):
    a = plot(project, project.model("goodput"), tmp_path / f"a{suffix}")
    b = plot(project, project.model("goodput"), tmp_path / f"b{suffix}", sweep="batch")
    assert a == tmp_path / f"a{suffix}"
    assert a.read_bytes().startswith(magic)
    assert a.read_bytes() == b.read_bytes()
    if suffix == ".pdf":
        assert b"CreationDate" not in a.read_bytes()


def test_plot_shows_the_series_and_the_target(project, tmp_path):
    svg = plot(project, project.model("goodput"), tmp_path / "g.svg").read_text()
    assert svg.count("<path") > 10


def test_plot_cli(tmp_path, capsys):
    out = tmp_path / "goodput.png"
    assert main(["plot", "goodput", "-o", str(out)]) == 0
    assert out.stat().st_size > 10_000
    assert "wrote" in capsys.readouterr().out


def test_plot_errors(project, tmp_path):
    with pytest.raises(ArgumentError, match="no sweep"):
        plot(project, project.model("littles-law"), tmp_path / "x.png")
    with pytest.raises(ArgumentError, match="cannot draw"):
        plot(project, project.model("goodput"), tmp_path / "x.gif")
    with pytest.raises(ArgumentError, match="no sweep 'nope'"):
        plot(project, project.model("goodput"), tmp_path / "x.png", sweep="nope")
