"""What every command prints the same way: errors as JSON."""

from __future__ import annotations

from ..errors import ChaincError


def error_json(e: ChaincError) -> dict:
    loc = e.loc
    return {"kind": e.kind, "path": loc.path if loc else None, "line": loc.line if loc else None, "column": loc.col if loc else None, "message": e.message, "hint": e.hint}
