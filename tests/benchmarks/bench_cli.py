"""Benchmarks: wall time of the CLI as a user runs it, and of the solver API.

Run with `make bench`. Reports median and spread over repeated runs; nothing is asserted.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHAINC = [sys.executable, "-m", "compiler"]


def wall(argv: list[str], repeat: int = 5) -> list[float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(argv, cwd=ROOT, check=True, capture_output=True)
        times.append(time.perf_counter() - t)
    return times


def report(label: str, times: list[float]) -> None:
    print(f"{label:55s} median {statistics.median(times) * 1e3:8.1f} ms   min {min(times) * 1e3:8.1f}   max {max(times) * 1e3:8.1f}   (n={len(times)})")


def main() -> None:
    report("chainc check (all 8 models, 51 checks)", wall(CHAINC + ["check"]))
    report("chainc solve goodput --question max_batch --json", wall(CHAINC + ["solve", "goodput", "--question", "max_batch", "--json"]))
    report("chainc solve goodput --json", wall(CHAINC + ["solve", "goodput", "--json"]))
    report("chainc solve hol-blocking --json (two tables)", wall(CHAINC + ["solve", "hol-blocking", "--json"]))
    report("python -c 'import chainc' (start-up)", wall([sys.executable, "-c", "import chainc"]))

    sys.path.insert(0, str(ROOT))
    from chainc import Project, ask, solve

    project = Project(ROOT)
    model = project.model("goodput")
    solve(model, project=project)
    n = 200
    t = time.perf_counter()
    for i in range(n):
        solve(model, {"batch": 1 + i % 256}, project=project)
    dt = (time.perf_counter() - t) / n
    print(f"{'API solve(goodput, batch=k), plan cached':55s} {dt * 1e6:8.0f} us/call   ({1 / dt:,.0f} calls/s)")
    t = time.perf_counter()
    for _ in range(20):
        ask(model, "max_batch", project=project)
    print(f"{'API ask(goodput, max_batch)':55s} {(time.perf_counter() - t) / 20 * 1e3:8.2f} ms/call")
    hol = project.model("hol-blocking")
    base = solve(hol, project=project)
    t = time.perf_counter()
    solve(hol, {"fcfs_mean_ttft": base.values["fcfs_mean_ttft"] * 1.1}, find=["long_prompt"], project=project)
    print(f"{'API hol-blocking: long_prompt from fcfs_mean_ttft (numeric)':55s} {(time.perf_counter() - t) * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
