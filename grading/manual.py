"""Free-text items (the explanation point, Q1–Q3): tests tagged manual, score 0 pending.

What a student may read of the rubric is decided here, per item: results.json (which students read once grades
are published) carries the question and how points are given in general (the criteria), never the model
answer — the rubric's ``elements``, ``scoring`` and ``notes`` name it. Those go to the instructor only
(``TestResult.detail`` → ``_instructor/<submission>.json``). An instructor who wants students to read the model
answers after publishing sets ``rubric_visibility = "full"`` in the exercise's config.toml (default
``"criteria"``).
"""
from __future__ import annotations

from .results import OPTIONAL, TestResult
from .source import Submission
from .spec import Exercise, ManualItem

MAX_ANSWER_CHARS = 4000


def rubric_text(item: ManualItem) -> str:
    r = item.rubric
    if not r:
        return ""
    parts = []
    if r.get("question"):
        parts.append(f"题目：{r['question']}")
    if r.get("elements"):
        parts.append("评分要点（因果链）：\n" + "\n".join(f"- {e}" for e in r["elements"]))
    if r.get("scoring"):
        parts.append("给分：\n" + "\n".join(f"- {s}" for s in r["scoring"]))
    if r.get("notes"):
        parts.append(f"注意：{r['notes']}")
    return "\n".join(parts)


RUBRIC_VISIBILITY = ("criteria", "full")
CRITERIA = "按因果链给分（原因 → 机制 → 结果），不按术语给分；参考答案在成绩公布后由老师讲解。"


def criteria_text(item: ManualItem) -> str:
    """What every student may read of an item's rubric: its question and the general criteria."""
    r = item.rubric or {}
    parts = [f"题目：{r['question']}"] if r.get("question") else []
    return "\n".join(parts + [f"评分方式：{CRITERIA}"])


def manual_tests(ex: Exercise, sub: Submission) -> list[TestResult]:
    out = []
    for item in ex.manual:
        text = sub.answers.get(item.id) if sub.kind == "ipynb" else None
        if sub.kind == "none" and sub.path is not None and sub.path.suffix == ".ipynb":
            answer = "（这份笔记本没有读完，作答请老师直接在笔记本里查看。）"
        elif sub.kind != "ipynb":
            answer = "（提交的不是笔记本，没有找到这一题的作答。）"
        elif text is None:
            answer = f"（笔记本里没有找到标题为 {' / '.join(item.headings)} 的单元格。）"
        elif not text:
            answer = "（未作答。）"
        else:
            answer = text if len(text) <= MAX_ANSWER_CHARS else text[:MAX_ANSWER_CHARS] + "…（已截断）"
        optional = "" if item.counts_toward_pass else "选做：这一项的分数计入总分，但不计入通过规则。"
        output = f"待人工评分（{item.points:g} 分）。{optional}\n\n学生作答：\n{answer}"
        rub = rubric_text(item)
        full = ex.config.get("rubric_visibility", "criteria") == "full"
        if rub:
            output += f"\n\n评分标准：\n{rub if full else criteria_text(item)}"
        tags = ["manual", "pending"] + ([] if item.counts_toward_pass else [OPTIONAL])
        out.append(TestResult(f"manual_{item.id}", item.name, 0, item.points, "pending", output,
                              tags, ex.config.get("manual_visibility", "after_published"),
                              detail=f"评分标准（只给老师）：\n{rub}" if rub else ""))
    return out
