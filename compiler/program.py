"""The lowered program: what the solver runs and what the code backends print.

A Plan (SymPy's closed forms and numeric tears) is lowered once into these frozen
nodes, which hold no SymPy: expressions are a small tree of numbers, names,
arithmetic, calls, comparisons and choices; statements assign, check domains and
divisors, pick a root among candidates, search a bracket, and loop over a table's
rows. `run.py` executes a Program with exact rationals where the model is
rational (floats where it is not); the Python, NumPy and Excel backends print the
same nodes. Every statement carries the place in the model it comes from, so an
error found while running names the equation.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from .errors import Loc
from .runtime.values import domain_words

# --- expressions ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Num:
    value: Fraction  # exact


@dataclass(frozen=True, slots=True)
class Const:
    name: str  # 'pi' | 'E'


@dataclass(frozen=True, slots=True)
class Ref:
    name: str  # a variable, parameter ('gpu.memory_bandwidth'), column ('t.col', 't.prev.col', 't.i') or aggregate


@dataclass(frozen=True, slots=True)
class Add:
    args: tuple


@dataclass(frozen=True, slots=True)
class Mul:
    args: tuple


@dataclass(frozen=True, slots=True)
class Pow:
    base: object
    exp: object


@dataclass(frozen=True, slots=True)
class Call:
    fn: str  # one of FUNCTIONS
    args: tuple


@dataclass(frozen=True, slots=True)
class Cmp:
    op: str  # '<' '<=' '>' '>=' '==' '!='
    left: object
    right: object


NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}  # the operator that holds where a question's condition fails


@dataclass(frozen=True, slots=True)
class Logic:
    op: str  # 'and' | 'or' | 'not'
    args: tuple


@dataclass(frozen=True, slots=True)
class Sum:
    """A finite sum (or product) of `body` over the whole numbers index = lo, lo + 1, ..., hi (hi included)."""

    kind: str  # 'sum' | 'prod'
    index: str  # the index's name in body (unique: 'k#12.4')
    lo: object
    hi: object
    body: object


@dataclass(frozen=True, slots=True)
class Choice:
    """if/elif/else: the first piece whose condition holds (the last condition is always true)."""

    pieces: tuple  # ((value, condition), ...)


Expr = Num | Const | Ref | Add | Mul | Pow | Call | Cmp | Logic | Choice | Sum
TRUE = Logic("and", ())

# name -> arity (None: any); what every printer must print and the runner must run
FUNCTIONS = {"floor": 1, "ceil": 1, "abs": 1, "sqrt": 1, "exp": 1, "log": 1, "min": None, "max": None, "lambertw": 2, "factorial": 1, "gamma": 1}


def children(e) -> tuple:
    if isinstance(e, (Add, Mul, Call, Logic)):
        return e.args
    if isinstance(e, Pow):
        return (e.base, e.exp)
    if isinstance(e, Cmp):
        return (e.left, e.right)
    if isinstance(e, Choice):
        return tuple(x for piece in e.pieces for x in piece)
    if isinstance(e, Sum):
        return (e.lo, e.hi, e.body)
    return ()


def walk(e) -> Iterator:
    """Every node of an expression, parents first (iterative: deep trees do not recurse)."""
    stack = [e]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def refs(e) -> set[str]:
    """The names an expression reads (a sum's own index is not read from outside)."""
    nodes = list(walk(e))
    return {n.name for n in nodes if isinstance(n, Ref)} - {n.index for n in nodes if isinstance(n, Sum)}


def index_name(index: str) -> str:
    """A sum's index as the model writes it: 'k#12.4' -> 'k'."""
    return index.split("#", 1)[0]


# --- statements -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Site:
    """Where a statement comes from, for messages: the model's place and its text ('line 65: a = b / c')."""

    loc: Loc | None
    what: str


@dataclass(frozen=True, slots=True)
class Assign:
    name: str
    expr: object
    site: Site


@dataclass(frozen=True, slots=True)
class Guard:
    """A divisor the model writes must not be zero (SymPy may have cancelled it: a/a is 1).

    An equation's `valid_when:` is a guard too: divisor 0, `when` the condition negated, `why` its text.
    """

    divisor: object
    when: object  # the condition under which the division is evaluated (an if() branch), TRUE otherwise
    site: Site
    why: str = ""  # valid_when's text: the guard fails where the equation does not hold


def guard_words(g: Guard) -> tuple[str, str, set]:
    """A failing guard's (message, hint, the names whose values the message shows), for every backend."""
    if g.why:
        return f"{g.site.what} holds only where {g.why}", "these inputs are outside where the equation holds (its valid_when:)", refs(g.when)
    return f"division by zero in {g.site.what}", f"the divisor {text(g.divisor)} is 0 here", refs(g.divisor)


@dataclass(frozen=True, slots=True)
class Check:
    """A computed value must lie in its variable's domain."""

    name: str
    site: Site


@dataclass(frozen=True, slots=True)
class Pick:
    """Several closed forms (roots) of one block: the one admissible set of values."""

    names: tuple[str, ...]
    candidates: tuple[tuple, ...]  # per candidate, an expression per name
    site: Site


@dataclass(frozen=True, slots=True)
class Search:
    """A numeric block: find the tear values that zero the residuals, running `body` at each trial point."""

    tears: tuple[str, ...]
    starts: tuple  # an expression (the default) or None, per tear
    body: tuple  # statements computing the block's other unknowns from the tears
    residuals: tuple  # expressions that vanish at the solution
    site: Site
    whole: tuple[str, ...] = ()  # tears searched over whole numbers only (they bound a sum)


@dataclass(frozen=True, slots=True)
class Column:
    name: str
    expr: object  # may use the table's index, previous row, this row's earlier columns and scalars
    initial: object  # the value of prev.<name> in the first row
    site: Site
    guards: tuple = ()  # Guard statements evaluated in each row


@dataclass(frozen=True, slots=True)
class Loop:
    """A table: rows of columns, then its aggregates as named values."""

    table: str
    rows: object  # row count, an expression of scalars
    rows_text: str
    max_rows: int
    columns: tuple[Column, ...]
    aggregates: tuple[tuple[str, str, str | None], ...]  # (value name, kind, column)
    site: Site


Stmt = Assign | Guard | Check | Pick | Search | Loop


@dataclass(frozen=True, slots=True)
class Physical:
    """A physical limit (`limits:`, compiler/physical.py): `cond` must hold for the numbers to describe a real machine.

    It is no statement: the program computes every value all the same, and each backend shows a failing one
    as a warning beside the values it reads (physical_words).
    """

    name: str
    text: str  # as written: 'step_bytes <= memory'
    cond: Cmp  # left op right, base units
    sides: tuple  # per side (its text, display unit, display -> base factor, digits)
    about: str
    site: Site


def physical_words(limit: Physical, left: str, right: str) -> str:
    """A failing limit's warning, its sides' values already shown in their units: every backend says it so.

    'memory limit fails: step_bytes 863.5 GB > memory 48 GB'
    """
    (lt, lu, _, _), (rt, ru, _, _) = limit.sides
    left, right = (" ".join(x for x in parts if x) for parts in ((lt, left, lu), (rt, right, ru)))  # a constant side has no text
    return f"{limit.name} limit fails: {left} {NEGATED[limit.cond.op]} {right}"


@dataclass(frozen=True, slots=True)
class Domain:
    """A variable's domain in base units, and how to describe it in messages."""

    kind: str  # positive | nonnegative | real
    integer: bool
    lo: Fraction | None
    hi: Fraction | None
    text: str  # 'positive integer, at least 1'
    unit: str  # display unit
    factor: Fraction  # display -> base
    values: tuple[Fraction, ...] | None = None  # a finite set, ascending (lo and hi are its ends)

    @property
    def bounds(self) -> tuple:
        """(kind, lo, hi, values): runtime.values.admits's arguments after x."""
        return self.kind, self.lo, self.hi, self.values

    @property
    def words(self) -> str:
        """What a search of it covers, in words: 'every positive whole number' (runtime.values.domain_words)."""
        shown = [None if x is None else x / self.factor for x in (self.lo, self.hi)]
        return domain_words(self.kind, self.integer, *shown, self.unit)


@dataclass(frozen=True, eq=False)  # identity: one program per plan (lower() is cached)
class Program:
    """A query shape's computation: from its inputs (known variables and parameters) to every unknown."""

    model: str
    inputs: tuple[str, ...]
    body: tuple
    outputs: tuple[str, ...]  # the unknowns, in solving order
    domains: dict[str, Domain] = field(default_factory=dict)  # every variable of the model
    numeric: tuple[str, ...] = ()  # unknowns found by a numeric search
    tables: tuple[str, ...] = ()  # tables the program evaluates (also those only checks read)
    physical: tuple[Physical, ...] = ()  # the model's physical limits: warnings over the computed values, never a stop


def statements(body) -> Iterator:
    """Every statement, nested ones (inside searches) included."""
    for s in body:
        yield s
        if isinstance(s, Search):
            yield from statements(s.body)


# --- text, for messages -------------------------------------------------------------------------------

_OPS = {"and": " and ", "or": " or "}
_PREC = {Add: 1, Mul: 2, Pow: 3}


def text(e) -> str:
    """An expression as a model writes it (a / b, not a * b**-1), for messages."""
    t = type(e)
    if t is Num:
        v = e.value
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    if t is Const:
        return {"E": "e", "I": "i"}.get(e.name, e.name)
    if t is Ref:
        return e.name
    if t is Add:
        out = ""
        for k, a in enumerate(sorted(e.args, key=lambda a: type(a) is Num)):  # a - 2, not -2 + a
            s = _wrap(a, 1)
            out += s if k == 0 else (f" - {s[1:]}" if s.startswith("-") else f" + {s}")
        return out
    if t is Mul:
        top = [a for a in e.args if not (type(a) is Pow and type(a.exp) is Num and a.exp.value == -1)]
        bottom = [a.base for a in e.args if a not in top]
        if top and type(top[0]) is Num and top[0].value == -1:
            return "-" + text(Mul(tuple(top[1:]) + tuple(Pow(b, Num(Fraction(-1))) for b in bottom))) if len(e.args) > 1 else "-1"
        num = " * ".join(_wrap(a, 2) for a in top) or "1"
        return num + "".join(f" / {_wrap(b, 3)}" for b in bottom)
    if t is Pow:
        if type(e.exp) is Num and e.exp.value == Fraction(1, 2):
            return f"sqrt({text(e.base)})"
        return f"{_wrap(e.base, 4)} ** {_wrap(e.exp, 4)}"
    if t is Call:
        return f"{e.fn}({', '.join(text(a) for a in e.args)})"
    if t is Cmp:
        return f"{text(e.left)} {e.op} {text(e.right)}"
    if t is Logic:
        return f"not {text(e.args[0])}" if e.op == "not" else _OPS[e.op].join(f"({text(a)})" for a in e.args) or ("True" if e.op == "and" else "False")
    if t is Choice:
        *pieces, (last, _) = e.pieces
        return "".join(f"if({text(c)}, {text(v)}, " for v, c in pieces) + text(last) + ")" * len(pieces)
    if t is Sum:
        k = index_name(e.index)
        hi = text(Add((e.hi, Num(Fraction(1)))))
        return f"{e.kind}({text(e.body).replace(e.index, k)} for {k} in range({text(e.lo)}, {hi}))"
    return str(e)


def _wrap(e, prec: int) -> str:
    s = text(e)
    return f"({s})" if _PREC.get(type(e), 9) < prec or (type(e) is Num and e.value < 0 and prec > 1) else s
