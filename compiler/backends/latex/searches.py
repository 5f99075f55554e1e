"""A sheet's searches over configurations and frontiers as template values (templates/search.tex.j2).

Each: the question in words, what is varied (axes and their values, inner questions, the free
variable's range), the conditions and the objective as mathematics; the answer (the best
configuration, its goal, where it sits, what binds) or the frontier (its chart and points); the
ranked table in siunitx S columns with units in the header; and how many configurations fail, and
why, with one example each. The words are chosen_words' (the CLI says the same); the numbers the
Report's (derivation.SearchView): nothing here solves.
"""

from __future__ import annotations

from ... import chosen_words as words
from ...derivation import Dims, SearchView
from ...derivation.shown import shown
from ...ir import Model
from .escape import Tex, ident, latex_escape, pdf_text, prose, safe_symbol, symbol_tex
from .printer import SheetPrinter
from .units import quantity_tex, s_cell, s_column, unit_tex

LONG_TABLE = 40  # rows: a longer table breaks across pages
STACK = 10  # characters: a longer column name stands one word a line in the header


def _math(tex: str) -> Tex:
    return Tex(f"${tex}$")


def _sentence(text: str) -> Tex:
    """Words as a sentence: a capital first letter and a full stop."""
    return prose(text[:1].upper() + text[1:] + ("" if text.endswith(".") else "."))


def _value(model: Model, name: str, base) -> str:
    v = model.variables[name]
    return quantity_tex(shown(v, base, v.digits))


def _config(model: Model, c, row: int) -> Tex:
    """The row's configuration and inner answers as mathematics: gpu = h200, tp = 8, batch = 705."""
    parts = []
    for a, v in zip(c.search.over, c.configs[row]):
        parts.append(rf"\text{{{a.name}}} = \text{{{latex_escape(v)}}}" if a.catalog else f"{symbol_tex(model.variables[a.name])} = {_value(model, a.name, v)}")
    for k, n in enumerate(c.inner_names()):
        if c.inner[k][row] is not None:
            parts.append(f"{symbol_tex(model.variables[n])} = {_value(model, n, c.inner[k][row])}")
    return Tex(r",\quad ".join(parts))


def _named(model: Model, name: str) -> Tex:
    """A variable's name, and its symbol where the model declares one: batch ($b$)."""
    v = model.variables[name]
    return Tex(ident(name) + (f" ({_math(symbol_tex(v))})" if safe_symbol(getattr(v, "latex", "") or "") else ""))


def _varied(model: Model, sv: SearchView, printer: SheetPrinter, dims: Dims) -> list[dict]:
    """Each thing the search varies and what it takes: values, an inner question's answer, the free range."""
    c, s = sv.chosen, sv.search
    out = []
    for k, a in enumerate(s.over):
        out.append({"name": ident(a.name) if a.catalog else _named(model, a.name), "what": prose(words.values(c, k))})
    for var, q in s.inner:
        asked = model.questions[q]
        extreme = "largest" if asked.seek == "max" else "smallest"
        cond = _math(printer.doprint(dims.restore(asked.condition)))
        what = f"at each configuration, the answer of question {ident(q)}: the {extreme} {_math(symbol_tex(model.variables[var]))} such that {cond}"
        out.append({"name": _named(model, var), "what": Tex(what)})
    if s.free:
        _, what = words.varied(c, sv.free_range)[-1]
        out.append({"name": _named(model, s.free), "what": prose(what)})
    return out


def _goal(model: Model, g) -> Tex:
    """'the lowest cost, in USD/Mtoken'."""
    v = model.variables[g.name]
    unit = f", in {unit_tex(v.unit)}" if v.unit else ""
    return Tex(f"the {words.seek_word(g.seek)} {_named(model, g.name)}{unit}")


def _table(model: Model, c) -> dict:
    """The ranked table (a frontier: its points): rank, configuration, inner answers, goals; numbers in S columns."""
    rows = words.shown_rows(c)
    cols = words.columns(c)
    cells = [[s_cell(x) if not catalog else Tex(r"\texttt{" + latex_escape(x) + "}") for x, (_, _, catalog) in zip(words.cells(c, i), cols)] for i in rows]
    spec = ["r"] + ["l" if catalog else s_column([r[k] for r in cells]) for k, (_, _, catalog) in enumerate(cols)]
    return {
        "colspec": Tex("@{}" + "".join(spec) + "@{}"),
        "header": Tex(" & ".join(["{Rank}"] + ["{" + _stacked(name) + "}" for name, _, _ in cols])),
        "units": Tex(" & ".join([""] + ["{" + unit_tex(unit) + "}" if unit else "" for _, unit, _ in cols])) if any(unit for _, unit, _ in cols) else None,
        "rows": [Tex(" & ".join([str(k)] + r)) for k, r in enumerate(cells, 1)],
        "long": len(rows) > LONG_TABLE,
    }


def _stacked(name: str) -> str:
    """A column name in a header, one word a line (long_first_token takes three short lines)."""
    parts = [latex_escape(w) for w in name.split("_") if w]
    if len(name) <= STACK or len(parts) == 1:
        return latex_escape(name)
    return r"\begin{tabular}[b]{@{}c@{}}" + r"\_\\".join(parts) + r"\end{tabular}"


def _failures(c) -> dict:
    rows = [{"label": ident(f.label, breakable=True), "count": s_cell(f"{f.count:,}"), "example": prose(words.config(c, f.example)), "reason": prose(_symbols(f.reason))} for f in words.failures(c)]
    return {"words": prose(words.failing(c)), "rows": rows, "column": s_column([r["count"] for r in rows])}


def _symbols(text: str) -> str:
    """A solver's reason as a reader reads it: <= as the sign it is."""
    return text.replace(" <= ", " ≤ ").replace(" >= ", " ≥ ").replace(" != ", " ≠ ")


def search_view(model: Model, sv: SearchView, figure: str | None = None, caption: str = "") -> dict:
    """One search's template values; `figure`: a frontier's chart (its path under figures/) and its caption."""
    s, c = sv.search, sv.chosen
    kind = "Frontier" if s.frontier else "Question"
    view = {
        "heading": Tex(f"{kind} {ident(s.name)}"),
        "bookmark": pdf_text(f"{kind} {s.name}"),
        "ask": s.ask,
        "frontier": s.frontier,
        "error": sv.error,
        "hardware": sv.hardware,
    }
    if c is None:
        return view
    printer, dims = SheetPrinter(model), Dims(model)
    view.update(
        {
            "question": _sentence(f"find {words.question(c)}"),
            "size": prose(words.size(c)) if s.over else None,
            "varied": _varied(model, sv, printer, dims),
            "conditions": [{"label": ident(x.label, breakable=True), "condition": _math(printer.doprint(dims.restore(x.expr)))} for x in s.conditions],
            "goals": [_goal(model, g) for g in s.goals],
            "table": _table(model, c) if words.shown_rows(c) else None,
            "failures": _failures(c) if any(c.failed) else None,
            "warnings": [w.message for w in c.warnings],
            "figure": Tex(figure) if figure else None,
            "caption": caption,
        }
    )
    view.update({"frontier_words": None, "none": None, "best": None, "among": None, "placement": [], "binding": None, "shown": None})
    if s.frontier:
        view["frontier_words"] = _sentence(words.frontier(c))
    elif c.best is None:
        view["none"] = _sentence(words.none(c))
    else:
        g = s.goals[0]
        view["best"] = Tex(_config(model, c, c.best) + r"\qquad " + f"{symbol_tex(model.variables[g.name])} = {_value(model, g.name, c.goals[0][c.best])}")
        view["among"] = _sentence(words.among(c))
        view["placement"] = [prose(p + ".") for p in words.placement(c)]
        view["binding"] = prose(words.binding(c) + ".") if any(c.failed) else None
        view["shown"] = _sentence(words.ranked(c))[:-1]
    return view
