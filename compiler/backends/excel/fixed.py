"""A search the workbook cannot lay out live: the solver's answer (Chosen) in fixed cells, and a located build note.

Fixed cells are styled apart and carry a comment (cells.Sheet.fixed); the sheet says why above them, and
`chainc build` prints the note with the search's place in the model file. The configurations' rows are
listed too (fixed) while they are within the workbook_configurations limit.
"""

from __future__ import annotations

from openpyxl.utils import get_column_letter, quote_sheetname

from ...limits import limit
from . import xl
from .cells import BOLD, FIXED_FILL, FIXED_FONT, GREY_FONT, NOTE_FONT, number_format


def _put(ss, row: int, col: int, value, note: str, name: str = ""):
    """A fixed cell: a number (or #N/A for none) or a catalog id as text."""
    if isinstance(value, str):
        c = ss.sheet.text(row, col, value, font=FIXED_FONT, fill=FIXED_FILL)
        ss.book.manifest.fixed.append((ss.sheet.ws.title, c.coordinate))
        return value
    fmt = ss.chain.formats.get(name) or (number_format(value) if value is not None else "General")
    ss.sheet.fixed(row, col, value, fmt, note)
    return value if value is not None else xl.NA


def write_fixed(ss, why: str) -> None:
    sh, s, m, chosen = ss.sheet, ss.search, ss.model, ss.chosen
    title = sh.ws.title
    here = quote_sheetname(title) + "!"
    note = f"{s.name}: the compiler's answer when the workbook was built ({why}); it does not follow the inputs."
    row = 5
    sh.section(row, "Answer: the compiler's, at build time")
    sh.long(
        row + 1,
        1,
        13,
        f"NOTE: {why}, so these are the compiler's numbers when the workbook was built and do not follow the inputs: after changing inputs, run chainc solve {m.name} --question {s.name}.",
        font=NOTE_FONT,
    )
    sh.header(row + 2, ["name", "value", "unit", "what it is"], span=13)
    row += 3
    names = [a.name for a in s.over] + list(chosen.inner_names())
    if s.frontier:
        sh.text(row, 1, "on the frontier", font=BOLD)
        count = _put(ss, row, 2, len(chosen.order), note)
        ss.book.manifest.cells[ss.key("frontier count")] = (title, f"B{row}")
        ss.exports["#frontier"] = xl.Cell(f"{here}$B${row}", count)
        first_goal = None
        row += 1
    else:
        values = chosen.values(chosen.best) if chosen.best is not None else {}
        for name in [*names, s.goals[0].name]:
            sh.text(row, 1, name, font=BOLD)
            v = m.variables.get(name)
            sh.text(row, 3, v.unit if v is not None and name not in ("gpu", "llm") else "")
            sh.long(row, 4, 13, "at the best configuration", font=GREY_FONT)
            value = _put(ss, row, 2, values.get(name), note, name)
            ss.exports[name] = xl.Cell(f"{here}$B${row}", value)
            ss.book.manifest.cells[ss.key("best", name)] = (title, f"B{row}")
            row += 1
        first_goal = ss.exports[s.goals[0].name]
        sh.text(row, 1, "bound by", font=BOLD)
        sh.long(row, 4, 13, chosen.bound_by(), font=GREY_FONT)
        row += 1
    sh.text(row, 1, "answer", font=BOLD)
    sh.long(row, 2, 13, chosen.sentence(), font=NOTE_FONT)
    ss.summary = (first_goal if first_goal is not None else ss.exports["#frontier"], None, f"{chosen.sentence()}  NOTE: {note}")
    row += 2
    table = chosen.table(None if s.frontier else s.show)
    heads = ["rank", *names, *(g.name for g in s.goals)]
    sh.section(row, "The frontier, best x first" if s.frontier else "Ranked: the best configurations")
    sh.header(row + 1, heads)
    row += 2
    for k, line in enumerate(table):
        for j, name in enumerate(heads):
            _put(ss, row, 1 + j, line[name], note, name)
            ss.book.manifest.cells[ss.key("table", k, name)] = (title, f"{get_column_letter(1 + j)}{row}")
        row += 1
    row += 1
    if len(chosen.configs) <= limit("workbook_configurations"):
        sh.section(row, f"Configurations: {len(chosen.configs):,}, the compiler's values at build time")
        sh.header(row + 1, ["#", *names, *(g.name for g in s.goals), "why not"])
        row += 2
        for i in range(len(chosen.configs)):
            values = chosen.values(i)
            sh.number(row, 1, i + 1, "0")
            for j, name in enumerate([*names, *(g.name for g in s.goals)]):
                _put(ss, row, 2 + j, values[name], note, name)
            sh.text(row, 2 + len(names) + len(s.goals), chosen.why[i])
            row += 1
    ss.last_col = 13
    ss.book.manifest.notes.append(f"{s.loc}: note: the workbook's sheet {title} ({s.name}) holds the build's answer and does not follow the inputs: {why}")
