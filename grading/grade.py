"""Grading one submission, on top of the pipeline's steps (grading.pipeline) and the check cell's report
(grading.checkcell): the saved check output is verified against a re-run that reuses the graded public run,
and edits outside the blank are reported (不计分) from the same run the check cell shows.
"""
from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Callable

from .checkcell import GRADED_VERSION, CheckReport, edited_version, report_from_state, rerun
from .checkview import bound_html
from .numbering import Numbering
from .pipeline import (step_compile, step_conformance, step_extract, step_gpu, step_hidden, step_manual,
                       step_numbering, step_nvcc, step_public, step_vetoes)
from .receipt import ReceiptCheck, make_receipt, saved_check, verify
from .results import SubmissionResult
from .source import Submission, load_submission
from .spec import Exercise
from .state import GradeState, Options

__all__ = ["Options", "grade_submission", "blocked_result"]


def _public_report(st: GradeState, numbering: Numbering) -> CheckReport:
    """The check cell's report for the submitted code in ``numbering``: built from the graded public run when
    it ran the same way (same source, same numbering, no grader-only block such as nvcc), else a re-run."""
    sub = st.submission
    key = _key(numbering)
    if key not in st.reports:
        same = (_key(numbering) == _key(sub.numbering) and (st.nvcc is None or st.nvcc.status != "failed")
                and st.public_notes is not None and (st.public_ctx is not None or st.blocked))
        st.reports[key] = report_from_state(st, "") if same else rerun(sub.source, st.exercise, numbering)
    return st.reports[key]


def _key(n: Numbering) -> tuple:
    return (n.offset, n.cell, n.where)


def step_receipt(st: GradeState) -> None:
    sub = st.submission
    if sub.kind != "ipynb" or sub.source is None:
        return
    ex = st.exercise
    saved = saved_check(sub.outputs, sub.output_roles, ex.id, sub.exercise_output, sub.calls_check or None)
    fresh, expected, again = [], make_receipt(ex.id, sub.source, [], ex.fingerprint()), None
    if saved is not None and saved.receipt is not None:
        # in the line numbering the saved output says it used (the notebook cell's, or the file's when the
        # check ran from a terminal); any other change to it is an edit like any other
        said = next((n for n in map(Numbering.parse, saved.lines, [ex.target_name] * len(saved.lines)) if n), None)
        again = _public_report(st, said or sub.numbering)
        fresh = again.body_lines()
        expected = make_receipt(ex.id, sub.source, fresh, ex.fingerprint())
    st.receipt = verify(saved, expected, fresh)
    if st.receipt.status == "ok" and again is not None and saved.cell < len(sub.outputs_html):
        views = sub.outputs_html[saved.cell]
        if any(bound_html(v) != bound_html(again.html()) for v in views):
            st.receipt = ReceiptCheck("edited", f"检查单元格（第 {saved.cell + 1} 个代码单元格）保存的网页视图（HTML）"
                                                "与这份代码重新运行的结果不一致：输出在运行之后被改动过。")
    st.result.instructor["receipt"] = st.receipt.status
    if st.receipt.needs_rerun:
        st.result.instructor["needs_rerun"] = True
    if st.receipt.status != "none":
        st.result.notes.append(st.receipt.message)


def step_edited(st: GradeState) -> None:
    """Edits outside the blank are not graded, but what they do is said: the check cell's run of the source as
    written (races, wrong results, errors), marked 不计分, joins the conformance item; and every check's
    message says it is about the graded version, so no line about the template reads as about the edits.
    Last of the graded steps, under the edited version's own work budget (public.EDITED_WORK_LIMIT)."""
    conf = st.conformance
    if conf is None or not conf.edits or st.blocked or not st.submission.source:
        return
    for t in st.result.tests:
        if t.id not in ("conformance", "nvcc") and "manual" not in t.tags and not t.output.startswith(GRADED_VERSION):
            t.output = GRADED_VERSION + t.output
    report = st.reports.get(_key(st.submission.numbering))
    lines = report.edited if report is not None else edited_version(
        st.submission.source, st.exercise, st.result.value, st.result.blank or "", st.submission.numbering)
    test = next((t for t in st.result.tests if t.id == "conformance"), None)
    if lines and test is not None:
        test.output += "\n\n" + "\n".join(ln.strip() for ln in lines)


STEPS: list[Callable[[GradeState], None]] = [
    step_extract, step_conformance, step_nvcc, step_compile, step_public, step_hidden, step_gpu, step_receipt,
    step_numbering, step_vetoes, step_manual, step_edited,
]


def grade_submission(target: Path | Submission, exercise: Exercise, *, name: str | None = None,
                     options: Options | None = None) -> SubmissionResult:
    """Grade one submission; a bad submission gives a graded result, never an exception."""
    t0 = time.perf_counter()
    options = options or Options()
    sub = target if isinstance(target, Submission) else load_submission(Path(target), exercise, name)
    result = SubmissionResult(sub.name, exercise.id, sub.kind, pass_score=float(exercise.config["pass_score"]))
    st = GradeState(exercise, sub, options, result)
    for step in STEPS:
        try:
            step(st)
        except Exception:
            tb = traceback.format_exc()
            result.instructor.setdefault("internal_errors", []).append(tb)
            result.notes.append(f"评分程序内部错误（{step.__name__}），不是你的问题，已通知老师。")
            if not st.blocked:
                st.blocked = "评分程序内部错误。"
    result.seconds = time.perf_counter() - t0
    return result



def blocked_result(target: Path | Submission, exercise: Exercise, message: str, *, name: str | None = None,
                   options: Options | None = None) -> SubmissionResult:
    """A graded result for a submission whose checks could not run (timeout, crashed worker)."""
    options = options or Options()
    try:
        sub = target if isinstance(target, Submission) else load_submission(Path(target), exercise, name)
    except Exception:
        sub = Submission(name or Path(str(target)).stem, None, "none")
    result = SubmissionResult(sub.name, exercise.id, sub.kind, problem=message,
                              pass_score=float(exercise.config["pass_score"]))
    st = GradeState(exercise, sub, options, result, blocked=message)
    for step in (step_public, step_hidden, step_manual):
        step(st)
    return result
