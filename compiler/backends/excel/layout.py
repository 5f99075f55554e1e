"""A written sheet fitted for screen and print: column widths from content, row heights from wrapped text.

Widths come from what the cells show (a number as its format prints it, so no
`###`; a label; a header's longest word, so headers break between words only);
text that would make a column too wide wraps instead. Merged and wrapped cells
get the row height their text needs at the final widths. Charts side by side are
placed so that they do not overlap. The print area is the sheet's visible
columns, one page wide.
"""

from __future__ import annotations

import re

from openpyxl.styles import Alignment
from openpyxl.utils import column_index_from_string, get_column_letter

from . import xl

MIN_WIDTH, MAX_WIDTH = 6.0, 48.0
CHARS_PER_UNIT = 0.85  # characters of text per unit of column width (a unit is one '0'; LibreOffice's fallback fonts are wide)
LINE = 15.0  # points per line of 11-point text
DESCRIPTION = 64.0  # the narrowest a description merged to the last column may be
# The printed columns' total width: one landscape page at >= 8 pt. LibreOffice's PDF measures words
# 9 pt high at 100 %, and height x total width stayed about 1,370 over the chains' sheets, so
# at most ~170 units; text columns wrap to keep within it, and a sheet of numbers too wide for it
# prints on more pages across instead of shrinking its type.
PRINT_WIDTH = 160.0
TEXT_MIN = 12.0  # the narrowest a text column is wrapped to
WORD_MAX = 30.0  # a longer word may break inside
PRINT_SCALE = 60  # a sheet still too wide (numbers side by side) prints at this scale on pages across: words 8.5 pt high


def shown_width(value, fmt: str) -> int:
    """How many characters a value takes as its number format shows it."""
    if value is None or value == "":
        return 0
    if isinstance(value, xl.XError):
        return len(value.code)
    if isinstance(value, bool) or '"TRUE"' in fmt:
        return 5
    if isinstance(value, str):
        return len(value)
    x = float(value)
    literal = sum(len(s) for s in re.findall(r'"([^"]*)"', fmt))
    body = re.sub(r'"[^"]*"', "", fmt)
    decimals = len(re.match(r"0*", body.split(".")[1]).group(0)) if "." in body else 0
    if "E" in body:
        text = f"{x:.{decimals}E}"
    elif "%" in body:
        text = f"{x * 100:,.{decimals}f}%"
    elif body in ("General", ""):
        text = xl.as_text(x)[:11]
    else:
        text = f"{x:,.{decimals}f}" if "," in body else f"{x:.{decimals}f}"
    return len(text) + literal


def wrapped_lines(text: str, width: float) -> int:
    """Lines a text takes wrapped at word boundaries into `width` units."""
    chars = max(1, int(width * CHARS_PER_UNIT))
    lines = 0
    for paragraph in str(text).split("\n"):
        n, used = 1, 0
        for word in paragraph.split(" "):
            w = len(word)
            if used and used + 1 + w > chars:
                n, used = n + 1, w
            else:
                used += (1 if used else 0) + w
            while used > chars:  # a word longer than the line
                n, used = n + 1, used - chars
        lines += n
    return lines


def fit(ws, cached: dict, last_col: int, fixed: dict | None = None, last_row: int | None = None, as_built: range = range(0)) -> None:
    """Fit columns 1..last_col to their cells (`fixed`: column -> width to keep), then the rows to their text.

    last_row: the last row that prints (None: all of them). as_built: rows sized to the text they show at
    build time, not to the longest their formulas can show (a search's configurations: hundreds of rows,
    each of which would otherwise print four lines high for a reason most rows never give).
    """
    fixed = fixed or {}
    merged = {}
    for rng in ws.merged_cells.ranges:
        for r in range(rng.min_row, rng.max_row + 1):
            for c in range(rng.min_col, rng.max_col + 1):
                merged[(r, c)] = rng
    need = {c: MIN_WIDTH for c in range(1, last_col + 1)}
    numbers = {c: MIN_WIDTH for c in range(1, last_col + 1)}  # what a column's numbers need: it never wraps below that
    texts: list = []  # unwrapped text cells: they wrap if their column narrows for print
    headers = []
    for row in ws.iter_rows(min_col=1, max_col=last_col):
        for cell in row:
            if cell.value is None or (cell.row, cell.column) in merged:
                continue
            if ws.row_dimensions[cell.row].hidden and cell.data_type != "f":  # folded workings: their numbers count, not their labels
                continue
            font = cell.font
            if font is not None and font.sz is not None and font.sz > 11:  # titles and section heads run over empty cells
                continue
            value = cached.get((ws.title, cell.coordinate), cell.value) if cell.data_type == "f" else cell.value
            if cell.alignment is not None and cell.alignment.wrap_text:
                words = max((len(w) for w in str(cell.value).split()), default=0)
                need[cell.column] = max(need[cell.column], words + 2)
                headers.append(cell)
                continue
            width = shown_width(value, cell.number_format or "General") + 2
            if isinstance(value, str):
                texts.append(cell)
            else:
                numbers[cell.column] = max(numbers[cell.column], width)
            if isinstance(value, str) and width > MAX_WIDTH:
                cell.alignment = Alignment(wrap_text=True, vertical="top")
                headers.append(cell)
                width = MAX_WIDTH
            need[cell.column] = max(need[cell.column], width)
    for c, w in need.items():
        letter = get_column_letter(c)
        ws.column_dimensions[letter].width = fixed.get(c, round(min(w, MAX_WIDTH), 1))
    widths = {c: ws.column_dimensions[get_column_letter(c)].width or 13 for c in range(1, last_col + 30)}
    heights: dict[int, float] = {}
    for cell in headers:
        if (cell.row, cell.column) not in merged:
            heights[cell.row] = max(heights.get(cell.row, LINE), LINE * wrapped_lines(cell.value, widths[cell.column]))
    if last_col not in fixed:  # descriptions (merged to the last column) get room to read: widen the last column
        spans = [sum(widths[c] for c in range(r.min_col, r.max_col)) for r in ws.merged_cells.ranges if r.max_col == last_col and r.min_col > 1]
        if spans:
            widths[last_col] = max(widths[last_col], DESCRIPTION - min(spans))
            ws.column_dimensions[get_column_letter(last_col)].width = widths[last_col]
    _narrow_for_print(ws, widths, numbers, fixed, last_col, texts, headers, heights, cached)
    for rng in ws.merged_cells.ranges:
        cell = ws.cell(row=rng.min_row, column=rng.min_col)
        text = cached.get((ws.title, cell.coordinate), cell.value) if cell.data_type == "f" else cell.value
        if text is None or rng.min_row != rng.max_row or isinstance(text, xl.XError):
            continue
        if cell.data_type == "f" and isinstance(cell.value, str) and rng.min_row not in as_built:  # room for the longest text it can show (a domain's reason)
            longest = max(re.findall(r'"((?:[^"]|"")*)"', cell.value), key=len, default="")
            if len(longest) + 16 > len(str(text)):
                text = longest + " " * 16
        width = sum(widths.get(c, 13) for c in range(rng.min_col, rng.max_col + 1))
        heights[rng.min_row] = max(heights.get(rng.min_row, LINE), LINE * wrapped_lines(text, width))
    for r, h in heights.items():
        ws.row_dimensions[r].height = h if h > LINE else None
        if h > LINE:  # a tall row reads from the top: its labels beside the first line of its text
            for cell in ws[r]:
                if cell.value is not None and (cell.alignment is None or cell.alignment.vertical in (None, "bottom")):
                    a = cell.alignment
                    cell.alignment = Alignment(horizontal=a.horizontal if a else None, wrap_text=a.wrap_text if a else None, vertical="top")
    _place_charts(ws, widths)
    ws.print_area = f"A1:{get_column_letter(last_col)}{max(last_row or ws.max_row, 1)}"


def _narrow_for_print(ws, widths, numbers, fixed, last_col, texts, headers, heights, cached) -> None:
    """Columns within PRINT_WIDTH: the widest text columns narrow to one common cap (never below their numbers), their text wraps.

    What is still too wide (numbers side by side) prints on more pages across, at full size.
    """
    cols = range(1, last_col + 1)
    words = dict.fromkeys(cols, 0.0)  # a text column breaks between words, not inside one (up to WORD_MAX)
    for cell in texts:
        value = cached.get((ws.title, cell.coordinate), cell.value) if cell.data_type == "f" else cell.value
        words[cell.column] = max(words[cell.column], min(WORD_MAX, max((len(w) for w in str(value).split()), default=0) + 2))
    floor = {c: widths[c] if c in fixed else max(numbers[c], TEXT_MIN, words[c]) for c in cols}
    if sum(widths[c] for c in cols) > PRINT_WIDTH:
        lo, hi = 0.0, max(widths[c] for c in cols)
        for _ in range(40):  # the largest cap that fits (bisection on a monotone total)
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if sum(min(widths[c], max(mid, floor[c])) for c in cols) <= PRINT_WIDTH else (lo, mid)
        for c in cols:
            w = round(min(widths[c], max(lo, floor[c])), 1)
            if w < widths[c]:
                widths[c] = w
                ws.column_dimensions[get_column_letter(c)].width = w
        for cell in texts:
            value = cached.get((ws.title, cell.coordinate), cell.value) if cell.data_type == "f" else cell.value
            if len(str(value)) + 2 > widths[cell.column]:
                a = cell.alignment
                cell.alignment = Alignment(horizontal=a.horizontal if a else None, wrap_text=True, vertical="top")
                heights[cell.row] = max(heights.get(cell.row, LINE), LINE * wrapped_lines(value, widths[cell.column]))
    if sum(widths[c] for c in cols) > PRINT_WIDTH * 1.05:  # fitting it to one page across would shrink the type below 8 pt
        ws.sheet_properties.pageSetUpPr.fitToPage = False
        ws.page_setup.scale = PRINT_SCALE


def _place_charts(ws, widths: dict) -> None:
    """Charts that start on the same row go side by side, each after the previous one's width."""
    by_row: dict[int, list] = {}
    for chart in ws._charts:
        anchor = chart.anchor if isinstance(chart.anchor, str) else None
        if anchor:
            m = re.match(r"([A-Z]+)(\d+)", anchor)
            by_row.setdefault(int(m.group(2)), []).append((column_index_from_string(m.group(1)), chart))
    for row, charts in by_row.items():
        col = 1
        for _, chart in sorted(charts, key=lambda x: x[0]):
            chart.anchor = f"{get_column_letter(col)}{row}"
            span, units = 0.0, chart.width / 0.19  # a unit of column width is about 0.19 cm
            while span < units + 1:
                span += widths.get(col, 13)
                col += 1
