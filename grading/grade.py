"""Grading one submission, on top of the pipeline's steps (grading.pipeline) and the check cell's report
(grading.checkcell): the saved check output is verified against a re-run that reuses the graded public run,
and edits outside the blank are reported (不计分) from the same run the check cell shows.

Two phases: the graded steps (``GRADED_STEPS``) decide the score, the verdict and every graded message; only
then does the edited version (the student's source as written) run, under its own time limit
(``Options.edited_time_limit``; a batch worker sends its graded result first, and the parent stops an edited
run that overruns without touching that result). Nothing the edited version does can cost the graded run
its time or change its verdict.
"""
from __future__ import annotations

import time
import traceback
from pathlib import Path
from typing import Callable

from dataclasses import replace

from .checkcell import (EDITED_HEAD, EDITED_TITLE, GRADED_VERSION, CheckReport, edited_version, report_from_state,
                        rerun, saved_edited_section)
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
        # without the edited version's section: that runs after the verdict, under its own time limit
        st.reports[key] = (report_from_state(st, "", edited=False) if same
                           else rerun(sub.source, st.exercise, numbering, edited=False))
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
        if _edited_pending(st) and not again.problem:
            # the receipt check binds the graded lines; the edited version's section (不计分) is taken as saved
            # here and compared with the grader's own run of it after the verdict (step_edited)
            section = saved_edited_section(saved.lines)
            st.saved_edited = (section, _key(said or sub.numbering))
            again = replace(again, edited_text=section or [EDITED_HEAD])
        fresh = again.body_lines()
        expected = make_receipt(ex.id, sub.source, fresh, ex.fingerprint())
        again.receipt = expected.line()
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


def _edited_pending(st: GradeState) -> bool:
    """Whether code outside the blank was edited (the check cell then prints the edited version's section)."""
    conf = st.conformance
    return not (conf is None or not conf.edits or st.blocked or not st.submission.source)


def step_graded_version(st: GradeState) -> None:
    """When code outside the blank was edited, every check's message says it is about the graded version, so
    no line about the template reads as about the edits (a graded step: the message does not wait for the
    edited version's run)."""
    if not _edited_pending(st):
        return
    for t in st.result.tests:
        if t.id not in ("conformance", "nvcc") and "manual" not in t.tags and not t.output.startswith(GRADED_VERSION):
            t.output = GRADED_VERSION + t.output


def step_edited(st: GradeState) -> None:
    """Edits outside the blank are not graded, but what they do is said: the check cell's run of the source as
    written (races, wrong results, errors), marked 不计分, joins the conformance item. Runs after the graded
    steps, under the edited version's own work budget (checkcell.EDITED_WORK_LIMIT per launch) and time limit;
    it changes no score, verdict or graded message. The saved check output's edited section (taken as saved by
    the receipt check) is compared with this run here: a difference is said, 不计分, and flagged for the
    instructor, never a veto (the verdict was final before this ran)."""
    if not _edited_pending(st):
        return
    lines = edited_version(st.submission.source, st.exercise, st.result.value, st.result.blank or "",
                           st.submission.numbering)
    test = next((t for t in st.result.tests if t.id == "conformance"), None)
    if lines and test is not None:
        test.output += "\n\n" + "\n".join(ln.strip() for ln in lines)
    saved = st.saved_edited
    if saved is not None and saved[1] == _key(st.submission.numbering) and st.receipt is not None \
            and not st.receipt.flagged:
        from .results import plain
        fresh = [plain(ln) for ln in lines]
        if [ln.rstrip() for ln in saved[0]] != [ln.rstrip() for ln in fresh]:
            st.result.instructor["edited_section"] = "differs"
            st.result.notes.append(f"{EDITED_TITLE}：检查单元格保存的这一部分与评分程序对你修改后的代码的运行不一致"
                                   "（这一部分不计分，分数和结论不受影响；老师会看到这条说明）。")


def edited_stopped(result: SubmissionResult, seconds: float, *, crashed: bool = False) -> SubmissionResult:
    """``result`` (the graded phase's, final) with a note that the edited version's run did not finish: it
    stopped at its own time limit (``seconds``), or its worker died in it. No score, verdict or graded message
    changes."""
    how = ("没有运行完（评分进程在这一步意外退出）" if crashed
           else f"在它自己的时间上限（{seconds:g} 秒）处停止，没有运行完")
    text = (f"{EDITED_TITLE}：运行你修改后的代码的检查{how}，这里不报告它的结果。"
            "评分版本（模板 + 你的填空）的分数、结论和每一项检查都不受影响。")
    test = next((t for t in result.tests if t.id == "conformance"), None)
    if test is not None:
        test.output += "\n\n" + text
    else:
        result.notes.append(text)
    result.instructor["edited_version"] = ("worker died in the edited version's run" if crashed else
                                           f"stopped at its time limit of {seconds:g} s ([limits] edited_time_limit_s)")
    return result


GRADED_STEPS: list[Callable[[GradeState], None]] = [
    step_extract, step_conformance, step_nvcc, step_compile, step_public, step_hidden, step_gpu, step_receipt,
    step_numbering, step_vetoes, step_manual, step_graded_version,
]
STEPS = [*GRADED_STEPS, step_edited]


def grade_submission(target: Path | Submission, exercise: Exercise, *, name: str | None = None,
                     options: Options | None = None,
                     on_graded: Callable[[SubmissionResult], None] | None = None) -> SubmissionResult:
    """Grade one submission; a bad submission gives a graded result, never an exception.

    The graded steps run first; their result is final. ``on_graded(result)`` is then called (a batch worker
    sends it to its parent) when the edited version is still to run, and the edited version runs last: an
    error in it is a note, never a verdict. ``options.edited_time_limit`` of 0 (or less) stops it before it
    starts (the note says so)."""
    t0 = time.perf_counter()
    options = options or Options()
    sub = target if isinstance(target, Submission) else load_submission(Path(target), exercise, name)
    result = SubmissionResult(sub.name, exercise.id, sub.kind, pass_score=float(exercise.config["pass_score"]))
    st = GradeState(exercise, sub, options, result)
    for step in GRADED_STEPS:
        try:
            step(st)
        except Exception:
            tb = traceback.format_exc()
            result.instructor.setdefault("internal_errors", []).append(tb)
            result.notes.append(f"评分程序内部错误（{step.__name__}），不是你的问题，已通知老师。")
            if not st.blocked:
                st.blocked = "评分程序内部错误。"
    result.seconds = time.perf_counter() - t0
    if _edited_pending(st):
        limit = options.edited_time_limit
        if limit is not None and limit <= 0:
            return edited_stopped(result, limit)
        if on_graded is not None:
            on_graded(result)
        try:
            step_edited(st)
        except Exception:                    # only an illustration: the graded result stands as it is
            result.instructor.setdefault("internal_errors", []).append(traceback.format_exc())
            result.notes.append(f"{EDITED_TITLE}：评分程序运行你修改后的代码时出错（不是你的问题），分数和结论不受影响。")
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
