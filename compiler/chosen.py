"""What a search over configurations found: every configuration's row, the ranked ones, the frontier, what binds.

Rows are numbered in the grid's order (the first axis of `over:` slowest). Values are in base units
(exact where the model is rational); `value`, `table` and `sentence` read in display units.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .format import fmt
from .numbers import in_unit
from .runtime.choose import nothing

if TYPE_CHECKING:
    from .ir import Choose
    from .results import Solution


class Reasons:
    """Each row's reason in words, worked out when read: a grid of 100,000 rows words only those shown."""

    def __init__(self, n: int, known: dict, work_out):
        self._n, self._known, self._work_out = n, known, work_out

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> str:
        if i not in self._known:
            self._known[i] = self._work_out(i)
        return self._known[i]

    def __iter__(self):
        return (self[i] for i in range(self._n))


# Where the best sits along a variable (runtime/choose.placement's kinds), as the sentence says it: the
# solver's Chosen and the workbook's formulas both read this table.
PLACEMENT_WORDS = {"edge": "at the edge of its values", "bound": "next to a value that fails", "interior": "interior (both neighbours are worse)"}


@dataclass(frozen=True, repr=False)
class Chosen:
    search: Choose
    model: object  # ir.Model (or its portable description)
    configs: tuple  # per row, one value per axis: a catalog id, or the variable's base value
    goals: tuple  # per goal, per row: its base value (None: the row has none)
    inner: tuple  # per inner unknown (and the free variable last, if any), per row: its value (None: none)
    why: Reasons  # per row: '' where every condition holds, else the first that fails, in words (worked out when read)
    failed: tuple  # per row: the label of what failed first ('' none): a condition, an inner question, 'no value'
    misses: tuple  # per row: the largest shortfall of a condition (0 where all hold, None where the row has no values)
    order: tuple  # the rows where every condition holds, best first (a frontier: its rows, best x first)
    binding: tuple  # (label, rows it keeps out that would beat the best), most first
    closest: int | None  # no configuration meets every condition: the row nearest to it
    solution: Solution | None  # the model solved at the best configuration (exactly)
    placement: tuple = ()  # per axis: where the best sits along it ('interior', 'edge', 'bound', 'only')
    free_where: str = ""  # the free variable's optimum: 'interior', 'edge' or 'bound'
    exact: frozenset = frozenset()  # rows the solver computed one by one, exactly (the others: the batch path, in floats)
    limits: dict = field(default_factory=dict)  # row shown -> the physical limits (physical.LimitWarning) that fail there

    # --- reading ----------------------------------------------------------------------------------
    @property
    def frontier(self) -> bool:
        return self.search.frontier

    @property
    def best(self) -> int | None:
        return self.order[0] if self.order and not self.frontier else None

    @property
    def feasible(self) -> int:
        return sum(1 for f in self.failed if not f)

    def config(self, row: int) -> dict:
        """The row's configuration in display units: {'gpu': 'h200', 'tp': 2}."""
        out = {}
        for axis, v in zip(self.search.over, self.configs[row]):
            out[axis.name] = v if axis.catalog else self._shown(axis.name, v)
        return out

    def values(self, row: int) -> dict:
        """The row's configuration, inner answers and goals in display units (None where it has none)."""
        out = self.config(row)
        for k, name in enumerate(self.inner_names()):
            out[name] = self._shown(name, self.inner[k][row])
        for g, column in zip(self.search.goals, self.goals):
            out[g.name] = self._shown(g.name, column[row])
        return out

    def inner_names(self) -> tuple:
        return tuple(v for v, _ in self.search.inner) + ((self.search.free,) if self.search.free else ())

    def table(self, n: int | None = None) -> list[dict]:
        """The ranked rows as dicts ('rank', the configuration, inner answers, goals): the question's `show:` many, or n;
        a frontier's rows, all of them unless n."""
        rows = self.order[: n or (len(self.order) if self.frontier else self.search.show)]
        return [{"rank": k + 1, **self.values(i)} for k, i in enumerate(rows)]

    def _shown(self, name: str, base):
        if base is None:
            return None
        v = self.model.variables[name]
        domain = getattr(v, "domain", None)  # the warm path's description keeps no domain: a float, as in the JSON
        return int(round(base / v.factor)) if domain is not None and domain.integer else in_unit(base, v.factor)

    def _text(self, name: str, base) -> str:
        v = self.model.variables[name]
        return f"{name} = {fmt(in_unit(base, v.factor), 6)} {v.unit}".rstrip() if base is not None else f"{name}: none"

    def describe(self, row: int) -> str:
        """'gpu = h200, tp = 2, batch = 118': the row's configuration and inner answers."""
        goals = {g.name for g in self.search.goals}  # an inner answer that is the goal is said with the goal
        parts = [f"{a.name} = {v}" if a.catalog else self._text(a.name, v) for a, v in zip(self.search.over, self.configs[row])]
        parts += [self._text(n, self.inner[k][row]) for k, n in enumerate(self.inner_names()) if n not in goals]
        return ", ".join(parts)

    def sentence(self) -> str:
        """The answer in one line: the best configuration, its goal, what binds; or why there is none."""
        s = self.search
        if self.frontier and self.order:  # an empty frontier is no configuration, below
            return f"{len(self.order):,} configurations on the frontier of {s.goals[0].seek} {s.goals[0].name} and {s.goals[1].seek} {s.goals[1].name} ({self.feasible:,} of {len(self.why):,} meet the conditions)"
        if self.best is None:
            near = self.closest is not None
            return nothing(len(self.why), self.describe(self.closest) if near else "", self.why[self.closest] if near else "")
        g = s.goals[0]
        n = self.feasible
        among = f"{g.seek} of {n:,} configuration{'s' if n != 1 else ''} that meet{'s' if n == 1 else ''} the conditions" if s.over else f"{g.seek} over {s.free}'s range"
        return f"{self.describe(self.best)}: {self._text(g.name, self.goals[0][self.best])} ({among}){self._where()}; {self.bound_by()}"

    def bound_by(self) -> str:
        if not self.binding:
            return "no condition binds: it is the best of every configuration searched"
        label, n = self.binding[0]
        rest = "".join(f", {lb} {k}" for lb, k in self.binding[1:])
        return f"bound by {label} (it rules out {n} better configuration{'s' if n != 1 else ''}{rest and '; also' + rest})"

    def _where(self) -> str:
        words = PLACEMENT_WORDS
        varied = [(a.name, p) for a, p in zip(self.search.over, self.placement) if not a.catalog and p in words]
        if self.search.free and self.free_where:
            varied.append((self.search.free, self.free_where))
        return "".join(f"; {name} {words[p]}" for name, p in varied)

    @property
    def value(self):
        """A search over one variable: its best value in the display unit; else the best configuration as a dict."""
        if self.best is None:
            return None
        names = [a.name for a in self.search.over if not a.catalog] + ([self.search.free] if self.search.free else [])
        if len(names) == 1 and not any(a.catalog for a in self.search.over):
            return self.values(self.best)[names[0]]
        return self.values(self.best)

    @property
    def warnings(self) -> tuple:
        return self.solution.warnings if self.solution is not None else ()

    def __repr__(self) -> str:
        return f"<Chosen {self.search.name}: {self.sentence()}>"
