"""Graphs of imports walked without recursion.

A chain of imports may be as deep as the `import_depth` limit allows, and that limit
can be raised to thousands (CHAINC_MAX_IMPORT_DEPTH): loading, solving, reporting and
printing a chain walk it with an explicit stack, deepest first, so no depth reaches
Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

T = TypeVar("T")


def deepest_first(roots: Iterable[T], children: Callable[[T], Iterable[T]], key: Callable[[T], Hashable] = lambda node: node) -> list[T]:
    """Every node reachable from `roots`, each once, after every node it reaches (post-order), in the order met.

    children(node): the nodes it imports, in order; key(node): what identifies a node (id for unhashable ones).
    Loading refuses loops of imports; a loop here would be walked once round, not forever.
    """
    out: list[T] = []
    done: set = set()
    for root in roots:
        if key(root) in done:
            continue
        entered = {key(root)}
        stack = [(root, iter(children(root)))]
        while stack:
            node, kids = stack[-1]
            for kid in kids:
                k = key(kid)
                if k not in done and k not in entered:
                    entered.add(k)
                    stack.append((kid, iter(children(kid))))
                    break
            else:
                stack.pop()
                done.add(key(node))
                out.append(node)
    return out
