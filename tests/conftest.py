import os
import tempfile
import time
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings

# The tests' plan cache lives in a folder of their own, not the user's (and starts empty)
os.environ["CHAINC_CACHE_DIR"] = tempfile.mkdtemp(prefix="chainc-test-cache-")

from chainc import Project

ROOT = Path(__file__).resolve().parent.parent
CI = os.environ.get("CI") == "true"

# Hypothesis profiles for tests/test_fuzz.py and tests/test_fuzz_constructs.py. The default run is small (the whole
# fuzz in a few seconds, the same examples every time); CI=true runs 3,500 examples per fuzz test (21,000 in
# all, 10,500 of them on sums, joins and conditions) with no deadline.
_FUZZ = dict(
    database=None,  # nothing written outside tests/; a failure prints its example
    phases=[Phase.explicit, Phase.generate, Phase.shrink],
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
    deadline=None,  # a shared machine makes timings noisy; time bombs are bounded by the code, not the clock
)
# CI's examples are the same every run (derandomized): a red CI is a change's doing, never a new
# draw. CHAINC_EXPLORE=1 draws new random examples (the way the bugs in the @examples were found).
EXPLORE = os.environ.get("CHAINC_EXPLORE") == "1"
settings.register_profile("fuzz", max_examples=40, derandomize=not EXPLORE, **_FUZZ)
settings.register_profile("fuzz-ci", max_examples=3500, derandomize=not EXPLORE, **_FUZZ)
FUZZ_PROFILE = "fuzz-ci" if CI else "fuzz"

# Profiles for tests/test_agreement.py: random chains compared across the solver and the backends.
# The default run is a few seconds' worth, the same chains every time; CI=true runs a few hundred.
settings.register_profile("agree", max_examples=25, derandomize=not EXPLORE, **_FUZZ)
settings.register_profile("agree-ci", max_examples=300, derandomize=not EXPLORE, **_FUZZ)
AGREE_PROFILE = "agree-ci" if CI else "agree"
AGREE: Counter = Counter()  # chains drawn, accepted, values and errors compared, ...
AGREE_SECONDS: Counter = Counter()
AGREE_SLOWEST: list = [0.0, ""]  # seconds, the chain's text

# examples each fuzz test ran, its wall time and its slowest example: printed at the end of the run
FUZZ_EXAMPLES: Counter = Counter()
FUZZ_SECONDS: Counter = Counter()
FUZZ_SLOWEST: dict[str, tuple[float, str]] = {}
FUZZ_OUTCOMES: Counter = Counter()  # tests/test_fuzz_constructs.py: how far its models got (refused at load, solved, answered)


# Slow tests are marked where they are collected, so a new one cannot be forgotten: a module of
# long searches, or a test (or a fixture it uses) that drives an external engine through tools.require
# or a recalculation helper. `pytest -m "not slow"` is the inner loop; CI runs everything.
SLOW_MODULES = {"test_agreement", "test_fuzz", "test_fuzz_constructs", "test_install", "test_docs"}  # test_docs: its build runs pdflatex
SLOW_WORDS = ("require(", "recalc", "pdflatex", "soffice")


def _drives_a_tool(item) -> bool:
    import inspect

    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {}) or {}
    for f in [getattr(item, "function", None), *(d.func for ds in defs.values() for d in ds)]:
        try:
            text = inspect.getsource(f)
        except (TypeError, OSError):
            continue
        if any(w in text for w in SLOW_WORDS):
            return True
    return False


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.module.__name__.rsplit(".", 1)[-1] in SLOW_MODULES or _drives_a_tool(item):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def project() -> Project:
    return Project(ROOT)


def reports(project: Project, names: list[str], **options):
    """The Reports a build makes of these models (what backends print)."""
    from chainc.backends import BuildOptions
    from chainc.build import reports_for

    return reports_for(project, names, BuildOptions(Path("."), **options))[0]


@pytest.fixture
def fuzz_clock(request):
    start = time.perf_counter()
    yield
    FUZZ_SECONDS[request.node.name] += time.perf_counter() - start


def pytest_terminal_summary(terminalreporter):
    if AGREE:
        a = AGREE
        terminalreporter.write_line(
            f"agreement ({AGREE_PROFILE} profile): {a['chains']:,} random chains, {a['accepted']:,} accepted by the solver "
            f"({a['refused by the loader']:,} refused at load, {a['refused by the solver']:,} by the solver), {a['built']:,} compiled to Python and NumPy "
            f"({a['cannot print (Python)']:,} cannot print) in {AGREE_SECONDS['modules']:.1f} s"
        )
        terminalreporter.write_line(
            f"  {a['points']:,} points solved, {a['values compared']:,} values and {a['errors compared']:,} errors compared; "
            f"{a['questions asked']:,} questions asked ({a['questions answered']:,} answered); {a['queries built']:,} backwards queries built "
            f"({a['queries refused by the solver']:,} refused), asked {a['queries asked']:,} times ({a['queries at a rounding edge']:,} module answers at a rounding edge of the value, not compared)"
        )
        constructs = ", ".join(
            f"{a[f'accepted with {c}']:,} {c}"
            for c in (
                "sum",
                "prod",
                "nested",
                "nested apart",
                "outer index in terms",
                "outer index in bounds",
                "join",
                "conditions",
                "limits",
                "lookup",
                "objective",
                "free",
                "grid",
                "frontier",
                "inner question",
            )
        )
        terminalreporter.write_line(f"  accepted chains with: {constructs}; {a['limits compared']:,} solutions' physical limits compared")
        terminalreporter.write_line(
            f"  searches: {a['searches asked']:,} asked ({a['searches answered']:,} with a best configuration or a frontier), {a['searches compared']:,} compared over "
            f"{a['search rows compared']:,} configurations ({a['searches with tied goals']:,} with tied goals: values only; {a['searches at a rounding edge']:,} at a rounding edge of a condition, not compared)"
        )
        if AGREE_SLOWEST[1]:
            seconds, text = AGREE_SLOWEST
            if seconds < 5:
                first = "; ".join(line.strip() for line in text.splitlines()[3:] if line.strip())
                terminalreporter.write_line(f"  slowest chain: {seconds:.2f} s, {first[:200]}")
            else:  # worth a look: the whole chain
                terminalreporter.write_line(f"  slowest chain: {seconds:.2f} s:")
                for line in text.splitlines():
                    terminalreporter.write_line(f"    {line}")
        if a["workbook chains"]:
            terminalreporter.write_line(
                f"  workbook: {a['workbook chains']:,} chains recalculated by LibreOffice ({a['cannot print (Excel)']:,} cannot print, "
                f"{a['refused by the workbook: grids']:,} refused as a grid of sums it cannot lay out, their modules compared; "
                f"{a['written out by the workbook: grids']:,} grids written out term by term), "
                f"{a['workbook live points']:,} with typed-in inputs, {a['workbook cells compared']:,} cells compared in {AGREE_SECONDS['workbook']:.1f} s"
            )
    if FUZZ_EXAMPLES:
        total = sum(FUZZ_EXAMPLES.values())
        each = ", ".join(f"{name} {n:,} in {FUZZ_SECONDS[name]:.1f} s" for name, n in sorted(FUZZ_EXAMPLES.items()))
        terminalreporter.write_line(f"fuzz ({FUZZ_PROFILE} profile): {total:,} examples: {each}")
        if FUZZ_OUTCOMES:
            terminalreporter.write_line("  constructs' models: " + ", ".join(f"{n:,} {k}" for k, n in sorted(FUZZ_OUTCOMES.items())))
        for name, (seconds, what) in sorted(FUZZ_SLOWEST.items()):
            terminalreporter.write_line(f"  slowest {name}: {seconds:.2f} s, {what}")
