"""YAML loading that remembers where every value was written, and refuses hostile input.

Only a ``yaml.SafeLoader`` constructs values, so tags such as
``!!python/object/apply`` are refused, never run. Beside the data we keep, for
every key path, the line and column of its value, and the text of scalars (a
check's ``9.9`` keeps its written precision).

What a file may hold (docs/security.md, "Text and encodings" and "Limits"):

- UTF-8 text (a byte-order mark is skipped); UTF-16 and UTF-32 with a byte-order
  mark are decoded too. Other bytes, NULs, control characters and lone surrogates
  in the file are located errors. Escapes in double quotes ("\\t", "\\x07") may
  write any character; only a lone surrogate ("\\ud800") is refused, because it
  is not one. Backends escape what they print.
- Plain scalars are read as in YAML 1.2: ``on``, ``yes``, ``no``, ``y``, ``~`` keys
  and ``0x1``, ``1:30``, ``.inf`` values are text, not booleans or numbers; whole
  numbers are decimal (``010`` is ten). Every mapping key is the text as written.
- Size, nesting and alias expansion are bounded (compiler/limits.py).

Two readers, one result. libyaml (PyYAML's C extension, when it is built) scans and
parses: it reads a file ten times faster than PyYAML's Python scanner. Above it the
composer, the checks and the constructor are Python's in both readers, so the bounds
above hold before any recursion, every node keeps its line and column (an empty value in
a flow mapping, ``{a: }``, is moved back to where PyYAML marks it), and every alias where
it is written. A file libyaml refuses is read again by PyYAML's Python scanner, whose
error (or reading: it joins an escaped surrogate pair, which libyaml refuses) is the one
reported, as before. libyaml is more lenient in a few corners of the syntax PyYAML's
scanner refuses: a tab inside a plain value (``value: 20<TAB>0``), ``>#`` with no space,
a '?' inside a plain scalar in a flow mapping; such a file now loads as libyaml reads it,
and the name, unit and number checks judge what it says.
"""

from __future__ import annotations

import codecs
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import ChaincError, Loc, ModelError
from .limits import LIMITS, limit, number_problem

KeyPath = tuple

# YAML's line breaks (the reader counts lines with these, so we split lines with them too)
_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
# characters a YAML file may not hold (PyYAML's own set: C0/C1 controls, surrogates, U+FFFE/U+FFFF)
_NON_PRINTABLE = yaml.reader.Reader.NON_PRINTABLE
# a "\\ud800" escape makes a lone surrogate: not a character, and no encoder writes it out
_SURROGATE = re.compile("[\ud800-\udfff]")
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass
class Source:
    path: str
    lines: list[str]
    data: Any
    marks: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[KeyPath, tuple[int, int]] = field(default_factory=dict)
    raw: dict[KeyPath, str] = field(default_factory=dict)
    shown: dict[int, str] = field(default_factory=dict, repr=False, compare=False)  # line number -> its text as a Loc shows it

    def loc(self, keypath: KeyPath = (), *, key: bool = False) -> Loc:
        """Location of the value (or key) at keypath, or of its nearest written parent."""
        table = self.key_marks if key else self.marks
        kp = tuple(keypath)
        while kp and kp not in table:
            kp = kp[:-1]
        line, col = table.get(kp, (1, 1))
        return self.at(line, col)

    def at(self, line: int, col: int) -> Loc:
        text = self.shown.get(line)
        if text is None:
            text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
            # a control character would reach the terminal (an escape sequence); one placeholder keeps the caret's column
            text = self.shown[line] = _NON_PRINTABLE.sub("\ufffd", text)
        return Loc(self.path, line, col, text)

    def at_index(self, text: str, index: int) -> Loc:
        """The location of character `index` of the text."""
        breaks = list(_BREAKS.finditer(text, 0, index))
        return self.at(len(breaks) + 1, index - (breaks[-1].end() if breaks else 0) + 1)


def _mark_of(node: yaml.Node) -> tuple[int, int]:
    line, col = node.start_mark.line + 1, node.start_mark.column + 1
    if isinstance(node, yaml.ScalarNode) and node.style in ('"', "'"):
        col += 1  # point inside the quotes, where the text starts
    elif isinstance(node, yaml.ScalarNode) and node.style in ("|", ">"):
        line, col = line + 1, node.start_mark.column + 1
    return line, col


def _codepoint(ch: str) -> str:
    return f"U+{ord(ch):04X}"


# --- bytes -> text ------------------------------------------------------------------------------------


def read_text(path: str) -> str:
    """A file's text: UTF-8, or UTF-16/32 with a byte-order mark; anything else is a located error."""
    size = LIMITS["yaml_bytes"]
    try:
        with open(path, "rb") as f:
            data = f.read(size.value() + 1)
    except OSError as e:
        raise ModelError(f"cannot read {path}: {e.strerror}", Loc(path), "check the path") from None
    except ValueError:  # a NUL in the path
        raise ModelError(f"cannot read {path!r}", Loc(repr(path)), "check the path") from None
    if len(data) > size.value():
        first = Source(path, [data.split(b"\n", 1)[0].decode("utf-8", errors="replace")], None)
        raise ModelError(f"the file is larger than {size.value():,} bytes", first.at(1, 1), size.how)
    encoding, start = next(((enc, len(bom)) for bom, enc in _BOMS if data.startswith(bom)), ("utf-8", 0))
    try:
        return data[start:].decode(encoding)
    except UnicodeDecodeError as e:
        good = data[start : start + e.start].decode(encoding)
        shown = data[start:].decode(encoding, errors="replace")
        src = Source(path, _BREAKS.split(shown), None)
        bad = data[start + e.start : start + max(e.end, e.start + 1)]
        bad = ("byte " if len(bad) == 1 else "bytes ") + bad[:4].hex(" ")
        name = "UTF-8" if encoding == "utf-8" else encoding.upper()
        hint = "save the file as UTF-8 (most editors offer it under 'Save as' or 'Encoding')"
        if encoding == "utf-8" and data[start + e.start] == 0xED:
            hint = "these bytes are a surrogate encoded as UTF-8 (CESU-8 or a broken UTF-16 conversion): " + hint
        raise ModelError(f"the file is not {name} text: {bad} cannot be read", src.at_index(good, len(good)), hint) from None


def _check_printable(text: str, src: Source) -> None:
    m = _NON_PRINTABLE.search(text)
    if not m:
        return
    ch = m.group()
    loc = src.at_index(text, m.start())
    if ch == "\x00":
        raise ModelError("the file holds a NUL character (U+0000)", loc, "a model is plain text; NULs often mean UTF-16 without a byte-order mark, or not a text file at all: save it as UTF-8")
    if "\ud800" <= ch <= "\udfff":
        raise ModelError(f"the text holds a lone surrogate ({_codepoint(ch)}), which is not a character", loc, "the text was decoded wrongly; save the file as UTF-8")
    raise ModelError(f"the file holds the control character {_codepoint(ch)}", loc, "remove it: a model holds printable text, tabs and line breaks")


# --- the loader ---------------------------------------------------------------------------------------

_STR, _INT, _FLOAT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "float", "bool", "null"))
_TAGS = {_STR, _INT, _FLOAT, _BOOL, _NULL, "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:merge"}
# YAML 1.2's core schema, with decimal numbers only (underscores allowed between digits, as in Python)
_PLAIN = {
    _BOOL: (re.compile(r"true|True|TRUE|false|False|FALSE"), "tTfF"),
    _INT: (re.compile(r"[-+]?[0-9][0-9_]*"), "-+0123456789"),
    _FLOAT: (re.compile(r"[-+]?(?:[0-9][0-9_]*\.[0-9_]*|\.[0-9][0-9_]*|[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?"), "-+.0123456789"),
    _NULL: (re.compile(r"~|null|Null|NULL|"), ["~", "n", "N", ""]),
}


class _Checks:
    """YAML 1.2 plain scalars, keys as written, and a bound on nesting, over either parser below.

    The composer is PyYAML's Python one in both loaders, so the nesting bound holds before
    any recursion and every alias's position is recorded; only the scanner and parser
    under it differ.
    """

    yaml_implicit_resolvers: dict = {}  # our own, filled below; yaml.SafeLoader's (YAML 1.1) stay untouched

    def _start(self, src: Source) -> None:
        self.src = src
        self.depth = 0
        self.max_depth = limit("yaml_depth")
        self.alias_marks: dict[tuple[int, Any], yaml.Mark] = {}  # (parent node, index) -> where the alias is written
        self.mark = None  # where the node being composed starts (for an error raised by Python's recursion limit)

    def compose_node(self, parent, index):
        event = self.peek_event()
        self.mark = event.start_mark
        if parent is not None and type(event) is yaml.AliasEvent:
            self.alias_marks[(id(parent), id(index) if isinstance(index, yaml.Node) else index)] = event.start_mark
        self.depth += 1
        if self.depth > self.max_depth:
            raise _too_deep(self.src, (event.start_mark.line + 1, event.start_mark.column + 1))
        try:
            node = super().compose_node(parent, index)
        finally:
            self.depth -= 1
        node.end_mark = None  # never read: a Mark per node is a quarter of a big file's memory
        return node

    def construct_mapping(self, node, deep=False):
        """Keys are the text as written: a variable called `on` or `1` is that text, not True or 1."""
        self.flatten_mapping(node)  # merge keys (<<: *defaults) first, as SafeLoader does
        return {k.value: self.construct_object(v, deep=deep) for k, v in node.value}

    def construct_yaml_int(self, node):
        return int(node.value.replace("_", ""), 10)  # always decimal: SafeLoader reads 010 as eight

    def construct_yaml_float(self, node):
        return float(node.value.replace("_", ""))


class _Loader(_Checks, yaml.SafeLoader):
    """PyYAML's pure-Python scanner and parser: the reference, and the reader of any file libyaml refuses."""

    yaml_implicit_resolvers: dict = {}

    def __init__(self, text: str, src: Source):
        yaml.SafeLoader.__init__(self, text)
        self._start(src)


_LOADERS: list[type] = [_Loader]
if getattr(yaml, "__with_libyaml__", False):  # pragma: no branch - PyYAML's wheels include libyaml
    from yaml.cyaml import CParser

    class _CLoader(_Checks, yaml.composer.Composer, CParser, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
        """libyaml scans and parses (a tenth of the pure-Python time); the composer and constructor stay Python's.

        CParser's own composer (get_single_node in C) recurses in C without a bound and
        records no alias positions, so Composer comes first in the method order and only
        CParser's event methods (peek_event, get_event, check_event) are used.
        """

        yaml_implicit_resolvers: dict = {}

        def __init__(self, text: str, src: Source):
            CParser.__init__(self, text)
            yaml.composer.Composer.__init__(self)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            self._start(src)

        def compose_node(self, parent, index):
            node = super().compose_node(parent, index)
            if node.value == "" and parent is not None and parent.flow_style and isinstance(node, yaml.ScalarNode) and not node.style:
                node.start_mark = self._after_indicator(node.start_mark)
            return node

        def _after_indicator(self, mark):
            """An empty value in a flow mapping ({a: }): libyaml marks the token after it, PyYAML the end of the ':'; keep PyYAML's."""
            lines, row, col = self.src.lines, mark.line, mark.column
            if row >= len(lines) or lines[row][col : col + 1] not in (",", "}", "]"):
                return mark  # a tag or an anchor starts the value: both mark it
            while True:
                text = lines[row][:col].rstrip(" \t")
                if text or row == 0:
                    break
                row -= 1  # blank lines between the ':' and the '}'
                col = len(lines[row])
            if not text.endswith(":"):
                return mark  # a comment in between, or a key without ':': left as libyaml marks it
            return yaml.Mark(mark.name, mark.index, row, len(text), None, None)

    _LOADERS.insert(0, _CLoader)

for _cls in _LOADERS:
    for _tag, (_regexp, _first) in _PLAIN.items():
        _cls.add_implicit_resolver(_tag, re.compile(rf"^(?:{_regexp.pattern})$"), list(_first))
    _cls.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^(?:<<)$"), ["<"])
    _cls.add_constructor(_INT, _Checks.construct_yaml_int)
    _cls.add_constructor(_FLOAT, _Checks.construct_yaml_float)


def _too_deep(src: Source, mark: tuple[int, int]) -> ModelError:
    lim = LIMITS["yaml_depth"]
    return ModelError(f"the file nests more than {lim.value():,} levels deep", src.at(*mark), lim.how)


def load_yaml(path: str | Path, text: str | None = None) -> Source:
    path = str(path)
    if text is None:
        text = read_text(path)
    elif len(text) > limit("yaml_bytes"):
        lim = LIMITS["yaml_bytes"]
        raise ModelError(f"the text is larger than {lim.value():,} characters", Loc(path, 1, 1), lim.how)
    src = Source(path, _BREAKS.split(text), None)
    _check_printable(text, src)
    if _LOADERS[0] is not _Loader:
        try:
            return _read(_LOADERS[0], text, src)
        except ChaincError:  # a limit, a tag, a duplicate key: the same from either reader
            raise
        except (yaml.YAMLError, ValueError):
            # libyaml refuses the file (or something in it, such as an escaped surrogate pair, which
            # the pure-Python scanner joins): the reference reader reads it, or says what is wrong as it always has
            src.marks.clear()
            src.key_marks.clear()
            src.raw.clear()
    try:
        return _read(_Loader, text, src)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        loc = src.at(mark.line + 1, mark.column + 1) if mark else Loc(path)
        problem = (e.problem or e.context or "invalid YAML").strip()
        hint = "YAML syntax: check indentation, colons and quotes"
        if "could not determine a constructor" in problem or "tag" in problem:
            problem = f"YAML tag refused: {problem}"
            hint = "chainc reads plain YAML only: remove the '!!' tag"
        elif "duplicate anchor" in (e.context or ""):
            problem = e.context.split(";")[0]
            hint = "each anchor (&name) may be defined once"
        elif "undefined alias" in problem:
            hint = "an alias (*name) repeats a value marked &name earlier in the file"
        elif "another document" in problem:
            problem = "the file holds more than one YAML document"
            hint = "a model file holds one YAML document: remove the '---' line and what follows, or the second part"
        raise ModelError(problem, loc, hint) from None
    except ChaincError:
        raise
    except (yaml.YAMLError, ValueError) as e:  # pragma: no cover - the walk refuses what construction cannot read
        raise ModelError(f"invalid YAML: {e}", Loc(path), "check the file's syntax") from None


def _read(cls: type, text: str, src: Source) -> Source:
    """Compose, walk (positions, limits, tags) and construct the one document of the text."""
    loader = cls(text, src)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ModelError("the file is empty", Loc(src.path, 1, 1), "a model is a YAML mapping with name, variables and equations")
        _Walk(src, loader.alias_marks).node(node, (), None)
        src.data = loader.construct_document(node)
        return src
    except RecursionError:  # only when CHAINC_MAX_YAML_DEPTH is raised past what Python can recurse
        mark = loader.get_mark() if cls is _Loader else loader.mark
        env = LIMITS["yaml_depth"].env
        hint = f"Python's recursion limit stops a few hundred levels down, below {env}={limit('yaml_depth'):,}: nest the data less"
        raise ModelError("the file nests too deeply for Python to read", src.at(mark.line + 1, mark.column + 1), hint) from None
    finally:
        loader.dispose()


class _Walk:
    """Visit every node (aliases expanded) to record positions and refuse what construction must not see.

    An alias is a copy of what it names, and aliases of aliases multiply (a "billion
    laughs" file): the walk counts the nodes it visits inside an alias, so what aliases
    add to the data is bounded before any later stage sees it. The file's own nodes are
    not counted; its size in bytes bounds them.
    """

    def __init__(self, src: Source, alias_marks: dict):
        self.src = src
        self.alias_marks = alias_marks
        self.left = limit("yaml_alias_nodes")
        self.max_depth = limit("yaml_depth")
        self.path: set[int] = set()  # the nodes being walked: a node inside itself is a loop of aliases

    def node(self, node: yaml.Node, kp: KeyPath, alias: tuple[int, int] | None) -> None:
        """alias: where the innermost alias being expanded is written, else None."""
        if alias is not None:
            self.left -= 1
            if self.left < 0:
                lim = LIMITS["yaml_alias_nodes"]
                raise ModelError(f"aliases add more than {lim.value():,} YAML values to the file, counting each use of an alias as a copy", self.src.at(*alias), lim.how)
        mark = self.src.marks[kp] = _mark_of(node)
        if len(kp) >= self.max_depth:
            raise _too_deep(self.src, alias or mark)
        if id(node) in self.path:
            raise ModelError(
                "a YAML alias refers to a value that holds it: the data would be infinite", self.src.at(*(alias or mark)), "an alias (*name) may repeat a value defined earlier, not one it is inside"
            )
        self.tag(node)
        if isinstance(node, yaml.ScalarNode):
            self.src.raw[kp] = self.text(node)
            return
        self.path.add(id(node))
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for knode, vnode in node.value:
                if not isinstance(knode, yaml.ScalarNode):
                    raise ModelError("a mapping key must be plain text, not a list or a mapping", self.src.at(*_mark_of(knode)), "write keys as names, such as batch:")
                self.tag(knode)
                key = self.text(knode, key=True)
                if key in seen:
                    raise ModelError(f"duplicate key '{key}'", self.src.at(*_mark_of(knode)), "each key may appear once in a mapping")
                seen.add(key)
                self.src.key_marks[kp + (key,)] = _mark_of(knode)
                self.node(vnode, kp + (key,), self.edge(node, knode, alias))
        else:
            for i, item in enumerate(node.value):
                self.node(item, kp + (i,), self.edge(node, i, alias))
        self.path.discard(id(node))

    def edge(self, parent: yaml.Node, index, alias):
        """Where the alias being expanded is written: the outermost one, in the text that uses the shared data."""
        mark = self.alias_marks.get((id(parent), id(index) if isinstance(index, yaml.Node) else index))
        return alias or ((mark.line + 1, mark.column + 1) if mark else None)

    def tag(self, node: yaml.Node) -> None:
        if node.tag not in _TAGS:
            tag = node.tag.replace("tag:yaml.org,2002:", "!!")
            mark = node.start_mark  # where the tag is written
            raise ModelError(f"YAML tag refused: {tag}", self.src.at(mark.line + 1, mark.column + 1), "chainc reads plain YAML only: remove the '!!' tag")

    def text(self, node: yaml.ScalarNode, key: bool = False) -> str:
        """A scalar's text, once its escapes are known to make characters and its tag fits it (keys stay text)."""
        text = node.value
        if _SURROGATE.search(text):
            text = node.value = _join_surrogates(text)
            m = _SURROGATE.search(text)
            if m:
                hint = "write the character itself, or an escaped pair (\\ud83d\\ude00) that makes one"
                raise ModelError(f"this text holds a lone surrogate ({_codepoint(m.group())}), which is not a character", self.src.at(*_mark_of(node)), hint)
        if node.tag in _PLAIN and not key:
            if not _PLAIN[node.tag][0].fullmatch(text):  # an explicit !!int or !!float on other text
                kind = {_INT: "a whole number", _FLOAT: "a number", _BOOL: "true or false", _NULL: "null"}[node.tag]
                hint = "write true or false" if node.tag == _BOOL else "write null, or drop the '!!' tag" if node.tag == _NULL else "write numbers in decimal, such as 16 or 0.5, or drop the '!!' tag"
                raise ModelError(f"'{text}' is not {kind}", self.src.at(*_mark_of(node)), hint)
            if node.tag in (_INT, _FLOAT):
                _check_number(text, lambda: self.src.at(*_mark_of(node)))  # the location only for an error: a Loc per number is a tenth of the load
        return text


def _join_surrogates(text: str) -> str:
    """'\\ud83d\\ude00' escapes (as JSON writes them) make one character; a lone surrogate stays."""
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def _check_number(text: str, where) -> None:
    """A decimal number as YAML resolved it: short enough to read, and finite (where() locates it)."""
    problem = number_problem(text)
    if problem:
        raise ModelError(*problem[:1], where(), problem[1])
    if "." in text or "e" in text.lower():
        if not math.isfinite(float(text.replace("_", ""))):
            exponent = LIMITS["number_exponent"]
            raise ModelError(f"number {text} is out of range", where(), f"numbers go up to about 1e{exponent.value()}: {exponent.how}")
