"""Measured rows from a CSV file: a header of model variables (units in brackets) and catalog choices.

    # source: https://... (a `# key: value` line before the header is the data set's metadata)
    batch,context[token],gpu,throughput[token/s],source
    112,1152,h100-sxm,6818,https://...

The file is untrusted: it is read with the csv module (never evaluated), its size, rows, columns and
cells are bounded, and every mistake is reported at its file:line:col with a hint.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ArgumentError, ChaincError, Loc, display_path

MAX_BYTES = 1 << 20  # 1 MiB: a measured data set is a table of runs, not a trace
MAX_ROWS = 10_000
MAX_COLUMNS = 64
MAX_CELL = 1000
CHOICES = ("gpu", "llm")  # catalog choices a row may make
TEXT = ("source", "note")  # columns for the reader: each row's citation and remarks
_HEADER = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:\[([^\[\]]*)\])?\s*$")
_META = re.compile(r"^#\s*([a-z_]+)\s*:\s*(.*\S)\s*$")


class DataError(ArgumentError):
    """A mistake in a measured data file."""


@dataclass(frozen=True)
class Column:
    name: str
    unit: str  # as written in the header; '' for none
    index: int
    col: int  # 1-based character column of the header cell, for errors


@dataclass(frozen=True)
class Row:
    line: int
    cells: dict  # column name -> text as written
    cols: dict  # column name -> 1-based character column, for errors

    def loc(self, path: str, text: str, name: str | None = None) -> Loc:
        return Loc(path, self.line, self.cols.get(name, 1) if name else 1, text)


@dataclass(frozen=True)
class Data:
    path: str
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    meta: dict = field(default_factory=dict)  # `# key: value` lines before the header
    lines: tuple[str, ...] = ()

    def loc(self, line: int, col: int = 1) -> Loc:
        return Loc(self.path, line, col, self.lines[line - 1] if 0 < line <= len(self.lines) else "")

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name == name), None)


def read(path: Path | str) -> Data:
    """Read and check the shape of a data file; what the columns mean is checked against a model later."""
    shown = display_path(path)
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise DataError(f"{shown}: {size:,} bytes, more than a data file may hold ({MAX_BYTES:,})", Loc(shown), "split the runs into several files")
        text = p.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise DataError(f"{shown}: not UTF-8 text ({e.reason} at byte {e.start})", Loc(shown), "save the file as UTF-8 CSV") from None
    except OSError as e:
        raise DataError(f"cannot read {shown}: {e.strerror or e}", Loc(shown), "give the path of a CSV file (--data FILE.csv)") from None
    return parse(text, shown)


def parse(text: str, path: str = "<data>") -> Data:
    lines = tuple(text.splitlines())
    meta: dict[str, str] = {}
    header_line = 0
    for i, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            m = _META.match(stripped)
            if m and not header_line:
                meta.setdefault(m.group(1), m.group(2))
            continue
        header_line = i
        break
    data = Data(path, (), (), meta, lines)
    if not header_line:
        raise DataError(f"{path}: no header row", data.loc(1), "the first line that is not a # comment names the columns, e.g. batch,context[token],tpot[ms/token]")
    columns = _columns(data, header_line)
    rows = []
    for i in range(header_line, len(lines)):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        cells = _cells(line)
        if len(cells) != len(columns):
            raise DataError(f"row has {len(cells)} cells, the header {len(columns)}", data.loc(i + 1), f"columns: {', '.join(c.name for c in columns)}")
        starts = _starts(line, len(cells))
        for cell, start in zip(cells, starts):
            if len(cell) > MAX_CELL:
                raise DataError(f"a cell of {len(cell):,} characters (at most {MAX_CELL:,})", data.loc(i + 1, start), "a cell holds one value")
        rows.append(Row(i + 1, {c.name: cell.strip() for c, cell in zip(columns, cells)}, {c.name: s for c, s in zip(columns, starts)}))
        if len(rows) > MAX_ROWS:
            raise DataError(f"more than {MAX_ROWS:,} rows", data.loc(i + 1), "fit a sample of the runs")
    if not rows:
        raise DataError(f"{path}: a header and no rows", data.loc(header_line), "add one row per measured run")
    return Data(path, columns, tuple(rows), meta, lines)


def _cells(line: str) -> list[str]:
    try:
        return next(csv.reader(io.StringIO(line), strict=True))
    except (csv.Error, StopIteration):
        return [line]


def _starts(line: str, n: int) -> list[int]:
    """1-based columns where each cell starts (commas outside quotes), for located errors."""
    starts, quoted = [1], False
    for i, ch in enumerate(line):
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            starts.append(i + 2)
    return (starts + [starts[-1]] * n)[:n]


def _columns(data: Data, line: int) -> tuple[Column, ...]:
    text = data.lines[line - 1]
    cells = _cells(text)
    if len(cells) > MAX_COLUMNS:
        raise DataError(f"{len(cells)} columns (at most {MAX_COLUMNS})", data.loc(line), "keep the columns the fit needs")
    columns: list[Column] = []
    for i, (cell, start) in enumerate(zip(cells, _starts(text, len(cells)))):
        m = _HEADER.match(cell)
        if not m:
            raise DataError(f"column {cell.strip()!r}: expected NAME or NAME[unit]", data.loc(line, start), "for example tpot[ms/token] or batch")
        name, unit = m.group(1), (m.group(2) or "").strip()
        if any(c.name == name for c in columns):
            raise DataError(f"column {name} appears twice", data.loc(line, start), "name each column once")
        if unit and name in CHOICES + TEXT:
            raise DataError(f"column {name} takes no unit", data.loc(line, start), f"{name} holds {'a catalog id' if name in CHOICES else 'text'}")
        columns.append(Column(name, unit, i, start))
    return tuple(columns)


def number(data: Data, row: Row, name: str) -> float:
    """A cell as a finite number (a plain decimal, thousands separated by commas allowed)."""
    text = row.cells[name].replace(",", "").replace("_", "")
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not math.isfinite(x) or len(text) > 40:
        raise DataError(f"{name} = {row.cells[name]!r}: expected a number", data.loc(row.line, row.cols[name]), "write a plain decimal, e.g. 18.58")
    return x


def located(data: Data, row: Row, e: ChaincError, name: str | None = None) -> DataError:
    """A model's error about one row, moved to the row of the data file."""
    col = row.cols.get(name, 1) if name else 1
    return DataError(f"row {row.line}: {e.message}", data.loc(row.line, col), e.hint or "check the row against the model's domain (chainc show MODEL)")
