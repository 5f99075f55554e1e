"""Spec -> Model: parse expressions, resolve names, check units.

A `Builder` turns one YAML source into IR nodes; `load_model` drives it for a
model file, `catalog.py` for a catalog entry. Nothing here solves anything,
except that an imported model's values come from solving that model.
"""

from __future__ import annotations

import difflib
import keyword
import re
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sympy as sp

from . import expr as ex
from .asks import asks
from .deadline import budget
from .domains import symbol_for, validity, value_set
from .errors import Loc, ModelError, UnitError
from .ir import Aggregate, Column, Domain, Equation, Model, Param, Table, Variable
from .joins import join, joined_name
from .limits import LIMITS
from .lookups import choices_of, code_of, read_lookups, subscript
from .order import Cycle, topological
from .physical_load import load_limits
from .schema import MODEL_SCHEMA, validate
from .source import KeyPath, Source, load_yaml
from .suggest import close_names
from .units import DIMENSIONLESS, QUANTITY_TEXT, BadUnit, dim_str, parse_quantity, parse_unit

if TYPE_CHECKING:
    from .project import Project

RESERVED = {"gpu", "llm", "prev", "i"} | set(ex.FUNCTIONS) | set(ex.AGGREGATES) | set(ex.FINITE)
# numbers YAML 1.1 reads and chainc does not: hexadecimal, octal, binary, base 60 (1:30), infinity, not-a-number
_NOT_DECIMAL = re.compile(r"^\s*[-+]?(0[xob][0-9a-f_]+|[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?|\.?(inf|infinity|nan))\s*$", re.IGNORECASE)


class Builder:
    """Builds IR nodes from one source file; also the scope for scalar expressions."""

    def __init__(self, src: Source, project: Project | None, uses: dict[str, str] | None = None, imports: dict[str, Model] | None = None):
        self.src = src
        self.project = project
        self.uses = uses or {}  # 'gpu' -> entry id
        self.imports = imports or {}
        self.joined: dict[str, Model] = {}  # alias -> a model whose equations join this one's (joins.py)
        self.variables: dict[str, Variable] = {}
        self.symbols: set[sp.Symbol] = set()  # the variables' symbols, kept as they are declared (a set per equation made loading quadratic)
        self.params: dict[str, Param] = {}
        self.tables: dict[str, Table] = {}
        self.aggregates: dict[str, Aggregate] = {}
        self.defaults_only = False  # while parsing default values: no model variables
        self.lookups: dict = {}  # name -> lookups.Lookup

    # --- locations ------------------------------------------------------------------
    def where(self, kp: KeyPath, offset: int = 0):
        line0, col0 = self.src.marks.get(tuple(kp), (0, 0))
        if not line0:
            loc = self.src.loc(kp)
            line0, col0 = loc.line, loc.col
        return lambda line, col: self.src.at(line0 + line - 1, (col0 + offset + col) if line == 1 else col + 1)

    def fail(self, kp: KeyPath, message: str, hint: str = "", key: bool = False) -> ModelError:
        return ModelError(message, self.src.loc(kp, key=key), hint)

    # --- scope ------------------------------------------------------------------------
    def lookup(self, name: str, loc: Loc) -> ex.Term:
        if name in self.variables and not self.defaults_only:
            v = self.variables[name]
            return ex.Term(v.sym, v.dim)
        if "." in name:
            return self.param(name, loc)
        known = ([] if self.defaults_only else list(self.variables)) + list(self.params)
        close = difflib.get_close_matches(name, known, n=3)
        if self.defaults_only and name in self.variables:
            raise ModelError(f"a default value cannot use the variable '{name}'", loc, "write the relation as an equation instead")
        hint = f"did you mean {' or '.join(close)}?" if close else "declare it under variables:, or refer to a catalog value such as llm.weight_bytes"
        raise ModelError(f"unknown name '{name}'", loc, hint)

    lookup_table = subscript  # table[key] (lookups.py)

    def param(self, name: str, loc: Loc) -> ex.Term:
        if name in self.params:
            p = self.params[name]
            return ex.Term(p.sym, p.dim)
        prefix, field = name.split(".", 1)
        if prefix in ("gpu", "llm"):
            if prefix not in self.uses:
                raise ModelError(f"'{name}' needs a {prefix.upper()}, and this model uses none", loc, f"add 'uses: {{{prefix}: <id>}}'; `chainc list` shows the ids")
            spec = self.project.catalog.field(prefix, field)
            if spec is None:
                fields = self.project.catalog.fields[prefix]
                close = " or ".join(f"{prefix}.{c}" for c in close_names(field, fields))  # every close one: flops is flops_bf16 or flops_fp8
                raise ModelError(f"{prefix.upper()}s have no value '{field}'", loc, f"did you mean {close}?" if close else f"{prefix} values: {', '.join(sorted(fields))}")
            p = Param(name, spec.unit, spec.factor, spec.dim, sp.Symbol(name, positive=True), spec.description, spec.latex, loc, prefix, field)
        elif prefix in self.joined:  # a joined model's variable: one of this model's own
            other = self.joined[prefix]
            if self.defaults_only:
                raise ModelError(f"a default value cannot use the joined variable '{name}'", loc, f"write the relation as an equation instead, such as x = {name}")
            if field not in other.variables:
                close = difflib.get_close_matches(field, list(other.variables), n=3)
                raise ModelError(f"model '{other.name}' has no variable '{field}'", loc, f"did you mean {prefix}.{close[0]}?" if close else f"its variables: {', '.join(other.variables)}")
            v = self.variables[joined_name(prefix, field)]
            return ex.Term(v.sym, v.dim)
        elif prefix in self.imports:
            other = self.imports[prefix]
            if field not in other.variables:
                close = difflib.get_close_matches(field, list(other.variables), n=3)
                raise ModelError(f"model '{other.name}' has no variable '{field}'", loc, f"did you mean {prefix}.{close[0]}?" if close else f"its variables: {', '.join(other.variables)}")
            v = other.variables[field]
            p = Param(name, v.unit, v.factor, v.dim, sp.Symbol(name, real=True), v.description, v.latex, loc, prefix, field)
        else:
            aliases = list(self.uses) + list(self.imports) + list(self.joined)
            hint = f"references start with one of: {', '.join(aliases)}" if aliases else "this model uses no GPU, LLM or other model; references such as llm.weight_bytes need 'uses:'"
            raise ModelError(f"unknown reference '{name}'", loc, hint)
        self.params[name] = p
        return ex.Term(p.sym, p.dim)

    def is_table(self, name: str) -> bool:
        return name in self.tables

    def aggregate(self, kind: str, table: str, column: str | None, loc: Loc) -> ex.Term:
        t = self.tables[table]
        col = None
        if column is not None:
            col = next((c for c in t.columns if c.name == column), None)
            if col is None:
                raise ModelError(f"table '{table}' has no column '{column}'", loc, f"columns: {', '.join(c.name for c in t.columns)}")
        fname = f"{kind}_{table}" + (f".{column}" if column else "")  # the dot keeps t.c_d and t_c.d apart
        func = sp.Function(fname, real=True)
        self.aggregates[fname] = Aggregate(func, kind, table, column)
        args = [self.variables[n].sym for n in t.inputs]
        return ex.Term(func(*args), DIMENSIONLESS if kind == "count" else col.dim)

    # --- pieces -------------------------------------------------------------------------
    def expression(self, text: Any, kp: KeyPath, scope=None, offset: int = 0) -> ex.Term:
        return ex.parse_expression(str(text), self.where(kp, offset), scope or self)

    def unit(self, spec: Any, kp: KeyPath):
        text = "" if spec is None else str(spec)
        try:
            return (text.replace(" ", ""), *parse_unit(text))
        except BadUnit as e:
            raise self.fail(kp, str(e), "units are pint units: GB, GiB, TB/s, ms/token, token/s, FLOP, request") from None

    def quantity(self, value: Any, kp: KeyPath, unit_text: str, factor, dim, what: str) -> sp.Expr:
        """A value as written (number in display unit, 'number unit', or an expression of references) -> base units."""
        raw = self.src.raw.get(tuple(kp), str(value))
        if isinstance(value, bool):
            raise self.fail(kp, f"{what}: expected a number, got {raw}", "write a number, or a number and a unit such as '10 ms'")
        if _NOT_DECIMAL.match(raw):
            hint = (
                "values are finite: leave a bound out rather than write infinity"
                if re.search("inf|nan", raw, re.IGNORECASE)
                else "write numbers in decimal (YAML 1.1 reads 1:30 as 90 and 0x10 as 16; chainc does not guess)"
            )
            raise self.fail(kp, f"{what}: '{raw.strip()}' is not a decimal number", hint)
        if isinstance(value, (int, float)) or QUANTITY_TEXT.match(raw):
            try:
                number, unit = parse_quantity(raw)
            except BadUnit as e:
                raise self.fail(kp, f"{what}: {e}", LIMITS["number_chars"].how) from None
            if not unit:
                return number * factor
            try:
                _, ufactor, udim = parse_unit(unit)
            except BadUnit as e:
                raise self.fail(kp, str(e), "write a number and a unit, such as '10 ms/token'") from None
            if udim != dim:
                raise UnitError(
                    f"{what}: '{raw}' is {dim_str(udim)}, but {unit_text or 'the unit'} is {dim_str(dim)}",
                    self.src.loc(kp),
                    f"write the value in {unit_text or 'a dimensionless number'}",
                    dim_str(udim),
                    dim_str(dim),
                )
            return number * ufactor
        self.defaults_only = True
        try:
            term = self.expression(raw, kp)
        finally:
            self.defaults_only = False
        if ex.is_condition(term.dim):
            raise self.fail(kp, f"{what}: '{raw}' is a condition, not a value", "write a number, a quantity such as '10 ms', or an expression of catalog values")
        if not ex.same_dim(term.dim, dim):
            hint = f"write it in {unit_text}, or change the variable's unit" if unit_text else "a dimensionless value: divide by a unit, or give the variable a unit"
            raise UnitError(f"{what}: '{raw}' is {dim_str(term.dim)}, but {unit_text or 'the unit'} is {dim_str(dim)}", self.src.loc(kp), hint, dim_str(term.dim), dim_str(dim))
        return term.expr

    def declare(self, name: str, spec: dict, kp: KeyPath) -> Variable:
        if name in RESERVED or keyword.iskeyword(name):
            raise self.fail(kp, f"'{name}' is a reserved word and cannot name a variable", "pick another name", key=True)
        unit_text, _, factor, dim = self.unit(spec.get("unit"), kp + ("unit",))
        choices, domain = choices_of(self, name, spec, kp) if "choices" in spec else ((), Domain(spec.get("domain", "positive"), bool(spec.get("integer", False))))
        v = Variable(
            name,
            unit_text if unit_text != "1" else "",
            factor,
            dim,
            symbol_for(name, domain),
            spec.get("description", ""),
            spec.get("symbol", ""),
            self.src.loc(kp, key=True),
            domain=domain,
            digits=spec.get("digits"),
            choices=choices,
        )
        self.variables[name] = v
        self.symbols.add(v.sym)
        return v

    def finish_variable(self, v: Variable, spec: dict, kp: KeyPath) -> Variable:
        """Defaults and bounds may refer to catalog values, so they come after declarations."""
        changes: dict[str, Any] = {}
        if spec.get("value") is not None:
            value, at, what = spec["value"], kp + ("value",), f"default of {v.name}"
            changes["default"] = code_of(self, v, value, at, what) if v.choices else self.quantity(value, at, v.unit, v.factor, v.dim, what)
        lo = self.quantity(spec["min"], kp + ("min",), v.unit, v.factor, v.dim, f"min of {v.name}") if "min" in spec else None
        hi = self.quantity(spec["max"], kp + ("max",), v.unit, v.factor, v.dim, f"max of {v.name}") if "max" in spec else None
        if "values" in spec or lo is not None or hi is not None:  # a finite set has its own ends
            changes["domain"] = value_set(self, v, spec, kp) if "values" in spec else Domain(v.domain.kind, v.domain.integer, lo, hi)
        if changes:
            v = replace(v, **changes)
            self.variables[v.name] = v
        return v

    def equation(self, index: int, item: Any, kp: KeyPath) -> Equation:
        about, valid = "", validity(self, item["valid_when"], kp + ("valid_when",)) if isinstance(item, dict) and "valid_when" in item else ()
        if isinstance(item, dict):
            about, item, kp = item.get("about", ""), item["equation"], kp + ("equation",)
        text = str(item)
        lhs_text, rhs_text, offset = ex.split_equation(text, self.where(kp))
        lhs = self.expression(lhs_text, kp)
        rhs = self.expression(rhs_text, kp, offset=offset)
        for side, term in (("left", lhs), ("right", rhs)):
            if ex.is_condition(term.dim):
                raise self.fail(kp, f"the {side} side of the equation is a condition", "use if(cond, a, b) to pick a value")
        if not ex.same_dim(lhs.dim, rhs.dim):
            raise UnitError(
                f"the sides of '{text.strip()}' differ: left is {dim_str(lhs.dim)}, right is {dim_str(rhs.dim)}",
                self.src.loc(kp),
                "a unit literal such as 1[token] or 1[request] may be missing on one side",
                dim_str(lhs.dim),
                dim_str(rhs.dim),
            )
        if self.symbols.isdisjoint(lhs.expr.free_symbols) and self.symbols.isdisjoint(rhs.expr.free_symbols):
            raise self.fail(kp, f"'{text.strip()}' involves no variable", "an equation relates variables of the model")
        return Equation(index, text.strip(), lhs.expr, rhs.expr, self.src.loc(kp), about, tuple(dict.fromkeys(lhs.guards + rhs.guards)), valid)

    def table(self, name: str, spec: dict, kp: KeyPath) -> Table:
        if name in RESERVED or name in self.variables or keyword.iskeyword(name):
            raise self.fail(kp, f"table name '{name}' is taken", "tables, variables and references need distinct names", key=True)
        index = sp.Symbol(f"{name}.i", positive=True, integer=True)
        cols: dict[str, Column] = {}
        specs = spec["columns"]
        for cname, cspec in specs.items():
            ckp = kp + ("columns", cname)
            if cname in RESERVED or keyword.iskeyword(cname):
                raise self.fail(ckp, f"'{cname}' is a reserved word and cannot name a column", "pick another name", key=True)
            unit_text, _, factor, dim = self.unit(cspec.get("unit"), ckp + ("unit",))
            cols[cname] = Column(
                cname,
                unit_text if unit_text != "1" else "",
                factor,
                dim,
                sp.Symbol(f"{name}.{cname}", real=True),
                cspec.get("description", ""),
                cspec.get("symbol", ""),
                self.src.loc(ckp, key=True),
                formula=str(cspec["formula"]),
                prev=sp.Symbol(f"{name}.prev.{cname}", real=True),
            )
        scope = _TableScope(self, name, index, cols)
        deps = []
        built = {}
        for cname, c in cols.items():
            ckp = kp + ("columns", cname)
            term = self.expression(c.formula, ckp + ("formula",), scope)
            if ex.is_condition(term.dim):
                raise self.fail(ckp + ("formula",), f"column {name}.{cname}: the formula is a condition, not a number", "use if(cond, a, b) to pick a value, such as if(x > 0, 1, 0)")
            if not ex.same_dim(term.dim, c.dim):
                raise UnitError(
                    f"column {name}.{cname}: the formula is {dim_str(term.dim)}, the unit {c.unit or '1'} is {dim_str(c.dim)}",
                    self.src.loc(ckp + ("formula",)),
                    "give the column the formula's unit, or fix the formula; a unit literal such as 1[token] may be missing",
                    dim_str(term.dim),
                    dim_str(c.dim),
                )
            initial = self.quantity(specs[cname]["initial"], ckp + ("initial",), c.unit, c.factor, c.dim, f"initial of {cname}") if "initial" in specs[cname] else sp.Integer(0)
            built[cname] = replace(c, expr=term.expr, initial=initial, guards=term.guards)
            for other in cols.values():
                if other.sym in term.expr.free_symbols:
                    deps.append((other.name, cname))
        try:
            order = topological(cols, deps)
        except Cycle as loop:
            cycle = " -> ".join(loop.nodes)
            raise self.fail(kp + ("columns",), f"table '{name}': columns depend on each other in a loop: {cycle}", "refer to the previous row with prev.<column>") from None
        rows = self.expression(spec["rows"], kp + ("rows",))
        if ex.is_condition(rows.dim):
            raise self.fail(kp + ("rows",), f"table '{name}': rows is a condition, not a count", "write a whole number or a count such as ceil(prompt / budget)")
        if rows.dim not in (DIMENSIONLESS, ex.ANY):
            raise UnitError(
                f"table '{name}': rows must be a dimensionless count, not {dim_str(rows.dim)}",
                self.src.loc(kp + ("rows",)),
                "divide by a unit, e.g. ceil(prompt / budget)",
                dim_str(rows.dim),
                "dimensionless",
            )
        columns = tuple(built[c] for c in order)
        used = set().union(rows.expr.free_symbols, *[c.expr.free_symbols | c.initial.free_symbols for c in columns])
        inputs = tuple(sorted(n for n, v in self.variables.items() if v.sym in used))
        t = Table(name, spec.get("about", ""), rows.expr, str(spec["rows"]), columns, index, inputs, int(spec.get("max_rows", LIMITS["table_rows"].default)), self.src.loc(kp, key=True))
        self.tables[name] = t
        return t


class _TableScope:
    """Names inside a column formula: i, prev.<column>, this row's columns, then scalars."""

    def __init__(self, builder: Builder, table: str, index: sp.Symbol, cols: dict[str, Column]):
        self.b, self.table, self.index, self.cols = builder, table, index, cols

    def lookup(self, name: str, loc: Loc) -> ex.Term:
        if name == "i":
            return ex.Term(self.index, DIMENSIONLESS)
        if name in self.cols:
            return ex.Term(self.cols[name].sym, self.cols[name].dim)
        if name.startswith("prev."):
            cname = name[5:]
            if cname not in self.cols:
                raise ModelError(f"no column '{cname}' for prev.{cname}", loc, f"columns: {', '.join(self.cols)}")
            return ex.Term(self.cols[cname].prev, self.cols[cname].dim)
        return self.b.lookup(name, loc)

    def aggregate(self, kind, table, column, loc):
        raise ModelError("aggregates cannot be used inside a table", loc, "compute the aggregate in a scalar equation")

    def is_table(self, name: str) -> bool:
        return name == self.table or self.b.is_table(name)  # so that sum(t.c) in a column is refused as an aggregate

    lookup_table = property(lambda self: self.b.lookup_table)  # table[key] reads the model's lookups


# --- the model file -------------------------------------------------------------------------


class Pending(Exception):
    """Raised by Project.imported inside a load: the file imports `path`, not loaded yet. Project.load loads it first."""

    def __init__(self, path: Path):
        super().__init__(str(path))
        self.path = path
        self.src: Source | None = None  # the importing file's parsed source: its second reading does not parse it again


def read_model(path: str | Path, text: str | None = None) -> Source:
    """A model file parsed and checked against the schema."""
    src = load_yaml(path, text)
    if not isinstance(src.data, dict):
        raise ModelError("a model file is a YAML mapping", src.loc(()), "start with 'name:', 'title:', 'variables:' and 'equations:'")
    validate(src, MODEL_SCHEMA)
    return src


def load_model(path: str | Path, project: Project, text: str | None = None, src: Source | None = None) -> Model:
    """A model file -> Model; its imports come from the project (Project.load loads them first, deepest first)."""
    src = src or read_model(path, text)
    with budget("loading the model", src.loc()):  # SymPy building an expression can take minutes
        return _load_model(path, project, src)


def _load_model(path: str | Path, project: Project, src: Source) -> Model:
    d = src.data
    stem = Path(path).stem
    if d["name"] != stem:
        raise ModelError(
            f"model name '{d['name']}' differs from its file name '{stem}'",
            src.loc(("name",)),
            f"the command line finds models by file name: write name: {stem}, or rename the file to {d['name']}.yaml",
        )
    uses = {k: str(v) for k, v in (d.get("uses") or {}).items() if k in ("gpu", "llm")}
    for kind, entry in uses.items():
        if project.catalog.entry(kind, entry) is None:
            ids = project.catalog.ids(kind)
            close = difflib.get_close_matches(entry, ids, n=1)
            raise ModelError(f"unknown {kind.upper()} '{entry}'", src.loc(("uses", kind)), f"did you mean {close[0]}?" if close else f"known: {', '.join(ids)}")
    imports, joined = {}, {}
    for alias, spec in ((d.get("uses") or {}).get("models") or {}).items():
        at = src.loc(("uses", "models", alias))
        if alias in RESERVED or alias in d["variables"]:
            raise ModelError(f"import alias '{alias}' is taken", src.loc(("uses", "models", alias), key=True), "pick another alias")
        other = str(spec["model"] if isinstance(spec, dict) else spec)
        try:  # loops and the import_depth limit are the project's to see: it holds the chain of files being loaded
            model = project.imported(other, at, near=Path(path).parent)
        except Pending as p:
            p.src = src  # read again once the import is loaded, from this parse
            raise
        if isinstance(spec, dict):
            joined[alias] = (model, dict(spec.get("given") or {}))
        else:
            imports[alias] = model
    b = Builder(src, project, uses, imports)
    b.lookups = read_lookups(b, d.get("lookups"), d["variables"])
    specs = d["variables"]
    for name, spec in specs.items():
        b.declare(name, spec or {}, ("variables", name))
    bindings = []
    for alias, (model, given) in joined.items():
        kp = ("uses", "models", alias)
        variables, params, eqs = join(alias, model, given, uses, set(b.variables), src.loc(kp))
        b.variables.update(variables)
        b.symbols.update(v.sym for v in variables.values())
        b.params.update((k, v) for k, v in params.items() if v.source in ("gpu", "llm"))
        b.joined[alias] = model
        bindings.append((alias, model, given, eqs))
    for name, spec in specs.items():
        b.finish_variable(b.variables[name], spec or {}, ("variables", name))
    for name, spec in (d.get("tables") or {}).items():
        b.table(name, spec, ("tables", name))
    equations = [b.equation(i, item, ("equations", i)) for i, item in enumerate(d["equations"])]
    for alias, model, given, eqs in bindings:  # the joined equations, then each bound input = the importer's expression
        equations += eqs
        for name, text in given.items():
            kp = ("uses", "models", alias, "given", name)
            target = b.variables[joined_name(alias, name)]
            term = b.expression(text, kp)
            if not ex.same_dim(term.dim, target.dim):
                raise UnitError(
                    f"{alias}.{name} is bound to '{text}', which is {dim_str(term.dim)}, but {alias}.{name} is {dim_str(target.dim)}",
                    b.src.loc(kp),
                    f"write it in {target.unit or 'a dimensionless value'}",
                    dim_str(term.dim),
                    dim_str(target.dim),
                )
            equations.append(Equation(0, f"{alias}.{name} = {text}", target.sym, term.expr, b.src.loc(kp), f"binds {model.name}'s {name}", term.guards))
    equations = tuple(replace(eq, index=i) for i, eq in enumerate(equations))
    questions, checks, sweeps, searches = asks(b, d)
    return Model(
        name=d["name"], title=d["title"], about=(d.get("about") or "").strip(), path=str(path),
        gpu=uses.get("gpu"), llm=uses.get("llm"), imports=tuple(imports.items()),
        variables=dict(b.variables), params=dict(sorted(b.params.items())), equations=equations, tables=dict(b.tables),
        aggregates=dict(sorted(b.aggregates.items())), questions=questions, checks=checks, sweeps=sweeps, loc=src.loc(()),
        expected_from=str(d.get("expected_from") or "").strip(), limits=load_limits(b, d.get("limits")), searches=searches,
    )  # fmt: skip
