"""Work bounds for tests that guard against runaway cost (issue 22: no test depends on wall-clock speed).

A test that once said "this takes under 2 s" now says how much *work* it may take, in a unit that does not
change with the machine or with what else runs on it:

* ``python_calls(fn)``: the number of Python function calls ``fn()`` makes (cProfile's count, builtins left
  out to keep the overhead low: deterministic for deterministic code). An exponential macro expansion or an unbounded host loop shows here
  as millions of calls, however fast the machine.
* ``linear_multiple(fn, ref)``: ``fn``'s CPU time as a multiple of ``ref``'s, both run here and now, where
  ``ref`` is a plain linear pass over the same input (``json.loads`` of the same file, say). Machine speed and
  load cancel out; a super-linear regex on a 20 000-character line costs thousands of times a linear pass.

Speed targets themselves (seconds per build, per launch) are printed by ``make bench``.
"""
from __future__ import annotations

import contextlib
import cProfile
import pstats
import signal
import time
from typing import Any, Callable


def python_calls(fn: Callable[[], Any]) -> tuple[int, Any, BaseException | None]:
    """(calls made, fn's result or None, the exception fn raised or None)."""
    prof = cProfile.Profile(builtins=False)
    result, error = None, None
    prof.enable()
    try:
        result = fn()
    except BaseException as e:  # noqa: BLE001 - handed back to the test, which asserts on it
        error = e
    finally:
        prof.disable()
    calls = sum(row[1] for row in pstats.Stats(prof).stats.values())   # (cc, nc, tt, ct, callers)
    return calls, result, error


def linear_multiple(fn: Callable[[], Any], ref: Callable[[], Any]) -> tuple[float, Any]:
    """(fn's CPU time divided by ref's, fn's result). fn runs once; ref, cheap, runs until it is measurable
    and its best time counts."""
    t = time.process_time()
    result = fn()
    cost = time.process_time() - t
    best, n = float("inf"), 1
    while True:
        for _ in range(3):
            t = time.process_time()
            for _ in range(n):
                ref()
            best = min(best, (time.process_time() - t) / n)
        if best * n >= 0.02 or n >= 4096:
            break
        n *= 4
    return cost / max(best, 1e-6), result


@contextlib.contextmanager
def hang_guard(seconds: int):
    """Turn a hang (a blocking read of a FIFO, say) into a failure after ``seconds``. Not a speed target: set it
    far above any honest run on a busy machine."""
    def fire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s: hung")
    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
