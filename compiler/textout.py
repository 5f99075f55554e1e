"""Model text on the terminal: printed as text, never as markup or escape sequences.

A title such as `[/]` or `[link=...]` would be rich markup, and a control
character (an ANSI escape, a carriage return, a bidirectional override) would act
on the terminal; both are shown as the characters they are.
"""

from __future__ import annotations

import unicodedata

from rich.text import Text

_KEEP = {"\n", "\t"}


def escape_controls(text: str) -> str:
    """Control and format characters (Cc, Cf, Cs, Co, Cn but newline and tab) as \\x.., \\u.... escapes."""
    out = []
    for ch in str(text):
        if ch not in _KEEP and unicodedata.category(ch)[0] == "C":
            code = ord(ch)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(ch)
    return "".join(out)


def plain(text: str, style: str = "") -> Text:
    """A rich Text of `text` as written: no markup, control characters escaped."""
    return Text(escape_controls(text), style=style)
