"""One error root for every mistake chainc reports to a person.

Each error carries where it happened (path, line, column, the source line) and a
hint. Subclasses also inherit the matching builtin, as pint's errors do, so
callers can catch ``ValueError`` without knowing chainc.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from pathlib import Path

# Who is calling: hints say how to change a query in the caller's words. The command line sets "cli" for a
# command (cli.main); a Python caller (a notebook, a script) gets the API's spelling.
CALLER: ContextVar[str] = ContextVar("chainc_caller", default="api")
_SPELLING = {
    "cli": {
        "give": "--given {name}=VALUE",
        "find": "--find",
        "both": "drop one of --given and --find for it",
        "drop_given": "drop --given {name}=...",
        "hardware": "--{kind}",
        "reads": "chainc show {model} lists what it reads",
    },
    "api": {
        "give": "{name}=VALUE as a keyword",
        "find": "find=",
        "both": "drop it from the given values or from find=",
        "drop_given": "drop {name}=... from the values",
        "hardware": "{kind}=",
        "reads": "its params (Project().model('{model}').params) are what it reads",
    },
}


def spelled(what: str, **names) -> str:
    """How the caller changes a query ('--find' on the command line, 'find=' in Python): the table above."""
    return _SPELLING[CALLER.get()][what].format(**names)


@contextmanager
def caller(name: str):
    """Hints within this block speak to `name` ('cli' or 'api')."""
    token = CALLER.set(name)
    try:
        yield
    finally:
        CALLER.reset(token)


# a control character would act on the terminal (ESC starts an escape sequence) and a lone
# surrogate (an undecodable byte of a file name or an argument) cannot be encoded: render escapes them
_UNPRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def printable(text: str) -> str:
    """Text as a terminal should show it: control characters and lone surrogates as escapes (\\x1b, \\udcff)."""
    return _UNPRINTABLE.sub(lambda m: ascii(m.group())[1:-1], text)


def display_path(path: Path | str) -> str:
    """Paths in messages: relative to the working folder when inside it."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


@dataclass(frozen=True)
class Loc:
    """A place in a source file: 1-based line and column, and the line's text."""

    path: str
    line: int = 0
    col: int = 0
    text: str = ""

    def shift(self, cols: int) -> Loc:
        return replace(self, col=self.col + cols)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}" if self.line else self.path


class ChaincError(Exception):
    """Root of chainc's errors: a message, a location and a hint."""

    kind = "error"
    exit_code = 2  # the CLI's exit code for this error

    def __init__(self, message: str, loc: Loc | None = None, hint: str = ""):
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.hint = hint

    def __str__(self) -> str:
        """The message, its place and the hint: what a traceback in a notebook shows."""
        where = f"{self.loc}: " if self.loc else ""
        return f"{where}{self.message}" + (f"\nhint: {self.hint}" if self.hint else "")

    def render(self) -> str:
        """`path:line:col: error: message`, the source line with a caret, the hint."""
        where = f"{self.loc}: " if self.loc else ""
        lines = [f"{where}{self.kind}: {self.message}"]
        if self.loc and self.loc.text:
            lines.append(f"    {self.loc.text}")
            lines.append("    " + " " * max(self.loc.col - 1, 0) + "^")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(printable(line) for line in lines)


class ModelError(ChaincError, ValueError):
    """The model file is wrong: syntax, schema, unknown names, forbidden constructs."""


class UnitError(ModelError):
    """Dimensions disagree; carries both sides' dimensions."""

    def __init__(self, message: str, loc: Loc | None = None, hint: str = "", left: str = "", right: str = ""):
        super().__init__(message, loc, hint)
        self.left = left
        self.right = right


class StructureError(ModelError):
    """The query is over- or under-determined."""

    def __init__(self, message: str, loc: Loc | None = None, hint: str = "", undetermined=(), redundant=()):
        super().__init__(message, loc, hint)
        self.undetermined = tuple(undetermined)
        self.redundant = tuple(redundant)


class SolveError(ChaincError, ArithmeticError):
    """No feasible answer, or no way to find one."""


class LimitError(SolveError):
    """A limit of limits.py stopped the computation: the message names it, the hint says how to raise it."""


class NoAnswerError(SolveError):
    """A question without an answer: why is 'infeasible' (no value meets it) or 'unbounded' (no extreme)."""

    def __init__(self, message: str, loc=None, hint: str = "", why: str = "infeasible"):
        super().__init__(message, loc, hint)
        self.why = why


class ArgumentError(ChaincError, ValueError):
    """A command-line argument is wrong."""


class OutputError(ChaincError, OSError):
    """An output cannot be written: a read-only folder, a full disk, a file where a folder should be."""


class CheckFailed(ChaincError, AssertionError):
    """A model's check disagrees with the computed value (exit code 1, as `chainc check`)."""

    exit_code = 1
