"""What grading one submission accumulates (GradeState) and how to grade (Options).

A leaf module: the pipeline's steps and the veto rules (generic ones and an exercise's own) both read it,
so neither imports the other.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .conformance import Conformance
    from .context import RunContext
    from .nvcc import NvccResult
    from .receipt import ReceiptCheck
    from .results import SubmissionResult
    from .source import Submission
    from .spec import Exercise


@dataclass
class Options:
    """How to grade: ``nvcc`` is "auto" (where it exists), "on" or "off"."""

    nvcc: str = "auto"
    secret: str | None = None
    hidden: bool = True
    gpu: bool = False           # grade --gpu: also run the conforming program natively (grading.gpu)
    # seconds the edited version's run (不计分, after the verdict) may take; None: no limit of its own (the batch
    # sets it from [limits] edited_time_limit_s); 0 or less: it does not run, and the report says so
    edited_time_limit: float | None = None


@dataclass
class GradeState:
    exercise: "Exercise"
    submission: "Submission"
    options: Options
    result: "SubmissionResult"
    conformance: "Conformance | None" = None
    graded_source: str | None = None
    program: Any = None
    blocked: str | None = None            # why checks cannot run (Chinese), shown on every check
    review: bool = False                  # the grader cannot decide: checks wait for a person, not 0 points
    public_ctx: "RunContext | None" = None
    hidden_ctx: "RunContext | None" = None
    receipt: "ReceiptCheck | None" = None
    nvcc: "NvccResult | None" = None
    public_notes: list[str] | None = None     # the notes the public checks added (what the check cell prints)
    reports: dict = field(default_factory=dict)   # numbering key -> the check cell's report (grading.grade)
    saved_edited: tuple | None = None     # (the saved check output's edited section, its numbering key)

    def __repr__(self) -> str:
        return f"GradeState({self.exercise.id}, {self.submission.name!r}, blocked={self.blocked!r})"
