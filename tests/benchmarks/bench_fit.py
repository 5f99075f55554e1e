"""The bench's fit row: `chainc fit` on a shipped data set, now and in the baseline, side by side.

Both checkouts fit this checkout's data file (an absolute path), so they fit the same rows; a baseline
whose command line has no `fit` (older than issue 20) shows n/a, one whose goodput lacks the free input
shows why its fit failed.
"""

from __future__ import annotations

import subprocess

DATA = "measurements/trtllm-0.6.1-h100-fp8-decode.csv"
FREE = "bandwidth_efficiency"
TARGET = "< 5 s"  # a fit and a held-out refit: about 20 solves of each row, plus the start-up


def has_fit(tool) -> bool:
    return subprocess.run([tool.python, "-m", tool.module, "fit", "--help"], cwd=tool.root, capture_output=True).returncode == 0


def fit_row(bench, root, median_rounds, med, secs, ratio, yes, Row) -> None:
    """One row: the median wall time of `chainc fit goodput --data DATA --free FREE --holdout 0.3` (a fit and a held-out refit)."""
    data = str(root / DATA)
    tools = [t for t in bench.tools if has_fit(t)]
    if bench.now not in tools:
        bench.add(Row(f"`chainc fit goodput --free {FREE}`", TARGET, "n/a: no fit command", "", "", "n/a"))
        return
    cmds = [bench.cmd(t, t.cli("fit", "goodput", "--data", data, "--free", FREE, "--holdout", "0.3", "--json")) for t in tools]
    runs = median_rounds(cmds, bench.args.repeat, bench.args.timeout)
    now, base = med(runs["now"]), med(runs.get("base", []))
    if bench.base is None:
        shown_base = ""
    elif "base" not in runs:
        shown_base = "n/a: no fit command"
    else:
        shown_base = f"{secs(base)} (n={len(runs['base'])})" if base is not None else runs["base"][0].why()
    shown_now = f"{secs(now)} (n={len(runs['now'])})" if now is not None else runs["now"][0].why()
    bench.add(Row(f"`chainc fit goodput --free {FREE} --holdout 0.3`, 4 rows", TARGET, shown_now, shown_base, ratio(now, base), yes(now is not None and now < 5)))
