"""Batch grading: a pool of worker processes over the machine's cores.

Each submission is graded in a worker (a child process); the parent enforces the per-submission time limit
by killing a worker that runs over and starting a fresh one, so one bad submission never stops the batch.
Results are written as they arrive; the gradebook at the end.

Two limits per submission: ``time_limit`` for the graded steps, and ``edited_time_limit`` of its own for the
edited version's run (不计分) that follows them. A worker sends its graded result before that run starts; when
the run overruns its limit (or the worker dies in it), the parent keeps the graded result as it was and adds
a note that the edited version's check stopped at its limit.
"""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
from multiprocessing.connection import Connection, wait
from pathlib import Path

from dataclasses import replace

from .grade import Options, blocked_result, edited_stopped, grade_submission
from .report import write_gradebook, write_submission
from .results import SubmissionResult
from .source import Submission
from .spec import load_exercise


def _die_with_parent(parent: int) -> None:
    """A worker must not outlive the grader (SIGTERM or SIGKILL to the parent): Linux's parent-death
    signal, and a watchdog thread where that is missing or the parent died before it was set."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)        # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=watch, daemon=True).start()


WORKER_MEMORY_MB = 8192     # address space of one grading worker (config [limits] worker_memory_mb overrides)
EDITED_TIME_LIMIT_S = 20    # the edited version's own run, after the verdict ([limits] edited_time_limit_s)


def _limit_memory(mb: int) -> None:
    """Cap this worker's address space: a submission that makes labsim or the reader allocate without bound
    gets a MemoryError (a graded result) instead of taking the machine's memory from the other workers."""
    try:
        import resource
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        soft = mb << 20 if hard == resource.RLIM_INFINITY else min(mb << 20, hard)
        # the soft limit only: grade --gpu's harness lifts it in its child (a CUDA context reserves far more
        # address space than it uses); only the grader's own code runs in the worker, so none else lifts it
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ImportError, ValueError, OSError):
        pass


def _worker(conn: Connection, exercise: Path, options: Options, parent: int) -> None:
    _die_with_parent(parent)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    ex = load_exercise(exercise)
    mb = int(ex.limits.get("worker_memory_mb", WORKER_MEMORY_MB))
    _limit_memory(mb)
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        name, path = task
        try:
            res = grade_submission(Path(path), ex, name=name, options=options,
                                   on_graded=lambda r: conn.send(("graded", r)))
        except MemoryError:
            res = blocked_result(Path(path), ex, f"评分用完了一个评分进程的内存上限（{mb} MB）：提交的文件或代码要的内存太多。",
                                 name=name, options=options)
        except BaseException as e:  # grade_submission already catches; this is the last line of defence
            res = blocked_result(Path(path), ex, f"评分程序内部错误：{type(e).__name__}", name=name, options=options)
        conn.send(("final", res))


class _Slot:
    def __init__(self, ctx, exercise: Path, options: Options) -> None:
        self.parent, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, exercise, options, os.getpid()), daemon=True)
        self.proc.start()
        child.close()
        self.task: tuple[int, str, str] | None = None
        self.started = 0.0
        self.graded: SubmissionResult | None = None     # the graded result while the edited version runs

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join(5)
        self.parent.close()


def _context():
    methods = mp.get_all_start_methods()
    return mp.get_context("fork" if "fork" in methods else "spawn")


def grade_many(items: list[tuple[str, Path]], exercise: str | Path, out: Path | None = None, *,
               jobs: int | None = None, time_limit: float | None = None, options: Options | None = None,
               progress: bool = True, edited_time_limit: float | None = None) -> list[SubmissionResult]:
    """Grade ``items`` ((name, path) pairs) in parallel; returns results in input order. ``exercise`` is an
    id or an exercise folder. ``time_limit`` bounds a submission's graded steps; ``edited_time_limit`` (default
    ``options.edited_time_limit``, else config ``[limits] edited_time_limit_s``, else 20 s, never more than
    ``time_limit``) separately bounds the edited version's run after them."""
    ex = load_exercise(exercise)
    exercise = ex.folder                # workers load it by folder, whatever roots they see
    options = options or Options()
    limit = float(time_limit if time_limit is not None else ex.limits.get("time_limit_s", 120))
    edited_limit = edited_time_limit if edited_time_limit is not None else options.edited_time_limit
    if edited_limit is None:
        edited_limit = min(limit, float(ex.limits.get("edited_time_limit_s", EDITED_TIME_LIMIT_S)))
    options = replace(options, edited_time_limit=float(edited_limit))
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(items) or 1))
    ctx = _context()
    _warm(ex)
    results: list[SubmissionResult | None] = [None] * len(items)
    pending = list(enumerate(items))[::-1]
    slots = [_Slot(ctx, exercise, options) for _ in range(jobs)]
    bar = _bar(len(items), progress)

    def finish(i: int, res: SubmissionResult) -> None:
        results[i] = res
        if out is not None:
            try:
                write_submission(res, out)
            except OSError as e:          # one unwritable name must not end the batch
                print(f"grading: could not write the results of {res.name!r}: {e}", file=sys.stderr)
        bar.update(1)

    def unread(name: str, path: str) -> Submission:
        """The parent never reads a submission (a FIFO or a slow notebook would stall the batch)."""
        return Submission(name, Path(path), "none")

    previous = _on_sigterm()
    try:
        while pending or any(s.task for s in slots):
            for s in slots:
                if s.task is None and pending:
                    i, (name, path) = pending.pop()
                    s.task, s.started = (i, name, str(path)), time.monotonic()
                    s.parent.send((name, str(path)))
            busy = [s for s in slots if s.task]
            ready = wait([s.parent for s in busy], timeout=0.2)
            for k, s in enumerate(slots):
                if s.task is None:
                    continue
                i, name, path = s.task
                if s.parent in ready:
                    try:
                        kind, res = s.parent.recv()
                    except (EOFError, OSError):
                        kind, res = "final", (
                            edited_stopped(s.graded, float(edited_limit), crashed=True)
                            if s.graded is not None else
                            blocked_result(unread(name, path), ex, "评分进程意外退出（可能是内存耗尽），这份提交没有评完。",
                                           name=name, options=options))
                        s.kill()
                        slots[k] = s = _Slot(ctx, exercise, options)
                    if kind == "graded":        # final; the edited version's run starts its own clock
                        s.graded, s.started = res, time.monotonic()
                        continue
                    s.task, s.graded = None, None
                    finish(i, res)
                elif s.graded is not None and time.monotonic() - s.started > edited_limit:
                    graded = s.graded
                    s.kill()
                    slots[k] = _Slot(ctx, exercise, options)
                    finish(i, edited_stopped(graded, float(edited_limit)))
                elif s.graded is None and time.monotonic() - s.started > limit:
                    s.kill()
                    slots[k] = _Slot(ctx, exercise, options)
                    finish(i, blocked_result(unread(name, path), ex, f"评分超时：超过 {limit:g} 秒，评分进程被终止。",
                                             name=name, options=options))
    finally:
        for s in slots:
            try:
                s.parent.send(None)
            except (OSError, BrokenPipeError):
                pass
            s.proc.join(2)
            if s.proc.is_alive():
                s.kill()
        bar.close()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    done = [r for r in results if r is not None]
    if out is not None:
        _write_gradebook(done, out)
    return done


def _on_sigterm():
    """SIGTERM ends the batch through the ``finally`` that stops the workers; returns the old handler."""
    def stop(signum, frame):
        raise SystemExit(128 + signum)
    try:
        return signal.signal(signal.SIGTERM, stop)
    except ValueError:                 # not the main thread: the workers' parent-death signal still holds
        return None


def _write_gradebook(results: list[SubmissionResult], out: Path) -> None:
    path = out / "gradebook.csv"
    try:
        write_gradebook(results, path)
    except OSError as e:
        alt = out / f"gradebook-{time.strftime('%Y%m%d-%H%M%S')}.csv"
        print(f"grading: could not write {path} ({e.strerror}); writing {alt} instead", file=sys.stderr)
        write_gradebook(results, alt)


def _warm(ex) -> None:
    """Let the exercise compute its per-process values (exercise.py's ``warm(ex)``) once before forking, so
    every worker inherits them."""
    hook = getattr(ex.module, "warm", None)
    if hook is None:
        return
    try:
        hook(ex)
    except Exception:   # a missing front end is reported per submission by the workers
        pass


def _bar(total: int, enabled: bool):
    from tqdm import tqdm
    tqdm.monitor_interval = 0          # no monitor thread: workers are forked while the bar is alive
    return tqdm(total=total, desc="grading", unit="sub", disable=not enabled, leave=False)
