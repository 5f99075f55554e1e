"""The NumPy flavour of the statement printer: every statement over arrays of points at once.

Expressions are ufuncs (exprs.NumpyPrinter) evaluated with floating-point errors
silenced; what the scalar flavour raises at once (a value outside its domain,
a table's row count) is checked over the whole array after the fact, and the
first element that fails raises the scalar flavour's error. A table runs row by
row over all points, masking the rows past each point's row count; a numeric
block bisects all points together (`_search_np`). Inside a search's trial the
checks do not raise: a point without a value gets a NaN residual and is stepped
over, as the scalar root finder steps over it. `QuietProgramWriter` prints a whole
program that way (`_quiet_<program>(inputs, _bad)` returns its outputs and the
points without a value): the vectorised question rule's `feasible` and boundary,
where the scalar rule catches the ChainError of one point.
"""

from __future__ import annotations

from ... import program as P
from .exprs import Gap, NumpyPrinter, may_be_complex
from .layout import INDENT, Out, doc, targets, tuple_text
from .names import domain_tuple, literal, number, optional, set_values
from .statements import ProgramWriter, _assigned, reads


class NumpyProgramWriter(ProgramWriter):
    Printer = NumpyPrinter
    eager = True
    real = "_real_np"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.quiet = False  # inside a search's trial: failures mark points bad instead of raising
        self.divisions: dict[int, list] = {}  # id of a Search -> the guards of its equation's divisions

    def write(self) -> list[str]:
        out = Out()
        args = [self.names[n] for n in self.inputs()]
        results = [self.names[n] for n in self.program.outputs]
        out.call(f"def {self.fname}", args, ":")
        out.push()
        doc(out, self.about)
        out.emit('with np.errstate(all="ignore"):  # what fails is checked below, point by point')
        out.push()
        self.body(out, self.program.body)
        results += [self.rows[t] for t in self.program.tables if t in self.rows]
        out.pop()
        out.call("return ", results, "", "(", ",)" if len(results) == 1 else ")")
        self.used |= self.pr.used | {"np"}
        return out.lines

    def body(self, out: Out, body) -> None:
        """The statements, each equation's division guards before its domain check.

        NumPy divides by zero quietly (inf), so the check would report a value that is not finite
        where the solver and the scalar flavour stop at the division itself.
        """
        body, ordered, i = list(body), [], 0
        while i < len(body):
            s = body[i]
            j = i + 1
            if isinstance(s, P.Search):  # its equation's divisions: a trial point where one is 0 has no value, as in the scalar flavour
                self.divisions[id(s)] = [g for g in body[j:] if isinstance(g, P.Guard) and g.site == s.site and not g.why]
            if isinstance(s, P.Check):
                while j < len(body) and isinstance(body[j], P.Guard) and body[j].site == s.site:
                    j += 1
                ordered += [*body[i + 1 : j], s]
            else:
                ordered.append(s)
            i = j
        saved, self.checked = getattr(self, "checked", set()), {x.name for x in ordered if isinstance(x, P.Check)}
        super().body(out, ordered)
        self.checked = saved

    def bad(self, out: Out, test: str) -> None:
        out.emit(f"_bad = _bad | {test}")

    def _print_Assign(self, out: Out, s: P.Assign) -> None:
        target = self.names[s.name]
        self.assign(out, target, s.expr, s.name if may_be_complex(s.expr) else None)
        if self.quiet and s.name not in self.checked:  # a checked value's check marks it
            self.bad(out, f"~np.isfinite({target})")

    def _print_Check(self, out: Out, s: P.Check) -> None:
        d = self.program.domains[s.name]
        x = self.names[s.name]
        if self.quiet:  # a point outside the domain has no value: NaN from here on (a sum's bound, a table's rows)
            out.emit(f"_ok = {self.each_in_domain(x, d)}")
            out.emit("_bad = _bad | ~_ok")
            out.emit(f"{x} = np.where(_ok, {x}, np.nan)")
            return
        self.used.add("_outside_np")
        out.emit(f"if not {self.in_domain(x, d)}:")
        out.push()
        out.call("raise _outside_np", [x, number(d.factor), literal(s.name), literal(d.unit), literal(d.text), literal(s.site.what), literal(d.kind), optional(d.lo), optional(d.hi), set_values(d)])
        out.pop()

    def in_domain(self, x: str, d: P.Domain) -> str:
        low = {"positive": f"np.min({x}) > 0", "nonnegative": f"np.min({x}) >= 0", "real": f"np.min({x}) > -np.inf"}[d.kind]
        if d.lo is not None and (d.kind == "real" or d.lo > 0 or (d.kind == "nonnegative" and d.lo == 0)):
            low = f"np.min({x}) >= {number(d.lo)}"
        high = f"np.max({x}) <= {number(d.hi)}" if d.hi is not None else f"np.max({x}) < np.inf"
        if d.values is not None:
            self.used.add("_admits_np")
            return f"({low} and {high} and np.all(_admits_np({x}, *{domain_tuple(d)})))"
        return f"({low} and {high})"

    def each_in_domain(self, x: str, d: P.Domain) -> str:
        """in_domain point by point, a NumPy bool even for a constant (NaN is in no domain)."""
        low = {"positive": f"{x} > 0", "nonnegative": f"{x} >= 0", "real": f"{x} > -np.inf"}[d.kind]
        if d.lo is not None and (d.kind == "real" or d.lo > 0 or (d.kind == "nonnegative" and d.lo == 0)):
            low = f"{x} >= {number(d.lo)}"
        if d.values is not None:
            self.used.add("_admits_np")
            return f"_admits_np({x}, *{domain_tuple(d)})"
        return f"np.logical_and({low}, {x} <= {number(d.hi)})" if d.hi is not None else f"np.logical_and({low}, {x} < np.inf)"

    def _print_Guard(self, out: Out, s: P.Guard) -> None:
        zero = f"{self.pr.code(s.divisor, 6)} == 0"
        test = zero if s.when == P.TRUE else f"np.logical_and({self.pr.code(s.when)}, {zero})"
        if self.quiet:
            self.bad(out, f"({test})")
            return
        out.emit(f"if np.any({test}):")
        out.push()
        out.call("raise ChainError", [literal(x) for x in P.guard_words(s)[:2]])
        out.pop()

    def _print_Pick(self, out: Out, s: P.Pick) -> None:
        options = []
        for cand in s.candidates:
            values = [self.pr.code(e) for e in cand]
            options.append(f"({values[0]},)" if len(values) == 1 else f"({', '.join(values)})")
        out.call("_options = ", options, "", "[", "]")
        self.used.add("_pick_np")
        domains = [self.domain_tuple(n) for n in s.names]
        args = ["_options", literal(", ".join(s.names)), f"[{', '.join(domains)}]", literal(s.site.what)]
        if self.quiet:
            out.call(f"{', '.join([*(self.names[n] for n in s.names), '_no_pick'])} = _pick_np", [*args, "True"])
            self.bad(out, "_no_pick")
            return
        out.call(f"{targets([self.names[n] for n in s.names])} = _pick_np", args)

    def _print_Loop(self, out: Out, s: P.Loop) -> None:
        t = s.table
        n = self.names[f"count:{t}"]
        rows = self.rows[t] = self.names[f"rows:{t}"]
        index = self.names[f"{t}.i"]
        read = set().union(*(P.refs(e) for c in s.columns for e in (c.expr, *(x for g in c.guards for x in (g.divisor, g.when)))))
        self.used.add("_rows_np")
        count = [self.pr.code(s.rows), literal(t), literal(s.rows_text), str(s.max_rows)]
        if self.quiet:
            out.call(f"{n}, _no_rows = _rows_np", [*count, "True"])
            self.bad(out, "_no_rows")
        else:
            out.call(f"{n} = _rows_np", count)
        for c in s.columns:
            if f"{t}.prev.{c.name}" in read:
                out.emit(f"{self.names[f'{t}.prev.{c.name}']} = {self.pr.code(c.initial)}")
        out.emit(f"{rows} = []")
        accumulators = []
        for name, kind, col in s.aggregates:
            start = {"sum": "[]", "last": "np.nan", "max": "-np.inf", "min": "np.inf", "count": None}[kind]  # a sum's terms, added at the end
            if start is not None and name in self.read:
                out.emit(f"{self.names[name]} = {start}")
                accumulators.append((name, kind, col))
        out.emit(f"for {index} in range(1, int(np.max({n}, initial=0)) + 1):")
        out.push()
        out.emit(f"_live = {index} <= {n}")
        for c in s.columns:
            cell = self.names[f"{t}.{c.name}"]
            self.assign(out, cell, c.expr)
            for g in c.guards:
                zero = f"{self.pr.code(g.divisor, 6)} == 0"
                test = f"_live & ({zero})" if g.when == P.TRUE else f"_live & np.logical_and({self.pr.code(g.when)}, {zero})"
                if self.quiet:
                    self.bad(out, test)
                else:
                    out.emit(f"if np.any({test}):")
                    out.push()
                    out.call("raise _failed_row", ["ZeroDivisionError()", index, literal(c.name), literal(c.site.what)])
                    out.pop()
                    self.used.add("_failed_row")
            if self.quiet:
                self.bad(out, f"(_live & ~np.isfinite({cell}))")
            else:
                self.used.add("_cell_np")
                out.call("_cell_np", [cell, "_live", index, literal(c.name), literal(c.site.what)])
        cells = [self.names[f"{t}.{c.name}"] for c in s.columns]
        self.used.add("_masked")
        out.call(f"{rows}.append", [f"_masked(_live, {', '.join(cells)})"])
        for c in s.columns:
            if f"{t}.prev.{c.name}" in read:
                out.emit(f"{self.names[f'{t}.prev.{c.name}']} = {self.names[f'{t}.{c.name}']}")
        cols = {c.name: self.names[f"{t}.{c.name}"] for c in s.columns}
        for name, kind, col in accumulators:
            acc, cell = self.names[name], cols[col]
            if kind == "sum":
                out.emit(f"{acc}.append(np.where(_live, {cell}, 0.0))")
                continue
            step = {"last": cell, "max": f"np.maximum({acc}, {cell})", "min": f"np.minimum({acc}, {cell})"}[kind]
            out.emit(f"{acc} = np.where(_live, {step}, {acc})")
        out.pop()
        for name, kind, _ in accumulators:  # without rounding error, as the scalar flavour's math.fsum and the solver's exact sum
            if kind == "sum":
                self.used.add("_exact_sum_np")
                out.emit(f"{self.names[name]} = _exact_sum_np([0.0, *{self.names[name]}])")
        for name, kind, _ in s.aggregates:
            if kind == "count" and name in self.read:
                out.emit(f"{self.names[name]} = {n} * 1.0")
        empty = next(((kind, col) for _, kind, col in s.aggregates if kind != "count"), None)
        if empty is not None and self.quiet:  # a sum, last, max or min of no rows: the first such aggregate's error
            self.bad(out, f"({n} == 0)")
        elif empty is not None:
            self.used.add("_no_rows_np")
            out.emit(f"if np.any({n} == 0):")
            out.call(f"{INDENT}raise _no_rows_np", [n, literal(f"{empty[0]}({t}.{empty[1]})")])

    def _print_Search(self, out: Out, s: P.Search) -> None:
        if len(s.tears) != 1:
            raise Gap(f"a numeric block of {len(s.tears)} unknowns ({', '.join(s.tears)}) solved jointly")
        tear = s.tears[0]
        d = self.program.domains[tear]
        self.temps += 1
        trial = f"_trial{self.temps}"
        made = [n for n in _assigned(s.body) if n in self.read]
        inner = [self.names[n] for n in made]
        outer, self.read = self.read, reads(s.body) | set().union(*(P.refs(r) for r in s.residuals)) | set(made)
        out.nested_def(f"def {trial}({self.names[tear]}):")
        out.emit("_bad = False")
        saved_rows, saved_quiet = self.rows, self.quiet
        self.rows, self.quiet = dict(self.rows), True
        self.pr.quiet = True
        self.body(out, s.body)
        for g in self.divisions.get(id(s), ()):  # NumPy divides by zero quietly, where the scalar trial raises (no value there)
            self._print_Guard(out, g)
        self.read = outer
        rows_made = {t: r for t, r in self.rows.items() if saved_rows.get(t) != r}
        inner += list(rows_made.values())
        self.quiet = self.pr.quiet = saved_quiet
        residual = self.pr.residual(s.residuals[0]) if s.residuals else "0"
        out.call("return ", [residual, tuple_text(inner) if inner else "()", "_bad"], "", "(", ")")
        out.end_def()
        start = "None" if s.starts[0] is None else self.pr.code(s.starts[0])
        self.used.add("_search_np")
        args = [trial, start, number(d.factor), literal(d.kind), optional(d.lo), optional(d.hi), literal(tear), literal(d.unit), literal(s.site.what)]
        if self.quiet:  # the points already without a value are not searched; one without a root has none
            out.call(f"{self.names[tear]}, _no_root = _search_np", [*args, str(tear in s.whole), "_bad"])
            out.call(f"_, {tuple_text(inner)}, _trial_bad = {trial}" if inner else f"_, _, _trial_bad = {trial}", [self.names[tear]])
            self.bad(out, "_no_root | _trial_bad")
        else:
            out.call(f"{self.names[tear]} = _search_np", [*args, *(["True"] if tear in s.whole else [])])
            out.call(f"_, {tuple_text(inner)}, _bad = {trial}" if inner else f"_, _, _bad = {trial}", [self.names[tear]])
            self.used.add("_first_bad")
            out.emit("if np.any(_bad):")
            out.call(f"{INDENT}raise _first_bad", ["_bad", literal(s.site.what)])
        self.rows = saved_rows
        self.rows.update(rows_made)


class QuietProgramWriter(NumpyProgramWriter):
    """`def _quiet_<program>(inputs, _bad)`: the program at every point, where a point without a value is marked, never raised.

    `_bad` on entry marks the points not asked for; the function returns the outputs (NaN, or any value,
    where a point is bad), each table's rows, then `_bad`.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.quiet = self.pr.quiet = True

    def write(self) -> list[str]:
        out = Out()
        args = [self.names[n] for n in self.inputs()]
        out.call(f"def {self.fname}", [*args, "_bad"], ":")
        out.push()
        doc(out, self.about)
        out.emit('with np.errstate(all="ignore"):  # a point that fails is marked in _bad')
        out.push()
        self.body(out, self.program.body)
        out.pop()
        results = [self.names[n] for n in self.program.outputs] + [self.rows[t] for t in self.program.tables if t in self.rows]
        out.call("return ", [*results, "_bad"], "", "(", ")")
        self.used |= self.pr.used | {"np"}
        return out.lines


def writer_for(numpy: bool, quiet: bool = False) -> type[ProgramWriter]:
    if quiet:
        return QuietProgramWriter
    return NumpyProgramWriter if numpy else ProgramWriter
