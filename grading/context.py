"""RunContext: what a check sees — the student's compiled program, its cases, and memoised runs."""
from __future__ import annotations

from typing import Any

from . import sim
from .numbering import FILE, Numbering
from .sim import Case, RunRecord
from .spec import Exercise


class RunContext:
    """Runs are memoised per (case, schedule), so checks that look at the same case share one run.

    ``looked`` counts the runs checks have looked at, so that a check that saw none can be failed.

    ``numbering`` and ``line_map`` (template line -> the student's line, already in that numbering) say which
    line numbers messages show: the runs' errors come in it, and a check names a template line to the student
    as ``ctx.shown_line(line)``.
    """

    def __init__(self, exercise: Exercise, program: Any, cases: dict[str, list[Case]], *,
                 value: int | None, blank: str, numbering: Numbering = FILE,
                 line_map: dict[int, int] | None = None) -> None:
        self.exercise = exercise
        self.numbering = numbering
        self.line_map = dict(line_map or {})
        self.program = program
        self._cases = cases
        self.value = value
        self.blank = blank
        self._runs: dict[tuple[str, str], RunRecord] = {}
        self.looked = 0

    def __repr__(self) -> str:
        return f"RunContext({self.exercise.id}, blank={self.blank!r}, runs={len(self._runs)})"

    def shown_line(self, template_line: int) -> int:
        """The line the student sees for a template line (their file's or their cell's numbering)."""
        return self.line_map.get(template_line, template_line + self.numbering.offset)

    def cases(self, kind: str) -> list[Case]:
        return list(self._cases.get(kind, []))

    def kinds(self) -> list[str]:
        """Case kinds that hold at least one case."""
        return [k for k, v in self._cases.items() if v]

    def all_cases(self) -> list[Case]:
        return [c for cs in self._cases.values() for c in cs]

    def run(self, case: Case, schedule: str = "lockstep") -> RunRecord:
        key = (case.id, schedule)
        if key not in self._runs:
            self._runs[key] = run_exercise(self.exercise, self.program, case, schedule, self.numbering)
        self.looked += 1
        return self._runs[key]

    def runs(self, kind: str, schedule: str = "lockstep") -> list[RunRecord]:
        return [self.run(c, schedule) for c in self.cases(kind)]

    def all_runs(self) -> list[RunRecord]:
        runs = list(self._runs.values())
        self.looked += len(runs)
        return runs


MEMO_RUNS = 512           # run records kept per exercise and process (graded sources × cases)


def run_exercise(ex: Exercise, program: Any, case: Case, schedule: str = "lockstep",
                 numbering: Numbering = FILE) -> RunRecord:
    """One run of ``program`` on ``case``, called as the exercise says, its focus instructions kept; an error's
    message gives its line in ``numbering``.

    Memoised per (graded source, case, schedule, numbering) in the exercise's per-process cache: a batch where
    many students hand in the same blank runs each public case once, and grading a submission again (the same
    name draws the same hidden cases) runs nothing twice. A run depends on nothing else (labsim is
    deterministic); a program without its source (a test double) is never memoised."""
    from .whole import work_budget
    with work_budget(ex):                  # a whole-kernel exercise's launch is the student's: bounded
        return _run_exercise(ex, program, case, schedule, numbering)


def _run_exercise(ex: Exercise, program: Any, case: Case, schedule: str, numbering: Numbering) -> RunRecord:
    source = getattr(program, "source", None)
    if not isinstance(source, str):
        return sim.run_case(program, ex.config["host_function"], ex.call(case), case, focus=ex.focus,
                            schedule=schedule, numbering=numbering)
    import hashlib
    from collections import OrderedDict
    memo = ex.cache.setdefault("runs", OrderedDict())
    key = (hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest(), case.id,
           tuple(case.sizes.items()), case.seed, case.fill, schedule, numbering.offset, numbering.cell,
           numbering.where)
    if key in memo:
        memo.move_to_end(key)
        return memo[key]
    rec = sim.run_case(program, ex.config["host_function"], ex.call(case), case, focus=ex.focus,
                       schedule=schedule, numbering=numbering)
    memo[key] = rec
    while len(memo) > MEMO_RUNS:
        memo.popitem(last=False)
    return rec


def compile_exercise(ex: Exercise, blank_text: str) -> Any:
    """The template with ``blank_text`` in the blank, compiled on labsim (for an exercise's baselines)."""
    return sim.compile_source(ex.fill(blank_text), ex.target_name)
