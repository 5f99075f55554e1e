"""Did-you-mean: every name a mistyped one may mean, not only the closest."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def close_names(name: str, names: Iterable[str]) -> list[str]:
    """Those the name begins (flops: flops_bf16, flops_fp8), then the near spellings about as close as the closest.

    Only the user knows which of gpu.flops_bf16 and gpu.flops_fp8 gpu.flops meant, so a hint offers both.
    """
    names = list(names)
    same = [n for n in names if n.lower() == name.lower() and n != name]  # FP8 for fp8: the case alone differs
    ratio = {n: difflib.SequenceMatcher(None, name, n).ratio() for n in names}
    near = [n for n in difflib.get_close_matches(name, names, n=5) if ratio[n] >= max(ratio.values()) - 0.1]
    return list(dict.fromkeys(same + [n for n in names if n.startswith(name + "_")] + near))
