"""The runtime's choice over a search's rows, as formulas: compiler/runtime/choose.py, rule for rule.

- ranked: a feasible row's rank is 1 + the feasible rows whose goal is better + the earlier feasible
  rows whose goal is equal (ties: the row listed first), SUMPRODUCTs over the rows' keys (the goal, negated
  for a maximum, 0 where a row fails: a mask, never text, so the arrays multiply);
- the best: MATCH(1, ranks) and INDEX of each column there; the ranked table: MATCH(k, ranks);
- binding: per condition, the rows it fails first whose goal beats the best's (every row with a goal when
  none is feasible), most first, ties by label; the sentence names the first and lists the others;
- frontier: a feasible row is on it when no feasible row is as good on both goals and better on one; its
  rows are listed best x first (ties: y, then the row listed first);
- closest: where no row is feasible, the first row of least shortfall, and its why.

The cached values are the solver's (Chosen): a recalculation that disagrees with it shows.
A search that cannot be laid out is the Chosen's numbers in fixed cells (write_fixed) and a build note.
"""

from __future__ import annotations

from openpyxl.utils import get_column_letter, quote_sheetname

from ...chosen import PLACEMENT_WORDS as W
from ...numbers import exact
from . import xl
from .cells import BOLD, GREY_FONT, NOTE_FONT, WRAP, number_format
from .frontier_chart import CHART_ROWS, write_frontier_chart
from .question import concat, shown

LIST_MIN = 10  # a frontier's listed rows: at least this many (or every row), twice the build's frontier


def n(x):
    return xl.number(x)


def index(rng: xl.Range, k):
    """INDEX(rng, k, 1) of a column; a one-cell range is its cell (Gnumeric reads INDEX of one cell as #REF!)."""
    start, _, end = rng.text.partition(":")
    if start.split("!")[-1] == end:
        return xl.fn("IF", xl.op("=", k, n(1)), xl.Cell(start, rng.values[0] if rng.values else None), xl.fn("NA"))
    return xl.fn("INDEX", rng, k, n(1))


def _frontier_rows(ss) -> int:
    return min(len(ss.pc.configs), max(LIST_MIN, 2 * len(ss.chosen.order)))


def _answer_rows(ss) -> int:
    s = ss.search
    return 3 if s.frontier else 5 + len(s.over) + len(s.inner)


def height(ss) -> int:
    """Rows from row 5 to the configurations' header: the answer, the ranked table (or the frontier), what binds."""
    s = ss.search
    listed = _frontier_rows(ss) + 2 + CHART_ROWS if s.frontier else s.show
    binding = 0 if s.frontier or not ss.pc.conditions else 3 + len(ss.pc.conditions)
    return 2 + _answer_rows(ss) + 1 + 2 + listed + 1 + binding + 1


def _unit(ss, name: str) -> str:
    v = ss.model.variables.get(name)
    return v.unit if v is not None else ""


def _text(ss, name: str, node):
    """'tp = 8' / 'cost = 0.286144 USD/Mtoken', live."""
    unit = _unit(ss, name)
    return concat(xl.Str(f"{name} = "), shown(node), xl.Str(f" {unit}" if unit else ""))


def write_choice(ss) -> None:
    sh, s, chosen = ss.sheet, ss.search, ss.chosen
    title = sh.ws.title
    first = ss.first
    F, K, G, X, Y, H, describe, goals = [], [], [], [], [], [], [], []
    signs = [1 if g.seek == "min" else -1 for g in s.goals]
    for i, (c, has, scope) in enumerate(ss.row_tail):
        r = first + i
        H.append(has)
        F.append(ss.put(r, c, xl.fn("IF", xl.op("=", ss.failed_cells[i], xl.Str("")), n(1), n(0)), None, "0"))
        row_goals = []
        for k, g in enumerate(s.goals):
            cell = scope.resolve(g.name)[0]
            cached = chosen.goals[k][i]
            col = ss.col_goal[g.name]
            shown_goal = float(cached / exact(ss.model.variables[g.name].factor)) if cached is not None else ""
            row_goals.append(ss.put(r, col, xl.fn("IF", xl.op("=", has, n(1)), cell, xl.Str("")), shown_goal, ss.chain.formats.get(g.name)))
            ss.book.manifest.cells[ss.key("row", i, g.name)] = (title, f"{get_column_letter(col)}{r}")
        goals.append(row_goals)
        keys = [ss.put(r, c + 1 + k, xl.fn("IF", xl.op("=", F[-1], n(1)), xl.op("*", n(sign), gc), n(0))) for k, (sign, gc) in enumerate(zip(signs, row_goals))]
        K.append(keys[0])
        if s.frontier:
            X.append(keys[0])
            Y.append(keys[1])
        G.append(ss.put(r, c + 1 + len(keys), xl.fn("IF", xl.op("=", has, n(1)), xl.op("*", n(signs[0]), row_goals[0]), n(0))))
        describe.append(ss.put(r, c + 2 + len(keys), _describe(ss, i, r, scope)))
        ss.tail_col = c + 3 + len(keys)
    c0 = ss.row_tail[0][0]
    ss.cols.update({"feasible": c0, **{f"key: {g.name}": c0 + 1 + k for k, g in enumerate(s.goals)}, "goal key (binding)": c0 + 1 + len(s.goals), "configuration": c0 + 2 + len(s.goals)})
    ranges = {
        "F": ss.rng(c0, [x.value for x in F]),
        "K": ss.rng(c0 + 1, [x.value for x in K]),
        "G": ss.rng(c0 + 1 + len(s.goals), [x.value for x in G]),
        "H": ss.rng(ss.cols["has values"], [x.value for x in H]),
        "failed": ss.rng(ss.cols["failed"], [x.value for x in ss.failed_cells]),
        "describe": ss.rng(c0 + 2 + len(s.goals), [x.value for x in describe]),
        "why": ss.rng(ss.col_why, [ss.book.cached.get((title, f"{get_column_letter(ss.col_why)}{first + i}")) for i in range(len(F))]),
        "miss": ss.rng(ss.cols["shortfall"], [x.value for x in ss.miss]),
    }
    for name in [a.name for a in s.over] + ss.inner_names():
        col = ss.col_axis.get(name) or ss.col_inner[name]
        ranges[name] = ss.rng(col, [sh.ws.cell(row=first + i, column=col).value if name in ss.col_axis else ss.book.cached.get((title, f"{get_column_letter(col)}{first + i}")) for i in range(len(F))])
    for k, g in enumerate(s.goals):
        ranges[g.name] = ss.rng(ss.col_goal[g.name], [row[k].value for row in goals])
    if s.frontier:
        _frontier(ss, F, X, Y, ranges, goals)
    else:
        _ranked(ss, F, K, ranges)
    for c in range(ss.helper, ss.tail_col + 1):
        sh.ws.column_dimensions[get_column_letter(c)].hidden = True
    for key, c in ss.cols.items():
        sh.text(ss.grid_head, c, key, font=GREY_FONT)


def _describe(ss, i: int, r: int, scope):
    """Chosen.describe, live: the row's configuration and what it found (inner answers, the free variable)."""
    s, parts = ss.search, []
    for axis in s.over:
        if axis.catalog:
            parts.append(concat(xl.Str(f"{axis.name} = "), scope.slots[f"#{axis.name}"][0]))
        else:
            parts.append(_text(ss, axis.name, scope.slots[axis.name][0]))
    for var in ss.inner_names():  # the row's own column: a number, or 'none'
        found = xl.Cell(f"${get_column_letter(ss.col_inner[var])}${r}", ss.book.cached.get((ss.sheet.ws.title, f"{get_column_letter(ss.col_inner[var])}{r}")))
        parts.append(xl.fn("IF", xl.fn("ISNUMBER", found), _text(ss, var, found), xl.Str(f"{var}: none")))
    out = []
    for k, p in enumerate(parts):
        out += [xl.Str(", "), p] if k else [p]
    return concat(*out) if out else xl.Str("")


def _ranks(ss, ranges, F, K, cached: list):
    """Each feasible row's rank (runtime/choose.ranked): 1 + better rows + equal rows listed before it."""
    fr, kr = ranges["F"], ranges["K"]
    fcol, kcol = (get_column_letter(c) for c in (ss.row_tail[0][0], ss.row_tail[0][0] + 1))
    col, cells = ss.col_rank, []
    for i, (f, k) in enumerate(zip(F, K)):
        r = ss.first + i
        node = xl.op("+", n(1), xl.fn("SUMPRODUCT", xl.op("*", fr, xl.op("<", kr, k))))
        if i:  # ties: the rows listed before it come first
            fb, kb = (xl.Range(f"${c}${ss.first}:${c}${r - 1}", ()) for c in (fcol, kcol))
            node = xl.op("+", node, xl.fn("SUMPRODUCT", xl.op("*", fb, xl.op("=", kb, k))))
        cells.append(ss.put(r, col, xl.fn("IF", xl.op("=", f, n(1)), node, xl.Str("")), cached[i], "0"))
        ss.book.manifest.cells[ss.key("row", i, "rank")] = (ss.sheet.ws.title, f"{get_column_letter(col)}{r}")
    return cells


def _ranked(ss, F, K, ranges) -> None:
    sh, s, chosen = ss.sheet, ss.search, ss.chosen
    title = sh.ws.title
    order = {row: k + 1 for k, row in enumerate(chosen.order)}
    ranks = _ranks(ss, ranges, F, K, [order.get(i, "") for i in range(len(F))])
    rank_range = ss.rng(ss.col_rank, [x.value for x in ranks])
    row = 5
    sh.section(row, "Answer")
    sh.header(row + 1, ["name", "value", "unit", "what it is"], span=ss.last_col)
    row += 2
    best_row = chosen.best + 1 if chosen.best is not None else xl.NA
    here = quote_sheetname(title) + "!"
    best = ss.put(row, 2, xl.fn("IFERROR", xl.fn("MATCH", n(1), rank_range, n(0)), xl.fn("NA")), best_row, "0")
    sh.text(row, 1, "configuration", font=BOLD)
    sh.long(row, 4, ss.last_col, "the best configuration's row among the configurations below (#N/A: none meets the conditions)", font=GREY_FONT)
    ss.book.manifest.cells[ss.key("best", "row")] = (title, f"B{row}")
    row += 1
    values = chosen.values(chosen.best) if chosen.best is not None else {}
    for name in [a.name for a in s.over] + ss.inner_names() + [s.goals[0].name]:
        cached = values.get(name, xl.NA)
        fmt = ss.chain.formats.get(name) or (number_format(cached) if not isinstance(cached, (str, xl.XError)) else None)
        cell = ss.put(row, 2, index(ranges[name], best), cached if cached is not None else xl.NA, fmt)
        sh.text(row, 1, name, font=BOLD)
        sh.text(row, 3, _unit(ss, name) if name not in ("gpu", "llm") else "")
        what = "the goal: " + s.goals[0].seek if name == s.goals[0].name else ("found by question " + dict(s.inner)[name] if name in dict(s.inner) else "")
        what = "its best value over its range (golden-section; the rows below the configurations)" if name == s.free else what
        sh.long(row, 4, ss.last_col, f"at the best configuration{': ' + what if what else ''}", font=GREY_FONT)
        ss.best_cells[name] = cell
        ss.exports[name] = xl.Cell(f"{here}$B${row}", cell.value)
        ss.book.manifest.cells[ss.key("best", name)] = (title, f"B{row}")
        row += 1
    solution = chosen.solution
    for name, col in ss.cols.items():  # every value of the model at the best configuration, for the checks
        if name in ss.model.variables and name not in ss.exports:
            v = solution.values.get(name) if solution is not None else None
            L = get_column_letter(col)
            cached = float(v / exact(ss.model.variables[name].factor)) if v is not None else xl.NA
            column = xl.Range(f"{here}${L}${ss.first}:${L}${ss.last}", (cached,))
            ss.exports[name] = xl.Cell(xl.text(index(column, xl.Cell(here + best.text, best.value))), cached)
    bound_row, closest_row, sentence_row = row, row + 1, row + 2
    table_at = sentence_row + 2
    binding_at = table_at + 2 + s.show + 1
    bound = _binding(ss, binding_at, ranges, best) if ss.pc.conditions else xl.Str("no condition binds: it is the best of every configuration searched")
    sh.text(bound_row, 1, "bound by", font=BOLD)
    label = chosen.binding[0][0] if chosen.binding else ""
    if ss.pc.conditions:
        ss.put(bound_row, 2, ss.binding_first, label)
        bound = ss.put(bound_row, 4, bound, chosen.bound_by() if chosen.best is not None else None)
    else:  # nothing can bind: words, not formulas
        sh.text(bound_row, 4, bound.text)
        bound = xl.Cell(f"$D${bound_row}", bound.text)
    sh.ws.merge_cells(start_row=bound_row, start_column=4, end_row=bound_row, end_column=ss.last_col)
    ss.book.manifest.cells[ss.key("binding")] = (title, f"B{bound_row}")
    nearest = _closest(ss, closest_row, ranges, rank_range)
    total = len(F)
    feasible = xl.fn("SUM", ranges["F"])
    goal = s.goals[0]
    among = [
        xl.Str(f" ({goal.seek} of "),
        feasible,
        xl.Str(" configuration"),
        xl.fn("IF", xl.op("<>", feasible, n(1)), xl.Str("s"), xl.Str("")),
        xl.Str(" that meet"),
        xl.fn("IF", xl.op("=", feasible, n(1)), xl.Str("s"), xl.Str("")),
        xl.Str(" the conditions)"),
    ]
    if not s.over:  # a free variable alone: one configuration, its range searched
        among = [xl.Str(f" ({goal.seek} over {s.free}'s range)")]
    where = []
    if s.free:
        where = [xl.Str(f"; {s.free} "), index(ss.rng(ss.cols[f"{s.free}: where"], [x.value for x in ss.where_cells]), best)]
    found = concat(index(ranges["describe"], best), xl.Str(": "), _text(ss, goal.name, ss.best_cells[goal.name]), *among, *_placement(ss, ranges["F"], best), *where, xl.Str("; "), bound)
    sentence = xl.fn("IF", xl.fn("ISNUMBER", best), found, concat(xl.Str(f"no configuration meets the conditions ({total} searched)"), nearest))
    _sentence(ss, sentence_row, sentence)
    _table(ss, table_at, rank_range, ranges, s.show, "Ranked: the best configurations", "rank")
    ss.summary = (ss.exports[goal.name], xl.Cell(f"{here}$B${sentence_row}", ss.book.cached.get((title, f"B{sentence_row}"))), "")


def _placement(ss, feasible, best) -> list:
    """runtime/choose.placement, per variable axis: where the best sits along it, as the sentence says it (Chosen._where)."""
    sizes, out = ss.pc.sizes, []
    for k, axis in enumerate(ss.search.over):
        stride = 1
        for size in sizes[k + 1 :]:
            stride *= size
        if axis.catalog or sizes[k] == 1:
            continue
        at = xl.op("-", best, n(1))
        pos = xl.fn("MOD", xl.fn("INT", xl.op("/", at, n(stride))) if stride > 1 else at, n(sizes[k]))
        edge = xl.fn("OR", xl.op("=", pos, n(0)), xl.op("=", pos, n(sizes[k] - 1)))
        beside = [xl.op("=", index(feasible, xl.op(o, best, n(stride))), n(1)) for o in ("-", "+")]
        words = xl.fn("IF", edge, xl.Str(W["edge"]), xl.fn("IF", xl.fn("IFERROR", xl.fn("AND", *beside), xl.FALSE), xl.Str(W["interior"]), xl.Str(W["bound"])))
        out += [xl.Str(f"; {axis.name} "), words]
    return out


def _binding(ss, row: int, ranges, best):
    """What keeps out the rows that beat the best (runtime/choose.binding): a count per condition, most first."""
    sh, chosen = ss.sheet, ss.chosen
    title = sh.ws.title
    labels = sorted(label for label, _, _, _ in ss.pc.conditions)
    sh.section(row, "What rules out better configurations: the rows each condition fails first whose goal beats the best's")
    sh.header(row + 1, ["condition", "rows", "order"])
    counts_of = dict(chosen.binding)
    first = row + 2
    best_key = index(ranges["K"], best)
    counts = []
    for k, label in enumerate(labels):
        r = first + k
        mine = xl.op("*", xl.op("=", ranges["failed"], xl.Str(label)), ranges["H"])
        node = xl.fn("IF", xl.fn("ISNUMBER", best), xl.fn("SUMPRODUCT", xl.op("*", mine, xl.op("<", ranges["G"], best_key))), xl.fn("SUMPRODUCT", mine))
        sh.text(r, 1, label, font=BOLD)
        counts.append(ss.put(r, 2, node, counts_of.get(label, 0), "0"))
        ss.book.manifest.cells[ss.key("count", label)] = (title, f"B{r}")
    last = first + len(labels) - 1
    cr = xl.Range(f"$B${first}:$B${last}", tuple(x.value for x in counts))
    want = {label: p + 1 for p, label in enumerate(sorted(labels, key=lambda lb: (-counts_of.get(lb, 0), lb)))}
    orders = []
    for k, (label, count) in enumerate(zip(labels, counts)):
        r = first + k
        node = xl.op("+", n(1), xl.fn("SUMPRODUCT", xl.op("*", xl.op(">", cr, count), n(1))))
        if k:
            node = xl.op("+", node, xl.fn("SUMPRODUCT", xl.op("*", xl.op("=", xl.Range(f"$B${first}:$B${r - 1}", ()), count), n(1))))
        orders.append(ss.put(r, 3, node, want[label], "0"))
    orr = xl.Range(f"$C${first}:$C${last}", tuple(x.value for x in orders))
    lr = xl.Range(f"$A${first}:$A${last}", tuple(labels))

    def at(p, rng):
        return index(rng, xl.fn("MATCH", n(p), orr, n(0)))

    ss.binding_first = xl.fn("IF", xl.op(">", at(1, cr), n(0)), at(1, lr), xl.Str(""))
    also = xl.Str("")
    for p in range(len(labels), 1, -1):
        also = xl.fn("IF", xl.op(">", at(p, cr), n(0)), concat(xl.Str(", "), at(p, lr), xl.Str(" "), at(p, cr), also), xl.Str(""))
    also = ss.put(row + 1, ss.helper, also)  # the others that rule out better rows, most first, in one hidden cell
    also = xl.fn("IF", xl.op("=", also, xl.Str("")), xl.Str(""), concat(xl.Str("; also"), also))
    c1 = at(1, cr)
    return xl.fn(
        "IF",
        xl.op(">", c1, n(0)),
        concat(xl.Str("bound by "), at(1, lr), xl.Str(" (it rules out "), c1, xl.Str(" better configuration"), xl.fn("IF", xl.op("<>", c1, n(1)), xl.Str("s"), xl.Str("")), also, xl.Str(")")),
        xl.Str("no condition binds: it is the best of every configuration searched"),
    )


def _closest(ss, row: int, ranges, placed):
    """Where no row meets every condition: the first of least shortfall (runtime/choose.closest) and its why."""
    sh, chosen = ss.sheet, ss.chosen
    miss = ranges["miss"]
    none = xl.op("=", xl.fn("COUNT", placed), n(0))
    node = xl.fn("IF", xl.fn("AND", none, xl.op(">", xl.fn("COUNT", miss), n(0))), xl.fn("MATCH", xl.fn("MIN", miss), miss, n(0)), xl.Str(""))
    sh.text(row, 1, "closest", font=BOLD)
    cell = ss.put(row, 2, node, chosen.closest + 1 if chosen.closest is not None else "", "0")
    sh.long(row, 4, ss.last_col, "where no configuration meets every condition: the row nearest to it (least shortfall), and why it fails", font=GREY_FONT)
    ss.book.manifest.cells[ss.key("closest")] = (sh.ws.title, f"B{row}")
    return xl.fn("IF", xl.fn("ISNUMBER", cell), concat(xl.Str("; the closest is "), index(ranges["describe"], cell), xl.Str(": "), index(ranges["why"], cell)), xl.Str(""))


def _sentence(ss, row: int, node) -> None:
    sh = ss.sheet
    sh.text(row, 1, "answer", font=BOLD)
    c = sh.formula(row, 2, node, None)
    c.font, c.alignment = NOTE_FONT, WRAP
    sh.ws.merge_cells(start_row=row, start_column=2, end_row=row, end_column=ss.last_col)
    sh.ws.row_dimensions[row].height = 45
    ss.book.manifest.cells[ss.key("sentence")] = (sh.ws.title, f"B{row}")


def _table(ss, row: int, placed, ranges, count: int, heading: str, first_label: str) -> None:
    """The rows placed 1..count (a rank, or a place on the frontier): their configuration, inner answers and goals."""
    sh, s = ss.sheet, ss.search
    title = sh.ws.title
    names = [a.name for a in s.over] + ss.inner_names() + [g.name for g in s.goals]
    sh.section(row, heading)
    sh.header(row + 1, [first_label] + [f"{x} [{_unit(ss, x)}]" if _unit(ss, x) and x not in ("gpu", "llm") else x for x in names])
    listed = ss.chosen.table(count)
    for k in range(count):
        r = row + 2 + k
        which = ss.put(r, ss.helper, xl.fn("IFERROR", xl.fn("MATCH", n(k + 1), placed, n(0)), xl.Str("")), ss.chosen.order[k] + 1 if k < len(ss.chosen.order) else "", "0")
        empty = xl.op("=", which, xl.Str(""))
        ss.put(r, 1, xl.fn("IF", empty, xl.Str(""), n(k + 1)), k + 1 if k < len(listed) else "", "0")
        for j, name in enumerate(names):
            cached = listed[k][name] if k < len(listed) else ""
            ss.put(r, 2 + j, xl.fn("IF", empty, xl.Str(""), index(ranges[name], which)), cached if cached is not None else "", ss.chain.formats.get(name))
            ss.book.manifest.cells[ss.key("table", k, name)] = (title, f"{get_column_letter(2 + j)}{r}")


def _frontier(ss, F, X, Y, ranges, goals) -> None:
    sh, s, chosen = ss.sheet, ss.search, ss.chosen
    title = sh.ws.title
    c0 = ss.row_tail[0][0]
    xr, yr = ss.rng(c0 + 1, [x.value for x in X]), ss.rng(c0 + 2, [y.value for y in Y])
    fr = ranges["F"]
    on = set(chosen.order)
    m_col, p_col = ss.tail_col, ss.tail_col + 1
    marks = []
    for i, (f, x, y) in enumerate(zip(F, X, Y)):
        r = ss.first + i
        beaten = xl.fn("SUMPRODUCT", xl.op("*", xl.op("*", xl.op("*", fr, xl.op("<=", xr, x)), xl.op("<=", yr, y)), xl.op(">", xl.op("+", xl.op("<", xr, x), xl.op("<", yr, y)), n(0))))
        mark = ss.put(r, m_col, xl.fn("IF", xl.op("=", f, n(1)), xl.fn("IF", xl.op("=", beaten, n(0)), n(1), n(0)), n(0)), 1 if i in on else 0, "0")
        marks.append(mark)
        ss.put(r, ss.col_rank, xl.fn("IF", xl.op("=", f, n(1)), xl.fn("IF", xl.op("=", mark, n(1)), xl.Str("yes"), xl.Str("no")), xl.Str("")), ("yes" if i in on else "no") if f.value == 1 else "")
        ss.book.manifest.cells[ss.key("row", i, "frontier")] = (title, f"{get_column_letter(m_col)}{r}")
    mr = ss.rng(m_col, [x.value for x in marks])
    place = {row: k + 1 for k, row in enumerate(chosen.order)}
    places = []
    for i, (mk, x, y) in enumerate(zip(marks, X, Y)):
        r = ss.first + i
        node = xl.op("+", n(1), xl.fn("SUMPRODUCT", xl.op("*", mr, xl.op("+", xl.op("<", xr, x), xl.op("*", xl.op("=", xr, x), xl.op("<", yr, y))))))
        if i:
            before = [xl.Range(f"${get_column_letter(col)}${ss.first}:${get_column_letter(col)}${r - 1}", ()) for col in (m_col, c0 + 1, c0 + 2)]
            node = xl.op("+", node, xl.fn("SUMPRODUCT", xl.op("*", xl.op("*", before[0], xl.op("=", before[1], x)), xl.op("=", before[2], y))))
        places.append(ss.put(r, p_col, xl.fn("IF", xl.op("=", mk, n(1)), node, xl.Str("")), place.get(i, ""), "0"))
    ss.cols.update({"on the frontier": m_col, "place on the frontier": p_col})
    ss.tail_col = p_col
    placed = ss.rng(p_col, [x.value for x in places])
    row = 5
    sh.section(row, "Answer")
    sh.header(row + 1, ["name", "value", "unit", "what it is"], span=ss.last_col)
    row += 2
    count = ss.put(row, 2, xl.fn("SUM", mr), len(chosen.order), "0")
    sh.text(row, 1, "on the frontier", font=BOLD)
    sh.long(row, 4, ss.last_col, f"configurations no other beats on both {s.goals[0].seek} {s.goals[0].name} and {s.goals[1].seek} {s.goals[1].name} (marked yes below)", font=GREY_FONT)
    ss.book.manifest.cells[ss.key("frontier count")] = (title, f"B{row}")
    nearest = _closest(ss, row + 1, ranges, placed)
    feasible = xl.fn("SUM", fr)
    words = f" configurations on the frontier of {s.goals[0].seek} {s.goals[0].name} and {s.goals[1].seek} {s.goals[1].name} ("
    _sentence(ss, row + 2, concat(count, xl.Str(words), feasible, xl.Str(f" of {len(F)} meet the conditions)"), nearest))
    listed = _frontier_rows(ss)
    table_at = row + 4
    _table(ss, table_at, placed, ranges, listed, "The frontier, best x first", "#")
    more = table_at + 2 + listed
    ss.put(more, 1, xl.fn("IF", xl.op(">", count, n(listed)), concat(xl.Str("and "), xl.op("-", count, n(listed)), xl.Str(" more on the frontier: the rows marked yes below")), xl.Str("")))
    x_col = 2 + len(s.over) + len(ss.inner_names())
    write_frontier_chart(ss, more + 2, F, goals, (table_at + 2, listed, x_col, x_col + 1))
    here = quote_sheetname(title) + "!"
    ss.exports["#frontier"] = xl.Cell(f"{here}$B${row}", count.value)
    ss.summary = (ss.exports["#frontier"], xl.Cell(f"{here}$B${row + 2}", ss.book.cached.get((title, f"B{row + 2}"))), "")
