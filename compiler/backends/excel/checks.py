"""A chain's checks: the computed value beside the expected one, a status that turns green or red.

A check at the sheet's own inputs reads the result (or question) cell; a check
at given values (batch 128) runs the check's program in its own row, in the
hidden helper columns to the right, with the given values as constants there;
a program a row cannot hold (a table, a search) is the Report's number in a
labelled cell.
"""

from __future__ import annotations

import re
from fractions import Fraction

from openpyxl.styles import Alignment
from openpyxl.utils import get_column_letter

from ... import lower
from ... import program as P
from ...numbers import exact
from . import xl, xlcalc
from .cells import BOLD, BOOLEAN_FORMAT, GREY_FONT, number_format
from .emit import Emitter, NotLive, Row, live

HELPER_COL = 16  # helper cells (a check's program at its givens, a sweep's intermediate values) from column P


def _display(v, factor) -> float:
    return float(Fraction(v) / factor) if not isinstance(v, float) else v / float(factor)


def write_checks(chain, row: int) -> int:
    sh = chain.sheet
    sh.section(row, "Checks")
    own, hardware = chain.own_hardware()
    source = chain.model.expected_from  # 'card': where the expected numbers come from, when the model says
    values = f"the expected values ({source})" if source else "the expected values"
    here = f"{values}, beside the computed ones: green when they agree within the tolerance, red when not"
    if own is None:
        sh.long(row, 3, 13, here, font=GREY_FONT)
    else:
        note = xl.fn("IF", own, xl.Str(f"{here} (they are for {hardware})"), xl.Str(f"{values} are for {hardware}: on this hardware they are a reference, not a check"))
        c = sh.formula(row, 3, note, None)
        c.font, c.alignment = GREY_FONT, Alignment(wrap_text=True, vertical="top")
        sh.ws.merge_cells(start_row=row, start_column=3, end_row=row, end_column=13)
        chain.book.manifest.cells[(chain.model.name, "checks note")] = (sh.ws.title, f"C{row}")
    sh.header(row + 1, ["check", "computed", f"expected ({source})" if source else "expected", "unit", "tolerance", "status", "about"], span=13)
    row += 2
    for k, o in enumerate(chain.report.checks):
        row = _check(chain, k, o, row)
    chain.helper_columns = max(getattr(chain, "helper_columns", HELPER_COL), HELPER_COL)
    return row + 1


def _scope(chain, o, row: int):
    """The scope a check's values come from: the sheet's, or its program at its givens in helper columns (None: not live).

    In helper columns, the conditions the solver would stop on (a value outside its domain, a zero divisor) are
    `scope.valid`: where one fails, at the givens and what the reader typed, the check has no value (#N/A).
    """
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
    emitter = Emitter(chain.sheet, program, scope, target, chain.factor, o.solution.values if o.solution is not None else None, formats=chain.formats)
    try:
        emitter.run()
    except NotLive:
        return None
    valid = xl.all_of(emitter.oks)
    if valid is not None:  # one helper cell the check's cells read
        r, c, ref = target.place("#valid", "valid", True)
        chain.sheet.formula(r, c, valid, True, BOOLEAN_FORMAT)
        scope.valid = xl.Cell(ref, True)
    chain.helper_columns = max(getattr(chain, "helper_columns", HELPER_COL), target.col)
    return scope


def _valid(scope, node, about: str):
    """A check's value in helper columns: #N/A where the solver stops at those inputs; the about text says so."""
    valid = getattr(scope, "valid", None) if scope is not None else None
    if valid is None or node is None:
        return node, xl.Str(about)
    why = f"{about}: no value at these inputs, a value leaves its domain or a divisor is 0 (the solver refuses them)"
    return xl.fn("IF", valid, node, xl.fn("NA")), xl.fn("IF", xl.fn("IFERROR", valid, xl.FALSE), xl.Str(about), xl.Str(why))


def _given_text(var, v) -> str:
    """A check's given value as its about text quotes it: a choice by its name (lookups.py)."""
    if var.choices:
        return var.choices[int(v) - 1]
    return f"{xl.as_text(_display(v, exact(var.factor)))} {var.unit}"


def _check(chain, k: int, o, row: int) -> int:
    sh, m = chain.sheet, chain.model
    check = o.check
    at = ", ".join(f"{n} = {_given_text(m.variables[n], v)}".rstrip() for n, v in check.given)
    about = " ".join(check.about.split()) + (f"  (at {at})" if at else "")  # a folded YAML text ends in a newline
    title = sh.ws.title
    if o.error is not None:
        sh.text(row, 1, check.question or "check", font=BOLD)
        sh.fixed(row, 2, None, "General", o.error.message)
        sh.text(row, 6, "FAIL" if o.applies else "reference")  # no value: written for other hardware, or the ideal machine
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
        if check.question in m.searches and not check.given:  # a search's: its best configuration's cell (search_summary.py)
            found = chain.scope.resolve(f"?{check.question}#{e.name}")
            node = found[0] if found is not None else None
        elif check.question and not check.given:
            node = chain.scope.resolve(f"?{check.question}")[0]
        elif check.question or scope is None:
            node = None
        else:
            node = scope.resolve(e.name)[0]
        node, about_node = _valid(scope, node, about)
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
        # the tolerance is a named cell the status formula reads: no constant typed into a formula
        if e.abs_tol is not None:
            t = exact(e.abs_tol) / f
            tol = sh.number(row, 5, t, f'"± "{number_format(t, exact=True)}' + (f'" {_quoted(var.unit)}"' if var.unit else ""))
            limit = xl.Cell(sh.define(f"{m.name}.check{k + 1}.{e.name}.tolerance", f"$E${row}"), float(t))
            ok = xl.op("<=", diff, limit)
        elif e.rel_tol is not None:
            t = exact(e.rel_tol)
            tol = sh.number(row, 5, t, '"± "0.00%' if t >= Fraction(1, 10**4) else '"± "0.00E+00')
            limit = xl.Cell(sh.define(f"{m.name}.check{k + 1}.{e.name}.tolerance", f"$E${row}"), float(t))
            ok = xl.op("<=", diff, xl.op("*", limit, xl.fn("ABS", c)))
        else:
            tol, ok = sh.text(row, 5, "exact"), xl.op("=", b, c)
        tol.alignment = Alignment(horizontal="left")
        sh.status(row, 6, xl.fn("IFERROR", ok, xl.FALSE), colour=[f"B{row}"], own=own)
        chain.book.manifest.cells[(m.name, "status", k, e.name)] = (title, f"F{row}")
        _about(sh, row, about, about_node)
        row += 1
    for kind, want in getattr(check, "entries", ()):  # a search's chosen catalog entry: the id, compared as text
        got = next(x for x in o.expected if x.name == kind)
        sh.text(row, 1, got.label, font=BOLD)
        found = chain.scope.resolve(f"?{check.question}#{kind}") if not check.given else None
        if found is not None:
            sh.formula(row, 2, found[0], got.got)
        else:
            sh.fixed(row, 2, got.got, "General", f"question {check.question} at {at}: the compiler's choice at build time")
        chain.book.manifest.cells[(m.name, "check", k, kind)] = (title, f"B{row}")
        sh.text(row, 3, want)
        sh.text(row, 5, "exact")
        sh.status(row, 6, xl.fn("IFERROR", xl.op("=", xl.Cell(f"$B{row}", got.got), xl.Cell(f"$C{row}", want)), xl.FALSE), colour=[f"B{row}"], own=own)
        chain.book.manifest.cells[(m.name, "status", k, kind)] = (title, f"F{row}")
        _about(sh, row, about, xl.Str(about))
        row += 1
    if check.that is not None:
        row = _that(chain, k, o, scope, row, own, hardware, about, at)
    return row


def _quoted(unit: str) -> str:
    return unit.replace('"', "")


MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
_OPS = re.compile(r"<=|>=|==|!=|<|>")


def _names(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", re.sub(r"\[[^\]]*\]", "", text)))


def _as_written(rel: P.Cmp, text: str) -> P.Cmp | None:
    """The comparison turned the way the text writes it (SymPy may have mirrored it), or None if it does not match."""
    m = _OPS.search(text)
    if m is None:
        return None
    left, op = _names(text[: m.start()]), m.group(0)
    for cand in (rel, P.Cmp(MIRROR[rel.op], rel.right, rel.left)):
        if cand.op == op and left & P.refs(cand.left) and not left & P.refs(cand.right):
            return cand
    return None


def _unit(m, chain, rel: P.Cmp) -> tuple[str, Fraction]:
    """The unit both sides are shown in: a side that is a variable, or a variable term of a sum; else base units."""
    for side in (rel.left, rel.right):
        terms = side.args if isinstance(side, P.Add) else (side,)
        ref = next((t for t in terms if isinstance(t, P.Ref) and t.name in m.variables), None)
        if ref is not None:
            return m.variables[ref.name].unit, chain.factor(ref.name)
    return "(base units)", Fraction(1)


def _parts(check):
    """The relation's comparisons, each with its text and turned as written: an `and` of comparisons is a row each."""
    rel = lower.expr(check.that)
    if isinstance(rel, P.Logic) and rel.op == "and" and all(isinstance(a, P.Cmp) for a in rel.args):
        texts = [t.strip() for t in check.that_text.split(" and ")]
        if len(texts) == len(rel.args):
            left, out = list(rel.args), []
            for t in texts:
                found = next(((a, w) for a in left if (w := _as_written(a, t)) is not None), None)
                if found is None:
                    break
                left.remove(found[0])
                out.append((found[1], t))
            else:
                return out
        return [(a, f"part {j + 1} of: {check.that_text}") for j, a in enumerate(rel.args)]
    if isinstance(rel, P.Cmp):
        return [(_as_written(rel, check.that_text) or rel, check.that_text)]
    return [(rel, check.that_text)]


def _that(chain, k: int, o, scope, row: int, own, hardware: str, about: str, at: str) -> int:
    """A `that` check as the readable condition: its left side, its right side (a constant is a named cell), the relation."""
    sh, m = chain.sheet, chain.model
    title = sh.ws.title
    parts = _parts(o.check)
    for j, (rel, text) in enumerate(parts):
        sh.text(row, 1, text, font=BOLD)
        key = "that" if len(parts) == 1 else f"that{j + 1}"
        about_node = xl.Str(about)  # a formula where the helper columns' inputs can leave a domain (_valid)
        if scope is None or not isinstance(rel, P.Cmp):
            holds = bool(o.that_ok) if len(parts) == 1 else None
            if scope is None:
                sh.fixed(row, 2, holds, BOOLEAN_FORMAT, f"'{text}' at {at}: the compiler's verdict at build time.")
                node = xl.Cell(f"$B{row}", holds)
            else:
                pr = chain.printer(scope)
                node, about_node = _valid(scope, pr.condition(rel, approx_eq=True), about)
                chain.report_problems(pr, P.Site(o.check.loc, f"check: {o.check.that_text}"))
                sh.formula(row, 2, node, holds, BOOLEAN_FORMAT)
                node = xl.Cell(f"$B{row}", xlcalc.value(node))
            sh.ws.cell(row=row, column=3, value=True).number_format = BOOLEAN_FORMAT
            sh.text(row, 5, "holds")
            ok = xl.op("=", node, xl.TRUE)
        else:
            unit, f = _unit(m, chain, rel)
            pr = chain.printer(scope)
            left, about_node = _valid(scope, pr.value(rel.left, f), about)
            right = _valid(scope, pr.value(rel.right, f), about)[0]
            chain.report_problems(pr, P.Site(o.check.loc, f"check: {o.check.that_text}"))
            sides = o.that_sides if len(parts) == 1 and o.that_sides is not None else (None, None)
            if len(parts) == 1 and isinstance(lower.expr(o.check.that), P.Cmp) and lower.expr(o.check.that).left != rel.left:
                sides = sides[::-1]
            cached = [_display(v, f) if v is not None else None for v in sides]
            fmt = number_format(cached[0] if cached[0] is not None else xlcalc.value(left))
            sh.formula(row, 2, left, cached[0], fmt)
            if not P.refs(rel.right):  # a constant of the check: a named cell
                sh.number(row, 3, xlcalc.value(right), fmt)
                sh.define(f"{m.name}.check{k + 1}.{key}.limit", f"$C${row}")
            else:
                sh.formula(row, 3, right, cached[1], fmt)
            sh.text(row, 4, unit)
            sh.text(row, 5, {"==": "= (to 1e-9)", "!=": "≠"}.get(rel.op, rel.op)).alignment = Alignment(horizontal="center")
            b, c = xl.Cell(f"$B{row}", xlcalc.value(left)), xl.Cell(f"$C{row}", xlcalc.value(right))
            ok = (
                xl.op({"==": "=", "!=": "<>"}.get(rel.op, rel.op), b, c)
                if rel.op != "=="
                else xl.fn("OR", xl.op("=", b, c), xl.op("<=", xl.fn("ABS", xl.op("-", b, c)), xl.op("*", xl.number(Fraction(1, 10**9)), xl.fn("ABS", c))))
            )
        chain.book.manifest.cells[(m.name, "that", k, j)] = (title, f"B{row}")
        sh.status(row, 6, xl.fn("IFERROR", ok, xl.FALSE), colour=[f"B{row}"], own=own)
        chain.book.manifest.cells[(m.name, "status", k, key)] = (title, f"F{row}")
        if j == 0:
            _about(sh, row, about, about_node)
        else:
            sh.long(row, 7, 13, "", font=None)
        row += 1
    return row


def _about(sh, row: int, about: str, node) -> None:
    """The check's about text, merged and wrapped; a formula where it says why the check has no value."""
    sh.long(row, 7, 13, about)
    if not isinstance(node, xl.Str):
        sh.formula(row, 7, node, about)


def hide_helpers(chain) -> None:
    """The helper columns are the program's working, not the sheet's story: hidden."""
    last = getattr(chain, "helper_columns", None)
    if last is None:
        return
    for col in range(HELPER_COL, last + 1):
        chain.sheet.ws.column_dimensions[get_column_letter(col)].hidden = True
    chain.sheet.text(1, HELPER_COL, "helper cells: the checks' and sweeps' programs at their own inputs", font=GREY_FONT)
