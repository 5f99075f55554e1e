"""A result's domain, live in its cell: outside it the cell is #N/A and its row says why.

The program checks each defined value against its domain right after computing it
(a Check after the Assign); the solver stops there with "x = ... is outside its
domain". The workbook does the same in cells: the formula's own value goes to a
hidden cell of the same row (column N, outside the printed A:M), the value cell is
IF(in the domain, that value, NA()), so every cell computed from it shows #N/A too,
and the description cell turns into the reason (red), naming the inputs it is
computed from: the cells a reader would change.
"""

from __future__ import annotations

from ... import program as P
from . import xl

RAW_COL = 14  # column N: a checked value before its check (hidden; the printed area is A:M)
STR_MAX = 255  # Excel's longest string literal in a formula


def restricts(dom: P.Domain) -> bool:
    return dom.kind != "real" or dom.lo is not None or dom.hi is not None or dom.values is not None


def test(node, dom: P.Domain):
    """The domain test of a display-unit number (admits() without its ISNUMBER guard)."""
    if dom.values is not None:  # runtime.values.member, to 1e-12 relative: one test per value (Excel's 8,192 characters bound the set)
        near = [xl.op("<=", xl.fn("ABS", xl.op("-", node, xl.number(v / dom.factor))), xl.number(abs(v / dom.factor) / 10**12)) for v in dom.values]
        return near[0] if len(near) == 1 else xl.fn("OR", *near)
    tests = []
    above_zero = dom.lo is not None and (dom.lo > 0 or (dom.lo == 0 and dom.kind == "nonnegative"))  # min: says it all
    if dom.kind == "positive" and not above_zero:
        tests.append(xl.op(">", node, xl.number(0)))
    elif dom.kind == "nonnegative" and not above_zero:
        tests.append(xl.op(">=", node, xl.number(0)))
    if dom.lo is not None:
        tests.append(xl.op(">=", node, xl.number(dom.lo / dom.factor)))
    if dom.hi is not None:
        tests.append(xl.op("<=", node, xl.number(dom.hi / dom.factor)))
    return tests[0] if len(tests) == 1 else xl.fn("AND", *tests) if tests else xl.TRUE


def text(s: str):
    """A string in a formula, cut into literals Excel accepts (at most 255 characters each)."""
    parts = [xl.Str(s[i : i + STR_MAX]) for i in range(0, len(s), STR_MAX)] or [xl.Str("")]
    out = parts[0]
    for p in parts[1:]:
        out = xl.op("&", out, p)
    return out


def shown(node):
    """A number as the reason quotes it: 4 decimals in a readable range, else 3 significant digits."""
    mid = xl.fn("AND", xl.op(">=", xl.fn("ABS", node), xl.number(0.001)), xl.op("<", xl.fn("ABS", node), xl.number(10**6)))
    short = xl.op("&", xl.fn("ROUND", node, xl.number(4)), xl.Str(""))
    return xl.fn("IF", xl.fn("OR", mid, xl.op("=", node, xl.number(0))), short, xl.fn("TEXT", node, xl.Str("0.00E+00")))


def upstream(program: P.Program, name: str) -> list[str]:
    """The inputs (names no statement assigns) that `name` is computed from, as the solver's program reads them."""
    defs: dict[str, set] = {}
    for s in P.statements(program.body):
        if isinstance(s, P.Assign):
            defs[s.name] = P.refs(s.expr)
        elif isinstance(s, P.Pick):
            for n in s.names:
                defs[n] = {r for c in s.candidates for e in c for r in P.refs(e)}
        elif isinstance(s, P.Search):
            for n in s.tears:
                defs[n] = {r for e in s.residuals for r in P.refs(e)} - set(s.tears)
    seen, todo, inputs = set(), [name], set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in defs:
            todo.extend(defs[n])
        elif n != name:
            inputs.add(n)
    return sorted(inputs)


def reason(name: str, raw, dom: P.Domain, what: str, inputs: list[str]):
    """`occupancy = 1.7455 is outside its domain (positive, at most 1): from ...; change arrival_rate or servers`."""
    unit = f" {dom.unit}" if dom.unit else ""
    change = ", ".join(inputs[:-1]) + f" or {inputs[-1]}" if len(inputs) > 1 else (inputs[0] if inputs else "the inputs")
    tail = f"{unit} is outside its domain ({dom.text}): from {what}; change {change}"
    return xl.op("&", xl.op("&", xl.Str(f"{name} = "), shown(raw)), text(tail))


def typed(tnode, dnode, dom: P.Domain, integer: bool, name: str, desc: str):
    """An input's value used and its description: a typed value outside the domain (or not whole) is #N/A, and the reason.

    The solver refuses such a given ("given x = -1 s is outside its domain (positive)"); the
    sheet shows the error in the input and so in everything computed from it.
    """
    t = test(tnode, dom)
    if integer and dom.factor == 1:
        t = xl.fn("AND", t, xl.op("=", xl.fn("INT", tnode), tnode))
    ok = xl.fn("IF", xl.fn("ISNUMBER", tnode), t, xl.FALSE)
    used = xl.fn("IF", xl.op("=", tnode, xl.Str("")), dnode, xl.fn("IF", ok, tnode, xl.fn("NA")))
    bad = xl.fn("IF", xl.op("=", tnode, xl.Str("")), xl.FALSE, xl.fn("NOT", ok))
    unit = f" {dom.unit}" if dom.unit else ""
    outside = text(f"{unit} is outside its domain ({dom.text}): type another value")
    if integer and dom.factor == 1:  # the solver's words: "is not a whole number" first, as it checks that first
        outside = xl.fn("IF", xl.op("=", xl.fn("INT", tnode), tnode), outside, xl.Str(f"{unit} is not a whole number: type another value"))
    why = xl.fn(
        "IF",
        xl.fn("ISNUMBER", tnode),
        xl.op("&", xl.op("&", xl.Str(f"given {name} = "), shown(tnode)), outside),
        xl.op("&", xl.op("&", xl.Str(f'given {name} = "'), tnode), xl.Str('" is not a number: type a number')),
    )
    return used, xl.fn("IF", bad, why, text(desc)), bad
