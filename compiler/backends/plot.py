"""`chainc plot` and the sheets' figures: a model's sweep, and what moves a question's answer most (a frontier: frontier.py).

A sweep's series are grouped by unit: the reference's unit (TPOT and its target,
for goodput) gets the lower panel with the reference as a labelled horizontal
line; the other series (throughput, goodput) share the upper panel. Series of a
panel are told apart by line style as well as colour, each drawn over the one
before: goodput, which lies exactly on throughput up to the cliff, is dashed on
top of it. The axes run over the data, the title names the hardware.

Output is deterministic: no dates or software versions in the file, fixed SVG
ids. PDFs carry Type 3 fonts (the glyphs the chart uses, drawn as paths: text
stays searchable, and a chart is three times faster to write than with embedded
TrueType subsets). Model text (about lines, names, units) is drawn
literally: mathtext is off, so a '$' in a sweep's about line prints as a dollar sign.
"""

from __future__ import annotations

import io
from pathlib import Path

from ..errors import ArgumentError
from ..format import fmt
from ..ir import Model
from ..results import SweepResult
from . import write_atomic

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
METADATA = {
    "png": {"Software": None},
    "svg": {"Date": None, "Creator": None},
    "pdf": {"CreationDate": None, "ModDate": None, "Producer": None, "Creator": None},
}
COLORS = ("#1f5fa8", "#c8541b", "#2e8b57", "#7a3fa0", "#8c6d1f")
STYLES = ("-", (0, (5, 2.5)), (0, (1, 1.6)), (0, (6, 2, 1, 2)))  # solid, dashed, dotted, dash-dot: one per series of a panel
WIDTHS = (2.6, 1.5, 1.5, 1.5)  # the first series is wide, so a later one drawn on it leaves it visible at both edges
REFERENCE = "#3a3a3a"
# text.parse_math off: model text ($ in an about line, a unit) is text, never mathtext to parse
RC = {"svg.hashsalt": "chainc", "svg.fonttype": "path", "pdf.fonttype": 3, "font.size": 9, "axes.titlesize": 10, "path.simplify": False, "text.parse_math": False}


def _label(model: Model, name: str) -> str:
    v = model.variables[name]
    text = name.replace("_", " ")
    return f"{text} ({v.unit})" if v.unit else text


def _ticks(x, _pos=None) -> str:
    """Tick labels as the sheets write numbers: 10,000 rather than 10000."""
    return f"{x:,.0f}" if abs(x) >= 1000 and float(x).is_integer() else f"{x:,g}"


def _titles(fig, ax, title: str, hardware: str) -> None:
    if title:
        ax.set_title(title, loc="left", fontsize=10, pad=14 if hardware else 6)
    if hardware:
        ax.annotate(hardware, xy=(0, 1), xycoords="axes fraction", xytext=(0, 3), textcoords="offset points", fontsize=8, color=REFERENCE, va="bottom", ha="left")


def _save(fig, fmt_: str) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt_, metadata=METADATA[fmt_], dpi=150 if fmt_ == "png" else None)
    return buf.getvalue()


def figure(model: Model, result: SweepResult, hardware: str = ""):
    """The sweep's matplotlib Figure (not drawn to a file): one panel per unit group, sharing the x axis."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    sweep = result.sweep
    ref_var = model.variables.get(sweep.reference) if sweep.reference else None
    lower = [n for n in sweep.show if ref_var is not None and model.variables[n].unit == ref_var.unit]
    upper = [n for n in sweep.show if n not in lower]
    panels = [p for p in (upper, lower) if p]
    fig = Figure(figsize=(6.4, 1.5 + 1.7 * len(panels)), dpi=100, layout="constrained")
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    k = 0
    for ax, names in zip(axes, panels):
        units = sorted({model.variables[n].unit for n in names})
        for j, n in enumerate(names):
            style, width = STYLES[j % len(STYLES)], WIDTHS[j % len(WIDTHS)] if len(names) > 1 else 1.8
            ax.plot(result.xs, result.series[n], label=n.replace("_", " "), color=COLORS[k % len(COLORS)], linestyle=style, linewidth=width, zorder=2 + j)
            k += 1
        if names is lower and ref_var is not None and result.reference is not None:
            text = f"{sweep.reference.replace('_', ' ')} = {fmt(result.reference)} {ref_var.unit}".rstrip()
            ax.axhline(result.reference, color=REFERENCE, linestyle=(0, (1.5, 1.5)), linewidth=1.6, zorder=1)  # labelled on the line itself
            ax.annotate(text, xy=(1, result.reference), xycoords=("axes fraction", "data"), xytext=(-4, 3), textcoords="offset points", ha="right", va="bottom", fontsize=8, color=REFERENCE)
        ax.set_ylabel(", ".join(u or "1" for u in units))
        ax.grid(True, color="#dddddd", linewidth=0.6)
        ax.legend(loc="upper left", fontsize=8, frameon=False)
        ax.yaxis.set_major_formatter(FuncFormatter(_ticks))
        ax.set_ylim(bottom=min(0.0, *(min(result.series[n]) for n in names)))
    axes[-1].set_xlabel(_label(model, sweep.over))
    axes[-1].set_xlim(result.xs[0], result.xs[-1])  # the data's range: no margin past the last point
    axes[-1].xaxis.set_major_formatter(FuncFormatter(_ticks))
    _titles(fig, axes[0], sweep.about, hardware)
    return fig


def figure_bytes(model: Model, result: SweepResult, fmt: str = "pdf", hardware: str = "") -> bytes:
    """The sweep's figure as PDF, PNG or SVG bytes; the same inputs give the same bytes."""
    import matplotlib

    with matplotlib.rc_context(RC):
        return _save(figure(model, result, hardware), fmt)


def movers_figure(model: Model, movers, hardware: str = ""):
    """A tornado chart of a question's sensitivities (derivation.Movers): one bar per input, largest at the top."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    rows = [r for r in movers.rows if r.elasticity is not None]
    names = [r.input.replace("_", " ") for r in rows]
    values = [r.elasticity for r in rows]
    fig = Figure(figsize=(6.4, 1.3 + 0.34 * max(len(rows), 1)), dpi=100, layout="constrained")
    ax = fig.subplots()
    ys = list(range(len(rows)))[::-1]  # the largest first, at the top
    ax.barh(ys, values, height=0.6, color=[COLORS[0] if v >= 0 else COLORS[1] for v in values], zorder=2)
    reach = max((abs(v) for v in values), default=1.0) or 1.0
    for y, v in zip(ys, values):
        ax.annotate(f"{v:+.2f}", xy=(v, y), xytext=(4 if v >= 0 else -4, 0), textcoords="offset points", ha="left" if v >= 0 else "right", va="center", fontsize=8)
    ax.axvline(0, color="#333333", linewidth=0.8, zorder=3)
    ax.set_yticks(ys, names)
    ax.set_xlim(-1.3 * reach, 1.3 * reach)  # room for the labels either side; 0 in the middle
    ax.set_ylim(-0.6, len(rows) - 0.4)
    ax.grid(True, axis="x", color="#dddddd", linewidth=0.6, zorder=0)
    name = movers.variable.name.replace("_", " ")
    ax.set_xlabel(f"elasticity: % change of the {name} boundary per 1% more of the input")
    _titles(fig, ax, f"What moves {name} most ({movers.question.name}, boundary {movers.boundary})", hardware)
    return fig


def movers_bytes(model: Model, movers, fmt: str = "pdf", hardware: str = "") -> bytes:
    import matplotlib

    with matplotlib.rc_context(RC):
        return _save(movers_figure(model, movers, hardware), fmt)


def calibration_figure(c, hardware: str = ""):
    """A calibration's rows, predicted against measured (calibrated.Calibration): the calibrated model, the roofline and
    the held-out predictions, around the line where a prediction equals its measurement."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    rows = c.rows
    fig = Figure(figsize=(5.2, 4.4), dpi=100, layout="constrained")
    ax = fig.subplots()
    measured = [r.measured for r in rows]
    series = [
        ("roofline (uncalibrated)", [r.roofline for r in rows], measured, {"marker": "x", "color": COLORS[1], "s": 36}),
        (f"calibrated ({c.name})", [r.predicted for r in rows], measured, {"marker": "o", "color": COLORS[0], "s": 30}),
    ]
    held = [(r.measured, r.held_out) for r in rows if r.held_out is not None]
    if held:
        series.append(("held out: fitted without the row", [h for _, h in held], [m for m, _ in held], {"marker": "s", "facecolors": "none", "edgecolors": COLORS[2], "s": 64}))
    values = [v for _, ys, xs, _ in series for v in (*ys, *xs)]
    lo, hi = min(values), max(values)
    logs = hi / lo > 8  # runs an order of magnitude apart: equal steps of ratio, or the short runs huddle in a corner
    pad = (hi / lo) ** 0.06 if logs else 0.06 * (hi - lo or hi)
    lo, hi = (lo / pad, hi * pad) if logs else (max(0.0, lo - pad), hi + pad)
    ax.plot([lo, hi], [lo, hi], color=REFERENCE, linestyle=(0, (4, 3)), linewidth=1.0, zorder=1, label="predicted = measured")
    for label, ys, xs, style in series:
        ax.scatter(xs, ys, label=label, zorder=3, linewidths=1.4, **style)
    if logs:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    names = sorted({(r.name, r.unit) for r in rows})
    what = ", ".join(n.replace("_", " ") + (f" ({u})" if u else "") for n, u in names)
    ax.set_xlabel(f"measured {what}")
    ax.set_ylabel(f"predicted {what}")
    ax.xaxis.set_major_formatter(FuncFormatter(_ticks))
    ax.yaxis.set_major_formatter(FuncFormatter(_ticks))
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    _titles(fig, ax, f"Calibration {c.name}: {len(rows)} measured values", hardware)
    return fig


def calibration_bytes(c, fmt: str = "pdf", hardware: str = "") -> bytes:
    import matplotlib

    with matplotlib.rc_context(RC):
        return _save(calibration_figure(c, hardware), fmt)


def plot(model: Model, result: SweepResult, output: Path, hardware: str = "") -> Path:
    """Draw a sweep's result to a .png, .svg or .pdf file; returns the path."""
    return write_figure(output, lambda fmt: figure_bytes(model, result, fmt, hardware))


def write_figure(output: Path, draw) -> Path:
    """Write draw(format)'s bytes to a .png, .svg or .pdf file (the format its suffix names); returns the path."""
    output = Path(output)
    fmt = FORMATS.get(output.suffix.lower())
    if fmt is None:
        raise ArgumentError(f"cannot draw to '{output.name}'", None, "write FILE.png, FILE.svg or FILE.pdf")
    write_atomic(output, draw(fmt))
    return output
