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
from ...numbers import exact
from . import runtime
from .arguments import Arguments
from .context import Context, ModelNames
from .layout import INDENT, LINE, Out, doc, tuple_text
from .names import comment, docstring_text, literal, optional, scale
from .questions import query_function, question_function
from .statements import Locals, program_inputs
from .vector import writer_for

# the argument types of each flavour
SCALAR, ARRAY = "float", "ArrayLike"


class Module(Arguments):
    """Writes one module (`numpy`: the NumPy flavour) for a Report."""

    def __init__(self, report, catalog, options, numpy: bool):
        self.ctx = Context(report, catalog, numpy)
        self.options = options
        self.numpy = numpy
        self.gaps: list = []
        self.used: set[str] = {"ChainError"}
        self.public: list[tuple[str, list[str]]] = []  # (name, lines)
        self.private: list[list[str]] = []
        self.rules: dict[str, tuple[str, list[str]]] = {}  # question -> its rule function and the inputs it takes
        self.vector_rules: dict[str, tuple[str, list[str]]] = {}  # question -> its NumPy rule over every point, and its inputs
        self.imports_made: dict[int, str] = {}
        self.displays: dict[str, str] = {}
        self.typ = ARRAY if numpy else SCALAR

    # --- arguments and their checks ----------------------------------------------------------------------

    def solution(self, out: Out, mn: ModelNames, loc: Locals) -> None:
        """`return Solution(...)`: every variable in its display unit, tables as records."""
        m = mn.model
        items = [f"{mn.variables[n]}={_shown(mn.variables[n], v, self.numpy)}" for n, v in m.variables.items()]
        if self.numpy and items:  # a value no argument reaches (a constant) is broadcast like the others
            out.call("_shape = np.broadcast_shapes", [f"np.shape({mn.variables[n]})" for n in m.variables])
            items = [f"{name}=np.broadcast_to({value}, _shape).copy()" for name, value in (x.split("=", 1) for x in items)]
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
        self.begin(out)
        self.prologue(out, mn, loc, known, set(given) | set(inputs))
        fn = self.ctx.program(program, f"solve_{mn.mid}" if not positional else f"query_{mn.mid}", mn)
        self.call_program(out, fn, program, loc)
        self.physical(out, program, loc)
        self.solution(out, mn, loc)
        return out.lines

    def physical_at_answer(self, out: Out, asking, loc: Locals) -> None:
        """A question's answer (in `value`) where a physical limit fails says so: the model run at the answer, its limits tested."""
        q, mn = asking.question, self.ctx.main
        if not (asking.at.physical and set(asking.at.inputs) <= set(loc.names) | {q.find} | set(mn.model.params)):
            return
        out.emit(f"{loc[q.find]} = value")
        self.call_program(out, self.ctx.program(asking.at, f"at_{mn.mid}_{q.name}", mn), asking.at, loc)
        self.physical(out, asking.at, loc)

    def physical(self, out: Out, program, loc: Locals) -> None:
        """Each physical limit (program.physical) tested on the computed values: warnings.warn where it fails (numbers still returned)."""
        from ... import program as P
        from .exprs import Gap, NumpyPrinter, ScalarPrinter

        for x in program.physical:
            if not P.refs(x.cond) <= set(program.inputs) | set(program.outputs):
                continue  # a value this function does not compute: as the solver, nothing to compare
            pr = (NumpyPrinter if self.numpy else ScalarPrinter)(loc)
            try:
                cond, sides = pr.code(x.cond), [f"{pr.code(side, 8)} / {float(f)!r}" for side, (_, _, f, _) in zip((x.cond.left, x.cond.right), x.sides)]
            except Gap as g:
                self.gaps.append((g.construct, x.site))
                continue
            self.used |= pr.used
            template = P.physical_words(x, "{0}", "{1}").replace("{", "{{").replace("}", "}}").replace("{{0}}", "{0}").replace("{{1}}", "{1}")
            args = [literal(template), *sides, repr(tuple(d for *_, d in x.sides)), literal(x.about)]
            if self.numpy:
                self.used.add("_limit_warning_np")
                out.call("_limit_warning_np", [cond, *args])
                continue
            self.used.add("_limit_warning")
            out.emit(f"if not ({cond}):")
            out.push()
            out.call("_limit_warning", args)
            out.pop()

    # --- the module ----------------------------------------------------------------------------------------------

    def render(self) -> str:
        ctx, mn = self.ctx, self.ctx.main
        m = mn.model
        report = ctx.report
        self.public.append(("solve", self.forward("solve", f"Solve {comment(m.title)} forward from its inputs.", report.solution.program, [])))
        for q in m.questions:
            unplanned = [p for _, p in m.questions[q].parts if p not in report.asking]  # a part's rule is the question's input
            if q in report.asking and not unplanned:
                fname = ctx.globals.take(q, "question")
                self.public.append((fname, question_function(self, fname, report.asking[q])))
            elif q in report.asking:
                self.gaps.append((f"question {q} (its condition {unplanned[0]} cannot be planned: {report.answers[unplanned[0]].message})", None))
            else:
                self.gaps.append((f"question {q} (it cannot be planned: {report.answers[q].message})", None))
        if "custom" in report.queries:
            sol = report.queries["custom"]
            find = [n for n in m.variables if n in sol.program.outputs and n in self.options.find] or list(self.options.find)
            given = list(self.options.given)
            base = "_and_".join(find) if find else "solve"
            fname = ctx.globals.take(f"{base}_from_{'_and_'.join(given)}" if given else f"{base}_query", "query")
            self.public.append((fname, query_function(self, fname, sol, find, given)))
        for name in m.searches:
            self.search(name)
        programs = self.program_functions()
        if self.gaps:
            return ""
        return self.assemble(programs)

    def search(self, name: str) -> None:
        """A search's public function (searches.py), or the gap that says why it cannot be printed."""
        from .search_shape import Unprintable
        from .searches import search_function

        report = self.ctx.report
        if name not in report.choosing:
            self.gaps.append((f"search {name} (it cannot be planned: {report.searches[name].message})", None))
            return
        fname = self.ctx.globals.take(name, "question")
        try:
            self.public.append((fname, search_function(self, fname, report.choosing[name])))
        except Unprintable as e:
            self.gaps.append((str(e), None))

    def program_functions(self) -> list[list[str]]:
        blocks = []
        done: set[int] = set()
        while len(done) < len(self.ctx.programs):  # printing a program never adds one, but keep the order stable
            for key, (program, fname, mn) in list(self.ctx.programs.items()):
                if key in done:
                    continue
                done.add(key)
                inputs = ", ".join(n for n in program_inputs(program) if n in program.domains) or "nothing"
                about = docstring_text(
                    f"{comment(mn.model.name)} from {comment(inputs)} (base units): {', '.join(program.outputs) or 'nothing'}" + (", then each table's rows." if program.tables else ".")
                )
                w = writer_for(self.numpy, key[1])(program, fname, mn.variables, self.gaps, about)
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
        std = [f"import {mod}" for mod in ("math", "threading", "time") if mod in modules] + [f"from dataclasses import dataclass{', field' if m.searches else ''}"]
        std += ["from fractions import Fraction"] if "fractions" in modules else []
        std += ["from typing import NamedTuple"] if m.tables else []
        lines += std
        if self.numpy:
            lines += ["", "import numpy as np", "from numpy.typing import ArrayLike"]
        public = ["ChainError", *self.constant_names(), "Solution", *(["Choice"] if m.searches else []), *(ctx.row_class[t] for t in m.tables), *(n for n, _ in self.public)]
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
        # what the numbers are: calibrated to measured runs (its fitted values are the defaults), or an ideal machine
        report = self.ctx.report
        said = report.calibration_text + (". Each fitted value is its input's default here." if report.calibration is not None else ".")
        said = textwrap.wrap(comment(said[0].upper() + said[1:]), 88, break_on_hyphens=False, break_long_words=False)
        return "\n".join(docstring_text(x) for x in [comment(m.title), "", *about, *([""] if about else []), *notes, "", *said])

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
                line = f"{ctx.constants[(kind, f)]} = {optional(values[f])}  # {comment(spec.unit) or '1'}: {comment(spec.description)}"
                if len(line) > LINE:  # ruff format would wrap the value in parentheses to fit the comment: the comment goes above
                    out.emit(f"# {comment(spec.unit) or '1'}: {comment(spec.description)}")
                    line = f"{ctx.constants[(kind, f)]} = {optional(values[f])}"
                out.emit(line)
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
            out.emit(f"{mn.variables[n]}: {'str' if v.choices and not self.numpy else typ}  # [{comment(v.unit) or '1'}] {comment(v.description)}".rstrip())
        for name in m.tables:
            out.emit(f"{mn.tables[name]}: tuple[{self.ctx.row_class[name]}, ...] = ()  # table {comment(name)}, one record per row")
        blocks.append(out.lines)
        if m.searches:
            blocks.append(CHOICE.split("\n"))
        return blocks


CHOICE = '''@dataclass(frozen=True)
class Choice:
    """What a search over configurations found, in display units (catalog entries by id); searches return it."""

    question: str  # the search
    best: dict | None  # the best configuration with its inner answers and goals (None: a frontier)
    value: float | None  # the goal at the best configuration
    table: tuple  # the ranked rows (as many as the search shows), best first; a frontier: its rows, best x first
    binding: tuple  # (condition, how many better configurations it rules out), most first
    placement: dict  # per variable the search varies: where the best sits ('interior', 'edge', 'bound', 'only')
    configurations: int  # how many were searched
    feasible: int  # how many meet every condition
    frontier: tuple = ()  # a frontier's rows (the same as table); () for a search with one goal
    _failing: object = field(default=(), repr=False, compare=False)  # failing's rows, or the function that words them

    @property
    def failing(self) -> tuple:
        """(configuration, what fails, why) of each configuration that fails, in the grid's order; worded when first read."""
        if callable(self._failing):
            object.__setattr__(self, "_failing", self._failing())
        return self._failing'''


def doc_lines(text: str) -> list[str]:
    out = Out()
    doc(out, text)
    return out.lines


def _shown(x: str, v, numpy: bool) -> str:
    """A variable as the Solution record holds it: in its display unit, a choice as its name."""
    if not v.choices:
        return scale(x, exact(v.factor), False)
    names = tuple_text([literal(c) for c in v.choices])
    return f"np.asarray({names})[np.asarray({x}, dtype=int) - 1]" if numpy else f"{names}[int({x}) - 1]"
