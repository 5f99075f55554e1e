"""The checks table of a derivation sheet: the expected numbers against the solver's, aligned on the decimal point.

A row per comparison: the check's words, the quantity (a `that` relation as
mathematics), the expected value and the computed one in S columns, their unit,
and the verdict. On hardware other than the model's own a check does not apply:
its expected values are references for that hardware, never failures.
"""

from __future__ import annotations

import re

import sympy as sp

from ...calibrated import UNCALIBRATED
from ...derivation import LITERALS, CheckView, Sheet, Shown
from ...format import fmt
from ...ir import Model
from ...units import BadUnit, parse_quantity, parse_unit
from .escape import Tex, latex_escape, symbol_tex
from .printer import SheetPrinter
from .units import quantity_tex, s_cell, s_column, unit_tex


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


def _written_number(written: str) -> str:
    """The number of an expected value as written ('6,450 token/s' -> '6,450'), or the text when it is not one."""
    try:
        parse_quantity(written)
    except BadUnit:
        return written
    return written.split()[0] if written.split() else written


def _verdict(c: CheckView, ok: bool | None) -> Tex:
    if not c.applies:
        return Tex(r"\chainref")
    return Tex(r"\chainok" if ok else r"\chainbad")


def _about(model: Model, c: CheckView) -> Tex:
    about = latex_escape(c.check.about or "check")
    if c.given:
        about = Tex(about + r" \chainmuted{(given " + ", ".join(f"${symbol_tex(model.variables[n])} = {quantity_tex(v)}$" for n, v in c.given) + ")}")
    return Tex(about)


def _rows(model: Model, c: CheckView, printer: SheetPrinter) -> list[dict]:
    rows = []
    for e in c.expected:
        name = e.label.split(": ")[-1]
        got = _in_unit(e.got, e.written, model, name)
        rows.append(
            {
                "quantity": Tex(f"${symbol_tex(model.variables[name])}$" if name in model.variables else latex_escape(name)),  # gpu: a search's chosen entry
                "expected": s_cell(_written_number(e.written)),
                "computed": s_cell(got.text),
                "unit": Tex(unit_tex(got.unit)),
                "verdict": _verdict(c, e.ok),
            }
        )
    for r in c.relations:
        if r.left is None:  # an or/not of comparisons: the relation, and whether it holds
            word = "holds" if r.holds else "does not hold"
            rows.append({"quantity": Tex(f"${printer.doprint(r.relation)}$"), "expected": s_cell("holds"), "computed": s_cell(word), "unit": Tex(""), "verdict": _verdict(c, r.holds)})
            continue
        op = {sp.Ge: ">=", sp.Le: "<=", sp.Gt: ">", sp.Lt: "<"}.get(type(r.relation), "")
        # a bound that is a constant is the expected column's value; a relation of two quantities is shown whole
        constant = all(x.name in LITERALS for x in r.relation.rhs.free_symbols)  # 34.5[GB], 1.315 * 6450[token/s]
        quantity = r.relation.lhs if constant else r.relation
        rows.append(
            {
                "quantity": Tex(f"${printer.doprint(quantity)}$"),
                "expected": s_cell(r.right.text, op) if type(r.relation) is not sp.Ne else Tex(r"{$\neq$ " + latex_escape(r.right.text) + "}"),
                "computed": s_cell(r.left.text),
                "unit": Tex(unit_tex(r.left.unit)),
                "verdict": _verdict(c, r.holds),
            }
        )
    if c.error:
        rows.append({"error": latex_escape(c.error), "verdict": Tex(r"\chainbad" if c.applies else r"\chainref")})
    for k, row in enumerate(rows):
        row["about"] = _about(model, c) if k == 0 else Tex("")
        row.setdefault("error", None)
    return rows


def checks_view(model: Model, s: Sheet) -> dict:
    """The checks table: rows, the S columns that align them, and whether they are references (other hardware)."""
    printer = SheetPrinter(model)
    groups = [{"rows": _rows(model, c, printer)} for c in s.checks]
    cells = [r for g in groups for r in g["rows"] if r["error"] is None]
    refs = sorted({c.written_for for c in s.checks if not c.applies})
    expected, computed = s_column([r["expected"] for r in cells], fixed=4.6), s_column([r["computed"] for r in cells], fixed=4.6)
    numbers = sum(float(re.search(r"table-column-width=([0-9.]+)em", str(c)).group(1)) for c in (expected, computed))
    return {
        "groups": groups,
        "expected_col": expected,
        "computed_col": computed,
        # the text columns share what the numbers leave of the line (12 column gaps of 4 pt): 1,605,636,096 fits beside 1.288e10
        "rest": Tex(rf"(\linewidth-{numbers:.1f}em-48pt)"),
        "references": refs[0] if refs else "",
        "calibrated": bool(refs) and refs[0].startswith(UNCALIBRATED),  # references beside calibrated values, not other hardware
        "hardware": s.hardware_text,
        "any": bool(cells),
        "source": f" ({latex_escape(model.expected_from)})" if model.expected_from else "",  # ' (the card)': where the numbers come from
    }
