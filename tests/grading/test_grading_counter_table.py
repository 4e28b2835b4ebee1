"""Issue 29's feedback table for the challenges (grading.whole.CounterTable): the student's counters on the public
counter case, the target, the ideal, the reference solution's value and the H200's speeds of the reference and the
baseline, in the check cell (text and HTML) and the graded report (results.json, feedback.md); no hidden shape
anywhere in what the student reads."""
from __future__ import annotations

import json
import re

import pytest

from grading.checkcell import check
from grading.grade import Options, grade_submission
from grading.report import feedback_markdown
from grading.spec import INSTRUCTOR_KEYS, INSTRUCTOR_TABLES, load_exercise
from grading.whole import counter_targets

WHOLE = ["p2_challenge", "lesson08_challenge", "lesson09_challenge", "lesson10_challenge"]
SECTORS = "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum + l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"


def _row(text: str, label: str) -> str:
    return next(ln for ln in text.splitlines() if ln.strip().startswith(label + "（"))


def _graded(ex, path):
    return grade_submission(path, ex, options=Options(nvcc="off"))


def test_the_table_holds_the_students_own_counters(tmp_path):
    """lesson 8's challenge: the reference's (8, 32) block reads 4 and writes 8 sectors per 32 elements (0.375 per
    element); the lesson's naive (32, 8) kernel writes 32 (4 + 32 = 36 per 32 elements = 1.125, shown as 1.12)."""
    ex = load_exercise("lesson08_challenge")
    [t] = counter_targets(ex)
    mine = {}
    for name, path in (("solution", ex.solution_path), ("baseline", ex.folder / "baseline.cu")):
        f = tmp_path / name / "challenge.cu"
        f.parent.mkdir()
        f.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
        rep = check(f, ex.id, quiet=True)
        res = _graded(ex, f)
        row = _row(rep.text(), t.label)
        assert row == _row(res.to_gradescope()["output"], t.label)     # the same row in results.json
        assert f"（{SECTORS}）" in row
        assert "计数器对照（你的数值来自公开用例 96×64）：" in rep.text()
        mine[name] = (row, rep, res)
    assert "你的 0.375 ｜ 目标 ≤ 0.375 ｜ 理想 0.25 ｜ 参考解 0.375" in mine["solution"][0]
    assert f"你的 {36 / 32:.3g} ｜ 目标 ≤ 0.375 ｜ 理想 0.25 ｜ 参考解 0.375" in mine["baseline"][0]
    assert mine["solution"][0] != mine["baseline"][0]
    # the reference column is the reference solution graded the same way
    sol = mine["solution"][1].counter_table.rows[0]
    base = mine["baseline"][1].counter_table.rows[0]
    assert base.reference == sol.yours == 0.375 and base.yours == 36 / 32
    # the H200's speeds of the reference and the baseline, as recorded in the config
    h = ex.config["h200"]
    for _, rep, res in mine.values():
        speed = f"H200 实测速度（{h['size']}）：参考解 {h['reference']:g} GB/s；课上的基线内核 {h['baseline']:g} GB/s。"
        assert speed in rep.text() and speed in res.to_gradescope()["output"]
        # the HTML view and feedback.md carry the same table
        html = rep.html()
        assert "<table class='lc-counter-table'>" in html and f"<code>{SECTORS.split(' + ')[0]}</code>" in html
        md = feedback_markdown(res)
        assert "## 计数器对照" in md and "| 计数器 | 你的 | 目标 | 理想 | 参考解 |" in md
    assert "<td>1.12</td>" in mine["baseline"][1].html() and "| 1.12 |" in feedback_markdown(mine["baseline"][2])


def test_a_wrong_kernel_has_no_value_in_the_table(tmp_path):
    ex = load_exercise("lesson08_challenge")
    f = tmp_path / "wrong.cu"
    f.write_text(ex.solution_path.read_text(encoding="utf-8").replace("output[col * M + row]", "output[row * N + col]"),
                 encoding="utf-8")
    assert f.read_text(encoding="utf-8") != ex.solution_path.read_text(encoding="utf-8")
    rep = check(f, ex.id, quiet=True)
    assert "你的 —（未通过：1 个结果错误） ｜ 目标 ≤ 0.375" in rep.text()


def test_a_racy_kernel_is_told_it_raced_not_that_its_result_is_wrong(tmp_path):
    """The counter point and the table say why the counter case did not pass: a kernel without its second
    __syncthreads() raced (its C may even be right), which is what they say."""
    ex = load_exercise("lesson10_challenge")
    f = tmp_path / "racy.cu"
    src = ex.solution_path.read_text(encoding="utf-8")
    last = src.rindex("__syncthreads();")
    f.write_text(src[:last] + src[last + len("__syncthreads();"):], encoding="utf-8")
    rep = check(f, ex.id, quiet=True)
    text = rep.text()
    assert re.search(r"在 1/1 个计数用例上没有通过（1 个数据竞争），不计这一项", text), text
    assert "你的 —（未通过：1 个数据竞争）" in text and "结果错误" not in text


def test_speeds_not_recorded_say_so(tmp_path):
    ex = load_exercise("lesson08_challenge")
    from grading.whole import counter_table
    from grading.pipeline import run_public
    from grading.source import read_cu
    st = run_public(read_cu(ex.solution_path, ex), ex)
    ex2 = type(ex).__new__(type(ex))
    ex2.__dict__.update(ex.__dict__)
    ex2.config = {k: v for k, v in ex.config.items() if k != "h200"}
    table = counter_table(ex2, st.public_ctx)
    assert "H200 实测速度：参考解 未记录；课上的基线内核 未记录。" in table.text_lines()[-1]


def _shapes(case_label: str) -> list[str]:
    """The ways a report could print a case's sizes ("96x128" -> 96x128, 96×128, 96 × 128)."""
    dims = case_label.split("x")
    if len(dims) == 1:
        return [f"n = {dims[0]}", f"n={dims[0]}"]
    return ["x".join(dims), "×".join(dims), " × ".join(dims)]


@pytest.mark.parametrize("eid", WHOLE)
def test_no_hidden_case_size_reaches_the_student(eid):
    ex = load_exercise(eid)
    res = _graded(ex, ex.solution_path)
    student = json.dumps(res.to_gradescope(), ensure_ascii=False) + feedback_markdown(res)
    rep = check(ex.solution_path, eid, quiet=True)
    student += rep.text() + rep.html()
    public = {c.label for cases in ex.public_module.cases().values() for c in cases}
    hidden = [line.split()[1] for line in res.instructor["cases"]]
    assert hidden and res.counter_table is not None
    leaked = []
    for label in set(hidden) - public:
        for shape in _shapes(label):
            # as a whole number: "1x1" must not match inside "31x1" or "1x17"
            if re.search(rf"(?<![\d.]){re.escape(shape)}(?![\d.])", student):
                leaked.append(shape)
    # the names of the checks describe the kinds of shapes in words a student already reads ("1×1、1×N")
    names = " ".join(t.name for t in res.tests)
    leaked = [s for s in leaked if s not in names]
    assert not leaked, leaked


def test_the_student_kit_ships_the_speeds():
    """The kit's config keeps [h200] (only the secret and [bench] are stripped), so the table in the student's
    notebook shows the recorded speeds, not 未记录."""
    for eid in WHOLE:
        assert "h200" not in INSTRUCTOR_KEYS + INSTRUCTOR_TABLES and load_exercise(eid).config.get("h200")
