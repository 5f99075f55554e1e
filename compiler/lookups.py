"""Lookup tables by name: `lookups:` mappings, `choices:` inputs and `table[key]` in expressions.

A lookup is a small mapping from names to values of one unit (`dtype_bits: {bf16: 16, fp8: 8}`
bits). A variable with `choices:` is an input that takes one of those names (a dropdown in the
workbook, `--given kv_dtype=fp8` on the command line, a str in the API and generated modules).

Inside, a choice is a whole number, its name's place in the list (1, 2, ...), held in a
value set: every backend already checks, prints and searches such a variable. `table[key]` is
lowered to `if(key == 1, v1, if(key == 2, v2, ...))`, a Piecewise every backend already prints.
The names come back at the edges: parsing a given value (quantities.given_value), printing a
value (display.label), the workbook's input cell and the generated modules' arguments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from .errors import ModelError
from .ir import Domain
from .suggest import close_names
from .terms import Term


@dataclass(frozen=True)
class Lookup:
    name: str
    unit: str
    dim: Any
    keys: tuple[str, ...]
    values: tuple  # base units, in the order of keys
    description: str = ""


def read_lookups(loader, spec: dict | None, variables: dict) -> dict[str, Lookup]:
    """The model's `lookups:`: each key's value in the lookup's unit, base units inside."""
    out = {}
    for name, body in (spec or {}).items():
        kp = ("lookups", name)
        if name in variables:
            raise loader.fail(kp, f"lookup name '{name}' is taken by a variable", "lookups and variables need distinct names", key=True)
        unit_text, _, factor, dim = loader.unit(body.get("unit"), kp + ("unit",))
        unit_text = "" if unit_text == "1" else unit_text
        keys, values = [], []
        for key, raw in body["values"].items():
            keys.append(str(key))
            values.append(loader.quantity(raw, kp + ("values", key), unit_text, factor, dim, f"{name}[{key}]"))
        for key, value in zip(keys, values):
            if not (isinstance(value, sp.Number) and value.is_real):
                raise loader.fail(kp + ("values", key), f"{name}[{key}]: a lookup's value is a number or a quantity", "write 8 or '8 bit'; a catalog value belongs in an equation")
        out[name] = Lookup(name, unit_text, dim, tuple(keys), tuple(values), str(body.get("description", "")))
    return out


def choices_of(loader, name: str, spec: dict, kp: tuple) -> tuple[tuple[str, ...], Domain]:
    """A variable's `choices:` (a list of names, or a lookup's name: its keys), and the domain of their codes."""
    names = _names(loader, name, spec, kp)
    return names, choice_domain(len(names))


def _names(loader, name: str, spec: dict, kp: tuple) -> tuple[str, ...]:
    for other in ("unit", "integer", "min", "max", "values", "domain"):
        if other in spec:
            raise loader.fail(kp + (other,), f"{name} has choices: and {other}:, but a choice is one of its names", f"drop {other}:", key=True)
    raw = spec["choices"]
    if isinstance(raw, str):
        if raw not in loader.lookups:
            close = close_names(raw, loader.lookups)
            hint = f"did you mean {' or '.join(close)}?" if close else ("lookups: " + ", ".join(loader.lookups) if loader.lookups else "declare it under lookups:, or list the names")
            raise loader.fail(kp + ("choices",), f"choices of {name}: no lookup named '{raw}'", hint)
        return loader.lookups[raw].keys
    names = tuple(str(x) for x in raw)
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise loader.fail(kp + ("choices",), f"choices of {name}: '{twice}' is listed twice", "list each name once")
    return names


def choice_domain(n: int) -> Domain:
    codes = tuple(sp.Integer(k) for k in range(1, n + 1))
    return Domain("positive", True, codes[0], codes[-1], codes)


def code_of(loader, var, raw: Any, kp: tuple, what: str) -> sp.Integer:
    """A name written for a choice variable (a default, a check's given) -> its code, or a located error."""
    text = str(raw).strip()
    if text in var.choices:
        return sp.Integer(var.choices.index(text) + 1)
    raise ModelError(f"{what}: '{text}' is not one of {var.name}'s choices ({', '.join(var.choices)})", loader.src.loc(kp), hint(text, var.choices))


def hint(text: str, names) -> str:
    close = close_names(text, names)
    return f"did you mean {' or '.join(close)}?" if close else f"write one of {', '.join(names)}"


def subscript(loader, table: str, key: str, loc) -> Term:
    """`table[key]`: the lookup's value at the key variable's choice, as a Piecewise over its codes."""
    lookup = loader.lookups.get(table)
    if lookup is None:
        close = close_names(table, loader.lookups)
        if table in loader.variables:
            raise ModelError(f"'{table}' is a variable, not a lookup: it cannot be subscripted", loc, "declare the mapping under lookups:, then write name[key]")
        raise ModelError(f"unknown lookup '{table}'", loc, f"did you mean {' or '.join(close)}?" if close else "declare it under lookups: {values: {name: value, ...}}")
    var = loader.variables.get(key)
    if var is None or not var.choices:
        what = "a variable without choices:" if var is not None else "not a variable"
        raise ModelError(f"{table}[{key}]: the key '{key}' is {what}", loc, f"index a lookup with an input that has choices: {table} (one of {', '.join(lookup.keys)})")
    missing = [c for c in var.choices if c not in lookup.keys]
    if missing:
        raise ModelError(
            f"{table}[{key}]: {key} may be '{missing[0]}', which {table} has no value for",
            loc,
            (hint(missing[0], lookup.keys) + f" ({table} has {', '.join(lookup.keys)})") if close_names(missing[0], lookup.keys) else f"add {missing[0]} to {table}, or drop it from {key}'s choices",
        )
    values = [lookup.values[lookup.keys.index(c)] for c in var.choices]
    if len(set(values)) == 1:
        return Term(values[0], lookup.dim)
    pieces = [(v, sp.Eq(var.sym, k + 1)) for k, v in enumerate(values[:-1])] + [(values[-1], True)]
    return Term(sp.Piecewise(*pieces), lookup.dim)
