"""The IR: frozen dataclasses for a loaded model. Every node knows its source.

All numbers inside are exact SymPy numbers in base units (second, bit, token,
request, FLOP). A variable's display unit is text plus the exact factor that
turns a display-unit number into base units.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from .errors import Loc
from .units import Dim


@dataclass(frozen=True)
class Domain:
    kind: str = "positive"  # positive | nonnegative | real
    integer: bool = False
    lo: sp.Expr | None = None  # base units, inclusive
    hi: sp.Expr | None = None
    values: tuple | None = None  # a finite set (`values:`), ascending, base units; lo and hi are its ends

    def admits(self, x) -> bool:
        if not x.is_real:
            return False
        if self.values is not None and x not in self.values:
            return False
        if self.kind == "positive" and not x > 0:
            return False
        if self.kind == "nonnegative" and not x >= 0:
            return False
        if self.lo is not None and x < self.lo:
            return False
        return not (self.hi is not None and x > self.hi)

    def describe(self, q: Quantity | None = None) -> str:
        """'positive integer, at least 1', with bounds in the quantity's display unit."""
        words = self.kind + (" integer" if self.integer else "")
        if self.values is not None:
            shown = [f"{float(q.to_display(v) if q is not None else v):g}" for v in self.values]
            listed = ", ".join(shown) if len(shown) <= 8 else ", ".join(shown[:3]) + f", ... ({len(shown)} values), " + ", ".join(shown[-2:])
            return words + f", one of {listed}" + (f" {q.unit}" if q is not None and q.unit else "")
        for word, bound in (("at least", self.lo), ("at most", self.hi)):
            if bound is not None:
                shown = q.to_display(bound) if q is not None else bound
                words += f", {word} {float(shown):g}" + (f" {q.unit}" if q is not None and q.unit else "")
        return words


@dataclass(frozen=True)
class Quantity:
    """A named value with a display unit: the common part of variables, parameters and columns."""

    name: str
    unit: str  # display unit as written ('ms/token'); '' for dimensionless
    factor: sp.Rational  # display -> base
    dim: Dim
    sym: sp.Symbol
    description: str = ""
    latex: str = ""
    loc: Loc | None = None

    def to_display(self, base_value):
        return base_value / self.factor

    def from_display(self, value):
        return value * self.factor


@dataclass(frozen=True)
class Variable(Quantity):
    default: sp.Expr | None = None  # base units; may hold parameter symbols
    domain: Domain = field(default_factory=Domain)
    digits: int | None = None  # significant figures to show
    choices: tuple = ()  # names (choices:): the value is a name's place in this list, 1-based (lookups.py)


@dataclass(frozen=True)
class Param(Quantity):
    """A value from outside the model: a catalog field (gpu.x, llm.x) or an imported model's variable."""

    source: str = ""  # 'gpu', 'llm', or an import alias
    field_name: str = ""


@dataclass(frozen=True)
class Equation:
    index: int
    text: str
    lhs: sp.Expr
    rhs: sp.Expr
    loc: Loc
    about: str = ""
    guards: tuple = ()  # (divisor, condition): every division the text writes, which SymPy may have cancelled (a/a is 1)
    valid: tuple = ()  # (condition, its text): where the equation holds (valid_when:), the edge of its domain

    @property
    def residual(self) -> sp.Expr:
        return self.lhs - self.rhs


@dataclass(frozen=True)
class Column(Quantity):
    formula: str = ""
    expr: sp.Expr = sp.Integer(0)
    initial: sp.Expr = sp.Integer(0)  # value of prev.<col> in the first row
    prev: sp.Symbol | None = None
    guards: tuple = ()  # the formula's divisions, as Equation.guards


@dataclass(frozen=True)
class Table:
    name: str
    about: str
    rows: sp.Expr  # number of rows, a dimensionless expression of scalars
    rows_text: str
    columns: tuple[Column, ...]  # in evaluation order
    index: sp.Symbol  # the row number, 1-based
    inputs: tuple[str, ...]  # scalar variables the table depends on
    max_rows: int
    loc: Loc


@dataclass(frozen=True)
class Aggregate:
    """sum/last/max/min of a table column, or count of rows, used by scalar equations."""

    func: sp.Function  # applied to the table's inputs, so dependencies are visible
    kind: str
    table: str
    column: str | None


@dataclass(frozen=True)
class Question:
    name: str
    ask: str
    find: str
    condition: sp.Basic  # a relation such as tpot <= tpot_target
    condition_text: str
    seek: str  # 'max' or 'min'
    step: sp.Rational | None  # rounding grid in base units (None: no rounding)
    loc: Loc
    guards: tuple = ()  # the condition's divisions, as Equation.guards
    parts: tuple[tuple[str, str], ...] = ()  # several conditions: (label, part question's name), each part a question of its own


@dataclass(frozen=True)
class Expectation:
    name: str  # a variable, or the question's name
    value: sp.Expr  # base units
    written: str  # as written, e.g. '9.9 ms/token'
    abs_tol: sp.Expr | None  # base units
    rel_tol: sp.Expr | None
    loc: Loc


@dataclass(frozen=True)
class Check:
    index: int
    about: str
    given: tuple[tuple[str, sp.Expr], ...]  # name -> base-unit value
    expect: tuple[Expectation, ...]
    that: sp.Basic | None
    that_text: str
    question: str | None
    loc: Loc
    entries: tuple[tuple[str, str], ...] = ()  # a search's check: ('gpu', 'h200') the best configuration must choose


@dataclass(frozen=True)
class PhysicalLimit:
    """A `limits:` entry: a comparison that must hold for the numbers to describe a real machine (it warns, cuts nothing)."""

    name: str
    text: str  # as written: 'step_bytes <= memory'
    op: str  # '<' '<=' '>' '>='
    left: sp.Expr  # base units
    right: sp.Expr
    sides: tuple  # per side (its text, display unit, display -> base factor, digits): how a warning shows its value
    about: str
    loc: Loc


@dataclass(frozen=True)
class Sweep:
    name: str
    over: str
    start: sp.Rational  # display units
    stop: sp.Rational
    step: sp.Rational
    show: tuple[str, ...]
    reference: str | None
    about: str
    loc: Loc


@dataclass(frozen=True, eq=False)  # identity: a loaded model is a value object, compared by source
class Model:
    name: str
    title: str
    about: str
    path: str
    gpu: str | None
    llm: str | None
    imports: tuple[tuple[str, Model], ...]  # alias -> the imported model, bound at load
    variables: dict[str, Variable]
    params: dict[str, Param]
    equations: tuple[Equation, ...]
    tables: dict[str, Table]
    aggregates: dict[str, Aggregate]  # by function name
    questions: dict[str, Question]
    checks: tuple[Check, ...]
    sweeps: dict[str, Sweep]
    loc: Loc
    expected_from: str = ""  # where the checks' numbers come from ('the card'); '' : they are expected values
    limits: tuple[PhysicalLimit, ...] = ()  # physical limits (compiler/physical.py): warnings, never the domain's edge
    searches: dict = field(default_factory=dict)  # name -> Choose: questions over configurations, objectives and frontiers (searches.py)

    def quantity(self, name: str) -> Quantity | None:
        return self.variables.get(name) or self.params.get(name)

    def inputs(self) -> list[str]:
        return [n for n, v in self.variables.items() if v.default is not None]


@dataclass(frozen=True)
class Axis:
    """One dimension of a configuration search: catalog entries ('gpu', 'llm') or a variable's values."""

    name: str  # 'gpu' | 'llm' | a variable
    values: tuple  # catalog ids (str), or the variable's values in base units (exact), as listed
    loc: Loc

    @property
    def catalog(self) -> bool:
        return self.name in ("gpu", "llm")


@dataclass(frozen=True)
class Condition:
    """One `such_that:` condition of a configuration search, on its own (its label names it in every output)."""

    label: str
    text: str
    expr: sp.Basic  # a relation
    guards: tuple  # the condition's divisions, as Equation.guards
    loc: Loc


@dataclass(frozen=True)
class Goal:
    name: str  # the variable the search minimises or maximises
    seek: str  # 'min' | 'max'


@dataclass(frozen=True)
class Choose:
    """A question over configurations (`over:`), or over one variable with an objective (`seek: min tpot`), or a frontier.

    Each configuration is one value per axis; `inner` questions are answered at it first (the largest batch
    that meets the target on each GPU), then the model is solved there, the conditions are tested, and the
    goals read. One goal: the best configuration and a ranked table; two goals: the Pareto frontier.
    `free`: a continuous variable the search optimises at every configuration (find: x with an objective).
    """

    name: str
    ask: str
    over: tuple[Axis, ...]
    inner: tuple[tuple[str, str], ...]  # (variable, question): the question's answer is the variable's value
    conditions: tuple[Condition, ...]
    goals: tuple[Goal, ...]
    show: int  # rows of the ranked table
    loc: Loc
    free: str | None = None
    frontier: bool = False  # a `frontiers:` entry: two goals, every non-dominated configuration

    @property
    def axes(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.over)

    def size(self) -> int:
        n = 1
        for a in self.over:
            n *= len(a.values)
        return n
