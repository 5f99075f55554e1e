"""An input with choices: (lookups.py) in the workbook: a dropdown of its names, its code for the formulas.

The reader picks a name in the yellow cell (D) from a list, or leaves it empty for the default (E).
The value used (B, the named cell every formula reads) is the name's code, its place among the
choices (1, 2, ...), so a lookup prints as the IF() over codes every backend shares. A typed
name outside the list (Excel and LibreOffice refuse one as it is typed; a pasted one gets in) is
#N/A in B and everything computed from it, and the description says which names there are.
"""

from __future__ import annotations

from fractions import Fraction

from openpyxl.formatting.rule import FormulaRule
from openpyxl.worksheet.datavalidation import DataValidation

from . import domains as D
from . import xl
from .cells import BOLD, BOX, CHANGED_FILL, INPUT_FILL, INPUT_FONT, UNLOCKED, absolute


def code(node, choices: tuple):
    """IF(x="bf16",1,IF(x="fp8",2,...,NA())): a name's code; NA() for any other text."""
    out = xl.fn("NA")
    for k in range(len(choices), 0, -1):
        out = xl.fn("IF", xl.op("=", node, xl.Str(choices[k - 1])), xl.number(k), out)
    return out


def write_choice(chain, row: int, n: str, var, given: dict) -> None:
    """One input row of a choice variable (chain.Chain.inputs writes the others)."""
    sh, m = chain.sheet, chain.model
    names = var.choices
    used_code = int(chain.report.solution.values[n])
    default = names[int(var.default) - 1]
    sh.text(row, 1, n, font=BOLD)
    sh.text(row, 5, default)
    typed = sh.ws.cell(row=row, column=4)
    if n in given:
        typed.value = names[used_code - 1]
    typed.fill, typed.font, typed.protection, typed.border = INPUT_FILL, INPUT_FONT, UNLOCKED, BOX
    listed = ",".join(names)
    if len(listed) <= 255 and '"' not in listed:  # Excel's list is at most 255 characters
        dv = DataValidation(type="list", formula1=f'"{listed}"', allow_blank=True)
        dv.showErrorMessage = True
        dv.errorTitle = f"{n} is one of its choices"
        dv.error = f"{n} must be one of {', '.join(names)}."
        sh.ws.add_data_validation(dv)
        dv.add(typed.coordinate)
    tnode = xl.Cell(f"$D{row}", typed.value or "")
    dnode = xl.Cell(f"$E{row}", default)
    node = xl.fn("IF", xl.op("=", tnode, xl.Str("")), code(dnode, names), code(tnode, names))
    used = sh.formula(row, 2, node, used_code, "0")
    used.border = BOX
    sh.ws.conditional_formatting.add(f"B{row}", FormulaRule(formula=[f'AND($D{row}<>"",$D{row}<>$E{row})'], fill=CHANGED_FILL, font=BOLD))
    name = sh.define(f"{m.name}.{n}", absolute(row, 2))
    for key, col in (("var", "B"), ("input", "D"), ("default", "E")):
        chain.book.manifest.cells[(m.name, key, n)] = (sh.ws.title, f"{col}{row}")
    chain.scope.slots[n] = (xl.Cell(name, used_code), Fraction(1))
    sh.text(row, 3, "choice")
    desc = (var.description + "  " if var.description else "") + "[" + ", ".join(f"{k} {c}" for k, c in enumerate(names, 1)) + ": the code in B]"
    sh.long(row, 6, 13, desc)
    bad = xl.fn("AND", xl.op("<>", tnode, xl.Str("")), xl.fn("ISNA", code(tnode, names)))
    why = xl.op("&", xl.op("&", xl.Str(f'given {n} = "'), tnode), D.text(f"\" is not one of {n}'s choices ({', '.join(names)}): pick one from the list"))
    sh.formula(row, 6, xl.fn("IF", bad, why, D.text(desc)), desc)
    sh.flag(f"F{row}", bad)
    sh.flag(f"B{row}", bad)
