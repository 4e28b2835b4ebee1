"""Free-text items (the explanation point, Q1–Q3): tests tagged manual, score 0 pending, rubric attached."""
from __future__ import annotations

from .results import TestResult
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
        output = f"待人工评分（{item.points:g} 分）。\n\n学生作答：\n{answer}"
        rub = rubric_text(item)
        if rub:
            output += f"\n\n评分标准：\n{rub}"
        out.append(TestResult(f"manual_{item.id}", item.name, 0, item.points, "pending", output,
                              ["manual", "pending"], ex.config.get("manual_visibility", "after_published")))
    return out
