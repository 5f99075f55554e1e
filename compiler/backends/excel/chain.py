"""One chain's sheet: hardware dropdowns, inputs, the program's results, questions, tables, checks, queries, sweeps.

Everything computed is printed from the Report's programs (report.solution.program
for the results, the question's programs for its answer, each check's and sweep's
program for theirs) over named cells in display units, and cached with the
Report's numbers.
"""

from __future__ import annotations

from fractions import Fraction

from openpyxl.formatting.rule import FormulaRule
from openpyxl.utils import get_column_letter
from openpyxl.worksheet.datavalidation import DataValidation
from openpyxl.worksheet.hyperlink import Hyperlink

from ... import lower
from ...calibrated import UNCALIBRATED
from ...numbers import exact
from . import domains as D
from . import xl, xlcalc
from .cells import BOLD, BOX, CHANGED_FILL, GREY_FONT, INPUT_FILL, INPUT_FONT, NOTE_FONT, TITLE_FONT, UNLOCKED, Sheet, absolute, number_format
from .checks import write_checks
from .choices import write_choice
from .emit import Column, Emitter, Scope
from .physical import write_limits
from .printer import Printer
from .question import QuestionCells
from .search_summary import write_searches
from .sweep import write_sweep
from .tables import write_table

WIDTHS = {"A": 28, "B": 16, "C": 14}


def _display(v, factor) -> float:
    return float(Fraction(v) / factor) if not isinstance(v, float) else v / float(factor)


class Chain:
    def __init__(self, book, ws, report, catalog: dict, chains: dict):
        self.book, self.sheet = book, Sheet(book, ws)
        self.report, self.model = report, report.model
        self.catalog = catalog  # (kind, field or 'ids') -> the catalog sheet's range
        self.chains = chains  # model name -> Chain (imported chains are written first)
        self.scope = Scope()
        self.pending: list = []  # tables, written in their own section
        values = report.solution.values
        self.formats = {}
        for n, v in self.model.variables.items():
            if n in values:
                self.formats[n] = number_format(_display(values[n], exact(v.factor)), integer=v.domain.integer, digits=v.digits)

    # --- what the emitters ask ----------------------------------------------------------------

    def factor(self, name: str) -> Fraction:
        m = self.model
        q = m.quantity(name)
        if q is not None:
            return exact(q.factor)
        agg = m.aggregates.get(name)
        if agg is not None:
            name = f"{agg.table}.{agg.column}" if agg.column else ""
        table, _, col = name.partition(".")
        col = col.removeprefix("prev.")
        if table in m.tables:
            c = next((c for c in m.tables[table].columns if c.name == col), None)
            if c is not None:
                return exact(c.factor)
        return Fraction(1)

    def describe(self, key: str) -> tuple[str, str]:
        v = self.model.variables.get(key)
        return (v.unit, v.description) if v is not None else ("", "")

    def printer(self, scope=None) -> Printer:
        return Printer((scope or self.scope).resolve)

    def report_problems(self, pr: Printer, site) -> None:
        for what in pr.problems:
            self.book.problem(site.loc, what, site.what)

    def own_hardware(self):
        """(the condition that this sheet and the sheets it imports run on the hardware the model names, its title).

        The expected numbers are for that hardware: a check holds or fails there, and is a reference elsewhere.
        None when no dropdown feeds the sheet.
        """
        tests, names = [], []
        for chain in self.feeding():
            for kind in ("gpu", "llm"):
                entry_id = getattr(chain.model, kind)
                if entry_id and f"#{kind}" in chain.scope.slots:
                    tests.append(xl.op("=", chain.scope.slots[f"#{kind}"][0], xl.Str(entry_id)))
                    title = self.book.titles.get((kind, entry_id), entry_id)
                    if title not in names:
                        names.append(title)
        calibration = self.report.calibration
        if calibration is not None:  # the expected numbers are the ideal machine's: they apply once the fitted inputs are cleared
            for f in calibration.fitted:
                cell = self.book.manifest.cells[(self.model.name, "input", f.name)][1]
                tests.append(xl.op("=", xl.Cell("$" + cell, f.value), xl.Str("")))
        if not tests:
            return None, ""
        hardware = " with ".join(names)
        if calibration is not None:
            hardware = f"{UNCALIBRATED} on {hardware}" if hardware else UNCALIBRATED
        return (tests[0] if len(tests) == 1 else xl.fn("AND", *tests)), hardware

    def feeding(self) -> list:
        """This chain and every chain whose cells it reads, each once."""
        out, todo = [], [self]
        while todo:
            c = todo.pop(0)
            if c not in out:
                out.append(c)
                todo.extend(self.chains[other.name] for _, other in c.model.imports if other.name in self.chains)
        return out

    def table(self, loop, scope) -> None:
        """A Loop met while printing: its aggregates become named cells now, its rows are written later."""
        values = self.report.solution.values
        for name, _, _ in loop.aggregates:
            f = self.factor(name)
            cell = xl.Cell(self.book.names.name(f"{self.model.name}.{name}"), _display(values[name], f) if name in values else 0.0)
            scope.slots[name] = (cell, f)
        self.pending.append((loop, scope))

    # --- the sheet ----------------------------------------------------------------------------

    def write(self) -> None:
        sh, m = self.sheet, self.model
        ws = sh.ws
        for col in range(1, 14):
            letter = get_column_letter(col)
            ws.column_dimensions[letter].width = WIDTHS.get(letter, 14)
        sh.text(1, 1, m.title, font=TITLE_FONT)
        ws.merge_cells(start_row=2, start_column=1, end_row=2, end_column=9)
        sh.text(2, 1, m.about, wrap=True)
        ws.row_dimensions[2].height = 15 * max(1, -(-len(m.about) // 120))
        sh.text(3, 1, f"Source: {self.report.source}   (back to the Cover sheet)", font=GREY_FONT)
        ws.cell(row=3, column=1).hyperlink = Hyperlink(ref="A3", location="Cover!A1")
        ws.freeze_panes = "A4"
        # what the numbers are, under the title where a reader looks: calibrated to measured runs, or an ideal machine
        said = self.report.calibration_text
        sh.long(4, 1, 9, said[0].upper() + said[1:] + ("; its fitted values are typed in the inputs below" if self.report.calibration else ""), font=NOTE_FONT)
        row = self.hardware(5)
        self.parameters()
        row = self.inputs(row)
        row = self.results(row)
        row = write_limits(self, row)
        row = self.questions(row)
        row = write_searches(self, row)
        for loop, scope in self.pending:
            row = write_table(self, loop, scope, row)
        if self.report.checks:
            row = write_checks(self, row)
        for name, sol in self.report.queries.items():
            row = self.query(name, sol, row)
        for result in self.report.sweeps.values():
            row = write_sweep(self, result, row)
        sh.page()

    def hardware(self, row: int) -> int:
        sh, m = self.sheet, self.model
        kinds = [k for k in ("gpu", "llm") if getattr(m, k)]
        if not kinds:
            return row
        sh.section(row, "Hardware")
        row += 1
        for kind in kinds:
            entry = getattr(self.report, kind)
            sh.text(row, 1, kind.upper(), font=BOLD)
            c = sh.text(row, 2, entry.id, font=INPUT_FONT, fill=INPUT_FILL)
            c.protection, c.border = UNLOCKED, BOX
            name = sh.define(f"{m.name}.{kind}", absolute(row, 2))
            self.scope.slots[f"#{kind}"] = (xl.Cell(name, entry.id), Fraction(1))
            self.book.manifest.cells[(m.name, "select", kind)] = (sh.ws.title, c.coordinate)
            dv = DataValidation(type="list", formula1=self.catalog[(kind, "ids")].text, allow_blank=False)
            dv.promptTitle = f"Choose a{'n' if kind == 'llm' else ''} {kind.upper()}"
            dv.prompt = "Entries of the Catalog sheet; the catalog values below follow."
            dv.showInputMessage = dv.showErrorMessage = True
            dv.errorTitle = f"Unknown {kind.upper()}"
            dv.error = "Pick an id from the list (the Catalog sheet)."
            sh.ws.add_data_validation(dv)
            dv.add(c.coordinate)
            sh.long(row, 3, 13, f"dropdown: pick an id from the Catalog sheet (named {name})", font=NOTE_FONT)
            row += 1
        return row + 1

    def parameters(self) -> None:
        """gpu.x / llm.x through INDEX/MATCH on the dropdown; alias.x as the imported chain's cell."""
        values = self.report.solution.values
        for name, p in self.model.params.items():
            if p.source in ("gpu", "llm"):
                rng, ids = self.catalog[(p.source, p.field_name)], self.catalog[(p.source, "ids")]
                sel = self.scope.slots[f"#{p.source}"][0]
                # INDEX(range, 1, k): Gnumeric reads a lone index into a one-row range as a row (#REF!)
                node = xl.fn("INDEX", rng, xl.number(1), xl.fn("MATCH", sel, ids, xl.number(0)))
                self.scope.slots[name] = (xl.Cell(xl.text(node), xlcalc.value(node)), exact(p.factor))
            else:
                other = self.chains[dict(self.model.imports)[p.source].name]
                found = other.scope.resolve(p.field_name)
                if found is not None:
                    self.scope.slots[name] = found
                elif name in values:
                    self.scope.slots[name] = (xl.number(_display(values[name], exact(p.factor))), exact(p.factor))

    def inputs(self, row: int) -> int:
        """Each input: the value used (B), its unit, a yellow cell to type a value into (D), the default (E).

        The value used is the typed value when one is typed, else the default: a catalog-backed
        input keeps its INDEX/MATCH default visible and comes back to it when the typed value is
        cleared. A typed value that differs from the default turns the value used orange.
        """
        sh, m = self.sheet, self.model
        sol = self.report.solution
        given = dict(self.report.given)
        defaults = {a.name: a for a in lower.defaults(m)}
        fitted = {f.name for f in self.report.calibration.fitted} if self.report.calibration else set()
        sh.section(row, "Inputs")
        sh.long(row, 4, 13, "type a value in the yellow column; leave it empty to use the default", font=NOTE_FONT)
        sh.header(row + 1, ["name", "value used", "unit", "your value", "default", "description"], span=13)
        row += 2
        for n, var in m.variables.items():
            if var.default is None:
                continue
            if var.choices:  # a dropdown of names (choices.py)
                write_choice(self, row, n, var, given)
                row += 1
                continue
            f = exact(var.factor)
            shown = _display(sol.values[n], f)
            fmt = number_format(shown, integer=var.domain.integer, digits=var.digits, exact=var.default.is_number)
            sh.text(row, 1, n, font=BOLD)
            desc = var.description + (f"  [calibrated ({self.report.calibration.name}): clear your value for the uncalibrated default]" if n in fitted else "")
            if var.default.is_number:
                default = sh.number(row, 5, _display(exact(var.default), f), fmt)
                dnode = xl.Cell(f"$E{row}", default.value)
            else:
                pr = self.printer()
                node = pr.value(defaults[n].expr, f)
                self.report_problems(pr, defaults[n].site)
                sh.formula(row, 5, node, shown if n not in given else None, fmt)
                dnode = xl.Cell(f"$E{row}", shown if n not in given else xlcalc.value(node))
                sources = sorted({m.params[s.name].source for s in var.default.free_symbols if s.name in m.params})
                where = ", ".join("the " + s.upper() + " dropdown (Catalog)" if s in ("gpu", "llm") else f"the {dict(m.imports)[s].name} sheet" for s in sources)
                desc += f"  [default: {where}]"
            typed = sh.ws.cell(row=row, column=4)
            if n in given:
                typed.value = shown
            typed.number_format = fmt
            typed.fill, typed.font, typed.protection, typed.border = INPUT_FILL, INPUT_FONT, UNLOCKED, BOX
            self.validate(typed, n)
            tnode = xl.Cell(f"$D{row}", shown if n in given else "")
            dom = sol.program.domains.get(n)
            if dom is not None and (D.restricts(dom) or var.domain.integer):  # a typed value outside the domain: #N/A and the reason
                node, reason, bad = D.typed(tnode, dnode, dom, var.domain.integer, n, desc)
            else:
                node, reason, bad = xl.fn("IF", xl.op("=", tnode, xl.Str("")), dnode, tnode), None, None
            used = sh.formula(row, 2, node, shown, fmt)
            used.border = BOX
            sh.ws.conditional_formatting.add(f"B{row}", FormulaRule(formula=[f'AND($D{row}<>"",$D{row}<>$E{row})'], fill=CHANGED_FILL, font=BOLD))
            name = sh.define(f"{m.name}.{n}", absolute(row, 2))
            for key, col in (("var", "B"), ("input", "D"), ("default", "E")):
                self.book.manifest.cells[(m.name, key, n)] = (sh.ws.title, f"{col}{row}")
            self.scope.slots[n] = (xl.Cell(name, shown), f)
            sh.text(row, 3, var.unit)
            sh.long(row, 6, 13, desc)
            if reason is not None:
                sh.formula(row, 6, reason, desc)
                sh.flag(f"F{row}", bad)
                sh.flag(f"B{row}", bad)
            row += 1
        return row + 1

    def validate(self, cell, n: str) -> None:
        """A typed input must lie in its domain: Excel refuses other values as they are typed."""
        dom = self.report.solution.program.domains[n]
        lo = dom.lo / dom.factor if dom.lo is not None else (Fraction(0) if dom.kind != "real" else None)
        hi = dom.hi / dom.factor if dom.hi is not None else None
        kind = "whole" if dom.integer else "decimal"
        listed = ",".join(xl.text(xl.number(v / dom.factor)) for v in dom.values) if dom.values is not None else ""
        if lo is None and hi is None:
            return
        if listed and len(listed) <= 255:  # a set: a dropdown of its values (Excel's list is at most 255 characters)
            dv = DataValidation(type="list", formula1=f'"{listed}"', allow_blank=False)
        elif lo is not None and hi is not None:
            dv = DataValidation(type=kind, operator="between", formula1=xl.text(xl.number(lo)), formula2=xl.text(xl.number(hi)))
        elif lo is not None:
            dv = DataValidation(type=kind, operator="greaterThan" if dom.kind == "positive" and dom.lo is None else "greaterThanOrEqual", formula1=xl.text(xl.number(lo)))
        else:
            dv = DataValidation(type=kind, operator="lessThanOrEqual", formula1=xl.text(xl.number(hi)))
        dv.showErrorMessage = True
        dv.errorTitle = f"{n} is {dom.text}"
        dv.error = f"{n} must be {dom.text}."
        self.sheet.ws.add_data_validation(dv)
        dv.add(cell.coordinate)

    def results(self, row: int) -> int:
        sh, m = self.sheet, self.model
        sh.section(row, "Results")
        sh.header(row + 1, ["name", "value", "unit", "description"], span=13)
        target = Column(sh, row + 2, m, m.name, self.describe)
        em = Emitter(sh, self.report.solution.program, self.scope, target, self.factor, self.report.solution.values, self.table, self.formats, live_domains=True)
        em.run()
        for key, r in target.rows.items():
            if key in m.variables:
                self.book.manifest.cells[(m.name, "var", key)] = (sh.ws.title, f"B{r}")
        return target.row + 1

    def questions(self, row: int) -> int:
        """Each question's answer (or #N/A) and its message, two rows each; the workings after them, folded."""
        sh, m = self.sheet, self.model
        if not m.questions:
            return row
        sh.section(row, "Questions")
        sh.header(row + 1, ["question", "answer", "unit", "how it is found, or why there is no answer"], span=13)
        first = row + 2
        work = first + 2 * len(m.questions) + 1
        for k, name in enumerate(m.questions):
            r = first + 2 * k
            q = m.questions[name]
            var = m.variables[q.find]
            sh.text(r, 1, name, font=BOLD)
            sh.text(r, 3, var.unit)
            defined = sh.define(f"{m.name}.{name}", absolute(r, 2))
            self.book.manifest.cells[(m.name, "question", name)] = (sh.ws.title, f"B{r}")
            work = QuestionCells(self, name).write(r, work)
            self.scope.slots[f"?{name}"] = (xl.Cell(defined, self.book.cached.get((sh.ws.title, f"B{r}"), xl.NA)), exact(var.factor))
            step = f", in steps of {xl.as_text(float(exact(q.step) / exact(var.factor)))} {var.unit}".rstrip() if q.step is not None and q.step != var.factor else ""
            sh.long(r + 1, 4, 13, f"asks: {q.ask} ({q.find} such that {q.condition_text}, {'largest' if q.seek == 'max' else 'smallest'}{step})", font=GREY_FONT)
        return work + 1

    def query(self, name: str, sol, row: int) -> int:
        """A custom query (build --find/--given): its givens as inputs, its own program below them."""
        sh, m = self.sheet, self.model
        given = ", ".join(f"{n} = {xl.as_text(_display(v, exact(m.variables[n].factor)))} {m.variables[n].unit}".rstrip() for n, v in sol.given.items())
        finds = [n for n in sol.program.outputs if n in m.variables and m.variables[n].default is not None]
        sh.section(row, f"Query '{name}'" + (f": given {given}" if given else "") + (f"; solved for {', '.join(finds)}" if finds else ""))
        sh.header(row + 1, ["name", "value", "unit", "description"], span=13)
        row += 2
        scope = self.scope.child()
        for n, v in sol.given.items():
            f = exact(m.variables[n].factor)
            shown = _display(v, f)
            c = sh.number(row, 2, shown, number_format(shown, exact=True))
            c.fill, c.font, c.protection, c.border = INPUT_FILL, INPUT_FONT, UNLOCKED, BOX
            sh.text(row, 1, n, font=BOLD)
            sh.text(row, 3, m.variables[n].unit)
            sh.text(row, 4, "given in this query", font=GREY_FONT)
            scope.slots[n] = (xl.Cell(sh.define(f"{m.name}.{name}.{n}", absolute(row, 2)), shown), f)
            row += 1
        target = Column(sh, row, m, f"{m.name}.{name}", self.describe)
        em = Emitter(sh, sol.program, scope, target, self.factor, sol.values, self.table, self.formats, live_domains=True)
        em.run()
        for key, r in target.rows.items():
            self.book.manifest.cells[(m.name, name, key)] = (sh.ws.title, f"B{r}")
        return target.row + 1
