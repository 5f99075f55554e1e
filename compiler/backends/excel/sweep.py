"""A sweep: the model's program once per point, a row of formulas each, and a chart of the shown columns.

The swept input is the row's first cell; the shown variables are the visible
columns, the program's other values sit in the hidden helper columns of the same
row. A question that finds the swept input is drawn as a vertical marker at its
(live) answer.
"""

from __future__ import annotations

from fractions import Fraction

from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.pagebreak import Break

from ...quantities import exact
from . import xl
from .cells import GREY_FONT, number_format
from .checks import HELPER_COL
from .emit import Emitter, NotLive, Row, live

SERIES_COLOURS = ("1F77B4", "2CA02C", "FF7F0E", "9467BD", "8C564B")
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
    marker_row = row
    row += 1 if q else 0
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
    marker = None
    if q is not None:
        answer = chain.scope.resolve(f"?{q.name}")[0]
        first_col = 2 + cols.index(groups[next(iter(groups))][0])
        top = xl.fn("MAX", xl.Range(f"{get_column_letter(first_col)}{first}:{get_column_letter(first_col)}{last}", tuple(result.series[cols[first_col - 2]])))
        sh.text(marker_row, 1, f"marker: {q.name}", font=GREY_FONT)
        for col, node in ((2, answer), (3, answer), (4, xl.number(0)), (5, top)):
            sh.formula(marker_row, col, node, None, number_format(xl.value(node)) if col == 5 else None)
        sh.long(marker_row, 6, 11, f"(x, y) of the {q.name} line in the first chart", font=GREY_FONT)
        marker = marker_row
    anchors = ["A", "G"]
    for g, (unit, names) in enumerate(groups.items()):
        chart = ScatterChart()
        chart.title = ", ".join(names)
        chart.style = 13
        chart.scatterStyle = "lineMarker"
        chart.x_axis.title = f"{sweep.over} [{over.unit}]" if over.unit else sweep.over
        chart.y_axis.title = unit or "value"
        chart.x_axis.delete = chart.y_axis.delete = False
        chart.height, chart.width = 10.5, 15
        chart.legend.position = "t"
        xref = Reference(sh.ws, min_col=1, min_row=first, max_row=last)
        for si, n in enumerate(names):
            yref = Reference(sh.ws, min_col=fixed[n], min_row=head, max_row=last)
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
            s = Series(Reference(sh.ws, min_col=4, max_col=5, min_row=marker), Reference(sh.ws, min_col=2, max_col=3, min_row=marker), title=f"{q.name} (SLO edge)")
            s.smooth = False
            s.marker.symbol = "none"
            s.graphicalProperties.line.dashStyle = "dash"
            s.graphicalProperties.line.solidFill = "C00000"
            chart.series.append(s)
        sh.ws.add_chart(chart, f"{anchors[g % 2]}{chart_row + (g // 2) * CHART_ROWS}")
    return last + 2
