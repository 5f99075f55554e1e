"""The Excel backend: every chain as live formulas in one workbook, `chains.xlsx`.

It prints Reports and their Programs, and never solves: the sheets are
the same programs the solver ran, printed as formulas over named cells in display
units (printer.py over xl.py's formula trees), with the Report's numbers as the
cached values. One module per concern:

- xl.py: formula trees, printed with Excel's precedence and evaluated with its semantics;
- printer.py: program expressions -> formula trees, units folded in, the name tables as data;
- names.py: valid, case-insensitively unique Excel names;
- cells.py: styles, number formats, the book (names, cached values, manifest, problems) and sheet writers;
- emit.py: a program's statements as cells (a column of rows, or one row);
- chain.py, tables.py, question.py, checks.py, sweep.py: a chain's sheet and its sections;
- catalog.py: the cover and catalog sheets;
- this module: the workbook's assembly and its bytes.

The whole workbook is built in memory and written with `write_atomic`; the same
inputs give the same bytes (fixed timestamps and creator, fixed zip dates). What
cannot be printed is collected and raised as one located ExcelPrintError.
"""

from __future__ import annotations

import io
import math
import re
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

from openpyxl import Workbook
from openpyxl.writer.excel import ExcelWriter

from ...order import deepest_first
from .. import BuildOptions, note, write_atomic
from . import xl
from .catalog import write_catalog, write_cover
from .cells import Book, ExcelPrintError, Manifest
from .chain import Chain
from .checks import hide_helpers
from .layout import fit

LAST_COL = 13  # a chain sheet's visible columns, A to M: what prints

if TYPE_CHECKING:  # the backend reads Reports; it never imports the solver that makes them
    from ...results import CatalogReport, Report

WORKBOOK = "chains.xlsx"

__all__ = ["WORKBOOK", "ExcelPrintError", "Manifest", "build", "build_workbook"]


def _with_imports(reports: list[Report]) -> list[Report]:
    """The reports and the reports they import, each once, every import before its user."""
    return deepest_first(reports, lambda r: [other for _, other in sorted(r.imports.items())], key=lambda r: id(r.model))


def _titles(reports: list[Report]) -> dict:
    """Each chain's sheet title (by model name), and each search's ((model, search) -> its name, or 'model.search' cut to 31 characters)."""
    taken, titles = {"COVER", "CATALOG"}, {}

    def unique(text: str) -> str:
        title = re.sub(r"[\[\]:*?/\\']", "_", text)[:31] or "chain"
        base, k = title, 1
        while title.upper() in taken:
            k += 1
            title = f"{base[:28]}_{k}"
        taken.add(title.upper())
        return title

    for r in reports:
        titles[r.model.name] = unique(r.model.name)
    searched = [name for r in reports for name in r.model.searches]
    for r in reports:  # a search's sheet follows its chain's: its own name, or 'model.search' where two chains share it
        for name in r.model.searches:
            titles[(r.model.name, name)] = unique(name if searched.count(name) == 1 else f"{r.model.name[: max(8, 30 - len(name))]}.{name}")
    return titles


def build_workbook(reports: list[Report], catalog: CatalogReport, options: BuildOptions | None = None) -> tuple[bytes, Manifest]:
    """The workbook's bytes and where everything is in it."""
    from ... import __version__

    wb = Workbook()
    book = Book(wb)
    requested = {r.model.name for r in reports}
    reports = _with_imports(reports)
    titles = _titles(reports)
    cover = wb.active
    cover.title = "Cover"
    ranges = write_catalog(book, wb.create_sheet("Catalog"), catalog)
    book.search_titles = {key: t for key, t in titles.items() if isinstance(key, tuple)}
    chains: dict[str, Chain] = {}
    for r in reports:
        try:
            chain = Chain(book, wb.create_sheet(titles[r.model.name]), r, ranges, chains)
            chains[r.model.name] = chain
            chain.write()
        except OverflowError:  # a value no cell can hold (a default of 1e399): the sheet cannot be laid out
            book.problem(r.model.loc, "a value beyond a float's range (a cell holds a float)", f"model '{r.model.name}'")
            book.raise_problems()
        hide_helpers(chain)
        fit(chain.sheet.ws, book.cached, LAST_COL)
    write_cover(book, cover, reports, requested, titles, catalog)
    fit(cover, book.cached, 2, fixed={1: 24, 2: 100})
    book.raise_problems()
    props = wb.properties
    props.creator = props.lastModifiedBy = f"chainc {__version__}"
    props.title = "chainc: LLM-serving capacity chains"
    return _save(wb, book.cached, book.arrays), book.manifest


def _save(wb, cached: dict, arrays: set) -> bytes:
    raw = io.BytesIO()
    with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as archive:
        ExcelWriter(wb, archive).write_data()
    # second pass: fixed dates, and each formula's cached value (openpyxl writes none)
    sheet_paths = {f"xl/worksheets/sheet{i}.xml": ws.title for i, ws in enumerate(wb.worksheets, 1)}
    out = io.BytesIO()
    with zipfile.ZipFile(raw) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename in sheet_paths:
                data = _inject(data.decode("utf-8"), sheet_paths[info.filename], cached, arrays).encode("utf-8")
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)", rb"\g<1>2000-01-01T00:00:00Z\2", data)
            zi = zipfile.ZipInfo(info.filename, date_time=(2000, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o600 << 16
            dst.writestr(zi, data)
    return out.getvalue()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _inject(xml: str, title: str, cached: dict, arrays: set) -> str:
    def repl(m: re.Match) -> str:
        coord, attrs, f = m.group(1), m.group(2) or "", m.group(3)
        if (title, coord) not in cached:
            return m.group(0)
        # a one-cell array formula where a sum's terms are an array: <f t="array" ref="B7">
        head = f'<f t="array" ref="{coord}">' if (title, coord) in arrays else "<f>"
        return _typed(coord, attrs, f"{head}{f}</f>", cached[(title, coord)])

    return re.sub(r'<c r="([A-Z]+[0-9]+)"((?: [a-z]+="[^"]*")*)><f>([^<]*)</f><v ?/></c>', repl, xml)


def _typed(coord: str, attrs: str, f: str, v) -> str:
    """A formula cell with its cached value, typed."""
    if isinstance(v, xl.XError):
        return f'<c r="{coord}"{attrs} t="e">{f}<v>{v.code}</v></c>'
    if isinstance(v, bool):
        return f'<c r="{coord}"{attrs} t="b">{f}<v>{int(v)}</v></c>'
    if isinstance(v, str):
        return f'<c r="{coord}"{attrs} t="str">{f}<v>{_escape(v)}</v></c>'
    x = float(v)
    if not math.isfinite(x):
        return f'<c r="{coord}"{attrs} t="e">{f}<v>#NUM!</v></c>'
    return f'<c r="{coord}"{attrs}>{f}<v>{repr(x)}</v></c>'


def build(reports: list[Report], catalog: CatalogReport, fmt: str, options: BuildOptions) -> list[Path]:
    if fmt != "xlsx":
        raise ExcelPrintError(f"the Excel backend builds xlsx, not {fmt}", None, "use --format xlsx")
    data, manifest = build_workbook(reports, catalog, options)  # everything in memory first: no partial workbook on error
    for text in manifest.notes:
        note(text)
    path = Path(options.out) / WORKBOOK
    write_atomic(path, data)
    return [path]
