"""A calibration as a Report carries it: what the numbers were fitted to, how well, and each measured row.

Plain data read from calibrations/NAME.yaml (fit/calibration.py loads and checks the file), so every
backend prints the same figures and none recomputes a fit. Without a calibration a Report says IDEAL.
"""

from __future__ import annotations

from dataclasses import dataclass

# every chain says so, a queue as a roofline: only a roofline has an ideal machine to name
UNCALIBRATED = "the uncalibrated chain"  # what a check's expected numbers are for, on a calibrated sheet
IDEAL = "uncalibrated: not fitted to measured runs (a roofline's efficiencies at their defaults: an ideal machine); chainc fit calibrates a chain to them"


@dataclass(frozen=True)
class FittedValue:
    name: str
    value: float
    unit: str
    stderr: float | None
    low: float | None  # the 95 % interval; None: no residual left to estimate it from
    high: float | None
    at_bound: bool


@dataclass(frozen=True)
class MeasuredRow:
    """One measured value of the data set beside the calibrated and the uncalibrated prediction (display units)."""

    line: int  # of the data file
    name: str  # the measured variable
    unit: str
    measured: float
    predicted: float  # by the calibrated model
    roofline: float  # by the model at the free inputs' defaults
    note: str = ""
    held_out: float | None = None  # its prediction by a fit to the other rows, when the row was held out

    @property
    def error(self) -> float:
        return self.predicted / self.measured - 1

    @property
    def roofline_error(self) -> float:
        return self.roofline / self.measured - 1


@dataclass(frozen=True)
class Calibration:
    name: str
    file: str  # calibrations/NAME.yaml as outputs name it
    model: str
    sentence: str  # calibration.sentence: calibrated to what, how well, on which hardware
    fitted: tuple[FittedValue, ...]
    rows: tuple[MeasuredRow, ...]  # () for a file written before rows were recorded
    count: int  # measured runs
    mape: float | None  # percent
    worst: float | None  # percent, signed
    worst_line: int | None
    roofline_mape: float | None
    holdout_mape: float | None
    holdout_rows: int | None
    data: str = ""  # the measured data file
    source: str = ""
    engine: str = ""
    hardware: str = ""
    metric: str = ""
    date: str = ""
    license: str = ""

    @property
    def measured_on(self) -> str:
        """'TensorRT-LLM 0.6.1 on 1x H100-HBM3-80GB': the engine and hardware of the runs, without their parentheses."""
        return " on ".join(x.split(" (")[0].split(";")[0] for x in (self.engine, self.hardware) if x)
