"""Result dataclasses and their Gradescope form (results.json schema)."""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

GRADESCOPE_VISIBILITY = ("hidden", "after_due_date", "after_published", "visible")

# pass/fail marks every report uses: in DejaVu Sans and the CJK fonts a page falls back to, unlike the emoji
# ✅/❌ (empty boxes without an emoji font); older saved outputs used those, so readers accept both
PASS_MARK, FAIL_MARK = "✓", "✗"
PASS_MARKS, FAIL_MARKS = ("✓", "✅"), ("✗", "❌")

_CODE_SPAN = re.compile(r"`([^`\n]{1,400})`")


def mark(passed: bool) -> str:
    return PASS_MARK if passed else FAIL_MARK


def plain(text: str) -> str:
    """A message as plain text shows it: a `code span` (Markdown, for feedback.md) becomes “code”, so no
    literal backtick reaches the check cell or results.json."""
    return _CODE_SPAN.sub(lambda m: f"“{m.group(1)}”", text)


OPTIONAL = "optional"          # the tag of a manual item outside the pass rule (grading.manual)


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
                             "output": plain(self.output), "tags": list(self.tags), "visibility": self.visibility}
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
    # a whole-kernel exercise's counter table (grading.whole.CounterTable): the public counter case's values
    # beside the targets, the reference's and the H200's speeds
    counter_table: Any = None

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
        """"fail" when a veto or the reachable score rules a pass out, "pass", or "pending" (manual). Optional
        items (tag ``optional``: a challenge's design explanation) are outside the rule: they neither help a
        pass nor hold the verdict pending."""
        counted = [t for t in self.tests if OPTIONAL not in t.tags]
        score = sum(t.score for t in counted)
        pending = sum(t.max_score for t in counted if t.status == "pending")
        if self.vetoes or score + pending < self.pass_score:
            return "fail"
        return "pending" if pending else "pass"

    def to_gradescope(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "max_score": self.max_score,
            "execution_time": round(self.seconds, 3),
            "output": plain(summary_text(self)),
            "visibility": "visible",
            "tests": [t.to_gradescope() for t in self.tests],
            "extra_data": {
                "exercise": self.exercise,
                "submission": self.name,
                "verdict": self.verdict,
                "veto": [{**asdict(v), "reason": plain(v.reason)} for v in self.vetoes],
                "pending_manual_points": self.pending_max,
                "pass_score": self.pass_score,
                # manual item id -> its points: what a TA's manual-scores CSV may fill (grading.gradebook)
                "manual_items": {t.id.removeprefix("manual_"): t.max_score for t in self.tests
                                 if "manual" in t.tags},
                # the manual items outside the pass rule (their points add to the score only)
                "optional_manual_items": [t.id.removeprefix("manual_") for t in self.tests
                                          if "manual" in t.tags and OPTIONAL in t.tags],
                "blank": self.blank,
                "labsim": _labsim_counting(),
            },
        }


def _labsim_counting() -> dict:
    """The counting model and mode the grader's labsim used (receipts carry the same)."""
    from .receipt import counting_mode, model_version
    return {"model": model_version(), "counting": counting_mode()}


VERDICT_LABELS = {"pass": "通过", "fail": "未通过", "pending": "待人工评分（自动部分已完成）"}


def auto_tests(tests: list[TestResult]) -> list[TestResult]:
    return [t for t in tests if t.status != "pending"]


def summary_text(res: SubmissionResult) -> str:
    """The submission-level text a student reads first; it never calls a run with failed hidden checks a pass."""
    auto = auto_tests(res.tests)
    a_score, a_max = sum(t.score for t in auto), sum(t.max_score for t in auto)
    lines = [f"{res.exercise} 自动评分：{res.name}"]
    if res.problem:
        lines.append(f"代码没有运行：{res.problem}")
    public = [t for t in auto if "public" in t.tags]
    hidden = [t for t in auto if t.hidden]
    if public:
        ok = sum(t.status == "passed" for t in public)
        lines.append(f"公开检查：通过 {ok}/{len(public)} 项。")
    if hidden:
        failed = [t for t in hidden if t.status != "passed"]
        if failed:
            head = "公开检查全部通过，但" if public and all(t.status == "passed" for t in public) else ""
            lines.append(f"{head}隐藏检查有 {len(failed)}/{len(hidden)} 项没有通过：" +
                         "；".join(t.output.split("\n")[0] for t in failed))
        else:
            lines.append(f"隐藏检查：{len(hidden)}/{len(hidden)} 项通过。")
    if res.counter_table is not None:
        lines.extend(res.counter_table.text_lines())
    lines.append(f"自动评分得分 {a_score:g}/{a_max:g}；待人工评分 {res.pending_max:g} 分。")
    for v in res.vetoes:
        lines.append(f"一票否决：{v.title}。{v.reason}")
    optional = sum(t.max_score for t in res.tests if OPTIONAL in t.tags)
    if optional:
        lines.append(f"结论：{VERDICT_LABELS[res.verdict]}（通过需要选做项之外的得分不低于 {res.pass_score:g}/"
                     f"{res.max_score - optional:g} 且没有一票否决；选做的人工评分 {optional:g} 分计入总分，不计入通过规则）。")
    else:
        lines.append(f"结论：{VERDICT_LABELS[res.verdict]}（通过需要总分不低于 {res.pass_score:g}/{res.max_score:g} 且没有一票否决）。")
    return "\n".join(lines)
