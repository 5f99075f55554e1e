"""A structured derivation: what a derivation sheet and `chainc solve --explain` print.

`derive(solution)` turns a solved plan into steps: the equations as the model
states them, the rearranged form where the solver solved for a variable, the
substitution (which symbols take which values) and the result. `sheet(model,
...)` adds everything a derivation sheet shows around it: the hardware and its
catalog values, the inputs, tables, questions (with the boundary's own
derivation and the rounding) and checks.

The steps hold SymPy expressions and base-unit values only; printers (LaTeX in
compiler/backends/latex.py, plain text in `text_lines`) decide how they look.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.str import StrPrinter

from .errors import ChaincError
from .format import fmt
from .ir import Check, Model, Quantity, Question, Variable
from .numbers import display
from .results import Answer, CheckOutcome, Report, Solution, SweepResult
from .units import DIMENSIONLESS

# --- the structure ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    """A value as a person reads it: the number at sensible significant figures and the display unit."""

    text: str  # '6,450', '9.923', '5.243e-06'
    unit: str  # display unit as written ('ms/token'); '' when dimensionless
    value: float  # in the display unit
    negative: bool = False

    def __str__(self) -> str:
        return f"{self.text} {self.unit}".rstrip()


@dataclass(frozen=True)
class Step:
    """One step of a derivation, in solving order."""

    number: int
    unknowns: tuple[str, ...]
    method: str  # define | solve | numeric
    equations: tuple  # ir.Equation, as the model states them
    stated: tuple[tuple[sp.Expr, sp.Expr], ...]  # each equation's sides, with unit literals restored
    forms: tuple[tuple[str, sp.Expr], ...]  # name -> closed form used (define: the right side; solve: rearranged)
    rearranged: bool  # True when the solver rearranged the equation(s) ('solving for x')
    how: str  # numeric: how it was solved ('bracketed root search, relative tolerance 1e-12')
    substitutions: tuple[tuple[str, sp.Expr], ...]  # name -> form with aggregates replaced by value symbols
    values: dict  # Symbol -> Shown, for every symbol a substitution uses
    results: tuple[tuple[str, Shown], ...]

    @property
    def loop(self) -> bool:
        return len(self.equations) > 1


@dataclass(frozen=True)
class CatalogUse:
    kind: str  # 'gpu' | 'llm' | an import alias
    id: str
    title: str
    values: tuple[tuple[str, str, str, Shown], ...]  # (reference, latex symbol, description, value)


@dataclass(frozen=True)
class Input:
    name: str
    description: str
    value: Shown
    source: str  # 'default', 'given', or the reference it comes from ('llm.weight_bytes')


@dataclass(frozen=True)
class TableView:
    name: str
    about: str
    columns: tuple  # ir.Column
    rows: tuple[tuple[str, ...], ...]  # display text per cell


@dataclass(frozen=True)
class Rounding:
    kind: str  # 'floor' | 'ceiling' | 'edge' | 'none'
    step: Shown | None
    boundary: Shown
    value: Shown
    stepped_back: bool = False  # a strict condition moved the answer one step


@dataclass(frozen=True)
class QuestionView:
    question: Question
    variable: Variable
    steps: tuple[Step, ...]  # the boundary's derivation (only the steps the answer needs)
    closed_form: sp.Expr | None  # the boundary in terms of inputs only, when there is one
    rounding: Rounding
    answer: Answer


@dataclass(frozen=True)
class Expected:
    label: str
    written: str
    got: Shown
    ok: bool


@dataclass(frozen=True)
class CheckView:
    check: Check
    given: tuple[tuple[str, Shown], ...]
    expected: tuple[Expected, ...]
    that_ok: bool | None
    ok: bool
    error: str = ""


@dataclass
class Sheet:
    model: Model
    solution: Solution
    catalog: list[CatalogUse]
    inputs: list[Input]
    steps: list[Step]
    tables: list[TableView]
    questions: list[QuestionView]
    checks: list[CheckView]
    sweeps: list[SweepResult] = field(default_factory=list)
    gpu: str | None = None
    llm: str | None = None


# --- building it ------------------------------------------------------------------------------------


def shown(q: Quantity, base_value, digits: int | None = None) -> Shown:
    x = display(base_value, q.factor)  # a float, or exact where a float cannot hold it (1e400 is not inf)
    value = float(x) if isinstance(x, float) else (math.inf if x > 0 else -math.inf) if abs(x) > 1 else 0.0
    return Shown(fmt(x, digits), q.unit, value, bool(x < 0))


def _aggregate_symbol(model: Model, node: AppliedUndef) -> sp.Symbol:
    agg = model.aggregates[node.func.__name__]
    what = f"{agg.table}.{agg.column}" if agg.column else agg.table
    return sp.Symbol(f"{agg.kind}({what})", real=True)


def aggregate_info(model: Model, node: AppliedUndef):
    """(kind, table, column or None) of an aggregate function node, or None for another function."""
    agg = model.aggregates.get(node.func.__name__)
    return (agg.kind, agg.table, agg.column) if agg else None


# --- unit literals ------------------------------------------------------------------------------------
# A model writes `output_tokens - 1[token]`; in base units the literal is the bare number 1,
# so a printed substitution would read "300 token - 1". `restore` puts the unit back: it
# walks the expression with the dimension each part must have and turns a number that
# stands for a quantity into a literal symbol printed as "1 token".

LITERALS: dict[str, Shown] = {}  # literal symbol name -> its value; names are derived from the value, so stable
BASE_UNITS = {"[token]": "token", "[request]": "request", "[time]": "s", "[information]": "bit", "[compute]": "FLOP", "[currency]": "USD"}


def _literal(value: sp.Expr, dim, hint: Quantity | None) -> sp.Expr:
    if dim is None or dim == DIMENSIONLESS or value == 0:
        return value
    sign = -1 if value < 0 else 1
    value = abs(value)
    if hint is not None and hint.dim == dim:
        shown_ = Shown(fmt(value / hint.factor), hint.unit, float(value / hint.factor))
    else:
        num = [BASE_UNITS.get(k, k.strip("[]")) + (f"^{_power(v)}" if v != 1 else "") for k, v in sorted(dim.items()) if v > 0]
        den = [BASE_UNITS.get(k, k.strip("[]")) + (f"^{_power(-v)}" if v != -1 else "") for k, v in sorted(dim.items()) if v < 0]
        unit = "*".join(num) or "1"
        if den:
            unit += "/" + "/".join(den)
        shown_ = Shown(fmt(value), unit, float(value))
    name = f"\x00{shown_.text} {shown_.unit}"
    LITERALS[name] = shown_
    sym = sp.Symbol(name, positive=True)
    return sym if sign > 0 else -sym


def _power(v) -> str:
    """A unit's exponent as written: 2, not 2.0 (pint keeps exponents as floats); 1/2 stays 0.5."""
    return str(int(v)) if float(v) == int(v) else str(v)


class _Dims:
    """Dimensions of the model's symbols, and the unit-literal restoration that uses them."""

    def __init__(self, model: Model):
        self.model = model
        self.of: dict = {}
        for q in (*model.variables.values(), *model.params.values()):
            self.of[q.sym] = q
        for t in model.tables.values():
            for c in t.columns:
                self.of[c.sym] = c
                if c.prev is not None:
                    self.of[c.prev] = c

    def natural(self, e):
        if e.is_Number or e.is_NumberSymbol:
            return DIMENSIONLESS
        if e.is_Symbol:
            if e.name in LITERALS:
                return None
            q = self.of.get(e)
            return q.dim if q is not None else DIMENSIONLESS
        if isinstance(e, sp.Add | sp.Min | sp.Max):
            dims = [self.natural(t) for t in e.args if t.free_symbols]
            dims = [d for d in dims if d is not None]
            return max(dims, key=dims.count) if dims else DIMENSIONLESS
        if isinstance(e, sp.Mul):
            out = DIMENSIONLESS
            for f in e.args:
                d = self.natural(f)
                if d is None:
                    return None
                out = out * d
            return out
        if isinstance(e, sp.Pow):
            d = self.natural(e.base)
            if d is None or not e.exp.is_Rational:
                return d
            from fractions import Fraction

            return d ** Fraction(int(e.exp.p), int(e.exp.q))
        if isinstance(e, sp.Piecewise):
            for branch, _ in e.args:
                if branch.free_symbols:
                    return self.natural(branch)
            return DIMENSIONLESS
        if isinstance(e, AppliedUndef):
            agg = self.model.aggregates.get(e.func.__name__)
            if agg is None or agg.column is None:
                return DIMENSIONLESS
            return next(c.dim for c in self.model.tables[agg.table].columns if c.name == agg.column)
        return DIMENSIONLESS

    def hint(self, e, dim):
        for t in e.args if isinstance(e, sp.Add) else ():
            for s in sorted(t.free_symbols, key=sp.default_sort_key):
                q = self.of.get(s)
                if q is not None and q.dim == dim and q.unit:
                    return q
        return None

    def restore(self, e, want=None, hint=None):
        if e.is_Number:
            return _literal(e, want, hint) if want is not None else e
        if e.is_Atom or isinstance(e, AppliedUndef):
            return e
        if isinstance(e, sp.Add):
            want = want if want is not None else self.natural(e)
            h = self.hint(e, want) or hint
            terms = sorted(e.args, key=lambda t: bool(t.could_extract_minus_sign()))  # a positive term first
            return sp.Add(*[self.restore(t, want, h) for t in terms], evaluate=False)
        if isinstance(e, sp.Mul):
            coeff, rest = e.as_coeff_Mul()
            factors = [self.restore(f, self.natural(f)) for f in sp.Mul.make_args(rest)]
            nd = self.natural(rest) if rest != 1 else None
            if want is not None and nd is not None and nd != want and coeff.is_Number:
                ratio = want / nd
                if all(v < 0 for _, v in ratio.items()):  # a literal divided by: decoding / tpot / 1[request]
                    lit = _literal(1 / abs(coeff), 1 / ratio, None)
                    sign = [sp.Integer(-1)] if coeff < 0 else []
                    return sp.Mul(*sign, *factors, sp.Pow(lit, -1, evaluate=False), evaluate=False)
                lit = _literal(abs(coeff), ratio, None)
                sign = [sp.Integer(-1)] if coeff < 0 else []
                return sp.Mul(*sign, *factors, lit, evaluate=False)
            if rest == 1 and want is not None:
                return _literal(coeff, want, hint)
            return sp.Mul(coeff, *factors, evaluate=False) if coeff != 1 else sp.Mul(*factors, evaluate=False)
        if isinstance(e, sp.Pow):
            return sp.Pow(self.restore(e.base, self.natural(e.base)), e.exp, evaluate=False)
        if isinstance(e, sp.Piecewise):
            return sp.Piecewise(*[(self.restore(b, want, hint), self.restore(c)) for b, c in e.args], evaluate=False)
        if isinstance(e, sp.core.relational.Relational):
            dl, dr = self.natural(e.lhs), self.natural(e.rhs)
            d = dl if e.lhs.free_symbols else dr
            return e.func(self.restore(e.lhs, d), self.restore(e.rhs, d), evaluate=False)
        if isinstance(e, sp.Min | sp.Max):
            want = want if want is not None else self.natural(e)
            return e.func(*[self.restore(a, want) for a in e.args], evaluate=False)
        if isinstance(e, sp.Function):
            return e.func(*[self.restore(a, self.natural(a)) for a in e.args], evaluate=False)
        if isinstance(e, sp.And | sp.Or | sp.Not):
            return e.func(*[self.restore(a) for a in e.args], evaluate=False)
        return e


def derive(solution: Solution, only: set[str] | None = None) -> list[Step]:
    """The plan's steps with their numbers; `only` keeps the steps that compute these names and what they need."""
    m = solution.model
    dims = _Dims(m)
    steps = list(solution.plan.steps)
    if only is not None:
        steps = _needed(m, steps, only)
    by_sym = {q.sym: q for q in (*m.variables.values(), *m.params.values())}
    out = []
    for k, st in enumerate(steps, 1):
        if st.method == "numeric":
            forms = ()
        else:
            forms = tuple((n, solution.formulas.get(n, st.candidates[0][n])) for n in st.unknowns)
        rearranged = st.method == "solve" or any(not (e.lhs == m.variables[n].sym) for (n, _), e in zip(forms, st.equations))
        forms = tuple((n, dims.restore(f, m.variables[n].dim)) for n, f in forms)
        stated = tuple((dims.restore(e.lhs, _side_dim(dims, e.lhs, e.rhs)), dims.restore(e.rhs, _side_dim(dims, e.rhs, e.lhs))) for e in st.equations)
        values: dict = {}
        subs = []
        for n, form in forms:
            replaced = form
            if form.has(AppliedUndef):
                mapping = {}
                for node in sorted(form.atoms(AppliedUndef), key=sp.default_sort_key):
                    sym = _aggregate_symbol(m, node)
                    mapping[node] = sym
                    agg = m.aggregates[node.func.__name__]
                    value = solution.values[node.func.__name__]
                    if agg.column:
                        col = next(c for c in m.tables[agg.table].columns if c.name == agg.column)
                        values[sym] = shown(col, value)
                    else:
                        values[sym] = Shown(fmt(value), "", float(value), bool(value < 0))
                replaced = form.xreplace(mapping)
            for sym in sorted(replaced.free_symbols, key=sp.default_sort_key):
                q = by_sym.get(sym)
                if q is not None and q.name in solution.values:
                    values[sym] = shown(q, solution.values[q.name])
            subs.append((n, replaced))
        how = solution.numeric.get(st.unknowns[0], "") if st.method == "numeric" else ""
        results = tuple((n, shown(m.variables[n], solution.values[n], m.variables[n].digits)) for n in st.unknowns)
        out.append(Step(k, st.unknowns, st.method, st.equations, stated, forms, rearranged, how, tuple(subs), values, results))
    return out


def _side_dim(dims: _Dims, side, other):
    """The dimension an equation's side must have: the other side's, when that is a plain quantity."""
    if other.is_Symbol and other.free_symbols:
        return dims.natural(other)
    return dims.natural(side) if side.free_symbols else dims.natural(other)


def _needed(model: Model, steps: list, names: set[str]) -> list:
    """The steps that compute `names`, and the steps those depend on, in order."""
    sym_to_name = {v.sym: n for n, v in model.variables.items()}
    want = set(names)
    keep = []
    for st in reversed(steps):
        if want & set(st.unknowns):
            keep.append(st)
            for e in st.equations:
                for expr in (e.lhs, e.rhs):
                    want |= {sym_to_name[s] for s in expr.free_symbols if s in sym_to_name}
                    for node in expr.atoms(AppliedUndef):
                        want |= {sym_to_name[s] for s in node.free_symbols if s in sym_to_name}
    return list(reversed(keep))


def closed_form(solution: Solution, name: str) -> sp.Expr | None:
    """`name`'s formula with every computed variable replaced by its own formula: an expression of inputs."""
    m = solution.model
    syms = {v.sym: n for n, v in m.variables.items()}
    expr = solution.formulas.get(name)
    if expr is None:
        return None
    for _ in range(len(m.variables) + 1):
        repl = {s: solution.formulas[n] for s, n in syms.items() if s in expr.free_symbols and n in solution.formulas and n != name}
        if not repl:
            break
        expr = sp.simplify(expr.xreplace(repl))
    if any(syms.get(s) in solution.numeric for s in expr.free_symbols):
        return None
    return expr


def _question(model: Model, q: Question, a: Answer) -> QuestionView:
    var = model.variables[q.find]
    steps: tuple[Step, ...] = ()
    form = None
    if a.boundary_solution is not None:
        steps = tuple(derive(a.boundary_solution, {q.find}))
        form = closed_form(a.boundary_solution, q.find)
        if form is not None and form == a.boundary_solution.formulas.get(q.find):
            form = None  # nothing more to say
    b = shown(var, a.boundary)
    v = shown(var, a.value, var.digits)
    r = a.rounding
    if r.how in ("floor", "ceiling"):
        rounding = Rounding(r.how, shown(var, r.step), b, v, r.stepped_back)
    elif r.how == "edge":
        rounding = Rounding("edge", None, b, v)
    else:
        rounding = Rounding("none", None, b, v)
    return QuestionView(q, var, steps, form, rounding, a)


def _check(model: Model, o: CheckOutcome) -> CheckView:
    """A check's comparisons as the sheet shows them (the Report's outcome)."""
    c = o.check
    given = tuple((n, shown(model.variables[n], v)) for n, v in c.given)
    if o.error is not None:
        return CheckView(c, given, (), None, False, o.error.message)
    expected = tuple(Expected(e.label.replace(" -> ", ": "), e.written, shown(model.variables[e.name], e.got), e.ok) for e in o.expected)
    return CheckView(c, given, expected, o.that_ok, o.ok)


def sheet(report: Report, sweeps: bool = True) -> Sheet:
    """Everything a derivation sheet shows, from one Report (the model on its hardware or the one chosen)."""
    model, s = report.model, report.solution
    catalog = []
    for kind, entry in (("gpu", s.gpu), ("llm", s.llm)):
        if entry is None:
            continue
        vals = tuple((n, p.latex, p.description, shown(p, s.values[n])) for n, p in sorted(model.params.items()) if p.source == kind)
        catalog.append(CatalogUse(kind, entry.id, entry.title, vals))
    for alias, other in model.imports:
        vals = tuple((n, p.latex, p.description, shown(p, s.values[n])) for n, p in sorted(model.params.items()) if p.source == alias)
        catalog.append(CatalogUse(alias, other.name, other.title, vals))
    inputs = []
    for n, v in model.variables.items():
        if n not in s.known:
            continue
        source = "given" if n in s.given else "default"
        if v.default is not None and v.default.is_Symbol and v.default.name in model.params:
            source = v.default.name
        inputs.append(Input(n, v.description, shown(v, s.values[n], v.digits), source))
    tables = []
    for name, rows in s.tables.items():
        t = model.tables[name]
        cells = tuple(tuple(fmt(c.to_display(r[c.name])) for c in t.columns) for r in rows)
        tables.append(TableView(name, t.about, t.columns, cells))
    questions = []
    for name, q in model.questions.items():
        a = report.answers[name]
        if isinstance(a, ChaincError):
            raise a
        questions.append(_question(model, q, a))
    checks = [_check(model, o) for o in report.checks]
    results = list(report.sweeps.values()) if sweeps else []
    return Sheet(model, s, catalog, inputs, derive(s), tables, questions, checks, results, s.gpu.id if s.gpu else None, s.llm.id if s.llm else None)


# --- plain text: `chainc solve --explain` -----------------------------------------------------------


class TextPrinter(StrPrinter):
    """Expressions the way a model file writes them, with variables by name (or by value)."""

    def __init__(self, model: Model, values: dict | None = None):
        super().__init__({"order": "none"})
        self.model = model
        self.values = values or {}

    def _print_Symbol(self, expr):
        if expr.name in LITERALS:
            return str(LITERALS[expr.name])
        if expr in self.values:
            v = self.values[expr]
            return f"({v})" if v.negative or "/" in v.unit or "*" in v.unit else str(v)
        return expr.name.split("#")[0]  # a sum's index, 'k#12.4', is unique by its place; it prints as k

    def _print_Sum(self, expr, fn="sum"):
        body, (k, lo, hi) = expr.args[0], expr.limits[0]
        return f"{fn}({self._print(body)} for {self._print(k)} in range({self._print(lo)}, {self._print(hi + 1)}))"

    def _print_Product(self, expr):
        return self._print_Sum(expr, "prod")

    def _print_Piecewise(self, expr):
        (a, cond), *rest = expr.args
        other = rest[0][0] if len(rest) == 1 and rest[0][1] == sp.true else sp.Piecewise(*rest)
        return f"if({self._print(cond)}, {self._print(a)}, {self._print(other)})"

    def _print_ceiling(self, expr):
        return f"ceil({self._print(expr.args[0])})"

    def _print_floor(self, expr):
        return f"floor({self._print(expr.args[0])})"

    def _print_Min(self, expr):
        return "min(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Max(self, expr):
        return "max(" + ", ".join(self._print(a) for a in expr.args) + ")"

    def _print_Function(self, expr):
        info = aggregate_info(self.model, expr) if isinstance(expr, AppliedUndef) else None
        if info:
            kind, table, column = info
            return f"{kind}({table}.{column})" if column else f"{kind}({table})"
        return super()._print_Function(expr)


def text_step(model: Model, step: Step) -> list[str]:
    """A step as lines of plain text (without the heading)."""
    plain = TextPrinter(model)
    lines = [f"{plain.doprint(lhs)} = {plain.doprint(rhs)}" for lhs, rhs in step.stated]
    if step.method == "numeric":
        lines.append(f"solved numerically for {', '.join(step.unknowns)} ({step.how or 'bracketed root search'})")
    for (n, form), (_, sub) in zip(step.forms, step.substitutions):
        if step.rearranged:
            lines.append(f"solving for {n}: {n} = {plain.doprint(form)}")
        if sub.free_symbols and not sub.is_Symbol:
            lines.append(f"  = {TextPrinter(model, step.values).doprint(sub)}")
    for n, v in step.results:
        lines.append(f"{n} = {v}")
    return lines


def text_lines(solution: Solution) -> list[str]:
    """The derivation of a solution as plain text, one block per step."""
    out = []
    m = solution.model
    for step in derive(solution):
        where = step.equations[0].loc
        title = ", ".join(step.unknowns)
        desc = "; ".join(m.variables[n].description for n in step.unknowns if m.variables[n].description)
        out.append(f"step {step.number}: {title}" + (f" ({desc})" if desc else "") + f"   [{where}]")
        about = "; ".join(e.about for e in step.equations if e.about)
        if about:
            out.append(f"  {about}")
        out += [f"  {line}" for line in text_step(m, step)]
        out.append("")
    return out
