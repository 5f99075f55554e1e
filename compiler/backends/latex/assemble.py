"""Assembling the tex build: each Report's sheet rendered into the templates, the figures, the documents.

One `<model>.tex` per chain and `chains.tex` with every chain; each is a
standalone document whose body is the same rendered sheet (templates/sheet.tex.j2
inside templates/document.tex.j2). A sweep's figure is a matplotlib PDF under
figures/. `--format pdf` compiles them (compile.py) and moves the PDFs beside them.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2

from ...derivation import sheet
from ...format import fmt
from ...results import CatalogReport, Report
from .. import BuildOptions, write_atomic
from .compile import Compiled, compile_documents, tools_or_unavailable
from .escape import Tex, latex_escape
from .views import sheet_view

TEMPLATES = Path(__file__).with_name("templates")


def _env() -> jinja2.Environment:
    def finalize(value):
        if isinstance(value, Tex):
            return value
        if value is None:
            return ""
        return latex_escape(str(value))  # anything not made by our printers is prose: escape it

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


def render(reports: list[Report], options: BuildOptions) -> tuple[dict[str, bytes], list[str]]:
    """Every file of the tex build (relative path -> bytes), and the names of the documents to compile."""
    from ..plot import figure_bytes

    env = _env()
    files: dict[str, bytes] = {}
    bodies = []
    for report in reports:
        m = report.model
        s = sheet(report)
        figures = []
        for r in s.sweeps:
            rel = f"figures/{m.name}-{r.sweep.name}.pdf"
            files[rel] = figure_bytes(m, r, "pdf")
            shown_ = ", ".join(n.replace("_", " ") for n in r.sweep.show)
            caption = f"{m.title}: {shown_} against {r.sweep.over.replace('_', ' ')}, from {fmt(r.xs[0])} to {fmt(r.xs[-1])}"
            if r.sweep.reference:
                caption += f"; the dashed line is {r.sweep.reference.replace('_', ' ')}"
            figures.append((rel, caption + "."))
        body = env.get_template("sheet.tex.j2").render(s=sheet_view(m, s, report.source, figures))
        bodies.append(Tex(body))
        doc = env.get_template("document.tex.j2").render(standalone=True, bodies=[Tex(body)], title=m.title, intro="")
        files[f"{m.name}.tex"] = doc.encode()
    intro = "Every chain's derivation sheet, one per section: inputs, each equation solved in order with its numbers, the questions, and the card's checks."
    doc = env.get_template("document.tex.j2").render(standalone=False, bodies=bodies, title="chainc: the chains", intro=intro)
    files["chains.tex"] = doc.encode()
    names = [r.model.name for r in reports] + ["chains"]
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
