"""Calibrations as data: a fit saved as calibrations/NAME.yaml, and applied to a solve as given values.

A calibration names its model, the data it was fitted to (source, engine and version, hardware, date),
how many rows, the fitted values with their 95 % intervals, and the residual figures (MAPE, worst,
held-out, and the uncalibrated roofline's MAPE on the same rows), so a reader can judge how far to trust it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from ..calibrated import IDEAL, Calibration, FittedValue, MeasuredRow
from ..errors import ArgumentError, Loc, display_path
from .result import Fit

__all__ = ["IDEAL", "as_data", "given", "load", "of", "save", "sentence"]

FOLDER = "calibrations"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,99}$")
MAX_BYTES = 1 << 16


def _round(x, digits: int = 6):
    return None if x is None else float(f"{x:.{digits}g}")


def as_data(fit: Fit) -> dict:
    worst = Fit.worst(fit.residuals)
    meta = fit.meta
    held = {(r.line, r.name): r.predicted for r in fit.holdout}
    return {
        "model": fit.model,
        "data": Path(fit.data).as_posix(),
        "source": meta.get("source", ""),
        "engine": meta.get("engine", ""),
        "hardware": meta.get("hardware", ""),
        "date": meta.get("date", ""),
        "license": meta.get("license", ""),
        "metric": meta.get("metric", ""),
        "rows": fit.rows,
        "gpus": fit.hardware.get("gpu", []),
        "llms": fit.hardware.get("llm", []),
        "measured": list(fit.measured),
        "fitted": {
            f.name: {"value": _round(f.value), "unit": f.unit, "stderr": _round(f.stderr), "interval_95": None if f.low is None else [_round(f.low), _round(f.high)], "at_bound": f.at_bound}
            for f in fit.fitted
        },
        "residuals": {
            "mape_percent": _round(Fit.mape(fit.residuals), 4),
            "worst_percent": _round(100 * worst.error, 4),
            "worst_line": worst.line,
            "roofline_mape_percent": _round(Fit.mape(fit.roofline), 4),
            "holdout_fraction": fit.holdout_fraction or None,
            "holdout_rows": len(fit.holdout) or None,
            "holdout_mape_percent": _round(Fit.mape(fit.holdout), 4),
        },
        # each measured value beside the calibrated and the roofline prediction: what a derivation sheet's residual table prints
        "residual_rows": [
            {
                "line": r.line,
                "name": r.name,
                "unit": fit.units.get(r.name, ""),
                "measured": r.measured,
                "predicted": _round(r.predicted),
                "roofline": _round(ideal.predicted),
                "held_out": _round(held.get((r.line, r.name))),
                "note": r.note,
            }
            for r, ideal in zip(fit.residuals, fit.roofline)
        ],
    }


def save(project, name: str, fit: Fit) -> Path:
    import yaml

    _check_name(name)
    folder = Path(project.root) / FOLDER
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.yaml"
    data = as_data(fit)
    rows = data.pop("residual_rows")
    free = ",".join(f.name for f in fit.fitted)
    held = f" --holdout {fit.holdout_fraction:g}" if fit.holdout_fraction else ""
    command = f"chainc fit {fit.model} --data {Path(fit.data).as_posix()} --free {free}{held} --save {name}"
    text = f"# {command}: written by chainc, edit by refitting\n" + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=120)
    # one measured row a line, as the data file has them
    text += "residual_rows:\n" + "".join("- " + yaml.safe_dump(r, sort_keys=False, allow_unicode=True, default_flow_style=True, width=1 << 16) for r in rows)
    tmp = path.with_suffix(".yaml.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)
    return path


def _check_name(name: str) -> None:
    if not _NAME.match(name or ""):
        raise ArgumentError(f"calibration name {name!r}: letters, digits and _ . + - only", None, "for example trtllm-h100-llama-7b")


def find(project, name: str) -> Path:
    _check_name(name)
    for layer in project.layers:
        path = Path(layer.root) / FOLDER / f"{name}.yaml"
        if path.is_file():
            return path
    known = sorted({p.stem for layer in project.layers for p in (Path(layer.root) / FOLDER).glob("*.yaml")})
    raise ArgumentError(f"no calibration '{name}' in {FOLDER}/", None, f"calibrations: {', '.join(known)}" if known else "write one with chainc fit MODEL --data FILE.csv --free ... --save NAME")


def load(project, name: str) -> dict:
    import yaml

    path = find(project, name)
    shown = display_path(path)
    if path.stat().st_size > MAX_BYTES:
        raise ArgumentError(f"{shown}: larger than a calibration is ({MAX_BYTES:,} bytes)", Loc(shown), "refit it with chainc fit ... --save")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise ArgumentError(f"{shown}: not a calibration ({e})", Loc(shown), "refit it with chainc fit ... --save") from None
    fitted = data.get("fitted") if isinstance(data, dict) else None
    if not isinstance(fitted, dict) or not isinstance(data.get("model"), str) or not all(isinstance(v, dict) and _number(v.get("value")) for v in fitted.values()):
        raise ArgumentError(f"{shown}: not a calibration (model and fitted values expected)", Loc(shown), "refit it with chainc fit ... --save")
    _check_figures(data, shown)
    data["name"] = name
    data["path"] = shown
    return data


def _number(x, optional: bool = False) -> bool:
    return (optional and x is None) or (isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x))


def _check_figures(data: dict, shown: str) -> None:
    """The residual figures and rows a backend prints: numbers where numbers are expected, or the file is refused."""
    hint = "refit it with chainc fit ... --save"
    for key in ("data", "source", "engine", "hardware", "date", "license", "metric"):
        if not isinstance(data.get(key, ""), str):
            raise ArgumentError(f"{shown}: not a calibration ({key}: text expected)", Loc(shown), hint)
    lists = [data.get(k, []) for k in ("gpus", "llms")]
    if not all(isinstance(x, list) and all(isinstance(i, str) for i in x) for x in lists) or not isinstance(data.get("rows", 0), int) or isinstance(data.get("rows"), bool):
        raise ArgumentError(f"{shown}: not a calibration (rows: a count; gpus, llms: lists of catalog ids)", Loc(shown), hint)
    if not all(isinstance(f.get("unit") or "", str) for f in data["fitted"].values()):
        raise ArgumentError(f"{shown}: not a calibration (a fitted value's unit is not text)", Loc(shown), hint)
    figures = data.get("residuals", {})
    if not isinstance(figures, dict) or not all(_number(v, optional=True) for v in figures.values()):
        raise ArgumentError(f"{shown}: not a calibration (residuals: numbers expected)", Loc(shown), hint)
    for key in ("interval_95", "stderr"):
        for name, f in data["fitted"].items():
            x = f.get(key)
            ok = _number(x, optional=True) if key == "stderr" else x is None or (isinstance(x, list) and len(x) == 2 and all(_number(v) for v in x))
            if not ok:
                raise ArgumentError(f"{shown}: not a calibration (fitted {name}: {key} is not a number)", Loc(shown), hint)
    rows = data.get("residual_rows", [])
    for i, row in enumerate(rows if isinstance(rows, list) else [None], 1):
        ok = isinstance(row, dict) and isinstance(row.get("name"), str) and isinstance(row.get("line"), int)
        ok = ok and all(_number(row.get(k)) for k in ("measured", "predicted", "roofline")) and _number(row.get("held_out"), optional=True)
        ok = ok and all(isinstance(row.get(k) or "", str) for k in ("unit", "note"))
        if not ok or not row["measured"] > 0:
            raise ArgumentError(f"{shown}: not a calibration (row {i} of residual_rows: line, name and positive measured, predicted and roofline values expected)", Loc(shown), hint)


def given(model, calibration: dict, given: dict) -> dict:
    """The calibration's fitted values as given values; the caller's own givens win."""
    if calibration["model"] != model.name:  # a fit holds for the equations it was fitted through, not another chain's
        raise ArgumentError(
            f"calibration '{calibration['name']}' is of model '{calibration['model']}', not '{model.name}'", Loc(calibration["path"]), f"use it with chainc solve {calibration['model']}"
        )
    out = dict(given)
    for name, f in calibration["fitted"].items():
        if name not in model.variables:
            raise ArgumentError(f"calibration '{calibration['name']}' fits {name}, which model '{model.name}' does not have", Loc(calibration["path"]), "refit it for this model")
        out.setdefault(name, float(f["value"]) if not f.get("unit") else f"{float(f['value'])!r} {f['unit']}")
    return out


def sentence(calibration: dict, solution) -> str:
    """What a reader must know about the numbers: calibrated to what, how well, and whether on the hardware it was measured on.

    solution: the numbers' Solution; a calibration measured on other GPUs or LLMs than its entries is said to be applied off them."""
    gpu, llm = (getattr(x, "id", None) for x in (solution.gpu, solution.llm))
    r = calibration.get("residuals") or {}
    fitted = ", ".join(f"{n} = {f['value']:.4g}{(' ' + f['unit']) if f.get('unit') else ''}" for n, f in calibration["fitted"].items())
    held = f", held-out MAPE {r['holdout_mape_percent']:.3g} %" if r.get("holdout_mape_percent") is not None else ""
    what = " ".join(x for x in (calibration.get("engine", "").split(" (")[0], "on " + calibration["hardware"].split(" (")[0] if calibration.get("hardware") else "") if x)
    mape = f", MAPE {r['mape_percent']:.3g} %" if r.get("mape_percent") is not None else ""
    off = [
        f"{kind} {chosen} (measured on {', '.join(ran)})"
        for kind, chosen, ran in (("GPU", gpu, calibration.get("gpus")), ("LLM", llm, calibration.get("llms")))
        if chosen and ran and chosen not in ran
    ]
    away = f"; applied off its measurements, on {' and '.join(off)}: its error there is unknown" if off else ""
    return f"calibrated ({calibration['name']}) to {calibration.get('rows', '?')} measured runs{' of ' + what if what else ''}{mape}{held}: {fitted}{away}"


def of(calibration: dict, solution) -> Calibration:
    """The loaded file as a Report carries it (calibrated.Calibration), its sentence said of the solution's hardware."""
    r = calibration.get("residuals") or {}
    fitted = tuple(FittedValue(n, float(f["value"]), f.get("unit") or "", f.get("stderr"), *(f.get("interval_95") or (None, None)), bool(f.get("at_bound"))) for n, f in calibration["fitted"].items())
    rows = tuple(
        MeasuredRow(x["line"], x["name"], x.get("unit") or "", float(x["measured"]), float(x["predicted"]), float(x["roofline"]), str(x.get("note") or ""), x.get("held_out"))
        for x in calibration.get("residual_rows") or ()
    )
    text = {k: str(calibration.get(k) or "") for k in ("data", "source", "engine", "hardware", "metric", "date", "license")}
    return Calibration(
        calibration["name"],
        calibration["path"],
        calibration["model"],
        sentence(calibration, solution),
        fitted,
        rows,
        calibration["rows"] if isinstance(calibration.get("rows"), int) else len(rows),
        r.get("mape_percent"),
        r.get("worst_percent"),
        r.get("worst_line"),
        r.get("roofline_mape_percent"),
        r.get("holdout_mape_percent"),
        r.get("holdout_rows"),
        **text,
    )
