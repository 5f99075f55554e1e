"""How results read in a REPL and a notebook: short reprs, HTML tables, display units first.

Values inside are exact numbers in base units (bits, seconds, tokens); a reader
sees display units: `r["tpot"]` is a pint Quantity in ms/token, `r.value("tpot")`
a float in ms/token (an int for a whole-number variable), `r.display("tpot")` that
number rounded as the CLI prints it, and `r.base("tpot")` the exact base-unit value.
The mixins here give Solution, Answer and Report their `__repr__`, `_repr_html_`
and `_repr_markdown_`.
"""

from __future__ import annotations

import html

from .format import fmt
from .numbers import display, exact

SHOWN = 6  # values a repr shows before "... and N more"


class Values:
    """Reading a solution's values in display units. Needs `self.solution` (a Solution)."""

    def value(self, name: str) -> float | int:
        """The value of a variable, parameter or column aggregate in its display unit: a float, an int for a whole-number variable."""
        s = self.solution
        q = s.model.quantity(name)
        if q is None:
            raise KeyError(f"{s.model.name} has no value '{name}'")
        return shown_number(s.values[name], q)

    def base(self, name: str):
        """The exact value in base units (bits, seconds, tokens): a Fraction where the model is rational, else a float."""
        s = self.solution
        if s.model.quantity(name) is None:
            raise KeyError(f"{s.model.name} has no value '{name}'")
        return exact(s.values[name])

    def quantity(self, name: str):
        """The value as a pint Quantity in its display unit (pint is imported on first use)."""
        q = self.solution.model.quantity(name)
        if q is None:
            raise KeyError(f"{self.solution.model.name} has no value '{name}'")
        return as_quantity(self.value(name), q.unit)

    def __getitem__(self, name: str):
        return self.quantity(name)

    def rows(self, found=()) -> list[tuple[str, str, str, str, str]]:
        """(kind, name, value, unit, description) for every variable, as the CLI's table shows them.

        found: the variables a question found (an Answer's solution holds its answer as a given): labelled found.
        """
        s = self.solution
        out = []
        for n, v in s.model.variables.items():
            kind = "found" if n in found else "given" if n in s.given else "input" if n in s.known else "numeric" if n in s.numeric else ""
            x = self.value(n)
            out.append((kind, n, x if isinstance(x, str) else fmt(x, v.digits), v.unit, v.description))
        return out

    def to_dataframe(self):
        """The values as a pandas DataFrame (pandas is optional: `pip install pandas`)."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_dataframe() needs pandas: pip install pandas") from None
        s = self.solution
        data = [(n, self.value(n), v.unit, v.description, kind) for (kind, n, _, _, _), (_, v) in zip(self.rows(), s.model.variables.items())]
        return pd.DataFrame(data, columns=["name", "value", "unit", "description", "kind"]).set_index("name")

    def _title(self) -> str:
        s = self.solution
        hardware = ", ".join(e.title for e in (s.gpu, s.llm) if e)
        return f"{s.model.title} ({s.model.name}{', ' + hardware if hardware else ''})"

    def _summary(self) -> list[str]:
        s = self.solution
        rows = self.rows()
        computed = [r for r in rows if r[0] not in ("input", "given")]
        shown = [f"{n} = {v} {u}".rstrip() for _, n, v, u, _ in computed[:SHOWN]]
        more = len(computed) - SHOWN
        given = ", ".join(f"{n}={v} {u}".rstrip() for k, n, v, u, _ in rows if k == "given" and n in s.given)
        warned = [f"warning: {w.message}" for w in getattr(s, "warnings", ())]  # physical limits that fail
        return [("given " + given) if given else "", ", ".join(shown) + (f", ... and {more} more" if more > 0 else ""), *warned]

    def _html_values(self, found=()) -> str:
        cells = "".join(
            f"<tr><td>{html.escape(k)}</td><td><code>{html.escape(n)}</code></td><td style='text-align:right'>{html.escape(v)}</td><td>{html.escape(u)}</td><td>{html.escape(d)}</td></tr>"
            for k, n, v, u, d in self.rows(found)
        )
        warned = "".join(
            f"<p style='color:#9c5700'><b>warning</b>: {html.escape(w.message)}" + (f" ({html.escape(w.about)})" if w.about else "") + "</p>" for w in getattr(self.solution, "warnings", ())
        )
        return warned + f"<table><thead><tr><th></th><th>name</th><th>value</th><th>unit</th><th>description</th></tr></thead><tbody>{cells}</tbody></table>"


def as_quantity(value, unit: str):
    """A display-unit number as a pint Quantity (pint is imported here, on first use: the core never needs it)."""
    from .units import ureg

    return ureg.Quantity(value, unit.replace("^", "**") or "dimensionless")


def shown_number(base, q):
    """A base-unit value in q's display unit: a float, an int for a whole number of a whole-number variable
    (the exact Fraction where a float cannot hold it: 1e400)."""
    if getattr(q, "choices", ()):
        return label(base, q)
    x = display(base, q.factor)
    domain = getattr(q, "domain", None)
    return int(x) if isinstance(x, float) and domain is not None and domain.integer and x.is_integer() else x


def label(base, q) -> str:
    """The name a choice variable's code stands for (lookups.py)."""
    return q.choices[int(base) - 1]


def rounded(base, q):
    """shown_number rounded as the CLI prints it (q.digits significant figures, never rounding away integer digits)."""
    x = shown_number(base, q)
    if not isinstance(x, (int, float)):
        return x  # exact, beyond a float's range: fmt() prints it from its digits
    text = fmt(x, getattr(q, "digits", None)).replace(",", "")
    try:
        r = float(text)
    except ValueError:  # inf, nan: as they are
        return x
    return int(r) if isinstance(x, int) else r


def short(kind: str, lines: list[str]) -> str:
    body = "\n  ".join(line for line in lines if line)
    return f"<{kind} {body}>"
