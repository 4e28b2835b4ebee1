"""Running the exercise on labsim: compile the graded source with ``labsim.cuda`` and run one case.

Student code is interpreted by labsim.cuda, never compiled or executed natively here.

Limitations: the checks judge labsim's counters and schedules, not a GPU. Bank conflicts follow labsim's
shared-memory model (checked against an H200, measurements/h200/); races are those labsim's tracker sees
between warps with no barrier between them, and the adversarial schedule is one bad warp order, not every
order a GPU may take.
"""
from __future__ import annotations

import inspect
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

try:  # the engine is a hard dependency; the CUDA front end may be absent in early checkouts
    from labsim.errors import LabsimError, OutOfBoundsError
except ImportError:  # pragma: no cover - labsim is part of this repository
    LabsimError = OutOfBoundsError = Exception  # type: ignore[misc, assignment]

SHARED_LD_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
SHARED_LD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SHARED_LD_INSTR = "smsp__inst_executed_op_shared_ld.sum"


def cuda_available() -> bool:
    """Whether the CUDA C front end (labsim.cuda with ``compile``) is installed."""
    try:
        import labsim.cuda as lc
    except ImportError:
        return False
    return hasattr(lc, "compile")


class SimUnavailable(RuntimeError):
    """labsim.cuda is missing: the grader cannot run checks (a setup problem, not the student's)."""


def compile_source(source: str, filename: str = "09_transpose_tiled.cu") -> Any:
    """``labsim.cuda.compile(source)``; compile errors are LabsimError subclasses naming file:line:col."""
    if not cuda_available():
        raise SimUnavailable("labsim.cuda is not installed: the CUDA C front end is needed to run checks")
    import labsim.cuda as lc
    try:
        return lc.compile(source, filename=filename)
    except TypeError:
        return lc.compile(source)


@dataclass(frozen=True)
class Case:
    """One input: an M×N float32 matrix drawn from ``seed`` (or all ones/arange, see ``fill``)."""

    id: str
    kind: str
    M: int
    N: int
    seed: int = 0
    fill: str = "normal"

    def matrix(self) -> np.ndarray:
        if self.fill == "arange":
            return np.arange(self.M * self.N, dtype=np.float32).reshape(self.M, self.N)
        rng = np.random.default_rng(self.seed)
        return rng.standard_normal((self.M, self.N)).astype(np.float32)

    def __repr__(self) -> str:
        return f"Case({self.id!r}, {self.kind}, {self.M}x{self.N})"


@dataclass
class RunRecord:
    """What one run of the student's program on one case produced."""

    case: Case
    schedule: str
    error_kind: str | None = None          # "oob", "sim" (other labsim error), "internal" (grader bug)
    error: str | None = None
    correct: bool = False
    wrong: int = 0                         # elements that differ from numpy's transpose
    unwritten: int = 0                     # output elements the kernel never wrote
    metrics: dict[str, int] = field(default_factory=dict)
    by_line: dict[int, dict[str, int]] = field(default_factory=dict)
    race_count: int = 0
    races: list = field(default_factory=list)
    read_sample: Any = None                # labsim WarpAccess of the transposed read (one warp instruction)
    read_summary: Any = None               # labsim InstrSummary of that instruction
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error_kind is None

    @property
    def passed(self) -> bool:
        """Right matrix, no error, no race."""
        return self.ok and self.correct and self.race_count == 0

    def line_metric(self, line: int, name: str) -> int:
        return int(self.by_line.get(line, {}).get(name, 0))

    def __repr__(self) -> str:
        state = self.error_kind or ("correct" if self.correct else f"{self.wrong} wrong")
        return f"RunRecord({self.case.id}, {self.schedule}, {state}, races={self.race_count})"


def _accepts(fn: Any, kw: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return kw in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def run_case(program: Any, host_function: str, case: Case, *, read_line: int,
             schedule: str = "lockstep", array: str = "tile") -> RunRecord:
    """Run ``host_function(input, output, M, N, 0)`` on ``case`` and compare with numpy's transpose."""
    rec = RunRecord(case, schedule)
    a = case.matrix()
    out = np.full((case.N, case.M), np.nan, dtype=np.float32)   # NaN marks elements never written
    kwargs = {"schedule": schedule} if schedule != "lockstep" and _accepts(program.call, "schedule") else {}
    t0 = time.perf_counter()
    try:
        result = program.call(host_function, a.reshape(-1), out.reshape(-1), case.M, case.N, 0, **kwargs)
    except OutOfBoundsError as e:
        rec.error_kind, rec.error = "oob", str(e)
    except LabsimError as e:
        rec.error_kind, rec.error = "sim", str(e)
    except Exception as e:  # the simulator itself failed: the grader's problem, reported as such
        rec.error_kind, rec.error = "internal", f"{type(e).__name__}: {e}"
    rec.seconds = time.perf_counter() - t0
    if rec.error_kind:
        return rec
    expected = a.T
    rec.unwritten = int(np.isnan(out).sum())
    rec.wrong = int((~(out == expected)).sum())
    rec.correct = rec.wrong == 0
    rec.metrics = dict(getattr(result, "metrics", {}) or {})
    rec.by_line = {k: dict(v) for k, v in (getattr(result, "by_line", {}) or {}).items()}
    rec.race_count = int(getattr(result, "race_count", 0) or 0)
    rec.races = list(getattr(result, "races", []) or [])[:5]
    for s in getattr(result, "instructions", []) or []:
        if s.space == "shared" and s.op == "ld" and s.line == read_line and (s.array == array or not array):
            rec.read_summary, rec.read_sample = s, s.sample
    return rec
