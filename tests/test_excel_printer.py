"""The Excel formula printer: precedence, functions, names, errors; and 400 random expressions against LibreOffice."""

from __future__ import annotations

import random

import openpyxl
import pytest
import sympy as sp
from openpyxl.workbook.defined_name import DefinedName

from chainc.backends.excel_printer import ExcelPrinter, ExcelPrintError, NameTable, looks_like_reference
from chainc.errors import ChaincError

from .tools import require

x, y, z, w = sp.symbols("x y z w", real=True)
NAMES = {x: "p_x", y: "p_y", z: "$B$3", w: "p_w"}
VALUES = {x: sp.Rational(3, 2), y: sp.Integer(-2), z: sp.Integer(3), w: sp.Rational(1, 2)}


def fx(e) -> str:
    return ExcelPrinter(NAMES).formula(e)


@pytest.mark.parametrize(
    "expr, text",
    [
        (-(x**2), "-(p_x^2)"),
        (y - x**2, "p_y-p_x^2"),
        (-x - y, "-p_x-p_y"),
        (x - y, "p_x-p_y"),
        (-(x**2) * y, "-p_y*p_x^2"),
        (-3 * x**2, "-3*p_x^2"),
        (sp.Pow(x**2, y, evaluate=False), "(p_x^2)^p_y"),
        (x ** (y**2), "p_x^(p_y^2)"),
        (x**-2, "1/p_x^2"),
        (2 ** (-x), "2^(-p_x)"),
        (x / (y * (z + 1)), "p_x/p_y/($B$3+1)"),
        (sp.floor(x / 3), "INT(p_x/3)"),
        (sp.ceiling(x / 3), "-INT(-p_x/3)"),
        (sp.Min(x, y) - sp.Max(x, 2), "MIN(p_x,p_y)-MAX(2,p_x)"),
        (sp.sqrt(x + 1), "SQRT(p_x+1)"),
        (sp.log(x), "LN(p_x)"),
        (sp.log(x, 2), "LN(p_x)/LN(2)"),
        (sp.exp(x), "EXP(p_x)"),
        (sp.Abs(x - y), "ABS(p_x-p_y)"),
        (sp.Piecewise((x, x <= y), (0, True)), "IF(p_x<=p_y,p_x,0)"),
        (sp.Piecewise((x, x < y), (y, x > 2), (0, True)), "IF(p_x<p_y,p_x,IF(p_x>2,p_y,0))"),
        (sp.And(x < y, sp.Not(y >= z, evaluate=False)), "AND(NOT(p_y>=$B$3),p_x<p_y)"),
        (sp.Or(sp.Eq(x, y), sp.Ne(x, 2)), "OR(p_x=p_y,p_x<>2)"),
        (x / 1000, "p_x/1000"),
        (sp.Rational(1, 8) + x, "p_x+0.125"),
        (sp.Rational(1, 3) + x, "p_x+1/3"),
        (sp.Float("1.5e-20") * x, "1.5E-20*p_x"),
        (sp.Integer(10) ** 20 * x, "1E+20*p_x"),
    ],
)
def test_golden(expr, text):
    assert fx(expr) == text
    assert " " not in fx(expr)


def test_unprintable_nodes_are_collected_and_raised():
    with pytest.raises(ExcelPrintError) as e:
        fx(sp.Integral(x, x) + sp.Symbol("unmapped") + sp.zeta(x))
    assert isinstance(e.value, ChaincError) and isinstance(e.value, ValueError)
    assert "unmapped" in e.value.message and "Integral" in e.value.message and "zeta" in e.value.message
    assert e.value.hint
    with pytest.raises(ExcelPrintError):
        fx(sp.Pow(-8, sp.Rational(1, 3), evaluate=False))
    with pytest.raises(ExcelPrintError):
        fx(sp.oo * x)
    with pytest.raises(ExcelPrintError):
        fx(sp.Function("f")(x))


def test_undefined_functions_map_to_text():
    f = sp.Function("sum_steps_clock")(x)
    assert ExcelPrinter(NAMES, {"sum_steps_clock": "SUM(r)"}).formula(2 * f) == "2*SUM(r)"


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


# --- random expressions against LibreOffice ----------------------------------------------------

SYMS = (x, y, z, w)


def _leaf(rng):
    r = rng.random()
    if r < 0.6:
        return rng.choice(SYMS)
    if r < 0.85:
        return sp.Integer(rng.randint(-5, 5))
    return sp.Rational(rng.randint(-9, 9), rng.choice([2, 3, 4, 5, 7, 8]))


def _positive(rng, d):
    a = _gen(rng, d)
    return rng.choice([a**2 + 1, sp.Abs(a) + sp.Rational(1, 2), sp.exp(sp.Min(sp.Max(a, -3, evaluate=False), 3, evaluate=False))])


def _rel(rng, d):
    a, b = _gen(rng, d), _gen(rng, d)
    rel = rng.choice([sp.Lt, sp.Le, sp.Gt, sp.Ge, sp.Eq, sp.Ne])(a, b)
    r = rng.random()
    if r < 0.15:
        return sp.And(rel, rng.choice([sp.Lt, sp.Ge])(_gen(rng, d), _gen(rng, d)))
    if r < 0.3:
        return sp.Or(rel, rng.choice([sp.Gt, sp.Le])(_gen(rng, d), _gen(rng, d)))
    if r < 0.4:
        return sp.Not(rel)
    return rel


def _gen(rng, depth):
    if depth <= 0 or rng.random() < 0.2:
        return _leaf(rng)
    d = depth - 1
    op = rng.randrange(17)
    a = _gen(rng, d)
    if op == 0:
        return a + _gen(rng, d)
    if op == 1:
        return a - _gen(rng, d)
    if op == 2:
        return a * _gen(rng, d)
    if op == 3:
        return a / _positive(rng, d)
    if op == 4:
        return -a
    if op == 5:
        return -(a ** rng.randint(2, 3))
    if op == 6:
        return a ** rng.randint(2, 4)
    if op == 7:
        return _positive(rng, d) ** rng.randint(-3, -1)
    if op == 8:
        return _positive(rng, d) ** sp.Rational(rng.choice([1, 3, -1, 5]), rng.choice([2, 3]))
    if op == 9:  # a power of a power: (b^k)^e
        return sp.Pow(sp.Pow(_positive(rng, d), rng.randint(2, 3), evaluate=False), rng.choice([w, sp.Rational(1, 3), y]), evaluate=False)
    if op == 10:
        return rng.choice([sp.Min, sp.Max])(a, _gen(rng, d), *([_gen(rng, d)] if rng.random() < 0.3 else []), evaluate=False)
    if op == 11:
        return sp.floor(a)
    if op == 12:
        return sp.ceiling(a)
    if op == 13:
        return sp.Piecewise((a, _rel(rng, d)), (_gen(rng, d), True))
    if op == 14:
        return sp.Abs(a)
    if op == 15:
        return sp.log(_positive(rng, d)) if rng.random() < 0.7 else sp.sqrt(_positive(rng, d))
    return -(a + _gen(rng, d)) * rng.choice([1, _gen(rng, d)])


def _safe(expr) -> float | None:
    """The exact value, or None when the expression is near a discontinuity or out of range."""
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.floor, sp.ceiling)):
            v = node.args[0].xreplace(VALUES)
            v = sp.N(v, 40)
            if not v.is_real or abs(v - sp.floor(v)) < 1e-7 or abs(v - sp.ceiling(v)) < 1e-7:
                return None
        if isinstance(node, sp.core.relational.Relational):
            d = sp.N((node.lhs - node.rhs).xreplace(VALUES), 40)
            if not d.is_real or (0 < abs(d) < 1e-7):
                return None
    try:
        v = sp.N(expr.xreplace(VALUES), 40)
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if not v.is_real or not v.is_finite:
        return None
    f = float(v)
    if abs(f) > 1e12 or (f != 0 and abs(f) < 1e-9):
        return None
    return f


def random_cases(n: int, seed: int = 20240501) -> list[tuple[sp.Expr, float]]:
    rng = random.Random(seed)
    out, seen = [], set()
    while len(out) < n:
        e = _gen(rng, rng.randint(2, 4))
        if e.is_number or e in seen:
            continue
        v = _safe(e)
        if v is None:
            continue
        seen.add(e)
        out.append((e, v))
    return out


def test_random_expressions_against_libreoffice(tmp_path):
    require("soffice")
    from chainc.backends.excel_recalc import recalculate

    cases = random_cases(400)
    kinds = {k: sum(1 for e, _ in cases if e.has(k)) for k in (sp.floor, sp.ceiling, sp.Min, sp.Max, sp.Piecewise, sp.Pow)}
    assert min(kinds.values()) >= 20, kinds
    assert sum(1 for e, _ in cases if fx(e).startswith("-(")) >= 10
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "t"
    for k, s in enumerate(SYMS, 1):
        ws.cell(row=k, column=1, value=s.name)
        ws.cell(row=k, column=2, value=float(VALUES[s]))
    for s, name in NAMES.items():
        if not name.startswith("$"):
            row = SYMS.index(s) + 1
            wb.defined_names[name] = DefinedName(name, attr_text=f"t!$B${row}")
    first = 10
    for k, (e, _) in enumerate(cases):
        ws.cell(row=first + k, column=1, value=str(e)).data_type = "s"
        ws.cell(row=first + k, column=2, value="=" + fx(e))
    wb.save(tmp_path / "printer.xlsx")
    (out,) = recalculate([tmp_path / "printer.xlsx"], tmp_path / "out")
    got = openpyxl.load_workbook(out, data_only=True)["t"]
    wrong = []
    for k, (e, want) in enumerate(cases):
        v = got.cell(row=first + k, column=2).value
        if isinstance(v, bool):
            v = float(v)
        if not isinstance(v, (int, float)) or abs(v - want) > 1e-9 * abs(want) + 1e-9:
            wrong.append(f"{e}  ->  ={fx(e)}  LibreOffice {v!r}, SymPy {want!r}")
    assert not wrong, f"{len(wrong)} of {len(cases)} wrong:\n" + "\n".join(wrong[:20])
