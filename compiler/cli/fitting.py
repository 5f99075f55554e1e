"""`chainc fit`: fit a model's free inputs to measured runs; print the values, residuals and held-out error."""

from __future__ import annotations

import json
import math

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..errors import ArgumentError
from ..format import fmt
from ..project import Project, display_path
from ..textout import plain


def _names(items: list[str], option: str) -> list[str]:
    names = [n.strip() for item in items for n in item.split(",")]
    if any(not n for n in names):
        raise ArgumentError(f"--{option} has an empty name", None, f"separate names with commas: --{option} bandwidth_efficiency,step_overhead")
    return names


def _bounds(items: list[str]) -> dict:
    out = {}
    for item in items:
        name, _, span = item.partition("=")
        lo, sep, hi = span.partition(":")
        try:
            pair = (float(lo), float(hi))
        except ValueError:
            pair = None
        if not name.strip() or not sep or pair is None or not all(math.isfinite(x) for x in pair):
            raise ArgumentError(f"--bounds {item}: expected NAME=LOW:HIGH", None, "for example --bounds bandwidth_efficiency=0.3:1 (in the variable's display unit)")
        out[name.strip()] = pair
    return out


def cmd_fit(args, project: Project, out: Console) -> int:
    from ..fit.calibration import save
    from ..fit.data import read
    from ..fit.least import fit

    model = project.model(args.model)
    result = fit(model, read(args.data), _names(args.free, "free"), project, _bounds(args.bounds), _names(args.measured, "measured") or None, args.holdout)
    saved = save(project, args.save, result) if args.save else None
    if args.json:
        from ..fit.calibration import as_data

        data = as_data(result)
        for row, r in zip(data["residual_rows"], result.residuals):
            row["error_percent"] = 100 * r.error
        data["saved"] = display_path(saved) if saved else None
        print(json.dumps(data, indent=2))
        return 0
    _print(out, model, result, saved)
    return 0


def _pct(x: float) -> str:
    return f"{100 * x:+.2f} %"


def _print(out: Console, model, r, saved) -> None:
    from ..fit.least import Fit

    out.print(Text.assemble(plain(f"fit {model.name}", "bold"), plain(f" to {r.rows} measured rows of {display_path(r.data)} (relative least squares, {r.evaluations} evaluations)")))
    for key in ("source", "engine", "hardware", "metric"):
        if r.meta.get(key):
            out.print(plain(f"  {key}: {r.meta[key]}"))
    t = RichTable(show_edge=False, box=None, pad_edge=False)
    for col in ("free", "value", "std. error", "95 % interval", "unit"):
        t.add_column(col, justify="right" if col in ("value", "std. error") else "left")
    for f in r.fitted:
        interval = f"{f.low:.4g} to {f.high:.4g}" if f.low is not None else "n/a"
        stderr = f"{f.stderr:.3g}" if f.stderr is not None else ("at its bound" if f.at_bound else "n/a")
        t.add_row(plain(f.name), f"{f.value:.4g}", stderr, interval, plain(f.unit))
    out.print()
    out.print(t)
    rt = RichTable(show_edge=False, box=None, pad_edge=False)
    for col in ("line", "measured", "value", "fitted", "error", "roofline", "error "):
        rt.add_column(col, justify="left" if col == "measured" else "right")
    for fitted, ideal in zip(r.residuals, r.roofline):
        rt.add_row(
            str(fitted.line),
            plain(f"{fitted.name} [{r.units[fitted.name]}]" if r.units.get(fitted.name) else fitted.name),
            fmt(fitted.measured),
            fmt(fitted.predicted),
            _pct(fitted.error),
            fmt(ideal.predicted),
            _pct(ideal.error),
        )
    out.print()
    out.print(rt)
    worst, ideal = Fit.worst(r.residuals), Fit.worst(r.roofline)
    out.print()
    out.print(plain(f"fitted:   MAPE {Fit.mape(r.residuals):.2f} %, worst {_pct(worst.error)} (line {worst.line})"))
    out.print(plain(f"roofline: MAPE {Fit.mape(r.roofline):.2f} %, worst {_pct(ideal.error)} (line {ideal.line}), the free inputs at their defaults"))
    if r.holdout:
        hw = Fit.worst(r.holdout)
        lines = ", ".join(str(x.line) for x in r.holdout)
        out.print(
            plain(
                f"held out: MAPE {Fit.mape(r.holdout):.2f} %, worst {_pct(hw.error)}: {len(r.holdout)} of {r.rows} rows ({'lines' if len(r.holdout) > 1 else 'line'} {lines}) predicted by a fit to the others"
            )
        )
    if saved:
        out.print(plain(f"\nwrote {display_path(saved)}: chainc solve {model.name} --calibration {saved.stem}"))
