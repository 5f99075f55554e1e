"""The Python backend: each chain becomes a standalone module of plain functions.

`chainc build [MODEL ...] --format py [--out DIR]` writes `<model>.py` per chain (hyphens
and dots become underscores: `hol-blocking` -> `hol_blocking.py`; a standard-library
name gets `_chain`: `math` -> `math_chain.py`, so it never shadows a module its
neighbours import; two models with the same module name are an error before anything
is written). A module imports only the standard library and holds:

- the catalog values the chain uses as named constants (`GPU_MEMORY_BANDWIDTH`, in
  the field's catalog unit) and every catalog entry in `GPUS` / `LLMS`, so
  `solve(gpu="h200")` switches hardware (a caller may add entries);
- `solve(*, gpu=..., llm=..., <inputs>)`: the forward direction, every argument and
  result in its display unit, returning the frozen dataclass `Solution` (tables as
  tuples of `<Table>Row` records);
- one function per question (`max_batch(...)`) that answers as `compiler.ask` does:
  the boundary or the domain's edge, rounded as the question says (an `int` for
  whole-number variables), raising `ChainError` (a `ValueError`) with ask's message
  and hint when no value meets the condition or none is the largest (smallest);
- with `--find X --given Y=Q`, that query as its own function, named
  `<finds>_from_<givens>` (`batch_from_tpot(tpot=10.0, *, ...)`, the given value as
  its default), returning the whole `Solution`.

A division SymPy cancelled while parsing (`b = a / a` is `b = 1`) is checked as the solver
checks it: the module raises ChainError("division by zero in line 8: ...") when the divisor
is zero. Imported models are computed inside the module; tables compile to a loop over rows,
aggregates to sum/last/max/min/len over them, and numeric steps (no closed form) to a
bracketed bisection copied from compiler/solve.py's `_root_1d`. Arithmetic is in
floats, in base units inside: arguments are converted with the exact unit factors.

With `--numpy`, `<model>_np.py` is written beside each module as well: the same
functions over NumPy arrays (`np.floor`, `np.minimum`, `np.where`), broadcasting every
numeric argument. Plans with tables, numeric searches or several candidate roots are
not vectorisable; there the NumPy flavour runs the scalar code under `np.vectorize`
(correct, not fast) and its `Solution` carries no table rows. The module docstring
says which functions are vectorised.

Output is deterministic, laid out as `ruff format` (line length 200) leaves it, and
passes `ruff check` (E, F, W, I, B, UP). No model text is ever spliced into code:
names are validated identifiers (renamed when not), text goes through escaped
literals, comments and docstrings.
"""

from __future__ import annotations

import builtins
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp
from sympy.core.function import AppliedUndef

from .. import __version__
from ..errors import ChaincError, SolveError
from ..guards import guards as model_guards
from ..ir import Equation, Model, Variable
from ..solve import equation_guards, make_plan, solve, tear
from . import BuildOptions, write_atomic
from .python_printer import ADD, AND, ExprPrinter, Names, comment, docstring_text, literal, number, scale
from .python_runtime import helper_source

LINE = 200
INDENT = "    "
# names a generated function body may use besides its own locals
# names a generated function body may use besides its own locals (tests/test_hostile_eval.py checks the list against
# every name the generated code loads): variables, tables and columns never take them
BODY_BUILTINS = {"min", "max", "abs", "float", "int", "len", "range", "tuple", "isinstance", "complex", "sum", "str", "zip", "round"}
LOCAL_RESERVED = BODY_BUILTINS | {"math", "np", "gpu", "llm"}
# module-level names (questions, query functions) shadow builtins for every function, helpers included: avoid them all
MODULE_RESERVED = LOCAL_RESERVED | set(dir(builtins)) | {"annotations", "dataclass", "NamedTuple", "ArrayLike", "ChainError", "GPU", "LLM", "GPUS", "LLMS", "Solution"}
# a module named like one of these would shadow it for its neighbours once exports/ is on sys.path
SHADOWED_MODULES = set(sys.stdlib_module_names) | {"numpy", "chainc", "compiler"}
MODULE_SUFFIX = "_chain"


class PythonBackendError(ChaincError, ValueError):
    """The model uses something the Python backend cannot compile."""


def module_name(model: Model) -> str:
    """The module's name: the model's, with '-' and '.' as '_'; a name the standard library (or numpy) uses gets "_chain"."""
    name = model.name.replace("-", "_").replace(".", "_")
    if name in SHADOWED_MODULES:
        name += MODULE_SUFFIX
    n = Names(LOCAL_RESERVED)
    return n.take(name, "chain")


# --- layout helpers ----------------------------------------------------------------------------


def bracket(head: str, items: list[str], tail: str, indent: str, open_: str = "(", close: str = ")") -> list[str]:
    """`head(a, b) tail` on one line when it fits, else one item per line with a trailing comma."""
    one = f"{indent}{head}{open_}{', '.join(items)}{close}{tail}"
    if len(one) <= LINE and "\n" not in one:
        return [one]
    return [f"{indent}{head}{open_}", *(f"{indent}{INDENT}{it}," for it in items), f"{indent}{close}{tail}"]


def doc(text: str, indent: str) -> list[str]:
    """A docstring block: escaped text, wrapped, closing quotes on their own line when multi-line."""
    lines = text.split("\n")
    if len(lines) == 1:
        return [f'{indent}"""{lines[0]}"""']
    out = [f'{indent}"""{lines[0]}']
    out += [f"{indent}{line}" if line else "" for line in lines[1:]]
    out.append(f'{indent}"""')
    return out


def wrap(text: str, width: int = 88, indent: str = "") -> list[str]:
    return textwrap.wrap(" ".join(text.split()), width=width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False) or [""]


def rational_pair(x) -> tuple[int, int]:
    r = sp.Rational(x)
    return int(r.p), int(r.q)


def display_default(value) -> str:
    v = float(value)
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return number(v)


def unit_text(unit: str) -> str:
    return comment(unit) if unit else "1"


# --- one module --------------------------------------------------------------------------------


@dataclass
class Core:
    name: str
    model: Model
    known: tuple[str, ...]  # known variables, model order
    plan: object
    vectorised: bool = True


@dataclass
class Scope:
    """A function body being written: its lines, local names and computed tables/aggregates."""

    lines: list[str]
    indent: str
    names: dict  # sympy symbol (or aggregate function name) -> local name
    alloc: Names
    tables: dict[str, str] = field(default_factory=dict)

    def emit(self, line: str = "") -> None:
        self.lines.append(f"{self.indent}{line}" if line else "")


class ModuleWriter:
    def __init__(self, project, model: Model, options: BuildOptions, numpy: bool):
        self.project = project
        self.model = model
        self.options = options
        self.numpy = numpy
        self.helpers: set[str] = set()
        self.need_math = False
        self.private: list[list[str]] = []  # private function blocks, in order of creation
        self._made: set[str] = set()
        self.cores: dict[tuple, Core] = {}
        self.models = self._models(model)
        self.mid = {}
        ids = Names(LOCAL_RESERVED)
        for m in self.models:
            self.mid[m.name] = ids.take(m.name.replace("-", "_"), "m")
        self.pynames = {m.name: self._pynames(m) for m in self.models}
        self.tables_done: set[tuple[str, str]] = set()
        self.globals = Names(MODULE_RESERVED)
        self.row_class = {}
        for t in model.tables.values():
            self.row_class[t.name] = self.globals.take("".join(w.capitalize() for w in self.pynames[model.name][("table", t.name)].split("_")) + "Row")
        self.default_entry = {}
        for kind in ("gpu", "llm"):
            chosen = getattr(options, kind, None) if getattr(model, kind) else None
            for m in self.models:
                if getattr(m, kind):
                    self.default_entry[kind] = chosen or getattr(m, kind)
                    break
        if self.default_entry.get("gpu") and project.catalog.entry("gpu", self.default_entry["gpu"]) is None:
            raise PythonBackendError(f"unknown GPU '{self.default_entry['gpu']}'", None, f"known: {', '.join(project.catalog.ids('gpu'))}")
        if self.default_entry.get("llm") and project.catalog.entry("llm", self.default_entry["llm"]) is None:
            raise PythonBackendError(f"unknown LLM '{self.default_entry['llm']}'", None, f"known: {', '.join(project.catalog.ids('llm'))}")
        self.fields = {"gpu": [], "llm": []}
        for m in self.models:
            for p in m.params.values():
                if p.source in ("gpu", "llm") and p.field_name not in self.fields[p.source]:
                    self.fields[p.source].append(p.field_name)
        self.fields = {k: sorted(v) for k, v in self.fields.items()}
        self.constants = {}
        consts = Names(set(self.globals.taken))
        for kind in ("gpu", "llm"):
            for f in self.fields[kind]:
                self.constants[(kind, f)] = self._const_name(consts, kind, f)
        self.globals.taken |= consts.taken

    @staticmethod
    def _const_name(names: Names, kind: str, f: str) -> str:
        base = f"{kind}_{f}".upper()
        name, k = base, 2
        while name in names.taken:
            name, k = f"{base}_{k}", k + 1
        names.taken.add(name)
        return name

    def _models(self, model: Model) -> list[Model]:
        out: list[Model] = []

        def visit(m: Model) -> None:
            if any(o is m for o in out):
                return
            out.append(m)
            for _, other in m.imports:
                visit(self.project.model(other))

        visit(model)
        return out

    def _pynames(self, m: Model) -> dict:
        n = Names(LOCAL_RESERVED)
        out = {}
        for name in m.variables:
            out[name] = n.take(name)
        for t in m.tables.values():
            out[("table", t.name)] = n.take(t.name, "t")
            cols = Names(LOCAL_RESERVED | {"count", "index"})
            for c in t.columns:
                out[("column", t.name, c.name)] = cols.take(c.name, "c")
        return out

    # --- expressions ---------------------------------------------------------------------------

    def printer(self, names: dict, numpy: bool | None = None) -> ExprPrinter:
        numpy = self.numpy if numpy is None else numpy
        return _TrackingPrinter(self, names, numpy)

    # --- catalog -------------------------------------------------------------------------------

    def catalog_lines(self) -> list[str]:
        out = []
        cat = self.project.catalog
        for kind in ("gpu", "llm"):
            if not self.fields[kind] and kind not in self.default_entry:
                continue
            default = self.default_entry.get(kind)
            if default:
                entry = cat.entry(kind, default)
                out.append(f"{kind.upper()} = {literal(default)}  # default {kind.upper()}: {comment(entry.title)}")
                for f in self.fields[kind]:
                    spec = cat.field(kind, f)
                    v = entry.values.get(f)
                    val = "None" if v is None else number(sp.Rational(v) / spec.factor if v.is_Rational else v / spec.factor)
                    out.append(f"{self.constants[(kind, f)]} = {val}  # {unit_text(spec.unit)}: {comment(spec.description)}")
                out.append("")
        for kind in ("gpu", "llm"):
            if kind not in self.default_entry:
                continue
            plural = f"{kind.upper()}S"
            out.append(f"# every {kind.upper()} of the catalog, values in the units above (None: the entry has no such value)")
            out.append(f"{plural}: dict[str, dict[str, float | None]] = {{")
            for entry in cat.entries(kind):
                items = []
                for f in self.fields[kind]:
                    spec = cat.field(kind, f)
                    v = entry.values.get(f)
                    if entry.id == self.default_entry[kind]:
                        items.append(f"{literal(f)}: {self.constants[(kind, f)]}")
                    else:
                        items.append(f"{literal(f)}: {'None' if v is None else number(v / spec.factor)}")
                out += bracket(f"{literal(entry.id)}: ", items, ",", INDENT, "{", "}")
            out.append("}")
            out.append("")
        kinds = [k for k in ("gpu", "llm") if k in self.default_entry]
        if kinds:
            out.append("_TITLES: dict[str, dict[str, str]] = {")
            for kind in kinds:
                out += bracket(f"{literal(kind)}: ", [f"{literal(e.id)}: {literal(e.title)}" for e in cat.entries(kind)], ",", INDENT, "{", "}")
            out.append("}")
            out.append("")
        return out

    # --- private functions: parameters, imports ------------------------------------------------

    def kinds(self, m: Model) -> list[str]:
        return [k for k in ("gpu", "llm") if getattr(m, k)]

    def first_time(self, name: str) -> bool:
        """True the first time a private function `name` is asked for: each is emitted once."""
        if name in self._made:
            return False
        self._made.add(name)
        return True

    def params_fn(self, m: Model) -> str:
        """`_params_<m>(gpu, llm)`: every parameter of m in base units, in m.params order."""
        name = f"_params_{self.mid[m.name]}"
        if not self.first_time(name):
            return name
        kinds = self.kinds(m)
        lines = bracket(f"def {name}", [f"{k}: str" for k in kinds], " -> tuple[float, ...]:", "")
        lines += doc(f"The parameters of {self.mid[m.name]} in base units: {', '.join(literal(p)[1:-1] for p in m.params) or 'none'}.", INDENT)
        cat = self.project.catalog
        for k in kinds:
            if any(p.source == k for p in m.params.values()):
                lines.append(f"{INDENT}{k}_entry = _entry({literal(k)}, {k.upper()}S, {k})")
                self.helpers.add("_entry")
        items = []
        imports = dict(m.imports)
        done_imports = {}
        for p in m.params.values():
            if p.source in ("gpu", "llm"):
                spec = cat.field(p.source, p.field_name)
                self.helpers.add("_field")
                items.append(scale(f"_field({literal(p.source)}, {p.source}, {p.source}_entry, {literal(p.field_name)})", spec.factor, True))
            else:
                other = self.project.model(imports[p.source])
                if p.source not in done_imports:
                    args = [k for k in self.kinds(other) if k in kinds]
                    local = f"{Names(LOCAL_RESERVED | set(kinds)).take(p.source, 'm')}_values"
                    lines.append(f"{INDENT}{local} = {self.base_fn(other)}({', '.join(f'{a}={a}' for a in args)})")
                    done_imports[p.source] = local
                idx = list(other.variables).index(p.field_name)
                items.append(f"{done_imports[p.source]}[{idx}]")
        if len(items) == 1:
            lines.append(f"{INDENT}return ({items[0]},)")
        else:
            lines += bracket("return ", items, "", INDENT)
        self.private.append(lines)
        return name

    def base_fn(self, m: Model) -> str:
        """`_base_<m>(gpu=None, llm=None)`: an imported model solved at its defaults, base units, m.variables order."""
        name = f"_base_{self.mid[m.name]}"
        if not self.first_time(name):
            return name
        kinds = self.kinds(m)
        lines = bracket(f"def {name}", [f"{k}: str | None = None" for k in kinds], " -> tuple:", "")
        lines += doc(f"{self.mid[m.name]} solved at its defaults (imported by another chain); base units, every variable in model order.", INDENT)
        scope = Scope(lines, INDENT, {}, Names(LOCAL_RESERVED | set(self.pynames[m.name].values())))
        for k in kinds:
            scope.emit(f"{k} = {literal(getattr(m, k))} if {k} is None else {k}")
        params = self.bind_params(scope, m, kinds)
        known = [n for n, v in m.variables.items() if v.default is not None]
        pr = self.printer(scope.names, numpy=False)
        for n in known:
            scope.emit(f"{self.pynames[m.name][n]} = {pr.code(m.variables[n].default)}")
        core = self.core(m, frozenset(known), (), numpy=False)
        nvars = len(m.variables)
        args = params + [self.pynames[m.name][n] for n in known]
        call = f"{core.name}({', '.join(args)})"
        tail = f"[:{nvars}]" if m.tables else ""
        scope.lines += bracket(f"return {core.name}", args, tail, INDENT) if len(f"{INDENT}return {call}{tail}") > LINE else [f"{INDENT}return {call}{tail}"]
        self.private.append(lines)
        return name

    def bind_params(self, scope: Scope, m: Model, kinds: list[str]) -> list[str]:
        """Emit `p_a, p_b = _params_m(gpu, llm)` into scope; returns the local names, m.params order."""
        if not m.params:
            return []
        fn = self.params_fn(m)
        local = []
        for p in m.params.values():
            nm = scope.alloc.take(f"p_{p.source}_{p.field_name}", "p")
            scope.names[p.sym] = nm
            local.append(nm)
        call = f"{fn}({', '.join(kinds)})"
        target = f"({local[0]},)" if len(local) == 1 else ", ".join(local)
        scope.emit(f"{target} = {call}")
        return local

    # --- cores: one plan as straight-line code -------------------------------------------------

    def core(self, m: Model, known: frozenset, extra: tuple[Equation, ...], numpy: bool | None = None, plan=None) -> Core:
        numpy = self.numpy if numpy is None else numpy
        key = (m.name, known, extra, numpy)
        if key in self.cores:
            return self.cores[key]
        plan = plan if plan is not None else make_plan(m, known, extra)
        vectorised = numpy and not m.tables and all(s.method != "numeric" and not (s.method == "solve" and (len(s.candidates) > 1 or len(s.unknowns) > 1)) for s in plan.steps)
        if numpy and not vectorised:  # the scalar code, run element-wise
            scalar = self.core(m, known, extra, numpy=False, plan=plan)
            name = f"{scalar.name}_vec"
            nvars = len(m.variables)
            lines = [f"{name} = np.vectorize(lambda *args: {scalar.name}(*args)[:{nvars}], otypes={literal('d' * nvars)})"]
            self.private.append(lines)
            c = Core(name, m, scalar.known, plan, False)
            self.cores[key] = c
            return c
        name = f"_core_{self.mid[m.name]}_{sum(1 for k in self.cores if k[0] == m.name) + 1}{'_np' if numpy else ''}"
        knowns = tuple(n for n in m.variables if n in known)
        c = Core(name, m, knowns, plan, numpy)
        self.cores[key] = c
        pyn = self.pynames[m.name]
        alloc = Names(LOCAL_RESERVED | {v for k, v in pyn.items() if isinstance(k, str)})
        names = {v.sym: pyn[n] for n, v in m.variables.items()}
        params = []
        for p in m.params.values():
            nm = alloc.take(f"p_{p.source}_{p.field_name}", "p")
            names[p.sym] = nm
            params.append(nm)
        lines = bracket(f"def {name}", [f"{a}: float" for a in params + [pyn[n] for n in knowns]], " -> tuple:", "")
        what = "every variable (model order)" + (", then every table's rows" if m.tables else "")
        shape = f"known: {', '.join(knowns) or 'nothing'}"
        lines += doc(f"{comment(m.name)} in base units ({comment(shape)}); returns {what}.", INDENT)
        scope = Scope(lines, INDENT, names, alloc)
        for step in plan.steps:
            self.step(scope, m, step, numpy)
        results = [pyn[n] for n in m.variables]
        for t in m.tables.values():
            results.append(self.table_local(scope, m, t.name))
        lines += bracket("return ", results, "", INDENT)
        self.private.append(lines)
        return c

    def assign(self, scope: Scope, target: str, expr, pr: ExprPrinter) -> None:
        """`target = expr`; an expression too long for one line is split into partial results first."""
        line = f"{scope.indent}{target} = {pr.code(expr)}"
        if len(line) <= LINE or not isinstance(expr, (sp.Add, sp.Mul)):
            scope.emit(line[len(scope.indent) :])
            return
        if isinstance(expr, sp.Add):
            terms = expr.as_ordered_terms()
            head, tail = sp.Add(*terms[: len(terms) // 2], evaluate=False), terms[len(terms) // 2 :]
            rebuild = lambda part: sp.Add(part, *tail, evaluate=False)  # noqa: E731
        else:
            coeff, factors = expr.as_coeff_mul()
            factors = list(sp.Mul(*factors).as_ordered_factors())
            num = [f for f in factors if not (isinstance(f, sp.Pow) and f.exp.is_number and f.exp.is_negative)]
            den = [f for f in factors if f not in num]
            if den and num:
                head, rest = sp.Mul(*num, evaluate=False), [coeff, *den]
            elif len(factors) > 1:
                head, rest = sp.Mul(*factors[: len(factors) // 2], evaluate=False), [coeff, *factors[len(factors) // 2 :]]
            else:
                scope.emit(line[len(scope.indent) :])
                return
            rebuild = lambda part: sp.Mul(part, *rest, evaluate=False)  # noqa: E731
        if head.is_Atom:
            scope.emit(line[len(scope.indent) :])
            return
        part = sp.Symbol(f"_part_{len(scope.lines)}_{target}")
        scope.names[part] = scope.alloc.take(f"{target}_part", "part")
        self.assign(scope, scope.names[part], head, pr)
        self.assign(scope, target, rebuild(part), pr)

    def table_local(self, scope: Scope, m: Model, table: str) -> str:
        if table in scope.tables:
            return scope.tables[table]
        t = m.tables[table]
        fn = self.table_fn(m, table)
        local = scope.alloc.take(f"rows_{table}", "rows")
        args = [scope.names[s] for s in self.table_args(m, t)]
        scope.lines += bracket(f"{local} = {fn}", args, "", scope.indent)
        scope.tables[table] = local
        return local

    def table_args(self, m: Model, t) -> list:
        syms = set(t.rows.free_symbols)
        for c in t.columns:
            syms |= c.expr.free_symbols | c.initial.free_symbols
        g = model_guards(m)
        for divisor, when in g.rows.get(t.name, ()) + sum((g.columns.get((t.name, c.name), ()) for c in t.columns), ()):
            syms |= divisor.free_symbols | when.free_symbols  # a cancelled division's divisor is checked in the loop
        out = [v.sym for v in m.variables.values() if v.sym in syms]
        out += [p.sym for p in m.params.values() if p.sym in syms]
        return out

    def aggregates(self, scope: Scope, m: Model, exprs: list) -> None:
        """Compute, in scope, the table aggregates the expressions use."""
        for e in exprs:
            for node in sorted((n for n in sp.preorder_traversal(e) if isinstance(n, AppliedUndef)), key=lambda n: n.func.__name__):
                fname = node.func.__name__
                if fname in scope.names:
                    continue
                agg = m.aggregates[fname]
                rows = self.table_local(scope, m, agg.table)
                t = m.tables[agg.table]
                col = [c.name for c in t.columns].index(agg.column) if agg.column else 0
                local = scope.alloc.take(f"{agg.kind}_{agg.table}_{agg.column or 'rows'}", "agg")
                what = f"{agg.kind}({agg.table}.{agg.column})" if agg.column else f"count({agg.table})"
                self.helpers.add("_aggregate")
                scope.emit(f"{local} = _aggregate({literal(agg.kind)}, {rows}, {col}, {literal(what)})")
                scope.names[fname] = local

    def where(self, eq: Equation) -> str:
        return f"line {eq.loc.line}: {clean_text(eq.text)}"

    def check(self, scope: Scope, var: Variable, local: str, eq: Equation, numpy: bool) -> None:
        """The solver's domain check after a define step."""
        d = var.domain
        conds = []
        if d.kind == "positive":
            conds.append(f"{local} > 0")
        elif d.kind == "nonnegative":
            conds.append(f"{local} >= 0")
        elif d.lo is None and d.hi is None:
            conds.append(f"{local} == {local}")
        if d.lo is not None:
            conds.append(f"{local} >= {ExprPrinter({}).code(d.lo, 6)}")
        if d.hi is not None:
            conds.append(f"{local} <= {ExprPrinter({}).code(d.hi, 6)}")
        args = [literal(var.name), "{value}", literal(var.unit), literal(d.describe()), literal(self.where(eq))]
        self.helpers.add("_outside")
        shown = scale(local, var.factor, False)
        if numpy:
            self.helpers.add("_first")
            scope.emit(f"ok = {' & '.join(f'({c})' for c in conds)}" if len(conds) > 1 else f"ok = {conds[0]}")
            scope.emit("if not np.all(ok):")
            value = f"_first({shown}, ok)"
        else:
            scope.emit(f"if not {conds[0]}:" if len(conds) == 1 else f"if not ({' and '.join(conds)}):")
            value = shown
        scope.lines += bracket("raise _outside", [a.replace("{value}", value) if a == "{value}" else a for a in args], "", scope.indent + INDENT)

    def division_guards(self, scope: Scope, m: Model, guards: tuple, exprs: list, where: str, numpy: bool, names: dict | None = None) -> None:
        """The solver's check of a division SymPy cancelled (a / a is 1): `if a == 0: raise ChainError(...)`.

        A division the expression still holds raises ZeroDivisionError (or gives inf in NumPy) by itself.
        """
        names = names if names is not None else scope.names
        for divisor, when in guards:
            if not cancelled(divisor, exprs) or not all(s in names for s in divisor.free_symbols | when.free_symbols):
                continue  # kept, or not known here (the solver skips it too)
            self.aggregates(scope, m, [divisor, when])
            pr = self.printer(names, numpy)
            zero = f"{pr.code(divisor, ADD)} == 0"
            if numpy:
                test = f"np.any({zero})" if when is sp.true else f"np.any(({pr.code(when)}) & ({zero}))"
            else:
                test = zero if when is sp.true else f"{pr.code(when, AND + 1)} and {zero}"
            self.helpers.add("ChainError")
            scope.emit(f"if {test}:")
            scope.lines += bracket("raise ChainError", [literal(f"division by zero in {where}; the divisor {clean_text(str(divisor))} is 0")], "", scope.indent + INDENT)

    def step(self, scope: Scope, m: Model, step, numpy: bool) -> None:
        self._step(scope, m, step, numpy)
        for eq in step.equations:
            self.division_guards(scope, m, equation_guards(m, eq), [eq.lhs, eq.rhs], self.where(eq), numpy)

    def _step(self, scope: Scope, m: Model, step, numpy: bool) -> None:
        pr = self.printer(scope.names, numpy)
        pyn = self.pynames[m.name]
        if step.method == "define":
            ((n, e),) = step.candidates[0].items()
            self.aggregates(scope, m, [e])
            self.assign(scope, pyn[n], e, pr)
            if n in m.variables:
                self.check(scope, m.variables[n], pyn[n], step.equations[0], numpy)
            return
        if step.method == "solve":
            exprs = [e for cand in step.candidates for e in cand.values()]
            self.aggregates(scope, m, exprs)
            where = self.where(step.equations[0])
            if len(step.candidates) == 1 and len(step.unknowns) == 1:
                n = step.unknowns[0]
                var = m.variables[n]
                self.assign(scope, pyn[n], step.candidates[0][n], pr)
                dom = self.domain_args(var)
                if numpy:
                    self.helpers.update({"_admits_np", "ChainError"})
                    scope.emit(f"if not np.all(_admits_np({pyn[n]}, {dom})):")
                else:
                    self.helpers.update({"_admits", "ChainError"})
                    scope.emit(f"if not _admits({pyn[n]}, {dom}):")
                scope.lines += bracket("raise ChainError", [literal(f"no admissible value of {n} solves {where} (domain: {var.domain.describe()})")], "", scope.indent + INDENT)
                return
            self.helpers.update({"_admits", "_pick"})
            scope.emit("options = []" if "options" not in scope.alloc.taken else "options.clear()")
            scope.alloc.taken.add("options")
            for cand in step.candidates:
                values = [pr.code(cand[n]) for n in step.unknowns]
                scope.emit("try:")
                scope.emit(f"{INDENT}option = ({', '.join(values)}{',' if len(values) == 1 else ''})")
                scope.emit("except (ArithmeticError, ValueError):")
                scope.emit(f"{INDENT}pass")
                scope.emit("else:")
                tests = " and ".join(f"_admits(option[{i}], {self.domain_args(m.variables[n])})" for i, n in enumerate(step.unknowns))
                scope.emit(f"{INDENT}if {tests}:")
                scope.emit(f"{INDENT * 2}options.append(option)")
            scope.alloc.taken.add("option")
            targets = f"({pyn[step.unknowns[0]]},)" if len(step.unknowns) == 1 else ", ".join(pyn[n] for n in step.unknowns)
            scope.lines += bracket(f"{targets} = _pick", ["options", literal(", ".join(step.unknowns)), literal(where)], "", scope.indent)
            return
        # numeric: tear the block, search over the one tear variable
        defs, tears, residuals = tear(m, step)
        if len(tears) != 1:
            eq = step.equations[0]
            raise PythonBackendError(
                f"{m.name}: the Python backend compiles numeric searches over one variable; this block needs {len(tears)} ({', '.join(tears)})",
                eq.loc,
                "the solver uses mpmath.findroot here; give one of them a value, or reformulate",
            )
        tv = m.variables[tears[0]]
        fn = scope.alloc.take(f"residual_{tears[0]}", "residual")
        if scope.lines and scope.lines[-1].strip() and not scope.lines[-1].rstrip().endswith(":"):
            scope.emit()
        scope.emit(f"def {fn}(x: float) -> float:")
        inner = Scope(scope.lines, scope.indent + INDENT, dict(scope.names), scope.alloc, {})
        ipr = self.printer(inner.names, numpy)
        inner.emit(f"{pyn[tears[0]]} = x")
        for n, e in defs:
            self.aggregates(inner, m, [e])
            self.assign(inner, pyn[n], e, ipr)
        eq = residuals[0]
        self.aggregates(inner, m, [eq.residual])
        inner.emit(f"return {ipr.code(eq.lhs, 6)} - {ipr.code(eq.rhs, 7)}")
        scope.emit()
        start = "None"
        if tv.default is not None:
            start = pr.code(tv.default)
        lo = "None" if tv.domain.lo is None else pr.code(tv.domain.lo)
        hi = "None" if tv.domain.hi is None else pr.code(tv.domain.hi)
        what = f"({literal(tv.name)}, {literal(tv.unit)}, {literal(self.where(eq))})"
        self.helpers.add("_root_1d")
        args = [fn, start, number(tv.factor), literal(tv.domain.kind), lo, hi, what] + (["integer=True"] if tv.domain.integer and m.tables else [])
        scope.lines += bracket(f"{pyn[tears[0]]} = _root_1d", args, "", scope.indent)
        for n, e in defs:
            self.aggregates(scope, m, [e])
            self.assign(scope, pyn[n], e, pr)

    def domain_args(self, var: Variable) -> str:
        d = var.domain
        pr = ExprPrinter({})
        parts = [literal(d.kind)]
        if d.lo is not None or d.hi is not None:
            parts.append("None" if d.lo is None else pr.code(d.lo))
        if d.hi is not None:
            parts.append(pr.code(d.hi))
        return ", ".join(parts)

    # --- tables --------------------------------------------------------------------------------

    def table_fn(self, m: Model, table: str) -> str:
        name = f"_table_{self.mid[m.name]}_{self.pynames[m.name][('table', table)]}"
        if (m.name, table) in self.tables_done:
            return name
        self.tables_done.add((m.name, table))
        t = m.tables[table]
        pyn = self.pynames[m.name]
        alloc = Names(LOCAL_RESERVED | {"rows", "n"})
        names = {}
        args = []
        for s in self.table_args(m, t):
            var = next((n for n, v in m.variables.items() if v.sym == s), None)
            nm = alloc.take(pyn[var] if var else f"p_{s.name}", "p")
            names[s] = nm
            args.append(nm)
        used = set()
        for c in t.columns:
            used |= c.expr.free_symbols
        col_local = {}
        for c in t.columns:
            col_local[c.name] = alloc.take(pyn[("column", t.name, c.name)], "c")
            names[c.sym] = col_local[c.name]
        prev_local = {}
        for c in t.columns:
            if c.prev is not None and c.prev in used:
                prev_local[c.name] = alloc.take(f"prev_{c.name}", "prev")
                names[c.prev] = prev_local[c.name]
        index = alloc.take("i", "i") if t.index in used else "_"
        names[t.index] = index
        pr = _TrackingPrinter(self, names, False)
        lines = bracket(f"def {name}", [f"{a}: float" for a in args], " -> tuple[tuple[float, ...], ...]:", "")
        lines += doc(f"Table {comment(t.name)} of {comment(m.name)} in base units: one tuple per row ({', '.join(c.name for c in t.columns)}).", INDENT)
        self.helpers.add("_rows")
        g = model_guards(m)
        self.division_guards(Scope(lines, INDENT, names, alloc), m, g.rows.get(t.name, ()), [t.rows], f"table '{t.name}': rows = {clean_text(t.rows_text)}", False)
        lines.append(f"{INDENT}n = _rows({pr.code(t.rows)}, {literal(t.name)}, {literal(clean_text(t.rows_text))}, {t.max_rows})")
        lines.append(f"{INDENT}rows = []")
        for c in t.columns:
            if c.name in prev_local:
                lines.append(f"{INDENT}{prev_local[c.name]} = {pr.code(c.initial)}")
        lines.append(f"{INDENT}for {index} in range(1, n + 1):")
        loop = Scope(lines, INDENT * 2, names, alloc)
        for c in t.columns:
            self.assign(loop, col_local[c.name], c.expr, pr)
            self.division_guards(loop, m, g.columns.get((t.name, c.name), ()), [c.expr], f"table '{t.name}': {c.name} = {clean_text(c.formula)}", False)
        if len(t.columns) == 1:  # a one-element tuple needs its comma: (cost,), not (cost)
            lines.append(f"{INDENT * 2}rows.append(({col_local[t.columns[0].name]},))")
        else:
            lines += bracket("rows.append(", [col_local[c.name] for c in t.columns], ")", INDENT * 2, "(", ")")
        if prev_local:
            order = [c.name for c in t.columns if c.name in prev_local]
            lines.append(f"{INDENT * 2}{', '.join(prev_local[n] for n in order)} = {', '.join(col_local[n] for n in order)}")
        lines.append(f"{INDENT}return tuple(rows)")
        self.private.append(lines)
        return name

    # --- public functions ----------------------------------------------------------------------

    def signature_items(self, m: Model, inputs: list[str], numpy: bool, positional: list[tuple[str, str]] = ()) -> list[str]:
        pyn = self.pynames[m.name]
        typ = "ArrayLike" if numpy else "float"
        items = [f"{pyn[n]}: {typ} = {value}" for n, value in positional]
        items.append("*")
        for k in self.kinds(m):
            items.append(f"{k}: str = {k.upper()}")
        for n in inputs:
            var = m.variables[n]
            if var.default is not None and var.default.free_symbols:
                items.append(f"{pyn[n]}: {typ} | None = None")
            else:
                items.append(f"{pyn[n]}: {typ} = {display_default(var.default / var.factor)}")
        if items[-1] == "*":  # no keyword arguments: a bare * is a syntax error
            items.pop()
        return items

    def args_doc(self, m: Model, inputs: list[str], given: list[str] = ()) -> list[str]:
        """Args lines in signature order: the query's givens, gpu/llm, the inputs; each with its unit."""
        pyn = self.pynames[m.name]

        def line(n: str, optional: bool) -> str:
            var = m.variables[n]
            src = ""
            if optional and var.default is not None and var.default.free_symbols:
                src = " None: " + ", ".join(comment(str(s)) for s in sorted(var.default.free_symbols, key=str)) + "."
            return f"{pyn[n]}: {comment(var.description) or n} [{unit_text(var.unit)}].{src}"

        kinds = [f"{k}: {k.upper()} catalog id, a key of {k.upper()}S (default {self.default_entry[k]})." for k in self.kinds(m)]
        return [line(n, False) for n in given] + kinds + [line(n, True) for n in inputs]

    def require_inputs(self, scope: Scope, m: Model, inputs: list[str], numpy: bool) -> None:
        """compiler.solve.require_in_domain on the inputs, before they are converted: whole numbers, in the domain."""
        pyn = self.pynames[m.name]
        pr = self.printer(scope.names, numpy)
        helper = "_require_np" if numpy else "_require"
        self.helpers.add(helper)
        for n in inputs:
            var = m.variables[n]
            arg = f"np.asarray({pyn[n]}, dtype=float)" if numpy else pyn[n]
            value, shown, what = scale(arg, var.factor, True), pyn[n], literal("given")
            if var.default is not None and var.default.free_symbols:
                default = pr.code(var.default, 2)
                value = f"{default} if {pyn[n]} is None else {value}"
                shown = f"{scale(pr.code(var.default, 7), var.factor, False)} if {pyn[n]} is None else {pyn[n]}"
                what = f"{literal('default')} if {pyn[n]} is None else {literal('given')}"
            about = f"({literal(n)}, {literal(var.unit)}, {var.domain.integer}, {literal(var.domain.describe(var))})"
            dom = f"({self.domain_args(var)},)" if "," not in self.domain_args(var) else f"({self.domain_args(var)})"
            scope.lines += bracket(helper, [value, shown, what, about, dom], "", scope.indent)

    def inputs_to_base(self, scope: Scope, m: Model, inputs: list[str], numpy: bool) -> None:
        pyn = self.pynames[m.name]
        pr = self.printer(scope.names, numpy)
        for n in inputs:
            var = m.variables[n]
            arg = f"np.asarray({pyn[n]}, dtype=float)" if numpy else pyn[n]
            conv = scale(arg, var.factor, True)
            if var.default is not None and var.default.free_symbols:
                default = pr.code(var.default, 2)
                value = f"{default} if {pyn[n]} is None else {conv}"
                if numpy:
                    value = f"np.asarray({pr.code(var.default)}, dtype=float) if {pyn[n]} is None else {conv}"
            else:
                value = conv
            if value != pyn[n]:
                scope.emit(f"{pyn[n]} = {value}")

    def solution_return(self, scope: Scope, m: Model, core: Core, call_args: list[str], numpy: bool) -> None:
        pyn = self.pynames[m.name]
        tables = [] if numpy else list(m.tables.values())
        targets = [pyn[n] for n in m.variables] + [pyn[("table", t.name)] for t in tables]
        tail = ""
        lhs = ", ".join(targets)
        if len(targets) == 1:
            lhs = f"({targets[0]},)"
        call_lines = bracket(f"{core.name}", call_args, tail, "")
        if numpy and m.tables and core.vectorised:
            call_lines[-1] += f"[: {len(m.variables)}]"
        if len(call_lines) == 1 and len(f"{scope.indent}{lhs} = {call_lines[0]}") <= LINE:
            scope.emit(f"{lhs} = {call_lines[0]}")
        elif len(f"{scope.indent}{lhs} = {core.name}(") <= LINE:
            scope.lines += bracket(f"{lhs} = {core.name}", call_args, tail, scope.indent)
        else:
            tmp = scope.alloc.take("values", "values")
            scope.lines += bracket(f"{tmp} = {core.name}", call_args, tail, scope.indent)
            scope.lines += bracket("(", targets, f") = {tmp}", scope.indent, "", "")
        items = [f"{pyn[n]}={scale(pyn[n], v.factor, False)}" for n, v in m.variables.items()]
        for t in tables:
            items.append(f"{pyn[('table', t.name)]}={self.display_fn(m, t)}({pyn[('table', t.name)]})")
        scope.lines += bracket("return Solution", items, "", scope.indent)

    def display_fn(self, m: Model, t) -> str:
        """`_display_<m>_<t>(rows)`: a table's base-unit rows as records in display units."""
        name = f"_display_{self.mid[m.name]}_{self.pynames[m.name][('table', t.name)]}"
        if not self.first_time(name):
            return name
        cls = self.row_class[t.name]
        lines = [f"def {name}(rows: tuple[tuple[float, ...], ...]) -> tuple[{cls}, ...]:"]
        lines += doc(f"Table {comment(t.name)}: base-unit rows as {cls} records in display units.", INDENT)
        lines.append(f"{INDENT}records = []")
        lines.append(f"{INDENT}for row in rows:")
        cols = [f"{self.pynames[m.name][('column', t.name, c.name)]}={scale(f'row[{i}]', c.factor, False)}" for i, c in enumerate(t.columns)]
        lines += bracket(f"record = {cls}", cols, "", INDENT * 2)
        lines.append(f"{INDENT * 2}records.append(record)")
        lines.append(f"{INDENT}return tuple(records)")
        self.private.append(lines)
        return name

    def forward_fn(self, fname: str, summary: str, known: frozenset, positional: list[tuple[str, str]], numpy: bool, plan=None) -> list[str]:
        """solve() or a --find/--given query: inputs in, every variable out."""
        m = self.model
        pyn = self.pynames[m.name]
        core = self.core(m, known, (), numpy, plan=plan)
        given = [n for n, _ in positional]
        inputs = [n for n in m.variables if n in known and n not in given]
        lines = bracket(f"def {fname}", self.signature_items(m, inputs, numpy, positional), " -> Solution:", "")
        body = [summary, ""]
        body.append("Args:")
        body += [f"    {a}" for a in self.args_doc(m, inputs, given)]
        body += ["", "Returns:", "    Solution: every variable in its display unit" + (" (arrays, broadcast over the arguments)." if numpy else ", tables as tuples of rows.")]
        body += ["", "Raises:", "    ChainError: a value outside its domain, or no admissible root (a ValueError)."]
        lines += doc("\n".join(docstring_text(b) for b in body), INDENT)
        alloc = Names(LOCAL_RESERVED | set(v for k, v in pyn.items() if isinstance(k, str)) | set(v for k, v in pyn.items() if not isinstance(k, str)))
        scope = Scope(lines, INDENT, {v.sym: pyn[n] for n, v in m.variables.items()}, alloc)
        params = self.bind_params(scope, m, self.kinds(m))
        self.inputs_to_base(scope, m, [*given, *inputs], numpy)
        args = params + [pyn[n] for n in core.known]
        self.solution_return(scope, m, core, args, numpy)
        return lines

    def question_fn(self, fname: str, qname: str, numpy: bool) -> list[str]:
        """A question as a function: compiler.solve.ask over floats (`_ask`, or `_ask_np` element-wise)."""
        m = self.model
        q = m.questions[qname]
        var = m.variables[q.find]
        dom = var.domain
        pyn = self.pynames[m.name]
        defaults = frozenset(n for n, v in m.variables.items() if v.default is not None)
        inputs = [n for n in m.variables if n in defaults and n != q.find]
        at_core = self.core(m, frozenset(inputs) | {q.find}, (), numpy)
        text = q.condition_text.replace("<=", "=").replace(">=", "=").replace("<", "=").replace(">", "=")
        boundary_eq = Equation(len(m.equations), text, q.condition.lhs, q.condition.rhs, q.loc)
        try:
            b_core = self.core(m, frozenset(inputs), (boundary_eq,), numpy)
        except SolveError:
            b_core = None
        # ask's edges: the declared bounds, else one step (positive) or 0 (nonnegative); its probe without a boundary
        lo = dom.lo if dom.lo is not None else (q.step if q.step is not None and dom.kind == "positive" else sp.Integer(0) if dom.kind == "nonnegative" else None)
        hi = dom.hi
        probe = var.default if var.default is not None and var.default.is_number else var.factor
        numeric = b_core is not None and any(s.method == "numeric" and q.find in s.unknowns for s in b_core.plan.steps)
        # a whole-number answer: every value ask can return (steps, edges) is a whole number in the display unit
        whole = lambda x: x is None or (x / var.factor).is_integer  # noqa: E731
        as_int = not numpy and dom.integer and q.step is not None and whole(q.step) and whole(lo) and whole(hi)
        typ = "np.ndarray" if numpy else "float"
        lines = bracket(f"def {fname}", self.signature_items(m, inputs, numpy), f" -> {'int' if as_int else typ}:", "")
        largest = "largest" if q.seek == "max" else "smallest"
        rounding = ""
        if q.step is not None:
            rounding = f", {'rounded down' if q.seek == 'max' else 'rounded up'} to a multiple of {display_default(q.step / var.factor)} {var.unit}".rstrip()
        body = [f"{comment(q.ask)}.", "", f"The {largest} {q.find} such that {comment(q.condition_text)}{rounding}, as compiler.ask finds it:"]
        body += [
            "the boundary (the condition as an equation) when the condition holds on its one side,",
            f"else the domain's {'upper' if q.seek == 'max' else 'lower'} edge when the condition holds up to it.",
            "",
        ]
        body += ["Args:"] + [f"    {a}" for a in self.args_doc(m, inputs)]
        ret = f"    {q.find} [{unit_text(var.unit)}]" + (": an array, element-wise." if numpy else ", a whole number." if as_int else ".")
        body += ["", "Returns:", ret]
        body += ["", "Raises:", f"    ChainError: no {q.find} meets the condition (the message quotes the numbers at the limit), or there is no {largest} one"]
        body[-1] += "; any element without an answer raises." if numpy else "."
        lines += doc("\n".join(docstring_text(b) for b in body), INDENT)
        alloc = Names(LOCAL_RESERVED | set(v for k, v in pyn.items() if isinstance(k, str)) | set(v for k, v in pyn.items() if not isinstance(k, str)))
        scope = Scope(lines, INDENT, {v.sym: pyn[n] for n, v in m.variables.items()}, alloc)
        params = self.bind_params(scope, m, self.kinds(m))
        self.require_inputs(scope, m, inputs, numpy)
        self.inputs_to_base(scope, m, inputs, numpy)
        ind = INDENT * 2
        idx = {n: i for i, n in enumerate(m.variables)}
        # nested functions' own names start with an underscore: no model name can (they are identifiers without one)
        shape = ""
        if numpy:
            args_name, shape = alloc.take("inputs"), alloc.take("shape")
            scope.lines += bracket(f"{args_name} = ", [pyn[n] for n in inputs], "", INDENT, "(", ")") if len(inputs) != 1 else [f"{INDENT}{args_name} = ({pyn[inputs[0]]},)"]
            scope.emit(f"{shape} = np.broadcast_shapes(*(np.shape(_a) for _a in {args_name}))")
        # the boundary: the condition as an equation, solved for q.find (none when the solver cannot plan it)
        if b_core is not None:
            scope.emit()
            if numpy:
                scope.emit(f"def _boundary(_i: tuple | None = None) -> {typ}:")
                scope.emit(f"{INDENT}_a = {args_name} if _i is None else tuple(np.broadcast_to(_x, {shape})[_i] for _x in {args_name})")
                scope.lines += bracket(f"return {b_core.name}", [*params, "*_a"], f"[{idx[q.find]}]", ind)
            else:
                scope.emit(f"def _boundary() -> {typ}:")
                scope.lines += bracket(f"return {b_core.name}", params + [pyn[n] for n in b_core.known], f"[{idx[q.find]}]", ind)
        scope.emit()
        scope.emit(f"def _at(_x: {typ}) -> tuple:")
        at_args = params + [("_x" if n == q.find else pyn[n]) for n in at_core.known]
        scope.lines += bracket(f"return {at_core.name}", at_args, "", ind)
        # the condition over values at x
        vnames = {v.sym: f"_v[{idx[n]}]" for n, v in m.variables.items()}
        for p in m.params.values():
            vnames[p.sym] = scope.names[p.sym]
        pr = self.printer(vnames, numpy)
        scope.emit()
        scope.emit(f"def _feasible(_x: {typ}) -> {'np.ndarray' if numpy else 'bool'}:")
        scope.emit(f"{INDENT}_v = _at(_x)")
        inner = Scope(scope.lines, scope.indent + INDENT, vnames, scope.alloc)
        self.division_guards(inner, m, model_guards(m).questions.get(q.name, ()), [q.condition], f"question {q.name}: {clean_text(q.condition_text)}", numpy, vnames)
        scope.emit(f"{INDENT}return {pr.code(q.condition)}")
        # messages: compiler.solve's _infeasible and _unbounded, message then hint
        rel = type(q.condition).__name__
        negated = {"StrictLessThan": ">=", "LessThan": ">", "StrictGreaterThan": "<=", "GreaterThan": "<"}[rel]
        sides = []
        for side in (q.condition.lhs, q.condition.rhs):
            names = [n for n, v in m.variables.items() if v.sym == side]
            if names:
                n = names[0]
                sides.append((n, scale(f"_v[{idx[n]}]", m.variables[n].factor, False), m.variables[n].unit))
            else:
                sides.append(("", pr.code(side), ""))
        self.helpers.update({"_side", "ChainError"})
        on = ""
        if self.kinds(m):
            self.helpers.add("_on")
            on = "_on(" + ", ".join(f"({literal(k)}, {k})" for k in self.kinds(m)) + ")"
        cond = clean_text(q.condition_text)
        head = f"question {q.name}: no {q.find} meets {cond}: at "
        hint = f"; no {q.find} in its domain ({dom.describe(var)}) meets the condition"
        end = "; change another input or the target"
        scope.emit()
        if numpy:
            self.helpers.add("_first")
            scope.emit(f"def _infeasible(_x: {typ}, _ok: np.ndarray) -> ChainError:")
            pick = lambda text: f"_first({text}, _ok)"  # noqa: E731
        else:
            scope.emit(f"def _infeasible(_x: {typ}) -> ChainError:")
            pick = lambda text: text  # noqa: E731
        scope.emit(f"{INDENT}_v = _at(_x)")
        scope.emit(f"{INDENT}_head = {literal(head)}")
        scope.emit(f"{INDENT}_shown = _side({literal(q.find)}, {pick(scale('_x', var.factor, False))}, {literal(var.unit)})")
        scope.emit(f"{INDENT}_lhs = _side({literal(sides[0][0])}, {pick(sides[0][1])}, {literal(sides[0][2])})")
        scope.emit(f"{INDENT}_rhs = _side({literal(sides[1][0])}, {pick(sides[1][1])}, {literal(sides[1][2])})")
        scope.emit(f"{INDENT}_hint = {literal(hint)}")
        scope.emit(f"{INDENT}_end = {on + ' + ' if on else ''}{literal(end)}")
        scope.emit(f'{INDENT}return ChainError(_head + _shown + ", " + _lhs + {literal(" " + negated + " ")} + _rhs + _hint + _end)')
        scope.emit()
        other = "min" if q.seek == "max" else "max"
        unbounded = f"question {q.name}: there is no {largest} {q.find}; {cond} holds for "
        bound_hint = f"; bound {q.find} with {q.seek}: in its declaration, or did you mean seek: {other}?"
        scope.emit("def _unbounded(_where: str, _b: float | None) -> ChainError:")
        scope.emit(f"{INDENT}_shown = {literal('')} if _b is None else {literal(' ')} + _side({literal(q.find)}, {scale('_b', var.factor, False)}, {literal(var.unit)})")
        scope.emit(f"{INDENT}_head = {literal(unbounded)}")
        scope.emit(f"{INDENT}_hint = {literal(bound_hint)}")
        scope.emit(f"{INDENT}return ChainError(_head + _where + _shown + _hint)")
        scope.emit()
        step = f"({', '.join(str(x) for x in rational_pair(q.step))})" if q.step is not None else "None"
        edge = lambda x: "None" if x is None else number(x)  # noqa: E731
        helper = "_ask_np" if numpy else "_ask"
        self.helpers.add(helper)
        dom_args = f"({self.domain_args(var)},)" if "," not in self.domain_args(var) else f"({self.domain_args(var)})"
        strict = rel.startswith("Strict")
        boundary = "_boundary" if b_core is not None else "None"
        call = [boundary, "_feasible", "_infeasible", "_unbounded", literal(q.seek), step, dom_args, f"({edge(lo)}, {edge(hi)})", number(probe), str(numeric), str(strict)]
        call.append(f"({literal(q.find)}, {dom.integer})")
        if numpy:
            call.append(shape)
        value = alloc.take("value")
        scope.lines += bracket(f"{value} = {helper}", call, "", INDENT)
        shown = scale(value, var.factor, False)
        scope.emit(f"return round({shown})" if as_int else f"return {shown}")
        return lines

    # --- the module ----------------------------------------------------------------------------

    def render(self) -> str:
        m = self.model
        numpy = self.numpy
        public: list[tuple[str, list[str]]] = []
        # the forward direction
        defaults = frozenset(n for n, v in m.variables.items() if v.default is not None)
        solve_name = "solve"
        self.globals.taken.add(solve_name)
        public.append((solve_name, self.forward_fn(solve_name, f"Solve {comment(m.title)} forward from its inputs.", defaults, [], numpy)))
        vectorised = {solve_name: self.cores[(m.name, defaults, (), numpy)].vectorised}
        for qname in m.questions:
            fname = self.globals.take(qname, "question")
            public.append((fname, self.question_fn(fname, qname, numpy)))
            vectorised[fname] = all(c.vectorised for k, c in self.cores.items() if k[0] == m.name and k[3] == numpy)
        if self.options.find or self.options.given:
            find = list(self.options.find)
            given = dict(self.options.given)
            gpu = self.options.gpu if m.gpu else None
            llm = self.options.llm if m.llm else None
            sol = solve(m, given, tuple(find), gpu=gpu, llm=llm, project=self.project)
            base = "_and_".join(find) if find else "solve"
            fname = self.globals.take(f"{base}_from_{'_and_'.join(given)}" if given else f"{base}_query", "query")
            positional = [(n, display_default(sol.given[n] / m.variables[n].factor)) for n in given]
            summary = f"Solve {comment(m.title)} for {', '.join(find) or 'every variable'} from {', '.join(given) or 'the defaults'} (chainc build --find/--given)."
            public.append((fname, self.forward_fn(fname, summary, sol.plan.known, positional, numpy, plan=sol.plan)))
            vectorised[fname] = self.cores[(m.name, sol.plan.known, (), numpy)].vectorised
        out: list[str] = []
        # docstring
        title = docstring_text(comment(m.title))
        about = [docstring_text(line) for line in wrap(m.about)]
        flavour = "NumPy flavour: every numeric argument may be an array; results broadcast." if numpy else "Standard library only."
        notes = [
            f"Generated by chainc {__version__} from the model {comment(m.name)}; do not edit.",
            flavour,
            "Arguments and results are in each variable's display unit (see the docstrings);",
            "catalog values are in the catalog's field units.",
        ]
        if numpy:
            slow = [n for n, v in vectorised.items() if not v]
            if slow:
                notes.append(f"Not vectorisable (tables or numeric searches), run element by element with np.vectorize: {', '.join(slow)}.")
                if m.tables:
                    notes.append("Table rows are not part of this flavour's Solution; use the scalar module for them.")
        text = "\n".join([title, "", *about, "", *[docstring_text(line) for line in notes]])
        out += doc(text, "")
        out.append("")
        body_sections: list[list[str]] = []
        # catalog
        cat = self.catalog_lines()
        # public API
        classes = self.class_lines(numpy)
        all_names = ["ChainError"]
        for kind in ("gpu", "llm"):
            if kind in self.default_entry:
                all_names.append(kind.upper())
                all_names += [self.constants[(kind, f)] for f in self.fields[kind]]
                all_names.append(f"{kind.upper()}S")
        all_names.append("Solution")
        if not numpy:
            all_names += [self.row_class[t] for t in m.tables]
        all_names += [n for n, _ in public]
        self.helpers.add("ChainError")
        helper_blocks, need_math, need_np = helper_source(self.helpers)
        uses_math = self.need_math or need_math
        uses_np = numpy
        uses_nt = bool(m.tables) and not numpy
        # imports
        out.append("from __future__ import annotations")
        out.append("")
        std = []
        if uses_math:
            std.append("import math")
        std.append("from dataclasses import dataclass")
        if uses_nt:
            std.append("from typing import NamedTuple")
        out += std
        if uses_np:
            out += ["", "import numpy as np", "from numpy.typing import ArrayLike"]
        out.append("")
        out += bracket("__all__ = ", [literal(n) for n in all_names], "", "", "[", "]")
        out.append("")
        out += cat
        # ChainError first: it is public
        blocks = []
        for hb in helper_blocks:
            blocks.append(hb.split("\n"))
        error_block = [b for b in blocks if b[0].startswith("class ChainError")]
        other_helpers = [b for b in blocks if not b[0].startswith("class ChainError")]
        body_sections += error_block
        body_sections += classes
        body_sections += [lines for _, lines in public]
        body_sections += self.private
        body_sections += other_helpers
        text_out = "\n".join(out).rstrip("\n") + "\n"
        for sec in body_sections:
            text_out += "\n\n" + "\n".join(sec) + "\n"
        return text_out

    def class_lines(self, numpy: bool) -> list[list[str]]:
        m = self.model
        pyn = self.pynames[m.name]
        out = []
        typ = "np.ndarray" if numpy else "float"
        if not numpy:
            for t in m.tables.values():
                lines = [f"class {self.row_class[t.name]}(NamedTuple):"]
                body = [f"One row of table {comment(t.name)}: {comment(t.about)}" if t.about else f"One row of table {comment(t.name)}."]
                lines += doc(docstring_text(body[0]), INDENT)
                lines.append("")
                for c in t.columns:
                    desc = comment(c.description) or comment(c.formula)
                    lines.append(f"{INDENT}{pyn[('column', t.name, c.name)]}: float  # [{unit_text(c.unit)}] {desc}".rstrip())
                out.append(lines)
        lines = ["@dataclass(frozen=True, slots=True)", "class Solution:"]
        lines += doc(docstring_text(f"Every variable of {comment(m.title)}, in its display unit" + (" (arrays)." if numpy else ".")), INDENT)
        lines.append("")
        for n, v in m.variables.items():
            lines.append(f"{INDENT}{pyn[n]}: {typ}  # [{unit_text(v.unit)}] {comment(v.description)}".rstrip())
        if not numpy:
            for t in m.tables.values():
                lines.append(f"{INDENT}{pyn[('table', t.name)]}: tuple[{self.row_class[t.name]}, ...] = ()  # table {comment(t.name)}, one record per row")
        out.append(lines)
        return out


def cancelled(divisor: sp.Expr, exprs: list) -> bool:
    """Whether SymPy cancelled a division: no negative power of anything the divisor involves is left in exprs."""
    syms = divisor.free_symbols
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if isinstance(node, sp.Pow) and node.exp.is_negative and (node.base.free_symbols & syms or node.base == divisor):
                return False
    return True


def clean_text(text: str) -> str:
    return comment(text)


class _TrackingPrinter(ExprPrinter):
    """Notes whether the module needs `import math`."""

    def __init__(self, writer: ModuleWriter, names: dict, numpy: bool):
        super().__init__(names, numpy)
        self.writer = writer

    def code(self, expr, prec: int = 0) -> str:
        text = super().code(expr, prec)
        if "math." in text and not self.numpy:
            self.writer.need_math = True
        return text


def render_module(project, model: Model, options: BuildOptions, numpy: bool = False) -> str:
    return ModuleWriter(project, model, options, numpy).render()


def output_names(models: list[Model], numpy: bool) -> dict[str, Model]:
    """File name -> model, refusing two models that would write the same file (b-mangle and b.mangle are both b_mangle.py)."""
    out: dict[str, Model] = {}
    for m in models:
        name = module_name(m)
        for file in [f"{name}.py"] + ([f"{name}_np.py"] if numpy else []):
            other = out.get(file)
            if other is not None and other is not m:
                raise PythonBackendError(
                    f"models '{other.name}' ({other.path}) and '{m.name}' both compile to the Python module {file}",
                    m.loc,
                    "module names replace '-' and '.' with '_' (and add _chain to a standard-library name); rename one of the models",
                )
            out[file] = m
    return out


def build(project, models: list[Model], fmt: str, options: BuildOptions) -> list[Path]:
    output_names(models, options.numpy)  # before anything is written
    outputs = []
    for m in models:  # everything first: no partial output on error
        name = module_name(m)
        outputs.append((options.out / f"{name}.py", render_module(project, m, options)))
        if options.numpy:
            outputs.append((options.out / f"{name}_np.py", render_module(project, m, options, numpy=True)))
    written = []
    for path, text in outputs:
        write_atomic(path, text.encode("utf-8"))
        written.append(path)
    return written
