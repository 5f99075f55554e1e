"""A sweep: the model's program once per point, a row of formulas each, and a chart of the shown columns.

The swept input is the row's first cell; the shown variables are the visible
columns, the program's other values sit in the hidden helper columns of the same
row. A question that finds the swept input is drawn as a vertical marker at its
(live) answer.
"""

from __future__ import annotations

import math
from fractions import Fraction

from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.chart.data_source import StrData, StrRef, StrVal
from openpyxl.chart.series import SeriesLabel
from openpyxl.chart.text import Text
from openpyxl.chart.title import Title
from openpyxl.drawing.colors import ColorChoice, SchemeColor
from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.pagebreak import Break

from ...numbers import exact
from . import xl, xlcalc
from .cells import GREY_FONT, number_format
from .checks import HELPER_COL
from .emit import Emitter, NotLive, Row, live

# colour, dash, width (EMU): coinciding series stay apart, a thick line under a thinner dashed one
THICK = "translucent"
STYLES = ((THICK, "solid", 57150), ("C55A11", "dash", 25400), ("FF7F0E", "sysDot", 22225), ("9467BD", "lgDash", 22225), ("8C564B", "dashDot", 22225))
CHART_ROWS = 22


class SweepRow(Row):
    """A row whose named values go to given columns; the rest to the helper columns."""

    def __init__(self, sheet, row: int, fixed: dict, col: int):
        super().__init__(sheet, row, col)
        self.fixed = fixed

    def place(self, key, label, helper):
        if key in self.fixed:
            c = self.fixed[key]
            self.cols[key] = c
            return self.row, c, f"${get_column_letter(c)}{self.row}"
        return super().place(key, label, helper)


def write_sweep(chain, result, row: int) -> int:
    sh, m = chain.sheet, chain.model
    sweep = result.sweep
    over = m.variables[sweep.over]
    cols = list(sweep.show) + ([sweep.reference] if sweep.reference else [])
    program = chain.report.solution.program
    is_live = sweep.over in program.inputs and live(program)
    sh.ws.row_breaks.append(Break(id=row - 1))  # the charts start a printed page
    sh.section(row, f"Sweep: {sweep.over} from {xl.as_text(float(sweep.start))} to {xl.as_text(float(sweep.stop))}")
    sh.long(row, 4, 13, sweep.about, font=GREY_FONT)
    row += 1
    chart_row = row
    groups: dict[str, list[str]] = {}
    for n in cols:
        groups.setdefault(m.variables[n].unit, []).append(n)
    row += CHART_ROWS
    q = next((q for q in m.questions.values() if q.find == sweep.over), None)
    marker_row = row  # the charts' helper cells (titles, labels, the answer's line), hidden
    row += 1
    head = row + 1
    sh.header(head, [f"{sweep.over} [{over.unit}]" if over.unit else sweep.over] + [f"{n} [{m.variables[n].unit}]" if m.variables[n].unit else n for n in cols])
    sh.ws.row_dimensions[head].height = 32
    first = head + 1
    last = head + len(result.xs)
    fixed = {n: 2 + j for j, n in enumerate(cols)}
    fmts = {n: number_format(max(abs(y) for y in result.series[n]) if n in result.series else result.reference) for n in cols}
    fx = exact(over.factor)
    helper = HELPER_COL
    for k, x in enumerate(result.xs):
        r = first + k
        sh.number(r, 1, x, number_format(x, exact=True))
        xcell = xl.Cell(f"$A{r}", float(x))
        want = {n: result.series[n][k] for n in sweep.show}
        if sweep.reference:
            want[sweep.reference] = result.reference
        done = False
        if is_live:
            scope = chain.scope.child()
            scope.slots[sweep.over] = (xcell, fx)
            target = SweepRow(sh, r, fixed, helper)
            values = {n: Fraction(v) * exact(m.variables[n].factor) for n, v in want.items() if v is not None}
            try:
                Emitter(sh, program, scope, target, chain.factor, values, formats=fmts).run()
                for n in cols:
                    if n not in target.cols:  # an input (the reference line): the sheet's cell
                        sh.formula(r, fixed[n], scope.resolve(n)[0], want[n], fmts[n])
                done = True
                chain.helper_columns = max(getattr(chain, "helper_columns", HELPER_COL), target.col)
            except NotLive:
                done = False
        if not done:
            for n in cols:
                sh.fixed(r, fixed[n], want[n], fmts[n], f"{n} at {sweep.over} = {xl.as_text(float(x))}: the compiler's value at build time.")
        for n in cols:
            chain.book.manifest.cells[(m.name, "sweep", sweep.name, n, k)] = (sh.ws.title, f"{get_column_letter(fixed[n])}{r}")
    labels = _labels(chain, sweep, groups, q, marker_row, first, last, fixed, result)
    for g, (unit, names) in enumerate(groups.items()):
        chart = ScatterChart()
        chart.title = _title(sh.ws, marker_row, 7 + g, labels[f"title{g}"])  # it names the GPU and LLM the dropdowns pick
        chart.style = 13
        chart.scatterStyle = "lineMarker"
        chart.x_axis.title = f"{sweep.over} [{over.unit}]" if over.unit else sweep.over
        chart.y_axis.title = unit or "value"
        chart.x_axis.delete = chart.y_axis.delete = False
        lo, hi, unit_x = _ticks(float(sweep.start), float(sweep.stop))  # bounded to the data, on round ticks
        chart.x_axis.scaling.min, chart.x_axis.scaling.max, chart.x_axis.majorUnit = lo, hi, unit_x
        if all(y >= 0 for n in names for y in (result.series.get(n) or (result.reference or 0,))):
            chart.y_axis.scaling.min = 0
        chart.height, chart.width = 10.5, 15
        chart.legend.position = "t"
        chart.visible_cells_only = False  # the chart's helper cells and points are folded away
        xref = Reference(sh.ws, min_col=1, min_row=first, max_row=last)
        for si, n in enumerate(names):
            s = Series(Reference(sh.ws, min_col=fixed[n], min_row=first, max_row=last), xref)
            s.tx = SeriesLabel(strRef=StrRef(f"{quote_sheetname(sh.ws.title)}!${get_column_letter(fixed[n])}${head}"))
            _style(s, *STYLES[si % len(STYLES)])
            if n == sweep.reference:  # the target: a labelled red line
                s.tx = SeriesLabel(strRef=StrRef(labels["reference"]))
                _style(s, "C00000", "dash", 19050)
            chart.series.append(s)
        if q is not None and g == 0:  # the question's answer: a vertical line, labelled with its live value
            s = Series(Reference(sh.ws, min_col=4, max_col=5, min_row=marker_row), Reference(sh.ws, min_col=2, max_col=3, min_row=marker_row))
            s.tx = SeriesLabel(strRef=StrRef(labels["marker"]))
            _style(s, "C00000", "sysDot", 19050)
            chart.series.append(s)
        sh.ws.add_chart(chart, f"A{chart_row + (g // 2) * CHART_ROWS}" if g % 2 == 0 else f"H{chart_row + (g // 2) * CHART_ROWS}")
    # the chart's points are its data, not a page of their own: folded under a note that says where they are
    sh.ws.row_dimensions.group(head, last, outline_level=1, hidden=True)
    note = sh.text(head - 1, 1, f"The chart's {len(result.xs)} points are rows {head + 1}-{last}, folded: expand the group (+) to read them.", font=GREY_FONT)
    note.alignment = Alignment(vertical="top")
    return last + 2


def _style(s, colour: str, dash: str, width: int) -> None:
    """A line; the thick first one is translucent, so a series it coincides with shows through in any drawing order."""
    s.smooth = False
    s.marker.symbol = "none"
    line = s.graphicalProperties.line
    line.solidFill = ColorChoice(schemeClr=SchemeColor(val="accent1", alpha=45000)) if colour == THICK else colour
    line.width = width
    line.dashStyle = dash


def _title(ws, row: int, col: int, text: str) -> Title:
    """A title read from a cell (live in Excel), with the build's text cached (what LibreOffice shows)."""
    cache = StrData(ptCount=1, pt=[StrVal(idx=0, v=text)])
    return Title(tx=Text(strRef=StrRef(f"{quote_sheetname(ws.title)}!${get_column_letter(col)}${row}", strCache=cache)), overlay=False)


def _labels(chain, sweep, groups, q, row: int, first: int, last: int, fixed: dict, result) -> dict:
    """The hidden helper row: each chart's title (naming the live GPU and LLM), the answer's line, the target's label."""
    sh, m = chain.sheet, chain.model
    ref = f"{quote_sheetname(sh.ws.title)}!"
    sh.text(row, 1, "chart helpers", font=GREY_FONT)
    out: dict = {}
    hardware = [chain.scope.slots[f"#{k}"][0] for k in ("gpu", "llm") if f"#{k}" in chain.scope.slots]
    for g, names in enumerate(groups.values()):
        node = xl.Str(", ".join(names) + " over " + sweep.over)
        if hardware:
            node = xl.op("&", node, xl.Str(" on "))
            for k, cell in enumerate(hardware):
                node = xl.op("&", xl.op("&", node, xl.Str(" with ")) if k else node, cell)
        sh.formula(row, 7 + g, node)
        out[f"title{g}"] = xlcalc.value(node)
    if sweep.reference:
        var = m.variables[sweep.reference]
        cell = chain.scope.resolve(sweep.reference)[0]
        sh.formula(row, 10, xl.op("&", xl.op("&", xl.Str(f"{sweep.reference} (the target) = "), cell), xl.Str(f" {var.unit}".rstrip())))
        out["reference"] = f"{ref}$J${row}"
    if q is not None:
        answer = chain.scope.resolve(f"?{q.name}")[0]
        first_col = 2 + list(fixed).index(next(iter(groups.values()))[0])
        ys = tuple(result.series[next(iter(groups.values()))[0]])
        top = xl.fn("MAX", xl.Range(f"{get_column_letter(first_col)}{first}:{get_column_letter(first_col)}{last}", ys))
        for col, node in ((2, answer), (3, answer), (4, xl.number(0)), (5, top)):
            sh.formula(row, col, node)
        sh.formula(row, 11, xl.fn("IFERROR", xl.op("&", xl.Str(f"{q.name} = "), answer), xl.Str(f"{q.name}: no answer")))
        out["marker"] = f"{ref}$K${row}"
    sh.ws.row_dimensions[row].hidden = True
    return out


def _ticks(start: float, stop: float) -> tuple[float, float, float]:
    """Axis bounds on round ticks (1, 2, 2.5, 5 times a power of ten, or a power of two) that hold [start, stop] with the least room to spare."""
    span = stop - start or 1.0
    units = {m * 10.0**e for m in (1, 2, 2.5, 5) for e in range(-6, 13)} | {2.0**k for k in range(0, 40)}
    best = None
    for unit in sorted(units):
        lo, hi = math.floor(start / unit) * unit, math.ceil(stop / unit) * unit
        if 5 <= round((hi - lo) / unit) <= 10 and (best is None or (hi - lo) - span < best[0]):
            best = ((hi - lo) - span, lo, hi, unit)
    return (start, stop, span / 5) if best is None else best[1:]
