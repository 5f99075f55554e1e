"""Benchmark the Python backend: generated goodput.solve() against the chainc API, and a NumPy sweep.

Run with `python3 tests/benchmarks/bench_python.py`. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from chainc import Project, solve  # noqa: E402
from chainc.backends import BuildOptions  # noqa: E402
from chainc.backends.python import build  # noqa: E402


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def rate(f, seconds: float = 1.0) -> float:
    """Calls per second of f(), over about `seconds`."""
    n, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(100):
            f()
        n += 100
    return n / elapsed


def main() -> None:
    project = Project(ROOT)
    model = project.model("goodput")
    with tempfile.TemporaryDirectory() as out:
        t = time.perf_counter()
        paths = build(project, [model], "py", BuildOptions(Path(out), numpy=True))
        print(f"{'build goodput.py + goodput_np.py':55s} {(time.perf_counter() - t) * 1e3:10.1f} ms")
        scalar = load(Path(out) / "goodput.py")
        vec = load(Path(out) / "goodput_np.py")
        assert len(paths) == 2

        generated = rate(lambda: scalar.solve(batch=96))
        api = rate(lambda: solve(model, {"batch": 96}, project=project), seconds=2.0)
        print(f"{'generated goodput.solve(batch=96)':55s} {generated:12,.0f} calls/s")
        print(f"{'compiler.solve(goodput, {batch: 96})':55s} {api:12,.0f} calls/s")
        print(f"{'speed-up':55s} {generated / api:12,.0f} x")
        q = rate(lambda: scalar.max_batch(tpot_target=12.5))
        print(f"{'generated goodput.max_batch(tpot_target=12.5)':55s} {q:12,.0f} calls/s")

        import numpy as np

        batch = np.linspace(1, 256, 1_000_000)
        times = []
        for _ in range(5):
            t = time.perf_counter()
            s = vec.solve(batch=batch)
            times.append(time.perf_counter() - t)
        print(f"{'NumPy sweep, 1,000,000 batch values (goodput_np.solve)':55s} {statistics.median(times) * 1e3:10.1f} ms (median of 5, min {min(times) * 1e3:.1f})")
        t = time.perf_counter()
        loop = [scalar.solve(batch=float(b)).goodput for b in batch[:100_000]]
        per_point = (time.perf_counter() - t) / 100_000
        print(f"{'scalar loop, same sweep (extrapolated from 100,000)':55s} {per_point * 1e6 * 1e3:10.1f} ms")
        assert abs(loop[-1] - s.goodput[99_999]) <= 1e-9 * abs(loop[-1])


if __name__ == "__main__":
    main()
