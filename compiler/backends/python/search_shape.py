"""What a search's functions are printed from: its program, its arguments, the hardware's values, its inner rules.

`Shape` reads a prepared search (choosing.PreparedChoose, from `Report.choosing`) once for both
flavours' printers (searches.py, searches_np.py); a search it cannot print raises Unprintable, which
the module records as a gap.
"""

from __future__ import annotations

from ... import program as P
from ...numbers import exact
from .names import literal, number


class Unprintable(Exception):
    """A search this backend cannot print, in words for the module's gap list."""


class Shape:
    """What a search's functions take and compute: its programs, inputs, hardware values and inner rules."""

    def __init__(self, module, pc):
        ctx, mn = module.ctx, module.ctx.main
        m = mn.model
        self.pc, self.search, self.model = pc, pc.search, m
        prepared = [p for p in pc.at.values() if hasattr(p, "program")]
        if not prepared:
            raise Unprintable(f"search {pc.search.name} (no hardware it searches has the values the model reads: {next(iter(pc.at.values())).message})")
        rules = [[q.rule for _, q in pc.inner[k]] for k, v in pc.at.items() if hasattr(v, "program")]
        if len({id(p.program) for p in prepared}) > 1 or any(r != rules[0] for r in rules):
            raise Unprintable(f"search {pc.search.name} (its configurations' hardware plans the model differently)")
        self.program = prepared[0].program
        hw = next(k for k, v in pc.at.items() if v is prepared[0])
        self.free = pc.free
        self.axes = [a.name for a in self.search.over]
        self.varied = {a.name for a in self.search.over if not a.catalog} | {v for v, _ in self.search.inner} | ({pc.free[0]} if pc.free else set())
        self.fixed_kinds = [k for k in mn.kinds() if k not in self.axes]
        self.known = [n for n in m.variables if n in self.program.inputs]
        self.arguments = [n for n in self.known if n not in self.varied]
        self.row_arguments = [n for n in self.known if n not in {v for v, _ in self.search.inner}]
        self.params = list(m.params)
        self.inner = []  # (variable, question, rule function, its inputs, vector rule, its inputs)
        available = set(self.known) | set(m.params)
        for var, pq in pc.inner[hw]:
            q = pq.rule.question.name
            own = module.ctx.report.asking.get(q)
            if q not in module.rules or not (own is pq.rule or repr(own) == repr(pq.rule)):  # the same plan (a cleared plan cache makes a copy)
                raise Unprintable(f"search {self.search.name} (its question {q} is planned otherwise inside the search than on its own)")
            fn, inputs = module.rules[q]
            missing = [n for n in inputs if n not in available]
            if missing:
                raise Unprintable(f"search {self.search.name} (its question {q} reads {missing[0]}, which the search does not know)")
            vector = module.vector_rules.get(q, (None, ()))
            self.inner.append((var, q, fn, inputs, *vector))
            available.add(var)
        self.defaulted = [n for n in self.known if n not in self.varied and m.variables[n].default is not None and m.variables[n].default.free_symbols]
        for n in self.defaulted:
            reads = {str(x).split(".", 1)[0] if "." in str(x) else str(x) for x in m.variables[n].default.free_symbols}
            if reads & ({v for v, _ in self.search.inner} | ({pc.free[0]} if pc.free else set())):
                raise Unprintable(f"search {self.search.name} (the default of {n} reads what the search answers)")
        self.ctx = ctx

    def whole_catalog(self, axis) -> bool:
        """The axis lists every entry of its kind, in the catalog's order: the module's GPUS (LLMS) dict, as it stands when called."""
        return tuple(axis.values) == tuple(e.id for e, _ in self.ctx.catalog.entries[axis.name])


def read(shape: Shape) -> set:
    """What the rest of a row reads of the program's outputs: the goals and the conditions' names."""
    out = {g.name for g in shape.search.goals}
    for _, _, cmp, guards in shape.pc.conditions:
        out |= P.refs(cmp) | set().union(*(P.refs(x) for g in guards for x in g))
    return out


def side_label(m, side) -> str:
    """(name, unit, factor) of a side that is a variable (the solver's failing_sides shows its name), else None."""
    if isinstance(side, P.Ref) and side.name in m.variables:
        v = m.variables[side.name]
        return f"({literal(side.name)}, {literal(v.unit)}, {number(exact(v.factor))})"
    return "None"


def default_expr(m, name: str):
    from .arguments import _default_expr as default

    return default(m, name)
