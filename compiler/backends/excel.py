"""The Excel backend: every chain as live formulas in one workbook, `chains.xlsx`.

Sheets: a cover (what this is, how to use it, the colour legend, the sources,
links), the catalog (every GPU and LLM; derived sizes as formulas of the typed
values in the same row), then one sheet per chain: GPU/LLM dropdowns, inputs,
results as formulas over named cells in display units, questions, tables as
rows of formulas, checks that turn green or red, and sweeps with a chart.

Every formula comes from `ExcelPrinter` over the solver's own closed forms
(`Solution.formulas`, `Answer.boundary_solution`). Where no closed form exists
(a numeric step, a question whose boundary has none), the cell holds the
compiler's number styled as a fixed value, with a visible note saying how to
redo it with Goal Seek. Each formula cell also carries the compiler's value as
its cached value, so viewers that do not recalculate show the right numbers.

The whole workbook is built in memory and written with `write_atomic`; the
same inputs give the same bytes (fixed timestamps and creator, fixed zip dates).
"""

from __future__ import annotations

import datetime
import io
import math
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp
from openpyxl import Workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.comments import Comment
from openpyxl.formatting.rule import FormulaRule
from openpyxl.styles import Alignment, Border, Font, PatternFill, Protection, Side
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.hyperlink import Hyperlink
from openpyxl.worksheet.pagebreak import Break
from openpyxl.writer.excel import ExcelWriter
from sympy.core.function import AppliedUndef

from ..errors import ChaincError
from ..format import as_float
from ..ir import Model
from ..solve import Solution, ask, solve, tear
from ..sweep import points, run_sweep
from . import BuildOptions, write_atomic
from .excel_printer import ExcelPrinter, NameTable

WORKBOOK = "chains.xlsx"
FIXED_TIME = datetime.datetime(2000, 1, 1, 0, 0, 0)
TABLE_ROWS = 64  # rows laid out for a table whose row count depends on the inputs (at most its max_rows)

# --- styles ------------------------------------------------------------------------------------

INPUT_FILL = PatternFill("solid", fgColor="FFF2CC")
FIXED_FILL = PatternFill("solid", fgColor="E4DFEC")
HEADER_FILL = PatternFill("solid", fgColor="D9E1F2")
OK_FILL = PatternFill("solid", fgColor="C6EFCE")
BAD_FILL = PatternFill("solid", fgColor="FFC7CE")
INPUT_FONT = Font(color="1F3FBF", bold=True)
FIXED_FONT = Font(color="5B2C8F", italic=True)
BOLD = Font(bold=True)
TITLE_FONT = Font(bold=True, size=16)
SECTION_FONT = Font(bold=True, size=12, color="1F3864")
NOTE_FONT = Font(italic=True, color="7F6000")
GREY_FONT = Font(color="808080")
OK_FONT = Font(color="006100", bold=True)
BAD_FONT = Font(color="9C0006", bold=True)
THIN = Side(style="thin", color="BFBFBF")
BOX = Border(left=THIN, right=THIN, top=THIN, bottom=THIN)
UNLOCKED = Protection(locked=False)
WRAP = Alignment(wrap_text=True, vertical="center")
SERIES_COLOURS = ("1F77B4", "2CA02C", "FF7F0E", "9467BD", "8C564B")
BOOLEAN_FORMAT = '"TRUE";"TRUE";"FALSE"'

LEGEND = (
    ("input", "Input: type a value (or pick from a dropdown). Unlocked.", INPUT_FILL, INPUT_FONT),
    ("formula", "Formula: computed live from the inputs. Locked.", None, None),
    ("fixed", "Fixed value: the compiler's number at build time (no closed form); a note says how to redo it.", FIXED_FILL, FIXED_FONT),
    ("check ok", "Check that holds (green) ...", OK_FILL, OK_FONT),
    ("check failed", "... and one that fails (red).", BAD_FILL, BAD_FONT),
)


class ExcelBuildError(ChaincError, ValueError):
    """The workbook cannot be built as asked."""


@dataclass(frozen=True)
class Ref:
    """Formula text (a defined name, a cell or an expression) holding a value in display units; factor: display -> base."""

    text: str
    factor: sp.Expr = sp.Integer(1)


@dataclass
class Manifest:
    """Where things are, for tests and tools: key -> (sheet title, cell or range)."""

    cells: dict[tuple, tuple[str, str]] = field(default_factory=dict)
    fixed: list[tuple[str, str]] = field(default_factory=list)  # cells holding build-time numbers


def _num(x) -> float | int:
    """A Python number for a cell: int when whole and small, else float."""
    v = sp.nsimplify(x) if isinstance(x, float) else x
    if isinstance(v, sp.Basic):
        if v.is_Integer and abs(int(v)) < 2**53:
            return int(v)
        return float(v)
    return v


def number_format(value, integer: bool = False, digits: int | None = None, exact: bool = False) -> str:
    """A format that shows a sensible number of digits: 4 significant figures (or `digits`), or the exact decimal of an input."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return "General"
    if integer or (exact and v == int(v) and abs(v) < 1e15):
        return "#,##0"
    if v == 0 or not math.isfinite(v):
        return "0"
    a = abs(v)
    if a < 1e-3 or a >= 1e12:
        return "0.000E+00"
    if exact:
        r = sp.Rational(str(v)) if not isinstance(value, sp.Rational) else value
        for d in range(0, 10):
            if (r * 10**d).is_integer:
                return "#,##0" + ("." + "0" * d if d else "")
    sig = digits or 4
    d = max(0, min(9, sig - 1 - math.floor(math.log10(a))))
    return "#,##0" + ("." + "0" * d if d else "")


def _clean(text: str) -> str:
    return ILLEGAL_CHARACTERS_RE.sub("", str(text))[:32000]


def inline(expr: sp.Expr, formulas: dict[str, sp.Expr], model: Model, known: frozenset[str] | set[str]) -> sp.Expr:
    """Substitute computed variables' closed forms until only known variables (and parameters) remain."""
    subs = {model.variables[n].sym: f for n, f in formulas.items() if n not in known and n in model.variables}
    for _ in range(len(subs) + 2):
        new = expr.xreplace(subs)
        if new == expr:
            break
        expr = new
    return expr


class WorkbookBuilder:
    def __init__(self, project, models: list[Model], options: BuildOptions):
        self.project = project
        self.options = options
        self.models = self._with_imports(models)
        self.requested = {m.name for m in models}
        self.names = NameTable()
        self.manifest = Manifest()
        self.cached: dict[tuple[str, str], object] = {}
        self.wb = Workbook()
        self.sheet_titles: dict[str, str] = {}
        self.chain_refs: dict[str, dict[str, Ref]] = {}  # model -> variable -> its named cell
        self.solutions: dict[str, Solution] = {}
        self.catalog_names: dict[tuple[str, str], str] = {}  # (kind, field or 'ids') -> name

    # --- the models --------------------------------------------------------------------------

    def _with_imports(self, models: list[Model]) -> list[Model]:
        out: list[Model] = []

        def add(m: Model):
            if any(o is m for o in out):
                return
            for _, other in m.imports:
                add(self.project.model(other))
            out.append(m)

        for m in models:
            add(m)
        return out

    def entry_for(self, model: Model, kind: str) -> str | None:
        default = getattr(model, kind)
        chosen = getattr(self.options, kind, None)
        return (chosen or default) if default else None

    # --- cell helpers ------------------------------------------------------------------------

    def text(self, ws, row: int, col: int, value: str, font=None, fill=None, wrap=False):
        """User text as TEXT: never a formula, whatever it starts with."""
        c = ws.cell(row=row, column=col)
        value = _clean(value)
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

    def formula(self, ws, row: int, col: int, formula: str, cached, fmt: str | None = None):
        c = ws.cell(row=row, column=col)
        c.value = formula
        c.data_type = "f"
        self.cached[(ws.title, c.coordinate)] = cached
        if fmt:
            c.number_format = fmt
        return c

    def define(self, key: str, ws, ref: str) -> str:
        name = self.names.name(key)
        self.wb.defined_names[name] = DefinedName(name, attr_text=f"{quote_sheetname(ws.title)}!{ref}")
        return name

    @staticmethod
    def absolute(row: int, col: int) -> str:
        return f"${get_column_letter(col)}${row}"

    def print_display(self, expr: sp.Expr, factor, refs: dict[sp.Symbol, Ref], functions: dict[str, Ref] | None = None) -> str:
        """'=' + expr (base units) printed in display units (÷ factor) over refs holding display-unit values.

        functions: table aggregates (applied undefined functions, by name) -> the range formula and its column's factor.
        """
        subs, names = {}, {}
        if functions and expr.has(AppliedUndef):
            aggs = {}
            for node in sorted(expr.atoms(AppliedUndef), key=sp.default_sort_key):
                name = node.func.__name__
                if name in functions:
                    ph = sp.Symbol("agg:" + name)
                    aggs[node] = functions[name].factor * ph
                    names[ph] = functions[name].text
            expr = expr.xreplace(aggs)
        for s in sorted(expr.free_symbols, key=lambda s: s.name):
            if s in refs:
                ph = sp.Symbol("ref:" + s.name)
                subs[s] = refs[s].factor * ph
                names[ph] = refs[s].text
        e = expr.xreplace(subs)
        if factor != 1:
            e = e / factor
        return "=" + ExcelPrinter(names).formula(e)

    def header(self, ws, row: int, labels: list[str], col: int = 1):
        for k, label in enumerate(labels):
            c = self.text(ws, row, col + k, label, font=BOLD, fill=HEADER_FILL)
            c.border = BOX
            c.alignment = Alignment(wrap_text=True, vertical="center")

    def section(self, ws, row: int, title: str):
        self.text(ws, row, 1, title, font=SECTION_FONT)

    def note(self, ws, row: int, col: int, text: str, last_col: int | None = None):
        if last_col:
            return self.long(ws, row, col, last_col, text, font=NOTE_FONT)
        return self.text(ws, row, col, text, font=NOTE_FONT)

    def long(self, ws, row: int, col: int, last_col: int, text: str, font=None):
        """Text in merged, wrapped cells col..last_col (no overflow into neighbours), the row made tall enough."""
        c = self.text(ws, row, col, text, font=font)
        c.alignment = WRAP
        if last_col > col:
            ws.merge_cells(start_row=row, start_column=col, end_row=row, end_column=last_col)
        width = sum(ws.column_dimensions[get_column_letter(k)].width or 13 for k in range(col, last_col + 1))
        lines = max(1, math.ceil(len(text) * 1.1 / width))
        ws.row_dimensions[row].height = max(ws.row_dimensions[row].height or 15, 15 * lines)
        return c

    def fixed(self, ws, row: int, col: int, value, fmt: str, how: str):
        c = ws.cell(row=row, column=col, value=_num(value))
        c.fill, c.font, c.number_format = FIXED_FILL, FIXED_FONT, fmt
        c.comment = Comment(_clean(how), "chainc")
        self.manifest.fixed.append((ws.title, c.coordinate))
        return c

    # --- the workbook ------------------------------------------------------------------------

    def build(self) -> bytes:
        for m in self.models:
            self.solutions[m.name] = solve(m, gpu=self.entry_for(m, "gpu"), llm=self.entry_for(m, "llm"), project=self.project)
        cover = self.wb.active
        cover.title = "Cover"
        catalog = self.wb.create_sheet("Catalog")
        taken = {"COVER", "CATALOG"}
        for m in self.models:
            title = re.sub(r"[\[\]:*?/\\']", "_", m.name)[:31] or "chain"
            base, k = title, 1
            while title.upper() in taken:
                k += 1
                title = f"{base[:28]}_{k}"
            taken.add(title.upper())
            self.sheet_titles[m.name] = title
        self.write_catalog(catalog)
        for m in self.models:
            self.write_chain(m)
        self.write_cover(cover)
        props = self.wb.properties
        from .. import __version__

        props.creator = f"chainc {__version__}"
        props.lastModifiedBy = f"chainc {__version__}"
        props.title = "chainc: LLM-serving capacity chains"
        props.created = props.modified = FIXED_TIME
        return self.save()

    def save(self) -> bytes:
        raw = io.BytesIO()
        with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
            ExcelWriter(self.wb, archive).write_data()
        # second pass: fixed zip dates, and the compiler's values as each formula's cached value
        sheet_paths = {f"xl/worksheets/sheet{i}.xml": ws.title for i, ws in enumerate(self.wb.worksheets, 1)}
        out = io.BytesIO()
        with zipfile.ZipFile(raw) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
            for info in src.infolist():
                data = src.read(info.filename)
                if info.filename in sheet_paths:
                    data = self._inject(data.decode("utf-8"), sheet_paths[info.filename]).encode("utf-8")
                if info.filename == "docProps/core.xml":
                    data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*(<)", rb"\g<1>2000-01-01T00:00:00Z\2", data)
                zi = zipfile.ZipInfo(info.filename, date_time=(2000, 1, 1, 0, 0, 0))
                zi.compress_type = zipfile.ZIP_DEFLATED
                zi.external_attr = 0o600 << 16
                dst.writestr(zi, data)
        return out.getvalue()

    def _inject(self, xml: str, title: str) -> str:
        def repl(m: re.Match) -> str:
            coord, attrs, f = m.group(1), m.group(2) or "", m.group(3)
            key = (title, coord)
            if key not in self.cached:
                return m.group(0)
            v = self.cached[key]
            if isinstance(v, bool):
                return f'<c r="{coord}"{attrs} t="b"><f>{f}</f><v>{int(v)}</v></c>'
            if isinstance(v, str):
                esc = v.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                return f'<c r="{coord}"{attrs} t="str"><f>{f}</f><v>{esc}</v></c>'
            if v is None:
                return m.group(0)
            x = as_float(v)  # None: an exact value no double holds (1e400, or a nonzero 1e-400 that would cache as 0)
            if x is None or not math.isfinite(x):
                return f'<c r="{coord}"{attrs} t="e"><f>{f}</f><v>#NUM!</v></c>'
            return f'<c r="{coord}"{attrs}><f>{f}</f><v>{repr(x)}</v></c>'

        return re.sub(r'<c r="([A-Z]+[0-9]+)"((?: [a-z]+="[^"]*")*)><f>([^<]*)</f><v ?/></c>', repl, xml)

    # --- cover -------------------------------------------------------------------------------

    def write_cover(self, ws):
        from .. import __version__

        ws.column_dimensions["A"].width = 24
        ws.column_dimensions["B"].width = 100
        self.text(ws, 1, 1, "LLM-serving capacity chains", font=TITLE_FONT)
        lines = [
            ("What this is", "Each chain of serving math (Little's law, KV sizing, goodput at a latency target, ...) as live formulas, compiled by chainc from the YAML models. "
             "Every number on a chain sheet is a formula of the inputs above it, in the unit shown beside it."),
            ("How to use it", "Pick a GPU and an LLM in a chain's dropdowns (the values come from the Catalog sheet), or type over any yellow input. "
             "Results, questions, tables, checks and charts follow. Sheets are protected without a password so formulas are not overwritten by accident: "
             "Review > Unprotect Sheet to change a formula."),
            ("Questions", "A question (the largest batch that meets a TPOT target) is a formula of the inputs where a closed form exists, rounded as the model says. "
             "Where none exists the cell holds the compiler's number and says how to redo it with Goal Seek."),
            ("Checks", "Each check puts the card's expected value beside the computed one; the status turns green when they agree within the tolerance, red when not."),
            ("Generator", f"chainc {__version__}"),
        ]  # fmt: skip
        row = 3
        for label, text in lines:
            self.text(ws, row, 1, label, font=BOLD)
            self.text(ws, row, 2, text, wrap=True)
            ws.row_dimensions[row].height = 15 * max(1, math.ceil(len(text) / 95))
            row += 1
        row += 1
        self.section(ws, row, "Colour legend")
        row += 1
        for label, text, fill, font in LEGEND:
            c = self.text(ws, row, 1, label, font=font, fill=fill)
            c.border = BOX
            self.text(ws, row, 2, text)
            row += 1
        row += 1
        self.section(ws, row, "Sheets")
        row += 1
        for title, text in [("Catalog", "every GPU and LLM in hardware/: typed values, and derived sizes as formulas")] + [
            (
                self.sheet_titles[m.name],
                m.title + ("" if m.name in self.requested else f" (included because {', '.join(o.name for o in self.models if m.name in dict(o.imports).values())} uses its values)"),
            )
            for m in self.models
        ]:
            c = self.text(ws, row, 1, title)
            c.hyperlink = Hyperlink(ref=c.coordinate, location=f"{quote_sheetname(title)}!A1", display=title)
            c.font = Font(color="0563C1", underline="single")
            self.text(ws, row, 2, text)
            row += 1
        row += 1
        self.section(ws, row, "Sources")
        row += 1
        for m in self.models:
            self.text(ws, row, 1, "model")
            self.text(ws, row, 2, self.relative(m.path))
            row += 1
        self.text(ws, row, 1, "catalog")
        self.text(ws, row, 2, self.relative(str(self.project.catalog.root)) + "/ (gpus/*.yaml, llms/*.yaml)")
        self.page(ws)

    def relative(self, path: str) -> str:
        p = Path(path).resolve()
        try:
            return p.relative_to(self.project.root).as_posix()
        except ValueError:
            return p.as_posix()

    # --- catalog -----------------------------------------------------------------------------

    def write_catalog(self, ws):
        cat = self.project.catalog
        self.text(ws, 1, 1, "Catalog: GPUs and LLMs (hardware/)", font=TITLE_FONT)
        self.text(
            ws,
            2,
            1,
            "Typed values (yellow) come from each entry's file with its source; derived sizes are formulas of the typed values in the same row. An empty cell is a value the entry does not have.",
        )
        ws.column_dimensions["A"].width = 18
        ws.column_dimensions["B"].width = 24
        row = 4
        widest = 2
        for kind in ("gpu", "llm"):
            fields = cat.fields[kind]
            entries = cat.entries(kind)
            self.section(ws, row, {"gpu": "GPUs", "llm": "LLMs"}[kind])
            row += 1
            labels = ["id", "title"] + [f"{n} [{f.unit}]" if f.unit else n for n, f in fields.items()] + ["about"]
            self.header(ws, row, labels)
            ws.row_dimensions[row].height = 45
            for k, f in enumerate(fields.values()):
                ws.cell(row=row, column=3 + k).comment = Comment(_clean(f.description), "chainc")
            first = row + 1
            last = row + len(entries)
            col_of = {n: 3 + k for k, n in enumerate(fields)}
            widest = max(widest, 2 + len(fields) + 1)
            self.catalog_names[(kind, "ids")] = self.define(f"{kind}.ids", ws, f"$A${first}:$A${last}")
            for n, k in col_of.items():
                self.catalog_names[(kind, n)] = self.define(f"{kind}.{n}", ws, f"{self.absolute(first, k)}:{self.absolute(last, k)}")
            for r, e in enumerate(entries, first):
                self.text(ws, r, 1, e.id, font=BOLD)
                self.text(ws, r, 2, e.title)
                sol = solve(e.model)
                refs = {e.model.variables[n].sym: Ref(f"{get_column_letter(col_of[n])}{r}", e.model.variables[n].factor) for n in fields if n in e.model.variables}
                for n, f in fields.items():
                    c = col_of[n]
                    v = e.values.get(n)
                    key = ("catalog", kind, e.id, n)
                    self.manifest.cells[key] = (ws.title, f"{get_column_letter(c)}{r}")
                    if v is None:
                        continue  # the entry has no such value: an empty cell
                    shown = v / f.factor
                    if n in e.typed:
                        cell = ws.cell(row=r, column=c, value=_num(shown))
                        cell.fill, cell.font, cell.protection = INPUT_FILL, INPUT_FONT, UNLOCKED
                        cell.number_format = number_format(shown, exact=True)
                    elif n in sol.formulas:
                        self.formula(ws, r, c, self.print_display(sol.formulas[n], f.factor, refs), shown, number_format(shown))
                    else:
                        self.fixed(ws, r, c, shown, number_format(shown), f"{n} of {e.id} was found numerically when the workbook was built; it does not follow the typed values.")
                if e.about:
                    ws.column_dimensions[get_column_letter(3 + len(fields))].width = 60
                    self.long(ws, r, 3 + len(fields), 3 + len(fields), e.about)
            row = last + 2
        for k in range(3, widest + 1):
            ws.column_dimensions[get_column_letter(k)].width = 14
        ws.freeze_panes = "B4"
        self.page(ws)

    def catalog_ref(self, model_name: str, kind: str, field_name: str) -> Ref:
        fld = self.project.catalog.field(kind, field_name)
        sel = self.names.name(f"{model_name}.{kind}")
        return Ref(f"INDEX({self.catalog_names[(kind, field_name)]},MATCH({sel},{self.catalog_names[(kind, 'ids')]},0))", fld.factor)

    # --- a chain -----------------------------------------------------------------------------

    def write_chain(self, model: Model):
        ws = self.wb.create_sheet(self.sheet_titles[model.name])
        sol = self.solutions[model.name]
        ch = model.name
        widths = {"A": 28, "B": 16, "C": 14}
        for col in range(1, 14):
            letter = get_column_letter(col)
            ws.column_dimensions[letter].width = widths.get(letter, 14)
        self.text(ws, 1, 1, model.title, font=TITLE_FONT)
        ws.merge_cells(start_row=2, start_column=1, end_row=2, end_column=9)
        self.text(ws, 2, 1, model.about, wrap=True)
        ws.row_dimensions[2].height = 15 * max(1, math.ceil(len(model.about) / 120))
        self.text(ws, 3, 1, f"Source: {self.relative(model.path)}   (back to the Cover sheet)", font=GREY_FONT)
        ws.cell(row=3, column=1).hyperlink = Hyperlink(ref="A3", location="Cover!A1")
        ws.freeze_panes = "A4"
        row = 5
        refs: dict[sp.Symbol, Ref] = {}
        var_ref: dict[str, Ref] = {}
        self.chain_refs[ch] = var_ref

        # hardware dropdowns
        kinds = [k for k in ("gpu", "llm") if getattr(model, k)]
        if kinds:
            self.section(ws, row, "Hardware")
            row += 1
            for kind in kinds:
                entry_id = self.entry_for(model, kind)
                self.text(ws, row, 1, kind.upper(), font=BOLD)
                c = self.text(ws, row, 2, entry_id, font=INPUT_FONT, fill=INPUT_FILL)
                c.protection = UNLOCKED
                c.border = BOX
                name = self.define(f"{ch}.{kind}", ws, self.absolute(row, 2))
                self.manifest.cells[(ch, "select", kind)] = (ws.title, c.coordinate)
                dv = DataValidation(type="list", formula1=self.catalog_names[(kind, "ids")], allow_blank=False)
                dv.promptTitle = f"Choose a{'n' if kind == 'llm' else ''} {kind.upper()}"
                dv.prompt = "Entries of the Catalog sheet; the catalog values below follow."
                dv.showInputMessage = True
                dv.showErrorMessage = True
                dv.errorTitle = f"Unknown {kind.upper()}"
                dv.error = "Pick an id from the list (the Catalog sheet)."
                ws.add_data_validation(dv)
                dv.add(c.coordinate)
                self.note(ws, row, 3, f"dropdown: pick an id from the Catalog sheet (named {name})", 8)
                row += 1
            row += 1
        for p in model.params.values():
            if p.source in ("gpu", "llm"):
                refs[p.sym] = self.catalog_ref(ch, p.source, p.field_name)
            else:
                other = dict(model.imports)[p.source]
                refs[p.sym] = self.chain_refs[other][p.field_name]

        # inputs
        inputs = [n for n in model.variables if model.variables[n].default is not None]
        self.section(ws, row, "Inputs")
        self.header(ws, row + 1, ["name", "value", "unit", "description"])
        row += 2
        for n in inputs:
            var = model.variables[n]
            name = self.define(f"{ch}.{n}", ws, self.absolute(row, 2))
            var_ref[n] = refs[var.sym] = Ref(name, var.factor)
            self.manifest.cells[(ch, "var", n)] = (ws.title, f"B{row}")
            shown = var.to_display(sol.values[n])
            self.text(ws, row, 1, n, font=BOLD)
            fmt = number_format(shown, integer=var.domain.integer, digits=var.digits, exact=var.default.is_number)
            if var.default.is_number:
                c = ws.cell(row=row, column=2, value=_num(shown))
                c.number_format = fmt
                desc = var.description
            else:
                c = self.formula(ws, row, 2, self.print_display(var.default, var.factor, refs), shown, fmt)
                sources = sorted({model.params[s.name].source for s in var.default.free_symbols if s.name in model.params})
                desc = (
                    var.description
                    + "  [default: "
                    + ", ".join("the " + s.upper() + " dropdown (Catalog)" if s in ("gpu", "llm") else f"the {dict(model.imports)[s]} sheet" for s in sources)
                    + "; type a number to override]"
                )
            c.fill, c.font, c.protection, c.border = INPUT_FILL, INPUT_FONT, UNLOCKED, BOX
            self.text(ws, row, 3, var.unit)
            self.long(ws, row, 4, 13, desc)
            row += 1
        row += 1

        # where the tables go (results refer to their aggregates)
        computed = self.result_rows(model, sol)
        questions = list(model.questions)
        table_start = row + 2 + len(computed) + 1 + ((2 + len(questions) + 1) if questions else 0)
        functions, table_layout = self.plan_tables(ws, model, sol, table_start)

        # results
        self.section(ws, row, "Results")
        self.header(ws, row + 1, ["name", "value", "unit", "description"])
        row += 2
        results_first = row
        for n in [k for k, _ in computed if k in model.variables]:
            var = model.variables[n]
            name = self.define(f"{ch}.{n}", ws, self.absolute(row + [k for k, _ in computed].index(n), 2))
            var_ref[n] = refs[var.sym] = Ref(name, var.factor)
        for key, how in computed:
            if key in model.variables:
                var = model.variables[key]
                shown = var.to_display(sol.values[key])
                fmt = number_format(shown, integer=var.domain.integer, digits=var.digits)
                self.text(ws, row, 1, key, font=BOLD)
                self.manifest.cells[(ch, "var", key)] = (ws.title, f"B{row}")
                if how[0] == "formula":
                    self.formula(ws, row, 2, self.print_display(how[1], var.factor, refs, functions), shown, fmt)
                else:
                    order = [k for k, _ in computed]
                    resid = ", ".join(f"B{results_first + order.index(k)}" for k in how[2])
                    text = how[1].format(resid=resid, cell=f"B{row}")
                    self.fixed(ws, row, 2, shown, fmt, text)
                self.text(ws, row, 3, var.unit)
                self.long(ws, row, 4, 13, var.description + (f"  NOTE: {text}" if how[0] == "fixed" else ""))
            else:  # a residual for Goal Seek
                eq = how[1]
                self.text(ws, row, 1, key, font=GREY_FONT)
                val = sp.N(eq.residual.xreplace({model.quantity(k).sym: v for k, v in sol.values.items() if model.quantity(k) is not None}), 20)
                self.formula(ws, row, 2, self.print_display(eq.residual, sp.Integer(1), refs, functions), float(val) if val.is_number else 0.0, "0.000E+00")
                self.text(ws, row, 3, "(base units)")
                self.long(ws, row, 4, 13, f"line {eq.loc.line}: {eq.text}, as left side minus right side; 0 when it holds")
            row += 1
        row += 1

        # questions
        if questions:
            self.section(ws, row, "Questions")
            self.header(ws, row + 1, ["question", "answer", "unit", "asks"])
            row += 2
            for qn in questions:
                self.write_question(ws, row, model, qn, refs, var_ref)
                row += 1
            row += 1

        # tables
        assert not model.tables or row == table_start, (row, table_start)
        for tname in model.tables:
            row = self.write_table(ws, model, sol, tname, table_layout[tname], refs, functions)

        # checks
        if model.checks:
            row = self.write_checks(ws, row, model, sol, refs, var_ref)

        # sweeps
        for sweep in model.sweeps.values():
            row = self.write_sweep(ws, row, model, sol, sweep, refs)

        self.page(ws)

    @staticmethod
    def page(ws):
        """Protected (no password), printed landscape and one page wide."""
        ws.protection.sheet = True
        ws.page_setup.orientation = "landscape"
        ws.page_setup.fitToWidth = 1
        ws.page_setup.fitToHeight = 0
        ws.sheet_properties.pageSetUpPr.fitToPage = True

    def result_rows(self, model: Model, sol: Solution) -> list[tuple[str, tuple]]:
        """Computed variables in plan order: (name, ('formula', expr) | ('fixed', note)), plus residual rows for numeric steps."""
        out = []
        for step in sol.plan.steps:
            if step.method != "numeric":
                for n in step.unknowns:
                    out.append((n, ("formula", sol.formulas[n])))
                continue
            defs, tears, residuals = tear(model, step)
            keys = [f"residual {k + 1} of {', '.join(step.unknowns)}" for k in range(len(residuals))]
            for n in tears:
                how = (
                    f"{n} has no closed form: the compiler found it numerically ({sol.numeric.get(n, 'bracketed root search')}). "
                    "To redo it after changing inputs: Data > What-If Analysis > Goal Seek: set cell {resid} to 0 by changing cell {cell}" + f" ({n})."
                )
                out.append((n, ("fixed", how, keys)))
            for n, expr in defs:
                out.append((n, ("formula", expr)))
            for k, eq in zip(keys, residuals):
                out.append((k, ("residual", eq)))
        return out

    def plan_tables(self, ws, model: Model, sol: Solution, start: int):
        """Decide each table's rows and define its names; return the aggregate texts and the layout."""
        ch = model.name
        functions, layout = {}, {}
        row = start
        for tname, t in model.tables.items():
            needed = len(sol.tables[tname])
            n = max(needed, min(TABLE_ROWS, t.max_rows))
            title_row, count_row, head_row = row, row + 1, row + 2
            first, last = head_row + 1, head_row + n
            rows_name = self.define(f"{ch}.{tname}.rows", ws, self.absolute(count_row, 2))
            cols = {}
            for k, c in enumerate(t.columns):
                col = 2 + k
                cols[c.name] = (col, self.define(f"{ch}.{tname}.{c.name}", ws, f"{self.absolute(first, col)}:{self.absolute(last, col)}"))
            layout[tname] = dict(title=title_row, count=count_row, head=head_row, first=first, last=last, n=n, rows_name=rows_name, cols=cols)
            row = last + 2
        for fname, agg in model.aggregates.items():
            lay = layout[agg.table]
            guard = f"IF({lay['rows_name']}>{lay['n']},NA(),{{}})"
            if agg.kind == "count":
                functions[fname] = Ref(guard.format(lay["rows_name"]), sp.Integer(1))
            else:
                rng = lay["cols"][agg.column][1]
                text = {"sum": f"SUM({rng})", "max": f"MAX({rng})", "min": f"MIN({rng})", "last": f"INDEX({rng},{lay['rows_name']})"}[agg.kind]
                column = next(c for c in model.tables[agg.table].columns if c.name == agg.column)
                functions[fname] = Ref(guard.format(text), column.factor)
        return functions, layout

    def write_table(self, ws, model: Model, sol: Solution, tname: str, lay: dict, refs, functions) -> int:
        t = model.tables[tname]
        ch = model.name
        self.text(ws, lay["title"], 1, f"Table {tname}", font=SECTION_FONT)
        self.long(ws, lay["title"], 2, 13, t.about, font=GREY_FONT)
        self.text(ws, lay["count"], 1, f"rows = {t.rows_text}", font=BOLD)
        needed = len(sol.tables[tname])
        self.formula(ws, lay["count"], 2, self.print_display(t.rows, sp.Integer(1), refs, functions), needed, "#,##0")
        self.manifest.cells[(ch, "rows", tname)] = (ws.title, f"B{lay['count']}")
        self.formula(
            ws,
            lay["count"],
            3,
            f'=IF({lay["rows_name"]}>{lay["n"]},"more rows than the {lay["n"]} laid out: totals show #N/A","{lay["n"]} rows laid out; rows past the count are blank")',
            f"{lay['n']} rows laid out; rows past the count are blank",
        )
        ws.cell(row=lay["count"], column=3).font = NOTE_FONT
        self.header(ws, lay["head"], ["step (i)"] + [f"{c.name} [{c.unit}]" if c.unit else c.name for c in t.columns])
        ws.row_dimensions[lay["head"]].height = 32
        for k, c in enumerate(t.columns):
            if c.description:
                ws.cell(row=lay["head"], column=2 + k).comment = Comment(_clean(c.description), "chainc")
        values = sol.tables[tname]
        fmts = {}
        for c in t.columns:
            sample = [abs(float(r[c.name] / c.factor)) for r in values] or [1.0]
            fmts[c.name] = number_format(max(sample) if max(sample) else 1.0)
        for i in range(1, lay["n"] + 1):
            r = lay["first"] + i - 1
            ws.cell(row=r, column=1, value=i).font = GREY_FONT
            rrefs = dict(refs)
            rrefs[t.index] = Ref(f"$A{r}", sp.Integer(1))
            for c in t.columns:
                col = lay["cols"][c.name][0]
                rrefs[c.sym] = Ref(f"{get_column_letter(col)}{r}", c.factor)
                if i > 1:
                    rrefs[c.prev] = Ref(f"{get_column_letter(col)}{r - 1}", c.factor)
            first_row = {c.prev: c.initial for c in t.columns}
            for c in t.columns:
                col = lay["cols"][c.name][0]
                expr = c.expr.xreplace(first_row) if i == 1 else c.expr
                body = self.print_display(expr, c.factor, rrefs, functions)[1:]
                cached = float(values[i - 1][c.name] / c.factor) if i <= len(values) else ""
                self.formula(ws, r, col, f'=IF($A{r}>{lay["rows_name"]},"",{body})', cached, fmts[c.name])
                self.manifest.cells[(ch, "table", tname, c.name, i)] = (ws.title, f"{get_column_letter(col)}{r}")
        return lay["last"] + 2

    # --- questions ---------------------------------------------------------------------------

    def write_question(self, ws, row: int, model: Model, qn: str, refs, var_ref):
        ch = model.name
        q = model.questions[qn]
        var = model.variables[q.find]
        gpu, llm = self.entry_for(model, "gpu"), self.entry_for(model, "llm")
        a = ask(model, qn, gpu=gpu, llm=llm, project=self.project)
        shown = var.to_display(a.value)
        fmt = number_format(shown, integer=var.domain.integer or (q.step is not None and (q.step / var.factor).is_integer), digits=var.digits)
        name = self.define(f"{ch}.{qn}", ws, self.absolute(row, 2))
        var_ref[("question", qn)] = Ref(name, var.factor)
        self.manifest.cells[(ch, "question", qn)] = (ws.title, f"B{row}")
        self.text(ws, row, 1, qn, font=BOLD)
        self.text(ws, row, 3, var.unit)
        asks = (
            q.ask
            + f"  ({q.find} such that {q.condition_text}, {'largest' if q.seek == 'max' else 'smallest'}"
            + (f", in steps of {_num(q.step / var.factor)} {var.unit}".rstrip() if q.step else "")
            + ")"
        )
        expr = None
        bsol = a.boundary_solution
        if bsol is not None and q.find in bsol.formulas:
            e = inline(bsol.formulas[q.find], bsol.formulas, model, bsol.plan.known)
            allowed = {model.variables[n].sym for n in bsol.plan.known if n in model.variables} | {p.sym for p in model.params.values()}
            if not e.has(AppliedUndef) and e.free_symbols <= allowed and all(s in refs for s in e.free_symbols):
                expr = e
        if expr is not None:
            if q.step:
                k = sp.floor(expr / q.step) if q.seek == "max" else sp.ceiling(expr / q.step)
                expr = k * q.step
            self.formula(ws, row, 2, self.print_display(expr, var.factor, refs), shown, fmt)
            self.long(ws, row, 4, 13, asks)
            return
        cond = q.condition

        def where(side) -> str:
            n = next((n for n, v in model.variables.items() if v.sym == side), None)
            if n is not None and (ch, "var", n) in self.manifest.cells:
                return f"cell {self.manifest.cells[(ch, 'var', n)][1]} ({self.names.name(f'{ch}.{n}')})"
            return f"{float(side):g}" if side.is_number else str(side)

        lhs_var = next((v for v in model.variables.values() if v.sym == cond.lhs), None)
        target = where(cond.rhs) if not cond.rhs.is_number else f"{float(lhs_var.to_display(cond.rhs)) if lhs_var else float(cond.rhs):g}"
        how = (
            f"No closed form for the boundary of {q.find}: this is the compiler's answer at build time. To redo it: Data > What-If Analysis > Goal Seek: "
            f"set {where(cond.lhs)} to {target} by changing {where(var.sym)}, then round "
            f"{'down' if q.seek == 'max' else 'up'}" + (f" to a step of {_num(q.step / var.factor)}" if q.step else "") + "."
        )
        self.fixed(ws, row, 2, shown, fmt, how)
        self.long(ws, row, 4, 13, f"{asks}  NOTE: {how}")

    # --- checks ------------------------------------------------------------------------------

    def check_expr(self, model: Model, sol_given: Solution, expr: sp.Expr, given: dict) -> sp.Expr | None:
        """An expression of the sheet's inputs that recomputes `expr` at the check's given values, or None."""
        e = inline(expr, sol_given.formulas, model, sol_given.plan.known)
        e = e.xreplace({model.variables[n].sym: v for n, v in given.items()})
        if e.has(AppliedUndef) or any(model.variables.get(s.name) is not None and s.name not in model.inputs() for s in e.free_symbols):
            return None
        return e

    def write_checks(self, ws, row: int, model: Model, sol: Solution, refs, var_ref) -> int:
        ch = model.name
        gpu, llm = self.entry_for(model, "gpu"), self.entry_for(model, "llm")
        self.section(ws, row, "Checks")
        self.note(ws, row, 3, "computed beside expected; green when they agree within the tolerance", 9)
        self.header(ws, row + 1, ["check", "computed", "expected", "unit", "tolerance", "status", "about"])
        row += 2
        for k, check in enumerate(model.checks):
            given = dict(check.given)
            at = ", ".join(f"{n} = {_num(model.variables[n].to_display(v))} {model.variables[n].unit}".rstrip() for n, v in given.items())
            about = check.about + (f"  (at {at})" if at else "")
            csol = None
            if given:
                csol = solve(model, given, gpu=gpu, llm=llm, project=self.project)
            for e in check.expect:
                var = model.variables[e.name]
                label = f"{check.question} -> {e.name}" if check.question else e.name
                self.text(ws, row, 1, label, font=BOLD)
                want = var.to_display(e.value)
                if check.question:
                    got = ask(model, check.question, given, gpu=gpu, llm=llm, project=self.project).value
                    if not given:
                        ref = var_ref[("question", check.question)]
                        cell = self.formula(ws, row, 2, "=" + ref.text, float(var.to_display(got)))
                    else:
                        how = f"question {check.question} at {at}: the compiler's answer; set those inputs on this sheet to see it live in the Questions section."
                        cell = self.fixed(ws, row, 2, var.to_display(got), number_format(var.to_display(got)), how)
                else:
                    got = (csol or sol).values[e.name]
                    if not given:
                        cell = self.formula(ws, row, 2, "=" + var_ref[e.name].text, float(var.to_display(got)))
                    else:
                        expr = self.check_expr(model, csol, var.sym, given)
                        if expr is not None:
                            cell = self.formula(ws, row, 2, self.print_display(expr, var.factor, refs), float(var.to_display(got)))
                        else:
                            how = f"{e.name} at {at} has no closed form of this sheet's inputs: this is the compiler's value; set those inputs on this sheet to see it live."
                            cell = self.fixed(ws, row, 2, var.to_display(got), number_format(var.to_display(got)), how)
                self.manifest.cells[(ch, "check", k, e.name)] = (ws.title, cell.coordinate)
                cell.number_format = number_format(want if want else var.to_display(got), integer=var.domain.integer)
                exp_cell = ws.cell(row=row, column=3, value=_num(want))
                exp_cell.number_format = cell.number_format
                self.text(ws, row, 4, var.unit)
                tol_parts, conds = [], []
                b, c = f"$B{row}", f"$C{row}"
                if e.abs_tol is not None:
                    at_ = e.abs_tol / var.factor
                    tol_parts.append(f"± {float(at_):g} {var.unit}".rstrip())
                    conds.append(f"ABS({b}-{c})<={ExcelPrinter().formula(sp.nsimplify(at_))}")
                if e.rel_tol is not None:
                    tol_parts.append(f"± {float(e.rel_tol) * 100:g}%")
                    conds.append(f"ABS({b}-{c})<={ExcelPrinter().formula(e.rel_tol)}*ABS({c})")
                if not conds:
                    conds.append(f"{b}={c}")
                self.text(ws, row, 5, " or ".join(tol_parts) or "exact")
                ok = f"OR({','.join(conds)})" if len(conds) > 1 else conds[0]
                self.status(ws, row, ok, bool(self._within(got, e)))
                self.long(ws, row, 7, 13, about)
                row += 1
            if check.that is not None:
                self.text(ws, row, 1, "that", font=BOLD)
                rel = check.that.replace(lambda x: isinstance(x, sp.Eq), lambda x: sp.Le(sp.Abs(x.lhs - x.rhs), sp.Rational(1, 10**9) * sp.Abs(x.rhs)))
                holds = self._holds(model, check, sol if not given else csol)
                expr = rel if not given else self.check_expr(model, csol, rel, given)
                if expr is not None:
                    cell = self.formula(ws, row, 2, self.print_display(expr, sp.Integer(1), refs), holds)
                else:
                    how = f"'{check.that_text}' at {at} has no closed form of this sheet's inputs: this is the compiler's verdict."
                    cell = ws.cell(row=row, column=2, value=holds)
                    cell.fill, cell.font = FIXED_FILL, FIXED_FONT
                    cell.comment = Comment(how, "chainc")
                self.manifest.cells[(ch, "that", k)] = (ws.title, cell.coordinate)
                cell.number_format = BOOLEAN_FORMAT
                ws.cell(row=row, column=3, value=True).number_format = BOOLEAN_FORMAT
                self.text(ws, row, 5, "holds")
                self.status(ws, row, f"$B{row}=TRUE", holds, columns=(6,))
                self.long(ws, row, 7, 13, f"{about}: {check.that_text}")
                row += 1
        return row + 1

    @staticmethod
    def _within(got, e) -> bool:
        from ..checks import within

        return within(got, e.value, e.abs_tol, e.rel_tol)

    @staticmethod
    def _holds(model, check, solution) -> bool:
        from ..solve import check_holds

        return check_holds(model, check, solution.values)  # an equation to 1e-9, as the sheet's formula; located errors

    def status(self, ws, row: int, ok: str, cached: bool, columns=(2, 6)):
        """The OK/FAIL cell, and green/red formatting of it and of the computed cell.

        A 'that' check colours only its status: LibreOffice 7.4 crashes exporting a PDF
        when a boolean cell in a sheet's last rows carries conditional formatting.
        """
        self.formula(ws, row, 6, f'=IF({ok},"OK","FAIL")', "OK" if cached else "FAIL")
        for col in columns:
            coord = f"{get_column_letter(col)}{row}"
            ws.conditional_formatting.add(coord, FormulaRule(formula=[ok], fill=OK_FILL, font=OK_FONT, stopIfTrue=True))
            ws.conditional_formatting.add(coord, FormulaRule(formula=[f"NOT({ok})"], fill=BAD_FILL, font=BAD_FONT, stopIfTrue=True))

    # --- sweeps ------------------------------------------------------------------------------

    def write_sweep(self, ws, row: int, model: Model, sol: Solution, sweep, refs) -> int:
        ch = model.name
        gpu, llm = self.entry_for(model, "gpu"), self.entry_for(model, "llm")
        over = model.variables[sweep.over]
        result = run_sweep(model, sweep, self.project, gpu=gpu, llm=llm)
        show = list(sweep.show)
        cols = show + ([sweep.reference] if sweep.reference else [])
        ws.row_breaks.append(Break(id=row - 1))  # the charts start a printed page
        self.section(ws, row, f"Sweep: {sweep.over} from {_num(sweep.start)} to {_num(sweep.stop)}")
        self.long(ws, row, 4, 13, sweep.about, font=GREY_FONT)
        row += 1
        chart_row = row
        groups: dict[str, list[str]] = {}
        for n in cols:
            groups.setdefault(model.variables[n].unit, []).append(n)
        chart_rows = 22
        row += chart_rows
        marker_row = row
        q = next((q for q in model.questions.values() if q.find == sweep.over), None)
        row += 1 if q else 0
        head = row + 1
        self.header(ws, head, [f"{sweep.over} [{over.unit}]" if over.unit else sweep.over] + [f"{n} [{model.variables[n].unit}]" if model.variables[n].unit else n for n in cols])
        ws.row_dimensions[head].height = 32
        xs = points(sweep)
        first = head + 1
        last = head + len(xs)
        live = sweep.over in model.inputs()
        exprs = {}
        for n in cols:
            var = model.variables[n]
            e = var.sym if n in model.inputs() else inline(sol.formulas.get(n, var.sym), sol.formulas, model, sol.plan.known)
            if not live or e.has(AppliedUndef) or any(model.variables.get(s.name) is not None and s.name not in model.inputs() for s in e.free_symbols):
                e = None
            exprs[n] = e
        xsym = sp.Symbol("sweep:x")
        for k, x in enumerate(xs):
            r = first + k
            c = ws.cell(row=r, column=1, value=_num(x))
            c.number_format = number_format(x, exact=True)
            rrefs = dict(refs)
            rrefs[xsym] = Ref(f"$A{r}", over.factor)
            for j, n in enumerate(cols):
                var = model.variables[n]
                v = result.series[n][k] if n in result.series else result.reference
                fmt = number_format(max(abs(t) for t in result.series[n]) if n in result.series else v)
                if exprs[n] is not None:
                    e = exprs[n].xreplace({over.sym: xsym})
                    self.formula(ws, r, 2 + j, self.print_display(e, var.factor, rrefs), float(v), fmt)
                else:
                    self.fixed(ws, r, 2 + j, v, fmt, f"{n} at {sweep.over} = {_num(x)}: the compiler's value at build time (no closed form of this sheet's inputs).")
                self.manifest.cells[(ch, "sweep", sweep.name, n, k)] = (ws.title, f"{get_column_letter(2 + j)}{r}")
        # a vertical marker at the question's answer (the largest batch meeting the SLO)
        marker = None
        if q is not None:
            qname = self.names.name(f"{ch}.{q.name}")
            a = ask(model, q.name, gpu=gpu, llm=llm, project=self.project)
            ax = float(model.variables[q.find].to_display(a.value))
            self.text(ws, marker_row, 1, f"marker: {q.name}", font=GREY_FONT)
            self.formula(ws, marker_row, 2, f"={qname}", ax)
            self.formula(ws, marker_row, 3, f"={qname}", ax)
            self.formula(ws, marker_row, 4, "=0", 0)
            top_col = get_column_letter(2 + cols.index(groups[next(iter(groups))][0]))
            top = max(result.series[groups[next(iter(groups))][0]])
            self.formula(ws, marker_row, 5, f"=MAX({top_col}{first}:{top_col}{last})", float(top), number_format(top))
            self.long(ws, marker_row, 6, 11, f"(x, y) of the {q.name} line in the first chart", font=GREY_FONT)
            marker = (marker_row, q)
        anchors = ["A", "G"]
        for g, (unit, names) in enumerate(groups.items()):
            chart = ScatterChart()
            chart.title = ", ".join(names)
            chart.style = 13
            chart.scatterStyle = "lineMarker"
            chart.x_axis.title = f"{sweep.over} [{over.unit}]" if over.unit else sweep.over
            chart.y_axis.title = unit or "value"
            chart.x_axis.delete = False
            chart.y_axis.delete = False
            chart.height, chart.width = 10.5, 15
            chart.legend.position = "t"
            xref = Reference(ws, min_col=1, min_row=first, max_row=last)
            for si, n in enumerate(names):
                j = cols.index(n)
                yref = Reference(ws, min_col=2 + j, min_row=head, max_row=last)
                s = Series(yref, xref, title_from_data=True)
                s.smooth = False
                s.marker.symbol = "none"
                s.graphicalProperties.line.solidFill = SERIES_COLOURS[si % len(SERIES_COLOURS)]
                s.graphicalProperties.line.width = 22000
                if n == sweep.reference:
                    s.graphicalProperties.line.dashStyle = "dash"
                    s.graphicalProperties.line.solidFill = "C00000"
                chart.series.append(s)
            if marker is not None and g == 0:
                mr, q = marker
                s = Series(Reference(ws, min_col=4, max_col=5, min_row=mr), Reference(ws, min_col=2, max_col=3, min_row=mr), title=f"{q.name} (SLO edge)")
                s.smooth = False
                s.marker.symbol = "none"
                s.graphicalProperties.line.dashStyle = "dash"
                s.graphicalProperties.line.solidFill = "C00000"
                chart.series.append(s)
            ws.add_chart(chart, f"{anchors[g % 2]}{chart_row + (g // 2) * chart_rows}")
        return last + 2


def build_workbook(project, models: list[Model], options: BuildOptions) -> tuple[bytes, Manifest]:
    """The workbook's bytes and where everything is in it."""
    b = WorkbookBuilder(project, models, options)
    data = b.build()
    return data, b.manifest


def build(project, models: list[Model], fmt: str, options: BuildOptions) -> list[Path]:
    if fmt != "xlsx":
        raise ExcelBuildError(f"the Excel backend builds xlsx, not {fmt}", None, "use --format xlsx")
    data, _ = build_workbook(project, models, options)  # everything in memory first: no partial workbook on error
    path = Path(options.out) / WORKBOOK
    write_atomic(path, data)
    return [path]
