"""The LaTeX backend: every sheet compiles cleanly, its PDF holds the card's numbers, and model text stays text."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from chainc.backends import BuildOptions, Unavailable, latex
from chainc.backends.latex.escape import latex_escape, name_tex, safe_symbol
from chainc.backends.latex.units import si_unit
from tests.conftest import reports
from tests.tools import require

# The card's numbers, in the forms the sheet prints them (4 significant figures, thousands separated).
CARD = {
    "goodput": ["16.06", "9.923", "6,450", "15.05", "8,505", "64.97", "64"],
    "hol-blocking": ["1.797", "0.2728", "0.1637", "1.782", "0.4114", "494.5"],
    "kv-ceiling": ["487,671", "43.12", "37.06", "327,680"],
    "littles-law": ["7.975", "79.75", "74.75", "2,990"],
    "long-prompt": ["494.5", "8,128", "13", "266", "35", "301", "9.923"],
    "p99-knee": ["4.605", "0.6938", "0.69", "11.11"],
    "swap-recompute": ["494.5", "5.243", "34.65", "7.565", "262,144"],
    "tenant-cost": ["500", "11,000", "22", "0.9565"],
}


@pytest.fixture(scope="module")
def built(project, tmp_path_factory):
    """Every model's sheet and derivations.tex, compiled once for the module."""
    require("pdflatex", "pdftotext", "pdftoppm")
    out = tmp_path_factory.mktemp("exports")
    result = latex.build_documents(reports(project, project.model_names()), "pdf", BuildOptions(out))
    return out, result


def pdftext(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], check=True, capture_output=True, text=True).stdout


def test_build_writes_tex_pdf_and_figures(project, built):
    out, result = built
    names = project.model_names()
    for n in names:
        assert (out / f"{n}.tex").is_file() and (out / f"{n}.pdf").read_bytes().startswith(b"%PDF")
    assert (out / "derivations.pdf").read_bytes().startswith(b"%PDF")
    assert (out / "figures" / "goodput-batch.pdf").is_file()
    assert set(result.compiled) == {*names, "derivations"}


def test_logs_are_clean(built):
    _, result = built
    for name, c in result.compiled.items():
        log = c.log
        assert "undefined references" not in log and not re.search(r"Reference .* undefined", log), name
        assert "Missing character" not in log, name
        for m in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log):
            assert float(m.group(1)) <= 10, f"{name}: {m.group(0)}"


@pytest.mark.parametrize("name", sorted(CARD))
def test_pdf_has_the_cards_numbers(built, name):
    out, _ = built
    text = pdftext(out / f"{name}.pdf")
    chains = pdftext(out / "derivations.pdf")
    for number in CARD[name]:
        assert number in text, f"{name}.pdf lacks {number}"
        assert number in chains
    assert "DISAGREE" not in text  # every check agrees


def test_goodput_shows_the_rearranged_batch(built):
    out, _ = built
    text = pdftext(out / "goodput.pdf")
    assert "Solving for b:" in text
    assert re.search(r"Mstep\s*−\s*W", text)  # b = (M_step - W) / (c s_KV)
    assert "c · sKV" in text
    assert re.search(r"b\s*=\s*⌊64\.97⌋\s*=\s*64", text)  # the rounding
    assert "In terms of the inputs" in text


def test_page_one_is_not_blank(built, tmp_path):
    out, _ = built
    subprocess.run(["pdftoppm", "-r", "40", "-f", "1", "-l", "1", "-gray", str(out / "goodput.pdf"), str(tmp_path / "p")], check=True)
    (page,) = tmp_path.glob("p*.pgm")
    data = page.read_bytes()
    # binary PGM: header 'P5\n<w> <h>\n255\n', then one byte a pixel
    header = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    pixels = data[header.end() :]
    dark = sum(1 for b in pixels if b < 200)
    assert dark > 0.01 * len(pixels)


def test_tex_is_deterministic(project, tmp_path):
    rs = reports(project, ["goodput", "hol-blocking"])
    a, _ = latex.render(rs, BuildOptions(tmp_path / "a"))
    b, _ = latex.render(rs, BuildOptions(tmp_path / "b"))
    assert a == b
    movers = {f"figures/goodput-{q}-movers.pdf" for q in ("max_batch", "fitting_batch_latency", "fitting_batch_memory", "fitting_batch")}
    assert set(a) == {"goodput.tex", "hol-blocking.tex", "derivations.tex", "figures/goodput-batch.pdf", *movers}


def test_pdf_is_reproducible(project, tmp_path):
    """Two builds, the same bytes: figures, bookmarks and links included (goodput has all three)."""
    require("pdflatex")
    files, _ = latex.render(reports(project, ["goodput"]), BuildOptions(tmp_path))
    again, _ = latex.render(reports(project, ["goodput"]), BuildOptions(tmp_path))
    assert files == again
    one = latex.compile_documents(files, ["goodput"], tmp_path / "one")
    two = latex.compile_documents(files, ["goodput"], tmp_path / "two")
    assert one["goodput"].pdf == two["goodput"].pdf
    assert b"CreationDate" not in one["goodput"].pdf and b"ModDate" not in one["goodput"].pdf


def test_no_tex_means_unavailable(project, tmp_path, monkeypatch):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(Unavailable) as e:
        latex.build(reports(project, ["littles-law"]), None, "pdf", BuildOptions(tmp_path / "out"))
    assert "pdflatex is not installed" in e.value.message
    assert "apt-get install texlive-latex-base" in e.value.hint
    assert not (tmp_path / "out").exists()  # nothing written
    # tex needs no tool
    written = latex.build(reports(project, ["littles-law"]), None, "tex", BuildOptions(tmp_path / "out"))
    assert sorted(p.name for p in written) == ["derivations.tex", "littles-law.tex"]


def test_cli_format_pdf_without_tex_exits_2(tmp_path, monkeypatch, capsys):
    from chainc.cli import main

    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert main(["build", "littles-law", "--format", "pdf", "--out", str(tmp_path / "out")]) == 2
    assert "pdflatex is not installed" in capsys.readouterr().err


# --- model text is text -----------------------------------------------------------------------------

NASTY = r"\input{/etc/passwd} \write18{touch x} $ % # & _ ^ ~ { } \\"

NASTY_MODEL = """\
name: nasty
title: 'Title \\input{/etc/passwd} \\write18{touch x} $ % # & _ ^ ~ { } \\'
about: 'About \\input{/etc/passwd} \\write18{touch x} $ % # & _ ^ ~ { } \\'
variables:
  a:
    value: 2
    symbol: '\\input{/etc/passwd}'
    description: 'Desc \\input{/etc/passwd} \\write18{touch x} $ % # & _ ^ ~ { } \\'
  b:
    symbol: '\\write18{touch x}'
    description: 'more \\immediate\\write18{touch x} text'
equations:
  - equation: b = 3 * a
    about: 'why \\input{/etc/passwd} \\write18{touch x} $ % # & _ ^ ~ { } \\'
checks:
  - about: 'check \\input{/etc/passwd} %'
    expect: {b: 6}
"""


def test_model_text_is_typeset_literally_and_runs_nothing(project, tmp_path):
    require("pdflatex", "pdftotext")
    path = tmp_path / "nasty.yaml"
    path.write_text(NASTY_MODEL)
    files, names = latex.render(reports(project, [str(path)]), BuildOptions(tmp_path / "out"))
    tex = files["nasty.tex"].decode()
    assert "\\input{" not in tex and "\\write18" not in tex and "\\immediate" not in tex
    work = tmp_path / "work"
    compiled = latex.compile_documents(files, names, work)
    assert not (work / "x").exists() and not Path("x").exists() and not (tmp_path / "x").exists()
    text = pdftext(work / "nasty.pdf")
    flat = re.sub(r"\s+", " ", text)
    for label in ("Title", "About", "why"):
        assert f"{label} \\input{{/etc/passwd}} \\write18{{touch x}} $ % # & _ ^ ~ {{ }} \\" in flat, label
    assert "Desc \\input{/etc/passwd} \\write18{touch x} $ % # & _ ^ ~ {" in flat  # a table cell: it wraps
    assert "\\immediate\\write18{touch x}" in flat
    assert "root:" not in text  # /etc/passwd was not read
    assert "runsystem" not in compiled["nasty"].log


def test_escape_and_symbols():
    assert latex_escape("a_b & c%") == r"a\_b \& c\%"
    assert latex_escape("\\input{x}") == r"\textbackslash{}input\{x\}"
    assert latex_escape("µs ≤ 1") == r"\textmu{}s \ensuremath{\leq} 1"
    assert safe_symbol(r"T_{\mathrm{POT}}") == r"T_{\mathrm{POT}}"
    assert safe_symbol(r"\bar T^{\mathrm{FCFS}}") is not None
    for bad in (r"\input{/etc/passwd}", r"\write18{x}", "x_", "a_b_c", "{", r"\def\x{1}", "$x$", "x % y"):
        assert safe_symbol(bad) is None, bad
    assert name_tex("rho") == r"\rho"
    assert name_tex("t_swap") == r"t_{\mathrm{swap}}"
    assert name_tex("p99") == "p_{99}"
    assert name_tex("kv_bytes_per_token") == r"\mathrm{kv\_bytes\_per\_token}"


@pytest.mark.parametrize(
    "unit, tex",
    [
        ("ms/token", r"\milli\second\per\token"),
        ("us/token", r"\micro\second\per\token"),
        ("TB/s", r"\tera\byte\per\second"),
        ("TFLOP/s", r"\tera\flop\per\second"),
        ("FLOP/token^2", r"\flop\per\token\squared"),
        ("1/token", r"\per\token"),
        ("KiB/token", r"\kibi\byte\per\token"),
        ("GiB", r"\gibi\byte"),
        ("GB", r"\giga\byte"),
        ("token/request", r"\token\per\request"),
        ("request/s", r"\request\per\second"),
        ("B", r"\byte"),
        ("", ""),
        ("furlong", None),
    ],
)
def test_units_for_siunitx(unit, tex):
    assert si_unit(unit) == tex


# --- loops, numeric steps, long equations and tables --------------------------------------------------

SHAPES = """\
name: shapes
title: Loops, numeric steps and long lines
variables:
  a:
    value: 7
  b:
    description: one of a pair solved together
  c:
    description: the other
  q:
    description: solved numerically
  n:
    value: 60
    integer: true
  very_long_variable_name_number_one:
    unit: GB
    value: 1
  very_long_variable_name_number_two:
    unit: GB
    value: 2
  very_long_variable_name_number_three:
    unit: GB
    value: 3
  total:
    unit: GB
tables:
  rows:
    about: a long table
    rows: n
    max_rows: 100
    columns:
      k:
        formula: prev.k + 1
      sq:
        formula: k * k
equations:
  - b + c = 2 * a
  - b - c = a
  - a = 2 * q + min(q, 1)
  - total = very_long_variable_name_number_one + very_long_variable_name_number_two + very_long_variable_name_number_three + very_long_variable_name_number_one * very_long_variable_name_number_two / very_long_variable_name_number_three + very_long_variable_name_number_three * very_long_variable_name_number_two / very_long_variable_name_number_one
"""


def test_loops_numeric_steps_long_lines_and_long_tables(project, tmp_path):
    require("pdflatex", "pdftotext")
    path = tmp_path / "shapes.yaml"
    path.write_text(SHAPES)
    files, names = latex.render(reports(project, [str(path)]), BuildOptions(tmp_path / "out"))
    tex = files["shapes.tex"].decode()
    assert "algebraic loop" in tex and "Solving jointly for" in tex
    assert "solved numerically" in tex
    assert r"\begin{longtable}" in tex
    assert r"&\quad" in tex  # the long sum breaks across lines
    compiled = latex.compile_documents(files, ["shapes"], tmp_path / "work")
    for m in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\)", compiled["shapes"].log):
        assert float(m.group(1)) <= 10, m.group(0)
    text = pdftext(tmp_path / "work" / "shapes.pdf")
    assert "10.5" in text and "3.5" in text  # b and c
    assert "bracketed root search" in text
    assert "3,600" in text  # the last row of the long table


def test_a_model_named_like_the_bundle_is_a_located_error(tmp_path):
    """derivations.tex is every chain's document: a model of that name would overwrite it (or it the model)."""
    from chainc import Project
    from chainc.errors import OutputError

    from .conftest import ROOT

    (tmp_path / "models").mkdir()
    text = (ROOT / "models" / "littles-law.yaml").read_text().replace("name: littles-law", "name: derivations")
    (tmp_path / "models" / "derivations.yaml").write_text(text)
    with pytest.raises(OutputError) as e:
        latex.render(reports(Project(tmp_path), ["derivations"]), BuildOptions(tmp_path / "out"))
    assert "derivations.yaml" in str(e.value.loc) and "rename the model" in e.value.hint
