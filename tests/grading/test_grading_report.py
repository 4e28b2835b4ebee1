"""What students and instructors read: the summary never says "all passed" while a hidden check failed;
feedback.md carries counts, never hidden inputs; results.json keeps Gradescope's schema."""
from __future__ import annotations

import json

from grading_testlib import fill

from grading.grade import Options, grade_submission
from grading.report import feedback_markdown, summary_text
from grading.results import SubmissionResult, TestResult, Veto


def _result(hidden_status: str) -> SubmissionResult:
    r = SubmissionResult("s", "lesson09", "cu")
    r.tests = [TestResult("public_normal", "公开检查", 0, 0, "passed", "ok", ["public"]),
               TestResult("boundary_shapes", "边界形状", 1 if hidden_status == "passed" else 0, 1, hidden_status,
                          "边界形状：3/5（2 个结果错误）", ["hidden"], hidden=True),
               TestResult("manual_Q1", "Q1", 0, 2, "pending", "待人工评分", ["manual", "pending"])]
    return r


def test_public_pass_hidden_fail_is_said_plainly():
    text = summary_text(_result("failed"))
    assert "公开检查全部通过，但隐藏检查有 1/1 项没有通过" in text and "边界形状：3/5" in text
    md = feedback_markdown(_result("failed"))
    assert "✗" in md and "3/5" in md and "❌" not in md


def test_verdict_rules():
    r = _result("passed")
    assert r.score == 1 and r.pending_max == 2
    r.pass_score = 3
    assert r.verdict == "pending"
    r.pass_score = 4
    assert r.verdict == "fail"                       # 1 + 2 pending can no longer reach 4
    r.pass_score = 1
    r.tests = [t for t in r.tests if t.status != "pending"]
    assert r.verdict == "pass"
    r.vetoes.append(Veto("right_by_luck", "x", "y"))
    assert r.verdict == "fail"


def test_manual_items_carry_rubric_and_student_text(ex, tmp_path):
    from nbmaker import notebook, write
    nb = write(notebook(fill(ex, "TILE_DIM + 1"), answers={"Q2": "因为不同 warp 不锁步。"}), tmp_path / "s.ipynb")
    res = grade_submission(nb, ex, options=Options(nvcc="off"))
    q2 = next(t for t in res.tests if t.id == "manual_Q2")
    assert q2.status == "pending" and q2.score == 0 and q2.max_score == 2
    assert "因为不同 warp 不锁步。" in q2.output and q2.max_score == 2
    # students read the question and the criteria, never the model answer; the instructor reads all of it
    assert "删除中间 __syncthreads()" in q2.output and "评分方式" in q2.output
    assert "评分要点" not in q2.output and "RAW" not in q2.output
    assert "评分要点" in q2.detail and "RAW" in q2.detail
    g = q2.to_gradescope()
    assert "status" not in g and g["tags"] == ["manual", "pending"]
    expl = next(t for t in res.tests if t.id == "manual_explanation")
    assert expl.max_score == 1 and "未作答" in expl.output


def test_model_answers_reach_students_only_when_the_instructor_opts_in(ex, tmp_path, monkeypatch):
    from nbmaker import notebook, write

    from grading.report import write_submission
    nb = write(notebook(fill(ex, "TILE_DIM + 1"), answers={"Q2": "x"}), tmp_path / "s.ipynb")
    res = grade_submission(nb, ex, options=Options(nvcc="off"))
    write_submission(res, tmp_path / "out")
    visible = (tmp_path / "out" / "s" / "results.json").read_text(encoding="utf-8")
    instructor = (tmp_path / "out" / "_instructor" / "s.json").read_text(encoding="utf-8")
    for item in ex.manual:
        for element in item.rubric.get("elements", []):
            assert element[:20] not in visible and json.dumps(element, ensure_ascii=False)[1:21] in instructor
    monkeypatch.setitem(ex.config, "rubric_visibility", "full")
    res = grade_submission(nb, ex, options=Options(nvcc="off"))
    q2 = next(t for t in res.tests if t.id == "manual_Q2")
    assert "评分要点" in q2.output and "RAW" in q2.output


def test_feedback_lists_vetoes_and_notes(ex, tmp_path):
    p = tmp_path / "s.cu"
    p.write_text(fill(ex, "TILE_DIM"))
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    md = feedback_markdown(res)
    assert "## 一票否决" in md and "结果正确，但填充没有消除 bank conflict" in md and "未通过" in md
