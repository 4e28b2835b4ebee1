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


def plain_text(cell) -> str:
    """What a cell printed or displayed as plain text."""
    return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def filled_source(nb) -> str:
    """The exercise cell with its blank filled by the reference's value."""
    return next(c for c in nb.cells if role(c) == "exercise").source.replace("______", "TILE_DIM + 1")


def broken_lines(nb) -> list[str]:
    """The filled exercise cell's lines with every ``__syncthreads();`` deleted (a racy kernel)."""
    lines = filled_source(nb).splitlines()
    assert lines[0].startswith("%%writefile")
    return [ln for ln in lines if ln.strip() != "__syncthreads();"]


@pytest.fixture(scope="module")
def check_runs(student_nb, tmp_path_factory):
    """The student's two runs in one real Jupyter kernel, as a student would run them one after the other:
    setup, the filled exercise cell and its check; then the exercise cell without its barriers and the check
    again. Returns the two check cells' outputs and the file the second run left behind."""
    import nbformat
    from nbclient import NotebookClient
    setup = next(c for c in student_nb.cells if c.cell_type == "code" and "setup_lesson" in c.source)
    ex_cell = next(c for c in student_nb.cells if role(c) == "exercise")
    check_cell = next(c for c in student_nb.cells if role(c) == "check")
    cells = [copy.deepcopy(c) for c in (setup, ex_cell, check_cell, ex_cell, check_cell)]
    for i in (3, 4):                     # the second run's copies: cell ids are unique within a notebook
        cells[i]["id"] = f"{cells[i].get('id', 'cell')}-again"
    cells[1].source = filled_source(student_nb)
    cells[3].source = "\n".join(broken_lines(student_nb)) + "\n"
    mini = nbformat.v4.new_notebook(cells=cells)
    mini.metadata = copy.deepcopy(student_nb.metadata)
    # the kernel imports this checkout's packages
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    path = tmp_path_factory.mktemp("kernel")
    NotebookClient(mini, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path)}}).execute(
        env=env)
    return {"filled": mini.cells[2].outputs, "broken": mini.cells[4].outputs,
            "broken_file": Path("/tmp/09_transpose_tiled.cu").read_text(encoding="utf-8")}


@pytest.fixture(scope="module")
def student_nb():
    nb = exercise_notebook()
    # the lesson's exercise, then (after the questions) its challenge's
    assert [c.source.splitlines()[0] for c in nb.cells if role(c) == "exercise"] == \
        ["%%writefile /tmp/09_transpose_tiled.cu", "%%writefile /tmp/09_transpose_half_challenge.cu"]
    return nb


def test_handed_out_notebook_is_unfilled(ex, student_nb, tmp_path):
    import nbformat

    from grading.grade import Options, grade_submission
    p = tmp_path / "lesson09.ipynb"
    nbformat.write(student_nb, str(p))
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    assert res.problem and "还没有填写" in res.problem
    assert {k for k in ("manual_explanation", "manual_Q1", "manual_Q2", "manual_Q3")} <= {t.id for t in res.tests}


def test_student_runs_check_and_grader_accepts_receipt(ex, student_nb, check_runs, tmp_path):
    import nbformat

    from grading.grade import Options, grade_submission
    nb = copy.deepcopy(student_nb)
    ex_cell = next(c for c in nb.cells if role(c) == "exercise")
    ex_cell.source = filled_source(nb)
    # the student types into each question's own answer cell (course_role: answer, course_question)
    for q, item in (("解释你的实现", "explanation"), ("Q1", "Q1"), ("Q2", "Q2"), ("Q3", "Q3")):
        cell = next(c for c in nb.cells if role(c) == "answer" and c.metadata.get("course_question") == item)
        cell.source = f"我的 {q} 回答：因为……所以……\n"
    # the setup, exercise and check cells ran in a real kernel, as the student would run them (check_runs)
    check_cell = next(c for c in nb.cells if role(c) == "check")
    check_cell.outputs = check_runs["filled"]
    out_text = plain_text(check_cell)
    assert "公开检查全部通过" in out_text and "receipt lesson09" in out_text
    # in a notebook the check shows its HTML source view (the text stays the text/plain of the same output)
    assert any("labsim-check" in o.get("data", {}).get("text/html", "") for o in check_cell.outputs)
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


def test_broken_kernel_reports_the_cells_line_numbers(ex, student_nb, check_runs, tmp_path):
    """#9 item 17: the student deletes __syncthreads() in the exercise cell; the check cell's races and
    counters name the lines as the cell shows them (the %%writefile line is line 1), it says so, and the
    grader accepts the saved output of that honest run."""
    import re

    import nbformat

    from grading.grade import Options, grade_submission
    nb = copy.deepcopy(student_nb)
    ex_cell = next(c for c in nb.cells if role(c) == "exercise")
    cell_lines = broken_lines(nb)
    ex_cell.source = "\n".join(cell_lines) + "\n"
    # the lines a student reads in Jupyter's cell gutter (1-based, %%writefile is line 1)
    store = next(i for i, ln in enumerate(cell_lines, 1) if "tile[threadIdx.y + j][threadIdx.x] =" in ln)
    load = next(i for i, ln in enumerate(cell_lines, 1) if "= tile[threadIdx.x][threadIdx.y + j]" in ln)
    check_cell = next(c for c in nb.cells if role(c) == "check")
    check_cell.outputs = check_runs["broken"]
    text = plain_text(check_cell)
    assert "行号：练习单元格里的行号" in text
    race = next(ln for ln in text.splitlines() if ln.strip().startswith("RAW __shared__"))
    assert re.findall(r"在第 (\d+) 行", race) == [str(store), str(load)], race
    assert re.search(rf"第 {load} 行 .*← 转置读", text) or f"▶ 第 {load} 行" in text
    html = next(o["data"]["text/html"] for o in check_cell.outputs if "text/html" in o.get("data", {}))
    assert re.search(rf"<tr id='L{load}'[^>]*class='lc-focus'", html) and f"<tr id='L{store}'" in html
    # the edited file itself still counts from its own first line (what nvcc would say)
    assert check_runs["broken_file"].splitlines()[store - 2].strip().startswith("tile[")
    p = tmp_path / "bob.ipynb"
    nbformat.write(nb, str(p))
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    assert res.instructor["receipt"] == "ok" and not res.vetoes, (res.instructor["receipt"], res.notes)
    assert any(n.startswith("行号：练习单元格") for n in res.notes)
