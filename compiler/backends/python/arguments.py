"""The arguments of generated functions: signatures, catalog lookups, imported values, conversions and checks.

A public function takes display-unit arguments. Its prologue reads the catalog
entry it is given (one dict lookup per kind), computes imported models' values
(a private `_defaults_<model>()` each), converts every known variable to base
units and checks it as the solver does: `runtime.values.require` behind a plain
comparison, so the check costs a comparison until it fails.
"""

from __future__ import annotations

from ...numbers import exact
from ...order import deepest_first
from .context import ModelNames
from .layout import INDENT, Out, doc, tuple_text, unpack
from .names import comment, docstring_text, domain_tuple, literal, number, scale, set_values
from .statements import Locals, program_inputs
from .vector import writer_for


class Arguments:
    """The part of a module writer that prints arguments (mixed into module.Module)."""

    def signature(self, mn: ModelNames, inputs: list[str], positional: list[tuple[str, object]] = (), kinds: list[str] | None = None) -> list[str]:
        """The parameters: positional givens, then keywords: the catalog kinds (`kinds`, default all the model uses) and the inputs."""
        m = mn.model
        items = [f"{mn.variables[n]}: {self.typ} = {number(exact(v) / exact(m.variables[n].factor))}" for n, v in positional]
        keywords = [f"{k}: str = {k.upper()}" for k in (mn.kinds() if kinds is None else kinds)]
        calibrated = dict(mn.report.given) if mn.report.calibration is not None else {}  # its fitted values are the defaults
        for n in inputs:
            var = m.variables[n]
            if n in calibrated and not var.choices:
                keywords.append(f"{mn.variables[n]}: {self.typ} = {number(exact(calibrated[n]) / exact(var.factor))}")
            elif var.choices:  # a name (lookups.py)
                keywords.append(f"{mn.variables[n]}: {self.typ if self.numpy else 'str'} = {literal(var.choices[int(var.default) - 1])}")
            elif var.default.free_symbols:
                keywords.append(f"{mn.variables[n]}: {self.typ} | None = None")
            else:
                keywords.append(f"{mn.variables[n]}: {self.typ} = {number(exact(var.default) / exact(var.factor))}")
        return items + (["*", *keywords] if keywords else [])

    def begin(self, out: Out) -> None:
        """A public function's first statement: its time budget starts (helpers._Budget)."""
        self.used.add("_begin")
        out.emit("_begin()")

    def prologue(self, out: Out, mn: ModelNames, loc: Locals, known: list[str], arguments: set[str]) -> None:
        """Catalog values, imported values, then every known variable in base units and checked (model order)."""
        m = mn.model
        self.lookups(out, mn, loc, mn.kinds())
        self.imported(out, mn, loc)
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
                given = scale(self.argument(x, var.unit), exact(var.factor), True)
                out.emit(f'_what = "default" if {x} is None else "given"')
                out.assign(x, f"{self.as_array(default) if self.numpy else default} if {x} is None else {given}")
                self.require(mn, out, n, x, "_what")
            else:
                self.convert(out, m, n, x)
                if not var.choices:  # a choice's code is one of its set once _choice has read the name
                    self.require(mn, out, n, x, '"given"')
        self.used |= pr.used

    def lookups(self, out: Out, mn: ModelNames, loc: Locals, kinds: list[str], numpy: bool | None = None) -> None:
        """Each kind's catalog values (base units), from the entry its argument names; an unknown id or a missing value raises _entry_error.

        numpy: the NumPy flavour's lookups (a missing value is NaN, checked later); default: the module's flavour.
        """
        m = mn.model
        numpy = self.numpy if numpy is None else numpy
        for kind in kinds:
            fields = [p for p in m.params.values() if p.source == kind]
            ids = [f"{kind.upper()}S", f"_TITLES[{literal(kind)}]", kind]
            self.used.add("_entry_error")
            if not fields:
                out.emit(f"if {kind} not in {kind.upper()}S:")
                out.push()
                out.call("raise _entry_error", [literal(kind), *ids])
                out.pop()
                continue
            out.emit("try:")
            out.push()
            out.emit(f"_{kind} = {kind.upper()}S[{kind}]")
            for p in fields:
                spec = self.ctx.catalog.fields[kind][p.field_name]
                value = f"_{kind}[{literal(p.field_name)}]"
                value = f"np.float64({value})" if numpy else value  # a NumPy number: no exception where arrays give inf
                out.emit(f"{loc[p.name]} = {scale(value, exact(spec.factor), True)}")
            out.pop()
            out.emit("except (KeyError, TypeError):")
            out.push()
            out.call("raise _entry_error", [literal(kind), *ids, tuple_text([literal(p.field_name) for p in fields])], " from None")
            out.pop()

    def imported(self, out: Out, mn: ModelNames, loc: Locals) -> None:
        """The imported models' values the model reads (`_defaults_<model>(gpu, llm)` each, deepest first)."""
        m = mn.model
        imports = dict(m.imports)
        # the imports' functions first, deepest first: each one's prologue finds its own made, so a chain never recurses
        for deeper in deepest_first([mn], self._unmade_imports, key=id)[:-1]:
            self.import_function(deeper)
        for alias in _aliases(m):
            child = self.ctx.of(mn.report.imports[alias])
            fn = self.import_function(child)
            args = [kind if kind in mn.kinds() else literal(getattr(child.model, kind)) for kind in child.kinds()]
            values = loc[f"{alias}:values"]
            out.emit(f"{values} = {fn}({', '.join(args)})")
            order = list(imports[alias].variables)
            for p in m.params.values():
                if p.source == alias:
                    out.emit(f"{loc[p.name]} = {values}[{order.index(p.field_name)}]")

    def as_array(self, text: str) -> str:
        return f"np.asarray({text}, dtype=float)"

    def argument(self, x: str, unit: str) -> str:
        """The caller's value of argument x, refused unless it is a number in `unit` (the NumPy flavour: numbers)."""
        check = ("_one_number_np" if getattr(self, "one_number", False) else "_array") if self.numpy else "_number"  # a search takes one number per argument
        self.used.add(check)
        return f"{check}({x}, {literal(x)}" + (f", {literal(unit)})" if unit else ")")

    def convert(self, out: Out, m, n: str, x: str) -> None:
        if m.variables[n].choices:  # a name -> its code, refused unless it is one of the choices
            check = "_choices_np" if self.numpy else "_choice"
            self.used.add(check)
            out.emit(f"{x} = {check}({x}, {literal(x)}, {tuple_text([literal(c) for c in m.variables[n].choices])})")
            return
        factor = exact(m.variables[n].factor)
        value = scale(self.argument(x, m.variables[n].unit), factor, True)
        if value != x:
            out.emit(f"{x} = {value}")

    def require(self, mn: ModelNames, out: Out, n: str, x: str, what: str) -> None:
        """runtime.values.require behind a plain comparison (the NumPy flavour: over the whole array)."""
        d = mn.report.solution.program.domains[n]
        shown = scale(x, d.factor, False)
        about = [x, shown, what, literal(n), literal(d.unit), str(d.integer), literal(d.text), domain_tuple(d)]
        if self.numpy:
            self.used.add("_require_np")
            out.emit(f"if not {_fast_np(x, d)}:")
            out.call(f"{INDENT}_require_np", about)
        else:
            self.used.add("_require")
            out.emit(f"if not {_fast(x, d)}:")
            out.call(f"{INDENT}_require", about)

    # --- imported models ------------------------------------------------------------------------------------

    def _unmade_imports(self, mn: ModelNames) -> list[ModelNames]:
        return [c for alias in _aliases(mn.model) if id(c := self.ctx.of(mn.report.imports[alias])) not in self.imports_made]

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

    def args_doc(self, mn: ModelNames, inputs: list[str], given: list[str] = (), kinds: list[str] | None = None) -> list[str]:
        m = mn.model

        def line(n: str) -> str:
            var = m.variables[n]
            source = ""
            if n not in given and var.default.free_symbols:
                source = " None: " + ", ".join(comment(str(s)) for s in sorted(var.default.free_symbols, key=str)) + "."
            if var.choices:  # a name (lookups.py)
                return f"{mn.variables[n]}: {comment(var.description) or comment(n)}, a str: one of {', '.join(comment(c) for c in var.choices)}."
            return f"{mn.variables[n]}: {comment(var.description) or comment(n)} [{comment(var.unit) or '1'}].{source}"

        kinds = [f"{k}: {k.upper()} catalog id, a key of {k.upper()}S (default {comment(self.ctx.default.get(k, getattr(m, k)))})." for k in (mn.kinds() if kinds is None else kinds)]
        return [line(n) for n in given] + kinds + [line(n) for n in inputs]

    def call_program(self, out: Out, fn: str, program, loc: Locals) -> list[str]:
        """`a, b, rows = fn(inputs)`: the program's outputs into locals; returns what it returns, in order."""
        names = [loc[n] for n in self.outputs_of(program)]
        args = [loc[n] for n in program_inputs(program)]
        unpack(out, names, fn, args)
        return names

    def outputs_of(self, program) -> list[str]:
        return [*program.outputs, *(f"rows:{t}" for t in program.tables)]


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
    if d.values is not None:  # exact members pass here; a computed float near one is _require's to judge
        parts.append(f"{x} in {set_values(d)}")
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
    if d.values is not None:
        parts.append(f"np.all(np.isin({x}, {set_values(d)}))")
    if not parts:
        parts.append(f"not np.isnan({x}).any()")
    return parts[0] if len(parts) == 1 else f"({' and '.join(parts)})"


def _aliases(m) -> list[str]:
    """The imports whose values a model reads, in the order its parameters are."""
    return list(dict.fromkeys(p.source for p in m.params.values() if p.source not in ("gpu", "llm")))
