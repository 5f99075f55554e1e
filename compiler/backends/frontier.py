"""A Pareto frontier's chart, for `chainc plot` and the derivation sheet alike (one function draws both).

x goal against y goal: every configuration that meets the conditions is a grey dot; the frontier's
points are joined in its order (the best x first), each numbered as in the frontier's table and
labelled with its configuration where the label has room (it overlaps no other label and stays
inside the axes). An axis whose values span more than LOG_SPAN (all above zero) is logarithmic.
Configurations that fail a condition are not drawn: their numbers describe no admissible
deployment. Deterministic as plot.py's figures are (its rc settings and metadata).
"""

from __future__ import annotations

from pathlib import Path

from .. import chosen_words as words
from ..chosen import Chosen
from ..ir import Model
from ..numbers import in_unit
from .plot import COLORS, RC, _save, _ticks, _titles, write_figure

GREY = "#b4b4b4"
LOG_SPAN = 50.0  # max / min beyond which an axis is logarithmic
MANY = 40  # frontier points beyond which only some are numbered, without their configurations (the table has them all)
RASTER = 2000  # grey dots beyond which they are drawn as an image (a PDF of 100,000 vector dots is slow to open)
# label offsets (points) and alignments, tried in turn: beside the point, then above or below it, then further out
PLACES = (
    (6, 4, "left", "bottom"), (-6, 4, "right", "bottom"), (6, -4, "left", "top"), (-6, -4, "right", "top"),
    (0, 7, "center", "bottom"), (0, -7, "center", "top"), (-10, 0, "right", "center"), (10, 0, "left", "center"),
)  # fmt: skip


def points(c: Chosen) -> tuple[list[int], list[float], list[float]]:
    """The rows drawn (every configuration that meets the conditions and has both goals), their x and y in display units."""
    m, (gx, gy) = c.model, c.search.goals
    fx, fy = m.variables[gx.name].factor, m.variables[gy.name].factor
    rows = [i for i, w in enumerate(c.why) if not w and c.goals[0][i] is not None and c.goals[1][i] is not None]
    return rows, [in_unit(c.goals[0][i], fx) for i in rows], [in_unit(c.goals[1][i], fy) for i in rows]


def label(c: Chosen, row: int) -> str:
    """A point's configuration, short: 'h200, tp 8, batch 16'."""
    return ", ".join(str(v) if a.catalog else f"{a.name} {words.number(c, a.name, v)}" for a, v in zip(c.search.over, c.configs[row]))


def _axis_label(model: Model, name: str, seek: str) -> str:
    v = model.variables[name]
    return f"{name.replace('_', ' ')}{f' ({v.unit})' if v.unit else ''}, {words.better(seek)}"


def frontier_figure(model: Model, c: Chosen, hardware: str = ""):
    """The frontier's matplotlib Figure (not drawn to a file)."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    s = c.search
    gx, gy = s.goals
    rows, xs, ys = points(c)
    at = {i: k for k, i in enumerate(rows)}
    front = [i for i in c.order if i in at]
    fig = Figure(figsize=(6.4, 4.4), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.scatter(xs, ys, s=16, color=GREY, zorder=2, label=f"the {words.plural(len(rows), 'configuration')} that meet every condition", linewidths=0, rasterized=len(rows) > RASTER)
    fx, fy = [xs[at[i]] for i in front], [ys[at[i]] for i in front]
    ax.plot(
        fx, fy, color=COLORS[0], linewidth=1.6, marker="o", markersize=5 if len(front) <= MANY else 2, zorder=3, label=f"the frontier ({words.plural(len(front), 'point')}, numbered as in its table)"
    )
    for axis, values in ((ax.xaxis, xs), (ax.yaxis, ys)):
        positive = [v for v in values if v > 0]
        if values and len(positive) == len(values) and max(values) / min(values) > LOG_SPAN:
            (ax.set_xscale if axis is ax.xaxis else ax.set_yscale)("log")
        axis.set_major_formatter(FuncFormatter(_ticks))
    ax.set_xlabel(_axis_label(model, gx.name, gx.seek))
    ax.set_ylabel(_axis_label(model, gy.name, gy.seek))
    ax.grid(True, color="#dddddd", linewidth=0.6, zorder=0)
    ax.margins(0.08)
    ax.legend(loc="best", fontsize=8, frameon=False)
    _titles(fig, ax, s.ask or f"{s.name}: {gx.name} against {gy.name}", hardware)
    _labels(fig, ax, [(k + 1, label(c, i), x, y) for k, (i, x, y) in enumerate(zip(front, fx, fy))], list(zip(xs, ys)))
    return fig


def _labels(fig, ax, marks: list[tuple[int, str, float, float]], dots: list) -> None:
    """Each frontier point's number, with its configuration where that fits: inside the axes, clear of the
    other labels, the points, the frontier's line and the legend."""
    import numpy as np

    fig.draw_without_rendering()  # the layout settles first, then stays: the labels are placed in it
    fig.set_layout_engine("none")
    renderer = fig.canvas.get_renderer()
    inside = ax.get_window_extent(renderer)
    taken = [ax.get_legend().get_window_extent(renderer)] if ax.get_legend() else []
    corners = ax.transData.transform([(x, y) for _, _, x, y in marks]) if marks else np.empty((0, 2))
    along = [p + (q - p) * t / 16 for p, q in zip(corners, corners[1:]) for t in range(1, 16)]  # the line between the points
    avoid = np.concatenate([corners, np.array(along).reshape(-1, 2), ax.transData.transform(dots) if dots else np.empty((0, 2))])
    step = -(-len(marks) // MANY)  # many points: every step-th is numbered (and the last), without its configuration
    for n, text, x, y in marks if step == 1 else [m for k, m in enumerate(marks) if k % step == 0 or k == len(marks) - 1]:
        for full in (f"{n}: {text}", str(n)) if step == 1 else (str(n),):
            if _place(ax, renderer, inside, taken, avoid, full, (x, y)):
                break


def _place(ax, renderer, inside, taken, avoid, text, xy) -> bool:
    """The first of PLACES where the label fits; False (and no label) where none does."""
    for dx, dy, ha, va in PLACES:
        a = ax.annotate(text, xy=xy, xytext=(dx, dy), textcoords="offset points", ha=ha, va=va, fontsize=7, color=COLORS[0], zorder=4)
        a.set_in_layout(False)
        box = a.get_window_extent(renderer).expanded(1.1, 1.3)  # room to spare: text is a little wider at another resolution
        fits = inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0 and box.y1 <= inside.y1
        covers = ((avoid[:, 0] >= box.x0) & (avoid[:, 0] <= box.x1) & (avoid[:, 1] >= box.y0) & (avoid[:, 1] <= box.y1)).any()
        if fits and not covers and not any(box.overlaps(t) for t in taken):
            taken.append(box)
            return True
        a.remove()
    return False


def frontier_bytes(model: Model, c: Chosen, fmt: str = "pdf", hardware: str = "") -> bytes:
    """The frontier's chart as PDF, PNG or SVG bytes; the same inputs give the same bytes."""
    import matplotlib

    with matplotlib.rc_context(RC):
        return _save(frontier_figure(model, c, hardware), fmt)


def plot_frontier(model: Model, c: Chosen, output: Path, hardware: str = "") -> Path:
    """Draw a frontier's chart to a .png, .svg or .pdf file (`chainc plot MODEL FRONTIER`); returns the path."""
    return write_figure(output, lambda fmt: frontier_bytes(model, c, fmt, hardware))
