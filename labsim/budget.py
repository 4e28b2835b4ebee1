"""The work budget of one launch: threads × steps per thread.

labsim's memory estimate refuses launches that would not fit in memory, and the step budget stops a thread
that loops too long, but a launch of ``<<<1 << 28, 32>>>`` fits in memory and takes hours of a few steps per
thread. The work budget bounds the launch as a whole: the per-thread step budget shrinks to
``limit // threads``, and a launch whose threads could not take even ``MIN_STEPS`` steps each is refused at once
with a WorkBudgetError naming the limit and how to raise it.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator

from .errors import WorkBudgetError

DEFAULT_WORK_LIMIT = None           # no limit unless $LABSIM_WORK_LIMIT or limited(...) sets one (the grader does)
MIN_STEPS = 64                      # fewer per thread than this cannot run even a short kernel
_stack: list[int] = []


def work_limit(limit: int | None = None) -> int | None:
    """``limit`` if given, else the innermost ``limited(...)``, else $LABSIM_WORK_LIMIT, else the default."""
    if limit is not None:
        return int(limit)
    if _stack:
        return _stack[-1]
    env = os.environ.get("LABSIM_WORK_LIMIT", "").strip()
    if env:
        try:
            return int(float(env))
        except ValueError:
            raise WorkBudgetError(f"LABSIM_WORK_LIMIT={env!r} is not a number of thread-steps (e.g. 1e9)") from None
    return DEFAULT_WORK_LIMIT


@contextmanager
def limited(limit: int) -> Iterator[None]:
    """Launches inside the block get at most ``limit`` thread-steps each (a grader's illustrative run)."""
    _stack.append(int(limit))
    try:
        yield
    finally:
        _stack.pop()


def steps_within_budget(threads: int, max_steps: int, limit: int | None = None, **where) -> int:
    """The per-thread step budget of a launch of ``threads`` threads under the work limit."""
    lim = work_limit(limit)
    if lim is None:
        return int(max_steps)
    cap = lim // max(int(threads), 1)
    if cap < MIN_STEPS:
        raise WorkBudgetError(
            f"launch too much work for the lab: {threads} threads x at least {MIN_STEPS} steps each is over "
            f"labsim's work limit of {lim} thread-steps per launch; use a smaller launch, or raise the limit "
            "with the LABSIM_WORK_LIMIT environment variable (e.g. LABSIM_WORK_LIMIT=4e9)", **where)
    return min(int(max_steps), cap)
