"""Fit a model's free inputs to measured rows: relative least squares over the rows, each solved by the solver.

Each row gives some variables and measures others. A measured column that is an input of the model
(batch, measured at a given TPOT) is found by solving backwards; a computed one (tpot) is predicted by
solving forward. The residual of a row is predicted / measured - 1, so every row weighs the same
whatever its scale. Uncertainty is the Gauss-Newton standard error from the Jacobian at the optimum.
"""

from __future__ import annotations

import difflib
import math

from ..errors import ArgumentError, ChaincError
from .data import CHOICES, TEXT, Data, DataError, Row, located, number
from .result import Fit, Fitted, Residual

Z95 = 1.959963984540054  # two-sided 95 % normal quantile: the interval is value +- Z95 standard errors
HOLDOUT_SEED = 0  # which rows are held out is fixed, so a fit prints the same every time


class Problem:
    """A model, a data file and the free inputs: what each row gives, measures and chooses."""

    def __init__(self, model, data: Data, free, project, bounds=None, measured=None):
        self.model, self.data, self.project = model, data, project
        self.variables = [c for c in data.columns if c.name not in CHOICES + TEXT]
        self._check_columns()
        self.measured = tuple(measured) if measured else tuple(c.name for c in self.variables if model.variables[c.name].default is None)
        self._check_measured()
        self.free = tuple(free)
        self._check_free()
        self.lower, self.upper = zip(*(self._bounds(n, (bounds or {}).get(n)) for n in self.free))
        self.finds = tuple(n for n in self.measured if model.variables[n].default is not None)

    def _check_columns(self) -> None:
        m = self.model
        for c in self.variables:
            var = m.variables.get(c.name)
            loc = self.data.loc(_header_line(self.data), c.col)
            if var is None:
                close = difflib.get_close_matches(c.name, list(m.variables), n=1)
                raise DataError(
                    f"column {c.name}: model '{m.name}' has no variable '{c.name}'",
                    loc,
                    f"did you mean {close[0]}?" if close else f"columns are variables of {m.name} ({', '.join(m.variables)}), or {', '.join(CHOICES + TEXT)}",
                )
            if c.unit:
                from ..quantities import given_value

                try:
                    given_value(m, c.name, f"1 {c.unit}")
                except ChaincError as e:
                    raise DataError(
                        f"column {c.name}[{c.unit}]: {e.message.split(': ', 1)[-1]}",
                        loc,
                        f"{c.name} is in {var.unit or 'no unit'}: write {c.name}[{var.unit}]" if var.unit else f"{c.name} is dimensionless: write {c.name}",
                    ) from None

    def _check_measured(self) -> None:
        names = [c.name for c in self.variables]
        if not self.measured:
            raise DataError(
                "no measured column: every variable column is an input of the model",
                self.data.loc(_header_line(self.data)),
                "add a column of a computed result (tpot[ms/token], throughput[token/s]), or name one with --measured",
            )
        for n in self.measured:
            if n not in names:
                raise ArgumentError(f"--measured {n}: the data has no column {n}", None, f"columns: {', '.join(names)}")

    def _check_free(self) -> None:
        m, cols = self.model, {c.name for c in self.variables}
        if not self.free:
            raise ArgumentError("--free names no input", None, "for example --free bandwidth_efficiency,step_overhead")
        inputs = [n for n, v in m.variables.items() if v.default is not None and n not in cols]
        for i, n in enumerate(self.free):
            var = m.variables.get(n)
            if var is None or var.default is None or n in cols or n in self.free[:i]:
                why = "is not a variable of the model" if var is None else "is computed by the equations" if var.default is None else "is a column of the data" if n in cols else "appears twice"
                close = difflib.get_close_matches(n, inputs, n=1)
                raise ArgumentError(f"--free {n}: {n} {why}", None, f"did you mean {close[0]}?" if close and var is None else f"free inputs of {m.name}: {', '.join(inputs)}")
        residuals = len(self.data.rows) * len(self.measured)
        if residuals < len(self.free):
            raise DataError(
                f"{len(self.data.rows)} row(s) of {len(self.measured)} measured value(s) cannot determine {len(self.free)} free inputs",
                self.data.loc(self.data.rows[-1].line),
                "add rows, or free fewer inputs (a fit needs at least as many measured values as free inputs, and more for an uncertainty)",
            )

    def _bounds(self, name: str, given) -> tuple[float, float]:
        var = self.model.variables[name]
        d, f = var.domain, float(var.factor)
        lo = {"positive": 1e-9, "nonnegative": 0.0}.get(d.kind, -math.inf)
        lo = max(lo, float(d.lo) / f) if d.lo is not None and d.lo.is_number else lo
        hi = float(d.hi) / f if d.hi is not None and d.hi.is_number else math.inf
        if given is not None:
            glo, ghi = given
            if glo < lo or ghi > hi or glo >= ghi:
                raise ArgumentError(f"--bounds {name}={glo:g}:{ghi:g}: outside {name}'s domain ({d.describe(var)}) or empty", None, "give LOW:HIGH inside the domain, LOW < HIGH")
            lo, hi = glo, ghi
        return lo, hi

    def given(self, row: Row) -> tuple[dict, str | None, str | None]:
        values = {}
        for c in self.variables:
            if c.name in self.measured:
                continue
            x = number(self.data, row, c.name)
            values[c.name] = f"{x!r} {c.unit}" if c.unit else x
        choice = {}
        for kind in CHOICES:
            chosen = row.cells.get(kind) or None
            if chosen is not None and self.project.catalog.path(kind, chosen) is None:
                ids = self.project.catalog.ids(kind)
                close = difflib.get_close_matches(chosen, ids, n=1)
                raise DataError(
                    f"row {row.line}: unknown {kind.upper()} '{chosen}'", self.data.loc(row.line, row.cols[kind]), f"did you mean {close[0]}?" if close else f"{kind.upper()}s: {', '.join(ids)}"
                )
            choice[kind] = chosen
        return values, choice["gpu"], choice["llm"]

    def observed(self, row: Row) -> dict:
        from ..quantities import given_value

        out = {}
        for n in self.measured:
            col = self.data.column(n)
            x = number(self.data, row, n)
            if not x > 0:
                raise DataError(
                    f"row {row.line}: measured {n} = {x:g}; a relative residual needs a positive measurement", self.data.loc(row.line, row.cols[n]), "drop the row, or measure a positive quantity"
                )
            out[n] = float(given_value(self.model, n, f"{x!r} {col.unit}" if col.unit else x))
        return out

    def predict(self, row: Row, x, given=None) -> dict:
        from ..api import solve

        values, gpu, llm = given or self.given(row)
        values = {**values, **{n: float(v) for n, v in zip(self.free, x)}}
        s = solve(self.model, values, self.finds, gpu=gpu, llm=llm, project=self.project)
        return {n: float(s.values[n]) for n in self.measured}

    def defaults(self) -> list[float]:
        """The free inputs' own defaults in display units (a catalog default is read off the first row's solve)."""
        from ..api import solve

        values, gpu, llm = self.given(self.data.rows[0])
        try:
            s = solve(self.model, values, self.finds, gpu=gpu, llm=llm, project=self.project)
        except ChaincError as e:
            raise located(self.data, self.data.rows[0], e) from None
        return [float(s.values[n]) / float(self.model.variables[n].factor) for n in self.free]


def _header_line(data: Data) -> int:
    return min(r.line for r in data.rows) - 1 if data.rows else 1


def residuals(p: Problem, rows, x, cache) -> list[Residual]:
    out = []
    for row in rows:
        given, seen = cache[row.line]
        try:
            got = p.predict(row, x, given)
        except ChaincError as e:
            raise located(p.data, row, e) from None
        for n in p.measured:
            f = float(p.model.variables[n].factor)
            out.append(Residual(row.line, n, seen[n] / f, got[n] / f, got[n] / seen[n] - 1, row.cells.get("note", "")))
    return out


def fit(model, data: Data, free, project, bounds=None, measured=None, holdout: float = 0.0) -> Fit:
    import numpy as np

    p = Problem(model, data, free, project, bounds, measured)
    cache = {row.line: (p.given(row), p.observed(row)) for row in data.rows}
    x0 = p.defaults()
    roofline = residuals(p, data.rows, x0, cache)  # also: every row solves at the start, or its error is located
    fitted, res, nfev = _solve(p, data.rows, x0, cache)
    held: list[Residual] = []
    if holdout:
        if not 0 < holdout < 1:
            raise ArgumentError(f"--holdout {holdout:g}: expected a fraction between 0 and 1", None, "for example --holdout 0.3")
        order = np.random.default_rng(HOLDOUT_SEED).permutation(len(data.rows))
        k = max(1, round(holdout * len(data.rows)))
        hold = {int(i) for i in order[:k]}
        train = [r for i, r in enumerate(data.rows) if i not in hold]
        if len(train) * len(p.measured) < len(p.free):
            raise DataError(f"holding out {k} of {len(data.rows)} rows leaves too few to fit {len(p.free)} free inputs", data.loc(data.rows[-1].line), "hold out a smaller fraction, or add rows")
        xt, _, _ = _solve(p, train, x0, cache)
        held = residuals(p, [r for i, r in enumerate(data.rows) if i in hold], [f.value for f in xt], cache)
    ran = {kind: sorted({row.cells.get(kind) for row in data.rows} - {None, ""}) for kind in CHOICES}  # what the rows name, and only that
    units = {n: model.variables[n].unit for n in p.measured}
    return Fit(model.name, data.path, len(data.rows), p.measured, fitted, tuple(res), tuple(roofline), tuple(held), holdout, dict(data.meta), nfev, ran, units)


def _solve(p: Problem, rows, x0, cache):
    import numpy as np
    from scipy.optimize import least_squares

    lo, hi = np.array(p.lower, float), np.array(p.upper, float)
    start = np.clip(np.array(x0, float), lo, hi)

    def fun(x):
        return np.array([r.error for r in residuals(p, rows, x, cache)])

    try:
        out = least_squares(fun, start, bounds=(lo, hi), method="trf", x_scale="jac", max_nfev=200 * (len(start) + 1))
    except DataError as e:
        raise DataError(f"the fit did not converge: {e.message}", e.loc, "the search left the model's domain there: narrow --bounds") from None
    if out.status <= 0 or not np.all(np.isfinite(out.x)):
        raise ArgumentError(
            f"the fit did not converge ({out.message}) after {out.nfev} evaluations; free: {', '.join(p.free)} at {', '.join(f'{v:.4g}' for v in out.x)}",
            None,
            "free fewer inputs, or narrow --bounds around plausible values",
        )
    jac, m, n = out.jac, len(out.fun), len(start)
    tight = np.isclose(out.x, lo) | np.isclose(out.x, hi)
    live = ~tight  # a parameter held at its bound is fixed there: its uncertainty is not from the curvature
    if live.any() and np.linalg.matrix_rank(jac[:, live]) < int(live.sum()):
        weak = [p.free[i] for i in np.flatnonzero(live)[np.argsort(np.linalg.norm(jac[:, live], axis=0))[:1]]]
        raise ArgumentError(
            f"the fit did not converge to one answer: the rows do not determine {weak[0]} (it moves no prediction, or trades off exactly against another free input)",
            None,
            f"free fewer inputs, or add rows that vary what {weak[0]} acts on",
        )
    se = [None] * n
    dof = m - int(live.sum())
    if dof > 0 and live.any():
        cov = np.linalg.inv(jac[:, live].T @ jac[:, live]) * float(out.fun @ out.fun) / dof
        for k, i in enumerate(np.flatnonzero(live)):
            se[i] = float(math.sqrt(max(cov[k, k], 0.0)))
    fitted = []
    for i, name in enumerate(p.free):
        var = p.model.variables[name]
        v, s = float(out.x[i]), se[i]
        if tight[i]:  # the search stops a hair inside a bound it presses against: report the bound itself
            v = float(lo[i] if np.isclose(out.x[i], lo[i]) else hi[i])
        low, high = (max(v - Z95 * s, lo[i]), min(v + Z95 * s, hi[i])) if s is not None else (None, None)
        fitted.append(Fitted(name, var.unit, v, s, low, high, bool(tight[i])))
    return tuple(fitted), residuals(p, rows, out.x, cache), int(out.nfev)
