"""A search over configurations on a sheet of its own: one row of live formulas per configuration.

Each row is what compiler/choosing.py computes for one configuration, in cells:

- the configuration: a catalog id as text, a variable's value as a number (constants of the grid);
- the catalog values the row reads, looked up by the row's id (INDEX/MATCH on the Catalog sheet,
  as the chain sheet's dropdown does), and the inputs whose default is such a value (the chain
  sheet's typed value when there is one, as the solver's given); an empty catalog cell is no value;
- each inner question's answer, from its workings below the grid (question.py's rule, the closed-form
  boundary with its probes or the search rows, at the row's cells: inner.py);
- the model at the configuration (the search's `at` program, one statement per helper column);
- each condition's status (1 holds, 0 fails, -1 no value), the goals, what failed first and why.

choice.py prints the runtime's rule (compiler/runtime/choose.py) over these rows: the rank, the best
configuration, the ranked table, the binding condition, the frontier. A search the workbook cannot lay
out (too many configurations, a free variable optimised beside inner questions, an inner question or a
program no row of formulas holds) is the solver's answer in fixed cells, with a located build note. A free
variable's optimum at each configuration is laid out by optimum.py.
"""

from __future__ import annotations

from fractions import Fraction

from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.worksheet.hyperlink import Hyperlink

from ... import choosing, lower
from ... import program as P
from ...errors import ChaincError, NoAnswerError
from ...execute import ask
from ...limits import LIMITS, limit
from ...numbers import exact
from . import choice, xl, xlcalc
from .cells import BOLD, GREY_FONT, TITLE_FONT, WRAP, Sheet, number_format
from .emit import Emitter, Row, admits, live
from .fixed import write_fixed
from .inner import Answered, AtRow
from .optimum import Optimum
from .printer import Printer
from .question import QuestionCells, concat, shown

STATUS_FORMAT = '"holds";"no value";"fails"'  # a condition's code: 1 holds, -1 no value, 0 fails
NO_VALUE = "no value"


def n(x):
    return xl.number(x)


def letter(c: int) -> str:
    return get_column_letter(c)


class SearchSheet:
    def __init__(self, chain, name: str, ws):
        self.chain, self.book, self.model = chain, chain.book, chain.model
        self.sheet = Sheet(chain.book, ws)
        self.name = name
        self.search = chain.model.searches[name]
        self.pc = chain.report.choosing.get(name)
        found = chain.report.searches.get(name)
        self.error = found if isinstance(found, ChaincError) else None
        self.chosen = None if self.error is not None else found
        self.best_cells: dict = {}  # name -> its cell at the best configuration, on this sheet
        self.exports: dict = {}  # name -> the same, with this sheet's name: what the chain sheet and its checks read
        self.summary = None  # (the goal's cell at the best or the frontier's count, the sentence's cell, else words) for the chain sheet

    # --- what can be laid out -------------------------------------------------------------------

    def programs(self):
        """(the `at` Prepared, the inner questions) of the first hardware whose entry has every value; None: none has."""
        for hw in dict.fromkeys(self.pc.hardware):
            at = self.pc.at[hw]
            if hasattr(at, "program"):
                return at, self.pc.inner[hw]
        return None

    def varied(self) -> list[str]:
        return [a.name for a in self.search.over if a.catalog]

    def why_fixed(self) -> str | None:
        """Why the rows cannot follow the inputs (None: they can)."""
        s, pc = self.search, self.pc
        most = limit("workbook_configurations")
        if len(pc.configs) > most:
            lim = LIMITS["workbook_configurations"]
            return f"its {len(pc.configs):,} configurations are more than the workbook lays out ({most:,}: the limit workbook_configurations, {lim.env})"
        if s.free and s.inner:
            return f"{s.free} is optimised at each configuration by a golden-section search, and its inner questions would be answered at every point of it"
        found = self.programs()
        if found is None:
            return "no configuration's catalog entry has every value the model reads"
        at, inner = found
        if not live(at.program):
            return "the model at a configuration needs a numeric search, a table or a function Excel lacks, which a row of formulas cannot hold"
        if self.varied() and any(p.source not in ("gpu", "llm") for name, p in self.model.params.items() if name in at.program.inputs):
            return "the model reads an imported chain's values, which follow that chain's own dropdowns, not each configuration's"
        for _, pq in inner:
            for part in [p for _, p in pq.parts] or [pq]:  # a several-condition question: each condition's own answer, combined
                name = part.rule.question.name
                probe = QuestionCells(AtRow(self.chain, self.sheet, self.chain.scope.child(), {name: part.rule}, {name: None}), name)
                if not probe.laid_out:
                    return f"its inner question {pq.rule.question.name} cannot be laid out: {probe.why_fixed()}"
        return None

    # --- the sheet --------------------------------------------------------------------------------

    def write(self) -> None:
        sh, s, m = self.sheet, self.search, self.model
        chain_title = self.chain.sheet.ws.title
        sh.text(1, 1, f"{m.name}: {s.name}", font=TITLE_FONT)
        sh.long(2, 1, 13, s.ask or self.goal_words())
        link = sh.long(3, 1, 13, f"Inputs: the {chain_title} sheet (its yellow cells and dropdowns); this sheet follows them", font=GREY_FONT)
        link.hyperlink = Hyperlink(ref="A3", location=f"{quote_sheetname(chain_title)}!A1")
        sh.ws.freeze_panes = "A4"
        if self.error is not None or self.pc is None:
            text = f"{s.name}: {self.error.message if self.error is not None else 'the search could not be prepared'}"
            sh.section(5, "Answer")
            sh.fixed(6, 2, None, "General", text)
            sh.long(6, 4, 13, text)
            self.summary = (None, None, text)
            self.last_col = 13
            return
        why = self.why_fixed()
        if why is not None:
            write_fixed(self, why)
            return
        self.layout()
        self.write_rows()
        choice.write_choice(self)

    def goal_words(self) -> str:
        s = self.search
        if s.frontier:
            return f"the frontier of {s.goals[0].seek} {s.goals[0].name} and {s.goals[1].seek} {s.goals[1].name}"
        return f"{s.goals[0].seek} {s.goals[0].name}"

    def inner_names(self) -> list[str]:
        """What each row finds: the inner questions' variables, and the free variable last (Chosen.inner_names)."""
        return [v for v, _ in self.search.inner] + ([self.search.free] if self.search.free else [])

    def layout(self) -> None:
        """Where each column and section goes: the choice at the top, the rows below it, the inner workings last."""
        s = self.search
        self.at, self.inner = self.programs()
        c = 2
        self.col_axis = {a.name: c + k for k, a in enumerate(s.over)}
        c += len(s.over)
        self.col_inner = {v: c + k for k, v in enumerate(self.inner_names())}
        c += len(self.col_inner)
        self.col_goal = {g.name: c + k for k, g in enumerate(s.goals)}
        c += len(s.goals)
        self.col_cond = {cond[0]: c + k for k, cond in enumerate(self.pc.conditions)}
        c += len(self.col_cond)
        self.col_rank = c  # the rank, or for a frontier: on the frontier or not
        self.col_why = c + 1
        self.last_col = max(13, self.col_why)
        self.helper = self.last_col + 2
        self.grid_head = 5 + choice.height(self)
        self.first = self.grid_head + 1
        self.last = self.first + len(self.pc.configs) - 1
        self.scopes: list = []  # per row: (its scope, the tests that its catalog values have values)
        self.lacking: list = []  # per row: the first catalog value its entry lacks, in words ('' where none)
        self.cols: dict = {}  # a helper column's label -> its column
        self.inner_cells: dict = {}  # (row, variable) -> (its answer cell, its message cell, the question)
        self.miss: list = []  # per row: its shortfall cell (runtime/choose.closest reads them)
        self.failed_cells: list = []  # per row: what failed first
        self.where_cells: list = []  # per row, with a free variable: where its optimum lies
        self.row_tail: list = []  # per row: (its next free column, its has-values cell, its scope): choice.py goes on there

    def rng(self, col: int, values) -> xl.Range:
        return xl.Range(f"${letter(col)}${self.first}:${letter(col)}${self.last}", tuple(values))

    def put(self, r: int, c: int, node, cached=None, fmt=None) -> xl.Cell:
        self.sheet.formula(r, c, node, cached, fmt)
        return xl.Cell(f"${letter(c)}${r}", cached if cached is not None else xlcalc.value(node))

    def key(self, *parts) -> tuple:
        return (self.model.name, "search", self.name, *parts)

    # --- the rows -----------------------------------------------------------------------------------

    def write_rows(self) -> None:
        sh, s, m, pc = self.sheet, self.search, self.model, self.pc
        title = sh.ws.title
        sh.section(self.grid_head - 1, f"Configurations: {len(pc.configs):,}, one row each (the model at each is in the helper columns to the right, hidden)")
        labels = ["#", *self.col_axis, *self.col_inner, *self.col_goal, *(f"{k}?" for k in self.col_cond), "on the frontier" if s.frontier else "rank", "why not"]
        sh.header(self.grid_head, labels)
        lookups, defaults = self._hardware_names()
        for i, config in enumerate(pc.configs):
            r = self.first + i
            scope = self.chain.scope.child()
            sh.number(r, 1, i + 1, "0")
            for axis, v in zip(s.over, config):
                c = self.col_axis[axis.name]
                if axis.catalog:
                    sh.text(r, c, v)
                    scope.slots[f"#{axis.name}"] = (xl.Cell(f"${letter(c)}${r}", v), Fraction(1))
                else:
                    f = exact(m.variables[axis.name].factor)
                    value = float(v / f)
                    sh.number(r, c, value, number_format(value, integer=m.variables[axis.name].domain.integer, exact=True))
                    scope.slots[axis.name] = (xl.Cell(f"${letter(c)}${r}", value), f)
                self.book.manifest.cells[self.key("row", i, axis.name)] = (title, f"{letter(c)}{r}")
            self.scopes.append((scope, self._row_hardware(r, scope, lookups, defaults)))
        self.workings = self.last + 2
        for i in range(len(pc.configs)):
            self._inner(i)
        self.free_cells: dict = {}  # row -> the free variable's Optimum (its x, whether a point had a value, where)
        for i in range(len(pc.configs)) if s.free else ():
            if i == 0:
                sh.section(self.workings, f"The best {s.free} at each configuration: runtime/choose.optimum's scan and golden-section steps (folded rows)")
                self.workings += 1
            scope, _ = self.scopes[i]
            opt = Optimum(self, i, scope)
            self.workings = opt.write(self.workings)
            scope.slots[s.free] = (opt.x, exact(m.variables[s.free].factor))
            self.free_cells[i] = opt
        for i in range(len(pc.configs)):
            self._model(i)
        for key, c in self.cols.items():
            sh.text(self.grid_head, c, key, font=GREY_FONT)
        for c in range(self.helper, max(self.cols.values(), default=self.helper) + 1):
            sh.ws.column_dimensions[letter(c)].hidden = True
        sh.text(1, self.helper, "helper cells: each configuration's catalog values, the model at it, its conditions' sides and the ranking's keys", font=GREY_FONT)

    def _hardware_names(self):
        """The catalog values (params) the rows read by their own ids, and the inputs whose default is one of them."""
        kinds = set(self.varied())
        programs = [self.at.program] + [p for _, pq in self.inner for p in (pq.rule.at, pq.rule.boundary) if p is not None]
        read = {n for p in programs for n in p.inputs}
        read |= {n for p in programs for x in p.physical for n in P.refs(x.cond)}  # a probe's limits text reads them too
        read |= {n for _, _, cmp, guards in self.pc.conditions for e in (cmp, *(x for g in guards for x in g)) for n in P.refs(e)}
        defaults = [a for a in lower.defaults(self.model) if a.name in read and any(self.model.params[p].source in kinds for p in P.refs(a.expr) if p in self.model.params)]
        for a in defaults:
            read |= P.refs(a.expr)
        lookups = [p for p in sorted(read) if p in self.model.params and self.model.params[p].source in kinds]
        return lookups, defaults

    def _row_hardware(self, r: int, scope, lookups, defaults) -> list:
        """The row's catalog values and defaults in helper columns; returns their tests (a number, in its domain)."""
        m, chain = self.model, self.chain
        c, tests, lacks = self.helper, [], xl.Str("")
        for p in lookups:
            param = m.params[p]
            rng, ids = chain.catalog[(param.source, param.field_name)], chain.catalog[(param.source, "ids")]
            found = xl.fn("INDEX", rng, n(1), xl.fn("MATCH", scope.slots[f"#{param.source}"][0], ids, n(0)))
            cell = self.put(r, c, xl.fn("IF", xl.op("=", found, xl.Str("")), xl.fn("NA"), found))  # an empty catalog cell: no value, never 0
            scope.slots[p] = (cell, exact(param.factor))
            tests.append(xl.fn("ISNUMBER", cell))
            self.cols[p] = c
            c += 1
        for p, test in reversed(list(zip(lookups, tests))):  # the first value the entry lacks, as the solver names it
            param = m.params[p]
            lacks = xl.fn("IF", test, lacks, concat(scope.slots[f"#{param.source}"][0], xl.Str(f" has no value for {param.field_name}")))
        self.lacking.append(lacks)
        for a in defaults:
            var = m.variables[a.name]
            f = exact(var.factor)
            pr = Printer(scope.resolve)
            node = pr.value(a.expr, f)
            typed_title, typed_ref = self.book.manifest.cells[(m.name, "input", a.name)]
            given = dict(chain.report.given)
            typed = xl.Cell(f"{quote_sheetname(typed_title)}!${typed_ref[0]}${typed_ref[1:]}", float(given[a.name] / f) if a.name in given else "")
            used = chain.scope.resolve(a.name)[0]  # the chain's value used: a typed value, checked against the domain there
            cell = self.put(r, c, xl.fn("IF", xl.op("=", typed, xl.Str("")), node, used), None, chain.formats.get(a.name))
            scope.slots[a.name] = (cell, f)
            dom = chain.report.solution.program.domains[a.name]
            tests.append(admits(cell, dom))
            self.cols[f"{a.name} (default)"] = c
            c += 1
        self.program_col = c
        return tests

    def _inner(self, i: int) -> None:
        """Each inner question's workings at row i, below the grid: its answer in B, its message in D."""
        sh, pc, chosen = self.sheet, self.pc, self.chosen
        scope, _ = self.scopes[i]
        hw = pc.hardware[i]
        inner = pc.inner[hw] if hasattr(pc.at[hw], "program") else self.inner  # an entry without a value: its rows say so
        for k, (var, pq) in enumerate(inner):
            q = pq.rule.question
            if i == 0 and k == 0:
                sh.section(self.workings, "Inner questions at each configuration: the answer rule's workings (folded rows)")
                self.workings += 1
            value = chosen.inner[k][i]
            f = exact(self.model.variables[var].factor)
            parts = {part.rule.question.name: part for _, part in pq.parts}
            answers = self._part_answers(i, k, parts)
            # a row whose answer needed the joint search (no condition's own answer is it) shows the solver's number
            joint = parts and value is not None and not any(a is not None and abs(a.base - value) <= abs(value) * 1e-12 for a in answers.values())
            binding = () if joint else ("",)
            at = AtRow(self.chain, sh, scope, {**{n: p.rule for n, p in parts.items()}, q.name: pq.rule}, {**answers, q.name: Answered(value, binding=binding) if value is not None else None})
            for name, a in answers.items():  # each condition's own answer first: the combined rule reads them (question.py)
                r = self.workings
                sh.text(r, 1, f"#{i + 1} {name}", font=GREY_FONT)
                self.workings = QuestionCells(at, name).write(r, r + 1)
                scope.slots[f"?{name}"] = (xl.Cell(f"$B${r}", float(a.base / f) if a is not None else xl.NA), f)
            answer_row = self.workings
            sh.text(answer_row, 1, f"#{i + 1} {q.name}", font=BOLD)
            sh.text(answer_row, 3, self.model.variables[var].unit)
            self.workings = QuestionCells(at, q.name).write(answer_row, answer_row + 1)
            cached = float(value / f) if value is not None else xl.NA
            answer = xl.Cell(f"$B${answer_row}", cached)
            message = xl.Cell(f"$D${answer_row}", self.book.cached.get((sh.ws.title, f"D{answer_row}")))
            scope.slots[var] = (answer, f)
            self.inner_cells[(i, var)] = (answer, message, q.name)
            self.book.manifest.cells[self.key("inner", i, var)] = (sh.ws.title, f"B{answer_row}")

    def _part_answers(self, i: int, k: int, parts: dict) -> dict:
        """Row i's answer of each condition of its k-th inner question alone (the cells' cached values; None: none)."""
        if not hasattr(self.pc.at[self.pc.hardware[i]], "program"):  # its catalog entry lacks a value: no answers
            return dict.fromkeys(parts)
        g = choosing.givens(self.pc, i, dict(self.chain.report.given))
        for (var, _), values in zip(self.search.inner[:k], self.chosen.inner):
            if values[i] is None:  # an earlier inner question has no answer here: nor have these
                return dict.fromkeys(parts)
            g[var] = values[i]
        out = {}
        for name, part in parts.items():
            try:
                out[name] = ask(part, g)
            except NoAnswerError:
                out[name] = None
        return out

    def _model(self, i: int) -> None:
        """Row i's inner answers, the model at the configuration, its conditions, goals, what failed and why."""
        sh, s, pc, chosen = self.sheet, self.search, self.pc, self.chosen
        title, r = sh.ws.title, self.first + i
        scope, tests = self.scopes[i]
        names = [v for v, _ in s.inner]
        inner = [self.inner_cells[(i, v)] for v in names]
        for (answer, _, _), var in zip(inner, names):
            c = self.col_inner[var]
            self.put(r, c, xl.fn("IF", xl.fn("ISNUMBER", answer), answer, xl.Str("none")), answer.value if not isinstance(answer.value, xl.XError) else "none", self.chain.formats.get(var))
            self.book.manifest.cells[self.key("row", i, var)] = (title, f"{letter(c)}{r}")
        if s.free:  # the optimum's x, or none where no point of the range has a value (the row is then at its middle)
            opt, c = self.free_cells[i], self.col_inner[s.free]
            x = chosen.inner[len(names)][i]
            self.put(r, c, xl.fn("IF", opt.has, opt.x, xl.Str("none")), float(x / exact(self.model.variables[s.free].factor)) if x is not None else "none", self.chain.formats.get(s.free))
            self.book.manifest.cells[self.key("row", i, s.free)] = (title, f"{letter(c)}{r}")
        values = {g.name: chosen.goals[k][i] for k, g in enumerate(s.goals) if chosen.goals[k][i] is not None}
        target = Row(sh, r, self.program_col)
        em = Emitter(sh, self.at.program, scope, target, self.chain.factor, values, formats=self.chain.formats)
        em.run()
        for key, c in target.cols.items():
            self.cols.setdefault(key, c)
        pr = em.printer()
        c = target.col
        hw = self.put(r, c, xl.all_of(tests, xl.TRUE))  # the catalog values the row reads: a number each, in its domain
        ok = self.put(r, c + 1, xl.all_of([hw, *(xl.fn("IFERROR", t, xl.FALSE) for t in em.oks)]))
        has = self.put(r, c + 2, xl.fn("IF", xl.fn("AND", ok, *(xl.fn("ISNUMBER", a) for a, _, _ in inner)), n(1), n(0)), None, "0")
        self.cols.update({"catalog values ok": c, "values ok": c + 1, "has values": c + 2})
        c += 3
        statuses, sides, parts = [], [], []
        for label, text, cmp, guards in pc.conditions:
            left, right = self.put(r, c, xl.fn("IFERROR", pr.value(cmp.left), xl.Str(""))), self.put(r, c + 1, xl.fn("IFERROR", pr.value(cmp.right), xl.Str("")))
            self.cols.update({f"{label}: left": c, f"{label}: right": c + 1})
            c += 2
            divides = [xl.fn("IF", pr.condition(w), xl.op("<>", pr.value(d), n(0)), xl.TRUE) for d, w in guards]
            holds = xl.fn("IF", pr.condition(cmp), n(1), n(0))
            code = xl.fn("IFERROR", xl.fn("IF", xl.all_of(divides), holds, n(-1)) if divides else holds, n(-1))
            col = self.col_cond[label]
            status = self.put(r, col, xl.fn("IF", xl.op("=", has, n(1)), code, xl.Str("")), None, STATUS_FORMAT)
            self.book.manifest.cells[self.key("row", i, f"{label}?")] = (title, f"{letter(col)}{r}")
            statuses.append(status)
            sides.append((left, right, cmp))
            parts.append((label, text, cmp, self._fails(label, cmp, left, right, scope)))
        miss = [xl.fn("IF", xl.op("=", st, n(1)), n(0), _shortfall(cmp.op, left, right)) for st, (left, right, cmp) in zip(statuses, sides)]
        no_cond = xl.fn("OR", *(xl.op("=", st, n(-1)) for st in statuses)) if statuses else xl.FALSE
        self.cols["shortfall"] = c
        self.miss.append(self.put(r, c, xl.fn("IF", xl.op("=", has, n(1)), xl.fn("IF", no_cond, xl.Str(""), xl.fn("MAX", *miss) if miss else n(0)), xl.Str(""))))
        c += 1
        failed = self._failed(hw, ok, inner, statuses, parts)
        self.cols["failed"] = c
        self.failed_cells.append(self.put(r, c, failed, chosen.failed[i]))
        why = self._why(self.failed_cells[-1], inner, statuses, parts, self.lacking[i])
        self.put(r, self.col_why, why)  # the solver's words, but its numbers as the workbook rounds them
        sh.ws.cell(row=r, column=self.col_why).alignment = WRAP
        if self.col_why < self.last_col:
            sh.ws.merge_cells(start_row=r, start_column=self.col_why, end_row=r, end_column=self.last_col)
        self.book.manifest.cells[self.key("row", i, "why")] = (title, f"{letter(self.col_why)}{r}")
        self.book.manifest.cells[self.key("row", i, "failed")] = (title, f"{letter(c)}{r}")
        c += 1
        if s.free:  # where the optimum lies along the free variable's range (the sentence's words for the best row)
            self.cols[f"{s.free}: where"] = c
            self.where_cells.append(self.put(r, c, self.free_cells[i].where))
            c += 1
        self.row_tail.append((c, has, scope))

    def _fails(self, label: str, cmp, left, right, scope):
        """'memory: step_bytes = 92.0285 GB > memory = 80 GB': a failing condition in the solver's words (failing_sides)."""
        parts = []
        for side, cell in ((cmp.left, left), (cmp.right, right)):
            if isinstance(side, P.Ref) and side.name in self.model.variables:
                v = self.model.variables[side.name]
                node = scope.resolve(side.name)[0]
                parts.append(concat(xl.Str(f"{side.name} = "), shown(node), xl.Str(f" {v.unit}" if v.unit else "")))
            else:
                parts.append(shown(cell))
        return concat(xl.Str(f"{label}: "), parts[0], xl.Str(f" {P.NEGATED.get(cmp.op, 'fails')} "), parts[1])

    def _failed(self, hw, ok, inner, statuses, parts):
        """The label of what failed first, as choosing._at names it: 'no value', an inner question, a condition, or ''."""
        out = xl.Str("")
        for st, (label, _, _, _) in reversed(list(zip(statuses, parts))):
            out = xl.fn("IF", xl.op("=", st, n(0)), xl.Str(label), out)
        for st, (label, _, _, _) in reversed(list(zip(statuses, parts))):  # a condition without a value wins (the solver stops there)
            out = xl.fn("IF", xl.op("=", st, n(-1)), xl.Str(label), out)
        out = xl.fn("IF", ok, out, xl.Str(NO_VALUE))
        for answer, _, qname in reversed(inner):
            out = xl.fn("IF", xl.fn("ISNUMBER", answer), out, xl.Str(qname))
        return xl.fn("IF", hw, out, xl.Str(NO_VALUE))  # an entry without a value the model reads: before its inner questions

    def _why(self, failed, inner, statuses, parts, lacks):
        """The first failure in words: the inner question's message, a condition's sides, or no value."""
        out = xl.fn("IF", xl.op("=", lacks, xl.Str("")), xl.Str(f"{NO_VALUE} here: a value outside its domain or a division by zero"), lacks)
        for st, (label, text, _, fails) in reversed(list(zip(statuses, parts))):
            out = xl.fn("IF", xl.op("=", failed, xl.Str(label)), xl.fn("IF", xl.op("=", st, n(-1)), xl.Str(f"{label}: {text} has no value here"), fails), out)
        for _, message, qname in reversed(inner):
            out = xl.fn("IF", xl.op("=", failed, xl.Str(qname)), message, out)
        return xl.fn("IF", xl.op("=", failed, xl.Str("")), xl.Str(""), out)


def _shortfall(op: str, left, right):
    """runtime/choose.shortfall: how far left op right is from holding, relative to the larger side."""
    holds = xl.op({"<=": "<=", "<": "<", ">=": ">=", ">": ">"}[op], left, right) if op in ("<=", "<", ">=", ">") else xl.FALSE
    scale = xl.fn("MAX", xl.fn("ABS", left), xl.fn("ABS", right))
    return xl.fn("IF", holds, n(0), xl.fn("IF", xl.op("=", scale, n(0)), n(0), xl.op("/", xl.fn("ABS", xl.op("-", left, right)), scale)))
