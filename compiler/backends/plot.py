"""`chainc plot`: a model's sweep as a figure, the same one its derivation sheet shows.

The series are grouped by unit: the reference's unit (TPOT and its target, for
goodput) gets the lower panel with the reference as a horizontal line; the other
series (throughput, goodput) share the upper panel. Output is deterministic: no
dates or software versions in the file, fixed SVG ids, TrueType fonts in PDFs.
Model text (about lines, names, units) is drawn literally: mathtext is off, so a
'$' in a sweep's about line prints as a dollar sign.
"""

from __future__ import annotations

import io
from pathlib import Path

from ..errors import ArgumentError
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


def _label(model: Model, name: str) -> str:
    v = model.variables[name]
    text = name.replace("_", " ")
    return f"{text} ({v.unit})" if v.unit else text


def figure_bytes(model: Model, result: SweepResult, fmt: str = "pdf") -> bytes:
    """The sweep's figure as PDF, PNG or SVG bytes; the same inputs give the same bytes."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    sweep = result.sweep
    ref_var = model.variables.get(sweep.reference) if sweep.reference else None
    lower = [n for n in sweep.show if ref_var is not None and model.variables[n].unit == ref_var.unit]
    upper = [n for n in sweep.show if n not in lower]
    panels = [p for p in (upper, lower) if p]
    # text.parse_math off: model text ($ in an about line, a unit) is text, never mathtext to parse
    rc = {"svg.hashsalt": "chainc", "svg.fonttype": "path", "pdf.fonttype": 42, "font.size": 9, "axes.titlesize": 10, "path.simplify": False, "text.parse_math": False}
    with matplotlib.rc_context(rc):
        fig = Figure(figsize=(6.4, 1.4 + 1.7 * len(panels)), dpi=100, layout="constrained")
        axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
        k = 0
        for ax, names in zip(axes, panels):
            units = sorted({model.variables[n].unit for n in names})
            for n in names:
                ax.plot(result.xs, result.series[n], label=n.replace("_", " "), color=COLORS[k % len(COLORS)], linewidth=1.6)
                k += 1
            if names is lower and ref_var is not None and result.reference is not None:
                ax.axhline(result.reference, color="#444444", linestyle="--", linewidth=1.1, label=f"{sweep.reference.replace('_', ' ')} = {result.reference:g} {ref_var.unit}")
            ax.set_ylabel(", ".join(u or "1" for u in units))
            ax.grid(True, color="#dddddd", linewidth=0.6)
            ax.legend(loc="best", fontsize=8, frameon=False)
            ax.set_ylim(bottom=0)
        axes[-1].set_xlabel(_label(model, sweep.over))
        axes[-1].set_xlim(result.xs[0], result.xs[-1])
        if sweep.about:
            axes[0].set_title(sweep.about, loc="left")
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, metadata=METADATA[fmt], dpi=150 if fmt == "png" else None)
    return buf.getvalue()


def plot(model: Model, result: SweepResult, output: Path) -> Path:
    """Draw a sweep's result to a .png, .svg or .pdf file; returns the path."""
    output = Path(output)
    fmt = FORMATS.get(output.suffix.lower())
    if fmt is None:
        raise ArgumentError(f"cannot draw to '{output.name}'", None, "write FILE.png, FILE.svg or FILE.pdf")
    write_atomic(output, figure_bytes(model, result, fmt))
    return output
