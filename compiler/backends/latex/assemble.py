"""Assembling the tex build: each Report's sheet rendered into the templates, the figures, the documents.

One `<model>.tex` per chain and `derivations.tex` with every chain (not `chains`: the
workbook is chains.xlsx, and printing it to PDF beside it must not overwrite the bundle); each is a
standalone document whose body is the same rendered sheet (templates/sheet.tex.j2
inside templates/document.tex.j2). A sweep's figure is a matplotlib PDF under
figures/. `--format pdf` compiles them (compile.py) and moves the PDFs beside them.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2

from ... import __version__
from ...derivation import sheet
from ...errors import OutputError
from ...format import fmt
from ...results import CatalogReport, Report
from .. import BuildOptions, write_atomic
from .calibration import calibration_view
from .compile import Compiled, compile_documents, tools_or_unavailable
from .escape import Tex, pdf_text, prose
from .views import sheet_view

TEMPLATES = Path(__file__).with_name("templates")
BUNDLE = "derivations"  # the every-chain document's base name


def environment() -> jinja2.Environment:
    """The templates' environment: (((value))) prints Tex as it is and escapes anything else as prose."""

    def finalize(value):
        if isinstance(value, Tex):
            return value
        if value is None:
            return ""
        return prose(str(value))  # anything not made by our printers is prose: escape it

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        block_start_string="((*",
        block_end_string="*))",
        variable_start_string="(((",
        variable_end_string=")))",
        comment_start_string="((=",
        comment_end_string="=))",
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        undefined=jinja2.StrictUndefined,
        finalize=finalize,
    )


def sheet_body(env: jinja2.Environment, report: Report) -> tuple[str, dict[str, bytes]]:
    """One model's sheet as the template renders it (what <model>.tex and derivations.tex hold), and its figures."""
    from ..frontier import frontier_bytes
    from ..plot import calibration_bytes, figure_bytes, movers_bytes

    m = report.model
    s = sheet(report)
    files: dict[str, bytes] = {}
    figures = []
    for r in s.sweeps:
        rel = f"figures/{m.name}-{r.sweep.name}.pdf"
        files[rel] = figure_bytes(m, r, "pdf", s.hardware_text)
        shown_ = ", ".join(n.replace("_", " ") for n in r.sweep.show)
        caption = f"{m.title}: {shown_} against {r.sweep.over.replace('_', ' ')}, from {fmt(r.xs[0])} to {fmt(r.xs[-1])}"
        if s.hardware_text:
            caption += f", on {s.hardware_text}"
        if r.sweep.reference and r.reference is not None:
            caption += f"; the grey dotted line is {r.sweep.reference.replace('_', ' ')}, {fmt(r.reference)} {m.variables[r.sweep.reference].unit}".rstrip()
        figures.append((rel, caption + "."))
    movers = {}
    for mv in s.movers:
        rel = f"figures/{m.name}-{mv.question.name}-movers.pdf"
        files[rel] = movers_bytes(m, mv, "pdf", s.hardware_text)
        movers[mv.question.name] = rel
    charts = {}
    for sv in s.searches:
        if sv.search.frontier and sv.chosen is not None and sv.chosen.order:
            rel = f"figures/{m.name}-{sv.search.name}-frontier.pdf"
            files[rel] = frontier_bytes(m, sv.chosen, "pdf", sv.hardware)
            charts[sv.search.name] = (rel, frontier_caption(sv))
    fit = None
    if report.calibration is not None and report.calibration.rows:  # measured against predicted, from the recorded rows
        fit = f"figures/{m.name}-calibration.pdf"
        files[fit] = calibration_bytes(report.calibration, "pdf", report.calibration.measured_on)  # the runs' hardware, not the sheet's
    view = sheet_view(m, s, figures, movers, charts)
    view["calibration"] = calibration_view(report.calibration, fit)
    return env.get_template("sheet.tex.j2").render(s=view), files


def frontier_caption(sv) -> str:
    """What the chart shows, in words: the drawn configurations, the frontier, what is left out, the hardware."""
    from ..frontier import points

    c = sv.chosen
    x, y = (g.name.replace("_", " ") for g in c.search.goals)
    drawn = len(points(c)[0])
    caption = f"{x} against {y}: the {drawn} configurations that meet every condition in grey, the frontier's {len(c.order)} points joined in blue, numbered as in the table"
    failing = len(c.configs) - c.feasible
    if failing:
        caption += f"; the {failing} that fail a condition are not drawn"
    return caption + (f"; on {sv.hardware}" if sv.hardware else "") + "."


def render(reports: list[Report], options: BuildOptions) -> tuple[dict[str, bytes], list[str]]:
    """Every file of the tex build (relative path -> bytes), and the names of the documents to compile."""
    for r in reports:
        if r.model.name == BUNDLE:
            raise OutputError(f"a model named {BUNDLE} would write {BUNDLE}.tex, the bundle of every chain's derivation", r.model.loc, "rename the model (its `name:`)")
    env = environment()
    files: dict[str, bytes] = {}
    bodies = []
    for report in reports:
        m = report.model
        body, figures = sheet_body(env, report)
        files.update(figures)
        bodies.append(Tex(body))
        doc = env.get_template("document.tex.j2").render(standalone=True, bodies=[Tex(body)], title=m.title, pdf_title=pdf_text(m.title), intro="", version=__version__)
        files[f"{m.name}.tex"] = doc.encode()
    intro = "Every chain's derivation sheet, one per section: inputs, each equation solved in order with its numbers, the questions, what moves their answers, and the checks."
    title = "chainc: the chains"
    doc = env.get_template("document.tex.j2").render(standalone=False, bodies=bodies, title=title, pdf_title=pdf_text(title), intro=intro, version=__version__, count=len(reports))
    files[f"{BUNDLE}.tex"] = doc.encode()
    names = [r.model.name for r in reports] + [BUNDLE]
    return files, names


@dataclass(frozen=True)
class Built:
    paths: list[Path]
    compiled: dict[str, Compiled]


def build_documents(reports: list[Report], fmt: str, options: BuildOptions) -> Built:
    if fmt == "pdf":
        tools_or_unavailable()  # before any work or output
    files, names = render(reports, options)
    compiled: dict[str, Compiled] = {}
    if fmt == "pdf":
        with tempfile.TemporaryDirectory(prefix="chainc-tex-") as tmp:
            compiled = compile_documents(files, names, Path(tmp))
    out = Path(options.out)
    paths = []
    for rel, data in sorted(files.items()):
        write_atomic(out / rel, data)
        paths.append(out / rel)
    for n in names:
        if n in compiled:
            write_atomic(out / f"{n}.pdf", compiled[n].pdf)
            paths.append(out / f"{n}.pdf")
    return Built(paths, compiled)


def build(reports: list[Report], catalog: CatalogReport, fmt: str, options: BuildOptions) -> list[Path]:
    """`--format tex`: the .tex files and figures; `--format pdf`: those and the compiled PDFs."""
    return build_documents(reports, fmt, options).paths
