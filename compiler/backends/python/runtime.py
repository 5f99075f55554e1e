"""The functions generated modules copy: chainc's runtime rules and the backend's own helpers, as source.

A generated module needs some of: the runtime rules (compiler/runtime/: domains,
pick, rows, aggregate, LambertW, the root finder, the question rule, the choosing rule), the scalar
helpers of this backend (helpers.py: located messages, the catalog lookup, the
search around the root finder, a search's rows) and, for the NumPy flavour, helpers_np.py,
choose_np.py and compiler/answer_np.py (the solver's vectorised path runs it too). Each is copied with `inspect.getsource` (the NumPy files, which import
NumPy, are read as text and cut with `ast`), only those a module uses and everything they call,
in one fixed order. Runtime names get a leading underscore in the copy (`pick` ->
`_pick`), so no model name can shadow them; ChainError keeps its name: it is
the module's public error.
"""

from __future__ import annotations

import ast
import inspect
from functools import cache
from pathlib import Path

from ...runtime import answer, choose, roots, values
from . import helpers

_RUNTIME = (values, roots, answer, choose)
PUBLIC = {"ChainError"}


@cache
def _catalog() -> dict[str, tuple[str, str]]:
    """Every copyable definition: name in generated code -> (source, the module it needs: '', 'math', 'np')."""
    out: dict[str, tuple[str, str]] = {}
    for module in _RUNTIME:
        for name, obj in vars(module).items():
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == module.__name__:
                out[_private(name)] = (_rename(inspect.getsource(obj)), "math")
    for name, obj in vars(helpers).items():
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and obj.__module__ == helpers.__name__:
            out[name] = (inspect.getsource(obj), "math")
    for path in (Path(__file__).with_name("helpers_np.py"), Path(__file__).parents[2] / "answer_np.py", Path(__file__).with_name("choose_np.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.parse(text).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                out[node.name] = (ast.get_source_segment(text, node, padded=True), "np")
            elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and node.targets[0].id.startswith("_"):
                out[node.targets[0].id] = (ast.get_source_segment(text, node), "np")
    return out


def _private(name: str) -> str:
    return name if name in PUBLIC or name.startswith("_") else f"_{name}"


@cache
def _runtime_names() -> frozenset[str]:
    return frozenset(n for m in _RUNTIME for n, o in vars(m).items() if (inspect.isfunction(o) or inspect.isclass(o)) and o.__module__ == m.__name__ and n not in PUBLIC and not n.startswith("_"))


def _rename(source: str) -> str:
    """The runtime's names as the copy calls them (`admits(` -> `_admits(`), found by `ast` (f-strings included)."""
    names = _runtime_names()
    lines = source.splitlines(keepends=True)
    edits: dict[int, list[tuple[int, int]]] = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name) and node.id in names:
            edits.setdefault(node.lineno, []).append((node.col_offset, node.end_col_offset))
        elif isinstance(node, ast.arg) and node.arg in names:
            edits.setdefault(node.lineno, []).append((node.col_offset, node.col_offset + len(node.arg)))
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in names:
            start = lines[node.lineno - 1].index(node.name, node.col_offset)
            edits.setdefault(node.lineno, []).append((start, start + len(node.name)))
    for row, spans in edits.items():
        line = lines[row - 1]
        for start, end in sorted(set(spans), reverse=True):
            line = line[:start] + "_" + line[start:end] + line[end:]
        lines[row - 1] = line
    return "".join(lines)


def _calls(source: str, known) -> set[str]:
    """The names of `known` that a definition's source reads (f-strings included)."""
    return {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name) and n.id in known}


def sources(names: set[str]) -> tuple[list[str], set[str]]:
    """The definitions `names` and everything they use, in a fixed order; and the modules they need."""
    catalog = _catalog()
    want: set[str] = set()
    stack = sorted(names)
    while stack:
        n = stack.pop()
        if n in want:
            continue
        if n not in catalog:
            raise KeyError(f"no runtime definition {n!r}")
        want.add(n)
        stack.extend(sorted(_calls(catalog[n][0], catalog) - want))
    ordered = [n for n in catalog if n in want]
    modules = set()
    for n in ordered:
        source = catalog[n][0]
        if catalog[n][1] == "np":
            modules.add("np")
        for mod in ("math", "threading", "time"):
            if f"{mod}." in source:
                modules.add(mod)
        if "Fraction" in _calls(source, {"Fraction"}):
            modules.add("fractions")
    return [catalog[n][0].strip("\n") for n in ordered], modules


def known() -> set[str]:
    return set(_catalog())
