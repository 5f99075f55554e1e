"""A search as data: its prepared grid (what runs, cold and warm) and the rows being computed.

The plan cache stores PreparedChoose with the plain SearchInfo in place of the ir.Choose, so the
warm path and the printers read one shape of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Unavailable:
    """A catalog entry of the grid lacks a value the model reads: its rows say so, the others run."""

    message: str


@dataclass(frozen=True)
class SearchInfo:
    """What running and printing a search reads of its ir.Choose, as plain data (the plan cache stores it)."""

    name: str
    ask: str
    over: tuple  # AxisInfo, or ir.Axis on the cold path
    inner: tuple
    goals: tuple  # GoalInfo
    show: int
    loc: object
    free: str | None = None
    frontier: bool = False
    conditions: tuple = ()  # ConditionInfo: each condition's label and text

    @property
    def axes(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.over)


@dataclass(frozen=True)
class AxisInfo:
    name: str
    values: tuple
    loc: object = None

    @property
    def catalog(self) -> bool:
        return self.name in ("gpu", "llm")


@dataclass(frozen=True)
class ConditionInfo:
    label: str
    text: str


@dataclass(frozen=True)
class GoalInfo:
    name: str
    seek: str


def plain(s) -> SearchInfo:
    """An ir.Choose as SearchInfo: its axes' values as the core computes with them (Fractions; ids stay text)."""
    over = tuple(AxisInfo(a.name, a.values if a.catalog else tuple(_exact(v) for v in a.values), a.loc) for a in s.over)
    goals = tuple(GoalInfo(g.name, g.seek) for g in s.goals)
    return SearchInfo(s.name, s.ask, over, tuple(s.inner), goals, s.show, s.loc, s.free, s.frontier, tuple(ConditionInfo(c.label, c.text) for c in s.conditions))


def _exact(v):
    from fractions import Fraction

    return Fraction(int(v.p), int(v.q)) if hasattr(v, "p") else Fraction(v)


@dataclass(frozen=True, eq=False)
class PreparedChoose:
    """A search's shape ready to run: its grid, and per hardware the model's program and the inner questions'."""

    search: SearchInfo
    model: object  # ir.Model, or its portable description
    configs: tuple  # per row: one value per axis (catalog ids, base values)
    hardware: tuple  # per row: its (gpu, llm) ids, the key of `at` and `inner`
    at: dict  # (gpu, llm) -> Prepared: the model with the axes, inner unknowns and free variable given; or Unavailable
    inner: dict  # (gpu, llm) -> ((variable, PreparedQuestion), ...)
    conditions: tuple  # (label, text, P.Cmp, guards)
    sizes: tuple  # each axis's number of values
    free: tuple | None = None  # (name, lo, hi): a continuous variable optimised at each configuration


@dataclass
class Row:
    """One configuration, computed: its values (None: none), inner answers, what failed first and why."""

    values: dict | None = None
    inner: tuple = ()
    failed: str = ""
    why: str = ""
    miss: float | None = None
    free_where: str = ""


@dataclass
class Columns:
    """Every row's numbers, column by column (the batch path fills them from arrays)."""

    goals: list  # per goal: per row its value, None where the row has none
    inner: list  # per inner unknown (the free variable last): per row
    failed: list  # per row: '' where every condition holds, else the label of what failed first
    misses: list  # per row: the largest shortfall of a condition, None where the row has no values
    why: dict = field(default_factory=dict)  # row -> its reason, where known
    rows: dict = field(default_factory=dict)  # row -> Row: the rows computed one by one by the solver, exactly
    free_where: dict = field(default_factory=dict)
