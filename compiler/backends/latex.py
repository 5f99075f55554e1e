"""LaTeX derivation sheets (`--format tex`) and their PDFs (`--format pdf`).

One `<model>.tex` per chain and `chains.tex` with every chain; each is a
standalone document whose body is the same rendered sheet (templates/sheet.tex.j2
inside templates/document.tex.j2). A sweep's figure is a matplotlib PDF under
figures/. PDFs are compiled by pdflatex in a temporary folder, without shell
escape, halting on the first error, then moved into the output folder.

Same inputs, same bytes: the .tex is printed from sorted data, the figures carry
no dates, and pdflatex runs with SOURCE_DATE_EPOCH, \\pdfinfoomitdate and an empty
\\pdftrailerid.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jinja2
import sympy as sp

from ..derivation import Sheet, Shown, Step, sheet
from ..errors import ChaincError
from ..format import fmt
from ..ir import Model
from ..results import CatalogReport, Report
from . import BuildOptions, Unavailable, write_atomic
from .latex_print import SheetPrinter, Tex, broken, latex_escape, number_tex, quantity_tex, symbol_tex, unit_tex

TEMPLATES = Path(__file__).with_name("templates")
LINE = 58.0  # characters of math that fit beside an aligned left side
LONG_TABLE = 40  # rows: longer tables break across pages
INSTALL = "apt-get install texlive-latex-base texlive-latex-recommended texlive-science texlive-fonts-recommended latexmk"
SOURCE_DATE_EPOCH = "1700000000"


class LatexError(ChaincError, RuntimeError):
    """pdflatex stopped on an error."""


# --- from a sheet to template values ------------------------------------------------------------------


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


def ident(name: str) -> Tex:
    """An identifier in text, allowed to break after underscores."""
    return Tex(r"\texttt{" + latex_escape(name).replace(r"\_", r"\_\allowbreak{}") + "}")


def _math(tex: str) -> Tex:
    return Tex(f"${tex}$")


def _rows(lhs: str, lines: list[str], first_op: str = "&=") -> list[str]:
    out = [f"{lhs} {first_op} {lines[0]}"]
    out += [rf"&\quad {line}" for line in lines[1:]]
    return out


def step_tex(model: Model, step: Step, prefix: str = "") -> Tex:
    """A derivation step: heading, the equation(s) as stated, 'solving for', substitution, result."""
    sym = SheetPrinter(model)
    vals = SheetPrinter(model, step.values)
    names = ", ".join(f"${symbol_tex(model.variables[n])}$" for n in step.unknowns)
    desc = "; ".join(latex_escape(model.variables[n].description) for n in step.unknowns if model.variables[n].description)
    line = step.equations[0].loc.line
    head = rf"\chainstep{{Step {prefix}{step.number}.}}{{{names}" + (f", {desc}" if desc else "") + rf"\hfill\chainmuted{{\footnotesize line {line}}}}}"
    parts = [head]
    about = "; ".join(e.about for e in step.equations if e.about)
    if about:
        parts.append(r"\emph{" + latex_escape(about) + "}\\par")
    stated = []
    for lhs, rhs in step.stated:
        stated += _rows(sym.doprint(lhs), broken(sym, rhs, LINE))
    if step.loop or step.rearranged or step.method == "numeric":
        intro = "The equations form an algebraic loop, solved as a system:" if step.loop else "The model states"
        parts.append(intro)
        parts.append("\\begin{align*}\n" + " \\\\\n".join(stated) + "\n\\end{align*}")
    rows = []
    if step.method == "numeric":
        parts.append(f"No closed form: solved numerically for {names} ({latex_escape(step.how or 'bracketed root search')}).")
        for n, v in step.results:
            rows.append(f"{symbol_tex(model.variables[n])} &= {quantity_tex(v)}")
    else:
        if step.rearranged:
            word = "solving jointly for" if step.loop else "solving for"
            parts.append(f"{word.capitalize()} {names}:")
        for (n, form), (_, sub), (_, result) in zip(step.forms, step.substitutions, step.results):
            lhs = symbol_tex(model.variables[n])
            rows += _rows(lhs, broken(sym, form, LINE)) if step.rearranged else stated[: len(stated)]
            if not (sub.is_Symbol or sub.is_Number):
                rows += _rows("", broken(vals, sub, LINE))
            rows.append(f"&= {quantity_tex(result)}")
    parts.append("\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}")
    return Tex("\n".join(parts))


def _catalog_view(model: Model, s: Sheet) -> list[dict]:
    out = []
    for c in s.catalog:
        rows = []
        for ref, _latex, description, value in c.values:
            rows.append({"ref": ident(ref), "description": description, "number": Tex(number_tex(value.text)), "unit": Tex(unit_tex(value.unit))})
        label = {"gpu": "GPU", "llm": "LLM"}.get(c.kind, f"Model {c.kind}")
        out.append({"kind_label": label, "title": c.title, "id": c.id, "rows": rows, "is_model": c.kind not in ("gpu", "llm")})
    return out


def _inputs_view(model: Model, s: Sheet) -> list[dict]:
    out = []
    for i in s.inputs:
        v = model.variables[i.name]
        source = ident(i.source) if "." in i.source else i.source
        out.append({"symbol": _math(symbol_tex(v)), "description": i.description or ident(i.name), "number": Tex(number_tex(i.value.text)), "unit": Tex(unit_tex(i.value.unit)), "source": source})
    return out


def _table_view(model: Model, t) -> dict:
    printer = SheetPrinter(model)
    table = model.tables[t.name]
    formulas = []
    for c in table.columns:
        from ..derivation import _Dims

        dims = _Dims(model)
        expr = dims.restore(c.expr, c.dim)
        formulas += _rows(printer._print_Symbol(c.sym), broken(printer, expr, LINE))
    header = " & ".join([r"$i$"] + [_math(printer._print_Symbol(c.sym).replace("_{i}", "")) if c.latex else _stacked(c.name) for c in t.columns])
    units = " & ".join([""] + [Tex(unit_tex(c.unit)) for c in t.columns])
    rows = [Tex(" & ".join([str(k)] + [number_tex(x) for x in row])) for k, row in enumerate(t.rows, 1)]
    return {
        "name": t.name,
        "about": t.about,
        "formulas": Tex(" \\\\\n".join(formulas)),
        "colspec": Tex("@{}r" + "r" * len(t.columns) + "@{}"),
        "header": Tex(header),
        "units": Tex(units),
        "rows": rows,
        "long": len(t.rows) > LONG_TABLE,
    }


def _stacked(name: str) -> Tex:
    """A column name in a header, one word a line: long_first_token takes three short lines."""
    words = [latex_escape(w) for w in name.split("_") if w]
    return Tex(r"\begin{tabular}[b]{@{}r@{}}" + r"\_\\".join(words) + r"\end{tabular}")


def _rounding(q, printer) -> tuple[Tex, Tex]:
    r = q.rounding
    var = _math(symbol_tex(q.variable))
    lhs = symbol_tex(q.variable)
    b, v = quantity_tex(r.boundary), quantity_tex(r.value)
    if r.kind in ("floor", "ceiling"):
        lo, hi = (r"\left\lfloor", r"\right\rfloor") if r.kind == "floor" else (r"\left\lceil", r"\right\rceil")
        side = "down" if r.kind == "floor" else "up"
        if r.step is not None and r.step.value == 1 and not r.step.unit:
            eq = f"{lhs} = {lo} {b} {hi} = {v}"
            words = f"The boundary is {var} $= {b}$; rounded {side} to a whole number, on the side that meets the condition:"
        else:
            st = quantity_tex(r.step)
            eq = rf"{lhs} = {st} \cdot {lo} \frac{{{b}}}{{{st}}} {hi} = {v}"
            words = f"The boundary is {var} $= {b}$; rounded {side} to steps of ${st}$, on the side that meets the condition:"
        if r.stepped_back:
            words += " (the condition is strict, so the answer is one step further in)"
        return Tex(words), Tex(eq)
    if r.kind == "edge":
        return Tex(f"The condition holds up to the edge of the domain of {var}:"), Tex(f"{lhs} = {v}")
    return Tex("The answer is the boundary itself:"), Tex(f"{lhs} = {v}")


def _question_view(model: Model, q) -> dict:
    printer = SheetPrinter(model)
    from ..derivation import _Dims

    dims = _Dims(model)
    cond = dims.restore(q.question.condition)
    words, eq = _rounding(q, printer)
    closed = None
    if q.closed_form is not None:
        form = dims.restore(q.closed_form, q.variable.dim)
        closed = Tex(" \\\\\n".join(_rows(symbol_tex(q.variable), broken(printer, form, LINE))))
    return {
        "name": q.question.name,
        "ask": q.question.ask or q.question.condition_text,
        "seek": q.question.seek,
        "find": _math(symbol_tex(q.variable)),
        "condition": _math(printer.doprint(cond)),
        "steps": [{"tex": step_tex(model, st, "B")} for st in q.steps],
        "searched": not q.steps and q.rounding.kind != "edge",  # a jump or a stretch of equality, found by searching
        "closed_form": closed,
        "rounding_words": words,
        "rounding": eq,
    }


def _in_unit(got: Shown, written: str, model: Model, name: str) -> Shown:
    """The computed value in the unit the expectation is written in (320 KiB/token, not 327,680 B/token)."""
    from ..units import BadUnit, parse_quantity, parse_unit

    try:
        _, unit = parse_quantity(written)
        if not unit or unit == got.unit:
            return got
        _, factor, dim = parse_unit(unit)
    except BadUnit:
        return got
    var = model.variables[name]
    if dim != var.dim:
        return got
    value = sp.Float(got.value) * var.factor / factor
    return Shown(fmt(value), unit, float(value), bool(value < 0))


def _checks_view(model: Model, s: Sheet) -> list[dict]:
    out = []
    for c in s.checks:
        about = latex_escape(c.check.about or "check")
        if c.given:
            about = Tex(about + r" \chainmuted{(given " + ", ".join(f"${symbol_tex(model.variables[n])} = {quantity_tex(v)}$" for n, v in c.given) + ")}")
        rows = []
        for k, e in enumerate(c.expected):
            name = e.label.split(": ")[-1]
            got = _in_unit(e.got, e.written, model, name)
            var = model.variables[name]
            rows.append(
                {
                    "about": Tex(about if k == 0 else ""),
                    "expected": e.written,
                    "computed": _math(f"{symbol_tex(var)} = {quantity_tex(got)}"),
                    "verdict": Tex(r"\chainok" if e.ok else r"\chainbad"),
                }
            )
        if c.that_ok is not None:
            text = Tex((about + r"\newline " if not rows else "") + r"{\footnotesize\texttt{" + latex_escape(c.check.that_text) + "}}")
            rows.append({"about": text, "expected": "holds", "computed": "holds" if c.that_ok else "does not hold", "verdict": Tex(r"\chainok" if c.that_ok else r"\chainbad")})
        if c.error:
            rows.append({"about": about, "expected": "", "computed": c.error, "verdict": Tex(r"\chainbad")})
        out.append({"rows": rows})
    return out


def sheet_view(model: Model, s: Sheet, source: str, figures: list[tuple[str, str]]) -> dict:
    return {
        "title": model.title,
        "about": model.about,
        "source": source,
        "catalog": _catalog_view(model, s),
        "inputs": _inputs_view(model, s),
        "steps": [{"tex": step_tex(model, st)} for st in s.steps],
        "tables": [_table_view(model, t) for t in s.tables],
        "questions": [_question_view(model, q) for q in s.questions],
        "checks": _checks_view(model, s),
        "figures": [{"path": Tex(p), "caption": c} for p, c in figures],
    }


# --- rendering ----------------------------------------------------------------------------------------


def render(reports: list[Report], options: BuildOptions) -> tuple[dict[str, bytes], list[str]]:
    """Every file of the tex build (relative path -> bytes), and the names of the documents to compile."""
    from .plot import figure_bytes

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


# --- compiling ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Compiled:
    pdf: bytes
    log: str
    runs: int


def tools_or_unavailable() -> str:
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        raise Unavailable("pdflatex is not installed, so PDFs cannot be built", None, f"install TeX Live: {INSTALL}; or build --format tex")
    return pdflatex


def tex_environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH,
            "FORCE_SOURCE_DATE": "1",
            "shell_escape": "f",  # belt and braces: -no-shell-escape is on the command line too
            "openout_any": "p",  # write only below the build folder
            "openin_any": "p",  # no reading of dot files or files outside it by relative escape
            "max_print_line": "1000",
        }
    )
    return env


def _errors(log: str) -> str:
    lines = log.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("!") or re.match(r"^[^:\s]+\.tex:\d+: ", line):
            return "\n".join(lines[k : k + 4])
    return "\n".join(lines[-5:])


def compile_one(pdflatex: str, workdir: Path, name: str) -> Compiled:
    cmd = [pdflatex, "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error", f"{name}.tex"]
    env = tex_environment()
    toc = workdir / f"{name}.toc"
    runs, log = 0, ""
    while runs < 3:
        runs += 1
        before = hashlib.sha256(toc.read_bytes()).hexdigest() if toc.exists() else None
        proc = subprocess.run(cmd, cwd=workdir, env=env, stdin=subprocess.DEVNULL, capture_output=True, timeout=300)
        log_path = workdir / f"{name}.log"
        log = log_path.read_text(errors="replace") if log_path.exists() else proc.stdout.decode(errors="replace")
        if proc.returncode != 0:
            raise LatexError(f"pdflatex failed on {name}.tex:\n{_errors(log)}", None, f"the full log is {name}.log; rebuild with --format tex and run pdflatex on it to see more")
        after = hashlib.sha256(toc.read_bytes()).hexdigest() if toc.exists() else None
        if before == after and "Rerun to get" not in log:
            break
    return Compiled((workdir / f"{name}.pdf").read_bytes(), log, runs)


def compile_documents(files: dict[str, bytes], names: list[str], workdir: Path) -> dict[str, Compiled]:
    """Write `files` into `workdir` and compile each named document there (in parallel)."""
    pdflatex = tools_or_unavailable()
    for rel, data in files.items():
        path = workdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    workers = max(1, min(len(names), os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = {n: pool.submit(compile_one, pdflatex, workdir, n) for n in names}
        return {n: f.result() for n, f in futures.items()}


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
