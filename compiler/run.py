"""Running a Program: expressions compiled to closures, statements executed in order, no SymPy.

Arithmetic is Python's own: exact Fractions while a value's fraction is short (the
model's decimals are exact, so the card's chains compute exactly), binary floats once
it grows long (bounded.SHORT_BITS: a chain of decimal coefficients would otherwise
grow its numerators with every equation). Roots, logarithms and exponentials give
floats. A decision that a carried float could get wrong (a floor, a ceiling or a
comparison within a few ulps of its edge) redoes the run exactly (`Exactly`). The rules that generated code must
follow too (domains, picking a root, table rows, bracketed searches) are the
runtime's (compiler/runtime/), called here and copied there. Anything that is not
a finite real number where the model is evaluated raises SolveError at the
statement's place, naming the values it used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from . import bounded as B
from . import deadline
from . import program as P
from .closures import _FAILURES, _LOCATED, Env, Exactly, Fn, _carried, compile_expr, compile_residual, hoist
from .errors import LimitError, SolveError
from .located import _value, located, shown_values
from .runtime import values as V
from .runtime.roots import Beyond, root_1d


@dataclass(frozen=True)
class Result:
    values: dict  # name -> number (base units)
    tables: dict  # table -> list of rows (column -> number)
    notes: tuple = ()  # what a reader must know about the values (several roots, an interval of solutions)


class State:
    """What a run collects besides values: tables' rows and notes."""

    def __init__(self):
        self.tables: dict = {}
        self.notes: list = []


class Runner:
    """A Program compiled once: call it with the inputs' values (base units)."""

    def __init__(self, program: P.Program):
        self.program = program
        self.domains = program.domains
        self.body = [self._compile(s) for s in program.body]

    def __call__(self, inputs: Env) -> Result:
        """Values exact while short (floats past that); redone exactly where a decision needs the digits."""
        saved = B.short, B.shortened, B.strict
        try:
            B.short, B.shortened, B.strict = B.SHORT_BITS, False, False
            try:
                return self._run(inputs)
            except Exactly:  # exact up to the digits limit, and no decision is redone again
                B.short, B.shortened, B.strict = int(B.limit * 3.33), False, True
                return self._run(inputs)
        finally:
            B.short, B.shortened, B.strict = saved

    def _run(self, inputs: Env) -> Result:
        env: Env = dict(inputs)
        state = State()
        for s, run in zip(self.program.body, self.body):
            try:
                deadline.check()  # the alarm's stand-in outside the main thread
                run(env, state)
            except B.LimitReached as e:  # one a statement did not locate itself (a candidate root's, a guard's)
                raise LimitError(e.message, s.site.loc if hasattr(s, "site") else None, e.hint) from None
        return Result(env, state.tables, tuple(dict.fromkeys(state.notes)))

    # each statement becomes a function (env, state) -> None
    def _compile(self, s):
        return getattr(self, "_" + type(s).__name__.lower())(s)

    def _assign(self, s: P.Assign):
        f, name, refs = compile_expr(s.expr), s.name, tuple(P.refs(s.expr))

        def run(env, state):
            try:
                env[name] = _value(_carried(f, env, refs), name)
            except _LOCATED as e:
                raise located(s.site, e, s.expr, env, self.domains) from None

        return run

    def _guard(self, s: P.Guard):
        d, w = compile_expr(s.divisor), compile_expr(s.when)
        message, hint, names = P.guard_words(s)

        def run(env, state):
            try:
                zero = w(env) and d(env) == 0
            except _FAILURES:
                return  # the value itself failed already, or will be reported where it is computed
            if zero:
                values = shown_values(names, env, self.domains)
                raise SolveError(message + (f" ({values})" if values else ""), s.site.loc, hint)

        return run

    def _check(self, s: P.Check):
        name, dom = s.name, self.domains[s.name]

        def run(env, state):
            v = env[name]
            if not V.admits(v, *dom.bounds):
                shown = f"{name} = {V.shown(v / dom.factor)} {dom.unit}".rstrip()
                raise SolveError(f"{shown} is outside its domain ({dom.text})", s.site.loc, f"from {s.site.what}; check the inputs")

        return run

    def _pick(self, s: P.Pick):
        cands = [[compile_expr(e) for e in c] for c in s.candidates]
        names = s.names
        doms = [self.domains[n].bounds for n in names]

        def run(env, state):
            options = []
            for c in cands:
                try:
                    options.append(tuple(f(env) for f in c))
                except _FAILURES:
                    options.append(None)
            try:
                chosen = V.pick(options, ", ".join(names), doms, s.site.what)
            except V.ChainError as e:
                shown = "; ".join(", ".join(f"{n} = {V.shown(v / self.domains[n].factor)}" for n, v in zip(names, o)) for o in options if o is not None)
                hint = f"the roots ({shown}) fall outside the domain ({', '.join(self.domains[n].text for n in names)})" if "no admissible" in e.message else e.hint
                raise SolveError(e.message, s.site.loc, hint) from None
            for n, v in zip(names, chosen):
                env[n] = _value(v, n)

        return run

    def _loop(self, s: P.Loop):
        rows_f = compile_expr(s.rows)
        t = s.table
        row_names = {f"{t}.i"} | {f"{t}.{c.name}" for c in s.columns} | {f"{t}.prev.{c.name}" for c in s.columns}
        hoisted: dict = {}  # loop-invariant parts of the formulas, computed once per table instead of per row
        fast = [hoist(c.expr, row_names, hoisted, f"{t}.$") for c in s.columns]
        invariant = [(k, compile_expr(e)) for k, e in hoisted.items()]
        cols = [(c.name, compile_expr(c.expr), compile_expr(c.initial), c, [(compile_expr(g.divisor), compile_expr(g.when)) for g in c.guards]) for c in s.columns]
        cols_fast = [(name, compile_expr(e), init, c, guards) for (name, _, init, c, guards), e in zip(cols, fast)]
        index, names = f"{t}.i", [c.name for c in s.columns]
        keys = {n: f"{t}.{n}" for n in names}
        prev = {n: f"{t}.prev.{n}" for n in names}
        aggs = [(name, kind, col) for name, kind, col in s.aggregates]

        def run(env, state):
            try:
                n = V.rows(rows_f(env), t, s.rows_text, s.max_rows)
            except V.ChainError as e:
                raise SolveError(e.message, s.site.loc, e.hint) from None
            except _LOCATED as e:
                raise located(s.site, e, s.rows, env, self.domains, f"the row count of table '{t}': rows = {s.rows_text}") from None
            scope = dict(env)
            for name, _, init, c, _ in cols:
                try:
                    scope[prev[name]] = _value(init(env), f"the initial {name}")
                except _LOCATED as e:
                    raise located(c.site, e, c.initial, env, self.domains, f"the initial {name} of table '{t}'") from None
            out = []
            use = cols
            if n and invariant:
                try:
                    for k, f in invariant:
                        scope[k] = f(scope)
                    use = cols_fast
                except _FAILURES:
                    pass  # evaluated in place instead, where the failure is reported at its column
            for i in range(1, n + 1):
                scope[index] = i
                row = {}
                for name, f, _, c, guards in use:
                    try:
                        v = _value(f(scope), name)
                    except _LOCATED as e:
                        raise located(c.site, e, c.expr, scope, self.domains, f"table '{t}', row {i}: {c.site.what}") from None
                    for (d, w), g in zip(guards, c.guards):
                        if w(scope) and d(scope) == 0:
                            values = shown_values(P.refs(g.divisor), scope, self.domains)
                            raise SolveError(f"division by zero in table '{t}', row {i}: {c.site.what}" + (f" ({values})" if values else ""), c.site.loc, f"the divisor {P.text(g.divisor)} is 0 here")
                    scope[keys[name]] = row[name] = v
                out.append(row)
                for name in names:
                    scope[prev[name]] = row[name]
            state.tables[t] = out
            for name, kind, col in aggs:
                try:
                    env[name] = V.aggregate(kind, [r[col] for r in out] if col else out, f"{kind}({t}.{col})" if col else f"count({t})")
                except V.ChainError as e:
                    raise SolveError(e.message, s.site.loc, e.hint) from None

        return run

    def _search(self, s: P.Search):
        body = [self._compile(x) for x in s.body]
        residuals = [compile_residual(r) for r in s.residuals]
        starts = [compile_expr(x) if x is not None else None for x in s.starts]
        tears = s.tears

        def trial(env, state, xs) -> tuple[Env, list]:
            sub = dict(env)
            for n, x in zip(tears, xs):
                sub[n] = x
            for run in body:
                run(sub, state)
            out = []
            for r, expr in zip(residuals, s.residuals):
                try:
                    out.append(float(_value(r(sub), "the residual")))
                except _FAILURES as e:  # at the root found (a float): a sum's bound that is no whole number there
                    raise located(s.site, e, expr, sub, self.domains) from None
            return sub, out

        def run(env, state):
            start_values = []
            for f in starts:
                try:
                    start_values.append(float(f(env)) if f is not None else None)
                except _FAILURES:
                    start_values.append(None)
            limited: list[LimitError] = []  # trial points a limit kept from being evaluated
            if len(tears) == 1:  # trial points are floats (a search is approximate and exact powers of them are costly)
                x = self._root_1d(s, lambda x: _quiet(lambda: trial(env, State(), [x])[1][0], limited), start_values[0], state.notes, limited)
                xs = [_exact(x)]
            else:
                xs = self._root_nd(s, lambda *v: _quiet_vec(lambda: trial(env, State(), [_exact(float(x)) for x in v])[1], len(residuals), limited), start_values, limited)
            final, _ = trial(env, state, xs)
            env.update(final)

        return run

    def _root_1d(self, s: P.Search, f, start, notes: list, limited: list):
        """The runtime's 1-D rule (the root nearest the start, checked against a scan of the domain), located.

        Where no root is found and a limit kept some trial points from being evaluated, the error is that
        limit's: the root may lie there."""
        dom = self.domains[s.tears[0]]
        try:
            root, found = root_1d(f, start, float(dom.factor), dom.kind, _float(dom.lo), _float(dom.hi), s.tears[0], dom.unit, s.site.what, s.tears[0] in s.whole)
        except V.ChainError as e:
            if limited:
                raise LimitError(f"{e.message}; trial points past a limit were not evaluated: {limited[0].message}", s.site.loc, f"{e.hint}; {limited[0].hint}") from None
            raise SolveError(e.message, s.site.loc, e.hint) from None
        notes.extend(found)
        return root

    def _root_nd(self, s: P.Search, f, starts, limited: list):
        import mpmath  # only numeric blocks of several unknowns need it

        guess = [x if x is not None else float(self.domains[n].factor) for n, x in zip(s.tears, starts)]
        try:
            root = mpmath.findroot(f, guess, tol=1e-24)
        except (ValueError, ZeroDivisionError, TypeError) as e:  # TypeError: a Jacobian of NaNs has no pivot
            if limited:
                raise LimitError(f"no numeric solution for {', '.join(s.tears)} jointly; trial points past a limit were not evaluated: {limited[0].message}", s.site.loc, limited[0].hint) from None
            raise SolveError(f"no numeric solution for {', '.join(s.tears)} jointly: {e}", s.site.loc, "give better defaults as starting points, or reformulate") from None
        return [_exact(float(r)) for r in (root if len(s.tears) > 1 else [root])]


def _exact(x: float):
    return Fraction(x) if math.isfinite(x) else x


def _float(x):
    """A domain edge as the float search sees it: one beyond float range (max: 1e400) is no edge at all."""
    if x is None:
        return None
    try:
        return float(x)
    except OverflowError:
        return math.copysign(math.inf, x)


def _quiet(f, limited: list) -> float:
    """A residual at a trial point; a point where the model has no value is nan (stepped over).

    A trial point is a float guess: its decisions are not redone exactly, nor are its overflows
    (the root found is evaluated again as a statement of the run, where they are).
    """
    saved = B.probing
    B.probing = True
    try:
        return f()
    except (LimitError, B.LimitReached) as e:  # not "no value here": the search must not close in on it (runtime.roots.probing)
        deadline.check()  # the time budget stops the search at once
        limited.append(e if isinstance(e, LimitError) else LimitError(e.message, None, e.hint))  # named if no root is found
        raise Beyond(getattr(e, "message", str(e))) from None
    except (SolveError, *_FAILURES):
        return math.nan
    finally:
        B.probing = saved


def _quiet_vec(f, n: int, limited: list) -> list:
    v = _quiet(f, limited)
    return [math.nan] * n if type(v) is float else v


EXACT_SUM_BITS = 4096  # the exact rerun's bound on a sum's running total (beyond it: floats, as before)


@lru_cache(maxsize=1024)
def runner(program: P.Program) -> Runner:
    return Runner(program)


@lru_cache(maxsize=4096)
def _compiled(e: P.Expr) -> Fn:
    return compile_expr(e)


def evaluate(e: P.Expr, env: Env):
    """One expression at some values (a check's relation, a question's condition)."""
    try:
        return _compiled(e)(env)
    except B.LimitReached as x:  # outside a statement: still a limit, by name (the caller may locate it)
        raise LimitError(x.message, None, x.hint) from None


@lru_cache(maxsize=4096)
def _assigner(s: P.Assign):
    return Runner(P.Program("", (), (), ()))._assign(s)


def run_assign(s: P.Assign, env: Env) -> None:
    """One assignment into env (an input's default from catalog values)."""
    _assigner(s)(env, {})
