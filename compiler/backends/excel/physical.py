"""A chain's physical limits, live: one row per limit, OK or the warning with both sides' values.

Each row prints the lowered limit (program.Physical) over the sheet's result cells, so a reader who
types another input (or picks another GPU) sees the verdict follow: the status cell is OK or FAILS,
and the text beside it is the limit's own words or, where it fails, the warning every other output
gives ("memory limit fails: step_bytes 863.5 GB > memory 48 GB"). A limit cuts nothing: the results
above keep their numbers.
"""

from __future__ import annotations

from ... import program as P
from ...physical import verdicts
from . import domains as D
from . import xl
from .cells import BOLD, GREY_FONT, number_format


def write_limits(chain, row: int) -> int:
    """The 'Physical limits' section below the results (nothing when the model declares none)."""
    sol = chain.report.solution
    limits = sol.program.physical
    if not limits:
        return row
    sh, m = chain.sheet, chain.model
    failing = {w.name for w in verdicts(sol.program, sol.values)}
    sh.section(row, "Physical limits")
    sh.long(row, 3, 13, "conditions the numbers must meet to describe a real machine: a failing one warns, the results keep their numbers", font=GREY_FONT)
    sh.header(row + 1, ["limit", "status", "left side", "right side", "warning, or what the limit says"], span=13)
    row += 2
    for x in limits:
        pr = chain.printer()
        cond = pr.condition(x.cond)
        sides = [pr.value(side, f) for side, (_, _, f, _) in zip((x.cond.left, x.cond.right), x.sides)]
        chain.report_problems(pr, x.site)
        if pr.missing:  # a function the spreadsheet lacks: the Report's verdict, fixed
            sh.text(row, 1, x.name, font=BOLD)
            sh.text(row, 2, "FAILS" if x.name in failing else "OK")
            sh.long(row, 5, 13, f"{x.text}: computed when the workbook was built (Excel cannot compute it live)")
            row += 1
            continue
        cached = [_cached(chain, side, f) for side, (_, _, f, _) in zip((x.cond.left, x.cond.right), x.sides)]
        sh.text(row, 1, x.name, font=BOLD)
        status = sh.formula(row, 2, xl.fn("IFERROR", xl.fn("IF", cond, xl.Str("OK"), xl.Str("FAILS")), xl.Str("no value")), "FAILS" if x.name in failing else "OK")
        for k, (node, value) in enumerate(zip(sides, cached)):
            sh.formula(row, 3 + k, node, value, number_format(value) if value is not None else None)
        left, right = xl.Cell(f"$C{row}", cached[0]), xl.Cell(f"$D{row}", cached[1])
        template = P.physical_words(x, "\0", "\0").split("\0")
        warning = xl.op("&", xl.op("&", xl.op("&", xl.op("&", D.text(template[0]), D.shown(left)), D.text(template[1])), D.shown(right)), D.text(template[2]))
        said = f"{x.text}" + (f": {x.about}" if x.about else "")
        words = xl.fn("IFERROR", xl.fn("IF", cond, D.text(said), warning), D.text(f"{x.text}: a value it reads has no value here"))
        sh.formula(row, 5, words, None)
        sh.ws.merge_cells(start_row=row, start_column=5, end_row=row, end_column=13)
        bad = xl.op("=", xl.Cell(f"$B{row}", status.value), xl.Str("FAILS"))
        for coord in [f"B{row}", f"E{row}"] + [c for n in sorted(P.refs(x.cond)) for where, c in [chain.book.manifest.cells.get((m.name, "var", n), (None, None))] if where == sh.ws.title]:
            sh.flag(coord, bad)  # the status, its words, and the values it reads: red together
        chain.book.manifest.cells[(m.name, "limit", x.name)] = (sh.ws.title, f"B{row}")
        row += 1
    return row + 1


def _cached(chain, side, factor):
    """A side's value at the Report's numbers, in its display unit (None: not computed)."""
    from ...run import evaluate

    values = chain.report.solution.values
    if not P.refs(side) <= values.keys():
        return None
    try:
        v = evaluate(side, values)
    except (ArithmeticError, ValueError, TypeError):
        return None
    return float(v) / float(factor)


def failing_text(pr, program: P.Program):
    """The physical limits of `program` that fail, as one text formula (' — but memory limit fails: ...'; '' when all hold).

    A question's probe row prints it at the answer, so the answer's message says so, live. None: no limits.
    """
    parts = []
    for x in program.physical:
        left, right = (pr.value(side, f) for side, (_, _, f, _) in zip((x.cond.left, x.cond.right), x.sides))
        template = P.physical_words(x, "\0", "\0").split("\0")
        words = xl.op("&", xl.op("&", xl.op("&", xl.op("&", D.text(" — but " + template[0]), D.shown(left)), D.text(template[1])), D.shown(right)), D.text(template[2]))
        parts.append(xl.fn("IF", xl.fn("IFERROR", pr.condition(x.cond), xl.TRUE), xl.Str(""), words))
    if not parts or pr.missing:
        return None
    out = parts[0]
    for p in parts[1:]:
        out = xl.op("&", out, p)
    return out
