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

from openpyxl.comments import Comment
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.hyperlink import Hyperlink

from ...quantities import exact
from . import xl
from .cells import BAD_FILL, BAD_FONT, BOLD, BOX, CHANGED_FILL, FIXED_FILL, FIXED_FONT, INPUT_FILL, INPUT_FONT, OK_FILL, OK_FONT, TITLE_FONT, UNLOCKED, Sheet, absolute, clean, number_format
from .emit import Emitter, NotLive, Scope, live
from .sweep import SweepRow

LEGEND = (
    ("input", "Input: type a value (or pick from a dropdown). Unlocked. Left empty, the input's default is used.", INPUT_FILL, INPUT_FONT),
    ("changed", "A value used that differs from its default (a typed value).", CHANGED_FILL, BOLD),
    ("formula", "Formula: computed live from the inputs. Locked.", None, None),
    ("fixed", "Fixed value: the compiler's number at build time (no formula can follow the inputs); a note says why and how to redo it.", FIXED_FILL, FIXED_FONT),
    ("check ok", "Check that holds (green) ...", OK_FILL, OK_FONT),
    ("check failed", "... and one that fails (red).", BAD_FILL, BAD_FONT),
)
KIND_TITLES = {"gpu": "GPUs", "llm": "LLMs"}


def _display(v, factor) -> float:
    return float(Fraction(v) / factor) if not isinstance(v, float) else v / float(factor)


def write_catalog(book, ws, catalog) -> dict:
    """The catalog sheet; returns (kind, field or 'ids') -> the Range of its column."""
    sh = Sheet(book, ws)
    sh.text(1, 1, "Catalog: GPUs and LLMs (hardware/)", font=TITLE_FONT)
    sh.text(
        2, 1, "Typed values (yellow) come from each entry's file with its source; derived sizes are formulas of the typed values in the same row. An empty cell is a value the entry does not have."
    )
    ws.column_dimensions["A"].width = 18
    ws.column_dimensions["B"].width = 24
    ranges: dict = {}
    row, widest = 4, 2
    for kind in ("gpu", "llm"):
        fields = catalog.fields[kind]
        entries = catalog.entries[kind]
        sh.section(row, KIND_TITLES[kind])
        row += 1
        sh.header(row, ["id", "title"] + [f"{n} [{f.unit}]" if f.unit else n for n, f in fields.items()] + ["about"])
        ws.row_dimensions[row].height = 45
        col_of = {n: 3 + k for k, n in enumerate(fields)}
        for n, c in col_of.items():
            ws.cell(row=row, column=c).comment = Comment(clean(fields[n].description), "chainc")
        first, last = row + 1, row + len(entries)
        widest = max(widest, 3 + len(fields))
        ranges[(kind, "ids")] = xl.Range(sh.define(f"{kind}.ids", f"$A${first}:$A${last}"), tuple(e.id for e, _ in entries))
        columns: dict = {n: [] for n in fields}
        for r, (e, values) in enumerate(entries, first):
            sh.text(r, 1, e.id, font=BOLD)
            sh.text(r, 2, e.title)
            book.titles[(kind, e.id)] = e.title
            factors = {n: exact(f.factor) for n, f in fields.items()}
            shown = {n: (_display(values[n], factors[n]) if values.get(n) is not None else None) for n in fields}
            for n in fields:
                book.manifest.cells[("catalog", kind, e.id, n)] = (ws.title, f"{get_column_letter(col_of[n])}{r}")
            scope = Scope()
            for n in e.typed:
                c = sh.number(r, col_of[n], shown[n], number_format(shown[n], exact=True))
                c.fill, c.font, c.protection = INPUT_FILL, INPUT_FONT, UNLOCKED
                scope.slots[n] = (xl.Cell(f"{get_column_letter(col_of[n])}{r}", shown[n]), factors[n])
            program = catalog.programs.get((kind, e.id))
            derived = [n for n in fields if n not in e.typed and shown[n] is not None]
            written = False
            if program is not None and live(program):
                try:
                    Emitter(sh, program, scope, SweepRow(sh, r, col_of, 3 + len(fields) + 1), lambda n, f=factors: f.get(n, Fraction(1)), values).run()
                    written = True
                except NotLive:
                    pass
            if not written:
                for n in derived:
                    sh.fixed(r, col_of[n], shown[n], number_format(shown[n]), f"{n} of {e.id}: the compiler's value; it does not follow the typed values.")
            for n in fields:
                columns[n].append(shown[n] if shown[n] is not None else "")
            if e.about:
                ws.column_dimensions[get_column_letter(3 + len(fields))].width = 60
                sh.long(r, 3 + len(fields), 3 + len(fields), e.about)
        for n, c in col_of.items():
            ranges[(kind, n)] = xl.Range(sh.define(f"{kind}.{n}", f"{absolute(first, c)}:{absolute(last, c)}"), tuple(columns[n]))
        row = last + 2
    for k in range(3, widest):
        ws.column_dimensions[get_column_letter(k)].width = 14
    ws.freeze_panes = "B4"
    sh.page()
    return ranges


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
        ("Checks", "Each check puts the card's expected value beside the computed one; the status turns green when they agree within the tolerance, red when not."),
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
    for title, text in rows:
        c = sh.text(row, 1, title)
        c.hyperlink = Hyperlink(ref=c.coordinate, location=f"{quote_sheetname(title)}!A1", display=title)
        c.font = Font(color="0563C1", underline="single")
        sh.text(row, 2, text)
        row += 1
    row += 1
    sh.section(row, "Sources")
    row += 1
    for r in reports:
        sh.text(row, 1, "model")
        sh.text(row, 2, r.source)
        row += 1
    folders = sorted({Path(e.path).parent.parent.name + "/" + Path(e.path).parent.name + "/*.yaml" for pairs in catalog.entries.values() for e, _ in pairs})
    sh.text(row, 1, "catalog")
    sh.text(row, 2, ", ".join(folders) or "hardware/")
    sh.page()
