"""Derivation sheets a reviewer can cite (issue 13): footers, bookmarks, aligned numbers, checks as mathematics,
boundaries with the digits their rounding needs, references on other hardware, and what moves each answer."""

from __future__ import annotations

import re
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from chainc import __version__
from chainc.backends import BuildOptions, latex
from chainc.backends.latex.escape import ident, pdf_text, prose
from chainc.backends.latex.units import s_cell, s_column
from chainc.derivation import sheet
from chainc.derivation.shown import shown_boundary
from tests.conftest import reports
from tests.tools import require


def pdftext(path: Path, page: int | None = None) -> str:
    pages = ["-f", str(page), "-l", str(page)] if page else []
    return subprocess.run(["pdftotext", "-layout", *pages, str(path), "-"], check=True, capture_output=True, text=True).stdout


def flat(text: str) -> str:
    """Text with its whitespace runs as single spaces and typographic quotes as ASCII."""
    return re.sub(r"\s+", " ", text).replace("’", "'")


def pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], check=True, capture_output=True, text=True).stdout
    return int(re.search(r"Pages:\s+(\d+)", info).group(1))


@pytest.fixture(scope="module")
def goodput(project, tmp_path_factory):
    """goodput.pdf and derivations.pdf of goodput and p99-knee (the models with questions), compiled once."""
    require("pdflatex", "pdftotext", "pdfinfo")
    out = tmp_path_factory.mktemp("sheets")
    built = latex.build_documents(reports(project, ["goodput", "p99-knee"]), "pdf", BuildOptions(out))
    return out, built


@pytest.fixture(scope="module")
def on_h200(project, tmp_path_factory):
    """goodput on hardware other than its own: the card's checks are references there."""
    require("pdflatex", "pdftotext")
    out = tmp_path_factory.mktemp("h200")
    latex.build_documents(reports(project, ["goodput"], gpu="h200"), "pdf", BuildOptions(out))
    return out


# --- every page names what it was made from ------------------------------------------------------------


def test_every_page_names_the_model_file_its_hash_the_hardware_and_chainc(project, goodput):
    out, _ = goodput
    report = reports(project, ["goodput"])[0]
    digest = report.digest[:12]
    assert re.fullmatch(r"[0-9a-f]{12}", digest)
    assert report.digest == __import__("hashlib").sha256((project.root / "models" / "goodput.yaml").read_bytes()).hexdigest()
    pdf = out / "goodput.pdf"
    for k in range(1, pages(pdf) + 1):
        text = flat(pdftext(pdf, k))
        assert f"Model file models/goodput.yaml, sha256 {digest}" in text, k
        assert f"NVIDIA H100 SXM5 80GB with Llama 3.1 8B; chainc {__version__}" in text, k


def test_chains_pages_name_their_own_model(goodput):
    out, _ = goodput
    pdf = out / "derivations.pdf"
    first = flat(pdftext(pdf, 1))
    assert f"chainc {__version__}: every chain's derivation sheet, 2 models" in first
    footers = [flat(pdftext(pdf, k)) for k in range(1, pages(pdf) + 1)]
    assert any("models/goodput.yaml" in f for f in footers) and any("models/p99-knee.yaml" in f and "no GPU or LLM" in f for f in footers)
    assert not any("models/goodput.yaml" in f and "models/p99-knee.yaml" in f for f in footers)


# --- bookmarks and a clickable table of contents ----------------------------------------------------------


def _outline(path: Path) -> list[tuple[int, str, int]]:
    pypdf = pytest.importorskip("pypdf")
    reader = pypdf.PdfReader(str(path))
    found = []

    def walk(items, depth):
        for item in items:
            if isinstance(item, list):
                walk(item, depth + 1)
            else:
                found.append((depth, item.title, reader.get_destination_page_number(item) + 1))

    walk(reader.outline, 0)
    return found


def test_bookmarks(goodput):
    out, _ = goodput
    standalone = [(d, t) for d, t, _ in _outline(out / "goodput.pdf")]
    assert standalone[0] == (0, "Goodput at a TPOT target")
    for title in ("GPU: NVIDIA H100 SXM5 80GB", "Inputs", "Derivation", "Question max_batch", "What moves batch most", "Checks"):
        assert (1, title) in standalone, title
    chains = _outline(out / "derivations.pdf")
    titles = [(d, t) for d, t, _ in chains]
    assert (1, "1 Goodput at a TPOT target") in titles and (1, "2 The p99 TTFT knee") in titles
    assert (2, "What moves utilization most") in titles
    assert [p for _, _, p in chains] == sorted(p for _, _, p in chains)  # in page order


def test_table_of_contents_links(goodput):
    pypdf = pytest.importorskip("pypdf")
    out, _ = goodput
    reader = pypdf.PdfReader(str(out / "derivations.pdf"))
    links = [a.get_object() for a in reader.pages[0].get("/Annots", [])]
    internal = [a for a in links if a.get("/Subtype") == "/Link" and ("/Dest" in a or "/A" in a)]
    assert len(internal) >= 10  # a link per contents line
    assert "Contents" in pdftext(out / "derivations.pdf", 1)


# --- numbers aligned on the decimal point, identifiers whole ---------------------------------------------


def test_tables_use_s_columns(goodput):
    out, _ = goodput
    tex = (out / "goodput.tex").read_text()
    inputs = tex[tex.index(r"\chainsubsection{Inputs}") : tex.index(r"\chainsubsection{Derivation}")]
    assert r"XS[table-format=6.2]@{\,}ll@{}" in inputs  # the value, then its unit in a column of its own
    assert "& 131072 & \\unit{\\byte\\per\\token} &" in inputs
    catalog = tex[tex.index(r"\chainsubsection{LLM") : tex.index(r"\chainsubsection{Inputs}")]
    assert "S[table-format=6.2]" in catalog
    checks = tex[tex.index(r"\chainsubsection{Checks}") :]
    assert re.search(r"S\[table-format=<4\.2,table-column-width=[\d.]+em\]S\[table-format=4\.3,table-column-width=[\d.]+em\]", checks)


def test_s_cells_and_columns():
    assert s_cell("6,450") == "6450" and s_cell("5.243e-06") == "5.243e-06"
    assert s_cell("34.35", ">=") == r"\geq 34.35"
    assert s_cell("inf") == "{inf}" and s_cell("$x\\input{y}") == r"{\$x\textbackslash{}input\{y\}}"  # text, escaped
    assert s_column(["131072", "3.35", "-0.921", "1.970e+434"]) == "S[table-format=-6.3e3]"
    assert s_column([r"\geq 34.35", "8482"]) == "S[table-format=<4.2]"
    assert s_column(["64"], fixed=4.6) == "S[table-format=2.0,table-column-width=4.6em]"


def test_identifiers_do_not_break(goodput):
    out, _ = goodput
    assert ident("llm.kv_bytes_per_token") == r"\mbox{\texttt{llm.kv\_bytes\_per\_token}}"
    broken = ident("a_b.c", breakable=True)
    assert broken.count(r"\discretionary{\chainbreakmark}{}{}") == 2  # after _ and after ., with a visible mark
    assert prose("see max_num_batched_tokens.") == r"see max\_\discretionary{\chainbreakmark}{}{}num\_\discretionary{\chainbreakmark}{}{}batched\_\discretionary{\chainbreakmark}{}{}tokens."
    assert pdf_text("≤ 1 µs_x") == r"\textless{}= 1 us\_x"  # commands hyperref turns into characters in bookmarks
    text = pdftext(out / "goodput.pdf")
    for name in ("llm.kv_bytes_per_token", "gpu.memory_bandwidth", "llm.weight_bytes"):
        assert name in text  # on one line: the Source column no longer breaks llm.kv_bytes_per_ / token


# --- checks: relations as mathematics, references on other hardware ----------------------------------------


def test_that_checks_are_mathematics_with_both_sides(goodput):
    out, _ = goodput
    tex = (out / "goodput.tex").read_text()
    assert r"$M_{\mathrm{step}} - W$ & \leq 34.5 & 34.36 & \unit{\giga\byte} & \chainok" in tex
    assert r"$X$ & \geq 8482 & 8505 & \unit{\token\per\second} & \chainok" in tex
    assert "step\\_bytes - weight\\_bytes <=" not in tex  # the relation is typeset, not quoted as code
    text = flat(pdftext(out / "goodput.pdf"))
    assert "≤ 34.5 34.36 GB agree" in text and "≥ 34.35 34.36 GB agree" in text


def test_relation_of_two_quantities_shows_both_values(project):
    s = sheet(reports(project, ["hol-blocking"])[0])
    (rel,) = [r for c in s.checks for r in c.relations]
    assert (rel.left.text, rel.right.text, rel.left.unit, rel.holds) == ("1.797", "1.633", "s", True)


def test_other_hardware_checks_are_references_never_failures(on_h200):
    text = flat(pdftext(on_h200 / "goodput.pdf"))
    assert "These checks were written for NVIDIA H100 SXM5 80GB with Llama 3.1 8B; this sheet is for NVIDIA H200 SXM 141GB with Llama 3.1 8B" in text
    assert "DISAGREE" not in text and "FAIL" not in text
    assert "6,450 9,242 token/s reference" in text  # the card's number beside this hardware's
    assert "Reference Computed" in text  # the header of references (on its own hardware: Expected)


# --- boundaries with the digits their rounding needs ------------------------------------------------------


class _Count:
    factor, unit = 1, ""


@pytest.mark.parametrize(
    ("boundary", "value", "kind", "step", "back", "text"),
    [
        (Fraction(153949, 10), 15394, "floor", 1, False, "15,394.9"),  # not ⌊15,395⌋ = 15,394
        (Fraction(649671, 10000), 64, "floor", 1, False, "64.97"),
        (Fraction(64), 64, "floor", 1, False, "64"),
        (Fraction(6400001, 100000), 65, "ceiling", 1, False, "64.00001"),
        (Fraction(64), 63, "floor", 1, True, "64"),  # a strict condition, one step back
        (Fraction(6938, 10000), Fraction(69, 100), "floor", Fraction(1, 100), False, "0.6938"),
        (Fraction(1189841, 10000), 118, "floor", 1, False, "118.98"),
    ],
)
def test_boundary_digits(boundary, value, kind, step, back, text):
    assert shown_boundary(_Count, boundary, value, kind, step, back).text == text


def test_boundary_on_h200_shows_its_floor(on_h200):
    text = pdftext(on_h200 / "goodput.pdf")
    assert re.search(r"b\s*=\s*⌊118\.98⌋\s*=\s*118", text)


# --- what moves each answer most ----------------------------------------------------------------------------


def test_report_holds_the_sensitivities(project):
    r = reports(project, ["goodput"])[0]
    rows = r.sensitivities["max_batch"]
    assert [x.input for x in rows][:3] == ["bandwidth", "bandwidth_efficiency", "tpot_target"] and rows[0].elasticity == pytest.approx(1.921, abs=1e-3)
    none = reports(project, ["goodput"], gpu="l40s")[0]  # no batch meets 10 ms there: no answer, no sensitivities
    assert "max_batch" not in none.sensitivities


def test_sensitivity_section_and_its_chart(goodput):
    out, _ = goodput
    assert (out / "figures" / "goodput-max_batch-movers.pdf").read_bytes().startswith(b"%PDF")
    text = flat(pdftext(out / "goodput.pdf"))
    assert "What moves b most" in text
    assert "HBM bandwidth 3.35 TB/s 1.921 symbolic" in text
    assert "bytes of weights read every decode step 16.06 GB −0.921 symbolic" in text
    assert "Figure 1: What moves the boundary of max_batch most" in text


def test_question_without_an_answer_is_said_not_raised(project, tmp_path):
    require("pdflatex", "pdftotext")
    built = latex.build_documents(reports(project, ["goodput"], gpu="l40s"), "pdf", BuildOptions(tmp_path))
    assert "goodput" in built.compiled
    text = flat(pdftext(tmp_path / "goodput.pdf"))
    assert "No answer here. question max_batch: no batch meets tpot <= tpot_target" in text
    assert "boundary of max_batch" not in text and "What moves batch most (max_batch" not in text  # no answer, no sensitivities
    assert "boundary of fitting_batch_memory" in text  # the memory condition alone has one: 118 on the L40S's 48 GB


def test_logs_are_clean_and_one_run_is_enough(goodput):
    _, built = goodput
    for name, c in built.compiled.items():
        for m in re.finditer(r"Overfull \\hbox \(([\d.]+)pt too wide\)", c.log):
            assert float(m.group(1)) <= 10, f"{name}: {m.group(0)}"
        assert "Rerun LaTeX" not in c.log and "Rerun to get" not in c.log, name
        assert "Token not allowed in a PDF string" not in c.log, name
    assert built.compiled["goodput"].runs == 1  # bookmarks need no second run; fixed-width longtables neither


# --- the check tables fit the page ------------------------------------------------------------------------

WIDE = ["moe", "tensor-parallel", "paged-kv", "quantization"]  # checks beside values like 46,702,792,704 and 1.288e10


def test_every_check_row_shows_its_status_on_the_page(project, tmp_path):
    """A wide check table (1,605,636,096 beside 1.288 x 10^10) clipped its status column: each check's row must show
    its status ('agree') in the PDF's text, as many as the sheet has comparisons."""
    require("pdflatex", "pdftotext")
    built = reports(project, WIDE)
    latex.build_documents(built, "pdf", BuildOptions(tmp_path))
    for name, report in zip(WIDE, built, strict=True):
        rows = sum(len(c.expected) + len(c.relations) for c in sheet(report).checks)
        text = pdftext(tmp_path / f"{name}.pdf")
        assert len(re.findall(r"\b(agree|disagree)\s*$", text, re.MULTILINE)) == rows, (name, rows)
