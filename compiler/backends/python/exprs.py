"""Program expressions as Python source: one printer per flavour, dispatching on the node type.

`ScalarPrinter` prints plain Python on floats (`math.floor`, `min`, `a if c else b`);
`NumpyPrinter` overrides what differs over arrays (`np.floor`, `np.minimum`,
`np.where`, `np.logical_and`). The function tables are data. The layout is the one
`ruff format` keeps: spaces around binary operators, `**` hugged between simple
operands, a unary minus over a power parenthesised. Anything the printer has no
rule for (an unknown function, a constant it cannot write) is not printed: it is
recorded in `gaps` with the statement's place, and the backend raises them all
together.
"""

from __future__ import annotations

import re
from fractions import Fraction

from ... import program as P
from .names import literal, number

# precedence levels, as Python binds them
COND, OR, AND, NOT, CMP, ADD, MUL, UNARY, POW, ATOM = range(1, 11)
_SIMPLE = re.compile(r"^-?(?:[A-Za-z_][A-Za-z0-9_.]*|\d[\d.]*(?:e[-+]?\d+)?)$")


class Gap(Exception):
    """One construct the printer cannot print (caught per statement, collected)."""

    def __init__(self, construct: str):
        super().__init__(construct)
        self.construct = construct


class ScalarPrinter:
    """Program expression -> Python source over floats; `names` maps every Ref to a local identifier."""

    backend = "Python"
    calls = {
        "floor": "math.floor", "ceil": "math.ceil", "abs": "abs", "sqrt": "math.sqrt", "exp": "math.exp", "log": "math.log",
        "min": "min", "max": "max", "lambertw": "_lambertw", "factorial": "_factorial", "gamma": "math.gamma",
    }  # fmt: skip
    consts = {"pi": "math.pi", "E": "math.e", "I": "1j"}
    arity = P.FUNCTIONS

    def __init__(self, names):  # a statements.Locals
        self.names = names
        self.used: set[str] = set()  # helpers and modules the printed code needs ('math', '_lambertw')
        self.counts: list[str] = []  # the term counts of the sums around the expression being printed (the sum_terms limit)

    def code(self, e, need: int = 0) -> str:
        text, prec = self.p(e)
        return f"({text})" if prec < need else text

    def residual(self, e) -> str:
        """A numeric block's residual: a sum's terms added without cancellation error, as the solver adds them."""
        if not isinstance(e, P.Add) or len(e.args) < 2:
            return self.code(e)
        self.used.add(self.exact_sum)
        return f"{self.exact_sum}(({', '.join(self.code(a) for a in e.args)}))"

    exact_sum = "_exact_sum"

    def p(self, e) -> tuple[str, int]:
        method = getattr(self, f"_print_{type(e).__name__}", None)
        if method is None:
            raise Gap(f"the expression node {type(e).__name__}")
        return method(e)

    # --- atoms -------------------------------------------------------------------------------------------

    def _print_Num(self, e: P.Num) -> tuple[str, int]:
        text = number(e.value)
        return text, (UNARY if text.startswith("-") else ATOM)

    def _print_Const(self, e: P.Const) -> tuple[str, int]:
        if e.name not in self.consts:
            raise Gap(f"the constant {e.name}")
        text = self.consts[e.name]
        self._note(text)
        return text, ATOM

    def _print_Ref(self, e: P.Ref) -> tuple[str, int]:
        if e.name not in self.names:
            raise Gap(f"the name {e.name!r} (not computed before it is used)")
        return self.names[e.name], ATOM

    # --- arithmetic ----------------------------------------------------------------------------------------

    def _print_Add(self, e: P.Add) -> tuple[str, int]:
        if len(e.args) < 2:
            return self.p(e.args[0]) if e.args else ("0", ATOM)
        out = self.code(e.args[0], ADD)
        for term in e.args[1:]:
            negated = _negated(term)
            out += f" - {self.code(negated, MUL)}" if negated is not None else f" + {self.code(term, MUL)}"
        return out, ADD

    def _print_Mul(self, e: P.Mul) -> tuple[str, int]:
        coeff, num, den = Fraction(1), [], []
        for f in e.args:
            if isinstance(f, P.Num):
                coeff *= f.value
            elif isinstance(f, P.Pow) and isinstance(f.exp, P.Num) and f.exp.value < 0:
                den.append(f.base if f.exp.value == -1 else P.Pow(f.base, P.Num(-f.exp.value)))
            else:
                num.append(f)
        negative, coeff = coeff < 0, abs(coeff)
        if coeff.denominator != 1:
            den.insert(0, P.Num(Fraction(coeff.denominator)))
        lead = [str(coeff.numerator)] if coeff.numerator != 1 or not num else []
        if not lead and len(num) == 1 and not den:  # one factor: itself, or its negation
            return (f"-{self.code(num[0], ATOM)}", UNARY) if negative else self.p(num[0])
        if not num and not den:
            return (f"-{lead[0]}", UNARY) if negative else (lead[0], ATOM)
        parts = lead + [self.code(f, (ATOM if negative else MUL) if i == 0 and not lead else MUL + 1) for i, f in enumerate(num)]
        text = ("-" if negative else "") + " * ".join(parts)
        if len(den) == 1:
            text += " / " + self.code(den[0], MUL + 1)
        elif den:
            text += " / (" + " * ".join(self.code(d, MUL + 1) for d in den) + ")"
        return text, MUL

    def _print_Pow(self, e: P.Pow) -> tuple[str, int]:
        if isinstance(e.exp, P.Num) and e.exp.value < 0:
            return self._print_Mul(P.Mul((e,)))
        if isinstance(e.exp, P.Num) and e.exp.value == 1:
            return self.p(e.base)
        base, exp = self.code(e.base, ATOM), self.code(e.exp, UNARY)
        hug = _SIMPLE.match(base) and _SIMPLE.match(exp)
        return (f"{base}**{exp}" if hug else f"{base} ** {exp}"), POW

    def _print_Call(self, e: P.Call) -> tuple[str, int]:
        fn = self.calls.get(e.fn)
        arity = self.arity.get(e.fn, -1)
        if fn is None or (arity is not None and arity != -1 and len(e.args) != arity) or not e.args:
            raise Gap(f"the function {e.fn}() with {len(e.args)} argument{'s' if len(e.args) != 1 else ''}")
        self._note(fn)
        return self.call(fn, e)

    def call(self, fn: str, e: P.Call) -> tuple[str, int]:
        return f"{fn}({', '.join(self.code(a) for a in e.args)})", ATOM

    # --- conditions ----------------------------------------------------------------------------------------

    def _print_Cmp(self, e: P.Cmp) -> tuple[str, int]:
        return f"{self.code(e.left, CMP + 1)} {e.op} {self.code(e.right, CMP + 1)}", CMP

    def _print_Logic(self, e: P.Logic) -> tuple[str, int]:
        if e.op == "not":
            return f"not {self.code(e.args[0], NOT)}", NOT
        if not e.args:
            return ("True" if e.op == "and" else "False"), ATOM
        if len(e.args) == 1:
            return self.p(e.args[0])
        prec = AND if e.op == "and" else OR
        return f" {e.op} ".join(self.code(a, prec + 1) for a in e.args), prec

    def _print_Choice(self, e: P.Choice) -> tuple[str, int]:
        *pieces, (last, cond) = e.pieces
        if cond != P.TRUE:
            raise Gap("a condition without an otherwise branch")
        out = self.code(last, COND)
        for value, c in reversed(pieces):
            out = f"{self.code(value, COND + 1)} if {self.code(c, COND + 1)} else {out}"
        return out, COND if pieces else self.p(last)[1]

    def _print_Sum(self, e: P.Sum) -> tuple[str, int]:
        """sum(term for k in range(lo, hi + 1)): the index is a local of the generator (math.prod for a product)."""
        k = self._index(e)
        lo, hi = self.code(e.lo), self.code(past(e.hi))
        around = self.around()
        body = self.inside(e, self.code(past(e.hi), ADD), e.lo)
        self.names.unbind(e.index)
        self.used |= {"_terms", "math"}
        fn = "sum" if e.kind == "sum" else "math.prod"
        return f"{fn}({body} for {k} in _terms({lo}, {hi}{around}))", ATOM

    def around(self) -> str:
        """The sums around this one, as _terms's and _finite_np's argument: the product of their term counts."""
        return f", {' * '.join(self.counts)}" if self.counts else ""

    def inside(self, e: P.Sum, past_hi: str, lo) -> str:
        """The sum's body, printed with its term count (past_hi - lo) among the counts around."""
        count = past_hi if lo == P.Num(0) else f"{past_hi} - {self.code(lo, ADD + 1)}"
        self.counts.append(f"max({count}, 0)" if self.backend == "Python" else f"np.maximum({count}, 0)")
        try:
            return self.code(e.body)
        finally:
            self.counts.pop()

    def _index(self, e: P.Sum) -> str:
        """A local name for a sum's index that no name of the model takes."""
        return self.names.bind(e.index, P.index_name(e.index))

    def _note(self, text: str) -> None:
        head = text.split(".")[0].split("(")[0]
        if head in ("math", "np") or head.startswith("_"):
            self.used.add(head)


def past(hi):
    """hi + 1, the end of a Python range; `range(n)` in the model lowers to the bound n - 1 and prints back as n."""
    if isinstance(hi, P.Num):
        return P.Num(hi.value + 1)
    if isinstance(hi, P.Add):
        rest = [a for a in hi.args if a != P.Num(Fraction(-1))]
        if len(rest) == len(hi.args) - 1:
            return rest[0] if len(rest) == 1 else P.Add(tuple(rest))
    return P.Add((hi, P.Num(Fraction(1))))


class NumpyPrinter(ScalarPrinter):
    """The same expressions over NumPy arrays: ufuncs, np.where for choices, logical_* for and/or/not."""

    backend = "NumPy"
    exact_sum = "_exact_sum_np"
    quiet = False  # set by a search trial's writer: a sum's bound that is not whole is no value there (NaN), not an error

    def _print_Num(self, e: P.Num) -> tuple[str, int]:
        # a large whole number as a float: NumPy's int64 would overflow without a word (16e9 * np.minimum(16e9, x))
        if Fraction(e.value).denominator == 1 and abs(e.value) >= 2**31:
            text = repr(float(e.value))
            return text, (UNARY if text.startswith("-") else ATOM)
        return super()._print_Num(e)

    calls = {
        "floor": "np.floor", "ceil": "np.ceil", "abs": "np.abs", "sqrt": "np.sqrt", "exp": "np.exp", "log": "np.log",
        "min": "np.minimum", "max": "np.maximum", "lambertw": "_lambertw_np", "factorial": "_factorial_np", "gamma": "_gamma_np",
    }  # fmt: skip
    consts = {"pi": "np.pi", "E": "np.e", "I": "1j"}

    def _print_Pow(self, e: P.Pow) -> tuple[str, int]:
        if isinstance(e.exp, P.Num) and e.exp.value.denominator == 1:
            return super()._print_Pow(e)
        self.used.add("_cpow")  # a negative base goes through complex numbers, as ** does on Python floats
        if isinstance(e.exp, P.Num) and e.exp.value < 0:
            return self._print_Mul(P.Mul((e,)))
        return f"_cpow({self.code(e.base)}, {self.code(e.exp)})", ATOM

    def call(self, fn: str, e: P.Call) -> tuple[str, int]:
        if fn in ("np.minimum", "np.maximum"):  # binary ufuncs, nested for more arguments
            args = [self.code(a) for a in e.args]
            out = args[-1]
            for a in reversed(args[:-1]):
                out = f"{fn}({a}, {out})"
            return out, ATOM
        return super().call(fn, e)

    def _print_Logic(self, e: P.Logic) -> tuple[str, int]:
        self.used.add("np")
        if e.op == "not":
            return f"np.logical_not({self.code(e.args[0])})", ATOM
        if not e.args:
            return ("True" if e.op == "and" else "False"), ATOM
        fn = "np.logical_and" if e.op == "and" else "np.logical_or"
        args = [self.code(a) for a in e.args]
        out = args[-1]
        for a in reversed(args[:-1]):
            out = f"{fn}({a}, {out})"
        return out, ATOM

    def _print_Sum(self, e: P.Sum) -> tuple[str, int]:
        """The sum over every point at once: terms past a point's own bounds count as 0 (1 in a product)."""
        k = self._index(e)
        lo, hi = self.code(e.lo), self.code(e.hi)
        around = self.around()
        body = self.inside(e, f"{self.code(e.hi, ADD)} + 1", e.lo)
        self.names.unbind(e.index)
        self.used |= {"_finite_np", "np"}
        quiet = ", quiet=True" if self.quiet else ""
        return f"_finite_np({literal(e.kind)}, lambda {k}: {body}, {lo}, {hi}{around}{quiet})", ATOM

    def _print_Choice(self, e: P.Choice) -> tuple[str, int]:
        *pieces, (last, cond) = e.pieces
        if cond != P.TRUE:
            raise Gap("a condition without an otherwise branch")
        self.used.add("np")
        out = self.code(last)
        for value, c in reversed(pieces):
            out = f"np.where({self.code(c)}, {self.code(value)}, {out})"
        return out, ATOM


def _negated(term):
    """-term's positive part when a term of a sum is negative (a negative number, or a product with one), else None."""
    if isinstance(term, P.Num) and term.value < 0:
        return P.Num(-term.value)
    if isinstance(term, P.Mul) and term.args and isinstance(term.args[0], P.Num) and term.args[0].value < 0:
        rest = term.args[1:]
        coeff = -term.args[0].value
        args = rest if coeff == 1 else (P.Num(coeff), *rest)
        return P.Mul(args) if len(args) != 1 else args[0]
    return None


def may_fail(e) -> bool:
    """Whether evaluating e on floats can raise (a division, a root, a logarithm, a call that rounds an infinity)."""
    for n in P.walk(e):
        if isinstance(n, P.Pow) and not (isinstance(n.exp, P.Num) and n.exp.value.denominator == 1 and n.exp.value > 0):
            return True
        if isinstance(n, P.Call) and n.fn not in ("abs", "min", "max"):
            return True
    return False


def may_be_complex(e) -> bool:
    """Whether e on floats can give a complex number (a non-integer power, the imaginary unit)."""
    for n in P.walk(e):
        if isinstance(n, P.Pow) and not (isinstance(n.exp, P.Num) and n.exp.value.denominator == 1):
            return True
        if isinstance(n, P.Const) and n.name == "I":
            return True
    return False
