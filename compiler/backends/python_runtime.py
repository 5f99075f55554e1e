"""Helper functions the Python backend copies into generated modules (only those a module uses).

Each entry is source text in the generated module's own style, written so that it
passes `ruff check` and `ruff format` unchanged. `_bracket_root` is compiler/rootfind.py
itself (its source, copied); `_ask` mirrors compiler/solve.py's `ask` step for step, on floats.
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

_helper("_rows", ("ChainError",))('''
def _rows(n: float, table: str, rows_text: str, max_rows: int) -> int:
    """A table's row count, checked: a whole number, at most max_rows."""
    if not (n >= 0 and n % 1 == 0):
        raise ChainError(f"table '{table}': rows = {rows_text} is {float(n):.6g}, not a whole number; wrap the count in ceil() or floor()")
    if n > max_rows:
        raise ChainError(f"table '{table}' would have {int(n)} rows, more than max_rows = {max_rows}; raise max_rows, or check the inputs")
    return int(n)
''')

_helper("_bracket_root", math=True)(rootfind_source())

_helper("_root_1d", ("ChainError", "_bracket_root"), math=True)('''
def _root_1d(f, start: float | None, factor: float, kind: str, lo: float | None, hi: float | None, what: tuple[str, str, str]) -> float:
    """compiler.solve's numeric step: _bracket_root over the variable's domain, errors as ChainError."""
    name, unit, where = what

    def fx(x: float) -> float:
        try:
            return float(f(x))
        except ChainError:
            raise
        except (ArithmeticError, ValueError, TypeError):
            return math.nan

    try:
        return _bracket_root(fx, start, factor, kind, lo, hi)
    except _NoRoot as e:
        if e.jump is None:
            span = f"{e.low / factor:.6g} to {e.high / factor:.6g} {unit}"
            raise ChainError(f"no value of {name} solves {where}; searched {name} from {span} and the two sides never crossed") from None
        at = f"{e.jump / factor:.6g} {unit}"
        raise ChainError(f"no value of {name} makes {where} hold exactly; the two sides jump past each other at {name} = {at} (a step of ceil, floor or a condition)") from None
''')

_helper("_side")('''
def _side(name: str, value: float, unit: str) -> str:
    """One side of a question's condition, for messages."""
    number = f"{float(value):.6g}"
    return f"{name} = {number} {unit}".strip() if name else number
''')

_helper("_on")('''
def _on(*entries: tuple[str, str]) -> str:
    """' on H100 SXM with Llama 3.1 8B': the catalog entries a message refers to."""
    titles = [_TITLES[kind].get(entry_id, entry_id) for kind, entry_id in entries]
    return " on " + " with ".join(titles) if titles else ""
''')

_helper("_ask", ("_admits",), math=True)('''
def _ask(boundary, feasible, infeasible, wrong_side, seek: str, step: tuple[int, int] | None, domain: tuple, probe: float) -> float:
    """compiler.ask: solve the boundary, probe both sides, round on the safe side (base units)."""
    sign = 1 if seek == "max" else -1
    try:
        b = boundary()
    except (ArithmeticError, ValueError):
        raise infeasible(probe) from None
    delta = max(abs(b) * 1e-6, step[0] / step[1] / 2 if step else 0)
    inside = feasible(b - sign * delta)
    outside = feasible(b + sign * delta)
    if outside and not inside:
        raise wrong_side(b)
    if not inside:
        raise infeasible(b - sign * delta)
    value = b
    if step:
        p, q = step
        k = math.floor(b * q / p) if seek == "max" else math.ceil(b * q / p)
        value = k * p / q
        if not feasible(value):
            value -= sign * p / q
    if not _admits(value, *domain):
        raise infeasible(step[0] / step[1] if step else b)
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

_helper("_ask_np", ("_admits_np",), numpy=True)('''
def _ask_np(boundary, feasible, infeasible, wrong_side, seek: str, step: tuple[int, int] | None, domain: tuple, probe: float):
    """compiler.ask element-wise: any element without an answer raises, naming the first one."""
    sign = 1 if seek == "max" else -1
    try:
        b = np.asarray(boundary(), dtype=float)
    except (ArithmeticError, ValueError):
        raise infeasible(np.asarray(float(probe)), np.asarray(False)) from None
    delta = np.maximum(np.abs(b) * 1e-6, step[0] / step[1] / 2 if step else 0)
    inside = feasible(b - sign * delta)
    outside = feasible(b + sign * delta)
    if np.any(outside & ~inside):
        raise wrong_side(b, ~(outside & ~inside))
    if not np.all(inside):
        raise infeasible(b - sign * delta, inside)
    value = b
    if step:
        p, q = step
        k = np.floor(b * q / p) if seek == "max" else np.ceil(b * q / p)
        value = k * p / q
        value = np.where(feasible(value), value, value - sign * p / q)
    ok = _admits_np(value, *domain)
    if not np.all(ok):
        raise infeasible(np.where(ok, value, step[0] / step[1] if step else b), ok)
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
