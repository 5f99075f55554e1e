"""Cells and names: styles, number formats, text that stays text, formulas with their cached values.

`Book` is the workbook being built: its defined names (mangled once), every
formula cell's cached value, where things are (the manifest, for tests and
tools) and what could not be printed (one located error at the end). `Sheet`
writes one worksheet's cells through it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.comments import Comment
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Border, Font, PatternFill, Protection, Side
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName

from ...errors import ChaincError, Loc
from . import xl, xlcalc
from .names import NameTable

INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")
FIXED_FILL = PatternFill("solid", fgColor="E4DFEC")
HEADER_FILL = PatternFill("solid", fgColor="D9E1F2")
OK_FILL = PatternFill("solid", fgColor="C6EFCE")
BAD_FILL = PatternFill("solid", fgColor="FFC7CE")
REF_FILL = PatternFill("solid", fgColor="EDEDED")
CHANGED_FILL = PatternFill("solid", fgColor="F8CBAD")
INPUT_FONT = Font(color="1F3FBF", bold=True)
FIXED_FONT = Font(color="5B2C8F", italic=True)
BOLD = Font(bold=True)
TITLE_FONT = Font(bold=True, size=16)
SECTION_FONT = Font(bold=True, size=12, color="1F3864")
NOTE_FONT = Font(italic=True, color="7F6000")
GREY_FONT = Font(color="808080")
OK_FONT = Font(color="006100", bold=True)
BAD_FONT = Font(color="9C0006", bold=True)
REF_FONT = Font(color="595959", italic=True)
THIN = Side(style="thin", color="BFBFBF")
BOX = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
UNLOCKED = Protection(locked=False)
WRAP = Alignment(wrap_text=True, vertical="top")
BOOLEAN_FORMAT = '"TRUE";"TRUE";"FALSE"'


class ExcelPrintError(ChaincError, ValueError):
    """Something in a model has no Excel formula: every such construct, the first one's place."""


def clean(text) -> str:
    return ILLEGAL_CHARACTERS_RE.sub("", str(text))[:32000]


def number_format(value, integer: bool = False, digits: int | None = None, exact: bool = False) -> str:
    """4 significant figures (or `digits`), the exact decimal of a typed value, or E notation when tiny or huge."""
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return "General"
    if integer or (exact and v == int(v) and abs(v) < 1e15):
        return "#,##0"
    if v == 0 or not math.isfinite(v):
        return "0"
    a = abs(v)
    if a < 1e-3 or a >= 1e12:
        return "0.000E+00"
    if exact:
        r = Fraction(value) if isinstance(value, (int, Fraction)) else Fraction(repr(v))
        for d in range(0, 10):
            if (r * 10**d).denominator == 1:
                return "#,##0" + ("." + "0" * d if d else "")
    d = max(0, min(9, (digits or 4) - 1 - math.floor(math.log10(a))))
    return "#,##0" + ("." + "0" * d if d else "")


def cell_number(x):
    """A Python number for a cell: an int when whole and small, else a float."""
    if isinstance(x, bool):
        return x
    f = float(x)
    return int(f) if f == int(f) and abs(f) < 2**53 else f


@dataclass
class Manifest:
    """Where things are, for tests and tools: key -> (sheet title, cell)."""

    cells: dict[tuple, tuple[str, str]] = field(default_factory=dict)
    fixed: list[tuple[str, str]] = field(default_factory=list)  # cells holding build-time numbers
    helpers: list[tuple[str, str]] = field(default_factory=list)  # formula cells with no Report number (cached from the formula)
    notes: list[str] = field(default_factory=list)  # located lines for the build's reader: what cannot follow the inputs


class Book:
    def __init__(self, wb):
        self.wb = wb
        self.names = NameTable()
        self.cached: dict[tuple[str, str], object] = {}
        self.arrays: set[tuple[str, str]] = set()  # cells written as one-cell array formulas
        self.manifest = Manifest()
        self.problems: list[tuple[Loc | None, str, str]] = []  # (where, what, which statement)
        self.titles: dict[tuple[str, str], str] = {}  # (kind, catalog id) -> its title
        self.search_titles: dict[tuple[str, str], str] = {}  # (model, search) -> its sheet's title

    def define(self, key: str, ws, ref: str) -> str:
        name = self.names.name(key)
        self.wb.defined_names[name] = DefinedName(name, attr_text=f"{quote_sheetname(ws.title)}!{ref}")
        return name

    def problem(self, loc: Loc | None, what: str, where: str) -> None:
        self.problems.append((loc, what, where))

    def raise_problems(self) -> None:
        if not self.problems:
            return
        seen, lines = set(), []
        for loc, what, where in self.problems:
            line = f"{what} in {where}" + (f" ({loc})" if loc else "")
            if line not in seen:
                seen.add(line)
                lines.append(line)
        first = self.problems[0][0]
        raise ExcelPrintError(
            "the Excel backend (xlsx) cannot print " + "; ".join(lines),
            first,
            "Excel formulas hold + - * / ^, comparisons, and/or/not, if, min, max, floor, ceil, abs, exp, log, sqrt; rewrite the equation, or build another format",
        )


def absolute(row: int, col: int) -> str:
    return f"${get_column_letter(col)}${row}"


class Sheet:
    """One worksheet's writer."""

    def __init__(self, book: Book, ws):
        self.book, self.ws = book, ws

    def text(self, row: int, col: int, value, font=None, fill=None, wrap=False):
        """User text as TEXT: never a formula, whatever it starts with."""
        c = self.ws.cell(row=row, column=col)
        value = clean(value)
        c.value = value
        c.data_type = "s"
        if value[:1] in ("=", "+", "-", "@"):
            c.quotePrefix = True
        if font:
            c.font = font
        if fill:
            c.fill = fill
        if wrap:
            c.alignment = WRAP
        return c

    def formula(self, row: int, col: int, node, cached=None, fmt: str | None = None):
        """A formula cell; its cached value is the Report's number, or else the formula's own value."""
        c = self.ws.cell(row=row, column=col)
        c.value = xl.formula(node)
        c.data_type = "f"
        if len(c.value) - 1 > xl.FORMULA_CHARS:  # Excel refuses to open the file; LibreOffice would not say
            self.book.problem(None, f"a formula of {len(c.value) - 1:,} characters (Excel's limit is {xl.FORMULA_CHARS:,})", f"the cell {self.ws.title}!{c.coordinate}")
        if xl.has_series(node):  # Gnumeric applies a function to each term of a SUMPRODUCT only in an array formula
            self.book.arrays.add((self.ws.title, c.coordinate))
        if cached is None:
            cached = xlcalc.value(node)
            self.book.manifest.helpers.append((self.ws.title, c.coordinate))
        self.book.cached[(self.ws.title, c.coordinate)] = cached
        if fmt:
            c.number_format = fmt
        return c

    def number(self, row: int, col: int, value, fmt: str | None = None):
        c = self.ws.cell(row=row, column=col, value=cell_number(value))
        if fmt:
            c.number_format = fmt
        return c

    def fixed(self, row: int, col: int, value, fmt: str, how: str):
        """The compiler's number (or chosen catalog id) where no formula can follow the inputs: styled apart, with a note."""
        c = self.ws.cell(row=row, column=col)
        if isinstance(value, xl.XError) or value is None:
            c.value = "#N/A"
            c.data_type = "e"
        elif isinstance(value, str):
            c.value = value
        else:
            c.value = cell_number(value)
        c.fill, c.font, c.number_format = FIXED_FILL, FIXED_FONT, fmt
        c.comment = Comment(clean(how), "chainc")
        self.book.manifest.fixed.append((self.ws.title, c.coordinate))
        return c

    def define(self, key: str, ref: str) -> str:
        return self.book.define(key, self.ws, ref)

    def header(self, row: int, labels: list[str], col: int = 1, span: int | None = None):
        """A header row; span: the last label's cell merged up to that column (over a description's cells)."""
        for k, label in enumerate(labels):
            c = self.text(row, col + k, label, font=BOLD, fill=HEADER_FILL)
            c.border = BOX
            c.alignment = Alignment(wrap_text=True, vertical="center")
        last = col + len(labels) - 1
        if span is not None and span > last:
            self.ws.merge_cells(start_row=row, start_column=last, end_row=row, end_column=span)

    def section(self, row: int, title: str):
        self.text(row, 1, title, font=SECTION_FONT)

    def long(self, row: int, col: int, last_col: int, text: str, font=None):
        """Text in merged, wrapped cells col..last_col, the row made tall enough."""
        c = self.text(row, col, text, font=font)
        c.alignment = WRAP
        if last_col > col:
            self.ws.merge_cells(start_row=row, start_column=col, end_row=row, end_column=last_col)
        width = sum(self.ws.column_dimensions[get_column_letter(k)].width or 13 for k in range(col, last_col + 1))
        lines = max(1, math.ceil(len(text) * 1.15 / max(width, 1)))
        self.ws.row_dimensions[row].height = max(self.ws.row_dimensions[row].height or 15, 15 * lines)
        return c

    def note(self, row: int, text: str, col: int = 4):
        """Add a visible NOTE to a row's description (already merged and wrapped)."""
        c = self.ws.cell(row=row, column=col)
        c.value = clean(((c.value + "  ") if c.value else "") + "NOTE: " + text)
        c.data_type, c.alignment = "s", WRAP
        lines = max(1, math.ceil(len(c.value) * 1.15 / 125))
        self.ws.row_dimensions[row].height = max(self.ws.row_dimensions[row].height or 15, 15 * lines)

    def status(self, row: int, col: int, ok, colour=(), own=None):
        """An OK/FAIL cell, green or red, and the same colours on the `colour` cells.

        own: the condition that the sheet runs on the hardware the check was written for; elsewhere
        the cell says `reference`, grey, and never FAIL: the expected value beside it is for other hardware.
        """
        verdict = xl.fn("IF", ok, xl.Str("OK"), xl.Str("FAIL"))
        node = verdict if own is None else xl.fn("IF", own, verdict, xl.Str("reference"))
        self.formula(row, col, node, xlcalc.value(node))
        good = xl.text(ok) if own is None else f"AND({xl.text(own)},{xl.text(ok)})"
        bad = f"NOT({xl.text(ok)})" if own is None else f"AND({xl.text(own)},NOT({xl.text(ok)}))"
        for coord in [f"{get_column_letter(col)}{row}", *colour]:
            if own is not None:
                self.ws.conditional_formatting.add(coord, FormulaRule(formula=[f"NOT({xl.text(own)})"], fill=REF_FILL, font=REF_FONT, stopIfTrue=True))
            self.ws.conditional_formatting.add(coord, FormulaRule(formula=[good], fill=OK_FILL, font=OK_FONT, stopIfTrue=True))
            self.ws.conditional_formatting.add(coord, FormulaRule(formula=[bad], fill=BAD_FILL, font=BAD_FONT, stopIfTrue=True))

    def flag(self, coord: str, bad) -> None:
        """Red when the condition holds (a computed value outside its domain)."""
        self.ws.conditional_formatting.add(coord, FormulaRule(formula=[xl.text(bad)], fill=BAD_FILL, font=BAD_FONT))

    def page(self, landscape: bool = True):
        """Protected (no password), printed one page wide."""
        ws = self.ws
        ws.protection.sheet = True
        ws.protection.formatColumns = ws.protection.formatRows = False  # widths and heights stay the reader's to change
        ws.page_setup.orientation = "landscape" if landscape else "portrait"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True
