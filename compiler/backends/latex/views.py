"""The views of a Sheet: each part of a derivation sheet as the values its template prints (LaTeX made here, or prose).

Every string in a view is either `Tex` (made by the printers of this package) or
prose, which the template environment escapes.
"""

from __future__ import annotations

from ... import __version__
from ...derivation import Dims, Movers, Sheet, Step
from ...derivation.shown import shown
from ...ir import Model
from .checks import checks_view
from .escape import Tex, ident, latex_escape, pdf_text, symbol_tex
from .printer import SheetPrinter, broken, width
from .searches import search_view
from .units import number_tex, quantity_tex, s_cell, s_column, unit_tex

LINE = 58.0  # characters of math that fit beside an aligned left side
LONG_TABLE = 40  # rows: longer tables break across pages


def _math(tex: str) -> Tex:
    return Tex(f"${tex}$")


def _rows(lhs: str, lines: list[str], first_op: str = "&=") -> list[str]:
    out = [f"{lhs} {first_op} {_fit(lines[0])}"]
    out += [rf"&\quad {_fit(line)}" for line in lines[1:]]
    return out


def _fit(line: str) -> str:
    """A line no break at + or - shortens (one long fraction), scaled to the page instead of running off it."""
    if width(line) <= 1.3 * LINE:
        return line
    return r"\resizebox{\dimexpr\linewidth-6em\relax}{!}{$\displaystyle " + line + "$}"


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
    valid = "; ".join(text for e in step.equations for _, text in e.valid)
    if valid:  # valid_when: outside it no value, in every output
        parts.append(r"\emph{Holds only where \texttt{" + latex_escape(valid) + "}.}\\par")
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
            rows.append({"ref": ident(ref), "description": description, "number": s_cell(value.text), "unit": Tex(unit_tex(value.unit))})
        label = {"gpu": "GPU", "llm": "LLM"}.get(c.kind, f"Model {c.kind}")
        column = s_column([r["number"] for r in rows])
        out.append({"kind_label": label, "title": c.title, "bookmark": pdf_text(f"{label}: {c.title}"), "id": c.id, "rows": rows, "is_model": c.kind not in ("gpu", "llm"), "column": column})
    return out


def _inputs_view(model: Model, s: Sheet) -> dict:
    rows = []
    for i in s.inputs:
        v = model.variables[i.name]
        source = ident(i.source) if "." in i.source else i.source
        rows.append(
            {"symbol": _math(symbol_tex(v)), "description": i.description or ident(i.name, breakable=True), "number": s_cell(i.value.text), "unit": Tex(unit_tex(i.value.unit)), "source": source}
        )
    return {"rows": rows, "column": s_column([r["number"] for r in rows])}


def _table_view(model: Model, t) -> dict:
    printer = SheetPrinter(model)
    table = model.tables[t.name]
    formulas = []
    for c in table.columns:
        dims = Dims(model)
        expr = dims.restore(c.expr, c.dim)
        formulas += _rows(printer._print_Symbol(c.sym), broken(printer, expr, LINE))
    header = " & ".join([r"$i$"] + [_math(printer._print_Symbol(c.sym).replace("_{i}", "")) if c.latex else _stacked(c.name) for c in t.columns])
    units = " & ".join([""] + [Tex(unit_tex(c.unit)) for c in t.columns])
    rows = [Tex(" & ".join([str(k)] + [number_tex(x) for x in row])) for k, row in enumerate(t.rows, 1)]
    return {
        "name": t.name,
        "bookmark": pdf_text(f"Table {t.name}"),
        "ident": ident(t.name),
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
    if r.kind == "set":
        extreme = "largest" if q.question.seek == "max" else "smallest"
        domain = latex_escape(q.variable.domain.describe(q.variable))
        return Tex(f"Each value of the set of {var} ({domain}) is tried; the {extreme} that meets the condition:"), Tex(f"{lhs} = {v}")
    return Tex("The answer is the boundary itself:"), Tex(f"{lhs} = {v}")


def _question_view(model: Model, q) -> dict:
    printer = SheetPrinter(model)
    dims = Dims(model)
    parts = [model.questions[name].condition for _, name in q.question.parts]  # several conditions: as written, not SymPy's order
    cond_tex = r" \wedge ".join(printer.doprint(dims.restore(c)) for c in parts) if parts else printer.doprint(dims.restore(q.question.condition))
    words, eq = _rounding(q, printer) if q.rounding is not None else (None, None)
    closed = None
    if q.closed_form is not None:
        form = dims.restore(q.closed_form, q.variable.dim)
        closed = Tex(" \\\\\n".join(_rows(symbol_tex(q.variable), broken(printer, form, LINE))))
    return {
        "name": q.question.name,
        "bookmark": pdf_text(f"Question {q.question.name}"),
        "ident": ident(q.question.name),
        "ask": q.question.ask or q.question.condition_text,
        "seek": q.question.seek,
        "find": _math(symbol_tex(q.variable)),
        "condition": _math(cond_tex),
        "steps": [{"tex": step_tex(model, st, "B")} for st in q.steps],
        "searched": not q.steps and q.rounding is not None and q.rounding.kind != "edge",  # a jump or a stretch of equality, found by searching
        "error": q.error,
        "closed_form": closed,
        "rounding_words": words,
        "rounding": eq,
        "limits": _limits_view(model, q, printer, dims),
        "warnings": [w.message for w in (q.answer.warnings if q.answer is not None else ())],  # physical limits failing at the answer
    }


def physical_view(s: Sheet) -> list[dict]:
    """Each physical limit (limits:) and its status at the sheet's values: holds, or the warning every output gives."""
    failing = {w.name: w for w in s.solution.warnings}
    return [
        {"name": x.name, "condition": Tex(r"\texttt{" + latex_escape(x.text) + "}"), "about": x.about, "fails": x.name in failing, "message": failing[x.name].message if x.name in failing else ""}
        for x in s.solution.program.physical
    ]


def _limits_view(model: Model, q, printer, dims) -> list[dict]:
    """Several conditions: each one's own limit (a question of its own above) and whether it binds."""
    a = q.answer
    if a is None or not a.limits:
        return []
    rows = []
    for x in a.limits:
        part = model.questions[x.question]
        value = Tex(f"${quantity_tex(shown(q.variable, x.base))}$") if x.base is not None else Tex("no limit")
        rows.append({"label": latex_escape(x.label), "ident": ident(x.question), "condition": _math(printer.doprint(dims.restore(part.condition))), "value": value, "binding": x.label in a.binding})
    return rows


def _movers_view(model: Model, m: Movers, figure: str | None) -> dict:
    """What moves a question's answer most: the boundary's elasticities, largest first, and their bar chart."""
    rows = []
    for x in m.rows:
        e = s_cell(f"{x.elasticity:.3f}") if x.elasticity is not None else Tex("{" + latex_escape(x.note or "undefined") + "}")
        rows.append(
            {
                "symbol": _math(symbol_tex(x.variable)),
                "description": x.variable.description or ident(x.input, breakable=True),
                "number": s_cell(x.value.text),
                "unit": Tex(unit_tex(x.value.unit)),
                "elasticity": e,
                "method": x.method,
            }
        )
    return {
        "name": m.question.name,
        "find": _math(symbol_tex(m.variable)),
        "find_name": m.variable.name,
        "bookmark": pdf_text(f"What moves {m.variable.name} most"),
        "ident": ident(m.question.name),
        "boundary": _math(f"{symbol_tex(m.variable)} = {quantity_tex(m.boundary)}"),
        "rows": rows,
        "value_col": s_column([r["number"] for r in rows]),
        "elasticity_col": s_column([r["elasticity"] for r in rows]),
        "figure": Tex(figure) if figure else None,
    }


def footer(s: Sheet) -> dict:
    """What every page of a sheet names: the model file, its content hash, the hardware, chainc's version."""
    source = latex_escape(s.source).replace("/", r"/\allowbreak{}")
    return {
        "source": Tex(r"\texttt{" + source + "}"),
        "digest": s.digest[:12] or "unreadable",
        "hardware": s.hardware_text or "no GPU or LLM",
        "version": __version__,
    }


def sheet_view(model: Model, s: Sheet, figures: list[tuple[str, str]], movers: dict[str, str], charts: dict | None = None) -> dict:
    """The sheet's template values; `figures` are the sweeps' (path, caption), `movers` question -> its chart's path,
    `charts` frontier -> its chart's (path, caption)."""
    by_question = {m.question.name: _movers_view(model, m, movers.get(m.question.name)) for m in s.movers}
    questions = []
    for q in s.questions:
        view = _question_view(model, q)
        view["movers"] = by_question.get(q.question.name)
        questions.append(view)
    return {
        "title": model.title,
        "pdf_title": pdf_text(model.title),
        "name": model.name,
        "about": model.about,
        "source": s.source,
        "footer": footer(s),
        "catalog": _catalog_view(model, s),
        "inputs": _inputs_view(model, s),
        "steps": [{"tex": step_tex(model, st)} for st in s.steps],
        "tables": [_table_view(model, t) for t in s.tables],
        "questions": questions,
        "physical": physical_view(s),
        "checks": checks_view(model, s),
        "figures": [{"path": Tex(p), "caption": c} for p, c in figures],
        "searches": [search_view(model, sv, *(charts or {}).get(sv.search.name, (None, ""))) for sv in s.searches],
    }
