"""Issue 11's benchmark: every target measured in one run, side by side with a baseline checkout.

    make bench                                    # this checkout only
    make bench BENCH_ARGS="--baseline /work/baseline"
    .venv/bin/python tests/benchmarks/bench.py --baseline /work/baseline --quick

A baseline is another checkout with its own `make setup` done, for instance main
before issue 11's work:

    git -C /work/main worktree add /work/baseline dd2dda6
    cd /work/baseline && make setup

The baseline runs the same commands with its own `.venv/bin/python -m <module>`
(the module is `chainc`, or `compiler` in checkouts older than the rename). An
option the old command line lacks is adapted: without `--no-cache` the old tool
has no plan cache, so every run of it is cold and the option is dropped; a warm
run of it is the same command. What cannot be adapted is marked n/a.

How each figure is measured (the machine is shared: figures are medians, and the
commands compared in a row run interleaved, in alternating order, round by round):

- a command's wall time: the median of n runs as subprocesses after one warm-up run
  (n is printed in each row); the plan cache lives in a temporary folder
  (CHAINC_CACHE_DIR), so "warm" means this run's warm-up filled it.
- the import floors, `python -c "import sympy"` and `python -c "import sympy, pint;
  pint.UnitRegistry()"`, run with this checkout's Python in the same rounds as the
  command they are compared with; that row's figure is the ratio.
- the synthetic chains (tests/benchmarks/synthetic.py), three families: the bench's own
  (k = 0.5, whose exact values stay short), the same with a decimal coefficient
  (k = 1.001, whose exact numerators grow with every equation) and a mixed one
  (decimals, a quadratic every tenth equation, a step table, a question), each solved
  with `chainc solve FILE --json --no-cache`. The cost exponent is the least-squares
  slope of log(wall - start-up) against log(equations) over 1,000, 10,000 and 100,000
  equations, where start-up is the wall time of the 1-equation chain. The peak
  memory is the ru_maxrss of that run's own subprocess (os.wait4). The 100,000-
  equation run is made once (--quick skips it), stopped after --timeout seconds.
- hol-blocking: a copy of models/hol-blocking.yaml with max_rows raised to 3,000,
  solved with --given long_prompt=3000000 --given budget=1024 (two tables of 2,935
  rows); "beyond start-up" subtracts the same command with long_prompt=1024 (two
  tables of 6 rows: the same plan, the same start-up, no rows to speak of).
- generated code: each checkout builds goodput and hol-blocking with `build --format py
  --numpy`, and this process times the modules it wrote with bench_python.py's
  functions (generated against hand-written, alternating rounds; NumPy calls, median;
  goodput_np.max_batch over 1,000 targets, the vectorised question rule, n = 21).
- the fit (bench_fit.py): `chainc fit goodput --data <this checkout's
  measurements/trtllm-0.6.1-h100-fp8-decode.csv> --free bandwidth_efficiency --holdout 0.3 --json`,
  median wall time; n/a for a baseline without `fit`.

Nothing is asserted: the last column says whether each target is met.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

import synthetic  # noqa: E402

SIZES = (1, 100, 1000, 10_000)  # synthetic chains timed with repeats; 1 is the start-up
BIG = 100_000
FROM = 1000  # the cost exponent is fitted from this size up (below it, start-up dominates)
FAMILIES = {"chain": synthetic.chain, "decimal": lambda n, name: synthetic.chain(n, name, k="1.001"), "mixed": synthetic.mixed}
DESCRIBE = {"chain": "synthetic chain (k = 0.5)", "decimal": "decimal chain (k = 1.001)", "mixed": "mixed chain (quadratics, a table, a question)"}
HOL_ROWS_GIVEN = ("--given", "long_prompt=3000000", "--given", "budget=1024")
HOL_FEW_GIVEN = ("--given", "long_prompt=1024", "--given", "budget=1024")
HOL_MANY_GIVEN = ("--given", "long_prompt=100000000", "--given", "budget=1024")
# the synthetic chains are far beyond a hand-written model's size: raise the input limits for them
BIG_LIMITS = {"CHAINC_MAX_YAML_NODES": "10000000", "CHAINC_MAX_YAML_BYTES": "100000000"}


# --- running commands ----------------------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    rc: int
    maxrss_mb: float
    out: bytes
    err: bytes
    stopped: bool = False

    @property
    def ok(self) -> bool:
        return self.rc == 0 and not self.stopped

    def why(self) -> str:
        """What went wrong, in a few words."""
        if self.stopped:
            return f"stopped after {self.seconds:.0f} s"
        lines = [ln for ln in self.err.decode(errors="replace").splitlines() if ln.strip()]
        last = lines[-1].strip() if lines else ""
        try:
            last = json.loads(self.out)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            pass
        return f"exit {self.rc}: {last[:60]}"


def run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Run:
    """One subprocess: wall time, exit status, and the peak memory of that process alone (os.wait4)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err)
        stopped = threading.Event()
        timer = threading.Timer(timeout, lambda: (stopped.set(), p.kill()))
        timer.start()
        try:
            _, status, usage = os.wait4(p.pid, 0)
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Run(seconds, p.returncode, usage.ru_maxrss / 1024, out.read(), err.read(), stopped.is_set())


@dataclass
class Tool:
    """One checkout's command line: its venv's Python, its module, what its CLI knows."""

    label: str
    root: Path
    python: str
    module: str
    has_cache: bool
    commit: str
    env: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, label: str, root: Path, python: str | None = None) -> Tool:
        root = root.resolve()
        python = python or str(root / ".venv" / "bin" / "python")
        if not Path(python).exists():
            sys.exit(f"bench: no {python}: run `make setup` in {root} first")
        probe = "import importlib.util as u; print('chainc' if u.find_spec('chainc') and u.find_spec('chainc.cli') else 'compiler')"
        module = subprocess.run([python, "-c", probe], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
        helptext = subprocess.run([python, "-m", module, "solve", "--help"], cwd=root, capture_output=True, text=True).stdout
        commit = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %s"], capture_output=True, text=True).stdout.strip()
        return cls(label, root, python, module, "--no-cache" in helptext, commit)

    def cli(self, *args: str, cold: bool = False) -> list[str]:
        """`chainc ARGS`; cold adds --no-cache where the tool has a cache (without one, every run is cold)."""
        extra = ["--no-cache"] if cold and self.has_cache else []
        return [self.python, "-m", self.module, *args, *extra]


@dataclass
class Cmd:
    key: str
    argv: list[str]
    cwd: Path
    env: dict[str, str]


def median_rounds(cmds: list[Cmd], n: int, timeout: float, warm: int = 1) -> dict[str, list[Run]]:
    """n rounds of every command, interleaved (alternating order); a command that fails is not run again."""
    runs: dict[str, list[Run]] = {c.key: [] for c in cmds}
    failed: dict[str, Run] = {}
    for _ in range(warm):
        for c in cmds:
            r = run(c.argv, c.cwd, c.env, timeout)
            if not r.ok:
                failed[c.key] = r
    for i in range(n):
        for c in cmds if i % 2 == 0 else cmds[::-1]:
            if c.key in failed:
                continue
            r = run(c.argv, c.cwd, c.env, timeout)
            if r.ok:
                runs[c.key].append(r)
            else:
                failed[c.key] = r
    for key, r in failed.items():
        runs[key] = [r]  # a failure stands for the command: ok is False
    return runs


def med(runs: list[Run]) -> float | None:
    return statistics.median(r.seconds for r in runs) if runs and runs[0].ok else None


# --- the table -------------------------------------------------------------------------------------


@dataclass
class Row:
    work: str
    target: str
    now: str
    base: str = ""
    ratio: str = ""
    met: str = ""


def secs(t: float | None) -> str:
    if t is None:
        return "n/a"
    return f"{t * 1e3:.0f} ms" if t < 1 else f"{t:.2f} s"


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a is not None and b not in (None, 0) else "n/a"


def yes(ok: bool | None) -> str:
    return "n/a" if ok is None else "yes" if ok else "NO"


def print_table(rows: list[Row], baseline: bool) -> None:
    head = Row("work", "target", "now", "baseline", "now/base", "met")
    cols = ["work", "target", "now"] + (["base", "ratio"] if baseline else []) + ["met"]
    widths = {c: max(len(getattr(r, c)) for r in [head, *rows]) for c in cols}
    line = lambda r: "  ".join(getattr(r, c).ljust(widths[c]) for c in cols).rstrip()  # noqa: E731
    print(line(head))
    print("  ".join("-" * widths[c] for c in cols))
    for r in rows:
        print(line(r))


# --- the rows -------------------------------------------------------------------------------------


class Bench:
    def __init__(self, args: argparse.Namespace, tools: list[Tool], tmp: Path):
        self.args, self.tools, self.tmp = args, tools, tmp
        self.now = tools[0]
        self.base = tools[1] if len(tools) > 1 else None
        self.rows: list[Row] = []
        self.notes: list[str] = []
        cache = tmp / "cache"
        for t in tools:  # each tool its own plan cache, empty at the start of the run
            t.env = {**os.environ, "CHAINC_CACHE_DIR": str(cache / t.label)}
        self.floor_env = dict(os.environ)

    def add(self, row: Row) -> None:
        self.rows.append(row)
        print(f"  {row.work}: {row.now}" + (f" | baseline {row.base}" if self.base else ""), file=sys.stderr, flush=True)

    def cmd(self, tool: Tool, argv: list[str], env: dict[str, str] | None = None) -> Cmd:
        return Cmd(tool.label, argv, tool.root, {**tool.env, **(env or {})})

    def floor(self, key: str, code: str) -> Cmd:
        return Cmd(key, [sys.executable, "-c", code], ROOT, self.floor_env)

    def pair(self, work: str, target: str, runs: dict, met) -> None:
        """A row of plain wall times: now, baseline, their ratio; met(seconds) says if the target holds."""
        n = len(runs["now"])
        now, base = med(runs["now"]), med(runs.get("base", []))
        self.add(
            Row(
                work,
                target,
                f"{secs(now)} (n={n})" if now is not None else runs["now"][0].why(),
                (f"{secs(base)} (n={len(runs['base'])})" if base is not None else runs["base"][0].why()) if self.base else "",
                ratio(now, base),
                yes(met(now) if now is not None else False),
            )
        )

    def commands(self, make, env: dict[str, str] | None = None, floors: list[Cmd] = ()) -> list[Cmd]:
        """make(tool) -> argv, for now and the baseline, plus the floors measured in the same rounds."""
        cmds = [self.cmd(t, make(t), env) for t in self.tools]
        return [*cmds, *floors]

    # --- synthetic chains ---
    def synthetic(self) -> None:
        for family, make in FAMILIES.items():
            self._family(family, make)

    def _family(self, family: str, make) -> None:
        """One family of chains at every size: the 10,000- and 100,000-equation rows and the cost exponent."""
        folder = self.tmp / "chains" / family
        folder.mkdir(parents=True)
        sizes = (*SIZES, BIG) if not self.args.quick else SIZES
        for n in sizes:
            (folder / f"{family}-{n}.yaml").write_text(make(n, f"{family}-{n}"))
        walls: dict[str, dict[int, float | None]] = {t.label: {} for t in self.tools}
        peak: dict[str, dict[int, float]] = {t.label: {} for t in self.tools}
        fails: dict[str, dict[int, str]] = {t.label: {} for t in self.tools}

        def record(t, n, rs):
            walls[t.label][n] = med(rs)
            if rs[0].ok and not _values_ok(rs[0], n, family):
                walls[t.label][n], fails[t.label][n] = None, "wrong answer"
            elif not rs[0].ok:
                walls[t.label][n], fails[t.label][n] = None, rs[0].why()
            peak[t.label][n] = max(r.maxrss_mb for r in rs)

        for n in SIZES:
            reps = self.args.repeat if n < 10_000 else self.args.repeat_large
            runs = median_rounds(
                self.commands(lambda t, n=n: t.cli("solve", str(folder / f"{family}-{n}.yaml"), "--json", cold=True), BIG_LIMITS), reps, self.args.timeout, warm=1 if n < 10_000 else 0
            )
            for t in self.tools:
                record(t, n, runs[t.label])
        if not self.args.quick:
            for t in self.tools:  # once each: minutes on an old front end
                record(t, BIG, [run(t.cli("solve", str(folder / f"{family}-{BIG}.yaml"), "--json", cold=True), t.root, {**t.env, **BIG_LIMITS}, self.args.timeout)])

        def fig(label: str, n: int, reps: int) -> str:
            w = walls.get(label, {}).get(n)
            return f"{secs(w)} (n={reps}, {peak[label][n]:,.0f} MB)" if w is not None else fails.get(label, {}).get(n, "n/a")

        for n, target, limit in ((10_000, "< 5 s", 5), (BIG, "< 60 s", 60)):
            if n == BIG and self.args.quick:
                self.add(Row(f"  {n:,} equations", target, "skipped (--quick)", "skipped" if self.base else "", "", "n/a"))
                continue
            now, base = walls["now"].get(n), walls.get("base", {}).get(n)
            reps = self.args.repeat_large if n < BIG else 1
            work = f"{DESCRIBE[family]}, {n:,} equations: load, plan, solve (peak memory)" if n < BIG else f"  {n:,} equations"
            self.add(Row(work, target, fig("now", n, reps), fig("base", n, reps) if self.base else "", ratio(now, base), yes(now is not None and now < limit)))
        slopes = {t.label: _exponent(walls[t.label]) for t in self.tools}
        show = lambda s: "n/a" if s[0] is None else f"{s[0]:.2f}" + (f" ({s[1]})" if s[1] else "")  # noqa: E731
        self.add(
            Row(
                "  cost exponent, 1,000 to 100,000 equations",
                "<= 1.1",
                show(slopes["now"]),
                show(slopes.get("base")) if self.base else "",
                "",
                yes(slopes["now"][0] is not None and slopes["now"][0] <= 1.1),
            )
        )
        beyond = lambda w: ", ".join(f"{n:,}: {secs(w[n] - w[1]) if w.get(n) is not None and w.get(1) is not None else 'n/a'}" for n in sorted(w) if n > 1)  # noqa: E731
        self.notes.append(f"{family} chains, wall beyond start-up ({secs(walls['now'][1])} for 1 equation): now {beyond(walls['now'])}" + (f"; baseline {beyond(walls['base'])}" if self.base else ""))

    # --- hol-blocking, two tables of 2,935 rows ---
    def hol(self) -> None:
        copy = self.tmp / "hol" / "hol-blocking.yaml"
        copy.parent.mkdir()
        text = (ROOT / "models" / "hol-blocking.yaml").read_text(encoding="utf-8")
        assert text.count("max_rows: 1000") == 2, "models/hol-blocking.yaml changed: update the benchmark's copy"
        copy.write_text(text.replace("max_rows: 1000", "max_rows: 3000"), encoding="utf-8")
        cmds = []
        for t in self.tools:
            for key, given in (("rows", HOL_ROWS_GIVEN), ("few", HOL_FEW_GIVEN)):
                cmds.append(Cmd(f"{t.label}-{key}", t.cli("solve", str(copy), *given, "--json", cold=True), t.root, t.env))
        runs = median_rounds(cmds, self.args.repeat, self.args.timeout)
        figures = {}
        for t in self.tools:
            rows, few = runs[f"{t.label}-rows"], runs[f"{t.label}-few"]
            if not (rows[0].ok and few[0].ok):
                figures[t.label] = (None, None, (rows[0] if not rows[0].ok else few[0]).why())
                continue
            count = sum(len(v) for v in json.loads(rows[0].out)["tables"].values())
            # a difference of two start-ups: the fastest run of each (a shared machine only adds time), never below a ms
            extra = max(min(r.seconds for r in rows) - min(r.seconds for r in few), 1e-3)
            figures[t.label] = (extra, count, f"{secs(extra)}, {count / extra:,.0f} rows/s (fastest of n={len(rows)})")
            self.notes.append(f"hol-blocking, {t.label}: {count:,} rows in {secs(med(rows))}, 12 rows in {secs(med(few))} (start-up, the same plan)")
        now, count, text = figures["now"]
        base = figures.get("base", (None, None, ""))
        self.add(
            Row(
                "hol-blocking, two 2,935-row tables",
                "< 1 s beyond start-up, >= 20,000 rows/s",
                text,
                base[2] if self.base else "",
                ratio(now, base[0]),
                yes(now is not None and now < 1 and count / now >= 20_000),
            )
        )
        # linear to 200,000 rows: the same tables at max_rows 100,000, once each
        many = copy.with_name("hol-many.yaml")
        many.write_text(text_of(copy).replace("max_rows: 3000", "max_rows: 100000").replace("name: hol-blocking", "name: hol-many"), encoding="utf-8")
        big = {}
        for t in self.tools:
            r = run(t.cli("solve", str(many), *HOL_MANY_GIVEN, "--json", cold=True), t.root, t.env, self.args.timeout)
            if not r.ok:
                big[t.label] = (None, r.why())
                continue
            rows = sum(len(v) for v in json.loads(r.out)["tables"].values())
            extra = r.seconds - med(runs[f"{t.label}-few"])
            big[t.label] = (rows / extra, f"{rows:,} rows, {secs(extra)}, {rows / extra:,.0f} rows/s (n=1)")
        self.add(
            Row(
                "  two ~98,000-row tables: linear",
                ">= 20,000 rows/s",
                big["now"][1],
                big.get("base", (None, ""))[1] if self.base else "",
                "",
                yes(big["now"][0] is not None and big["now"][0] >= 20_000),
            )
        )

    # --- goodput, warm and cold ---
    def goodput(self) -> None:
        sympy = self.floor("sympy", "import sympy")
        runs = median_rounds(self.commands(lambda t: t.cli("solve", "goodput", "--json"), floors=[sympy]), self.args.repeat, self.args.timeout)
        floor = med(runs["sympy"])
        now, base = med(runs["now"]), med(runs.get("base", []))
        fig = lambda t: f"{secs(t)}, {t / floor:.2f}x floor (n={len(runs['now'])})" if t is not None else "n/a"  # noqa: E731
        base_fig = fig(base) + ("" if self.base and self.base.has_cache else ", cold") if base is not None else (runs["base"][0].why() if self.base else "")
        self.add(Row("warm `solve goodput --json` (cache hit)", f"< 0.25 s, < import sympy ({secs(floor)})", fig(now), base_fig, ratio(now, base), yes(now is not None and now < 0.25 and now < floor)))

        floor_cmd = self.floor("sympy+pint", "import sympy, pint; pint.UnitRegistry()")
        runs = median_rounds(self.commands(lambda t: t.cli("solve", "goodput", "--json", cold=True), floors=[floor_cmd]), self.args.repeat, self.args.timeout)
        floor = med(runs["sympy+pint"])
        now, base = med(runs["now"]), med(runs.get("base", []))
        fig = lambda t: f"{t / floor:.2f}x floor, {secs(t)} (n={len(runs['now'])})" if t is not None else "n/a"  # noqa: E731
        self.add(
            Row(
                "cold `solve goodput --json --no-cache`",
                f"<= 1.1x sympy + pint floor ({secs(floor)})",
                fig(now),
                fig(base) if self.base else "",
                ratio(now, base),
                yes(now is not None and now <= 1.1 * floor),
            )
        )

    # --- check and build, every model ---
    def check_build(self) -> None:
        runs = median_rounds(self.commands(lambda t: t.cli("check")), self.args.repeat, self.args.timeout)
        self.pair("`chainc check`, all models, warm", "< 0.5 s", runs, lambda t: t < 0.5)
        formats = [a for f in ("json", "xlsx", "tex", "py") for a in ("--format", f)]
        runs = median_rounds(self.commands(lambda t: t.cli("build", *formats, "--out", str(self.tmp / "build" / t.label))), self.args.repeat, self.args.timeout)
        self.pair("`chainc build`, all formats but pdf, all models", "< 3 s", runs, lambda t: t < 3)

    # --- generated Python ---
    def generated(self) -> None:
        import bench_python as bp

        figures = {}
        for t in self.tools:
            out = self.tmp / "py" / t.label
            r = run(t.cli("build", "goodput", "hol-blocking", "--format", "py", "--numpy", "--out", str(out)), t.root, t.env, self.args.timeout)
            if not r.ok:
                figures[t.label] = r.why()
                continue
            gen, vec, hol = (bp.load(out / f, prefix=f"bench_{t.label}") for f in ("goodput.py", "goodput_np.py", "hol_blocking_np.py"))
            cases = bp.scalar(gen)
            figures[t.label] = (cases, bp.numpy_goodput(vec, gen), bp.numpy_hol(hol), bp.numpy_max_batch(vec, gen))
        now, base = figures["now"], figures.get("base")
        if isinstance(now, str):
            self.add(Row("generated goodput.solve()", "<= 3x hand-written", now, "", "", "NO"))
            return
        worst = lambda f: max(g / h for _, g, h in f[0])  # noqa: E731
        per = lambda f: f[0][0][1]  # noqa: E731
        scalar = lambda f: f"{worst(f):.2f}x at worst of {len(f[0])} calls, {per(f) * 1e6:.1f} us" if not isinstance(f, str) else f  # noqa: E731
        ok_base = base is not None and not isinstance(base, str)
        self.add(Row("generated goodput.solve() vs hand-written", "<= 3x", scalar(now), scalar(base) if self.base else "", ratio(per(now), per(base) if ok_base else None), yes(worst(now) <= 3)))
        numpy = lambda f, i: f"{secs(f[i][0])} (n={5 if i == 1 else 3})" if not isinstance(f, str) else f  # noqa: E731
        self.add(Row("  NumPy: goodput, 1,000,000 points", "< 50 ms", numpy(now, 1), numpy(base, 1) if self.base else "", ratio(now[1][0], base[1][0] if ok_base else None), yes(now[1][0] < 0.05)))
        self.add(Row("  NumPy: hol-blocking, 100,000 points", "< 2 s", numpy(now, 2), numpy(base, 2) if self.base else "", ratio(now[2][0], base[2][0] if ok_base else None), yes(now[2][0] < 2)))
        batch = lambda f: f"{f[3][0] * 1e3:.2f} ms (n=21)" if not isinstance(f, str) else f  # noqa: E731
        self.add(
            Row("  NumPy: goodput_np.max_batch over 1,000 targets", "< 1 ms", batch(now), batch(base) if self.base else "", ratio(now[3][0], base[3][0] if ok_base else None), yes(now[3][0] < 0.001))
        )

    # --- a search over 100,000 configurations ---
    def search(self) -> None:
        import bench_search

        path = self.tmp / "grid100k.yaml"
        path.write_text(bench_search.MODEL)
        figures = {}
        for t in self.tools:
            r = run([t.python, "-c", bench_search.SNIPPET, str(path), "3"], t.root, t.env, self.args.timeout)
            figures[t.label] = json.loads(r.out) if r.ok else None
        fig = lambda f: f"{secs(f['run'])} (+{secs(f['prepare'])} to prepare, n={f['n']})" if f else "n/a"  # noqa: E731
        now, base = figures["now"], figures.get("base")
        self.add(
            Row(
                "search: 100,000 configurations, inner integer question",
                "< 2 s",
                fig(now),
                fig(base) if self.base else "",
                ratio(now and now["run"], base and base["run"]),
                yes(now is not None and now["run"] + now["prepare"] < 2),
            )
        )

    # --- chainc fit (issue 20) ---
    def fit(self) -> None:
        from bench_fit import fit_row

        fit_row(self, ROOT, median_rounds, med, secs, ratio, yes, Row)


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _values_ok(r: Run, n: int, family: str = "chain") -> bool:
    """The chain's answer: every variable has a value (n + 2 of them; the mixed chain has n + 4)."""
    try:
        return len(json.loads(r.out)["values"]) == n + (4 if family == "mixed" else 2)
    except (ValueError, KeyError, TypeError):
        return False


def _exponent(walls: dict[int, float | None]) -> tuple[float | None, str]:
    """Least-squares slope of log(wall - start-up) on log(n) over the chains past the 1-equation one, and which.

    A chain whose wall is not above the start-up (100 equations cost ~0.1 s, the start-up's
    spread on a shared machine is as large) cannot be placed on the log scale: the slope is
    taken over the others, and the second value says so.
    """
    start = walls.get(1)
    if start is None:
        return None, "no start-up figure"
    measured = sorted(n for n in walls if n >= FROM)
    sizes = [n for n in measured if walls.get(n) is not None and walls[n] > start]
    if len(sizes) < 2:
        return None, "too few chains above start-up"
    points = [(math.log(n), math.log(walls[n] - start)) for n in sizes]
    mx, my = statistics.fmean(x for x, _ in points), statistics.fmean(y for _, y in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)
    failed = [f"{n:,}" for n in measured if walls.get(n) is None]
    noise = [f"{n:,}" for n in measured if walls.get(n) is not None and n not in sizes]
    why = [*([", ".join(failed) + " failed"] if failed else []), *([", ".join(noise) + " within start-up noise"] if noise else [])]
    return slope, "" if not why else f"{sizes[0]:,} to {sizes[-1]:,}; " + "; ".join(why)


GROUPS = ("synthetic", "hol", "goodput", "check_build", "generated", "search", "fit")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter, epilog="See the docstring of tests/benchmarks/bench.py for how each figure is measured."
    )
    ap.add_argument("--baseline", metavar="DIR", type=Path, help="another checkout, set up with `make setup`, to measure side by side")
    ap.add_argument("--quick", action="store_true", help=f"skip the {BIG:,}-equation chain")
    ap.add_argument("--repeat", type=int, default=7, metavar="N", help="runs per command, the median is shown (default 7)")
    ap.add_argument("--repeat-large", type=int, default=3, metavar="N", help="runs of the 10,000-equation chain (default 3)")
    ap.add_argument("--timeout", type=float, default=300, metavar="S", help="stop one run after S seconds (default 300)")
    ap.add_argument("--only", choices=GROUPS, action="append", help="run only these rows (repeatable)")
    args = ap.parse_args(argv)
    tools = [Tool.of("now", ROOT, sys.executable)]
    if args.baseline:
        tools.append(Tool.of("base", args.baseline))
    print(f"chainc benchmark, {time.strftime('%Y-%m-%d %H:%M')}, {platform.node()}: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, Python {platform.python_version()}", flush=True)
    for t in tools:
        print(f"  {t.label:4s} {t.root} ({t.commit}), python -m {t.module}{'' if t.has_cache else ', no plan cache'}")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="chainc-bench-") as tmp:
        bench = Bench(args, tools, Path(tmp))
        for group in args.only or GROUPS:
            getattr(bench, group)()
        print()
        print_table(bench.rows, args.baseline is not None)
        print()
        for note in bench.notes:
            print(note)
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"interleaved medians on a shared machine (load now {os.getloadavg()[0]:.1f}); the whole run took {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
