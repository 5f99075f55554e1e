"""`chainc solve MODEL --question NAME` for a search over configurations or a frontier: the choice and its table."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from ..chosen import Chosen
from ..format import fmt
from ..numbers import in_unit
from ..textout import plain


def print_chosen(out: Console, c: Chosen) -> None:
    """The sentence, the ranked table (a frontier: its rows), why the other configurations fail."""
    s = c.search
    out.print()
    what = s.ask or (f"the frontier of {s.goals[0].seek} {s.goals[0].name} and {s.goals[1].seek} {s.goals[1].name}" if c.frontier else f"{s.goals[0].seek} {s.goals[0].name}")
    out.print(Text.assemble(plain(s.name, "bold"), plain(f": {what}")))
    out.print(plain(f"  {c.sentence()}"))
    rows = c.order if c.frontier else c.order[: s.show]
    if rows:
        out.print()
        out.print(table(c, rows))
    counts: dict = {}
    for f in c.failed:
        if f:
            counts[f] = counts.get(f, 0) + 1
    if counts:
        first = next(i for i, f in enumerate(c.failed) if f)
        listed = ", ".join(f"{label} {n}" for label, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        out.print(plain(f"\n{sum(counts.values())} of {len(c.why)} configurations fail ({listed}); the first, {c.describe(first)}: {c.why[first]}"))
    for w in c.warnings:
        out.print(plain(f"\nwarning: at the best configuration, {w.message}" + (f" ({w.about})" if w.about else ""), "yellow"))


def table(c: Chosen, rows) -> RichTable:
    s, m = c.search, c.model
    t = RichTable(show_edge=False, box=None, pad_edge=False)
    t.add_column("rank", justify="right")
    goals = [g.name for g in s.goals]
    shown = [g for g in s.goals if g.name not in s.axes]  # a goal that is an axis is its column already
    names = [a.name for a in s.over] + [n for n in c.inner_names() if n not in goals] + [g.name for g in shown]
    for n in names:
        unit = m.variables[n].unit if n in m.variables else ""
        t.add_column(plain(f"{n}\n{unit}" if unit else n), justify="left" if n in ("gpu", "llm") else "right")
    warns = any(c.limits.get(i) for i in rows)
    if warns:
        t.add_column("")  # a physical limit that fails at the row
    for k, i in enumerate(rows, 1):
        cells = [str(v) if a.catalog else _num(m, a.name, v) for a, v in zip(s.over, c.configs[i])]
        cells += [_num(m, n, c.inner[j][i]) for j, n in enumerate(c.inner_names()) if n not in goals]
        cells += [_num(m, g.name, c.goals[j][i]) for j, g in enumerate(s.goals) if g in shown]
        warned = [plain(", ".join(f"{w.name} limit fails" for w in c.limits.get(i, ())), "yellow")] if warns else []
        t.add_row(str(k), *(plain(x) for x in cells), *warned)
    return t


def _num(m, name: str, base) -> str:
    if base is None:
        return "-"
    v = m.variables[name]
    return fmt(in_unit(base, v.factor), v.digits)
