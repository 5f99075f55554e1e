"""Values: domains, the admissible root among candidates, table rows and aggregates, bounded arithmetic.

Plain standard-library code, copied into generated modules (see __init__.py).
Numbers are exact Fractions or ints where the model is rational, floats where it
is not; a result that is not a finite real number is an error, never a value.
"""

import math
from fractions import Fraction


class ChainError(ValueError):
    """No admissible answer: a value outside its domain, no root, an infeasible question."""

    def __init__(self, message: str, hint: str = "", kind: str = ""):
        super().__init__(message + (f"; {hint}" if hint else ""))
        self.message, self.hint, self.kind = message, hint, kind  # kind: a question's 'infeasible' or 'unbounded'


def shown(x) -> str:
    """A number for messages: 6 significant figures; beyond float range, scientific notation from the exact value."""
    if isinstance(x, complex):
        return f"{x.real:.6g}{x.imag:+.6g}j"
    try:
        text = f"{float(x) + 0.0:.6g}"  # + 0.0: no "-0"
        whole = text.lstrip("-").isdigit()
        return f"{float(x) + 0.0:.15g}" if whole and x % 1 else text  # 730965.3 is not "730965" where wholeness matters
    except OverflowError:
        n = abs(int(x))
        e = int(math.log10(n))
        lead = n // 10 ** max(e - 5, 0)
        return f"{'-' if x < 0 else ''}{str(lead)[0]}.{str(lead)[1:6]}e+{e}"


def answer_number(x, whole: bool):
    """A question's answer as a generated function returns it, in its display unit: an int where its variable
    takes whole numbers on a whole step (118), else a float (12.37); both flavours return it so."""
    return round(x) if whole else float(x)


def domain_words(kind: str, integer: bool, lo=None, hi=None, unit: str = "") -> str:
    """A domain as a person says what was searched: 'every positive whole number', 'every value from 1 to 64 ms'.

    lo, hi: the declared bounds in the display unit (None: open); a bound the sign implies (a positive
    whole number is at least 1) is not repeated.
    """
    noun = "whole number" if integer else "value"
    sign = {"positive": "positive ", "nonnegative": "non-negative "}.get(kind, "")
    if lo is not None and integer and ((kind == "positive" and 0 < lo <= 1) or (kind == "nonnegative" and -1 < lo <= 0)):
        lo = None  # the sign says it
    if lo is not None and (lo > 0 or (lo >= 0 and kind != "positive")):
        sign = ""  # the bound says more than the sign
    unit = f" {unit}" if unit else ""
    if lo is not None and hi is not None:
        return f"every {sign}{noun} from {shown(lo)} to {shown(hi)}{unit}"
    if lo is not None:
        return f"every {sign}{noun} from {shown(lo)}{unit} up"
    if hi is not None:
        return f"every {sign}{noun} up to {shown(hi)}{unit}"
    return f"every {sign}{noun}"


def real(x, what: str):
    """x as a finite real number, or an error that says what it is instead."""
    if isinstance(x, complex):
        if x.imag != 0:
            raise ChainError(f"{what} has no real value (it is {shown(x)})", "look for the root or logarithm of a negative number")
        x = x.real
    if isinstance(x, float) and not math.isfinite(x):
        raise ChainError(f"{what} is not a finite number ({x})", "look for a division by zero, an overflow or a root of a negative number")
    return x


def admits(x, kind: str, lo=None, hi=None, values=None) -> bool:
    """Whether x lies in a variable's domain: real, of the right sign, within min and max, one of its set's values."""
    if isinstance(x, complex) or x != x:
        return False
    if values is not None and not member(x, values):
        return False
    if kind == "positive" and not x > 0:
        return False
    if kind == "nonnegative" and not x >= 0:
        return False
    if lo is not None and x < lo:
        return False
    return not (hi is not None and x > hi)


def member(x, values) -> bool:
    """x is one of the set's values (exact ones; a float to 1e-12 relative, as a computed 0.1 s is 1/10 s)."""
    if not isinstance(x, float):
        return x in values
    return any(x == v or abs(x - v) <= 1e-12 * abs(v) for v in values)


def require(x, shown_value, what: str, name: str, unit: str, integer: bool, text: str, domain: tuple) -> None:
    """An input (base units; shown in its display unit) must be whole where declared so, and in its domain."""
    if integer and not isinstance(x, complex) and x % 1 != 0:
        problem = "is not a whole number"
    elif not admits(x, *domain):
        problem = f"is outside its domain ({text})"
    else:
        return
    raise ChainError(f"{what} {name} = {shown(shown_value)} {unit}".rstrip() + f" {problem}", f"{name} is declared {text}")


def pick(options: list, names: str, domains: list, where: str) -> tuple:
    """The one admissible root of a rearranged block: candidates are tuples (None: no value there)."""
    unique = []
    for option in options:
        if option is None:
            continue
        values = []
        for v, domain in zip(option, domains):
            if isinstance(v, complex):  # a closed form (a cubic's) may pass through complex values to a real root
                if abs(v.imag) > 1e-12 * (abs(v.real) + 1):
                    break
                v = v.real
            if not admits(v, *domain):
                break
            values.append(v)
        else:
            if not any(all(abs(a - b) <= 1e-12 * (abs(b) + 1e-300) for a, b in zip(values, u)) for u in unique):
                unique.append(tuple(values))
    if not unique:
        raise ChainError(f"no admissible value of {names} solves {where}", "the roots fall outside the domain")
    if len(unique) > 1:
        roots = " or ".join(", ".join(shown(v) for v in u) for u in unique)
        raise ChainError(f"{names} has several admissible values (base units): {roots}; from {where}", "narrow the domain with min: or max:")
    return unique[0]


def rows(n, table: str, rows_text: str, max_rows: int) -> int:
    """A table's row count, checked: a whole number, at most max_rows."""
    if isinstance(n, complex) or not (n >= 0 and n % 1 == 0):
        raise ChainError(f"table '{table}': rows = {rows_text} is {shown(n)}, not a whole number", "wrap the count in ceil() or floor()")
    if n > max_rows:
        raise ChainError(f"table '{table}' would have {int(n)} rows, more than max_rows = {max_rows}", "raise max_rows, or check the inputs")
    return int(n)


def aggregate(kind: str, values: list, what: str):
    """sum, last, max, min or count of a table column over the computed rows."""
    if kind == "count":
        return len(values)
    if not values:
        raise ChainError(f"{what} of a table with no rows", "check the table's rows expression")
    if kind == "sum":
        return sum(values) if all(isinstance(v, (int, Fraction)) for v in values) else math.fsum(values)
    if kind == "last":
        return values[-1]
    return max(values) if kind == "max" else min(values)


def exact_sum(terms):
    """A numeric block's residual, the sum of its terms, without cancellation error.

    Exact for ints and Fractions; floats are summed with math.fsum, so a large term and
    its negative cannot swallow a small one (x + 1 - x at x = 2**54 is 1, not 0) and a
    root search does not take rounding for a root.
    """
    if all(type(t) is int or type(t) is Fraction for t in terms):
        return sum(terms)
    return math.fsum(terms)


def lambertw(x, branch=0):
    """The Lambert W function (W(x) e^W(x) = x), real branches 0 and -1, by Halley's iteration."""
    x = float(x)
    if x < -1 / math.e:
        raise ValueError("LambertW of a number below -1/e")
    if branch == 0:
        w = math.log1p(x) if x > -0.25 else -1 + math.sqrt(2 * (1 + math.e * x))
    else:
        if not x < 0:
            raise ValueError("the -1 branch of LambertW needs a negative argument")
        w = math.log(-x) - math.log(-math.log(-x)) if x > -0.25 else -1 - math.sqrt(2 * (1 + math.e * x))
    for _ in range(100):
        e = math.exp(w)
        f = w * e - x
        if f == 0:
            break
        step = f / (e * (w + 1) - (w + 2) * f / (2 * w + 2)) if w != -1 else 0
        w -= step
        if abs(step) <= 1e-15 * (1 + abs(w)):
            break
    return w
