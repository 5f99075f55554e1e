"""A table (a program's Loop) as rows of live formulas, with its aggregates as named cells.

The rows laid out are the rows the Report's table uses and half as many again
(at least `ROOM` more, never more than the table's max_rows), so inputs can ask
for a few more; a row past the live row count is blank, and a count beyond the
rows laid out turns the aggregates into #N/A and the note beside the count red.
"""

from __future__ import annotations

from fractions import Fraction

from openpyxl.comments import Comment
from openpyxl.utils import get_column_letter

from ... import program as P
from ...numbers import exact
from . import xl
from .cells import BOLD, GREY_FONT, NOTE_FONT, SECTION_FONT, absolute, clean, number_format
from .printer import Inline

ROOM = 4  # rows laid out beyond those the Report's table uses, at least


def rows_laid_out(used: int, max_rows: int) -> int:
    return min(max_rows, max(used + ROOM, used + -(-used // 2)))


def _display(v, factor) -> float:
    return float(Fraction(v) / factor) if not isinstance(v, float) else v / float(factor)


def write_table(chain, loop: P.Loop, scope, row: int) -> int:
    """The table from `row`; returns the next free row."""
    sheet, model = chain.sheet, chain.model
    t = model.tables[loop.table]
    key = f"{model.name}.{loop.table}"
    values = chain.report.solution.tables.get(loop.table, [])
    n = max(len(values), rows_laid_out(len(values), loop.max_rows))
    columns = {c.name: c for c in t.columns}
    factors = {c.name: exact(columns[c.name].factor) for c in loop.columns}
    sheet.text(row, 1, f"Table {loop.table}", font=SECTION_FONT)
    if t.about:
        sheet.long(row, 2, 13, t.about, font=GREY_FONT)
    count_row = row + 1
    aggs = loop.aggregates
    head = count_row + 1 + len(aggs)
    first, last = head + 1, head + n
    rows_name = sheet.define(f"{key}.rows", absolute(count_row, 2))
    sheet.text(count_row, 1, f"rows = {loop.rows_text}", font=BOLD)
    pr = chain.printer(scope)
    count = pr.value(loop.rows)
    chain.report_problems(pr, loop.site)
    sheet.formula(count_row, 2, count, len(values), "#,##0")
    chain.book.manifest.cells[(model.name, "rows", loop.table)] = (sheet.ws.title, f"B{count_row}")
    rows_cell = xl.Cell(rows_name, float(len(values)))
    over = xl.op(">", rows_cell, xl.number(n))
    note = xl.fn(
        "IF",
        over,
        xl.op("&", xl.op("&", xl.Str("the inputs need "), rows_cell), xl.Str(f" rows and {n} are laid out: the totals show #N/A (build the workbook again from these inputs)")),
        xl.Str(f"{n} rows laid out, room for {n - len(values)} more; rows past the count are blank"),
    )
    c = sheet.formula(count_row, 3, note)
    c.font = NOTE_FONT
    sheet.ws.merge_cells(start_row=count_row, start_column=3, end_row=count_row, end_column=10)
    sheet.flag(f"C{count_row}", over)
    chain.book.manifest.cells[(model.name, "rows note", loop.table)] = (sheet.ws.title, f"C{count_row}")
    cols = {c.name: 2 + k for k, c in enumerate(loop.columns)}
    ranges = {}
    for name, col in cols.items():
        ref = f"{absolute(first, col)}:{absolute(last, col)}"
        ranges[name] = xl.Range(sheet.define(f"{key}.{name}", ref), tuple(_display(r[name], factors[name]) for r in values) + ("",) * (n - len(values)))
    # the aggregates, right below the count: the names the statements after the loop read
    for k, (name, kind, column) in enumerate(aggs):
        r = count_row + 1 + k
        label = f"{kind}({loop.table}.{column})" if column else f"count({loop.table})"
        sheet.text(r, 1, label, font=BOLD)
        f = factors[column] if column else Fraction(1)
        if kind == "count":
            node = rows_cell
        else:
            rng = ranges[column]
            node = {"sum": xl.fn("SUM", rng), "max": xl.fn("MAX", rng), "min": xl.fn("MIN", rng), "last": xl.fn("INDEX", rng, rows_cell, xl.number(1))}[kind]
        cached = _display(chain.report.solution.values[name], f) if name in chain.report.solution.values else None
        sheet.formula(r, 2, xl.fn("IF", over, xl.fn("NA"), node), cached, number_format(cached if cached is not None else 1))
        sheet.define(f"{model.name}.{name}", absolute(r, 2))
        unit = columns[column].unit if column else ""
        if unit:
            sheet.text(r, 3, unit)
    labels = ["step (i)"] + [f"{c.name} [{columns[c.name].unit}]" if columns[c.name].unit else c.name for c in loop.columns]
    sheet.header(head, labels)
    sheet.ws.row_dimensions[head].height = 32
    for c in loop.columns:
        if columns[c.name].description:
            sheet.ws.cell(row=head, column=cols[c.name]).comment = Comment(clean(columns[c.name].description), "chainc")
    fmts = {name: number_format(max((abs(_display(r[name], factors[name])) for r in values), default=1.0) or 1.0) for name in cols}
    prev: dict = {}
    for i in range(1, n + 1):
        r = first + i - 1
        sheet.number(r, 1, i).font = GREY_FONT
        index = xl.Cell(f"$A{r}", float(i))
        row_scope = scope.child()
        row_scope.slots[f"{loop.table}.i"] = (index, Fraction(1))
        blank = xl.op(">", index, rows_cell)
        live = i <= len(values)
        for c in loop.columns:  # every column's previous value first: a column may read a later one's
            if i == 1:
                row_scope.slots[f"{loop.table}.prev.{c.name}"] = (Inline(c.initial), factors[c.name])
            else:
                row_scope.slots[f"{loop.table}.prev.{c.name}"] = prev[c.name]
        for c in loop.columns:
            name, col, f = c.name, cols[c.name], factors[c.name]
            cpr = chain.printer(row_scope)
            body = cpr.value(c.expr, f)
            chain.report_problems(cpr, c.site)
            cached = _display(values[i - 1][name], f) if live else ""
            sheet.formula(r, col, xl.fn("IF", blank, xl.Str(""), body), cached, fmts[name])
            cell = xl.Cell(f"{get_column_letter(col)}{r}", cached)
            row_scope.slots[f"{loop.table}.{name}"] = (cell, f)
            chain.book.manifest.cells[(model.name, "table", loop.table, name, i)] = (sheet.ws.title, f"{get_column_letter(col)}{r}")
        prev = {c.name: row_scope.slots[f"{loop.table}.{c.name}"] for c in loop.columns}
    return last + 2
