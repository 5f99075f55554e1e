"""A question without a closed-form boundary, searched live in cells over its grid.

Where the boundary needs a numeric search (erlang-c's fewest servers: no formula
inverts the Erlang C sum), the workbook lays the search out instead of writing the
build's answer: each row is the question's probe program (the chain with the
variable known) at one point of the variable's grid (its step, or 1 for a whole
number), as the rule's probe rows are.

- the base: the domain's first grid point (its min, or one step above 0);
- expansion rows: base + 2^j steps (capped at the domain's max), frozen after the
  first row where the condition turns (holds, for a minimum; stops holding, for a
  maximum), so no row probes far past it;
- bisection rows: the bracket halved, one probe per row, until its ends are adjacent
  grid points.

The outcome cell says what happened as a code (1 an answer, 2 the domain's edge,
-10 nothing meets the condition, -20 no limit: question.py's codes), and the answer cell and the message
read it. A small whole-number domain (runtime.roots.dense, the solver's rule too) has a
row per value instead, from the answer's end: the first that holds is the answer, however
often the condition turns. On a larger domain a condition that turns more than once is
searched as if it turned once, as the solver searches it.
"""

from __future__ import annotations

import math
from fractions import Fraction

from openpyxl.utils import get_column_letter

from ...runtime.roots import dense
from . import xl, xlcalc
from .cells import GREY_FONT, NOTE_FONT, SECTION_FONT, WRAP, number_format


def concat(*parts):
    out = parts[0]
    for p in parts[1:]:
        out = xl.op("&", out, p)
    return out


def shown(node):
    """Text of a number to 6 significant figures, as the solver's messages show it (question.shown)."""
    rounded = xl.fn("ROUND", node, xl.op("-", xl.number(5), xl.fn("INT", xl.fn("LOG10", xl.fn("ABS", node)))))
    return xl.fn("IF", xl.op("=", node, xl.number(0)), xl.Str("0"), xl.op("&", rounded, xl.Str("")))


EXPAND, BISECT = 48, 50  # 2^48 grid steps reach past any bracket; 50 halvings close it


def n(x):
    return xl.number(x)


def grid(qc) -> tuple[Fraction, Fraction, Fraction | None] | None:
    """(grid step, base point in steps, last point in steps or None), display units; None: no grid to search."""
    s, dom = qc.shape, qc.chain.report.solution.program.domains[qc.q.find]
    if dom.values is not None:  # a set: its values are the points, k the value itself
        return Fraction(1), qc.disp(dom.values[0]), qc.disp(dom.values[-1])
    step = qc.disp(s.step) if s.step else (Fraction(1) if qc.var.domain.integer else None)
    if step is None:
        return None
    lo, hi = qc.disp(s.lo), qc.disp(s.hi)
    if lo is not None:
        base = Fraction(math.ceil(lo / step))
    elif dom.kind in ("positive", "nonnegative"):
        base = Fraction(1 if dom.kind == "positive" else 0)
    else:
        return None
    last = Fraction(math.floor(hi / step)) if hi is not None else None
    return step, base, last


def write_search(qc, answer_row: int, row: int) -> int:
    q, sheet, m = qc.q, qc.sheet, qc.model
    step, base, last = grid(qc)
    want_max = q.seek == "max"
    lo, hi = qc.disp(qc.shape.lo), qc.disp(qc.shape.hi)
    values = qc.chain.report.solution.program.domains[q.find].values
    every = values is not None or dense(lo, hi, qc.var.domain.integer, step)  # the solver's rule: a set, or a small whole-number domain
    first = row
    how = "every value of its set" if values is not None else "every value of its domain" if every else f"a search of its grid (steps of {xl.as_text(float(step))})"
    sheet.text(row, 1, f"How {q.name} is found: {how}, one probe of the chain per row", font=SECTION_FONT)
    head, row = row + 1, row + 2
    qc.rows = {}

    def at_k(k):  # the probe point of grid index k
        return xl.op("*", k, n(step))

    def hit(f):  # the condition has turned at this probe
        return xl.op("<>", f, n(1)) if want_max else xl.op("=", f, n(1))

    def extra(r, col, node, fmt="0"):
        sheet.formula(r, col, node, None, fmt)
        return xl.Cell(f"${get_column_letter(col)}${r}", xlcalc.value(node))

    f_base = qc.probe(0, at_k(n(base)), row)
    qc.header(head)
    end = max(qc.rows[0][1].values()) + 1  # the columns after the probe program's: k, hit, the bracket
    for col, label in zip(range(end, end + 4), ("k", "turned" if not every else "holds", "a", "b")):
        sheet.text(head, col, label, font=GREY_FONT)
    row += 1
    points = [qc.disp(v) for v in values] if values is not None else None
    ctx = (qc, sheet, at_k, extra, end, base, last, want_max, points)
    row, outcome, k_value = _every(ctx, row) if every else _expand_bisect(ctx, row, f_base, hit)
    sheet.text(row, 1, "outcome", font=GREY_FONT)
    sheet.text(row, 4, "1 found by the search, 2 the domain's edge; -10 nothing meets the condition, -20 no limit (question.py's codes)", font=GREY_FONT)
    code = extra(row, 2, outcome)
    qc.chain.scope.slots[f"?{q.name}#outcome"] = (code, Fraction(1))  # a several-condition question reads it
    value = extra(row + 1, 2, xl.fn("IF", xl.op(">", code, n(0)), at_k(k_value), xl.fn("NA")), qc.chain.formats.get(q.find) or "General")
    sheet.text(row + 1, 1, "value", font=GREY_FONT)
    row += 2
    unit = f" {qc.var.unit}" if qc.var.unit else ""
    cached = float(qc.answer.base / qc.factor) if qc.answer is not None else xl.NA
    fmt = qc.chain.formats.get(q.find) or number_format(cached if qc.answer else 1, integer=qc.var.domain.integer)
    sheet.formula(answer_row, 2, xl.fn("IF", xl.op(">", code, n(0)), value, xl.fn("NA")), cached, fmt)
    bound = "largest" if want_max else "smallest"
    message = xl.fn(
        "IF",
        xl.op(">", code, n(0)),
        concat(
            xl.Str(f"{q.find} = "),
            shown(value),
            xl.Str(unit + (": found by trying each value of its set" if values is not None else ": found by searching its domain (no closed-form boundary)") + ", in the search rows below"),
        ),
        xl.fn(
            "IF",
            xl.op("=", code, n(-10)),
            xl.Str(f"question {q.name}: no {q.find} meets {q.condition_text} in its domain"),
            xl.Str(f"question {q.name}: there is no {bound} {q.find}; {q.condition_text} holds for every value"),
        ),
    )
    sheet.formula(answer_row, 4, message, xlcalc.value(message))
    c = sheet.ws.cell(row=answer_row, column=4)
    c.font, c.alignment = NOTE_FONT, WRAP
    sheet.ws.merge_cells(start_row=answer_row, start_column=4, end_row=answer_row, end_column=13)
    sheet.ws.row_dimensions[answer_row].height = 30
    qc.chain.book.manifest.cells[(m.name, "message", q.name)] = (sheet.ws.title, f"D{answer_row}")
    sheet.ws.row_dimensions.group(first, row, outline_level=1, hidden=True)
    return row + 1


def _first_hit(sheet, extra, end: int, row: int, ks: list, hits: list, label: str):
    """The probe rows' k and hit columns as ranges, and a row whose cell is the first row where hit = 1 (MATCH)."""
    first = row - len(ks)
    col_k, col_h = get_column_letter(end), get_column_letter(end + 1)
    krange = xl.Range(f"${col_k}${first}:${col_k}${row - 1}", tuple(k.value for k in ks))
    hrange = xl.Range(f"${col_h}${first}:${col_h}${row - 1}", tuple(h.value for h in hits))
    sheet.text(row, 1, label, font=GREY_FONT)
    return row + 1, krange, extra(row, 2, xl.fn("MATCH", n(1), hrange, n(0)))


def _every(ctx, row: int):
    """A set, or a small whole-number domain: one probe per value, from the answer's end; the first that holds is the answer."""
    qc, sheet, at_k, extra, end, base, last, want_max, points = ctx
    order = points or range(int(base), int(last) + 1)
    order = list(reversed(order)) if want_max else list(order)
    ks, holds = [], []
    for j, k in enumerate(order):
        kc = extra(row, end, n(k))
        f = qc.probe(1 + j, at_k(kc), row)
        holds.append(extra(row, end + 1, xl.fn("IF", xl.op("=", f, n(1)), n(1), n(0))))
        ks.append(kc)
        row += 1
    row, krange, where = _first_hit(sheet, extra, end, row, ks, holds, "first that holds")
    none = xl.fn("ISNA", where)
    outcome = xl.fn("IF", none, n(-10), xl.fn("IF", xl.op("=", where, n(1)), n(2), n(1)))  # nothing holds: infeasible
    return row, outcome, xl.fn("IF", none, n(0), xl.fn("INDEX", krange, where, n(1)))


def _expand_bisect(ctx, row: int, f_base, hit):
    """A larger domain: expansion rows from the base until the condition turns, then bisection of that bracket."""
    qc, sheet, at_k, extra, end, base, last, want_max, _ = ctx
    ks, hits, prev_k, prev_hit = [], [], n(base), xl.FALSE
    for j in range(EXPAND):
        target = base + 2**j if last is None else min(base + 2**j, last)
        k_node = xl.fn("IF", prev_hit, prev_k, n(target))
        # the k cell first: the probe reads it
        k = extra(row, end, k_node)
        f = qc.probe(1 + j, at_k(k), row)
        h = extra(row, end + 1, xl.fn("IF", hit(f), n(1), n(0)))
        ks.append(k)
        hits.append(h)
        prev_k, prev_hit = k, xl.op("=", h, n(1))
        row += 1
    row, krange, where = _first_hit(sheet, extra, end, row, ks, hits, "turned at")
    a = extra(row, end + 2, xl.fn("IF", xl.op("=", where, n(1)), n(base), xl.fn("INDEX", krange, xl.op("-", where, n(1)), n(1))))
    b = extra(row, end + 3, xl.fn("INDEX", krange, where, n(1)))
    sheet.text(row, 1, "bracket", font=GREY_FONT)
    row += 1
    for i in range(BISECT):
        mid = extra(row, end, xl.fn("INT", xl.op("/", xl.op("+", a, b), n(2))))
        f = qc.probe(1 + EXPAND + i, at_k(mid), row)
        holds = xl.op("=", f, n(1))
        a, b = (
            extra(row, end + 2, xl.fn("IF", holds, mid, a) if want_max else xl.fn("IF", holds, a, mid)),
            extra(row, end + 3, xl.fn("IF", holds, b, mid) if want_max else xl.fn("IF", holds, mid, b)),
        )
        row += 1
    found = a if want_max else b
    base_holds = xl.op("=", f_base, n(1))
    none = xl.fn("ISNA", where)
    if want_max:  # nothing holds at the base: infeasible; it never stops holding: the edge, or no limit
        outcome = xl.fn("IF", xl.fn("NOT", base_holds), n(-10), xl.fn("IF", none, n(2) if last is not None else n(-20), n(1)))
        k_value = xl.fn("IF", none, n(last if last is not None else 0), found)
    else:  # it holds at the base: the edge; it never holds: infeasible
        outcome = xl.fn("IF", base_holds, n(2), xl.fn("IF", none, n(-10), n(1)))
        k_value = xl.fn("IF", base_holds, n(base), found)
    return row, outcome, k_value
