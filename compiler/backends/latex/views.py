"""The views of a Sheet: each part of a derivation sheet as the values its template prints (LaTeX made here, or prose).

Every string in a view is either `Tex` (made by the printers of this package) or
prose, which the template environment escapes.
"""

from __future__ import annotations

import sympy as sp

from ...derivation import Dims, Sheet, Shown, Step
from ...format import fmt
from ...ir import Model
from ...units import BadUnit, parse_quantity, parse_unit
from .escape import Tex, ident, latex_escape, symbol_tex
from .printer import SheetPrinter, broken
from .units import number_tex, quantity_tex, unit_tex

LINE = 58.0  # characters of math that fit beside an aligned left side
LONG_TABLE = 40  # rows: longer tables break across pages


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
        dims = Dims(model)
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
    dims = Dims(model)
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
