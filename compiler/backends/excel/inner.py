"""An inner question at one configuration row: question.py's layout, reading the row's cells instead of the sheet's.

QuestionCells reads a chain: its sheet, scope, report (the question's rule, its answer) and book.
`AtRow` is that chain at one configuration of a search: the scope is the row's (its axes, the
catalog values looked up by the row's ids, the inner answers before this one), the rule is the
PreparedQuestion's of the row's hardware, and the answer is the solver's at that row (the cached
value). The workings' manifest entries go to a manifest of their own, so they never replace the
chain's own question of the same name; the lists of fixed and helper cells and the notes are shared.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from .cells import Manifest


@dataclass(frozen=True)
class Answered:
    """The solver's answer of an inner question at one row, as much of an Answer as the layout caches."""

    base: object
    boundary_solution: object = None
    binding: tuple = ("",)  # a several-condition answer: truthy where a condition's own answer binds (no joint search)
    how: str = "the solver's answer at this configuration"


class _Book:
    def __init__(self, book):
        self._book = book
        m = book.manifest
        self.manifest = Manifest({}, m.fixed, m.helpers, m.notes)

    def __getattr__(self, name):
        return getattr(self._book, name)


class AtRow:
    """What QuestionCells reads of a chain, at one configuration row of a search.

    rules and answers: by question name, the inner question's and, for a several-condition one, each
    part's (the parts are written first, into this one manifest and scope, as the chain sheet does).
    """

    def __init__(self, chain, sheet, scope, rules: dict, answers: dict):
        self.sheet, self.model, self.scope = sheet, chain.model, scope
        self.book = _Book(chain.book)
        self.factor, self.describe, self.formats = chain.factor, chain.describe, chain.formats
        self.report = SimpleNamespace(asking=dict(rules), answers=dict(answers), solution=chain.report.solution)
