"""Names and text for generated Python: identifiers that are validated or mangled, literals that cannot break out.

Model names reach generated code only through `Names.take` (a plain ASCII identifier,
no keyword, no leading underscore, none of the reserved names) and model text only
through `literal` (an escaped string), `comment` (one line, no control characters)
and `docstring_text` (escaped for a triple-quoted docstring). Every name the module
itself defines besides its public API starts with an underscore, so no model name
can collide with it.
"""

from __future__ import annotations

import builtins
import keyword
import re
import sys
import unicodedata
from fractions import Fraction

_IDENT = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_BREAKS = {"\n", "\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"}

# builtins and modules a generated function body names besides its locals: variables, tables and columns never take them
BODY_NAMES = {"abs", "min", "max", "round", "range", "len", "float", "int", "bool", "tuple", "isinstance", "enumerate", "sum", "math", "np", "gpu", "llm", "ChainError"}
# module-level names shadow builtins for every function of the module (the copied runtime too): avoid them all
MODULE_RESERVED = BODY_NAMES | set(dir(builtins)) | {"annotations", "dataclass", "NamedTuple", "ArrayLike", "GPU", "LLM", "GPUS", "LLMS", "Solution", "Choice", "solve"}
# a module named like one of these would hide it from its neighbours once the output folder is on sys.path
SHADOWED_MODULES = set(sys.stdlib_module_names) | {"numpy", "chainc", "compiler"}
MODULE_SUFFIX = "_chain"


def is_ident(name: str) -> bool:
    """A plain ASCII identifier that is no keyword and has no leading underscore (soft keywords are valid names)."""
    return bool(_IDENT.match(name)) and not keyword.iskeyword(name)


class Names:
    """Allocates distinct, valid identifiers; a model name is kept when it is one and free, else gets '_' or '_2'."""

    def __init__(self, reserved=()):
        self.taken = set(reserved)

    def take(self, preferred: str, prefix: str = "v") -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", preferred.encode("ascii", "replace").decode()) or prefix
        if not base[0].isalpha():
            base = f"{prefix}_{base.lstrip('_')}" if base.lstrip("_") else prefix
        if not is_ident(base) or base in self.taken:
            base += "_"
        name, k = base, 2
        while name in self.taken or not is_ident(name):
            name, k = f"{base.rstrip('_')}_{k}", k + 1
        self.taken.add(name)
        return name


def module_name(model_name: str) -> str:
    """The module's name: the model's with '-' and '.' as '_'; a standard-library (or numpy) name gets '_chain'."""
    name = model_name.replace("-", "_").replace(".", "_")
    if name in SHADOWED_MODULES:
        name += MODULE_SUFFIX
    return Names(SHADOWED_MODULES).take(name, "chain")


def camel(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in name.split("_") if w)


# --- text ----------------------------------------------------------------------------------------------


def clean(text: str, *, lines: bool = False) -> str:
    """Text with every control, format and line-breaking character replaced by a space (newlines kept if `lines`)."""
    out = []
    for ch in str(text):
        if lines and ch == "\n":
            out.append(ch)
        elif ch in _BREAKS or unicodedata.category(ch)[0] in "CZ" and ch != " ":
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def comment(text: str) -> str:
    """Text safe to follow `# ` on one line."""
    return " ".join(clean(text).split())


def docstring_text(text: str) -> str:
    """Text safe inside a triple-double-quoted docstring: backslashes and quotes escaped, one line per line."""
    text = clean(text, lines=True).replace("\\", "\\\\").replace('"', '\\"')
    return "\n".join(line.rstrip() for line in text.split("\n"))


def literal(text: str) -> str:
    """A double-quoted Python string literal for any text."""
    out = ['"']
    for ch in str(text):
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch.isprintable() and ch not in _BREAKS:
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) < 0x10000:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    out.append('"')
    return "".join(out)


class NotAFloat(ValueError):
    """A number the generated module cannot hold: beyond a float's range (a default of 1e399), or not finite."""


def number(x) -> str:
    """A literal for an exact number: an int when it is whole (and not huge), else the float nearest to it."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, (int, Fraction)) and Fraction(x).denominator == 1 and abs(x) < 10**18:
        return str(int(x))
    try:
        v = float(x)
    except OverflowError:
        raise NotAFloat(f"a number beyond a float's range ({_magnitude(x)})") from None
    if v != v or v in (float("inf"), float("-inf")):
        raise NotAFloat(f"a number that is not finite ({x})")
    return repr(v)


def _magnitude(x) -> str:
    """About 1e399: a number beyond float range, shown by its decimal exponent."""
    f = Fraction(x)
    digits = len(str(abs(f.numerator))) - len(str(f.denominator))
    return f"{'-' if f < 0 else ''}about 1e{digits}"


def optional(x) -> str:
    return "None" if x is None else number(x)


def set_values(d) -> str:
    """A domain's finite set as a tuple literal, or None."""
    if d.values is None:
        return "None"
    return "(" + ", ".join(number(v) for v in d.values) + ("," if len(d.values) == 1 else "") + ")"  # no trailing comma: ruff format would break the tuple up


def domain_tuple(d) -> str:
    """runtime.values.admits's arguments after x: (kind, lo, hi), and a finite set's values where it has one."""
    values = "" if d.values is None else f", {set_values(d)}"
    return f"({literal(d.kind)}, {optional(d.lo)}, {optional(d.hi)}{values})"


def scale(text: str, factor, to_base: bool, atom: bool = True) -> str:
    """`text` times `factor` (to_base) or divided by it, printed with the factor's exact integers.

    `atom`: text is a name or call (binds tighter than * and /); otherwise it is parenthesised.
    """
    f = Fraction(factor)
    p, q = (f.numerator, f.denominator) if to_base else (f.denominator, f.numerator)
    if p == 1 and q == 1:
        return text
    text = text if atom else f"({text})"
    if q == 1:
        return f"{text} * {p}"
    if p == 1:
        return f"{text} / {q}"
    return f"{text} * {p} / {q}"
