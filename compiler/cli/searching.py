"""`chainc solve MODEL --question NAME` for a search over configurations or a frontier: the choice and its table.

The words are chosen_words', which the derivation sheet typesets too: the question, what is varied,
the best (or the frontier), where it sits, what binds, the table, and why the others fail.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from .. import chosen_words as words
from ..chosen import Chosen
from ..textout import plain


def print_chosen(out: Console, c: Chosen) -> None:
    """The question and its answer, the ranked table (a frontier: its points), why the other configurations fail."""
    s = c.search
    out.print()
    out.print(Text.assemble(plain(s.name, "bold"), plain(f": {s.ask or words.question(c)}")))
    if s.ask:
        out.print(plain(f"  {words.question(c)}"))
    lines = [("searched", words.size(c))] if s.over else []
    lines += [(f"  {name}" if s.over else name, what) for name, what in words.varied(c)]
    lines += [("such that" if k == 0 else "", f"{x.label}: {x.text}") for k, x in enumerate(s.conditions)]
    if c.frontier:
        lines.append(("frontier", words.frontier(c)))
    elif c.best is None:
        lines.append(("answer", words.none(c)))
    else:
        lines.append(("best", words.best(c)))
        lines += [("where", p) for p in words.placement(c)]
        if any(c.failed):
            lines.append(("binding", words.binding(c)))
    out.print(_labelled(lines))
    rows = words.shown_rows(c)
    if rows:
        out.print()
        out.print(table(c, rows))
    failures = words.failures(c)
    if failures:
        out.print(plain(f"\n{words.failing(c)}:"))
        out.print(_labelled([(f"  {f.label}", f"{words.plural(f.count, 'configuration')}; the first, {words.config(c, f.example)}: {f.reason}") for f in failures]))
    for w in c.warnings:
        out.print(plain(f"\nwarning: at the best configuration, {w.message}" + (f" ({w.about})" if w.about else ""), "yellow"))


def _labelled(lines: list[tuple[str, str]]) -> RichTable:
    """Label and text in two columns: the text wraps under itself, not under the label."""
    t = RichTable(show_header=False, show_edge=False, box=None, pad_edge=False, padding=(0, 1, 0, 0))
    t.add_column(no_wrap=True)
    t.add_column()
    for label, text in lines:
        t.add_row(plain("  " + label), plain(text))
    return t


def table(c: Chosen, rows) -> RichTable:
    t = RichTable(show_edge=False, box=None, pad_edge=False)
    t.add_column("rank", justify="right")
    for name, unit, catalog in words.columns(c):
        t.add_column(plain(f"{name}\n{unit}" if unit else name), justify="left" if catalog else "right")
    warns = any(c.limits.get(i) for i in rows)
    if warns:
        t.add_column("")  # a physical limit that fails at the row
    for k, i in enumerate(rows, 1):
        warned = [plain(", ".join(f"{w.name} limit fails" for w in c.limits.get(i, ())), "yellow")] if warns else []
        t.add_row(str(k), *(plain(x) for x in words.cells(c, i)), *warned)
    return t
