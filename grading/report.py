"""Writing results: Gradescope results.json, feedback.md (Chinese, for the student), gradebook.csv and
_instructor/<submission>.json (hidden-case details, for the instructor only)."""
from __future__ import annotations

import csv
import html
import json
import re
from pathlib import Path

from .results import VERDICT_LABELS, SubmissionResult, auto_tests, mark, summary_text

__all__ = ["summary_text", "feedback_markdown", "write_submission", "write_gradebook"]

_CODE_SPAN = re.compile(r"`([^`\n]{1,400})`")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|#~!])")


def _md_plain(text: str) -> str:
    return _MD_SPECIAL.sub(r"\\\1", html.escape(text, quote=False))


def _code_inert(text: str) -> str:
    """Code inside <code>: Markdown still parses there (a raw-HTML element does not stop it), so its syntax
    characters become entities: ``[x](javascript:...)`` stays text, not a link."""
    return re.sub(r"[\\`*_\[\]|#~!()]", lambda m: f"&#{ord(m.group(0))};", html.escape(text, quote=False))


def md_inline(text: str) -> str:
    """Text that may hold a student's characters, made inert for Markdown: our `code spans` become
    <code> elements with escaped content, everything else has HTML and Markdown syntax escaped, so no
    string in a blank or a file name can open raw HTML or break out of a code span."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out += [_md_plain(text[pos:m.start()]), f"<code>{_code_inert(m.group(1))}</code>"]
        pos = m.end()
    out.append(_md_plain(text[pos:]))
    return "".join(out)


def feedback_markdown(res: SubmissionResult) -> str:
    """feedback.md: what the student sees, in Chinese; hidden checks appear only as counts."""
    out = [f"# 评分反馈：{md_inline(res.name)}", "", f"**结论：{VERDICT_LABELS[res.verdict]}**", "",
           f"得分：{res.score:g} / {res.max_score:g}（其中 {res.pending_max:g} 分待人工评分）。", ""]
    if res.blank is not None:
        out += ["你的填空：" + md_inline(f"`{res.blank}`") + (f" = {res.value}" if res.value is not None else ""), ""]
    if res.problem:
        out += ["## 代码没有运行", "", md_inline(res.problem), ""]
    if res.vetoes:
        out += ["## 一票否决", ""] + [f"- **{v.title}**：{md_inline(v.reason)}" for v in res.vetoes] + [""]
    out += ["## 检查", "", "| 项目 | 得分 | 结果 | 说明 |", "| --- | --- | --- | --- |"]
    for t in auto_tests(res.tests):
        text = "<br>".join(md_inline(line) for line in t.output.split("\n"))
        out.append(f"| {md_inline(t.name)} | {t.score:g}/{t.max_score:g} | {mark(t.status == 'passed')} | {text} |")
    out.append("")
    if res.counter_table is not None:
        out += ["## 计数器对照", "", res.counter_table.markdown(), ""]
    if res.notes:
        out += ["## 说明", ""] + [f"- {md_inline(n)}" for n in res.notes] + [""]
    pending = [t for t in res.tests if t.status == "pending"]
    if pending:
        out += ["## 待人工评分", ""] + [f"- {t.name}（{t.max_score:g} 分）" for t in pending] + [""]
    return "\n".join(out)


INSTRUCTOR_DIR = "_instructor"


def write_submission(res: SubmissionResult, out: Path) -> None:
    """``out/<name>/results.json`` and ``feedback.md`` (safe to hand to the student) and
    ``out/_instructor/<name>.json`` (hidden cases and per-case details: keep it away from students)."""
    from .source import safe_name
    name = safe_name(res.name)
    folder = out / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(res.to_gradescope(), ensure_ascii=False, indent=2) + "\n",
                                         encoding="utf-8")
    (folder / "feedback.md").write_text(feedback_markdown(res), encoding="utf-8")
    instructor = {"submission": res.name, "score": res.score, "verdict": res.verdict,
                  "tests": {t.id: {"status": t.status, "score": t.score, "detail": t.detail} for t in res.tests},
                  **res.instructor}
    (out / INSTRUCTOR_DIR).mkdir(exist_ok=True)
    (out / INSTRUCTOR_DIR / f"{name}.json").write_text(json.dumps(instructor, ensure_ascii=False, indent=2, default=str) + "\n",
                                            encoding="utf-8")


_FORMULA = ("=", "+", "-", "@", "\t", "\r", "\n")


def csv_cell(value: object) -> str:
    """A text cell a spreadsheet shows as text: a leading formula character gets a quote (OWASP's rule)."""
    s = "" if value is None else str(value)
    return "'" + s if s.startswith(_FORMULA) else s


def write_gradebook(results: list[SubmissionResult], path: Path) -> None:
    """One row per submission; one column per test id (in first-seen order)."""
    test_ids: list[str] = []
    for r in results:
        for t in r.tests:
            if t.id not in test_ids:
                test_ids.append(t.id)
    head = ["submission", "source", "score", "max_score", "pending_manual", "verdict", "veto", "blank", "value",
            *test_ids, "receipt", "problem", "seconds"]
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)   # a separator or formula inside a cell stays text in it
        w.writerow(head)
        for r in results:
            # points where a test carries points; passed/failed for the 0-point gates (conformance, nvcc, public)
            by_id = {t.id: ("pending" if t.status == "pending" else f"{t.score:g}" if t.max_score else t.status)
                     for t in r.tests}
            w.writerow([csv_cell(r.name), r.source_kind, f"{r.score:g}", f"{r.max_score:g}", f"{r.pending_max:g}",
                        r.verdict, csv_cell(";".join(v.id for v in r.vetoes)), csv_cell(r.blank),
                        "" if r.value is None else r.value, *[by_id.get(i, "") for i in test_ids],
                        _receipt_cell(r), csv_cell((r.problem or "").replace("\n", " ")), f"{r.seconds:.2f}"])


def _receipt_cell(r: SubmissionResult) -> str:
    """The saved check output's verdict; ``recheck`` means the instructor should have it re-run."""
    status = r.instructor.get("receipt", "")
    return "recheck (re-run needed)" if status == "recheck" else str(status)
