"""Helper functions the Python backend copies into generated modules (only those a module uses).

Each entry is source text in the generated module's own style, written so that it
passes `ruff check` and `ruff format` unchanged. `_bracket_root` is compiler/rootfind.py
itself (its source, copied); `_ask` mirrors compiler/solve.py's `ask` step for step, on floats
(`_ask_np` element by element), where ask's exact arithmetic decides: at a closed-form
boundary the condition holds unless it is strict, and a boundary within rounding error
of a step or a domain edge is on it.
"""

from __future__ import annotations


def rootfind_source() -> str:
    """compiler/rootfind.py's classes and functions, renamed private: the solver's own root finder."""
    import inspect

    from .. import rootfind

    source = inspect.getsource(rootfind.NoRoot) + "\n\n" + inspect.getsource(rootfind.bracket_root)
    return source.replace("NoRoot", "_NoRoot").replace("def bracket_root(", "def _bracket_root(")


# name -> (source, helper names it calls, needs math, needs numpy)
HELPERS: dict[str, tuple[str, tuple[str, ...], bool, bool]] = {}


def _helper(name: str, calls: tuple[str, ...] = (), math: bool = False, numpy: bool = False):
    def register(source: str) -> str:
        HELPERS[name] = (source.strip("\n"), calls, math, numpy)
        return source

    return register


_helper("ChainError")('''
class ChainError(ValueError):
    """No admissible answer: a value outside its domain, no root, or an infeasible question."""
''')

_helper("_NotWhole", ("ChainError",))('''
class _NotWhole(ChainError):
    """A table's row count is not a whole number (a search may have probed between whole numbers)."""
''')

_helper("_Jump", ("ChainError",))('''
class _Jump(ChainError):
    """A numeric search found a jump, not a root: the sides change sign at `at` without meeting."""

    def __init__(self, message: str, name: str, at: float, whole: bool):
        super().__init__(message)
        self.name, self.at, self.whole = name, at, whole
''')

_helper("_entry", ("ChainError",))('''
def _entry(kind: str, entries: dict[str, dict[str, float | None]], entry_id: str) -> dict[str, float | None]:
    """The catalog entry `entry_id` of `entries` (GPUS or LLMS)."""
    try:
        return entries[entry_id]
    except KeyError:
        raise ChainError(f"unknown {kind.upper()} {entry_id!r} (known: {', '.join(sorted(entries))})") from None
''')

_helper("_field", ("ChainError",))('''
def _field(kind: str, entry_id: str, entry: dict[str, float | None], name: str) -> float:
    """A catalog value in its field unit; an entry without it (None) is an error that names the entry."""
    value = entry.get(name)
    if value is None:
        title = _TITLES[kind].get(entry_id, entry_id)
        raise ChainError(f"{title} has no value for {name}; its catalog entry marks it as not available; pick another {kind.upper()}")
    return value
''')

_helper("_outside", ("ChainError",))('''
def _outside(name: str, value: float, unit: str, domain: str, where: str) -> ChainError:
    """The error for a computed value outside its variable's domain."""
    shown = f"{float(value):.6g} {unit}".strip()
    return ChainError(f"{name} = {shown} is outside its domain ({domain}); from {where}; check the inputs")
''')

_helper("_admits")('''
def _admits(x: float, kind: str, lo: float | None = None, hi: float | None = None) -> bool:
    """Whether x lies in a variable's domain: real, of the right sign, within min and max."""
    if isinstance(x, complex):
        if abs(x.imag) > 1e-12 * (abs(x.real) + 1):
            return False
        x = x.real
    if x != x:
        return False
    if kind == "positive" and not x > 0:
        return False
    if kind == "nonnegative" and not x >= 0:
        return False
    if lo is not None and x < lo:
        return False
    return not (hi is not None and x > hi)
''')

_helper("_pick", ("ChainError",))('''
def _pick(options: list[tuple[float, ...]], names: str, where: str) -> tuple[float, ...]:
    """The one admissible root of a rearranged equation (the solver's candidate filter)."""
    unique: list[tuple[float, ...]] = []
    for o in options:
        o = tuple(v.real if isinstance(v, complex) else v for v in o)
        if not any(all(abs(a - b) <= 1e-12 * (abs(b) + 1e-300) for a, b in zip(o, u, strict=True)) for u in unique):
            unique.append(o)
    if not unique:
        raise ChainError(f"no admissible value of {names} solves {where}")
    if len(unique) > 1:
        roots = " or ".join(", ".join(f"{v:.6g}" for v in u) for u in unique)
        raise ChainError(f"{names} has several admissible values (base units): {roots}; from {where}")
    return unique[0]
''')

_helper("_aggregate", ("ChainError",), math=True)('''
def _aggregate(kind: str, rows: tuple[tuple[float, ...], ...], column: int, what: str) -> float:
    """sum, last, max, min or count of a table column over the computed rows."""
    if kind == "count":
        return len(rows)
    if not rows:
        raise ChainError(f"{what} of a table with no rows; check the table's rows expression")
    values = [row[column] for row in rows]
    if kind == "sum":
        return math.fsum(values)
    if kind == "last":
        return values[-1]
    return max(values) if kind == "max" else min(values)
''')

_helper("_rows", ("ChainError", "_NotWhole"))('''
def _rows(n: float, table: str, rows_text: str, max_rows: int) -> int:
    """A table's row count, checked: a whole number, at most max_rows."""
    if not (n >= 0 and n % 1 == 0):
        raise (_NotWhole if n > 0 else ChainError)(f"table '{table}': rows = {rows_text} is {float(n):.6g}, not a whole number; wrap the count in ceil() or floor()")
    if n > max_rows:
        raise ChainError(f"table '{table}' would have {int(n)} rows, more than max_rows = {max_rows}; raise max_rows, or check the inputs")
    return int(n)
''')

_helper("_bracket_root", math=True)(rootfind_source())

_helper("_root_1d", ("ChainError", "_bracket_root", "_NotWhole", "_Jump"), math=True)('''
def _root_1d(f, start: float | None, factor: float, kind: str, lo: float | None, hi: float | None, what: tuple[str, str, str], integer: bool = False) -> float:
    """compiler.solve's numeric step: _bracket_root over the variable's domain, errors as ChainError.

    An integer variable that feeds a table's rows is probed at whole numbers: between
    two, f takes its value at the one below (as the solver does).
    """
    name, unit, where = what
    whole = []

    def fx(x: float) -> float:
        try:
            return float(f(x))
        except _NotWhole:
            if not integer or x == math.floor(x):
                raise
            whole.append(True)
            below = float(math.floor(x))
            if below <= 0 and kind == "positive" or below < 0 and kind == "nonnegative" or lo is not None and below < lo:
                return math.nan  # below the domain (0 for a positive count): undefined, stepped over
            return fx(below)
        except ChainError:
            raise
        except (ArithmeticError, ValueError, TypeError):
            return math.nan

    try:
        x = _bracket_root(fx, start, factor, kind, lo, hi)
    except _NoRoot as e:
        if e.jump is None:
            span = f"{e.low / factor:.6g} to {e.high / factor:.6g} {unit}"
            raise ChainError(f"no value of {name} solves {where}; searched {name} from {span} and the two sides never crossed") from None
        at = f"{e.jump / factor:.6g} {unit}"
        message = f"no value of {name} makes {where} hold exactly; the two sides jump past each other at {name} = {at} (a step of ceil, floor or a condition)"
        raise _Jump(message, name, e.jump, bool(whole)) from None
    return float(math.floor(x)) if whole else x
''')

_helper("_side")('''
def _side(name: str, value: float, unit: str) -> str:
    """One side of a question's condition, for messages."""
    number = f"{float(value) + 0.0:.6g}"  # no "-0"
    return f"{name} = {number} {unit}".strip() if name else number
''')

_helper("_require", ("ChainError", "_admits", "_side"))('''
def _require(value: float, shown: float, what: str, var: tuple[str, str, bool, str], domain: tuple) -> None:
    """compiler.solve.require_in_domain: an input (base units; `shown` in its display unit) must be whole where declared so, and in its domain."""
    name, unit, integer, text = var
    if integer and value % 1 != 0:
        problem = "is not a whole number"
    elif not _admits(value, *domain):
        problem = f"is outside its domain ({text})"
    else:
        return
    raise ChainError(f"{what} {_side(name, shown, unit)} {problem}; {name} is declared {text}")
''')

_helper("_on")('''
def _on(*entries: tuple[str, str]) -> str:
    """' on H100 SXM with Llama 3.1 8B': the catalog entries a message refers to."""
    titles = [_TITLES[kind].get(entry_id, entry_id) for kind, entry_id in entries]
    return " on " + " with ".join(titles) if titles else ""
''')

_helper("_turn", math=True)('''
def _turn(feasible, b: float, up: bool, lo: float | None, hi: float | None, integer: bool, signed: bool) -> float | None:
    """compiler.solve's _turn: from a feasible b, the last feasible value before the condition turns; None if it never does.

    Steps grow geometrically until a value fails (or an edge holds), then bisect; an
    integer variable is searched over whole numbers; `signed` is false for a positive
    or nonnegative variable.
    """
    ok, bad = b, None
    size = abs(b) if b != 0 else 1.0
    for k in range(200):
        y = b + (size * 2.0**k if up else -size * 2.0**k)
        if integer:
            y = float(math.ceil(y) if up else math.floor(y))
        y = min(y, hi) if up and hi is not None else max(y, lo) if not up and lo is not None else y
        if not up and not signed and y <= 0:
            y = ok / 2 if not integer else ok - 1
        if y == ok or (integer and y < 1 and not signed):
            return None  # at the domain's edge, and it holds there: the edge is the answer
        try:
            holds = feasible(y)
        except (ArithmeticError, ValueError, TypeError):
            return None  # the model has no value this far out: the search ends here
        if not holds:
            bad = y
            break
        ok = y
    if bad is None:
        return None
    for _ in range(200):
        if integer and abs(bad - ok) <= 1 or abs(bad - ok) <= 1e-13 * max(abs(ok), abs(bad)):
            break
        m = (ok + bad) / 2
        m = float(math.floor(m)) if integer else m
        if feasible(m):
            ok = m
        else:
            bad = m
    return ok
''')

_helper("_ask", ("_admits", "_Jump", "_NotWhole", "_turn"), math=True)('''
def _ask(boundary, feasible, infeasible, unbounded, seek: str, step: tuple[int, int] | None, domain: tuple, edges: tuple, probe: float, numeric: bool, strict: bool, var: tuple[str, bool]) -> float:
    """compiler.ask on floats, base units: the boundary or the domain's edge, rounded to the step on the safe side.

    `edges` are ask's lo and hi (None: open); `probe` is where to test when there is no
    boundary and no edge. ask is exact: at a closed-form boundary (`numeric` false) the
    condition's two sides are equal, so it holds there unless `strict`, and a boundary
    within rounding error of a step or an edge is on it. A numeric boundary is a float
    in ask too: it is rounded exactly. A jump of a step function (ceil, a table's whole
    rows) is a boundary as well; `var` is the name of the variable asked for and whether
    it is a whole number.
    """
    lo, hi = edges
    name, integer = var
    want_max = seek == "max"
    edge = hi if want_max else lo
    try:
        b = boundary() if boundary is not None else math.nan
        b = float(b.real if isinstance(b, complex) else b)
    except _Jump as e:  # the condition turns at the jump; searched over whole numbers, between k - 1 and k
        b = (round(e.at) - 0.5 if e.whole else e.at) if e.name == name else math.nan
        numeric = True
    except (ArithmeticError, ValueError, TypeError):  # the solver finds no admissible boundary
        b = math.nan
    on_b = False  # value is the closed-form boundary
    if not math.isfinite(b):  # no boundary: test one point, then the answer is an edge or nothing
        x = lo if lo is not None else hi if hi is not None else probe
        if not feasible(x):
            raise infeasible(x)
        if edge is None:
            raise unbounded("every value", None)
        value = edge
    else:
        delta = max(abs(b) * 1e-6, step[0] / step[1] / 2 if step else 0)

        def side(x: float, up: bool) -> bool:  # an integer variable feeding a table's rows is probed at whole numbers
            try:
                return feasible(x)
            except _NotWhole:
                if not integer:
                    raise
                return feasible(math.floor(b) + 1.0 if up else math.ceil(b) - 1.0)

        below, above = side(b - delta, False), side(b + delta, True)
        if not below and not above:
            raise infeasible(b - delta if want_max else b + delta)
        turn = _turn(feasible, b, want_max, lo, hi, integer, domain[0] == "real") if below and above and numeric else None
        if turn is not None:  # the sides are equal over a stretch (ceil): the answer is where it ends
            b = turn
            below, above = want_max, not want_max
        if below and above:
            if edge is None:
                raise unbounded("values on both sides of", b)
            value = edge
        elif below if want_max else above:  # the condition holds on the answer's side: the boundary
            value, on_b = b, not numeric
        elif edge is None:
            raise unbounded("every value above" if want_max else "every value below", b)
        else:
            value = edge
    tol = 1e-12 if on_b else 0.0
    ends = [e for e in (lo, hi) if e is not None and abs(value - e) <= tol * abs(e)]
    if ends:
        value = ends[0]
    elif step:
        p, q = step
        if numeric:  # floor (or ceiling) of the float itself, exactly
            num, den = value.as_integer_ratio()
            n = (num * q) // (den * p) if want_max else -((-num * q) // (den * p))
            m = round(value * q / p)
            if m != n and abs(value * q / p - m) <= 1e-9 * max(1.0, abs(m)) and feasible(m * p / q):
                n = m  # the search found the boundary a hair on the wrong side of that step
        else:
            k = value * q / p
            n = round(k)
            on_b = on_b and abs(k - n) <= 1e-12 * max(1.0, abs(k))
            if not on_b:
                n = math.floor(k) if want_max else math.ceil(k)
        value = n * p / q
        if not (not strict if on_b else feasible(value)):  # a strict condition: one step back
            n += -1 if want_max else 1
            value, on_b = n * p / q, False
    if not step and numeric and _admits(value, *domain) and not feasible(value):
        # a numeric boundary can land a hair on the wrong side: step inward by the search's tolerance
        nudged = value * (1 + (-1 if want_max else 1) * 1e-12 * (1 if value > 0 else -1))
        if feasible(nudged):
            value = nudged
    if not _admits(value, *domain) or not (not strict if on_b else feasible(value)):
        raise infeasible(lo if lo is not None and want_max else value)
    return value
''')

# --- the NumPy flavour's versions -------------------------------------------------------------

_helper("_first", numpy=True)('''
def _first(value, ok) -> float:
    """The first element of `value` where `ok` is false (for messages about arrays)."""
    bad = ~np.asarray(ok, dtype=bool)
    return float(np.broadcast_to(np.asarray(value, dtype=float), np.broadcast_shapes(bad.shape, np.shape(value)))[np.broadcast_to(bad, np.broadcast_shapes(bad.shape, np.shape(value)))].flat[0])
''')

_helper("_admits_np", numpy=True)('''
def _admits_np(x, kind: str, lo: float | None = None, hi: float | None = None):
    """Element-wise: whether x lies in a variable's domain."""
    x = np.asarray(x, dtype=float)
    ok = x == x
    if kind == "positive":
        ok &= x > 0
    if kind == "nonnegative":
        ok &= x >= 0
    if lo is not None:
        ok &= x >= lo
    if hi is not None:
        ok &= x <= hi
    return ok
''')

_helper("_require_np", ("ChainError", "_admits_np", "_side"), numpy=True)('''
def _require_np(value, shown, what: str, var: tuple[str, str, bool, str], domain: tuple) -> None:
    """_require element-wise: the first element that is not whole (where declared so) or outside the domain raises."""
    name, unit, integer, text = var
    value = np.asarray(value, dtype=float)
    whole = value % 1 == 0 if integer else np.ones(value.shape, dtype=bool)
    ok = whole & _admits_np(value, *domain)
    if np.all(ok):
        return
    first = int(np.argmax(~ok.ravel()))
    problem = f"is outside its domain ({text})" if whole.flat[first] else "is not a whole number"
    shown = float(np.broadcast_to(np.asarray(shown, dtype=float), ok.shape).flat[first])
    raise ChainError(f"{what} {_side(name, shown, unit)} {problem}; {name} is declared {text}")
''')

_helper("_ask_np", ("_admits_np", "_Jump", "_NotWhole", "_turn"), numpy=True)('''
def _ask_np(
    boundary, feasible, infeasible, unbounded, seek: str, step: tuple[int, int] | None, domain: tuple, edges: tuple, probe: float, numeric: bool, strict: bool, var: tuple[str, bool], shape: tuple
) -> np.ndarray:
    """compiler.ask element-wise, as _ask: every element takes the path ask takes for it.

    Each call of `feasible` tests, per element, a point ask tests or one already tested;
    `boundary(i)` is element i's boundary, tried one by one when the whole array fails.
    Any element without an answer raises, naming the first one.
    """
    lo, hi = edges
    name, integer = var
    want_max = seek == "max"
    edge = hi if want_max else lo
    start = lo if lo is not None else hi if hi is not None else probe

    def test(x) -> np.ndarray:
        return np.broadcast_to(np.asarray(feasible(x), dtype=bool), shape)

    def near(x, up: bool) -> tuple[np.ndarray, np.ndarray]:
        """The points tested just below (above) b, and the outcome; whole numbers where a table's rows need them."""
        try:
            return x, test(x)
        except _NotWhole:
            if not integer:
                raise
            x = np.where(has, np.floor(b) + 1.0 if up else np.ceil(b) - 1.0, start)
            return x, test(x)

    try:
        b = np.broadcast_to(np.asarray(boundary() if boundary is not None else np.nan, dtype=float), shape).copy()
    except (ArithmeticError, ValueError, TypeError):  # some element has no admissible boundary: solve them one by one
        b = np.full(shape, np.nan)
        for i in np.ndindex(shape):
            try:
                b[i] = float(np.real(boundary(i)))
            except _Jump as e:  # the condition turns at the jump; searched over whole numbers, between k - 1 and k
                if e.name == name:
                    b[i] = round(e.at) - 0.5 if e.whole else e.at
            except (ArithmeticError, ValueError, TypeError):
                pass
    has = np.isfinite(b)
    b = np.where(has, b, 0.0)
    delta = np.maximum(np.abs(b) * 1e-6, step[0] / step[1] / 2 if step else 0.0)
    safe, below = near(np.where(has, b - delta, start), False)  # safe: tested for every element
    above = near(np.where(has, b + delta, start), True)[1]
    both = has & below & above
    if numeric and np.any(both):  # the sides are equal over a stretch (ceil): the answer is where it ends, element by element
        below, above = below.copy(), above.copy()
        for i in np.ndindex(shape):
            if both[i]:
                one = np.zeros(shape, dtype=bool)
                one[i] = True
                turn = _turn(lambda x, one=one, i=i: bool(test(np.where(one, x, safe))[i]), float(b[i]), want_max, lo, hi, integer, domain[0] == "real")
                if turn is not None:
                    b[i], below[i], above[i] = turn, want_max, not want_max
    code = np.zeros(shape, dtype=int)  # 0: an answer; 1: infeasible at `at`; 2-4: unbounded
    at = np.full(shape, np.nan)
    value = np.full(shape, np.nan)
    fail = ~has & ~below
    code[fail] = 1
    at[fail] = start
    fail = has & ~below & ~above
    code[fail] = 1
    at[fail] = (b - delta if want_max else b + delta)[fail]
    one = has & (below != above)
    take = one & (below if want_max else above)
    to_edge = (~has & below) | (has & below & above) | (one & ~take)
    if edge is None:
        code[~has & below] = 2
        code[has & below & above] = 3
        code[one & ~take] = 4
    else:
        value[to_edge] = edge
    value[take] = b[take]
    on_b = take & (not numeric)  # the closed-form boundary: the condition holds there unless strict
    live = code == 0
    for e in (lo, hi):
        if e is not None:
            hit = live & (np.abs(value - e) <= np.where(on_b, 1e-12, 0.0) * abs(e))
            value = np.where(hit, e, value)
            live &= ~hit
    if step:
        p, q = step
        if numeric:  # floor (or ceiling) of the float itself, exactly
            n = np.zeros(shape)
            for i in np.ndindex(shape):
                if live[i]:
                    num, den = float(value[i]).as_integer_ratio()
                    n[i] = (num * q) // (den * p) if want_max else -((-num * q) // (den * p))
            m = np.round(np.where(live, value, 0.0) * q / p)
            near = live & (m != n) & (np.abs(np.where(live, value, 0.0) * q / p - m) <= 1e-9 * np.maximum(1.0, np.abs(m)))
            if np.any(near):  # the search found the boundary a hair on the wrong side of that step
                n = np.where(near & test(np.where(near, m * p / q, safe)), m, n)
        else:
            k = np.where(live, value, 0.0) * q / p
            n = np.round(k)
            on_b = np.where(live, on_b & (np.abs(k - n) <= 1e-12 * np.maximum(1.0, np.abs(k))), on_b)
            n = np.where(on_b, n, np.floor(k) if want_max else np.ceil(k))
        back = live & ~np.where(on_b, not strict, test(np.where(live & ~on_b, n * p / q, safe)))
        n = np.where(back, n - 1 if want_max else n + 1, n)
        value = np.where(live, n * p / q, value)
        on_b &= ~back
    if not step and numeric:
        live = (code == 0) & _admits_np(value, *domain)
        live &= ~test(np.where(live, value, safe))
        if np.any(live):
            nudged = value * (1 + (-1 if want_max else 1) * 1e-12 * np.where(value > 0, 1, -1))
            value = np.where(live & test(np.where(live, nudged, safe)), nudged, value)
    live = (code == 0) & _admits_np(value, *domain)
    holds = np.where(on_b, not strict, test(np.where(live & ~on_b, value, safe)))
    fail = (code == 0) & ~(live & holds)
    code[fail] = 1
    at[fail] = lo if lo is not None and want_max else value[fail]
    if np.any(code):
        first = int(np.argmax(code.ravel() != 0))
        kind = int(code.flat[first])
        ok = np.ones(shape, dtype=bool)
        ok.flat[first] = False
        if kind == 1:
            raise infeasible(np.where(ok, safe, at), ok)
        where = ("every value", "values on both sides of", "every value above" if want_max else "every value below")[kind - 2]
        raise unbounded(where, None if kind == 2 else float(b.flat[first]))
    return value
''')


def helper_source(names: set[str]) -> tuple[list[str], bool, bool]:
    """The helpers `names` and everything they call, in a fixed order; and whether they need math / numpy."""
    want = set()
    stack = list(names)
    while stack:
        n = stack.pop()
        if n not in want:
            want.add(n)
            stack.extend(HELPERS[n][1])
    ordered = [n for n in HELPERS if n in want]
    return [HELPERS[n][0] for n in ordered], any(HELPERS[n][2] for n in ordered), any(HELPERS[n][3] for n in ordered)
