"""A derivation sheet's calibration: the sentence under the title, and the section with the fit.

Every figure comes from the Report's Calibration (the calibration file's recorded fit, residual rows
included): nothing here fits or solves. Without a calibration the sheet says its numbers are an ideal machine.
"""

from __future__ import annotations

from ...calibrated import IDEAL, Calibration
from ...format import fmt
from .escape import Tex, ident, latex_escape
from .units import s_cell, s_column, unit_tex

LONG_TABLE = 30  # residual rows: more break across pages


def _pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}\\,\\%"


def _cell(x: float | None, digits: int = 4) -> Tex:
    return s_cell(fmt(x, digits)) if x is not None else Tex("{}")


def calibration_view(c: Calibration | None, figure: str | None) -> dict:
    """The sheet's calibration: `said` under the title always; the rest only with a calibration."""
    if c is None:
        return {"calibrated": False, "said": IDEAL[0].upper() + IDEAL[1:] + "."}
    fitted = [
        {
            "name": ident(f.name),
            "value": _cell(f.value),
            "stderr": _cell(f.stderr, 3) if f.stderr is not None else Tex("{" + ("at its bound" if f.at_bound else "n/a") + "}"),
            "interval": Tex(f"{fmt(f.low)} to {fmt(f.high)}") if f.low is not None and f.high is not None else Tex("n/a"),
            "unit": Tex(unit_tex(f.unit)),
        }
        for f in c.fitted
    ]
    rows = [
        {
            "line": str(r.line),
            "measured": _cell(r.measured),
            "predicted": _cell(r.predicted),
            "error": s_cell(f"{100 * r.error:.1f}"),
            "roofline": _cell(r.roofline),
            "roofline_error": s_cell(f"{100 * r.roofline_error:.1f}"),
            "held_out": _cell(r.held_out),
            "note": r.note,
        }
        for r in c.rows
    ]
    measured = sorted({(r.name, r.unit) for r in c.rows})
    what = Tex(", ".join(ident(n) + (f" ({unit_tex(u)})" if u else "") for n, u in measured))
    worst = f"{'$-$' if c.worst < 0 else '$+$'}{abs(c.worst):.2f}\\,\\%" if c.worst is not None else "n/a"
    figures = [f"MAPE {_pct(c.mape)}, worst {worst}" + (f" (line {c.worst_line})" if c.worst_line is not None else "")]
    figures.append(f"the uncalibrated roofline's MAPE on the same rows {_pct(c.roofline_mape)}")
    if c.holdout_mape is not None:
        held = c.holdout_rows or sum(r.held_out is not None for r in c.rows)
        figures.append(f"held-out MAPE {_pct(c.holdout_mape)} ({held} of {c.count} rows predicted by a fit to the others)")
    return {
        "calibrated": True,
        "said": c.sentence[0].upper() + c.sentence[1:] + ".",
        "name": ident(c.name),
        "file": ident(c.file, breakable=True),
        "data": ident(c.data, breakable=True) if c.data else Tex("n/a"),
        "about": [(k, _breakable(v)) for k, v in (("Source", c.source), ("Engine", c.engine), ("Hardware", c.hardware), ("Metric", c.metric), ("Date", c.date), ("License", c.license)) if v],
        "count": c.count,
        "fitted": fitted,
        "value_col": s_column([x["value"] for x in fitted]),
        "stderr_col": s_column([x["stderr"] for x in fitted]),
        "rows": rows,
        "long": len(rows) > LONG_TABLE,
        "measured": what or "the measured values",
        "cols": {k: s_column([x[k] for x in rows], 4.4) for k in ("measured", "predicted", "error", "roofline", "roofline_error", "held_out")},
        "any_held": any(r.held_out is not None for r in c.rows),
        "figures": Tex("; ".join(figures) + "."),
        "figure": Tex(figure) if figure else None,
    }


def _breakable(text: str) -> Tex:
    """Prose whose URLs may break after a slash instead of running into the margin."""
    return Tex(latex_escape(text).replace("/", r"/\allowbreak{}"))
