"""RunContext: what a check sees — the student's compiled program, its cases, and memoised runs."""
from __future__ import annotations

from typing import Any

from .sim import (SHARED_LD_INSTR, SHARED_LD_WAVEFRONTS, Case, RunRecord, compile_source, run_case)
from .spec import Exercise


class RunContext:
    """Runs are memoised per (case, schedule), so checks that look at the same case share one run."""

    def __init__(self, exercise: Exercise, program: Any, cases: dict[str, list[Case]], *,
                 value: int | None, blank: str) -> None:
        self.exercise = exercise
        self.program = program
        self._cases = cases
        self.value = value
        self.blank = blank
        self._runs: dict[tuple[str, str], RunRecord] = {}

    def __repr__(self) -> str:
        return f"RunContext({self.exercise.id}, blank={self.blank!r}, runs={len(self._runs)})"

    @property
    def read_line(self) -> int:
        return self.exercise.read_line

    def cases(self, kind: str) -> list[Case]:
        return list(self._cases.get(kind, []))

    def run(self, case: Case, schedule: str = "lockstep") -> RunRecord:
        key = (case.id, schedule)
        if key not in self._runs:
            self._runs[key] = run_case(self.program, self.exercise.config["host_function"], case,
                                       read_line=self.read_line, schedule=schedule,
                                       array=self.exercise.config.get("shared_array", ""))
        return self._runs[key]

    def runs(self, kind: str, schedule: str = "lockstep") -> list[RunRecord]:
        return [self.run(c, schedule) for c in self.cases(kind)]

    def all_runs(self) -> list[RunRecord]:
        return list(self._runs.values())

    def read_factor(self, rec: RunRecord) -> float | None:
        return read_factor(rec, self.read_line)

    def unpadded_factor(self) -> float | None:
        """Wavefronts per request of the transposed read with the unpadded tile (the veto's baseline)."""
        return unpadded_factor(self.exercise)


def read_factor(rec: RunRecord, read_line: int) -> float | None:
    """Shared wavefronts per request of the transposed read in one run."""
    if rec.read_summary is not None and rec.read_summary.requests:
        return rec.read_summary.cost / rec.read_summary.requests
    inst = rec.line_metric(read_line, SHARED_LD_INSTR)
    return rec.line_metric(read_line, SHARED_LD_WAVEFRONTS) / inst if inst else None


_BASELINE: dict[str, float | None] = {}


def unpadded_factor(ex: Exercise) -> float | None:
    if ex.id not in _BASELINE:
        program = compile_source(ex.fill(ex.config["unpadded_blank"]))
        tile = ex.names.get("TILE_DIM", 32)
        rec = run_case(program, ex.config["host_function"], Case("baseline", "baseline", tile, tile, 0, "arange"),
                       read_line=ex.read_line, array=ex.config.get("shared_array", ""))
        _BASELINE[ex.id] = read_factor(rec, ex.read_line) if rec.ok else None
    return _BASELINE[ex.id]
