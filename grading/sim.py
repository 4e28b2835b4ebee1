"""Running an exercise on labsim: compile the graded source with ``labsim.cuda`` and run one case.

Student code is interpreted by labsim.cuda, never compiled or executed natively here. What a case is and how
the host function is called belong to the exercise (its ``exercise.py``: ``call(case) -> Call``); this module
runs the call, compares every declared output with its reference, and keeps the counters and the exercise's
focus instructions (config ``[[focus]]``).

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

from labsim.errors import LabsimError, LaunchTooLargeError, OutOfBoundsError, StepBudgetError, WorkBudgetError

# labsim's own limits (the lab's, not a GPU's): a run they stop has no verdict a GPU could confirm
LAB_LIMITS = (StepBudgetError, WorkBudgetError, LaunchTooLargeError)

SHARED_LD_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
SHARED_LD_WAVEFRONTS = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SHARED_LD_INSTR = "smsp__inst_executed_op_shared_ld.sum"


def compile_source(source: str, filename: str = "exercise.cu") -> Any:
    """``labsim.cuda.compile(source)``; compile errors are LabsimError subclasses naming file:line:col."""
    import labsim.cuda as lc
    return lc.compile(source, filename=filename)


@dataclass(frozen=True, eq=False)
class Case:
    """One input of an exercise: its sizes (any number, named: ``{"M": 64, "N": 96}``, ``{"n": 1000}``),
    the seed its values are drawn from, and a ``fill`` the exercise may interpret ("normal", "arange", ...).

    Sizes read as attributes (``case.M``); ``label`` ("64x96") is how instructor files name the case.
    """

    id: str
    kind: str
    sizes: dict[str, int]
    seed: int = 0
    fill: str = "normal"

    def __getattr__(self, name: str) -> int:
        if name.startswith("_") or name == "sizes":        # not a size (and safe while unpickling)
            raise AttributeError(name)
        try:
            return self.sizes[name]
        except KeyError:
            raise AttributeError(f"case {self.id!r} has no size {name!r} (sizes: {list(self.sizes)})") from None

    def shape_text(self, sep: str = "x") -> str:
        return sep.join(str(v) for v in self.sizes.values())

    @property
    def label(self) -> str:
        return self.shape_text("x")

    def rng(self) -> np.random.Generator:
        return np.random.default_rng(self.seed)

    def __repr__(self) -> str:
        return f"Case({self.id!r}, {self.kind}, {self.label})"


@dataclass
class Output:
    """One output buffer of a call and its reference. Fill ``array`` with NaN before the call (float outputs)
    so that elements the kernel never writes are counted as unwritten; ``atol``/``rtol`` allow rounding."""

    name: str
    array: np.ndarray
    expected: np.ndarray
    atol: float = 0.0
    rtol: float = 0.0

    def __repr__(self) -> str:
        return f"Output({self.name!r}, {self.array.shape})"


@dataclass
class Call:
    """How the host function is called for one case: its positional arguments (numpy arrays are the
    device buffers) and the outputs to compare afterwards."""

    args: tuple
    outputs: list[Output]

    def __repr__(self) -> str:
        return f"Call({len(self.args)} args, outputs={[o.name for o in self.outputs]})"


@dataclass(frozen=True)
class Focus:
    """An instruction the report focuses on (config ``[[focus]]``): found by its template line's text and,
    on that line, by memory space, operation, array name and (``access``) the column its access starts at;
    ``label`` is how reports name it."""

    id: str
    label: str
    line: int                          # template line
    space: str = ""                    # "shared" / "global" / "" (any)
    op: str = ""                       # "ld" / "st" / "atom" / "" (any)
    array: str = ""                    # "" matches any array
    heatmap: bool = False              # the public report's heatmap shows this instruction's sample
    col: int | None = None             # 1-based column of the access (labsim's instruction site); None: any

    def matches(self, s: Any) -> bool:
        return (s.line == self.line and (not self.space or s.space == self.space)
                and (not self.op or s.op == self.op) and (not self.array or s.array == self.array)
                and (self.col is None or getattr(s, "col", None) == self.col))


@dataclass
class RunRecord:
    """What one run of the student's program on one case produced."""

    case: Case
    schedule: str
    error_kind: str | None = None          # "oob", "sim" (other labsim error), "internal" (grader bug)
    error: str | None = None
    limit: bool = False                    # the error is one of labsim's lab limits (sim.LAB_LIMITS)
    correct: bool = False
    wrong: int = 0                         # output elements that differ from the reference
    unwritten: int = 0                     # output elements the kernel never wrote (still NaN)
    metrics: dict[str, int] = field(default_factory=dict)
    by_line: dict[int, dict[str, int]] = field(default_factory=dict)
    race_count: int = 0
    races: list = field(default_factory=list)
    focus: dict[str, Any] = field(default_factory=dict)   # focus id -> labsim InstrSummary (with .sample)
    instructions: list = field(default_factory=list)      # every labsim InstrSummary (the source view's rows)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.error_kind is None

    @property
    def passed(self) -> bool:
        """Right outputs, no error, no race."""
        return self.ok and self.correct and self.race_count == 0

    def line_metric(self, line: int, name: str) -> int:
        return int(self.by_line.get(line, {}).get(name, 0))

    def summary(self, focus_id: str) -> Any:
        """The labsim InstrSummary of a focus instruction (None when it never ran)."""
        return self.focus.get(focus_id)

    def sample(self, focus_id: str) -> Any:
        """One warp's access (labsim WarpAccess) of a focus instruction, or None."""
        s = self.focus.get(focus_id)
        return None if s is None else s.sample

    def __repr__(self) -> str:
        state = self.error_kind or ("correct" if self.correct else f"{self.wrong} wrong")
        return f"RunRecord({self.case.id}, {self.schedule}, {state}, races={self.race_count})"


def _accepts(fn: Any, kw: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return kw in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def _compare(out: Output) -> tuple[int, int]:
    """(wrong, unwritten) elements of one output."""
    got, want = np.asarray(out.array), np.asarray(out.expected)
    if got.shape != want.shape:
        raise ValueError(f"output {out.name!r}: shape {got.shape} but the reference is {want.shape}")
    unwritten = int(np.isnan(got).sum()) if np.issubdtype(got.dtype, np.floating) else 0
    if out.atol or out.rtol:
        same = np.isclose(got, want, atol=out.atol, rtol=out.rtol)
    else:
        same = got == want
    return int((~same).sum()), unwritten


def run_case(program: Any, host_function: str, call: Call, case: Case, *, focus: tuple[Focus, ...] = (),
             schedule: str = "lockstep", numbering: Any = None) -> RunRecord:
    """Run ``host_function(*call.args)`` and compare every output of ``call`` with its reference; an error's
    message gives its line in ``numbering`` (a grading.numbering.Numbering; None: the source's own)."""
    rec = RunRecord(case, schedule)
    kwargs = {"schedule": schedule} if schedule != "lockstep" and _accepts(program.call, "schedule") else {}
    t0 = time.perf_counter()
    try:
        result = program.call(host_function, *call.args, **kwargs)
    except OutOfBoundsError as e:
        rec.error_kind, rec.error = "oob", numbering.error(e) if numbering else str(e)
    except LabsimError as e:
        rec.error_kind, rec.error = "sim", numbering.error(e) if numbering else str(e)
        rec.limit = isinstance(e, LAB_LIMITS)
    except Exception as e:  # the simulator itself failed: the grader's problem, reported as such
        rec.error_kind, rec.error = "internal", f"{type(e).__name__}: {e}"
    rec.seconds = time.perf_counter() - t0
    if rec.error_kind:
        return rec
    for out in call.outputs:
        wrong, unwritten = _compare(out)
        rec.wrong += wrong
        rec.unwritten += unwritten
    rec.correct = rec.wrong == 0
    rec.metrics = dict(getattr(result, "metrics", {}) or {})
    rec.by_line = {k: dict(v) for k, v in (getattr(result, "by_line", {}) or {}).items()}
    rec.race_count = int(getattr(result, "race_count", 0) or 0)
    rec.races = list(getattr(result, "races", []) or [])[:5]
    rec.instructions = list(getattr(result, "instructions", []) or [])
    for s in rec.instructions:
        for f in focus:
            if f.matches(s):
                rec.focus[f.id] = s
    return rec
