"""Ids: the names models, GPUs and LLMs are known by. They name files, so they are checked as ids."""

from __future__ import annotations

import re

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,127}")


def valid_id(text: str) -> bool:
    """Catalog ids name files, so they are checked as ids: no '/', no '..', no leading dot."""
    return bool(_ID.fullmatch(text)) and ".." not in text
