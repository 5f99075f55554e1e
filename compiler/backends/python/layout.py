"""Laying out generated Python as `ruff format` leaves it: lines, calls, docstrings, nested functions.

Generated modules must pass `ruff format --check` (line length 200) unchanged, so
what does not fit on a line is written the way ruff writes it: one argument per
line with a trailing comma (which ruff then keeps), a blank line around a nested
function.
"""

from __future__ import annotations

LINE = 200
INDENT = "    "


class Out:
    """Lines being written at an indentation; calls that do not fit on a line get one argument per line."""

    def __init__(self, indent: str = ""):
        self.lines: list[str] = []
        self.indent = indent

    def emit(self, text: str = "") -> None:
        self.lines.append(f"{self.indent}{text}" if text else "")

    def call(self, head: str, args: list[str], tail: str = "", open_: str = "(", close: str = ")") -> None:
        one = f"{self.indent}{head}{open_}{', '.join(args)}{close}{tail}"
        if len(one) <= LINE or not args:
            self.lines.append(one)
            return
        self.lines.append(f"{self.indent}{head}{open_}")
        self.lines += [f"{self.indent}{INDENT}{a}," for a in args]
        self.lines.append(f"{self.indent}{close}{tail}" + _kept(args, len(self.indent) + len(INDENT)))

    def assign(self, target: str, value: str) -> None:
        """`target = value`; a value too long for the line in parentheses on a line of its own, as ruff format puts it."""
        one = f"{self.indent}{target} = {value}"
        if len(one) <= LINE:
            self.lines.append(one)
            return
        self.lines += [f"{self.indent}{target} = (", f"{self.indent}{INDENT}{value}", f"{self.indent})" + _kept([value], len(self.indent) + len(INDENT))]

    def nested_def(self, header: str) -> None:
        """`def f(...):` inside a function, with the blank lines ruff format puts around it (end it with end_def)."""
        if self.lines and self.lines[-1].strip() and not self.lines[-1].rstrip().endswith(":"):
            self.emit()
        self.emit(header)
        self.push()

    def end_def(self) -> None:
        self.pop()
        self.emit()

    def push(self) -> None:
        self.indent += INDENT

    def pop(self) -> None:
        self.indent = self.indent[: -len(INDENT)]


def _kept(parts: list[str], indent: int) -> str:
    """`# fmt: skip` where a part is longer than the line: ruff would break a machine-written expression at its
    operators, which this layout does not do, so the statement stays as written (and ruff format leaves it)."""
    return "  # fmt: skip" if any(indent + len(p) + 1 > LINE for p in parts) else ""


def doc(out: Out, text: str) -> None:
    """A docstring (already escaped) at the current indentation."""
    lines = text.split("\n")
    if len(lines) == 1:
        out.emit(f'"""{lines[0]}"""')
        return
    out.emit(f'"""{lines[0]}')
    for line in lines[1:]:
        out.emit(line)
    out.emit('"""')


def targets(names: list[str]) -> str:
    """Assignment targets: `(a,)` for one name, `a, b` for more."""
    return f"({names[0]},)" if len(names) == 1 else ", ".join(names)


def tuple_text(names: list[str]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def unpack_value(out: Out, names: list[str], value: str) -> None:
    """`a, b = value`, laid out as ruff format leaves it when it does not fit on one line."""
    line = f"{', '.join(names)} = {value}"
    if len(out.indent + line) <= LINE:
        out.emit(line)
        return
    out.emit("(")
    out.lines += [f"{out.indent}{INDENT}{n}," for n in names]
    out.emit(f") = {value}")


def unpack(out: Out, names: list[str], fn: str, args: list[str]) -> None:
    """`a, b = fn(args)`, laid out as ruff format leaves it when it does not fit on one line."""
    if not names:
        out.call(fn, args)
        return
    head = targets(names)
    if len(f"{out.indent}{head} = {fn}({', '.join(args)})") <= LINE or len(f"{out.indent}{head} = {fn}(") <= LINE:
        out.call(f"{head} = {fn}", args)
        return
    out.emit("(")
    out.lines += [f"{out.indent}{INDENT}{n}," for n in names]
    out.call(f") = {fn}", args)
