"""The Excel formula printer over Program nodes: precedence, units, functions, names, errors;
and 400 random Program expressions through the printer against LibreOffice (and the backend's own evaluator)."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import openpyxl
import pytest
from openpyxl.workbook.defined_name import DefinedName

from chainc import program as P
from chainc.backends.excel import xl, xlcalc
from chainc.backends.excel.names import NameTable, looks_like_reference
from chainc.backends.excel.printer import Printer
from chainc.run import evaluate

from .tools import require

x, y, z, w = (P.Ref(n) for n in "xyzw")
BASE = {"x": Fraction(3, 2), "y": Fraction(-2), "z": Fraction(3), "w": Fraction(1, 2)}  # base units
FACTOR = {"x": Fraction(1), "y": Fraction(1), "z": Fraction(1000), "w": Fraction(1)}  # z's cell holds milli-units
NAMES = {"x": "p_x", "y": "p_y", "z": "$B$3", "w": "p_w"}


def resolve(name):
    if name not in NAMES:
        return None
    return xl.Cell(NAMES[name], float(BASE[name] / FACTOR[name])), FACTOR[name]


def fx(e, factor=1) -> str:
    pr = Printer(resolve)
    text = xl.text(pr.value(e, Fraction(factor)) if not isinstance(e, (P.Cmp, P.Logic)) else pr.condition(e))
    assert not pr.problems and not pr.missing
    return text


def num(v) -> P.Num:
    return P.Num(Fraction(v))


def neg(e):
    return P.Mul((num(-1), e))


def inv(e):
    return P.Pow(e, num(-1))


TRUE = P.TRUE


@pytest.mark.parametrize(
    "expr, text",
    [
        (neg(P.Pow(x, num(2))), "-(p_x^2)"),
        (P.Add((y, neg(P.Pow(x, num(2))))), "p_y-p_x^2"),
        (P.Add((neg(x), neg(y))), "-p_x-p_y"),
        (P.Add((x, neg(y))), "p_x-p_y"),
        (P.Mul((num(-1), P.Pow(x, num(2)), y)), "-(p_x^2*p_y)"),
        (P.Mul((num(-3), P.Pow(x, num(2)))), "-(3*p_x^2)"),
        (P.Pow(P.Pow(x, num(2)), y), "IF(p_y=0,1,(p_x^2)^p_y)"),  # 0^0 is 1: #NUM! in Excel and Gnumeric
        (P.Pow(x, P.Pow(y, num(2))), "IF(p_y^2=0,1,p_x^(p_y^2))"),
        (P.Pow(x, num(-2)), "1/p_x^2"),
        (P.Pow(num(2), neg(x)), "2^(-p_x)"),
        (P.Pow(neg(x), num(2)), "p_x^2"),  # (-x)^2: the sign squared away
        (P.Mul((x, inv(y), inv(P.Add((w, num(1)))))), "p_x/p_y/(p_w+1)"),
        (P.Call("floor", (P.Mul((x, num(Fraction(1, 3)))),)), "INT(p_x/3)"),
        (P.Call("ceil", (P.Mul((x, num(Fraction(1, 3)))),)), "-INT(-(p_x/3))"),
        (P.Add((P.Call("min", (x, y)), neg(P.Call("max", (x, num(2)))))), "MIN(p_x,p_y)-MAX(p_x,2)"),
        (P.Call("sqrt", (P.Add((x, num(1))),)), "SQRT(p_x+1)"),
        (P.Pow(P.Add((x, num(1))), num(Fraction(1, 2))), "SQRT(p_x+1)"),
        (P.Pow(x, num(Fraction(-1, 2))), "1/SQRT(p_x)"),
        (P.Pow(x, num(Fraction(1, 3))), "p_x^(1/3)"),
        (P.Call("log", (x,)), "LN(p_x)"),
        (P.Call("exp", (x,)), "EXP(p_x)"),
        (P.Pow(P.Const("E"), x), "EXP(p_x)"),
        (P.Mul((num(2), P.Const("pi"))), "2*PI()"),
        (P.Call("abs", (P.Add((x, neg(y))),)), "ABS(p_x-p_y)"),
        (P.Choice(((x, P.Cmp("<=", x, y)), (num(0), TRUE))), "IF(p_x<=p_y,p_x,0)"),
        (P.Choice(((x, P.Cmp("<", x, y)), (y, P.Cmp(">", x, num(2))), (num(0), TRUE))), "IF(p_x<p_y,p_x,IF(p_x>2,p_y,0))"),
        (P.Choice(((x, P.Cmp("<", x, y)),)), "IF(p_x<p_y,p_x,NA())"),  # no branch holds: #N/A, as the solver fails
        (P.Logic("and", (P.Cmp("<", x, y), P.Logic("not", (P.Cmp(">=", y, w),)))), "AND(p_x<p_y,NOT(p_y>=p_w))"),
        (P.Logic("or", (P.Cmp("==", x, y), P.Cmp("!=", x, num(2)))), "OR(p_x=p_y,p_x<>2)"),
        (P.Mul((x, num(Fraction(1, 1000)))), "p_x/1000"),
        (P.Add((num(Fraction(1, 8)), x)), "p_x+0.125"),
        (P.Add((num(Fraction(1, 3)), x)), "p_x+1/3"),
        (P.Mul((num(Fraction(3, 2)), x)), "1.5*p_x"),
        (P.Mul((num(Fraction(*(1.5e-20).as_integer_ratio())), x)), "1.5E-20*p_x"),
        (P.Mul((num(10**20), x)), "1E+20*p_x"),
        (P.Add((P.Mul((num(8 * 10**9), x)), P.Mul((num(-8 * 10**9), y)))), "8000000000*p_x-8000000000*p_y"),
        (P.Mul((P.Add((P.Mul((num(8 * 10**9), x)), P.Mul((num(-8 * 10**9), y)))), inv(w))), "8000000000*(p_x-p_y)/p_w"),  # a common factor comes out
        (z, "1000*$B$3"),  # a cell in milli-units, read in base units
        (P.Cmp("<=", z, P.Mul((num(1000), x))), "$B$3<=p_x"),  # both sides scaled by the same factor
        (P.Call("min", (z, P.Mul((num(1000), w)))), "1000*MIN($B$3,p_w)"),
        (P.TRUE, "TRUE"),
        (P.Logic("or", ()), "FALSE"),
    ],
)
def test_golden(expr, text):
    assert fx(expr) == text
    assert " " not in text


def test_display_units():
    """The value of z (base units) written into a cell in milli-units, and x into one in kilo-units."""
    assert fx(z, Fraction(1000)) == "$B$3"
    assert fx(P.Mul((x, y)), Fraction(1, 1000)) == "1000*p_x*p_y"
    assert fx(P.Add((x, P.Mul((y, w)))), 1000) == "p_x/1000+p_w*p_y/1000" or fx(P.Add((x, P.Mul((y, w)))), 1000) == "p_x/1000+p_y*p_w/1000"


def test_unprintable_nodes_are_collected():
    pr = Printer(resolve)
    pr.value(P.Add((P.Const("I"), P.Ref("unmapped"), P.Call("zeta", (x,)), P.Pow(num(-8), num(Fraction(1, 3))))))
    assert len(pr.problems) == 4
    text = " ".join(pr.problems)
    assert "the constant I" in text and "unmapped" in text and "zeta" in text and "negative number to a fractional power" in text
    pr = Printer(resolve)
    pr.value(P.Call("lambertw", (x, num(0))))
    assert pr.missing and not pr.problems  # Excel lacks it: the statement becomes a labelled number


@pytest.mark.parametrize("name", ["A1", "a1", "XFD1048576", "$A$1", "R", "c", "R1", "C1", "RC", "R1C1", "r[1]c[-1]", "TRUE", "false"])
def test_cell_like_names(name):
    assert looks_like_reference(name)


@pytest.mark.parametrize("name", ["goodput_tpot", "x", "A1B", "_A1", "RCX", "tpot"])
def test_names_that_are_not_references(name):
    assert not looks_like_reference(name)


def test_name_table():
    t = NameTable()
    assert t.name("goodput.tpot") == "goodput_tpot"
    assert t.name("goodput.tpot") == "goodput_tpot"
    assert t.name("goodput-tpot") == "goodput_tpot_2"  # mangles to the same text: made unique
    assert t.name("GOODPUT.TPOT") == "GOODPUT_TPOT_3"  # names are case-insensitive
    assert t.name("a1") == "_a1"
    assert t.name("r") == "_r"
    assert t.name("1x") == "_1x"
    assert t.name("true") == "_true"
    assert t.name("hol-blocking.fcfs.rows") == "hol_blocking_fcfs_rows"
    for n in t.by_key.values():
        assert not looks_like_reference(n)


def test_excel_quirks_in_the_evaluator():
    """The backend's evaluator (cached values of helper cells) follows Excel: -x^2 is (-x)^2, ^ binds left."""
    cell = xl.Cell("A1", 3.0)
    assert xlcalc.value(xl.op("^", xl.Neg(cell), xl.number(2))) == 9.0
    assert xl.text(xl.op("^", xl.Neg(cell), xl.number(2))) == "(-A1)^2"
    assert xl.text(xl.Neg(xl.op("^", cell, xl.number(2)))) == "-(A1^2)"
    assert xlcalc.value(xl.op("/", cell, xl.number(0))) is xl.DIV0
    assert xlcalc.value(xl.fn("IF", xl.TRUE, cell, xl.op("/", cell, xl.number(0)))) == 3.0  # IF is lazy
    assert xlcalc.value(xl.fn("ROUND", xl.number(Fraction(5, 2)), xl.number(0))) == 3.0  # halves away from zero


# --- random expressions against LibreOffice --------------------------------------------------------

LEAVES = (x, y, z, w)


def _leaf(rng):
    r = rng.random()
    if r < 0.6:
        return rng.choice(LEAVES)
    if r < 0.85:
        return num(rng.randint(-5, 5))
    return num(Fraction(rng.randint(-9, 9), rng.choice([2, 3, 4, 5, 7, 8])))


def _positive(rng, d):
    a = _gen(rng, d)
    k = rng.randrange(3)
    if k == 0:
        return P.Add((P.Pow(a, num(2)), num(1)))
    if k == 1:
        return P.Add((P.Call("abs", (a,)), num(Fraction(1, 2))))
    return P.Call("exp", (P.Call("min", (P.Call("max", (a, num(-3))), num(3))),))


def _rel(rng, d):
    rel = P.Cmp(rng.choice(["<", "<=", ">", ">=", "==", "!="]), _gen(rng, d), _gen(rng, d))
    r = rng.random()
    if r < 0.15:
        return P.Logic("and", (rel, P.Cmp(rng.choice(["<", ">="]), _gen(rng, d), _gen(rng, d))))
    if r < 0.3:
        return P.Logic("or", (rel, P.Cmp(rng.choice([">", "<="]), _gen(rng, d), _gen(rng, d))))
    if r < 0.4:
        return P.Logic("not", (rel,))
    return rel


def _gen(rng, depth):
    if depth <= 0 or rng.random() < 0.2:
        return _leaf(rng)
    d = depth - 1
    op = rng.randrange(17)
    a = _gen(rng, d)
    if op == 0:
        return P.Add((a, _gen(rng, d)))
    if op == 1:
        return P.Add((a, neg(_gen(rng, d))))
    if op == 2:
        return P.Mul((a, _gen(rng, d)))
    if op == 3:
        return P.Mul((a, inv(_positive(rng, d))))
    if op == 4:
        return neg(a)
    if op == 5:
        return neg(P.Pow(a, num(rng.randint(2, 3))))
    if op == 6:
        return P.Pow(a, num(rng.randint(2, 4)))
    if op == 7:
        return P.Pow(_positive(rng, d), num(rng.randint(-3, -1)))
    if op == 8:
        return P.Pow(_positive(rng, d), num(Fraction(rng.choice([1, 3, -1, 5]), rng.choice([2, 3]))))
    if op == 9:  # a power of a power: (b^k)^e
        return P.Pow(P.Pow(_positive(rng, d), num(rng.randint(2, 3))), rng.choice([w, num(Fraction(1, 3)), y]))
    if op == 10:
        return P.Call(rng.choice(["min", "max"]), (a, _gen(rng, d), *([_gen(rng, d)] if rng.random() < 0.3 else [])))
    if op == 11:
        return P.Call("floor", (a,))
    if op == 12:
        return P.Call("ceil", (a,))
    if op == 13:
        return P.Choice(((a, _rel(rng, d)), (_gen(rng, d), P.TRUE)))
    if op == 14:
        return P.Call("abs", (a,))
    if op == 15:
        return P.Call("log", (_positive(rng, d),)) if rng.random() < 0.7 else P.Call("sqrt", (_positive(rng, d),))
    return P.Mul((neg(P.Add((a, _gen(rng, d)))), rng.choice([num(1), _gen(rng, d)])))


def _safe(e) -> float | None:
    """The solver's value (exact where rational), or None near a discontinuity or out of range."""
    for node in P.walk(e):
        try:
            if isinstance(node, P.Call) and node.fn in ("floor", "ceil"):
                v = float(evaluate(node.args[0], BASE))
                if abs(v - round(v)) < 1e-7:
                    return None
            if isinstance(node, P.Cmp):
                dv = float(evaluate(node.left, BASE)) - float(evaluate(node.right, BASE))
                if 0 < abs(dv) < 1e-7:
                    return None
        except (ArithmeticError, ValueError, TypeError, OverflowError):
            return None
    try:
        v = evaluate(e, BASE)
        f = float(v)
    except (ArithmeticError, ValueError, TypeError, OverflowError):
        return None
    if isinstance(v, complex) or not math.isfinite(f) or abs(f) > 1e12 or (f != 0 and abs(f) < 1e-9):
        return None
    return f


def random_cases(n: int, seed: int = 20240501) -> list[tuple[object, float]]:
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        e = _gen(rng, rng.randint(2, 4))
        if not P.refs(e) or e in seen:
            continue
        v = _safe(e)
        if v is None:
            continue
        seen.add(e)
        out.append((e, v))
    return out


def test_random_expressions_against_libreoffice(tmp_path):
    require("soffice")
    from .excel_recalc import recalculate

    cases = random_cases(400)
    kinds = {k: sum(1 for e, _ in cases if any(isinstance(n, P.Call) and n.fn == k for n in P.walk(e))) for k in ("floor", "ceil", "min", "max")}
    kinds["if"] = sum(1 for e, _ in cases if any(isinstance(n, P.Choice) for n in P.walk(e)))
    kinds["pow"] = sum(1 for e, _ in cases if any(isinstance(n, P.Pow) for n in P.walk(e)))
    assert min(kinds.values()) >= 20, kinds
    texts = [fx(e) for e, _ in cases]
    assert sum(1 for t in texts if t.startswith("-(")) >= 10
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "t"
    for k, name in enumerate("xyzw", 1):
        ws.cell(row=k, column=1, value=name)
        ws.cell(row=k, column=2, value=float(BASE[name] / FACTOR[name]))
        if not NAMES[name].startswith("$"):
            wb.defined_names[NAMES[name]] = DefinedName(NAMES[name], attr_text=f"t!$B${k}")
    first = 10
    for k, text in enumerate(texts):
        ws.cell(row=first + k, column=2, value="=" + text)
    wb.save(tmp_path / "printer.xlsx")
    (out,) = recalculate([tmp_path / "printer.xlsx"], tmp_path / "out")
    got = openpyxl.load_workbook(out, data_only=True)["t"]
    wrong = []
    for k, ((e, want), text) in enumerate(zip(cases, texts)):
        v = got.cell(row=first + k, column=2).value
        mine = xlcalc.value(Printer(resolve).value(e))
        for who, value in (("LibreOffice", v), ("the evaluator", mine)):
            value = float(value) if isinstance(value, bool) else value
            if not isinstance(value, (int, float)) or abs(value - want) > 1e-9 * abs(want) + 1e-9:
                wrong.append(f"={text}  {who} {value!r}, the solver {want!r}")
    assert not wrong, f"{len(wrong)} of {2 * len(cases)} wrong:\n" + "\n".join(wrong[:20])
