"""What one generated module knows before it prints: names, hardware, and the Programs it prints.

A module is written for one Report (its model, evaluated on the build's hardware)
and the CatalogReport. Its models are the Report's model and every model it
imports, each with identifiers for its variables, tables and columns. Each Program
the module runs (the forward solve, each question's programs, the build's custom
query, every import's forward solve) is printed once, as a private function.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ... import program as P
from ...results import CatalogReport, Report
from .names import BODY_NAMES, MODULE_RESERVED, Names, camel


@dataclass
class ModelNames:
    """One model's identifiers: variables and tables (one namespace), columns per table, row classes."""

    report: Report
    mid: str  # the model as part of private names: '_solve_goodput'
    variables: dict[str, str] = field(default_factory=dict)
    tables: dict[str, str] = field(default_factory=dict)
    columns: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def model(self):
        return self.report.model

    def kinds(self) -> list[str]:
        return [k for k in ("gpu", "llm") if getattr(self.model, k)]


def model_names(report: Report, mid: str) -> ModelNames:
    m = report.model
    out = ModelNames(report, mid)
    ns = Names(BODY_NAMES)
    for name in m.variables:
        out.variables[name] = ns.take(name)
    for name, t in m.tables.items():
        out.tables[name] = ns.take(name, "t")
        cols = Names(BODY_NAMES | {"count", "index"})
        out.columns[name] = {c.name: cols.take(c.name, "c") for c in t.columns}
    return out


class Context:
    """A module being written: its models, hardware, module-level names and the Programs to print."""

    def __init__(self, report: Report, catalog: CatalogReport, numpy: bool):
        self.report = report
        self.catalog = catalog
        self.numpy = numpy
        self.globals = Names(MODULE_RESERVED)
        self.models: list[ModelNames] = []
        self._by_report: dict[int, ModelNames] = {}
        private = Names(set())
        self._visit(report, private)
        self.main = self.models[0]
        # hardware: the kinds any model reads, the fields of each, the main model's default entries
        self.kinds = [k for k in ("gpu", "llm") if any(getattr(mn.model, k) for mn in self.models)]
        self.fields = {k: sorted({p.field_name for mn in self.models for p in mn.model.params.values() if p.source == k}) for k in self.kinds}
        self.default = {k: e.id for k, e in (("gpu", report.gpu), ("llm", report.llm)) if e is not None}
        self.constants = {}
        for k in self.kinds:
            if k in self.default:
                for f in self.fields[k]:
                    self.constants[(k, f)] = self.globals.take(f"{k}_{f}".upper(), "FIELD")
        self.row_class = {t: self.globals.take(camel(self.main.tables[t]) + "Row", "Row") for t in self.main.model.tables}
        self.programs: dict[tuple[int, bool], tuple[P.Program, str, ModelNames]] = {}  # (id(program), quiet) -> (program, function name, model)
        self._private = Names(set())

    def _visit(self, report: Report, private: Names) -> None:
        """The report and every report it imports, each once, importers first (a stack: a chain may be thousands deep)."""
        todo = [report]
        while todo:
            r = todo.pop()
            if id(r) in self._by_report:
                continue
            mn = model_names(r, private.take(r.model.name.replace("-", "_").replace(".", "_"), "m"))
            self.models.append(mn)
            self._by_report[id(r)] = mn
            todo.extend(r.imports[alias] for alias in sorted(r.imports, reverse=True))

    def of(self, report: Report) -> ModelNames:
        return self._by_report[id(report)]

    def program(self, program: P.Program, purpose: str, mn: ModelNames, quiet: bool = False) -> str:
        """The private function that runs `program` (named for its first purpose: '_solve_goodput').

        quiet: its NumPy form that marks the points without a value instead of raising ('_quiet_solve_goodput').
        """
        key = (id(program), quiet)
        if key not in self.programs:
            name = "_" + self._private.take(f"quiet_{purpose}" if quiet else purpose, "program")
            self.programs[key] = (program, name, mn)
        return self.programs[key][1]

    def private(self, purpose: str) -> str:
        return "_" + self._private.take(purpose, "f")

    def entry_values(self, kind: str):
        """(entry, {field: value in the field's unit, or None}) for every catalog entry of a kind."""
        specs = self.catalog.fields[kind]
        for entry, values in self.catalog.entries[kind]:
            shown = {}
            for f in self.fields[kind]:
                v = values.get(f)
                shown[f] = None if v is None else (Fraction(v) / Fraction(specs[f].factor) if not isinstance(v, float) else v / float(specs[f].factor))
            yield entry, shown
