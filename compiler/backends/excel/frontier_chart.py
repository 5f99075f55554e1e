"""A frontier as a chart, live: every feasible configuration's two goals (grey markers) and the frontier (red, best x first).

The points are helper cells beside the rows they come from: a configuration that fails its conditions,
or a listed place past the frontier's end, is #N/A, which a chart leaves out (a blank or a text would
be drawn at 0). The chart reads hidden cells (visible_cells_only off), as the sweeps' charts do.
"""

from __future__ import annotations

from openpyxl.chart import Reference, ScatterChart, Series
from openpyxl.chart.series import SeriesLabel
from openpyxl.chart.shapes import GraphicalProperties
from openpyxl.drawing.line import LineProperties
from openpyxl.utils import get_column_letter

from . import xl
from .sweep import _style

CHART_ROWS = 22  # rows the chart takes on the sheet (10.5 cm)


def _label(ss, name: str) -> str:
    unit = ss.model.variables[name].unit
    return f"{name} [{unit}]" if unit else name


def write_frontier_chart(ss, row: int, F: list, goals: list, listing: tuple) -> None:
    """The chart at `row`: F, goals: each configuration's feasible flag and goal cells; listing: (first row, rows, x and y columns)."""
    sh, s = ss.sheet, ss.search
    col = ss.tail_col + 1
    for i, (f, (gx, gy)) in enumerate(zip(F, goals)):
        r = ss.first + i
        for k, g in enumerate((gx, gy)):
            ss.put(r, col + k, xl.fn("IF", xl.op("=", f, xl.number(1)), g, xl.fn("NA")))
    ss.cols.update({f"chart: {s.goals[0].name}": col, f"chart: {s.goals[1].name}": col + 1})
    ss.tail_col = col + 1
    first, count, cx, cy = listing
    for k in range(count):
        r = first + k
        for j, c in enumerate((cx, cy)):
            cell = xl.Cell(f"${get_column_letter(c)}${r}", ss.book.cached.get((sh.ws.title, f"{get_column_letter(c)}{r}")))
            ss.put(r, ss.helper + 1 + j, xl.fn("IF", xl.op("=", cell, xl.Str("")), xl.fn("NA"), cell))
    chart = ScatterChart()
    chart.title = f"{s.name}: the frontier of {s.goals[0].seek} {s.goals[0].name} and {s.goals[1].seek} {s.goals[1].name}"
    chart.style = 13
    chart.scatterStyle = "lineMarker"
    chart.x_axis.title, chart.y_axis.title = _label(ss, s.goals[0].name), _label(ss, s.goals[1].name)
    chart.x_axis.delete = chart.y_axis.delete = False
    chart.height, chart.width = 10.5, 18
    chart.legend.position = "t"
    chart.visible_cells_only = False
    last = ss.first + len(F) - 1
    every = Series(Reference(sh.ws, min_col=col + 1, min_row=ss.first, max_row=last), Reference(sh.ws, min_col=col, min_row=ss.first, max_row=last))
    every.tx = SeriesLabel(v="configurations that meet the conditions")
    every.smooth = False
    every.graphicalProperties.line = LineProperties(noFill=True)  # markers only: the rows' order means nothing here
    every.marker.symbol = "circle"
    every.marker.size = 5
    every.marker.graphicalProperties = GraphicalProperties(solidFill="A6A6A6", ln=LineProperties(solidFill="7F7F7F"))
    line = Series(Reference(sh.ws, min_col=ss.helper + 2, min_row=first, max_row=first + count - 1), Reference(sh.ws, min_col=ss.helper + 1, min_row=first, max_row=first + count - 1))
    line.tx = SeriesLabel(v="the frontier")
    _style(line, "C00000", "solid", 22225)
    line.marker.symbol = "diamond"
    line.marker.size = 7
    chart.series.append(every)
    chart.series.append(line)
    sh.ws.add_chart(chart, f"A{row}")
