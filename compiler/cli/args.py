"""Validating what the command line says: ids, NAME=QUANTITY items, empty options, --find."""

from __future__ import annotations

from ..errors import ArgumentError
from ..project import Project


def hardware(project: Project, args) -> None:
    """--gpu and --llm must name catalog entries, whichever model they are used with."""
    for kind in ("gpu", "llm"):
        chosen = getattr(args, kind, None)
        if chosen is None:
            continue
        if project.catalog.path(kind, chosen) is None:
            import difflib

            ids = project.catalog.ids(kind)
            close = difflib.get_close_matches(chosen, ids, n=1)
            raise ArgumentError(f"unknown {kind.upper()} '{chosen}' (--{kind})", None, f"did you mean {close[0]}?" if close else f"{kind.upper()}s: {', '.join(ids)} (chainc list)")


def givens(items: list[str]) -> dict[str, str]:
    given = {}
    for item in items:
        if "=" not in item:
            raise ArgumentError(f"--given {item}: expected NAME=QUANTITY", None, "for example --given tpot=10ms")
        name, value = (s.strip() for s in item.split("=", 1))
        if not name or not value:
            raise ArgumentError(f"--given {item}: expected NAME=QUANTITY", None, "both sides are needed, for example --given tpot=10ms")
        if name in given:
            raise ArgumentError(f"--given {name} appears twice ({given[name]} and {value})", None, "give each variable once")
        given[name] = value
    return given


def nonempty(args, *names: str) -> None:
    """An option that is present must say something: --gpu '' is a mistake, not an absence."""
    for name in names:
        value = getattr(args, name, None)
        values = value if isinstance(value, list) else [value]
        if any(v is not None and not str(v).strip() for v in values):
            raise ArgumentError(f"--{name} needs a value, got an empty one", None, f"drop --{name}, or give it a value (chainc {args.command} --help)")


def finds(model, finds: list[str]) -> tuple[str, ...]:
    """--find frees an input: naming a computed variable (already found) or one twice is a mistake."""
    for i, name in enumerate(finds):
        var = model.variables.get(name)
        if var is not None and var.default is None:
            inputs = ", ".join(n for n, v in model.variables.items() if v.default is not None)
            raise ArgumentError(f"--find {name}: {name} is computed by the equations already", None, f"--find frees an input (one with a default): {inputs}")
        if name in finds[:i]:
            raise ArgumentError(f"--find {name} appears twice", None, "name each variable once")
    return tuple(finds)
