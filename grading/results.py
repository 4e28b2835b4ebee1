"""Result dataclasses and their Gradescope form (results.json schema)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

GRADESCOPE_VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")


@dataclass
class TestResult:
    """One line of the report: a check, a conformance/compile gate or a manual item."""

    __test__ = False               # not a pytest class, despite the name

    id: str
    name: str
    score: float
    max_score: float
    status: str                    # "passed", "failed" or "pending" (manual)
    output: str
    tags: list[str] = field(default_factory=list)
    visibility: str = "visible"
    hidden: bool = False
    detail: str = ""               # instructor only; never in results.json or feedback.md

    def __repr__(self) -> str:
        return f"TestResult({self.id!r}, {self.score:g}/{self.max_score:g}, {self.status})"

    def to_gradescope(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "score": self.score, "max_score": self.max_score,
                             "output": self.output, "tags": list(self.tags), "visibility": self.visibility}
        # Gradescope knows only passed/failed; a pending manual item is neither, so it carries no status
        # and says "pending" in its tags instead.
        if self.status in ("passed", "failed"):
            d["status"] = self.status
        return d


@dataclass
class Veto:
    """A one-vote fail the seed's rubric names."""

    id: str
    title: str
    reason: str

    def __repr__(self) -> str:
        return f"Veto({self.id!r})"


@dataclass
class SubmissionResult:
    """The graded result of one submission."""

    name: str
    exercise: str
    source_kind: str                        # "cu", "ipynb" or "none"
    tests: list[TestResult] = field(default_factory=list)
    vetoes: list[Veto] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problem: str | None = None              # why the code could not be graded (Chinese), if so
    blank: str | None = None
    value: int | None = None
    pass_score: float = 8.0
    seconds: float = 0.0
    instructor: dict[str, Any] = field(default_factory=dict)   # hidden-case details, never shown to students

    def __repr__(self) -> str:
        return (f"SubmissionResult({self.name!r}, {self.score:g}/{self.max_score:g}, {self.verdict}, "
                f"vetoes={[v.id for v in self.vetoes]})")

    @property
    def score(self) -> float:
        return round(sum(t.score for t in self.tests), 6)

    @property
    def max_score(self) -> float:
        return round(sum(t.max_score for t in self.tests), 6)

    @property
    def pending_max(self) -> float:
        return round(sum(t.max_score for t in self.tests if t.status == "pending"), 6)

    @property
    def verdict(self) -> str:
        """"fail" when a veto or the reachable score rules a pass out, "pass", or "pending" (manual)."""
        if self.vetoes or self.score + self.pending_max < self.pass_score:
            return "fail"
        return "pending" if self.pending_max else "pass"

    def to_gradescope(self) -> dict[str, Any]:
        from .report import summary_text
        return {
            "score": self.score,
            "max_score": self.max_score,
            "execution_time": round(self.seconds, 3),
            "output": summary_text(self),
            "visibility": "visible",
            "tests": [t.to_gradescope() for t in self.tests],
            "extra_data": {
                "exercise": self.exercise,
                "submission": self.name,
                "verdict": self.verdict,
                "veto": [asdict(v) for v in self.vetoes],
                "pending_manual_points": self.pending_max,
                "blank": self.blank,
            },
        }
