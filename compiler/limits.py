"""Every bound chainc puts on its input, in one table: what it bounds, its default, how to raise it.

A limit stops a small hostile file (nested YAML aliases, a 5,000-digit number) from
taking minutes or gigabytes. Where a real model could need more, an environment
variable raises the limit; the error that hits one names it. To add a limit, add a
row here and read it with ``limit("name")`` where it is enforced; docs/security.md
lists them all.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .errors import ArgumentError


@dataclass(frozen=True)
class Limit:
    name: str
    default: int
    env: str | None  # the environment variable that overrides the default; None: fixed
    bounds: str  # what it bounds, as a sentence fragment for messages and docs
    how: str  # how to live with it, or raise it, for the hint

    def value(self) -> int:
        """The limit in force: the environment variable's value if set (1_000 and 1,000 too), else the default."""
        text = os.environ.get(self.env, "").strip() if self.env else ""
        if not text:
            return self.default
        digits = text.replace("_", "").replace(",", "")
        if not digits.isdigit() or int(digits) < 1:
            raise ArgumentError(
                f"{self.env}={text!r} is not a positive whole number", None, f"write {self.env}=<a whole number>, or unset it for the default, {self.default:,}; it bounds {self.bounds}"
            )
        return int(digits)


LIMITS = {
    limit.name: limit
    for limit in (
        # YAML files: a model, a catalog entry, a fields.yaml
        Limit(
            "yaml_bytes",
            16 << 20,
            "CHAINC_MAX_YAML_BYTES",
            "the size of one YAML file, in bytes, and so the values it holds itself",
            "a 100,000-equation model is about 6 MB; if this file is real, raise the limit, e.g. CHAINC_MAX_YAML_BYTES=100000000 (reading takes about 300 bytes of memory per byte of a file of short values)",
        ),
        Limit(
            "yaml_alias_nodes",
            10_000,
            "CHAINC_MAX_YAML_NODES",
            "the values that aliases add to one YAML file, counting each use of an alias (*name) as a copy of what it names",
            "aliases that repeat aliases multiply (a 'billion laughs' file); if this file is real, raise the limit, e.g. CHAINC_MAX_YAML_NODES=100000",
        ),
        Limit(
            "yaml_depth",
            100,
            "CHAINC_MAX_YAML_DEPTH",
            "how deeply the mappings and lists of one YAML file nest, aliases expanded",
            "a model nests six levels deep; if this file is real, raise the limit, e.g. CHAINC_MAX_YAML_DEPTH=200 (Python's own recursion limit stops a few hundred levels)",
        ),
        # models that import models
        Limit(
            "import_depth",
            100,
            "CHAINC_MAX_IMPORT_DEPTH",
            "how many imports deep a chain of models goes (a model importing goodput: 1; one importing that model: 2)",
            "a chain of imports is a few models long; if this one is real, raise the limit, e.g. CHAINC_MAX_IMPORT_DEPTH=1000",
        ),
        # names and units
        Limit("name_chars", 100, None, "the characters of a name (a variable, a table, a model, a catalog entry)", "use a shorter name"),
        Limit("unit_chars", 100, None, "the characters of one unit (pint's parser slows down on long ones)", "units are short: ms/token, FLOP/token^2, token/(s*request)"),
        # numbers as written, in YAML values, quantities and expressions
        Limit("number_chars", 400, None, "the characters of one written number", "write big or small quantities with an exponent (1.5e12) or a unit prefix (TB, GFLOP)"),
        Limit("number_exponent", 300, None, "the decimal exponent of one written number (1e300)", "use a unit prefix (TB, GFLOP, ms) to keep exponents small"),
        # expressions
        Limit("expression_chars", 4000, None, "the characters of one expression", "split it into several equations"),
        Limit("expression_depth", 100, None, "how deeply one expression nests", "split it into several equations with named intermediate variables"),
        Limit("power_exponent", 1000, None, "a constant exponent in an expression (x**1000)", "rewrite the power, or take a logarithm"),
        Limit("constant_digits", 400, None, "the decimal digits of a constant an expression computes (10**400)", "use a unit prefix, or a smaller constant"),
        # evaluation
        Limit(
            "exact_digits",
            10_000,
            "CHAINC_MAX_EXACT_DIGITS",
            "the digits of a number the evaluator computes with (an exact value's digits, any value's decimal exponent)",
            "set the environment variable CHAINC_MAX_EXACT_DIGITS to a larger number of digits",
        ),
        Limit(
            "sum_terms",
            1_000_000,
            "CHAINC_MAX_SUM_TERMS",
            "the terms of one sum or product, sum(f(k) for k in range(lo, hi)), as the solver and the generated Python compute it; a sum inside others counts its terms once per term of theirs",
            "if the model is right, raise the limit, e.g. CHAINC_MAX_SUM_TERMS=10000000 (about a second per million terms)",
        ),
        Limit(
            "solve_seconds",
            60,
            "CHAINC_MAX_SOLVE_SECONDS",
            "the seconds one step may take: loading a model, planning a query's shape, a forward solve, a question's search",
            "if the model is right, raise the limit, e.g. CHAINC_MAX_SOLVE_SECONDS=600",
        ),
        Limit(
            "plan_step_seconds",
            5,
            "CHAINC_MAX_PLAN_STEP_SECONDS",
            "the seconds SymPy may spend looking for the closed form of one block of equations before it is solved numerically instead",
            "a block without a closed form in time is searched numerically, which gives the same numbers; raise it, e.g. CHAINC_MAX_PLAN_STEP_SECONDS=60, to wait for a closed form the derivation can show",
        ),
        Limit("set_values", 10_000, None, "the values of one variable's set (values:), each tried by a question over it", "use a range with a coarser step, or a min: and max:"),
        Limit(
            "configurations",
            1_000_000,
            "CHAINC_MAX_CONFIGURATIONS",
            "the configurations of one search over configurations (over:), the product of its sets' sizes",
            "search fewer values per axis, or split the search; if it is right, raise the limit, e.g. CHAINC_MAX_CONFIGURATIONS=10000000",
        ),
        Limit(
            "workbook_configurations",
            1_000,
            "CHAINC_MAX_WORKBOOK_CONFIGURATIONS",
            "the configurations of one search that the workbook lays out as rows of live formulas (each row ranks itself against every other)",
            "past it the search's sheet holds the compiler's answer, which does not follow the inputs; search fewer values, or raise the limit, e.g. CHAINC_MAX_WORKBOOK_CONFIGURATIONS=5000 (a row is the model's program and its inner questions' workings; the ranking grows with the square of the rows)",
        ),
        # tables and sweeps
        Limit("table_rows", 1000, None, "the rows of one table unless it sets max_rows", "set max_rows: on the table (at most 100,000)"),
        Limit("table_rows_max", 100_000, None, "the largest max_rows a table may set", "split the simulation into coarser steps"),
        Limit("sweep_points", 100_000, None, "the points of one sweep", "use a larger step"),
    )
}


MAX_EXACT_DIGITS = LIMITS["exact_digits"]


def number_problem(text: str) -> tuple[str, str] | None:
    """What is wrong with a written decimal number ('1e400', 5,000 digits), as (message, hint); None if it is fine.

    The one rule for a number in a model file, an expression, a catalog entry and a --given value:
    at most number_chars characters, a decimal exponent of at most number_exponent, and (so) finite.
    """
    chars, exponent = LIMITS["number_chars"], LIMITS["number_exponent"]
    text = text.strip()
    if len(text) > chars.value():
        return f"a number of {len(text):,} characters is more than chainc reads ({chars.value()})", chars.how
    mantissa, _, exp = text.replace("_", "").replace(",", "").lower().partition("e")
    if exp.lstrip("+-").isdigit() and abs(int(exp)) > exponent.value():
        return f"number {text} is out of range: exponents go up to {exponent.value()}", exponent.how
    return None


def limit(name: str) -> int:
    """The value in force of the limit called `name` (a key of LIMITS)."""
    return LIMITS[name].value()


def value(which: Limit) -> int:
    return which.value()
