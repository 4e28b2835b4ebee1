"""Checks: small decorated functions with their points and visibility (otter's ``@test_case`` idea).

An exercise's ``public_checks.py`` and ``hidden_checks.py`` define them in the order they run::

    @check_case(name="正常形状：结果正确", points=1, hidden=True, kind="normal")
    def normal_correct(ctx: RunContext) -> Outcome: ...

A check gets a RunContext (the student's compiled program, its cases and memoised runs) and returns an
Outcome. The message of a hidden check is shown to the student, so it carries counts and failure kinds,
never inputs; ``detail`` is for the instructor only. A check must look at runs (``ctx.run``, ``ctx.runs``,
``ctx.all_runs``): one that saw none fails, unless it is declared ``needs_runs=False``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from .sim import RunRecord


@dataclass
class Outcome:
    """What a check found. ``fraction`` (0..1) overrides pass/fail scoring for partial credit."""

    passed: bool
    message: str
    detail: str = ""
    notes: list[str] = field(default_factory=list)
    fraction: float | None = None
    data: dict[str, Any] = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Outcome({'passed' if self.passed else 'failed'}, {self.message!r})"


@dataclass(frozen=True)
class CheckSpec:
    """A registered check."""

    id: str
    name: str
    points: float
    hidden: bool
    kind: str
    tags: tuple[str, ...]
    func: Callable[..., Outcome]
    needs_runs: bool = True

    def __repr__(self) -> str:
        return f"CheckSpec({self.id!r}, {self.points} pts, {'hidden' if self.hidden else 'public'})"


def check_case(*, name: str, points: float = 0.0, hidden: bool = False, kind: str = "",
               tags: tuple[str, ...] = (), needs_runs: bool = True
               ) -> Callable[[Callable[..., Outcome]], Callable[..., Outcome]]:
    """Register a function as a check of the module it is defined in."""
    def deco(fn: Callable[..., Outcome]) -> Callable[..., Outcome]:
        fn.__check_spec__ = CheckSpec(fn.__name__, name, float(points), hidden, kind, tuple(tags), fn, needs_runs)
        return fn
    return deco


def collect_checks(module: ModuleType) -> list[CheckSpec]:
    """The module's checks in definition order."""
    return [v.__check_spec__ for v in vars(module).values() if hasattr(v, "__check_spec__")]


def count_message(label: str, passed: int, total: int, failures: dict[str, int] | None = None) -> str:
    """The only shape a hidden check's message takes: "边界形状：3/5（2 个结果错误）"."""
    text = f"{label}：{passed}/{total}"
    kinds = [f"{n} 个{k}" for k, n in (failures or {}).items() if n]
    return text + (f"（{'，'.join(kinds)}）" if kinds else "")


FAILURE_LABELS = {"wrong": "结果错误", "oob": "越界访问", "sim": "运行错误", "internal": "模拟器内部错误",
                  "race": "数据竞争"}


def failure_kind(rec: "RunRecord") -> str | None:
    """Why a run did not pass, as a FAILURE_LABELS key (None when it passed)."""
    if rec.error_kind:
        return rec.error_kind
    if rec.race_count:
        return "race"
    return None if rec.correct else "wrong"


def tally(runs: list["RunRecord"]) -> tuple[int, dict[str, int]]:
    """Runs that passed, and the failures by label (for count_message)."""
    passed, failures = 0, {}
    for r in runs:
        k = failure_kind(r)
        if k is None:
            passed += 1
        else:
            failures[FAILURE_LABELS[k]] = failures.get(FAILURE_LABELS[k], 0) + 1
    return passed, failures


def instructor_detail(runs: list["RunRecord"]) -> str:
    """One line per run for the instructor: case, sizes, seed and what went wrong."""
    lines = []
    for r in runs:
        k = failure_kind(r)
        state = "ok" if k is None else FAILURE_LABELS[k]
        extra = f": {r.error}" if r.error else (f": {r.wrong} wrong, {r.unwritten} unwritten" if r.wrong else "")
        lines.append(f"{r.case.id} {r.case.label} seed={r.case.seed} -> {state}{extra}")
    return "\n".join(lines)


def runs_outcome(label: str, runs: list["RunRecord"]) -> Outcome:
    """A hidden check over a group of runs: passes when every run passed ("方阵：3/3")."""
    passed, failures = tally(runs)
    return Outcome(passed == len(runs), count_message(label, passed, len(runs), failures),
                   detail=instructor_detail(runs))


def oob_outcome(label: str, runs: list["RunRecord"]) -> Outcome:
    """The no-out-of-bounds check every exercise grades over all its runs (the label stays in the hidden checks,
    which the student build keeps out of the kit)."""
    bad = [r for r in runs if r.error_kind == "oob"]
    return Outcome(not bad, count_message(label, len(runs) - len(bad), len(runs)),
                   detail=instructor_detail(bad))


def draw_not_multiple(rng, lo: int, hi: int, of: int = 32) -> int:
    """A size in [lo, hi] that is not a multiple of ``of`` (boundary shapes leave partial tiles)."""
    while True:
        v = int(rng.integers(lo, hi + 1))
        if v % of:
            return v
