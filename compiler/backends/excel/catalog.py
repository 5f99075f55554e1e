"""The cover sheet (what this is, how to use it, the legend, the sheets, the sources) and the catalog sheet.

The catalog lists every GPU and LLM of the CatalogReport: typed values as
unlocked inputs, derived sizes as live formulas printed from each entry's own
program (CatalogReport.programs), in the same row. Each column is a named range
the chains' dropdowns read through INDEX/MATCH.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.hyperlink import Hyperlink

from ...calibrated import IDEAL
from ...numbers import exact
from . import xl
from .cells import (
    BAD_FILL,
    BAD_FONT,
    BOLD,
    BOX,
    CHANGED_FILL,
    FIXED_FILL,
    FIXED_FONT,
    GREY_FONT,
    INPUT_FILL,
    INPUT_FONT,
    OK_FILL,
    OK_FONT,
    REF_FILL,
    REF_FONT,
    TITLE_FONT,
    UNLOCKED,
    Sheet,
    absolute,
    number_format,
)
from .emit import Emitter, NotLive, Row, Scope, live
from .layout import fit

LEGEND = (
    ("input", "Input: type a value (or pick from a dropdown). Unlocked. Left empty, the input's default is used.", INPUT_FILL, INPUT_FONT),
    ("changed", "A value used that differs from its default (a typed value).", CHANGED_FILL, BOLD),
    ("formula", "Formula: computed live from the inputs. Locked.", None, None),
    ("fixed", "Fixed value: the compiler's number at build time (no formula can follow the inputs); a note says why and how to redo it.", FIXED_FILL, FIXED_FONT),
    ("check ok", "Check that holds (green) ...", OK_FILL, OK_FONT),
    ("check failed", "... and one that fails (red).", BAD_FILL, BAD_FONT),
    ("reference", "A check on other hardware than it was written for: its expected value is for that hardware, a reference.", REF_FILL, REF_FONT),
)
KIND_TITLES = {"gpu": "GPUs", "llm": "LLMs"}


def _display(v, factor) -> float:
    return float(Fraction(v) / factor) if not isinstance(v, float) else v / float(factor)


def write_catalog(book, ws, catalog) -> dict:
    """The catalog sheet, one column per entry and one row per field; returns (kind, field or 'ids') -> its Range."""
    sh = Sheet(book, ws)
    sh.text(1, 1, "Catalog: GPUs and LLMs (hardware/)", font=TITLE_FONT)
    width = 3 + max(len(catalog.entries[k]) for k in ("gpu", "llm"))  # field, unit, the entries, the field's meaning
    sh.long(
        2,
        1,
        width,
        "Typed values (yellow) come from each entry's file with its source; derived sizes are formulas of the typed values in the same column. An empty cell is a value the entry does not have.",
    )
    ranges: dict = {}
    row = 4
    for kind in ("gpu", "llm"):
        fields, entries = catalog.fields[kind], catalog.entries[kind]
        first, last = 3, 2 + len(entries)
        sh.section(row, KIND_TITLES[kind])
        head = row + 1
        sh.header(head, ["field", "unit"] + [e.id for e, _ in entries] + [""] * (width - 3 - len(entries)) + ["meaning"])
        ranges[(kind, "ids")] = xl.Range(sh.define(f"{kind}.ids", f"{absolute(head, first)}:{absolute(head, last)}"), tuple(e.id for e, _ in entries))
        sh.text(head + 1, 1, "title", font=BOLD)
        for c, (e, _) in enumerate(entries, first):
            sh.text(head + 1, c, e.title, wrap=True)
            book.titles[(kind, e.id)] = e.title
        row_of = {n: head + 2 + k for k, n in enumerate(fields)}
        factors = {n: exact(f.factor) for n, f in fields.items()}
        for n, r in row_of.items():
            sh.text(r, 1, n, font=BOLD)
            sh.text(r, 2, fields[n].unit)
            sh.text(r, width, fields[n].description, font=GREY_FONT)
        rows: dict = {n: [] for n in fields}
        for c, (e, values) in enumerate(entries, first):
            letter = get_column_letter(c)
            shown = {n: (_display(values[n], factors[n]) if values.get(n) is not None else None) for n in fields}
            for n in fields:
                book.manifest.cells[("catalog", kind, e.id, n)] = (ws.title, f"{letter}{row_of[n]}")
            scope = Scope()
            for n in e.typed:
                cell = sh.number(row_of[n], c, shown[n], number_format(shown[n], exact=True))
                cell.fill, cell.font, cell.protection = INPUT_FILL, INPUT_FONT, UNLOCKED
                scope.slots[n] = (xl.Cell(f"{letter}{row_of[n]}", shown[n]), factors[n])
            program = catalog.programs.get((kind, e.id))
            written = False
            if program is not None and live(program):
                try:
                    Emitter(sh, program, scope, Fixed(row_of, c), lambda n, f=factors: f.get(n, Fraction(1)), values).run()
                    written = True
                except NotLive:
                    pass
            if not written:
                for n in fields:
                    if n not in e.typed and shown[n] is not None:
                        sh.fixed(row_of[n], c, shown[n], number_format(shown[n]), f"{n} of {e.id}: the compiler's value; it does not follow the typed values.")
            for n in fields:
                rows[n].append(shown[n] if shown[n] is not None else "")
        for n, r in row_of.items():
            ranges[(kind, n)] = xl.Range(sh.define(f"{kind}.{n}", f"{absolute(r, first)}:{absolute(r, last)}"), tuple(rows[n]))
        row = head + 2 + len(fields)
        for e, _ in entries:  # what each entry is, in words, below its table
            if e.about:
                sh.long(row, 1, width, f"{e.id}: {e.about}", font=GREY_FONT)
                row += 1
        row += 1
    ws.freeze_panes = "C4"
    sh.page()
    fit(ws, book.cached, width, fixed={width: 48})
    return ranges


class Fixed(Row):
    """An entry's column: each field's value goes to its row."""

    def __init__(self, rows: dict, col: int):
        self.rows_of, self.col, self.cols = rows, col, {}

    def place(self, key, label, helper):
        r = self.rows_of[key]
        return r, self.col, f"{get_column_letter(self.col)}{r}"


def _calibration_text(reports) -> str:
    """What the numbers are: each calibrated chain's calibration, and that the others are an ideal machine."""
    calibrated = [r for r in reports if r.calibration is not None]
    if not calibrated:
        return "Every chain is " + IDEAL + "."
    said = " ".join(f"{r.model.name} is {r.calibration.sentence}." for r in calibrated)
    return said + (" Every other chain is " + IDEAL + "." if len(calibrated) < len(reports) else "")


def write_cover(book, ws, reports, requested: set, titles: dict, catalog) -> None:
    from ... import __version__

    sh = Sheet(book, ws)
    ws.column_dimensions["A"].width = 24
    ws.column_dimensions["B"].width = 100
    sh.text(1, 1, "LLM-serving capacity chains", font=TITLE_FONT)
    lines = [
        ("What this is", "Each chain of serving math (Little's law, KV sizing, goodput at a latency target, ...) as live formulas, compiled by chainc from the YAML models. "
         "Every number on a chain sheet is a formula of the inputs above it, in the unit shown beside it: the same program the compiler runs, printed as formulas."),
        ("How to use it", "Pick a GPU and an LLM in a chain's dropdowns (the values come from the Catalog sheet), or type a value in an input's yellow cell; "
         "empty, the input uses its default (shown beside it, from the catalog where it says so). "
         "Results, questions, tables, checks and charts follow. Sheets are protected without a password so formulas are not overwritten by accident: "
         "Review > Unprotect Sheet to change a formula."),
        ("Questions", "A question (the largest batch that meets a TPOT target) follows the compiler's answer rule as formulas: it solves the boundary, probes both sides, "
         "takes the boundary or the domain's edge and rounds to the step on the safe side. When no value meets the condition the answer is #N/A and the cell beside it says why. "
         "The workings are in folded rows below the questions."),
        ("Searches", "A search over configurations (the cheapest GPU and TP degree, the best draft length, a frontier) has a sheet of its own: a row of formulas per configuration "
         "(its inner questions answered by the same rule, its conditions, its goal, why it fails), the rank, the best configuration, the ranked table and what binds, all live. "
         "A search the workbook cannot lay out is the compiler's answer in fixed cells, and its sheet says why."),
        ("Checks", "Each check puts its expected value beside the computed one; the status turns green when they agree within the tolerance, red when not."),
        ("Calibration", _calibration_text(reports)),
        ("Generator", f"chainc {__version__}"),
    ]  # fmt: skip
    row = 3
    for label, text in lines:
        sh.text(row, 1, label, font=BOLD)
        sh.text(row, 2, text, wrap=True)
        ws.row_dimensions[row].height = 15 * max(1, math.ceil(len(text) / 95))
        row += 1
    row += 1
    sh.section(row, "Colour legend")
    row += 1
    for label, text, fill, font in LEGEND:
        c = sh.text(row, 1, label, font=font, fill=fill)
        c.border = BOX
        sh.text(row, 2, text)
        row += 1
    row += 1
    sh.section(row, "Sheets")
    row += 1
    users = {r.model.name: [o.model.name for o in reports if r.model in dict(o.model.imports).values()] for r in reports}
    rows = [("Catalog", "every GPU and LLM in hardware/: typed values, and derived sizes as formulas")]
    for r in reports:
        name = r.model.name
        rows.append((titles[name], r.model.title + ("" if name in requested else f" (included because {', '.join(users[name])} uses its values)")))
        for search, s in r.model.searches.items():  # each search's sheet: a row per configuration, the choice live
            rows.append((titles[(name, search)], f"{name}'s search {search}: {s.ask or 'its configurations, ranked'}"))
    for title, text in rows:
        c = sh.text(row, 1, title)
        c.hyperlink = Hyperlink(ref=c.coordinate, location=f"{quote_sheetname(title)}!A1", display=title)
        c.font = Font(color="0563C1", underline="single")
        sh.text(row, 2, text)
        row += 1
    row += 1
    sh.section(row, "Sources")
    row += 1
    sh.text(row, 1, "models", font=BOLD)
    sh.text(row, 2, ", ".join(r.source for r in reports), wrap=True)
    folders = sorted({Path(e.path).parent.parent.name + "/" + Path(e.path).parent.name + "/*.yaml" for pairs in catalog.entries.values() for e, _ in pairs})
    sh.text(row + 1, 1, "catalog", font=BOLD)
    sh.text(row + 1, 2, ", ".join(folders) or "hardware/", wrap=True)
    for r in range(1, row + 2):
        ws.cell(row=r, column=1).alignment = Alignment(vertical="top")
    sh.page()
    ws.page_setup.fitToHeight = 0  # the cover fits the width; a long list of chains goes on over pages, type stays >= 8 pt
