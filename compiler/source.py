"""YAML loading that remembers where every value was written.

Only ``yaml.SafeLoader`` constructs values, so tags such as
``!!python/object/apply`` are refused, never run. Beside the data we keep, for
every key path, the line and column of its value, and the raw text of scalars
(a check's ``9.9`` keeps its written precision).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import Loc, ModelError

KeyPath = tuple


@dataclass
class Source:
    path: str
    lines: list[str]
    data: Any
    marks: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)
    raw: dict[KeyPath, str] = field(default_factory=dict)

    def loc(self, keypath: KeyPath = (), *, key: bool = False) -> Loc:
        """Location of the value (or key) at keypath, or of its nearest written parent."""
        table = self.key_marks if key else self.marks
        kp = tuple(keypath)
        while kp and kp not in table:
            kp = kp[:-1]
        line, col = table.get(kp, (1, 1))
        return self.at(line, col)

    def at(self, line: int, col: int) -> Loc:
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return Loc(self.path, line, col, text)


def _mark_of(node: yaml.Node) -> tuple[int, int]:
    line, col = node.start_mark.line + 1, node.start_mark.column + 1
    if isinstance(node, yaml.ScalarNode) and node.style in ('"', "'"):
        col += 1  # point inside the quotes, where the text starts
    elif isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        line, col = line + 1, node.start_mark.column + 1
    return line, col


def load_yaml(path: str | Path, text: str | None = None) -> Source:
    path = str(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as e:
            raise ModelError(f"cannot read {path}: {e.strerror}", Loc(path), "check the path") from None
    src = Source(path, text.splitlines(), None)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ModelError("the file is empty", Loc(path, 1, 1), "a model is a YAML mapping with name, variables and equations")
        _walk(node, (), src)
        src.data = loader.construct_document(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        loc = src.at(mark.line + 1, mark.column + 1) if mark else Loc(path)
        problem = (e.problem or e.context or "invalid YAML").strip()
        hint = "YAML syntax: check indentation, colons and quotes"
        if "could not determine a constructor" in problem or "tag" in problem:
            problem = f"YAML tag refused: {problem}"
            hint = "chainc reads plain YAML only: remove the '!!' tag"
        raise ModelError(problem, loc, hint) from None
    except yaml.YAMLError as e:  # pragma: no cover - unmarked YAML errors are rare
        raise ModelError(f"invalid YAML: {e}", Loc(path), "check the file's syntax") from None
    finally:
        loader.dispose()
    return src


def _walk(node: yaml.Node, kp: KeyPath, src: Source) -> None:
    src.marks[kp] = _mark_of(node)
    if isinstance(node, yaml.MappingNode):
        seen: dict[str, yaml.Node] = {}
        for knode, vnode in node.value:
            key = knode.value if isinstance(knode, yaml.ScalarNode) else str(knode.start_mark)
            if key in seen:
                line, col = _mark_of(knode)
                raise ModelError(f"duplicate key '{key}'", src.at(line, col), "each key may appear once in a mapping")
            seen[key] = vnode
            src.key_marks[kp + (key,)] = _mark_of(knode)
            _walk(vnode, kp + (key,), src)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, kp + (i,), src)
    elif isinstance(node, yaml.ScalarNode):
        src.raw[kp] = node.value
