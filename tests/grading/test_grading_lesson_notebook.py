"""End to end with the real lesson: coursebuild makes the exercise-branch notebook of lesson 9, a "student"
fills the blank, runs the check cell in a Jupyter kernel and answers Q1–Q3; the grader reads it all back
and accepts the saved receipt — and flags it once the code changes without a re-run."""
from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
from grading_testlib import needs_cuda

REPO = Path(__file__).resolve().parents[2]
LESSON = "lessons/lesson09_transpose_tiled.qmd"

pytestmark = [needs_cuda, pytest.mark.skipif(not (REPO / LESSON).exists(), reason="lesson 9 not written yet")]


def exercise_notebook(lesson: str = LESSON):
    """The student notebook coursebuild makes from ``lesson`` (exercise branch)."""
    cb = pytest.importorskip("coursebuild")
    from coursebuild.context import BuildContext
    from coursebuild.leaks import hidden_snippets
    from coursebuild.notebook import to_notebook
    from coursebuild.qmd import read_qmd
    from coursebuild.transforms import NOTEBOOK_PIPELINE, SOURCE_PIPELINE, run_pipeline
    assert cb
    doc = read_qmd(REPO / lesson, lesson)
    ndoc = run_pipeline(doc, BuildContext("exercise", "ipynb", hidden_snippets(REPO)),
                        SOURCE_PIPELINE + NOTEBOOK_PIPELINE)
    return to_notebook(ndoc, student=True, branch="exercise")


def role(cell) -> str:
    return cell.get("metadata", {}).get("course_role", "")


@pytest.fixture(scope="module")
def student_nb():
    nb = exercise_notebook()
    assert [role(c) for c in nb.cells].count("exercise") == 1
    return nb


def test_handed_out_notebook_is_unfilled(ex, student_nb, tmp_path):
    import nbformat

    from grading.pipeline import Options, grade_submission
    p = tmp_path / "lesson09.ipynb"
    nbformat.write(student_nb, str(p))
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    assert res.problem and "还没有填写" in res.problem
    assert {k for k in ("manual_explanation", "manual_Q1", "manual_Q2", "manual_Q3")} <= {t.id for t in res.tests}


def test_student_runs_check_and_grader_accepts_receipt(ex, student_nb, tmp_path, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    from grading.pipeline import Options, grade_submission
    nb = copy.deepcopy(student_nb)
    ex_cell = next(c for c in nb.cells if role(c) == "exercise")
    ex_cell.source = ex_cell.source.replace("______", "TILE_DIM + 1")
    # the student types right after each "**你的答案：**" (several questions may share one markdown cell)
    for q in ("解释你的实现", "Q1", "Q2", "Q3"):
        cell = next(c for c in nb.cells if c.cell_type == "markdown" and f"### {q}\n" in c.source)
        head = cell.source.index(f"### {q}\n")
        mark = cell.source.index("**你的答案：**", head) + len("**你的答案：**")
        cell.source = cell.source[:mark] + f"\n\n我的 {q} 回答：因为……所以……\n" + cell.source[mark:]
    # run the setup, exercise and check cells in a real kernel, as the student would
    setup = next(c for c in nb.cells if c.cell_type == "code" and "setup_lesson" in c.source)
    check_cell = next(c for c in nb.cells if role(c) == "check")
    mini = nbformat.v4.new_notebook(cells=[copy.deepcopy(c) for c in (setup, ex_cell, check_cell)])
    mini.metadata = copy.deepcopy(nb.metadata)
    env_path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", env_path)          # the kernel imports this checkout's packages
    NotebookClient(mini, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    check_cell.outputs = mini.cells[2].outputs
    out_text = "".join(o.get("text", "") for o in check_cell.outputs)
    assert "公开检查全部通过" in out_text and "receipt lesson09" in out_text
    p = tmp_path / "alice.ipynb"
    nbformat.write(nb, str(p))
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    assert res.problem is None and res.score == 3 and not res.vetoes
    assert res.instructor["receipt"] == "ok"
    for item, q in (("explanation", "解释你的实现"), ("Q1", "Q1"), ("Q2", "Q2"), ("Q3", "Q3")):
        out = next(t for t in res.tests if t.id == f"manual_{item}").output
        answer = out.split("学生作答：\n", 1)[1].split("\n\n评分标准", 1)[0]
        assert answer.strip() == f"我的 {q} 回答：因为……所以……"

    # the student changes the blank afterwards and submits without re-running the check cell
    ex_cell.source = ex_cell.source.replace("TILE_DIM + 1", "TILE_DIM + 2")
    nbformat.write(nb, str(p))
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    assert [v.id for v in res.vetoes] == ["unrun_output"] and res.verdict == "fail"
