"""A structured derivation: what a derivation sheet and `chainc solve --explain` print.

- shown.py: values as a person reads them (`Shown`);
- literals.py: unit literals (`1[token]`) put back into the printed forms (`Dims`, `LITERALS`);
- steps.py: `derive(solution)`, the plan's steps with their forms, substitutions and results;
- sheet.py: `sheet(report)`, everything a derivation sheet shows around the steps;
- searches.py: its searches over configurations and frontiers (the Report's choices).

Everything here is data (SymPy expressions, base-unit values, Shown numbers);
printers (compiler/backends/latex/, compiler/backends/text.py) decide how it looks.
"""

from __future__ import annotations

from .literals import LITERALS, Dims
from .searches import SearchView
from .sheet import CatalogUse, CheckView, Expected, Input, Mover, Movers, QuestionView, Relation, Rounding, Sheet, TableView, sheet
from .shown import Shown, shown, shown_boundary
from .steps import Step, aggregate_info, closed_form, derive

__all__ = [
    "LITERALS", "CatalogUse", "CheckView", "Dims", "Expected", "Input", "Mover", "Movers", "QuestionView", "Relation", "Rounding", "SearchView", "Sheet", "Shown", "Step", "TableView",
    "aggregate_info", "closed_form", "derive", "sheet", "shown", "shown_boundary",
]  # fmt: skip
