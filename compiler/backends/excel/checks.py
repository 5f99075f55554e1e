"""A chain's checks: the computed value beside the card's, a status that turns green or red.

A check at the sheet's own inputs reads the result (or question) cell; a check
at given values (batch 128) runs the check's program in its own row, in the
hidden helper columns to the right, with the given values as constants there;
a program a row cannot hold (a table, a search) is the Report's number in a
labelled cell.
"""

from __future__ import annotations

from fractions import Fraction

from openpyxl.utils import get_column_letter

from ... import lower
from ... import program as P
from ...quantities import exact
from . import xl
from .cells import BOLD, BOOLEAN_FORMAT, GREY_FONT, number_format
from .emit import Emitter, NotLive, Row, live

HELPER_COL = 16  # helper cells (a check's program at its givens, a sweep's intermediate values) from column P


def _display(v, factor) -> float:
    return float(Fraction(v) / factor) if not isinstance(v, float) else v / float(factor)


def write_checks(chain, row: int) -> int:
    sh = chain.sheet
    sh.section(row, "Checks")
    sh.long(row, 3, 9, "computed beside expected; green when they agree within the tolerance", font=GREY_FONT)
    sh.header(row + 1, ["check", "computed", "expected", "unit", "tolerance", "status", "about"])
    row += 2
    for k, o in enumerate(chain.report.checks):
        row = _check(chain, k, o, row)
    chain.helper_columns = max(getattr(chain, "helper_columns", HELPER_COL), HELPER_COL)
    return row + 1


def _scope(chain, o, row: int):
    """The scope a check's values come from: the sheet's, or its program at its givens in helper columns (None: not live)."""
    check = o.check
    if not check.given or check.question:
        return chain.scope
    program = o.solution.program if o.solution is not None else chain.report.solution.program
    if not live(program):
        return None
    scope = chain.scope.child()
    target = Row(chain.sheet, row, HELPER_COL)
    for n, v in check.given:
        f = exact(chain.model.variables[n].factor)
        r, c, ref = target.place(n, n, True)
        chain.sheet.number(r, c, _display(v, f))
        scope.slots[n] = (xl.Cell(ref, _display(v, f)), f)
    try:
        Emitter(chain.sheet, program, scope, target, chain.factor, o.solution.values if o.solution is not None else None, formats=chain.formats).run()
    except NotLive:
        return None
    chain.helper_columns = max(getattr(chain, "helper_columns", HELPER_COL), target.col)
    return scope


def _check(chain, k: int, o, row: int) -> int:
    sh, m = chain.sheet, chain.model
    check = o.check
    at = ", ".join(f"{n} = {xl.as_text(_display(v, exact(m.variables[n].factor)))} {m.variables[n].unit}".rstrip() for n, v in check.given)
    about = check.about + (f"  (at {at})" if at else "")
    title = sh.ws.title
    if o.error is not None:
        sh.text(row, 1, check.question or "check", font=BOLD)
        sh.fixed(row, 2, None, "General", o.error.message)
        sh.text(row, 6, "FAIL")
        sh.long(row, 7, 13, f"{about}: {o.error.message}")
        return row + 1
    scope = _scope(chain, o, row)
    own, hardware = chain.own_hardware()
    for e, got in zip(check.expect, o.expected):
        var = m.variables[e.name]
        f = exact(var.factor)
        sh.text(row, 1, got.label, font=BOLD)
        want = _display(e.value, f)
        cached = _display(got.got, f)
        fmt = number_format(want if want else cached, integer=var.domain.integer)
        if check.question and not check.given:
            node = chain.scope.resolve(f"?{check.question}")[0]
        elif check.question or scope is None:
            node = None
        else:
            node = scope.resolve(e.name)[0]
        if node is None:
            where = f"question {check.question}" if check.question else e.name
            sh.fixed(row, 2, cached, fmt, f"{where} at {at}: the compiler's value at build time; set those inputs on this sheet to see it live.")
        else:
            sh.formula(row, 2, node, cached, fmt)
        chain.book.manifest.cells[(m.name, "check", k, e.name)] = (title, f"B{row}")
        sh.number(row, 3, want, fmt)
        sh.text(row, 4, var.unit)
        b, c = xl.Cell(f"$B{row}", cached), xl.Cell(f"$C{row}", want)
        diff = xl.fn("ABS", xl.op("-", b, c))
        conds, tol = [], []
        if e.abs_tol is not None:
            t = exact(e.abs_tol) / f
            tol.append(f"± {xl.as_text(float(t))} {var.unit}".rstrip())
            conds.append(xl.op("<=", diff, xl.number(t)))
        if e.rel_tol is not None:
            tol.append(f"± {xl.as_text(float(exact(e.rel_tol)) * 100)}%")
            conds.append(xl.op("<=", diff, xl.op("*", xl.number(exact(e.rel_tol)), xl.fn("ABS", c))))
        ok = conds[0] if len(conds) == 1 else xl.fn("OR", *conds) if conds else xl.op("=", b, c)
        sh.text(row, 5, " or ".join(tol) or "exact")
        sh.status(row, 6, xl.fn("IFERROR", ok, xl.FALSE), colour=[f"B{row}"], own=own, reference=f"card: {e.written} on {hardware}")
        chain.book.manifest.cells[(m.name, "status", k, e.name)] = (title, f"F{row}")
        sh.long(row, 7, 13, about)
        row += 1
    if check.that is not None:
        sh.text(row, 1, "that", font=BOLD)
        if scope is not None:
            pr = chain.printer(scope)
            node = pr.condition(lower.expr(check.that), approx_eq=True)
            chain.report_problems(pr, P.Site(check.loc, f"check: {check.that_text}"))
            sh.formula(row, 2, node, bool(o.that_ok), BOOLEAN_FORMAT)
        else:
            sh.fixed(row, 2, bool(o.that_ok), BOOLEAN_FORMAT, f"'{check.that_text}' at {at}: the compiler's verdict at build time.")
        chain.book.manifest.cells[(m.name, "that", k)] = (title, f"B{row}")
        sh.ws.cell(row=row, column=3, value=True).number_format = BOOLEAN_FORMAT
        sh.text(row, 5, "holds")
        sh.status(row, 6, xl.fn("IFERROR", xl.op("=", xl.Cell(f"$B{row}", bool(o.that_ok)), xl.TRUE), xl.FALSE), own=own, reference=f"card: holds on {hardware}")
        chain.book.manifest.cells[(m.name, "status", k, "that")] = (title, f"F{row}")
        sh.long(row, 7, 13, f"{about}: {check.that_text}")
        row += 1
    return row


def hide_helpers(chain) -> None:
    """The helper columns are the program's working, not the sheet's story: hidden."""
    last = getattr(chain, "helper_columns", None)
    if last is None:
        return
    for col in range(HELPER_COL, last + 1):
        chain.sheet.ws.column_dimensions[get_column_letter(col)].hidden = True
    chain.sheet.text(1, HELPER_COL, "helper cells: the checks' and sweeps' programs at their own inputs", font=GREY_FONT)
