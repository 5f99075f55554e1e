"""A chain's searches: each on a sheet of its own (searching.py), and a row per search on the chain's sheet.

The row reads the search's sheet: the goal at the best configuration (a frontier: how many rows are on
it) and the answer in words, so the chain's sheet says what each search found, live. The best
configuration's values become the chain's `?search#name` cells, which its checks read.
"""

from __future__ import annotations

from openpyxl.styles import Font
from openpyxl.worksheet.hyperlink import Hyperlink

from ...numbers import exact
from .cells import GREY_FONT, NOTE_FONT, WRAP
from .layout import fit
from .searching import SearchSheet


def write_searches(chain, row: int) -> int:
    sh, m, book = chain.sheet, chain.model, chain.book
    if not m.searches:
        return row
    sh.section(row, "Searches")
    sh.header(row + 1, ["search", "answer", "unit", "what it found (each search's sheet has its configurations, the ranking and the workings)"], span=13)
    row += 2
    for name, s in m.searches.items():
        title = book.search_titles[(m.name, name)]
        ws = book.wb.create_sheet(title)
        ss = SearchSheet(chain, name, ws)
        ss.write()
        ss.sheet.page()
        rows = range(ss.first, ss.last + 1) if hasattr(ss, "last") else range(0)
        fit(ws, book.cached, ss.last_col, last_row=rows.stop - 1 if rows else None, as_built=rows)  # the workings below the rows are for the screen
        goal, sentence, note = ss.summary
        c = sh.text(row, 1, name, font=Font(bold=True, color="0563C1", underline="single"))
        c.hyperlink = Hyperlink(ref=c.coordinate, location=f"'{title}'!A1", display=name)
        if goal is not None:
            unit = "" if s.frontier else m.variables[s.goals[0].name].unit
            fmt = None if s.frontier else chain.formats.get(s.goals[0].name)
            sh.formula(row, 2, goal, goal.value, fmt or "0")
            sh.text(row, 3, "on the frontier" if s.frontier else unit)
            book.manifest.cells[(m.name, "search", name)] = (sh.ws.title, f"B{row}")
        if sentence is None:  # the build's answer (its words, and why it does not follow the inputs), or why there is none
            text = sh.long(row, 4, 13, note)
        else:
            text = sh.formula(row, 4, sentence, sentence.value)
            sh.ws.merge_cells(start_row=row, start_column=4, end_row=row, end_column=13)
        text.font, text.alignment = NOTE_FONT, WRAP
        sh.long(row + 1, 4, 13, f"asks: {s.ask or ss.goal_words()} (the sheet {title} has its configurations and workings)", font=GREY_FONT)
        row += 2
        for var, cell in ss.exports.items():  # the best configuration's values: the chain's checks read them
            factor = exact(m.variables[var].factor) if var in m.variables else 1
            chain.scope.slots[f"?{name}#{var}"] = (cell, factor)
    return row + 1
