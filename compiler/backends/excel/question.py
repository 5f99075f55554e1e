"""A question as live cells: runtime/answer.py's rule, step for step, over the Report's programs.

The workings sit below the questions, grouped and folded:

- the boundary: the boundary program (the condition as an equation, solved for
  the question's variable) printed as in the results; no admissible root, or a
  value outside its domain, is no boundary;
- the probes: the probe program (the model with the variable known) printed once
  per probe point in a row, with the condition's two sides, whether the model has
  a value there and whether the condition holds (1 holds, 0 fails, -1 no value);
- the rule: both sides of the boundary (at a relative 1e-6, or half a step),
  the boundary or the domain's edge, the edges snapped to, floor or ceiling to the
  step, one step back for a strict condition, and the final test.

The answer cell is the value, or #N/A with the reason in the message cell beside
it ("no batch meets tpot <= tpot_target: at batch = 1, tpot = 42.3219 ms/token >
tpot_target = 10 ms/token", the solver's words). The boundary of a live question
is a closed form, so `closed` is true; a question whose programs need a numeric
search, a table or a function Excel lacks is the Report's answer in a labelled
numeric cell instead.
"""

from __future__ import annotations

from fractions import Fraction

from ... import program as P
from ...errors import ChaincError
from ...numbers import exact
from . import xl, xlcalc
from .cells import GREY_FONT, NOTE_FONT, SECTION_FONT, WRAP, number_format
from .emit import Column, Emitter, Row, admits, live
from .physical import failing_text
from .search import grid, write_search

BOUNDARY, EDGE = 1, 2  # how the value before rounding was found
INFEASIBLE, UNBOUNDED, NO_VALUE = -1, -2, -3


def shown(node):
    """Text of a number to 6 significant figures, as the solver's messages show it."""
    rounded = xl.fn("ROUND", node, xl.op("-", xl.number(5), xl.fn("INT", xl.fn("LOG10", xl.fn("ABS", node)))))
    return xl.fn("IF", xl.op("=", node, xl.number(0)), xl.Str("0"), xl.op("&", rounded, xl.Str("")))


def concat(*parts):
    out = parts[0]
    for p in parts[1:]:
        out = xl.op("&", out, p)
    return out


def n(x):
    return xl.number(x)


class QuestionCells:
    def __init__(self, chain, name: str):
        self.chain, self.sheet, self.model = chain, chain.sheet, chain.model
        self.q = self.model.questions[name]
        self.var = self.model.variables[self.q.find]
        self.factor = exact(self.var.factor)
        self.shape = chain.report.asking.get(name)
        a = chain.report.answers[name]
        self.answer = None if isinstance(a, ChaincError) else a
        self.error = a if isinstance(a, ChaincError) else None
        self.closed_rule = False
        self.failing: dict = {}  # probe -> its cell of failing physical limits (physical.failing_text)

    @property
    def live(self) -> bool:
        s = self.shape
        return s is not None and live(s.at) and (s.boundary is None or live(s.boundary))

    @property
    def laid_out(self) -> bool:
        """Its answer follows the inputs: the rule over a closed-form boundary, or the search in cells."""
        return self.live or (self.shape is not None and not self.q.parts and live(self.shape.at) and grid(self) is not None)

    def disp(self, x):
        return None if x is None else x / self.factor

    # --- cells --------------------------------------------------------------------------------

    def cell(self, label: str, node, about: str = "", fmt=None):
        r = self.rule.row
        self.rule.row += 1
        self.sheet.text(r, 1, label, font=GREY_FONT)
        if about:
            self.sheet.text(r, 4, about, font=GREY_FONT)
        self.sheet.formula(r, 2, node, None, fmt)
        return xl.Cell(f"$B${r}", xlcalc.value(node))

    def write(self, answer_row: int, row: int) -> int:
        """The answer in answer_row (value in B, message in D); the workings from `row`; returns the next free row."""
        if self.q.parts:
            return self.write_combined(answer_row, row)
        if not self.live or self.chain.report.solution.program.domains[self.q.find].values is not None:
            if self.shape is not None and live(self.shape.at) and grid(self) is not None:  # no closed form, or a set: the search, in cells
                return write_search(self, answer_row, row)
            return self.write_fixed(answer_row, row)
        q, sheet = self.q, self.sheet
        self.closed_rule = True  # the rule's own probes (not a search's rows): the answer's limits go in probe 3 (4)
        first = row
        sheet.text(row, 1, f"How {q.name} is found: the answer rule of runtime/answer.py, as formulas", font=SECTION_FONT)
        row += 1
        b, has_b, row = self.boundary(row)
        head = row + 1
        probes_at = head + 1
        self.rule = Column(sheet, probes_at + 6, self.model, None, lambda key: ("", ""))
        self.rows = {}
        s = self.shape
        lo, hi, step = self.disp(s.lo), self.disp(s.hi), self.disp(s.step)
        want_max = q.seek == "max"
        edge = hi if want_max else lo
        x0v = self.disp(s.probe)
        x0 = self.cell("x0", n(x0v), "where to probe without a boundary: the domain's edge, else the default")
        d = self.cell("delta", xl.fn("IF", has_b, xl.fn("MAX", xl.op("/", xl.fn("ABS", b), n(10**6)), n(step / 2 if step else 0)), n(0)), "the probes' distance from the boundary")
        x1 = self.cell("x1", xl.fn("IF", has_b, xl.op("-", b, d), x0), "just below the boundary")
        x2 = self.cell("x2", xl.fn("IF", has_b, xl.op("+", b, d), x0), "just above the boundary")
        f0, f1, f2 = (self.probe(k, x, probes_at + k) for k, x in enumerate((x0, x1, x2)))
        self.header(head)
        good = f1 if want_max else f2
        edge_or = (lambda where: n(EDGE)) if edge is not None else (lambda where: n(UNBOUNDED * 10 - where))
        no_b = xl.fn("IF", xl.op("=", f0, n(-1)), n(NO_VALUE * 10), xl.fn("IF", xl.op("=", f0, n(1)), edge_or(0), n(INFEASIBLE * 10)))
        with_b = xl.fn(
            "IF",
            xl.fn("OR", xl.op("=", f1, n(-1)), xl.op("=", f2, n(-1))),
            xl.fn("IF", xl.op("=", f1, n(-1)), n(NO_VALUE * 10 - 1), n(NO_VALUE * 10 - 2)),
            xl.fn(
                "IF",
                xl.fn("AND", xl.op("=", f1, n(0)), xl.op("=", f2, n(0))),
                n(INFEASIBLE * 10 - (1 if want_max else 2)),
                xl.fn("IF", xl.fn("AND", xl.op("=", f1, n(1)), xl.op("=", f2, n(1))), edge_or(1), xl.fn("IF", xl.op("=", good, n(1)), n(BOUNDARY), edge_or(2))),
            ),
        )
        case = self.cell("case", xl.fn("IF", has_b, with_b, no_b), "1 the boundary, 2 the edge; negative: no answer (tens: infeasible -1, unbounded -2, no value -3; units: where)", "0")
        v = self.cell("value", xl.fn("IF", xl.op("=", case, n(BOUNDARY)), b, n(edge) if edge is not None else x0), "before rounding: the boundary or the edge")
        on_b = self.cell("on boundary", xl.op("=", case, n(BOUNDARY)), "the value is the closed-form boundary itself")
        tol = xl.fn("IF", on_b, n(Fraction(1, 10**12)), n(0))
        ends = [
            (e, self.cell(f"at {name}", xl.op("<=", xl.fn("ABS", xl.op("-", v, n(e))), xl.op("*", tol, n(abs(e)))), f"within rounding of the domain's {name}"))
            for e, name in ((lo, "min"), (hi, "max"))
            if e is not None
        ]
        v1 = v
        for e, at in reversed(ends):
            v1 = xl.fn("IF", at, n(e), v1)
        snapped = xl.fn("OR", *(at for _, at in ends)) if ends else xl.FALSE
        if ends:
            v1 = self.cell("value at the edge", v1)
            snapped = self.cell("snapped", snapped)
        if step:
            k = self.cell("k", xl.op("/", v1, n(step)), "the value in steps")
            n0 = xl.fn("ROUND", k, n(0))
            near = self.cell("on a step", xl.fn("AND", on_b, xl.op("<=", xl.fn("ABS", xl.op("-", k, n0)), xl.op("*", tol, xl.fn("MAX", n(1), xl.fn("ABS", k))))), "the boundary lies on a step")
            rounded = xl.fn("INT", k) if want_max else xl.Neg(xl.fn("INT", xl.Neg(k)))
            steps = self.cell("steps", xl.fn("IF", near, n0, rounded), f"{'floor' if want_max else 'ceiling'} to the step", "0")
            x3 = self.cell("x3", xl.fn("IF", snapped, v1, xl.op("*", steps, n(step))), "the rounded value")
            f3 = self.probe(3, x3, probes_at + 3)
            used3 = xl.fn("AND", xl.fn("NOT", snapped), xl.fn("NOT", near))
            ok3 = xl.fn("IF", snapped, xl.TRUE, xl.fn("IF", near, xl.FALSE if s.strict else xl.TRUE, xl.op("=", f3, n(1))))
            back = self.cell("one step back", xl.fn("AND", xl.fn("NOT", snapped), xl.fn("NOT", ok3)), "a strict condition fails on the step")
            x4 = self.cell("x4", xl.fn("IF", back, xl.op("*", xl.op("-" if want_max else "+", steps, n(1)), n(step)), x3), "one step back")
            f4 = self.probe(4, x4, probes_at + 4)
            value = self.cell("answer", xl.fn("IF", back, x4, x3))
            on_final = self.cell("on boundary at the end", xl.fn("IF", snapped, on_b, xl.fn("IF", back, xl.FALSE, near)))
            f_final = xl.fn("IF", back, f4, f3)
            fail3 = xl.fn("AND", used3, xl.op("=", f3, n(-1)))
        else:
            x3 = self.cell("x3", v1, "the value")
            f3 = self.probe(3, x3, probes_at + 3)
            back, value, on_final, f_final, fail3 = xl.FALSE, x3, on_b, f3, xl.FALSE
        adm = admits(value, self.chain.report.solution.program.domains[q.find])
        final_no_value = xl.fn("OR", fail3, xl.fn("AND", adm, xl.fn("NOT", on_final), xl.op("=", f_final, n(-1))))
        ok = xl.fn("IF", xl.fn("NOT", adm), xl.FALSE, xl.fn("IF", on_final, xl.FALSE if s.strict else xl.TRUE, xl.op("=", f_final, n(1))))
        at_value = xl.fn("IF", back, n(4), n(3))
        at_infeasible = n(0) if (lo is not None and want_max) else at_value  # the solver quotes the domain's min for a maximum
        at_no_value = xl.fn("IF", fail3, n(3), at_value)
        outcome = self.cell(
            "outcome",
            xl.fn("IF", xl.op("<", case, n(0)), case, xl.fn("IF", final_no_value, xl.op("-", n(NO_VALUE * 10), at_no_value), xl.fn("IF", ok, case, xl.op("-", n(INFEASIBLE * 10), at_infeasible)))),
            "1, 2: an answer; negative: why not (as case)",
            "0",
        )
        self.chain.scope.slots[f"?{q.name}#outcome"] = (outcome, Fraction(1))  # a several-condition question reads it
        self.finish(answer_row, outcome, value, b, back, snapped, v, has_b, first)
        return self.rule.row + 1

    def boundary(self, row: int):
        """The boundary program's cells; returns (the boundary's cell, whether there is one, the next row)."""
        s = self.shape
        if s.boundary is None:
            self.sheet.text(row, 1, "boundary: none (the condition's boundary cannot be solved for)", font=GREY_FONT)
            return xl.fn("NA"), xl.FALSE, row + 2
        self.sheet.text(row, 1, f"the boundary: {self.q.condition_text.replace('<=', '=').replace('>=', '=').replace('<', '=').replace('>', '=')}, solved for {self.q.find}", font=GREY_FONT)
        target = Column(self.sheet, row + 1, self.model, None, self.chain.describe)
        target.row_mode = True
        scope = self.chain.scope.child()
        values = self.answer.boundary_solution.values if self.answer is not None and self.answer.boundary_solution is not None else None
        em = Emitter(self.sheet, s.boundary, scope, target, self.chain.factor, values, formats=self.chain.formats)
        em.run()
        bcell = scope.slots[self.q.find][0]
        oks = xl.all_of(em.oks, xl.TRUE)
        r = target.row
        has_b = xl.fn("IF", xl.fn("ISNUMBER", bcell), xl.fn("IFERROR", oks, xl.FALSE), xl.FALSE)
        self.sheet.text(r, 1, "has a boundary", font=GREY_FONT)
        self.sheet.text(r, 4, "an admissible root, every value in its domain", font=GREY_FONT)
        self.sheet.formula(r, 2, has_b)
        return bcell, xl.Cell(f"$B${r}", xlcalc.value(has_b)), r + 1

    def probe(self, k: int, x, row: int):
        """Probe row k: the probe program at x; returns its feasibility cell (1 holds, 0 fails, -1 no value)."""
        sheet, q = self.sheet, self.q
        sheet.text(row, 1, f"probe {k}", font=GREY_FONT)
        sheet.formula(row, 2, x, None, self.chain.formats.get(q.find))
        xcell = xl.Cell(f"$B${row}", xlcalc.value(x))
        scope = self.chain.scope.child()
        scope.slots[q.find] = (xcell, self.factor)
        target = Row(sheet, row, 3)
        em = Emitter(sheet, self.shape.at, scope, target, self.chain.factor, None, formats=self.chain.formats)
        em.run()
        pr = em.printer()
        sides = []
        cmp = self.shape.condition if isinstance(self.shape.condition, P.Cmp) else None  # several conditions: no two sides
        for key, side in (("left", cmp.left), ("right", cmp.right)) if cmp else ():
            if isinstance(side, P.Ref) and side.name in self.model.variables:
                node = scope.resolve(side.name)[0]
            else:
                node = pr.value(side)
            sides.append(em.put(key, key, node))
        ok = em.put("ok", "ok", xl.fn("IFERROR", xl.all_of(em.oks), xl.FALSE) if em.oks else xl.TRUE)
        failing = failing_text(pr, self.shape.at) if k >= 3 and self.closed_rule else None  # at the answer: its physical limits
        if failing is not None:
            self.failing[k] = em.put("limits", "limits", failing)
        cond = pr.condition(self.shape.condition)
        feasible = em.put("feasible", "feasible", xl.fn("IF", ok, xl.fn("IF", xl.fn("IFERROR", cond, xl.FALSE), n(1), n(0)), n(-1)), fmt="0")
        self.rows[k] = (xcell, target.cols, sides)
        return feasible

    def failing_at(self, back) -> list:
        """The answer's failing physical limits (probe 3, or 4 one step back), as the message's last part; [] without limits."""
        if 3 not in self.failing:
            return []
        return [xl.fn("IF", back, self.failing[4], self.failing[3]) if 4 in self.failing else self.failing[3]]

    def header(self, row: int):
        _, cols, _ = self.rows[0]
        self.sheet.text(row, 1, "probe", font=GREY_FONT)
        self.sheet.text(row, 2, self.q.find, font=GREY_FONT)
        for key, col in cols.items():
            self.sheet.text(row, col, key, font=GREY_FONT)

    def finish(self, answer_row, outcome, value, b, back, snapped, v, has_b, first):
        """The answer cell (the value, or #N/A) and the message beside it."""
        q, var, sheet = self.q, self.var, self.sheet
        unit = f" {var.unit}" if var.unit else ""
        answer = xl.fn("IF", xl.op(">", outcome, n(0)), value, xl.fn("NA"))
        cached = float(self.answer.base / self.factor) if self.answer is not None else xl.NA
        fmt = self.chain.formats.get(q.find) or number_format(cached if self.answer else 1, integer=var.domain.integer)
        sheet.formula(answer_row, 2, answer, cached, fmt)
        at = xl.fn("MOD", xl.Neg(outcome), n(10))  # the probe the reason quotes
        rows = [self.rows[k] for k in sorted(self.rows)]

        def at_probe(col_of):  # blank when there is an answer: no reason to quote
            return xl.fn("IF", xl.op("<", outcome, n(0)), xl.fn("CHOOSE", xl.op("+", at, n(1)), *(col_of(r) for r in rows)), xl.Str(""))

        xcell = self.cell("reason: x", at_probe(lambda r: r[0]), "the probe the reason quotes")
        parts = []
        for i, side in enumerate((self.shape.condition.left, self.shape.condition.right)):
            cell = self.cell(f"reason: {('left', 'right')[i]}", at_probe(lambda r, i=i: r[2][i]), "the condition's side there")
            if isinstance(side, P.Ref) and side.name in self.model.variables:
                sv = self.model.variables[side.name]
                parts.append(concat(xl.Str(f"{side.name} = "), shown(cell), xl.Str(f" {sv.unit}" if sv.unit else "")))
            else:
                parts.append(shown(cell))
        bound = "largest" if q.seek == "max" else "smallest"
        where = {0: "every value", 1: "values on both sides of", 2: "every value above" if q.seek == "max" else "every value below"}
        prefix = f"question {q.name}: "
        infeasible = concat(
            xl.Str(f"{prefix}no {q.find} meets {q.condition_text}: at {q.find} = "), shown(xcell), xl.Str(unit + ", "), parts[0], xl.Str(f" {P.NEGATED[self.shape.condition.op]} "), parts[1]
        )
        unbounded = xl.fn(
            "IF",
            xl.op("=", outcome, n(UNBOUNDED * 10)),
            xl.Str(f"{prefix}there is no {bound} {q.find}; {q.condition_text} holds for {where[0]}"),
            concat(
                xl.Str(f"{prefix}there is no {bound} {q.find}; {q.condition_text} holds for "),
                xl.fn("IF", xl.op("=", outcome, n(UNBOUNDED * 10 - 1)), xl.Str(where[1]), xl.Str(where[2])),
                xl.Str(f" {q.find} = "),
                shown(b),
                xl.Str(unit),
            ),
        )
        no_value = concat(xl.Str(f"{prefix}the model has no value at {q.find} = "), shown(xcell), xl.Str(unit + " (a computed value outside its domain, or a division by zero)"))
        how = self.how(outcome, b, back, snapped, v)
        message = xl.fn(
            "IF",
            xl.op(">", outcome, n(0)),
            concat(xl.Str(f"{q.find} = "), shown(value), xl.Str(unit + ": "), how, *self.failing_at(back)),
            xl.fn("IF", xl.op(">", outcome, n(UNBOUNDED * 10)), infeasible, xl.fn("IF", xl.op(">", outcome, n(NO_VALUE * 10)), unbounded, no_value)),
        )
        cached_text = xlcalc.value(message)
        r = answer_row
        sheet.formula(r, 4, message, cached_text)
        c = sheet.ws.cell(row=r, column=4)
        c.font, c.alignment = NOTE_FONT, WRAP
        sheet.ws.merge_cells(start_row=r, start_column=4, end_row=r, end_column=13)
        sheet.ws.row_dimensions[r].height = 30
        self.chain.book.manifest.cells[(self.model.name, "message", q.name)] = (sheet.ws.title, f"D{r}")
        sheet.ws.row_dimensions.group(first, self.rule.row, outline_level=1, hidden=True)

    def how(self, outcome, b, back, snapped, v):
        """Answer.how, as text: the boundary, the largest allowed value, or floor of the boundary to steps."""
        q = self.q
        edge_text = f"the {'largest' if q.seek == 'max' else 'smallest'} allowed value"
        s = self.shape
        if s.step is None:
            return xl.fn("IF", xl.op("=", outcome, n(BOUNDARY)), xl.Str("the boundary"), xl.Str(edge_text))
        step_text = f" to steps of {xl.as_text(float(self.disp(s.step)))}"
        rounded = concat(
            xl.Str(f"{'floor' if q.seek == 'max' else 'ceiling'} of the boundary "), shown(b), xl.Str(step_text), xl.fn("IF", back, xl.Str(", one step back to meet a strict condition"), xl.Str(""))
        )
        rounded_edge = concat(xl.Str(f"{'floor' if q.seek == 'max' else 'ceiling'} of the boundary "), shown(v), xl.Str(step_text))
        at_end = xl.fn("IF", xl.fn("AND", xl.op("=", outcome, n(BOUNDARY)), xl.op("=", v, b)), xl.Str("the boundary"), xl.Str(edge_text))
        return xl.fn("IF", snapped, at_end, xl.fn("IF", xl.op("=", outcome, n(BOUNDARY)), rounded, rounded_edge))

    def write_combined(self, answer_row: int, row: int) -> int:
        """Several conditions: runtime/answer.py's combine over the parts' answer cells, written above this one.

        Each condition's own answer bounds the joint one; the most restrictive is the answer
        and its condition binds. Where a condition has no answer, neither has the question, and
        its message is quoted. When the Report's answer needed combine's search (the conditions
        hold on several stretches), or a part is not live, the Report's answer is a labelled value.
        """
        q, var, sheet, manifest = self.q, self.var, self.sheet, self.chain.book.manifest
        parts = [(label, name, self.chain.model.questions[name]) for label, name in q.parts]
        if self.answer is not None and not self.answer.binding or not all(QuestionCells(self.chain, name).laid_out for _, name, _ in parts):
            return self.write_fixed(answer_row, row)
        cells, messages, outcomes = [], [], []
        for _, name, _ in parts:
            cells.append(self.chain.scope.slots[f"?{name}"][0])
            outcomes.append(self.chain.scope.slots[f"?{name}#outcome"][0])
            title, ref = manifest.cells[(self.model.name, "message", name)]
            messages.append(xl.Cell(f"$D${ref[1:]}", self.chain.book.cached.get((title, ref))))
        # a part without a number either holds nowhere (then neither does the question) or sets no limit:
        # its outcome code says which (UNBOUNDED: -20 to -29), never its message's text
        unbounded = [xl.fn("AND", xl.op("<=", o, n(UNBOUNDED * 10)), xl.op(">", o, n(NO_VALUE * 10))) for o in outcomes]
        nowhere = [xl.fn("AND", xl.fn("NOT", xl.fn("ISNUMBER", c)), xl.fn("NOT", u)) for c, u in zip(cells, unbounded)]
        any_nowhere = xl.fn("OR", *nowhere)
        far = n(-1e300 if q.seek == "min" else 1e300)
        extreme = xl.fn("MIN" if q.seek == "max" else "MAX", *(xl.fn("IFERROR", c, far) for c in cells))
        first = row
        sheet.text(row, 1, f"How {q.name} is found: runtime/answer.py's combine over the conditions' own answers, as formulas", font=GREY_FONT)
        self.rows = {}
        candidate = xl.fn("IF", xl.fn("OR", any_nowhere, xl.op("=", xl.fn("COUNT", *cells), n(0))), xl.fn("NA"), extreme)
        sheet.text(row + 1, 1, "candidate", font=GREY_FONT)
        sheet.text(row + 1, 4, "the most restrictive of the conditions' own answers", font=GREY_FONT)
        sheet.formula(row + 1, 2, candidate)
        at = xl.Cell(f"$B${row + 1}", xlcalc.value(candidate))
        holds = self.probe(0, at, row + 3)  # every condition at the candidate: 1 all hold, 0 not all, -1 no value
        _, cols, _ = self.rows[0]
        sheet.text(row + 2, 1, "probe", font=GREY_FONT)
        for key, col in cols.items():
            sheet.text(row + 2, col, key, font=GREY_FONT)
        sheet.ws.row_dimensions.group(first, row + 3, outline_level=1, hidden=True)
        row += 5
        value = xl.fn("IF", xl.fn("ISNUMBER", at), xl.fn("IF", xl.op("=", holds, n(1)), at, xl.fn("NA")), xl.fn("NA"))
        cached = float(self.answer.base / self.factor) if self.answer is not None else xl.NA
        fmt = self.chain.formats.get(q.find) or number_format(cached if self.answer else 1, integer=var.domain.integer)
        sheet.formula(answer_row, 2, value, cached, fmt)
        answer = xl.Cell(f"$B${answer_row}", cached)
        unit = f" {var.unit}" if var.unit else ""
        binds = [xl.fn("IFERROR", xl.op("=", c, answer), xl.FALSE) for c in cells]

        def joined(pieces, sep):  # the non-empty pieces, separated: each written with sep before it, the first sep cut
            return xl.fn("MID", concat(*(xl.fn("IF", when, concat(xl.Str(sep), text), xl.Str("")) for when, text in pieces)), n(len(sep) + 1), n(10000))

        bound = joined([(b, xl.Str(pq.condition_text)) for b, (_, _, pq) in zip(binds, parts)], " and ")
        own = concat(
            *[
                x
                for k, ((label, _, _), c) in enumerate(zip(parts, cells))
                for x in ((xl.Str(", ") if k else xl.Str("")), xl.Str(f"{label} "), xl.fn("IF", xl.fn("ISNUMBER", c), concat(xl.Str("allows "), shown(c), xl.Str(unit)), xl.Str("sets no limit")))
            ]
        )
        first_binding = xl.Str("")
        for b, msg in reversed(list(zip(binds, messages))):  # the binding condition's own message: the value and how it was rounded
            first_binding = xl.fn("IF", b, msg, first_binding)
        found = concat(first_binding, xl.Str("; bound by "), bound, xl.Str(" ("), own, xl.Str(")"))
        # the parts' messages read 'question <part>: ...': the question's joins what follows, as runtime/answer.nowhere does
        failed = concat(xl.Str(f"question {q.name}: "), joined([(w, xl.fn("MID", msg, n(len(f"question {name}: ") + 1), n(10000))) for w, msg, (_, name, _) in zip(nowhere, messages, parts)], "; "))
        apart = concat(
            xl.Str(f"question {q.name}: the conditions do not all hold at the most restrictive limit, {q.find} = "),
            shown(at),
            xl.Str(f"{unit}; the answer needs a search of the domain with all of them together, which formulas cannot do: run chainc solve {self.model.name} --question {q.name}"),
        )
        no_limit = xl.Str(f"question {q.name}: no condition sets a limit; the answer needs a search of the domain, which formulas cannot do: run chainc solve {self.model.name} --question {q.name}")
        message = xl.fn("IF", any_nowhere, failed, xl.fn("IF", xl.fn("ISNUMBER", answer), found, xl.fn("IF", xl.fn("ISNUMBER", at), apart, no_limit)))
        sheet.formula(answer_row, 4, message, xlcalc.value(message))
        c = sheet.ws.cell(row=answer_row, column=4)
        c.font, c.alignment = NOTE_FONT, WRAP
        sheet.ws.merge_cells(start_row=answer_row, start_column=4, end_row=answer_row, end_column=13)
        sheet.ws.row_dimensions[answer_row].height = 30
        manifest.cells[(self.model.name, "message", q.name)] = (sheet.ws.title, f"D{answer_row}")
        return row

    def why_fixed(self) -> str:
        if self.q.parts:
            return "its conditions' answers are not all laid out, or they need a search together"
        if self.shape is None:
            return "it cannot be planned"
        if not live(self.shape.at):
            return "the chain at a probe needs a numeric search, a table or a function Excel lacks, which a row of formulas cannot hold"
        return f"its boundary has no closed form and {self.q.find} has no grid to search (add a step to the question)"

    def write_fixed(self, answer_row: int, row: int) -> int:
        """The Report's answer (or its reason) as a labelled value: the rule needs what formulas cannot hold."""
        q, sheet = self.q, self.sheet
        why = self.why_fixed()
        if self.answer is not None:
            value = float(self.answer.base / self.factor)
            text = f"{q.find} = {xl.as_text(value)} {self.var.unit}".rstrip() + f": {self.answer.how}. This is the compiler's answer at build time ({why}); it does not follow the inputs."
            sheet.fixed(answer_row, 2, value, number_format(value), text)
        else:
            text = f"{self.error.message}. This is the compiler's verdict at build time ({why})."
            sheet.fixed(answer_row, 2, None, "General", text)
        sheet.long(answer_row, 4, 13, text, font=NOTE_FONT)
        self.chain.book.manifest.cells[(self.model.name, "message", q.name)] = (sheet.ws.title, f"D{answer_row}")
        self.chain.book.manifest.notes.append(f"{q.loc}: note: the workbook's {self.sheet.ws.title}!B{answer_row} ({q.name}) is the build's answer and does not follow the inputs: {why}")
        return row
