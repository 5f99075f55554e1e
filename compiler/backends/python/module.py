"""One generated module: the docstring, the catalog, the records, the public functions, then what they call.

The public functions are thin: each takes display-unit arguments, reads the
catalog entry it is given, converts to base units, checks every input as the
solver does (`runtime.values.require`, behind a plain comparison), calls the
private function that runs its Program, and returns display units. Imported
models are computed by private functions of their own. The runtime and helper
functions the printed code names are copied at the end.
"""

from __future__ import annotations

import textwrap

from ... import __version__
from ...quantities import exact
from . import runtime
from .context import Context, ModelNames
from .names import comment, docstring_text, literal, number, optional, scale
from .questions import query_function, question_function
from .statements import INDENT, LINE, Locals, Out, doc, targets, tuple_text
from .vector import writer_for

# the argument types of each flavour
SCALAR, ARRAY = "float", "ArrayLike"


class Module:
    """Writes one module (`numpy`: the NumPy flavour) for a Report."""

    def __init__(self, report, catalog, options, numpy: bool):
        self.ctx = Context(report, catalog, numpy)
        self.options = options
        self.numpy = numpy
        self.gaps: list = []
        self.used: set[str] = {"ChainError"}
        self.public: list[tuple[str, list[str]]] = []  # (name, lines)
        self.private: list[list[str]] = []
        self.imports_made: dict[int, str] = {}
        self.displays: dict[str, str] = {}
        self.typ = ARRAY if numpy else SCALAR

    # --- arguments and their checks ----------------------------------------------------------------------

    def signature(self, mn: ModelNames, inputs: list[str], positional: list[tuple[str, object]] = ()) -> list[str]:
        m = mn.model
        items = [f"{mn.variables[n]}: {self.typ} = {number(exact(v) / exact(m.variables[n].factor))}" for n, v in positional]
        keywords = [f"{k}: str = {k.upper()}" for k in mn.kinds()]
        for n in inputs:
            var = m.variables[n]
            if var.default.free_symbols:
                keywords.append(f"{mn.variables[n]}: {self.typ} | None = None")
            else:
                keywords.append(f"{mn.variables[n]}: {self.typ} = {number(exact(var.default) / exact(var.factor))}")
        return items + (["*", *keywords] if keywords else [])

    def prologue(self, out: Out, mn: ModelNames, loc: Locals, known: list[str], arguments: set[str]) -> None:
        """Catalog values, imported values, then every known variable in base units and checked (model order)."""
        m = mn.model
        for kind in mn.kinds():
            fields = [p for p in m.params.values() if p.source == kind]
            ids = f"{kind.upper()}S, _TITLES[{literal(kind)}], {kind}"
            self.used.add("_entry_error")
            if not fields:
                out.emit(f"if {kind} not in {kind.upper()}S:")
                out.call(f"{INDENT}raise _entry_error", [literal(kind), ids])
                continue
            out.emit("try:")
            out.push()
            out.emit(f"_{kind} = {kind.upper()}S[{kind}]")
            for p in fields:
                spec = self.ctx.catalog.fields[kind][p.field_name]
                out.emit(f"{loc[p.name]} = {scale(f'_{kind}[{literal(p.field_name)}]', exact(spec.factor), True)}")
            out.pop()
            out.emit("except (KeyError, TypeError):")
            out.call(f"{INDENT}raise _entry_error", [literal(kind), ids, tuple_text([literal(p.field_name) for p in fields])], " from None")
        imports = dict(m.imports)
        for alias in dict.fromkeys(p.source for p in m.params.values() if p.source not in ("gpu", "llm")):
            child = self.ctx.of(mn.report.imports[alias])
            fn = self.import_function(child)
            args = [kind if kind in mn.kinds() else literal(getattr(child.model, kind)) for kind in child.kinds()]
            values = loc[f"import:{alias}"]
            out.emit(f"{values} = {fn}({', '.join(args)})")
            order = list(imports[alias].variables)
            for p in m.params.values():
                if p.source == alias:
                    out.emit(f"{loc[p.name]} = {values}[{order.index(p.field_name)}]")
        pr = writer_for(self.numpy).Printer(loc)
        for n in m.variables:
            if n not in known:
                continue
            var, x = m.variables[n], mn.variables[n]
            default = pr.code(_default_expr(m, n)) if var.default is not None and var.default.free_symbols else None
            if n not in arguments:  # an imported model at its defaults
                out.emit(f"{x} = {default if default is not None else number(exact(var.default))}")
                self.require(mn, out, n, x, '"default"')
            elif default is not None:
                given = scale(self.as_array(x) if self.numpy else x, exact(var.factor), True)
                out.emit(f'_what = "default" if {x} is None else "given"')
                out.emit(f"{x} = {self.as_array(default) if self.numpy else default} if {x} is None else {given}")
                self.require(mn, out, n, x, "_what")
            else:
                self.convert(out, m, n, x)
                self.require(mn, out, n, x, '"given"')
        self.used |= pr.used

    def as_array(self, text: str) -> str:
        return f"np.asarray({text}, dtype=float)"

    def convert(self, out: Out, m, n: str, x: str) -> None:
        factor = exact(m.variables[n].factor)
        value = scale(self.as_array(x) if self.numpy else x, factor, True)
        if value != x:
            out.emit(f"{x} = {value}")

    def require(self, mn: ModelNames, out: Out, n: str, x: str, what: str) -> None:
        """runtime.values.require behind a plain comparison (the NumPy flavour: over the whole array)."""
        d = mn.report.solution.program.domains[n]
        shown = scale(x, d.factor, False)
        about = [x, shown, what, literal(n), literal(d.unit), str(d.integer), literal(d.text), f"({literal(d.kind)}, {optional(d.lo)}, {optional(d.hi)})"]
        if self.numpy:
            self.used.add("_require_np")
            out.emit(f"if not {_fast_np(x, d)}:")
            out.call(f"{INDENT}_require_np", about)
        else:
            self.used.add("_require")
            out.emit(f"if not {_fast(x, d)}:")
            out.call(f"{INDENT}_require", about)

    # --- imported models ------------------------------------------------------------------------------------

    def import_function(self, mn: ModelNames) -> str:
        """`_defaults_<model>(gpu, llm)`: an imported model solved at its defaults; every variable, base units, model order."""
        if id(mn) in self.imports_made:
            return self.imports_made[id(mn)]
        name = self.imports_made[id(mn)] = self.ctx.private(f"defaults_{mn.mid}")
        m = mn.model
        out = Out()
        out.emit(f"def {name}({', '.join(mn.kinds())}):")
        out.push()
        doc(out, docstring_text(f"{comment(m.title)} ({comment(m.name)}, imported) at its defaults: every variable in base units, in model order."))
        loc = Locals(mn.variables)
        program = mn.report.solution.program
        known = [n for n in m.variables if n in program.inputs]
        self.prologue(out, mn, loc, known, set())
        fn = self.ctx.program(program, f"solve_{mn.mid}", mn)
        self.call_program(out, fn, program, loc)
        out.call("return ", [mn.variables[n] for n in m.variables], "", "(", ",)" if len(m.variables) == 1 else ")")
        self.private.append(out.lines)
        return name

    # --- calling a program, and its results as records -------------------------------------------------------

    def call_program(self, out: Out, fn: str, program, loc: Locals) -> list[str]:
        """`a, b, rows = fn(inputs)`: the program's outputs into locals; returns what it returns, in order."""
        writer = writer_for(self.numpy)(program, fn, {}, [], "")
        names = [loc[n] if not n.startswith("rows:") else loc[n] for n in self.outputs_of(program)]
        args = [loc[n] for n in writer.inputs()]
        unpack(out, names, fn, args)
        return names

    def outputs_of(self, program) -> list[str]:
        return [*program.outputs, *(f"rows:{t}" for t in program.tables)]

    def solution(self, out: Out, mn: ModelNames, loc: Locals) -> None:
        """`return Solution(...)`: every variable in its display unit, tables as records."""
        m = mn.model
        items = [f"{mn.variables[n]}={scale(mn.variables[n], exact(v.factor), False)}" for n, v in m.variables.items()]
        for t in m.tables:
            items.append(f"{mn.tables[t]}={self.display_function(mn, t)}({loc[f'rows:{t}']})")
        out.call("return Solution", items)

    def display_function(self, mn: ModelNames, table: str) -> str:
        if table in self.displays:
            return self.displays[table]
        name = self.displays[table] = self.ctx.private(f"records_{mn.tables[table]}")
        t = mn.model.tables[table]
        cls = self.ctx.row_class[table]
        out = Out()
        out.emit(f"def {name}(rows):")
        out.push()
        doc(out, docstring_text(f"Table {comment(table)}: base-unit rows as {cls} records in display units."))
        cells = [scale(f"_r[{i}]", exact(c.factor), False) for i, c in enumerate(t.columns)]
        line = f"{INDENT}return tuple({cls}({', '.join(cells)}) for _r in rows)"
        if len(line) <= LINE:
            out.emit(line[len(INDENT) :])
        else:
            out.emit("return tuple(")
            out.push()
            out.call(cls, cells)
            out.emit("for _r in rows")
            out.pop()
            out.emit(")")
        self.private.append(out.lines)
        return name

    # --- the public functions ----------------------------------------------------------------------------------

    def args_doc(self, mn: ModelNames, inputs: list[str], given: list[str] = ()) -> list[str]:
        m = mn.model

        def line(n: str) -> str:
            var = m.variables[n]
            source = ""
            if n not in given and var.default.free_symbols:
                source = " None: " + ", ".join(comment(str(s)) for s in sorted(var.default.free_symbols, key=str)) + "."
            return f"{mn.variables[n]}: {comment(var.description) or comment(n)} [{comment(var.unit) or '1'}].{source}"

        kinds = [f"{k}: {k.upper()} catalog id, a key of {k.upper()}S (default {comment(self.ctx.default.get(k, getattr(m, k)))})." for k in mn.kinds()]
        return [line(n) for n in given] + kinds + [line(n) for n in inputs]

    def forward(self, fname: str, summary: str, program, positional: list[tuple[str, object]]) -> list[str]:
        """solve() or a --find/--given query: display-unit inputs in, every variable out."""
        mn = self.ctx.main
        m = mn.model
        given = [n for n, _ in positional]
        known = [n for n in m.variables if n in program.inputs]
        inputs = [n for n in known if n not in given]
        out = Out()
        out.call(f"def {fname}", self.signature(mn, inputs, positional), " -> Solution:")
        out.push()
        body = [summary, "", "Args:", *(f"    {a}" for a in self.args_doc(mn, inputs, given)), "", "Returns:"]
        body.append("    Solution: every variable in its display unit" + (" (arrays, broadcast over the arguments)." if self.numpy else ", tables as tuples of row records."))
        body += ["", "Raises:", "    ChainError: an input outside its domain, or a value the model cannot compute there (a ValueError)."]
        doc(out, "\n".join(docstring_text(b) for b in body))
        loc = Locals(mn.variables)
        self.prologue(out, mn, loc, known, set(given) | set(inputs))
        fn = self.ctx.program(program, f"solve_{mn.mid}" if not positional else f"query_{mn.mid}", mn)
        self.call_program(out, fn, program, loc)
        self.solution(out, mn, loc)
        return out.lines

    # --- the module ----------------------------------------------------------------------------------------------

    def render(self) -> str:
        ctx, mn = self.ctx, self.ctx.main
        m = mn.model
        report = ctx.report
        self.public.append(("solve", self.forward("solve", f"Solve {comment(m.title)} forward from its inputs.", report.solution.program, [])))
        for q in m.questions:
            if q in report.asked:
                fname = ctx.globals.take(q, "question")
                self.public.append((fname, question_function(self, fname, report.asked[q])))
            else:
                self.gaps.append((f"question {q} (it cannot be planned: {report.answers[q]})", None))
        if "custom" in report.queries:
            sol = report.queries["custom"]
            find = [n for n in m.variables if n in sol.program.outputs and n in self.options.find] or list(self.options.find)
            given = list(self.options.given)
            base = "_and_".join(find) if find else "solve"
            fname = ctx.globals.take(f"{base}_from_{'_and_'.join(given)}" if given else f"{base}_query", "query")
            self.public.append((fname, query_function(self, fname, sol, find, given)))
        programs = self.program_functions()
        if self.gaps:
            return ""
        return self.assemble(programs)

    def program_functions(self) -> list[list[str]]:
        blocks = []
        done: set[int] = set()
        while len(done) < len(self.ctx.programs):  # printing a program never adds one, but keep the order stable
            for key, (program, fname, mn) in list(self.ctx.programs.items()):
                if key in done:
                    continue
                done.add(key)
                inputs = ", ".join(n for n in program.inputs if n in program.domains) or "nothing"
                about = docstring_text(
                    f"{comment(mn.model.name)} from {comment(inputs)} (base units): {', '.join(program.outputs) or 'nothing'}" + (", then each table's rows." if program.tables else ".")
                )
                w = writer_for(self.numpy)(program, fname, mn.variables, self.gaps, about)
                blocks.append(w.write())
                self.used |= w.used
        return blocks

    def assemble(self, programs: list[list[str]]) -> str:
        ctx, mn = self.ctx, self.ctx.main
        m = mn.model
        copied, modules = runtime.sources({u for u in self.used if u in runtime.known()})
        modules |= {u for u in self.used if u in ("math", "np")}
        lines = doc_lines(self.docstring())
        lines += ["", "from __future__ import annotations", ""]
        std = [f"import {mod}" for mod in ("math",) if mod in modules] + ["from dataclasses import dataclass"]
        std += ["from fractions import Fraction"] if "fractions" in modules else []
        std += ["from typing import NamedTuple"] if m.tables else []
        lines += std
        if self.numpy:
            lines += ["", "import numpy as np", "from numpy.typing import ArrayLike"]
        public = ["ChainError", *self.constant_names(), "Solution", *(ctx.row_class[t] for t in m.tables), *(n for n, _ in self.public)]
        lines.append("")
        out = Out()
        out.call("__all__ = ", [literal(n) for n in public], "", "[", "]")
        lines += out.lines + [""]
        lines += self.catalog_lines()
        sections = [c.split("\n") for c in copied if c.startswith("class ChainError")]
        sections += self.classes()
        sections += [body for _, body in self.public]
        sections += self.private + programs
        sections += [c.split("\n") for c in copied if not c.startswith("class ChainError")]
        text = "\n".join(lines).rstrip("\n") + "\n"
        for s in sections:
            text += "\n\n" + "\n".join(s) + "\n"
        return text

    def docstring(self) -> str:
        m = self.ctx.main.model
        flavour = "NumPy flavour: every numeric argument may be an array; results broadcast." if self.numpy else "Standard library only."
        about = textwrap.wrap(" ".join(comment(m.about).split()), 88, break_on_hyphens=False, break_long_words=False)
        notes = [
            f"Generated by chainc {__version__} from {comment(self.ctx.report.source)}; do not edit.",
            flavour,
            "Arguments and results are in each variable's display unit (see the docstrings);",
            "catalog values are in the catalog's field units. Inside, values are in base units.",
        ]
        return "\n".join(docstring_text(x) for x in [comment(m.title), "", *about, *([""] if about else []), *notes])

    def constant_names(self) -> list[str]:
        out = []
        for k in self.ctx.kinds:
            if k in self.ctx.default:
                out += [k.upper(), *(self.ctx.constants[(k, f)] for f in self.ctx.fields[k])]
            out.append(f"{k.upper()}S")
        return out

    def catalog_lines(self) -> list[str]:
        ctx = self.ctx
        out = Out()
        for kind in ctx.kinds:
            if kind not in ctx.default:
                continue
            entry = next(e for e, _ in ctx.catalog.entries[kind] if e.id == ctx.default[kind])
            out.emit(f"{kind.upper()} = {literal(entry.id)}  # the default {kind.upper()}: {comment(entry.title)}")
            values = dict(ctx.entry_values(kind))[entry]
            for f in ctx.fields[kind]:
                spec = ctx.catalog.fields[kind][f]
                out.emit(f"{ctx.constants[(kind, f)]} = {optional(values[f])}  # {comment(spec.unit) or '1'}: {comment(spec.description)}")
            out.emit()
        for kind in ctx.kinds:
            out.emit(f"# every {kind.upper()} of the catalog, values in the field units above (None: the entry has no such value)")
            out.emit(f"{kind.upper()}S: dict[str, dict[str, float | None]] = {{")
            out.push()
            for entry, values in ctx.entry_values(kind):
                own = entry.id == ctx.default.get(kind)
                items = [f"{literal(f)}: {ctx.constants[(kind, f)] if own else optional(values[f])}" for f in ctx.fields[kind]]
                out.call(f"{literal(entry.id)}: ", items, ",", "{", "}")
            out.pop()
            out.emit("}")
            out.emit()
        if ctx.kinds:
            out.emit("_TITLES: dict[str, dict[str, str]] = {")
            out.push()
            for kind in ctx.kinds:
                out.call(f"{literal(kind)}: ", [f"{literal(e.id)}: {literal(e.title)}" for e, _ in ctx.catalog.entries[kind]], ",", "{", "}")
            out.pop()
            out.emit("}")
            out.emit()
        return out.lines

    def classes(self) -> list[list[str]]:
        mn = self.ctx.main
        m = mn.model
        blocks = []
        typ = "np.ndarray" if self.numpy else "float"
        for name, t in m.tables.items():
            out = Out()
            out.emit(f"class {self.ctx.row_class[name]}(NamedTuple):")
            out.push()
            doc(out, docstring_text(f"One row of table {comment(name)}" + (f": {comment(t.about)}" if t.about else ".") + (" Arrays over the points (NaN past a point's rows)." if self.numpy else "")))
            out.emit()
            for c in t.columns:
                out.emit(f"{mn.columns[name][c.name]}: {typ}  # [{comment(c.unit) or '1'}] {comment(c.description) or comment(c.formula)}".rstrip())
            blocks.append(out.lines)
        out = Out()
        out.emit("@dataclass(frozen=True, slots=True)")
        out.emit("class Solution:")
        out.push()
        doc(out, docstring_text(f"Every variable of {comment(m.title)}, in its display unit" + (" (arrays)." if self.numpy else ".")))
        out.emit()
        for n, v in m.variables.items():
            out.emit(f"{mn.variables[n]}: {typ}  # [{comment(v.unit) or '1'}] {comment(v.description)}".rstrip())
        for name in m.tables:
            out.emit(f"{mn.tables[name]}: tuple[{self.ctx.row_class[name]}, ...] = ()  # table {comment(name)}, one record per row")
        blocks.append(out.lines)
        return blocks


def doc_lines(text: str) -> list[str]:
    out = Out()
    doc(out, text)
    return out.lines


def unpack(out: Out, names: list[str], fn: str, args: list[str]) -> None:
    """`a, b = fn(args)`, laid out as ruff format leaves it when it does not fit on one line."""
    if not names:
        out.call(fn, args)
        return
    head = targets(names)
    if len(f"{out.indent}{head} = {fn}({', '.join(args)})") <= LINE or len(f"{out.indent}{head} = {fn}(") <= LINE:
        out.call(f"{head} = {fn}", args)
        return
    out.emit("(")
    out.lines += [f"{out.indent}{INDENT}{n}," for n in names]
    out.call(f") = {fn}", args)


def _default_expr(m, name: str):
    from ...lower import defaults

    return next(a.expr for a in defaults(m) if a.name == name)


def _fast(x: str, d) -> str:
    """runtime.values.require's test as plain comparisons: whole where declared so, and admitted by the domain."""
    parts = [f"{x} % 1 == 0"] if d.integer else []
    low_implied = d.lo is not None and (d.lo > 0 or (d.kind == "nonnegative" and d.lo >= 0))
    if d.kind == "positive" and not low_implied:
        parts.append(f"{x} > 0")
    elif d.kind == "nonnegative" and not low_implied:
        parts.append(f"{x} >= 0")
    elif d.kind == "real" and d.lo is None and d.hi is None and not d.integer:
        parts.append(f"{x} == {x}")
    if d.lo is not None:
        parts.append(f"{x} >= {number(d.lo)}")
    if d.hi is not None:
        parts.append(f"{x} <= {number(d.hi)}")
    return parts[0] if len(parts) == 1 else f"({' and '.join(parts)})"


def _fast_np(x: str, d) -> str:
    """The same over an array: reductions (NaN fails them), the integer test only where declared."""
    parts = []
    low = d.lo if d.lo is not None and (d.lo > 0 or d.kind != "positive") else None
    if d.kind == "positive" and low is None:
        parts.append(f"np.min({x}) > 0")
    elif d.kind == "nonnegative" and (low is None or low < 0):
        parts.append(f"np.min({x}) >= 0")
    if low is not None:
        parts.append(f"np.min({x}) >= {number(low)}")
    if d.hi is not None:
        parts.append(f"np.max({x}) <= {number(d.hi)}")
    if d.integer:  # whole numbers are finite: bound both ends, then compare with the floor
        parts += [] if parts and parts[0].startswith("np.min") else [f"np.min({x}) > -np.inf"]
        parts += [] if d.hi is not None else [f"np.max({x}) < np.inf"]
        parts.append(f"np.all(np.floor({x}) == {x})")
    if not parts:
        parts.append(f"not np.isnan({x}).any()")
    return parts[0] if len(parts) == 1 else f"({' and '.join(parts)})"
