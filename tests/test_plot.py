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
    [(["littles-law", "-o", "x.png"], "no sweep"), (["goodput", "-o", "x.gif"], "cannot draw"), (["goodput", "-o", "x.png", "--sweep", "nope"], "no sweep 'nope'")],
)
def test_plot_errors(tmp_path, capsys, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(["--root", str(__import__("tests.conftest").conftest.ROOT), "plot", *argv]) == 2
    assert message in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
