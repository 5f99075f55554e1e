"""Joined imports: another model's equations in this one's system, under a namespace.

`uses: {models: {decode: {model: goodput, given: {batch: decoders}}}}` copies goodput's
variables into the importer as `decode_<name>` (written `decode.<name>` in expressions)
and its equations with them, so the solver solves through them in any direction: the
importer can set goodput's inputs (`given`), read its results and solve backwards for
them. The joined model runs on the importer's hardware (its gpu./llm. references become
the importer's). A plain import (`decode: goodput`) stays a value import: the other
model solved on its own defaults.

The copy is made from the imported Model's IR (symbols replaced), so its equations keep
their own text and location: an error in them points into the imported file.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from .errors import Loc, ModelError
from .ir import Equation, Model, Variable


def joined_name(alias: str, name: str) -> str:
    return f"{alias}_{name}"


def join(alias: str, other: Model, given: dict, uses: dict, taken: set, loc: Loc) -> tuple[dict[str, Variable], dict, tuple[Equation, ...]]:
    """(variables, params, equations) of `other` renamed under alias; `given` inputs lose their defaults."""
    if other.tables:
        raise ModelError(f"model '{other.name}' has tables, which a joined import cannot carry yet", loc, f"import it as a value (uses: {{models: {{{alias}: {other.name}}}}}) and read its results")
    if other.imports:
        raise ModelError(f"model '{other.name}' imports other models, which a joined import cannot carry yet", loc, "join the models it imports directly")
    for kind, entry in (("gpu", other.gpu), ("llm", other.llm)):
        if entry and kind not in uses:
            raise ModelError(f"model '{other.name}' reads a {kind.upper()}, and this model uses none", loc, f"add 'uses: {{{kind}: {entry}}}': the joined model runs on this model's hardware")
    for name in given:
        if name not in other.variables:
            raise ModelError(f"model '{other.name}' has no variable '{name}' to bind", loc, f"its inputs: {', '.join(n for n, v in other.variables.items() if v.default is not None)}")
        if other.variables[name].default is None:
            raise ModelError(f"'{name}' is computed by model '{other.name}', not one of its inputs", loc, "bind an input (a variable with a value); read a result as " + f"{alias}.{name}")
    rename, variables = {}, {}
    for name, v in other.variables.items():
        new = joined_name(alias, name)
        if new in taken:
            raise ModelError(f"joined import '{alias}' makes a variable {new}, which this model already has", loc, "pick another alias")
        sym = sp.Symbol(new, **v.sym.assumptions0)
        rename[v.sym] = sym
        variables[new] = replace(v, name=new, sym=sym, default=None if name in given else v.default, description=v.description or f"{other.name}'s {name}")
    equations = tuple(
        replace(
            eq,
            lhs=eq.lhs.xreplace(rename),
            rhs=eq.rhs.xreplace(rename),
            guards=tuple((d.xreplace(rename), w.xreplace(rename)) for d, w in eq.guards),
            valid=tuple((c.xreplace(rename), t) for c, t in eq.valid),
        )
        for eq in other.equations
    )
    return variables, dict(other.params), equations
