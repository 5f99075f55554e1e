"""A sheet's searches over configurations and frontiers: the Report's choice, with what the printers need around it.

The numbers are the Report's (`Report.searches`, each a chosen.Chosen, and `Report.choosing`, its
prepared grid): nothing here solves. The words they are said in are chosen_words', shared with the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ChaincError
from ..ir import Choose
from ..results import Report


@dataclass(frozen=True)
class SearchView:
    search: Choose
    chosen: object | None  # chosen.Chosen; None where the search has no answer at all (error says why)
    error: str
    free_range: tuple | None  # the free variable's (lo, hi), base units, as the search ran it
    hardware: str  # the GPU and LLM every configuration shares (an axis that varies one leaves it out)


def searches(report: Report) -> list[SearchView]:
    model, s = report.model, report.solution
    out = []
    for name, search in model.searches.items():
        c = report.searches.get(name)
        if c is None:  # the report was made without its answers
            continue
        pc = report.choosing.get(name)
        free = pc.free[1:] if pc is not None and pc.free else None
        fixed = " with ".join(e.title for kind, e in (("gpu", s.gpu), ("llm", s.llm)) if e is not None and kind not in search.axes)
        if isinstance(c, ChaincError):
            out.append(SearchView(search, None, c.message, free, fixed))
        else:
            out.append(SearchView(search, c, "", free, fixed))
    return out
