"""The frozen results of the pipeline: plans, queries, solutions, answers, check outcomes, sweeps, reports.

These are what the solver produces and what the backends and the CLI print; a
backend imports this module, never the solver.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from . import program as P
from .calibrated import IDEAL, Calibration
from .display import Values, as_quantity, rounded, short, shown_number
from .errors import ChaincError
from .format import fmt
from .numbers import exact, in_unit
from .runtime import values as V

if TYPE_CHECKING:  # types only: this module is on the warm path, which imports neither SymPy nor pint
    import sympy as sp

    from .catalog import Entry, FieldSpec
    from .ir import Check, Equation, Model, Question, Sweep


@dataclass(frozen=True, eq=False)  # identity: plans are made once per query shape (make_plan is cached)
class Step:
    """One block of the plan: what it computes, from which equations, and how."""

    unknowns: tuple[str, ...]
    equations: tuple[Equation, ...]
    method: str  # 'define' (x = expr as written), 'solve' (SymPy rearranged it), 'numeric'
    candidates: tuple[dict[str, sp.Expr], ...] = ()  # closed forms; several when SymPy finds several roots


@dataclass(frozen=True, eq=False)
class Plan:
    model: Model
    known: frozenset[str]
    steps: tuple[Step, ...]
    extra: tuple[Equation, ...] = ()  # equations the query adds (a question's boundary)


@dataclass(frozen=True)
class Query:
    """What is asked of a model: given values (base units), variables to find, hardware, extra equations."""

    given: tuple[tuple[str, Fraction | float], ...] = ()
    find: tuple[str, ...] = ()
    gpu: str | None = None
    llm: str | None = None
    extra: tuple[Equation, ...] = ()
    check_domain: bool = True  # known values must lie in their domains (a question's probes may pass them)


@dataclass(frozen=True, repr=False)
class Solution(Values):
    model: Model
    plan: Plan
    program: P.Program
    gpu: object | None  # catalog Entry
    llm: object | None
    values: dict  # every variable and parameter, base units: exact Fractions where the model is rational
    given: dict = field(default_factory=dict)
    numeric: dict = field(default_factory=dict)  # name -> how it was found numerically
    tables: dict = field(default_factory=dict)  # table -> rows (column -> value)
    formulas: dict = field(default_factory=dict)  # name -> the SymPy closed form that computed it
    notes: tuple[str, ...] = ()  # what a reader must know: several roots, an interval of solutions

    def display(self, name: str) -> float | int | Fraction:
        """A value in its display unit rounded as the CLI prints it (15.05 ms/token); exact when a float cannot hold it."""
        q = self.model.quantity(name)
        if q is None:
            raise KeyError(f"{self.model.name} has no value '{name}'")
        return rounded(self.values[name], q)

    @property
    def solution(self) -> Solution:
        return self

    @property
    def warnings(self) -> tuple:
        """The model's physical limits (`limits:`) that fail here, as physical.LimitWarning; () when all hold."""
        from .physical import verdicts

        return verdicts(self.program, self.values)

    @property
    def known(self) -> frozenset[str]:
        """The variables that were inputs of this solve (defaults and givens)."""
        return frozenset(n for n in self.program.inputs if n in self.model.variables)

    def __repr__(self) -> str:
        return short("Solution", [self._title(), *self._summary()])

    def _repr_html_(self) -> str:
        import html

        return f"<p><b>{html.escape(self._title())}</b></p>" + self._html_values()

    def _repr_markdown_(self) -> str:
        """The values as text; the derivation is chainc.explain(solution) (a printer: results import none)."""
        return f"**{self._title()}**\n\n```\n" + "\n".join(self._summary()) + "\n```\n"


@dataclass(frozen=True)
class Rounding:
    """How an answer follows from its boundary, as data."""

    how: str  # 'boundary' | 'edge' | 'floor' | 'ceiling' | 'search'
    step: Fraction | None  # base units
    stepped_back: bool  # a strict condition moved the answer one step
    closed: bool  # the boundary is a closed form (not a numeric search's)


@dataclass(frozen=True)
class Limit:
    """One condition of a question with several, on its own: its largest (or smallest) value, or why there is none."""

    label: str
    question: str  # the part question that asks it
    condition_text: str
    base: Fraction | float | None  # base units; None: no value meets it, or it sets no limit
    kind: str  # 'answer' | 'infeasible' | 'unbounded'
    message: str = ""  # the part's no-answer message
    value: float | int | None = None  # the same in the variable's display unit (an int for a whole number), as Answer.value


@dataclass(frozen=True, repr=False)
class Answer:
    """A question's answer. `value` reads in the variable's display unit (118, 12.37); `base` is the exact base-unit value."""

    question: Question
    base: Fraction | float  # base units, rounded as the question says
    base_boundary: Fraction | float  # base units: where the condition turns, before rounding (the value itself when there is none)
    solution: Solution  # the model solved at the answer
    boundary_solution: Solution | None
    rounding: Rounding
    limits: tuple[Limit, ...] = ()  # several conditions: each one's own limit
    binding: tuple[str, ...] = ()  # the labels of the conditions that set the answer (none: found by searching them together)

    @property
    def value(self) -> float | int:
        """The answer in its variable's display unit: a float, an int for a whole-number variable (118, 12.37 per minute)."""
        return shown_number(self.base, self.solution.model.variables[self.question.find])

    @property
    def boundary(self) -> float:
        """Where the condition turns, before rounding, in the variable's display unit (a float)."""
        return in_unit(self.base_boundary, self.solution.model.variables[self.question.find].factor)

    def answer(self) -> float | int:
        """The answer in its variable's display unit: `value`."""
        return self.value

    def quantity(self):
        """The answer as a pint Quantity in its display unit."""
        return as_quantity(self.value, self.solution.model.variables[self.question.find].unit)

    @property
    def warnings(self) -> tuple:
        """The physical limits that fail at the answer (physical.LimitWarning): the answer describes no real machine."""
        return self.solution.warnings

    def sentence(self) -> str:
        """'batch = 64 (floor of the boundary 64.9671 to steps of 1); tpot <= tpot_target holds there'.

        Where a physical limit fails at the answer, the sentence ends with it: '... — but memory limit fails: ...'.
        """
        var = self.solution.model.variables[self.question.find]
        how = f" ({self.how})" if self.rounding.how != "boundary" or self.limits else ""
        holds = "all hold" if self.limits else "holds"
        but = "".join(f" — but {w.message}" if k == 0 else f"; and {w.message}" for k, w in enumerate(self.warnings))
        return f"{var.name} = {fmt(in_unit(self.base, var.factor), 6)} {var.unit}".rstrip() + f"{how}; {self.question.condition_text} {holds} there" + but

    def __repr__(self) -> str:
        return short("Answer", [f"{self.question.name}: {self.sentence()}", self.solution._title()])

    def _repr_html_(self) -> str:
        import html

        head = f"<p><b>{html.escape(self.question.name)}</b>: {html.escape(self.sentence())}</p><p>{html.escape(self.solution._title())}</p>"
        return head + self.solution._html_values(found=(self.question.find,))

    @property
    def how(self) -> str:
        """In words, for people: 'floor of the boundary 64.97 to steps of 1', 'the largest allowed value'.

        With several conditions, the binding one's and each one's limit follow:
        '...; bound by tpot <= tpot_target (latency allows 64, memory allows 238)'.
        """
        if not self.limits:
            return self._rounded()
        var = self.solution.model.variables[self.question.find]
        bound = " and ".join(x.condition_text for x in self.limits if x.label in self.binding)
        own = ", ".join(f"{x.label} " + ("sets no limit" if x.base is None else f"allows {V.shown(x.base / exact(var.factor))} {var.unit}".rstrip()) for x in self.limits)
        if not bound:
            return f"found by searching its domain with all the conditions together ({own})"
        return f"{self._rounded()}; bound by {bound} ({own})"

    def _rounded(self) -> str:
        var = self.solution.model.variables[self.question.find]
        r = self.rounding
        if r.how == "boundary":
            return "the boundary"
        if r.how == "edge":
            return f"the {'largest' if self.question.seek == 'max' else 'smallest'} allowed value"
        if r.how == "search":
            return "found by searching its domain (no closed-form boundary)"
        if r.how == "set":
            return "found by trying each value of its set"
        if self.boundary_solution is None and self.base_boundary == self.base:  # the search's value, on the grid
            return f"found by searching its domain, in steps of {V.shown(r.step / exact(var.factor))}"
        text = f"{r.how} of the boundary {V.shown(self.base_boundary / exact(var.factor))} to steps of {V.shown(r.step / exact(var.factor))}"
        return text + (", one step back to meet a strict condition" if r.stepped_back else "")


@dataclass(frozen=True)
class Asking:
    """A question as programs and data: everything the answer rule runs, without running it (what printers print).

    `at` is the model's program with the question's variable known (the condition reads its values);
    `boundary` solves the condition as an equation for the variable (None: no plan has it); lo, hi,
    step and probe are the rule's edges, grid and probe point (base units).
    """

    question: Question
    condition: P.Cmp
    boundary: P.Program | None
    at: P.Program
    lo: Fraction | None
    hi: Fraction | None
    step: Fraction | None
    probe: Fraction
    strict: bool
    guards: tuple = ()  # (divisor, condition) program expressions: the condition's divisions must not be by zero

    @property
    def closed(self) -> bool:
        """The boundary is a closed form (not a numeric search's)."""
        return self.boundary is not None and self.question.find not in self.boundary.numeric


@dataclass(frozen=True)
class Expected:
    name: str  # the variable compared (a question check: the question's variable)
    label: str  # 'tpot', or 'max_batch -> batch'
    written: str  # the expected value as written, '9.9 ms/token'
    got: Fraction | float  # base units
    ok: bool


@dataclass(frozen=True)
class CheckOutcome:
    """A check's result. On hardware other than the model's own, a check does not apply: its expected
    values are references ('expected 9.9 ms/token on NVIDIA H100 SXM5 80GB', or by the model's
    expected_from: 'card: 9.9 ms/token on ...'), never failures."""

    check: Check
    ok: bool
    expected: tuple[Expected, ...] = ()
    that_ok: bool | None = None
    that_sides: tuple | None = None  # (left, right) values of a `that` relation, base units
    solution: Solution | None = None
    answer: Answer | None = None
    error: ChaincError | None = None
    written_for: str = ""  # the hardware the check was written for, when it is not the hardware it ran on

    @property
    def applies(self) -> bool:
        return not self.written_for

    @property
    def verdict(self) -> str:
        return "n/a" if not self.applies else "ok" if self.ok else "FAIL"

    @property
    def lines(self) -> tuple[str, ...]:
        """What was compared, for people."""
        if self.error is not None:
            return (f"error: {self.error.message}",) if self.applies else (f"n/a  no value here (written for {self.written_for}): {self.error.message}",)
        m = self.solution.model
        out = []
        for e in self.expected:
            var = m.variables.get(e.name)
            got = f"{e.label} = {fmt(in_unit(e.got, var.factor))} {var.unit}".rstrip() if var is not None else f"{e.label} = {e.got}"  # a search's chosen entry
            if self.applies:
                out.append(f"{'ok' if e.ok else 'FAIL'}  {got} (expected {e.written})")
            else:  # the model's source by name where it gives one ('card: 9.9 ms/token on ...')
                out.append(f"n/a  {got} ({m.expected_from + ':' if m.expected_from else 'expected'} {e.written} on {self.written_for})")
        if self.that_ok is not None:
            word = "holds" if self.that_ok else "does not hold"
            out.append(f"{'ok' if self.that_ok else 'FAIL'}  {self.check.that_text}: {word}" if self.applies else f"n/a  {self.check.that_text}: {word} here (written for {self.written_for})")
        return tuple(out)


@dataclass(frozen=True)
class Tally:
    """Checks counted as `chainc check` counts them: those written for other hardware are not applicable, never passes."""

    passed: int
    failed: int
    not_applicable: int
    written_for: str = ""  # the hardware the first not-applicable check was written for

    @property
    def applicable(self) -> int:
        return self.passed + self.failed

    @property
    def verdict(self) -> str:
        """'FAIL' when one fails, 'n/a' when none applies, else 'ok'."""
        return "FAIL" if self.failed else "n/a" if self.not_applicable and not self.applicable else "ok"

    @property
    def ok(self) -> bool | None:
        """False when a check fails, None when none applies here, else True."""
        return False if self.failed else None if self.verdict == "n/a" else True

    @property
    def counts(self) -> str:
        """'9/9 checks', or 'no checks for this hardware'; then who the others were written for."""
        head = f"{self.passed}/{self.applicable} checks" if self.applicable else "no checks for this hardware"
        return head + (f"; {self.not_applicable} written for {self.written_for}: shown as references" if self.not_applicable else "")


def tally(outcomes) -> Tally:
    refs = [o for o in outcomes if not o.applies]
    failed = sum(not o.ok for o in outcomes)
    return Tally(len(outcomes) - len(refs) - failed, failed, len(refs), refs[0].written_for if refs else "")


@dataclass(frozen=True)
class SweepResult:
    sweep: Sweep
    xs: tuple[float, ...]  # the swept input, display unit
    series: dict[str, tuple[float, ...]]  # each shown variable, display unit
    reference: float | None  # the reference variable's value (display unit), e.g. the TPOT target


@dataclass(frozen=True, repr=False)
class Report(Values):
    model: Model
    solution: Solution  # the model solved forward on its hardware, at the givens
    answers: dict[str, Answer | ChaincError]  # question -> answer, or the error that says why there is none
    checks: tuple[CheckOutcome, ...]
    sweeps: dict[str, SweepResult]
    queries: dict[str, Solution] = field(default_factory=dict)  # custom queries (build --find/--given), by name
    given: tuple[tuple[str, Fraction | float], ...] = ()
    source: str = ""  # the model file as outputs name it: 'models/goodput.yaml' (relative to its library folder)
    imports: dict[str, Report] = field(default_factory=dict)  # alias -> the imported model's own report
    asking: dict[str, Asking] = field(default_factory=dict)  # question -> its programs and rule data (also when it has no answer)
    sensitivities: dict[str, tuple] = field(default_factory=dict)  # question -> its boundary's Sensitivity rows, largest first (none: no answer)
    digest: str = ""  # SHA-256 of the model file's bytes, hex ('' when it cannot be read)
    searches: dict = field(default_factory=dict)  # search -> chosen.Chosen (questions over configurations, frontiers), or the error that stopped it
    choosing: dict = field(default_factory=dict)  # search -> choosing.PreparedChoose: its grid, programs and inner questions (what printers print)
    calibration: Calibration | None = None  # the fit its given values come from (chainc build --calibration)

    @property
    def calibration_text(self) -> str:
        """What the numbers are, for every output to say: calibrated to what and how well, or an ideal machine."""
        return self.calibration.sentence if self.calibration is not None else IDEAL

    @property
    def gpu(self) -> Entry | None:
        return self.solution.gpu

    @property
    def llm(self) -> Entry | None:
        return self.solution.llm

    @property
    def warnings(self) -> tuple:
        """The physical limits that fail at the report's solution (physical.LimitWarning)."""
        return self.solution.warnings

    @property
    def tally(self) -> Tally:
        """The checks counted as `chainc check` counts them."""
        return tally(self.checks)

    @property
    def ok(self) -> bool | None:
        """True when every check that applies passes; False when one fails; None when none applies (other hardware)."""
        return self.tally.ok

    def _verdicts(self) -> list[str]:
        parts = {name for q in self.model.questions.values() for _, name in q.parts}  # their limits are in the combined answer
        answers = [f"{q}: " + (a.message if isinstance(a, ChaincError) else a.sentence()) for q, a in [*self.answers.items(), *self.searches.items()] if q not in parts]
        t = self.tally
        return [*answers, f"checks: {t.verdict}, {t.counts}" if self.checks else ""]

    def __repr__(self) -> str:
        calibrated = [self.calibration.sentence] if self.calibration is not None else []
        return short("Report", [self._title(), *calibrated, *self._summary(), *self._verdicts()])

    def _repr_html_(self) -> str:
        import html

        rows = "".join(f"<li>{html.escape(v)}</li>" for v in self._verdicts() if v)
        checks = "".join(f"<tr><td>{c.verdict}</td><td>{html.escape(c.check.about)}</td><td>{html.escape('; '.join(c.lines))}</td></tr>" for c in self.checks)
        table = f"<table><thead><tr><th></th><th>check</th><th>compared</th></tr></thead><tbody>{checks}</tbody></table>" if checks else ""
        said = f"<p><i>{html.escape(self.calibration.sentence)}</i></p>" if self.calibration is not None else ""
        return f"<p><b>{html.escape(self._title())}</b></p>" + said + self._html_values() + f"<ul>{rows}</ul>" + table

    def answer(self, question: str) -> Answer:
        a = self.answers[question]
        if isinstance(a, ChaincError):
            raise a
        return a


@dataclass(frozen=True)
class CatalogReport:
    """Every entry of the catalog with its values (base units; None where it has none), and the fields."""

    fields: dict[str, dict[str, FieldSpec]]
    entries: dict[str, tuple[tuple[Entry, dict], ...]]  # kind -> ((entry, values), ...)
    programs: dict[tuple[str, str], P.Program] = field(default_factory=dict)  # (kind, id) -> the program computing its derived fields

    def values(self, kind: str, entry_id: str) -> dict:
        return next(v for e, v in self.entries[kind] if e.id == entry_id)
