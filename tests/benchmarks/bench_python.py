"""Benchmark the Python backend: generated functions against hand-written ones, measured side by side in one run.

Run with `python3 tests/benchmarks/bench_python.py` (or `make bench`). Prints two
tables and asserts nothing: the scalar one compares the generated `goodput.solve()`
with a hand-written function that returns the same Solution record from the same
formulas (target: within 3x); the NumPy one times the vectorised modules over many
points (targets: 1,000,000 goodput points under 50 ms, 100,000 hol-blocking points
under 2 s).
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
from chainc.backends import python as python_backend  # noqa: E402
from chainc.build import reports_for  # noqa: E402


def load(path: Path, prefix: str = "bench"):
    spec = importlib.util.spec_from_file_location(f"{prefix}_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses resolve string annotations through sys.modules
    spec.loader.exec_module(module)
    return module


def hand_written(mod):
    """goodput.solve() as a person would write it: the same formulas and record, no domain checks, no error wording."""
    Solution, GPUS, LLMS = mod.Solution, mod.GPUS, mod.LLMS
    has_memory = "memory" in Solution.__dataclass_fields__
    has_efficiency = "bandwidth_efficiency" in Solution.__dataclass_fields__  # issue 20's terms, neutral by default

    def solve(
        *, gpu="h100-sxm", llm="llama-3.1-8b", weight_bytes=None, kv_bytes_per_token=None, bandwidth=None, memory=None, bandwidth_efficiency=1, step_overhead=0, context=2048, batch=64, tpot_target=10
    ):
        g, m = GPUS[gpu], LLMS[llm]
        w = (m["weight_bytes"] if weight_bytes is None else weight_bytes) * 8e9
        kv = (m["kv_bytes_per_token"] if kv_bytes_per_token is None else kv_bytes_per_token) * 8
        bw = (g["memory_bandwidth"] if bandwidth is None else bandwidth) * 8e12
        mem = (g.get("memory", 0) if memory is None else memory) * 8e9
        step_bytes = w + batch * context * kv
        tpot = step_bytes / (bandwidth_efficiency * bw) + step_overhead / 1000
        throughput = batch / tpot
        goodput = throughput if tpot <= tpot_target / 1000 else 0
        extra = {"memory": mem / 8e9} if has_memory else {}  # goodput gained the GPU's memory after the baseline
        if has_efficiency:
            extra.update(bandwidth_efficiency=bandwidth_efficiency, step_overhead=step_overhead)
        return Solution(
            weight_bytes=w / 8e9,
            kv_bytes_per_token=kv / 8,
            bandwidth=bw / 8e12,
            **extra,
            context=context,
            batch=batch,
            tpot_target=tpot_target,
            step_bytes=step_bytes / 8e9,
            tpot=tpot * 1000,
            throughput=throughput,
            goodput=goodput,
        )

    return solve


def per_call(f, seconds: float) -> float:
    """Seconds per call of f(), over about `seconds`."""
    n, start = 0, time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(200):
            f()
        n += 200
    return elapsed / n


def side_by_side(a, b, rounds: int = 7, seconds: float = 0.15) -> tuple[float, float]:
    """Median seconds per call of a() and b(), measured in alternating rounds (the machine is shared)."""
    ta, tb = [], []
    for _ in range(rounds):
        ta.append(per_call(a, seconds))
        tb.append(per_call(b, seconds))
    return statistics.median(ta), statistics.median(tb)


def timed(f, repeat: int = 5) -> tuple[float, float]:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times), min(times)


def build(project, names: list[str], out: Path, **options) -> list[Path]:
    opts = BuildOptions(out, numpy=True, **options)
    reports, catalog = reports_for(project, names, opts)
    return python_backend.build(reports, catalog, "py", opts)


SCALAR_CASES = (("goodput.solve()", {}), ("goodput.solve(batch=96)", {"batch": 96}), ("goodput.solve(gpu='h200', tpot_target=12.5)", {"gpu": "h200", "tpot_target": 12.5}))


def scalar(gen, rounds: int = 7) -> list[tuple[str, float, float]]:
    """(case, generated s/call, hand-written s/call) for each case, after checking both give the same Solution."""
    hand = hand_written(gen)
    for _, kw in SCALAR_CASES:
        a, b = gen.solve(**kw), hand(**kw)
        assert all(abs(getattr(a, f) - getattr(b, f)) <= 1e-9 * abs(getattr(b, f)) for f in a.__dataclass_fields__), kw
    return [(label, *side_by_side(lambda kw=kw: gen.solve(**kw), lambda kw=kw: hand(**kw), rounds)) for label, kw in SCALAR_CASES]


def numpy_goodput(vec, gen, repeat: int = 5) -> tuple[float, float]:
    """(median, min) seconds of goodput_np.solve over 1,000,000 batch values, checked against the scalar module."""
    import numpy as np

    batch = np.linspace(1, 256, 1_000_000).round()
    s = vec.solve(batch=batch[:1000])
    assert all(abs(s.goodput[i] - gen.solve(batch=float(batch[i])).goodput) <= 1e-9 * max(1.0, s.goodput[i]) for i in range(0, 1000, 97))
    return timed(lambda: vec.solve(batch=batch), repeat)


def numpy_max_batch(vec, gen, repeat: int = 21) -> tuple[float, float]:
    """(median, min) seconds of goodput_np.max_batch over 1,000 TPOT targets, checked against the scalar module."""
    import numpy as np

    targets = np.linspace(5, 50, 1000)
    got = vec.max_batch(tpot_target=targets)
    assert all(got[i] == gen.max_batch(tpot_target=float(targets[i])) for i in range(0, 1000, 37))
    return timed(lambda: vec.max_batch(tpot_target=targets), repeat)


def numpy_hol(hol, repeat: int = 3) -> tuple[float, float]:
    """(median, min) seconds of hol_blocking_np.solve over 100,000 budgets."""
    import numpy as np

    budget = np.linspace(2048, 16384, 100_000)
    return timed(lambda: hol.solve(budget=budget), repeat)


def main() -> None:
    import numpy as np

    project = Project(ROOT)
    model = project.model("goodput")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        t = time.perf_counter()
        build(project, ["goodput", "hol-blocking"], out)
        print(f"build goodput, hol-blocking (py + np): {(time.perf_counter() - t) * 1e3:.0f} ms\n")
        gen = load(out / "goodput.py")
        print(f"{'scalar, per call':44s} {'generated':>11s} {'hand-written':>13s} {'ratio':>7s}")
        for label, g, h in scalar(gen):
            print(f"{label:44s} {g * 1e6:9.2f} us {h * 1e6:10.2f} us {g / h:7.2f}")
        q = per_call(lambda: gen.max_batch(tpot_target=12.5), 0.5)
        api = per_call(lambda: solve(model, {"batch": 96}, project=project), 1.0)
        print(f"{'goodput.max_batch(tpot_target=12.5)':44s} {q * 1e6:9.2f} us")
        print(f"{'chainc.solve(goodput, batch=96), exact':44s} {api * 1e6:9.2f} us   (generated solve() is {api / g:,.0f}x faster)")

        print(f"\n{'NumPy, whole call':44s} {'median':>9s} {'min':>9s}  target")
        vec = load(out / "goodput_np.py")
        med, low = numpy_goodput(vec, gen)
        print(f"{'goodput_np.solve, 1,000,000 batch values':44s} {med * 1e3:6.1f} ms {low * 1e3:6.1f} ms  < 50 ms")
        med, low = numpy_max_batch(vec, gen)
        print(f"{'goodput_np.max_batch, 1,000 targets':44s} {med * 1e3:6.2f} ms {low * 1e3:6.2f} ms  < 1 ms")
        med, low = numpy_hol(load(out / "hol_blocking_np.py"))
        print(f"{'hol_blocking_np.solve, 100,000 budgets':44s} {med * 1e3:6.1f} ms {low * 1e3:6.1f} ms  < 2 s")
        paths = build(project, ["hol-blocking"], out / "query", find=("mfu",), given={"fcfs_mean_ttft": "2 s"})
        query = load(paths[1])
        targets = np.linspace(1.5, 3.0, 10_000)
        med, low = timed(lambda: query.mfu_from_fcfs_mean_ttft(targets), repeat=3)
        print(f"{'hol-blocking mfu from 10,000 TTFTs (search)':44s} {med * 1e3:6.1f} ms {low * 1e3:6.1f} ms")
        vq = per_call(lambda: vec.max_batch(tpot_target=np.array([5.0, 10.0, 12.5, 30.0])), 1.0)
        print(f"{'goodput_np.max_batch, 4 targets':44s} {vq * 1e3:6.2f} ms            (the scalar rule per element)")


if __name__ == "__main__":
    main()
