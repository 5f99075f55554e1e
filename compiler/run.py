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
import operator
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from . import bounded as B
from . import program as P
from .errors import SolveError
from .runtime import values as V
from .runtime.roots import root_1d

Env = dict
Fn = Callable[[Env], object]

_CMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
_CONST = {"pi": math.pi, "E": math.e, "I": 1j}
_FAILURES = (ArithmeticError, ValueError, TypeError, V.ChainError)


def _minmax(fn):
    def f(*xs):
        if any(isinstance(x, complex) or x != x for x in xs):
            raise ValueError(f"{fn.__name__}() of a value that is not a real number")
        return fn(xs)

    return f


class Exactly(Exception):
    """A decision on a value carried as a float lies within rounding of its edge: the run is redone exactly."""


def _near(a, b) -> bool:
    """a and b within a few ulps, where one of them is a float the run carried instead of an exact value."""
    return B.shortened and not B.strict and not B.probing and (type(a) is float or type(b) is float) and abs(a - b) <= 8 * math.ulp(max(abs(a), abs(b)))


def _floor(x):
    if type(x) is float and _near(x, round(x)):
        raise Exactly
    return math.floor(x)


def _ceil(x):
    if type(x) is float and _near(x, round(x)):
        raise Exactly
    return math.ceil(x)


_CALLS = {
    "floor": _floor,
    "ceil": _ceil,
    "abs": abs,
    "sqrt": B.sqrt,
    "exp": B.exp,
    "log": B.log,
    "min": _minmax(min),
    "max": _minmax(max),
    "lambertw": V.lambertw,
    "factorial": B.factorial,
    "gamma": B.gamma,
}


def compile_expr(e: P.Expr) -> Fn:
    """An expression as a closure over an environment of values (name -> number)."""
    t = type(e)
    if t is P.Num:
        v = e.value.numerator if e.value.denominator == 1 else e.value
        return lambda env: v
    if t is P.Ref:
        name = e.name
        return lambda env: env[name]
    if t is P.Const:
        c = _CONST[e.name]
        return lambda env: c
    if t is P.Add:
        fs = [compile_expr(a) for a in e.args]
        if len(fs) == 2:
            a, b = fs
            return lambda env: a(env) + b(env)
        return lambda env: _fold(operator.add, fs, env)
    if t is P.Mul:
        # a * b**-1 * c as (a * c) / b: one division instead of a reciprocal and a product
        over, fs = [], []
        for a in e.args:
            if type(a) is P.Pow and type(a.exp) is P.Num and a.exp.value == -1:
                over.append(compile_expr(a.base))
            elif type(a) is P.Num and a.value.denominator != 1:  # 1/2 * x as x / 2: whole numbers stay ints until then
                if a.value.numerator != 1:
                    fs.append(compile_expr(P.Num(Fraction(a.value.numerator))))
                over.append(compile_expr(P.Num(Fraction(a.value.denominator))))
            else:
                fs.append(compile_expr(a))
        num = fs[0] if len(fs) == 1 else (lambda env, fs=fs: _fold(operator.mul, fs, env)) if fs else (lambda env: 1)
        if len(fs) == 2:
            a, b = fs
            num = lambda env: a(env) * b(env)  # noqa: E731
        if not over:
            return num
        den = over[0] if len(over) == 1 else (lambda env, over=over: _fold(operator.mul, over, env))
        return lambda env: _divide(num(env), den(env))
    if t is P.Pow:
        base = compile_expr(e.base)
        if type(e.exp) is P.Num and e.exp.value == -1:
            return lambda env: _reciprocal(base(env))
        if type(e.exp) is P.Num and e.exp.value.denominator == 1 and abs(e.exp.value) <= 64:
            n = e.exp.value.numerator
            return lambda env: _small_power(base(env), n)
        ex = compile_expr(e.exp)
        return lambda env: B.power(base(env), ex(env))
    if t is P.Call:
        fn = _CALLS[e.fn]
        fs = [compile_expr(a) for a in e.args]
        if len(fs) == 1:
            (a,) = fs
            return lambda env: fn(a(env))
        return lambda env: fn(*[f(env) for f in fs])
    if t is P.Cmp:
        op, a, b = _CMP[e.op], compile_expr(e.left), compile_expr(e.right)
        return lambda env: _compare(op, a(env), b(env))
    if t is P.Logic:
        fs = [compile_expr(a) for a in e.args]
        if e.op == "not":
            (a,) = fs
            return lambda env: not a(env)
        if e.op == "and":
            return lambda env: all(f(env) for f in fs)
        return lambda env: any(f(env) for f in fs)
    if t is P.Choice:
        pieces = [(compile_expr(v), compile_expr(c)) for v, c in e.pieces]
        return lambda env: _choose(pieces, env)
    if t is P.Sum:
        lo, hi, body, k, add = compile_expr(e.lo), compile_expr(e.hi), compile_expr(e.body), e.index, e.kind == "sum"
        return lambda env: _finite(add, k, _whole(lo(env), "lower"), _whole(hi(env), "upper"), body, env)
    raise TypeError(f"no runner for {t.__name__}")


def compile_residual(e: P.Expr) -> Fn:
    """A numeric block's residual: its terms summed by the runtime's exact_sum (as generated code sums them)."""
    if type(e) is not P.Add or len(e.args) < 2:
        return compile_expr(e)
    fs = [compile_expr(a) for a in e.args]
    return lambda env: V.exact_sum([f(env) for f in fs])


def hoist(e, row_names: set, found: dict, prefix: str):
    """e with its largest subexpressions that read no row value replaced by names (collected in `found`).

    A condition's branches are left alone: a branch that is not taken must not be evaluated.
    """
    if type(e) in (P.Num, P.Const, P.Ref) or type(e) is P.Choice:
        return e
    if not (P.refs(e) & row_names):
        name = next((k for k, v in found.items() if v == e), None) or f"{prefix}{len(found)}"
        found[name] = e
        return P.Ref(name)
    if type(e) in (P.Add, P.Mul, P.Call, P.Logic):
        return type(e)(*([e.fn] if type(e) is P.Call else [e.op] if type(e) is P.Logic else []), tuple(hoist(a, row_names, found, prefix) for a in e.args))
    if type(e) is P.Pow:
        return P.Pow(hoist(e.base, row_names, found, prefix), hoist(e.exp, row_names, found, prefix))
    if type(e) is P.Cmp:
        return P.Cmp(e.op, hoist(e.left, row_names, found, prefix), hoist(e.right, row_names, found, prefix))
    return e


def _whole(x, which: str) -> int:
    if type(x) is float and math.isfinite(x) and _near(x, round(x)):
        raise Exactly
    if isinstance(x, complex) or x != x or x % 1 != 0:
        raise B.Problem(f"the {which} bound of a sum is {V.shown(x)}, not a whole number", "a sum runs over whole numbers: wrap the bound in ceil() or floor()")
    return int(x)


def _finite(add: bool, k: str, lo: int, hi: int, body, env):
    """body summed (or multiplied) over k = lo .. hi; an empty range is 0 (or 1).

    The last term is computed first: where any term has no value it is most often the largest, and
    a search that probes a huge bound learns that at once instead of after a million terms. The
    total stays exact while its fraction is short (as every value of a run); past that it is
    summed in floats (math.fsum), or to 30 digits where its terms leave float range.
    """
    if hi - lo > 10**6:
        raise B.Problem(f"a sum of {hi - lo + 1:,} terms", "sums run over at most a million whole numbers")
    if hi < lo:
        return 0 if add else 1
    sub = dict(env)
    sub[k] = hi
    last = body(sub)
    total, n = (0 if add else 1), lo
    while n < hi:
        sub[k] = n
        total = total + body(sub) if add else total * body(sub)
        n += 1
        if add and type(total) is Fraction and total._denominator.bit_length() + total._numerator.bit_length() > min(B.short or EXACT_SUM_BITS, EXACT_SUM_BITS):
            B.shortened = True
            break  # 1/k! terms would grow the common denominator without end: the rest is summed in floats
    if n < hi:
        rest = [float(total)]
        try:
            while n < hi:
                sub[k] = n
                rest.append(float(body(sub)))
                n += 1
            total = Fraction(math.fsum(rest))
        except OverflowError:  # a term beyond float range: exact terms from there, the total carried to 30 digits
            total = B.rounded(total + Fraction(math.fsum(rest[1:])))
            for j in range(n, hi):
                sub[k] = j
                total = B.rounded(total + body(sub))
    return total + last if add else total * last


def _fold(op, fs, env):
    v = fs[0](env)
    for f in fs[1:]:
        v = op(v, f(env))
    return v


def _carried(f, env: Env, refs: tuple):
    """f at env; where a float the run carried leaves float range, f again from its inputs' exact values.

    Exact values have no range: past a float's, they go on as 30-digit approximations (bounded.rounded).
    """
    try:
        v = f(env)
        if type(v) is not float or math.isfinite(v) or not B.shortened or B.strict or B.probing:
            return v
    except OverflowError:
        if not B.shortened or B.strict or B.probing:
            raise
    saved = B.short, B.strict
    B.short, B.strict = int(B.limit * 3.33), True  # no part of this statement is carried as a float again
    try:
        v = f({**env, **{n: Fraction(env[n]) for n in refs if type(env.get(n)) is float and math.isfinite(env[n])}})
    finally:
        B.short, B.strict = saved
    return v


def _divide(a, b):
    if type(a) is int and type(b) is int:
        if B.short is not None and not B.strict and a.bit_length() + b.bit_length() > B.short:
            B.shortened = True
            return a / b  # a long quotient as a float: Python rounds int / int correctly, whatever their size
        return Fraction(a, b)
    return a / b


def _reciprocal(x):
    if isinstance(x, int):
        return Fraction(1, x)
    return 1 / x


def _small_power(x, n: int):
    if isinstance(x, int) and n < 0:
        return Fraction(x) ** n
    return x**n


def _compare(op, a, b) -> bool:
    for x in (a, b):
        if isinstance(x, complex) or x != x:
            raise ValueError("a comparison of a value that is not a real number")
    if _near(a, b):
        raise Exactly
    return op(a, b)


def _choose(pieces, env):
    for value, cond in pieces:
        if cond(env):
            return value(env)
    raise ValueError("no branch of a condition holds")


# --- statements ---------------------------------------------------------------------------------------


def diagnose(e: P.Expr, env: Env) -> tuple[str, str] | None:
    """The innermost part of `e` that has no value at env, as (problem, hint): what a person can act on."""
    if type(e) is P.Choice:  # only the conditions tried and the branch taken are evaluated
        for value, cond in e.pieces:
            found = diagnose(cond, env)
            if found:
                return found
            if compile_expr(cond)(env):
                return diagnose(value, env)
        return None
    for child in (e.lo, e.hi) if type(e) is P.Sum else P.children(e):  # a sum's terms need its index: the sum answers for them
        found = diagnose(child, env)
        if found:
            return found
    try:
        compile_expr(e)(env)
    except B.Problem as x:
        return x.message, x.hint
    except ZeroDivisionError:
        bases = [a.base for a in ((e,) if type(e) is P.Pow else e.args if type(e) is P.Mul else ()) if type(a) is P.Pow and type(a.exp) is P.Num and a.exp.value < 0]
        zero = next((b for b in bases if _quietly(b, env) == 0), None)
        return "division by zero", f"the divisor {P.text(zero)} is 0 here" if zero is not None else "a divisor is 0 here"
    except (ValueError, TypeError) as x:
        return (f"{x}", "check the inputs") if str(x) else ("no value", "check the inputs")
    except OverflowError:
        return "a value beyond any computable size", "check the inputs"
    except _FAILURES as x:
        return str(x), "check the inputs"
    return None


def _quietly(e, env):
    try:
        return compile_expr(e)(env)
    except _FAILURES:
        return None


def shown_values(names, env: Env, domains: dict) -> str:
    """'a = 2, c = -1': the variables a statement reads, in their display units."""
    out = []
    for n in sorted(names):
        if n in env and n in domains:
            d = domains[n]
            out.append(f"{n} = {B.count(env[n] / d.factor)} {d.unit}".rstrip())
    return ", ".join(out[:6])


def located(site: P.Site, e: BaseException, expr, env: Env, domains: dict, what: str = "") -> SolveError:
    """A failed evaluation as a located error: the innermost operation that failed, where, and at which values."""
    if isinstance(e, OverflowError) and B.shortened and not B.strict and not B.probing:
        raise Exactly from None  # a carried float met a number beyond float range: exact values have no such edge
    found = diagnose(expr, env) if expr is not None else None
    if found is None:
        found = (e.message, e.hint) if isinstance(e, V.ChainError) else ("division by zero", "a divisor is 0 here") if isinstance(e, ZeroDivisionError) else (str(e) or "no value", "check the inputs")
    problem, hint = found
    values = shown_values(P.refs(expr), env, domains) if expr is not None else ""
    where = what or site.what
    sep = " " if problem == "division by zero" else ", "
    return SolveError(f"{problem}{sep}in {where}" + (f" ({values})" if values else ""), site.loc, hint)


def fail(site: P.Site, message: str, hint: str = "", env: Env | None = None, names=()) -> SolveError:
    """A located error; with the values of the names the statement reads."""
    shown = [f"{n} = {V.shown(env[n])}" for n in sorted(names) if env is not None and n in env][:6]
    where = f"{site.what}" + (f" (with {', '.join(shown)}, base units)" if shown else "")
    return SolveError(f"{message}: {where}" if message else where, site.loc, hint or "check the inputs, or the equation's domain")


def _value(v, what: str):
    """A statement's result: a finite real number; a whole Fraction becomes an int (ints are Python's fast path)."""
    t = type(v)
    if t is int:
        return v
    if t is Fraction:
        return v._numerator if v._denominator == 1 else B.shorten(v)
    if t is bool:
        return int(v)
    return V.real(v, what)


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
        for run in self.body:
            run(env, state)
        return Result(env, state.tables, tuple(dict.fromkeys(state.notes)))

    # each statement becomes a function (env, state) -> None
    def _compile(self, s):
        return getattr(self, "_" + type(s).__name__.lower())(s)

    def _assign(self, s: P.Assign):
        f, name, refs = compile_expr(s.expr), s.name, tuple(P.refs(s.expr))

        def run(env, state):
            try:
                env[name] = _value(_carried(f, env, refs), name)
            except _FAILURES as e:
                raise located(s.site, e, s.expr, env, self.domains) from None

        return run

    def _guard(self, s: P.Guard):
        d, w, names = compile_expr(s.divisor), compile_expr(s.when), P.refs(s.divisor)

        def run(env, state):
            try:
                zero = w(env) and d(env) == 0
            except _FAILURES:
                return  # the value itself failed already, or will be reported where it is computed
            if zero:
                values = shown_values(names, env, self.domains)
                raise SolveError(f"division by zero in {s.site.what}" + (f" ({values})" if values else ""), s.site.loc, f"the divisor {P.text(s.divisor)} is 0 here")

        return run

    def _check(self, s: P.Check):
        name, dom = s.name, self.domains[s.name]

        def run(env, state):
            v = env[name]
            if not V.admits(v, dom.kind, dom.lo, dom.hi):
                shown = f"{name} = {V.shown(v / dom.factor)} {dom.unit}".rstrip()
                raise SolveError(f"{shown} is outside its domain ({dom.text})", s.site.loc, f"from {s.site.what}; check the inputs")

        return run

    def _pick(self, s: P.Pick):
        cands = [[compile_expr(e) for e in c] for c in s.candidates]
        names = s.names
        doms = [(self.domains[n].kind, self.domains[n].lo, self.domains[n].hi) for n in names]

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
            except _FAILURES as e:
                raise located(s.site, e, s.rows, env, self.domains, f"the row count of table '{t}': rows = {s.rows_text}") from None
            scope = dict(env)
            for name, _, init, c, _ in cols:
                try:
                    scope[prev[name]] = _value(init(env), f"the initial {name}")
                except _FAILURES as e:
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
                    except _FAILURES as e:
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
            return sub, [float(_value(r(sub), "the residual")) for r in residuals]

        def run(env, state):
            start_values = []
            for f in starts:
                try:
                    start_values.append(float(f(env)) if f is not None else None)
                except _FAILURES:
                    start_values.append(None)
            if len(tears) == 1:  # trial points are floats (a search is approximate and exact powers of them are costly)
                x = self._root_1d(s, lambda x: _quiet(lambda: trial(env, State(), [x])[1][0]), start_values[0], state.notes)
                xs = [_exact(x)]
            else:
                xs = self._root_nd(s, lambda *v: _quiet_vec(lambda: trial(env, State(), [_exact(float(x)) for x in v])[1], len(residuals)), start_values)
            final, _ = trial(env, state, xs)
            env.update(final)

        return run

    def _root_1d(self, s: P.Search, f, start, notes: list):
        """The runtime's 1-D rule (the root nearest the start, checked against a scan of the domain), located."""
        dom = self.domains[s.tears[0]]
        try:
            root, found = root_1d(f, start, float(dom.factor), dom.kind, _float(dom.lo), _float(dom.hi), s.tears[0], dom.unit, s.site.what, s.tears[0] in s.whole)
        except V.ChainError as e:
            raise SolveError(e.message, s.site.loc, e.hint) from None
        notes.extend(found)
        return root

    def _root_nd(self, s: P.Search, f, starts):
        import mpmath  # only numeric blocks of several unknowns need it

        guess = [x if x is not None else float(self.domains[n].factor) for n, x in zip(s.tears, starts)]
        try:
            root = mpmath.findroot(f, guess, tol=1e-24)
        except (ValueError, ZeroDivisionError, TypeError) as e:  # TypeError: a Jacobian of NaNs has no pivot
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


def _quiet(f) -> float:
    """A residual at a trial point; a point where the model has no value is nan (stepped over).

    A trial point is a float guess: its decisions are not redone exactly, nor are its overflows
    (the root found is evaluated again as a statement of the run, where they are).
    """
    saved = B.probing
    B.probing = True
    try:
        return f()
    except (SolveError, *_FAILURES):
        return math.nan
    finally:
        B.probing = saved


def _quiet_vec(f, n: int) -> list:
    v = _quiet(f)
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
    return _compiled(e)(env)


@lru_cache(maxsize=4096)
def _assigner(s: P.Assign):
    return Runner(P.Program("", (), (), ()))._assign(s)


def run_assign(s: P.Assign, env: Env) -> None:
    """One assignment into env (an input's default from catalog values)."""
    _assigner(s)(env, {})
