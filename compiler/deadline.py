"""The time budget: loading a model, planning a shape, a forward solve and a question each stop after solve_seconds.

SymPy's closed-form solving and a long search have no bound of their own, so a model
could keep chainc busy for minutes (a degree-1000 polynomial, a sum of a million
terms at every step of a search). The budget is a real-time alarm (SIGALRM) in the
main thread: it interrupts whatever runs, SymPy included, and the error names the
limit and its setting. Budgets do not nest: what runs inside one (the imported
models of a solve, the solves of a question's search) shares it. Outside the main
thread, where Python has no alarm, the runner's loops check the clock instead.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import contextmanager
from functools import wraps

from . import bounded as B
from .errors import LimitError, Loc
from .limits import LIMITS

SOLVE_SECONDS = LIMITS["solve_seconds"]
RERING = 0.05  # seconds: once run out, the alarm rings again until the budget's scope ends, so no handler swallows it


class _State(threading.local):
    end: float | None = None  # when the budget in force runs out (time.monotonic), None outside one
    seconds = 0
    what = "the solve"


_state = _State()  # per thread: a thread's solves have their own budget


class OutOfTime(B.LimitReached):
    """The budget ran out: a limit, not "no value"."""


def out_of_time() -> OutOfTime:
    return OutOfTime(
        f"{_state.what} took more than the solve_seconds limit of {_state.seconds:,} s",
        f"if the model is right, set the environment variable {SOLVE_SECONDS.env} to more seconds (now {_state.seconds:,}); "
        "a model that takes long often has a very high-degree polynomial or a long sum inside a search",
    )


def _ring(signum, frame):
    signal.setitimer(signal.ITIMER_REAL, RERING)
    raise out_of_time()


@contextmanager
def budget(what: str = "the solve", at: Loc | None = None):
    """Run the body within the time budget (or within the one already in force); a run-out nothing located is reported at `at`."""
    if _state.end is not None:
        yield
        return
    seconds = _state.seconds = SOLVE_SECONDS.value()
    _state.what = what
    _state.end = time.monotonic() + seconds
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if armed:
        before = signal.signal(signal.SIGALRM, _ring)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    except OutOfTime as e:  # one no statement located: still the limit, by name
        raise LimitError(e.message, at, e.hint) from None
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, before)
        _state.end = None


class StepOutOfTime(OutOfTime):
    """A step's own budget ran out (deadline.step): the step gives up, the command goes on."""


@contextmanager
def step(seconds: float):
    """Run one step (SymPy planning a block) within its own budget, inside the one in force.

    When the step's time runs out first, StepOutOfTime is raised inside it (and again every RERING
    seconds, so no handler in SymPy swallows it); the caller takes another route. The budget in force
    is re-armed for what is left of it afterwards. Outside the main thread there is no alarm: the step
    runs under the budget in force only.
    """
    armed = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    outer = _state.end
    if not armed or (outer is not None and outer - time.monotonic() <= seconds):
        yield  # the budget in force ends first: it governs
        return

    def ring(signum, frame):
        signal.setitimer(signal.ITIMER_REAL, RERING)
        raise StepOutOfTime(f"a step took more than {seconds:g} s", "")

    before = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)
        if outer is not None:
            signal.setitimer(signal.ITIMER_REAL, max(outer - time.monotonic(), 0.001))


def budgeted(fn):
    """fn runs within the solve time budget."""

    @wraps(fn)
    def run(*args, **kwargs):
        with budget():
            return fn(*args, **kwargs)

    return run


def check() -> None:
    """Raise OutOfTime if the budget in force has run out (the alarm's stand-in outside the main thread)."""
    if _state.end is not None and time.monotonic() > _state.end:
        raise out_of_time()
