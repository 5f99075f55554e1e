"""What a fit found: the fitted inputs, each row's residual, the roofline's, the held-out rows'."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Residual:
    line: int
    name: str  # the measured variable
    measured: float  # display unit of the variable
    predicted: float
    error: float  # predicted / measured - 1
    note: str = ""  # the row's note column, for the reader of a residual table


@dataclass(frozen=True)
class Fitted:
    name: str
    unit: str
    value: float
    stderr: float | None  # None: as many residuals as free inputs, nothing left to estimate it from
    low: float | None
    high: float | None
    at_bound: bool


@dataclass(frozen=True)
class Fit:
    model: str
    data: str
    rows: int
    measured: tuple[str, ...]
    fitted: tuple[Fitted, ...]
    residuals: tuple[Residual, ...]
    roofline: tuple[Residual, ...]  # the same rows at the free inputs' defaults: the uncalibrated model
    holdout: tuple[Residual, ...] = ()
    holdout_fraction: float = 0.0
    meta: dict = field(default_factory=dict)
    evaluations: int = 0
    hardware: dict = field(default_factory=dict)  # 'gpu'/'llm' -> the catalog ids the rows name (a row that names none, with its sizes as columns, claims no entry)
    units: dict = field(default_factory=dict)  # measured variable -> its display unit

    @staticmethod
    def mape(rs) -> float | None:
        return 100 * sum(abs(r.error) for r in rs) / len(rs) if rs else None

    @staticmethod
    def worst(rs) -> Residual | None:
        return max(rs, key=lambda r: abs(r.error)) if rs else None
