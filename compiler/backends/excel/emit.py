"""A Program's statements as cells: the same program the solver runs, printed one value per cell.

Two layouts take the values: a column of labelled rows (a chain's results, a
question's boundary) and a single row (one point of a sweep, one probe of a
question, one check at its given values), where each value takes the next
column. Statement by statement:

- Assign: a formula cell; one with a function Excel lacks (LambertW) is the
  Report's number in a labelled numeric cell;
- Check: the value's domain, a red flag in a column and part of the row's
  `ok` in a row (the solver stops there, so a probe there has no answer);
- Guard: a divisor that must not be zero, part of a row's `ok`;
- Pick: each root in a cell, then the one admissible root (none, or several
  different ones, is #N/A), as `V.pick` chooses;
- Search: the tears are the Report's numbers (Excel has no root finder; a note
  says how to redo them with Goal Seek), the residuals are formulas;
- Loop: a table, written later in its own section; its aggregates are named
  cells that the statements after it read.

A row cannot hold a table or a search: `NotLive` says so, and the caller prints
the Report's numbers instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from openpyxl.comments import Comment
from openpyxl.utils import get_column_letter

from ... import program as P
from . import domains as D
from . import xl, xlcalc
from .cells import GREY_FONT, Sheet, clean, number_format
from .printer import MISSING, Printer

LAMBERT_NOTE = "{what}: Excel has no Lambert W function, so this is the compiler's number at build time; it does not follow the inputs."


class NotLive(Exception):
    """A program a row of formulas cannot hold (a table, a numeric search, a function Excel lacks)."""


@dataclass
class Scope:
    """Names -> (cell node, display -> base factor); a child scope sees its parent's names."""

    slots: dict = field(default_factory=dict)
    parent: Scope | None = None

    def resolve(self, name: str):
        s = self
        while s is not None:
            if name in s.slots:
                return s.slots[name]
            s = s.parent
        return None

    def child(self) -> Scope:
        return Scope({}, self)


def admits(node, dom: P.Domain):
    """The domain test of a display-unit value: a number, of the right sign, within min and max, in its set."""
    return xl.fn("IF", xl.fn("ISNUMBER", node), D.test(node, dom), xl.FALSE)


def live(program: P.Program) -> bool:
    """Whether a row of formulas can hold the program: no table, no numeric search, no function Excel lacks."""
    for s in P.statements(program.body):
        if isinstance(s, (P.Search, P.Loop)):
            return False
        exprs = {P.Assign: lambda s: [s.expr], P.Pick: lambda s: [e for c in s.candidates for e in c], P.Guard: lambda s: [s.divisor, s.when]}.get(type(s), lambda s: [])(s)
        if any(isinstance(node, P.Call) and node.fn in MISSING for e in exprs for node in P.walk(e)):
            return False
    return True


class Target:
    """Where values go: `place` returns (row, col, reference text) for a new cell."""

    row_mode = False

    def place(self, key: str, label: str, helper: bool) -> tuple[int, int, str]:
        raise NotImplementedError


class Column(Target):
    """A column of labelled rows: name | value | unit | description; model variables get defined names."""

    def __init__(self, sheet: Sheet, row: int, model, names_for: str | None, describe):
        self.sheet, self.row, self.model, self.prefix, self.describe = sheet, row, model, names_for, describe
        self.rows: dict[str, int] = {}

    def place(self, key, label, helper):
        r = self.row
        self.row += 1
        self.rows[key] = r
        self.sheet.text(r, 1, label, font=GREY_FONT if helper else None)
        unit, desc = self.describe(key)
        if unit:
            self.sheet.text(r, 3, unit)
        if desc:
            self.sheet.long(r, 4, 13, desc, font=GREY_FONT if helper else None)
        ref = f"$B${r}"
        if self.prefix is not None and not helper:
            ref = self.sheet.define(f"{self.prefix}.{key}", ref)
        return r, 2, ref


class Row(Target):
    """One row: each value takes the next column."""

    row_mode = True

    def __init__(self, sheet: Sheet, row: int, col: int):
        self.sheet, self.row, self.col = sheet, row, col
        self.cols: dict[str, int] = {}

    def place(self, key, label, helper):
        c = self.col
        self.col += 1
        self.cols[key] = c
        return self.row, c, f"${get_column_letter(c)}{self.row}"


class Emitter:
    """Prints one program into a target. values: the Report's numbers (base units) for these cells, if it has them."""

    def __init__(self, sheet: Sheet, program: P.Program, scope: Scope, target: Target, factor, values: dict | None = None, tables=None, formats=None, live_domains=False):
        self.sheet, self.program, self.scope, self.target = sheet, program, scope, target
        self.factor = factor  # name -> display -> base factor
        self.values = values or {}
        self.tables = tables  # callback(loop, scope) for a table in a column layout
        self.formats = formats or {}
        self.oks: list = []  # conditions under which the solver would not stop (rows: domains, divisors)
        self.cells: dict[str, tuple[int, int]] = {}
        # a column of results: a value outside its domain is #N/A with the reason beside it (domains.py)
        self.live_domains = live_domains and isinstance(target, Column)
        self.checked = {s.name for s in P.statements(program.body) if isinstance(s, P.Check)}
        self.valid: dict = {}  # an equation's site -> its valid_when guards: part of its value's live domain in a column
        for s in P.statements(program.body):
            if isinstance(s, P.Guard) and s.why:
                self.valid.setdefault(s.site, []).append(s)

    def run(self, body=None) -> None:
        for s in self.program.body if body is None else body:
            getattr(self, "_" + type(s).__name__.lower())(s)

    # --- helpers --------------------------------------------------------------------------------

    def printer(self) -> Printer:
        return Printer(self.scope.resolve)

    def _cached(self, name: str):
        v = self.values.get(name)
        if v is None:
            return None
        return float(Fraction(v) / Fraction(self.factor(name))) if not isinstance(v, float) else v / float(self.factor(name))

    def put(self, key: str, label: str, node, cached=None, helper=False, fmt=None):
        r, c, ref = self.target.place(key, label, helper)
        if fmt is None and cached is not None:
            fmt = self.formats.get(key) or number_format(cached)
        self.sheet.formula(r, c, node, cached, fmt)
        value = cached if cached is not None else xlcalc.value(node)
        self.cells[key] = (r, c)
        return xl.Cell(ref, value)

    def _print(self, pr: Printer, site: P.Site) -> bool:
        """Report what could not be printed; True when the statement needs a function Excel lacks."""
        for what in pr.problems:
            self.sheet.book.problem(site.loc, what, site.what)
        if pr.missing and self.target.row_mode:
            raise NotLive(pr.missing[0])
        return bool(pr.missing)

    # --- statements -----------------------------------------------------------------------------

    def _assign(self, s: P.Assign):
        f = self.factor(s.name)
        pr = self.printer()
        node = pr.value(s.expr, f)
        cached = self._cached(s.name)
        if self._print(pr, s.site):
            return self._fixed(s.name, LAMBERT_NOTE.format(what=s.site.what))
        dom = self.program.domains.get(s.name)
        if self.live_domains and s.name in self.checked and dom is not None and (D.restricts(dom) or s.site in self.valid):
            return self._live_domain(s, node, cached, dom)
        self.scope.slots[s.name] = (self.put(s.name, s.name, node, cached), f)

    def _live_domain(self, s: P.Assign, node, cached, dom: P.Domain) -> None:
        """The value before its check in hidden column N; the cell IF(in the domain, it, NA()); the reason in its description."""
        r, c, ref = self.target.place(s.name, s.name, False)
        fmt = self.formats.get(s.name) or (number_format(cached) if cached is not None else None)
        sh = self.sheet
        raw_col = get_column_letter(D.RAW_COL)
        sh.formula(r, D.RAW_COL, node, cached, fmt)
        sh.ws.column_dimensions[raw_col].hidden = True
        raw = xl.Cell(f"${raw_col}{r}", cached if cached is not None else xlcalc.value(node))
        t = D.test(raw, dom)
        holds = self._holds(s, raw)  # valid_when: where the equation holds, reading the raw value for its own name
        if holds is not None:
            t = xl.fn("AND", holds, t)
        sh.formula(r, c, xl.fn("IF", t, raw, xl.fn("NA")), cached, fmt)
        self.cells[s.name] = (r, c)
        desc = sh.ws.cell(row=r, column=4).value
        if not desc:
            sh.long(r, 4, 13, "")
        bad = xl.fn("IF", xl.fn("ISNUMBER", raw), xl.fn("NOT", t), xl.FALSE)  # an error from upstream is its own reason
        why = D.reason(s.name, raw, dom, s.site.what, D.upstream(self.program, s.name))
        if holds is not None:
            words = "; ".join(P.guard_words(g)[0] for g in self.valid[s.site])
            why = xl.fn("IF", xl.fn("IFERROR", holds, xl.FALSE), why, D.text(words + ": change " + ", ".join(D.upstream(self.program, s.name))))
        upstream_error = xl.op("&", xl.Str("no value: a value it is computed from is outside its domain or has none here. "), D.text(desc or ""))
        sh.formula(r, 4, xl.fn("IF", bad, why, xl.fn("IF", xl.fn("ISERROR", raw), upstream_error, D.text(desc or ""))), desc or "")
        sh.flag(f"D{r}", bad)
        self.scope.slots[s.name] = (xl.Cell(ref, raw.value if cached is None else cached), self.factor(s.name))

    def _holds(self, s: P.Assign, raw):
        """The valid_when conditions of s's equation as one test (None: it has none), its own value read from `raw`."""
        guards = self.valid.get(s.site, [])
        if not guards:
            return None
        outer = self.scope.slots.get(s.name)
        self.scope.slots[s.name] = (raw, self.factor(s.name))
        try:
            pr = self.printer()
            tests = [xl.fn("NOT", pr.condition(g.when)) for g in guards]
            self._print(pr, s.site)
        finally:
            if outer is None:
                del self.scope.slots[s.name]
            else:
                self.scope.slots[s.name] = outer
        return tests[0] if len(tests) == 1 else xl.fn("AND", *tests)

    def _check(self, s: P.Check):
        found = self.scope.resolve(s.name)
        if found is None:
            return
        ok = admits(found[0], self.program.domains[s.name])
        self.oks.append(ok)
        if not self.target.row_mode and s.name in self.cells:
            r, c = self.cells[s.name]
            self.sheet.flag(f"{get_column_letter(c)}{r}", xl.fn("NOT", ok))

    def _guard(self, s: P.Guard):
        pr = self.printer()
        d, w = pr.value(s.divisor), pr.condition(s.when)
        self._print(pr, s.site)
        self.oks.append(xl.fn("IF", w, xl.op("<>", d, xl.number(0)), xl.TRUE))

    def _fixed(self, name: str, note: str) -> None:
        """The Report's number for `name` in a labelled cell (what no formula here can compute)."""
        r, c, ref = self.target.place(name, name, False)
        cached = self._cached(name)
        self.sheet.fixed(r, c, cached, self.formats.get(name) or number_format(cached), note)
        if isinstance(self.target, Column):  # said where it is seen, not only in a comment
            self.sheet.note(r, "Excel has no Lambert W function: this is the compiler's number at build time; it does not follow the inputs.")
        self.cells[name] = (r, c)
        self.scope.slots[name] = (xl.Cell(ref, cached), self.factor(name))

    def _pick(self, s: P.Pick):
        doms = [self.program.domains[n] for n in s.names]
        factors = [self.factor(n) for n in s.names]
        probe = self.printer()
        for cand in s.candidates:
            for e in cand:
                probe.value(e)
        if self._print(probe, s.site):  # a root through a function Excel lacks: the Report's numbers
            for n in s.names:
                self._fixed(n, LAMBERT_NOTE.format(what=s.site.what))
            return
        if len(s.candidates) == 1 and len(s.names) == 1:
            root = self.printer().value(s.candidates[0][0], factors[0])
            name = s.names[0]
            if doms[0].kind != "real" or doms[0].lo is not None or doms[0].hi is not None:  # the root must lie in the domain
                root = self.put(f"{name}#root", f"root of {name}", root, helper=True)
            node = xl.fn("IF", admits(root, doms[0]), root, xl.fn("NA")) if isinstance(root, xl.Cell) else root
            self.scope.slots[name] = (self.put(name, name, node, self._cached(name)), factors[0])
            return
        roots = []  # per candidate: its cells, one per name
        for j, cand in enumerate(s.candidates, 1):
            cells = []
            for n, e, f in zip(s.names, cand, factors):
                node = self.printer().value(e, f)
                cells.append(self.put(f"{n}#root{j}", f"root {j} of {n}", node, helper=True))
            roots.append(cells)
        adm = [xl.fn("IFERROR", xl.fn("AND", *(admits(c, d) for c, d in zip(cells, doms))), xl.FALSE) for cells in roots]
        several = []
        for i in range(len(roots)):
            for j in range(i + 1, len(roots)):
                differ = xl.fn(
                    "OR", *(xl.op(">", xl.fn("ABS", xl.op("-", a, b)), xl.op("*", xl.number(Fraction(1, 10**12)), xl.op("+", xl.fn("ABS", b), xl.number(1)))) for a, b in zip(roots[i], roots[j]))
                )
                several.append(xl.fn("AND", adm[i], adm[j], differ))
        index = xl.fn("NA")
        for k in range(len(roots), 0, -1):
            index = xl.fn("IF", adm[k - 1], xl.number(k), index)
        if several:
            index = xl.fn("IF", xl.fn("OR", *several) if len(several) > 1 else several[0], xl.fn("NA"), index)
        which = self.put(f"{'+'.join(s.names)}#root", f"admissible root of {', '.join(s.names)}", index, helper=True, fmt="0")
        for i, (n, f) in enumerate(zip(s.names, factors)):
            # no admissible root: #N/A in every engine (Gnumeric's CHOOSE of an error index is #VALUE!)
            node = xl.fn("IF", xl.fn("ISNUMBER", which), xl.fn("CHOOSE", which, *(cells[i] for cells in roots)), xl.fn("NA"))
            self.scope.slots[n] = (self.put(n, n, node, self._cached(n)), f)

    def _search(self, s: P.Search):
        if self.target.row_mode:
            raise NotLive("a numeric search")
        tears = []
        for n in s.tears:
            r, c, ref = self.target.place(n, n, False)
            cached = self._cached(n)
            tears.append((n, r, c, cached))
            self.sheet.fixed(r, c, cached, self.formats.get(n) or number_format(cached), "")
            self.cells[n] = (r, c)
            self.scope.slots[n] = (xl.Cell(ref, cached), self.factor(n))
        self.run(s.body)
        residuals = []
        for k, e in enumerate(s.residuals, 1):
            pr = self.printer()
            node = pr.value(e)
            self._print(pr, s.site)
            cell = self.put(f"residual {k} of {', '.join(s.tears)}", f"residual {k} of {', '.join(s.tears)}", node, helper=True, fmt="0.000E+00")
            residuals.append(cell.text.replace("$", ""))
        for n, r, c, _ in tears:
            how = (
                f"{n} has no closed form: the compiler found it numerically (bracketed root search, relative tolerance 1e-12). "
                f"To redo it after changing inputs: Data > What-If Analysis > Goal Seek: set cell {', '.join(residuals)} to 0 by changing cell {get_column_letter(c)}{r} ({n})."
            )
            self.sheet.ws.cell(row=r, column=c).comment = Comment(clean(how), "chainc")
            if isinstance(self.target, Column):
                self.sheet.note(r, how)

    def _loop(self, s: P.Loop):
        if self.target.row_mode or self.tables is None:
            raise NotLive(f"table {s.table}")
        self.tables(s, self.scope)
