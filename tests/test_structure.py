"""The package's shape: no import circle, a core that imports neither SymPy nor pint nor the preparation, small files.

Imports are read from the source (ast), at module level and inside functions alike; what sits
under `if TYPE_CHECKING:` is for type checkers only and does not count.
"""

from __future__ import annotations

import ast

import networkx as nx
import pytest

from .conftest import ROOT

PACKAGE = ROOT / "compiler"
# The core runs prepared objects: cold and warm alike, without SymPy or pint (docs/design.md, the flow).
CORE = {
    "program",
    "run",
    "closures",
    "located",
    "execute",
    "compare",
    "results",
    "display",
    "numbers",
    "format",
    "errors",
    "limits",
    "physical",
    "bounded",
    "deadline",
    "runtime",
    "runtime.values",
    "runtime.roots",
    "runtime.answer",
    "runtime.choose",
    "choosing",
    "chosen",
    "search_data",
    "grid",
    "batch",
    "answer_np",
    "calibrated",
}
# r["tpot"] is a pint Quantity: the reading mixin imports the unit registry when (and only when) one is asked for
ALLOWED = {("display", "units")}
HEAVY = {"sympy", "pint", "networkx"}
MAX_LINES = 450


def _imports(tree: ast.AST) -> list[ast.ImportFrom | ast.Import]:
    out: list = []

    def walk(node):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for x in child.orelse:
                    walk(x)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append(child)
            walk(child)

    walk(tree)
    return out


def _graph() -> tuple[nx.DiGraph, dict[str, set[str]]]:
    """module -> the package's modules it imports; module -> the third-party top-level packages it imports."""
    g, external = nx.DiGraph(), {}
    for f in sorted(PACKAGE.rglob("*.py")):
        parts = f.with_suffix("").relative_to(PACKAGE).parts
        mod = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        pkg = mod if f.name == "__init__.py" else mod.rpartition(".")[0]
        g.add_node(mod)
        external[mod] = set()
        for node in _imports(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                external[mod] |= {a.name.split(".")[0] for a in node.names}
            elif node.level == 0:
                external[mod].add(node.module.split(".")[0])
            else:
                base = pkg.split(".") if pkg else []
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                targets = [".".join([*base, node.module])] if node.module else [".".join([*base, a.name]) for a in node.names]
                g.add_edges_from((mod, t) for t in targets if t and t != mod)
    return g, external


@pytest.fixture(scope="module")
def graph():
    return _graph()


def test_no_import_circle(graph):
    g, _ = graph
    cycles = list(nx.simple_cycles(g))
    assert not cycles, "import circles: " + "; ".join(" -> ".join([*c, c[0]]) for c in cycles[:5])


def test_the_core_imports_no_preparation_and_no_sympy_or_pint(graph):
    g, external = graph
    assert CORE <= set(g.nodes), f"unknown core modules: {CORE - set(g.nodes)}"
    back = [(a, b) for a, b in g.edges if a in CORE and b not in CORE and (a, b) not in ALLOWED]
    assert not back, f"the core imports outside itself: {back}"
    heavy = {m: external[m] & HEAVY for m in CORE if external[m] & HEAVY}
    assert not heavy, f"the core imports {heavy}"


def test_files_are_small():
    big = {str(f.relative_to(ROOT)): n for f in PACKAGE.rglob("*.py") if (n := len(f.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not big, f"files over {MAX_LINES} lines: {big}"
