"""Issue 24 item 10: each question has its own answer cell (metadata course_role: answer, course_question), the
grader reads that cell, and notebooks built before answer cells existed still grade by heading."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_markdown_cell
from grading_testlib import fill
from nbmaker import notebook, write

from coursebuild.context import BuildContext
from coursebuild.notebook import to_notebook
from coursebuild.qmd import QmdError, parse_qmd, read_qmd
from coursebuild.transforms import NOTEBOOK_PIPELINE, SOURCE_PIPELINE, run_pipeline
from grading.source import answers_from_cells, extract_answers, load_submission
from grading.spec import load_exercise

REPO = Path(__file__).resolve().parents[2]
LESSONS = {"lessons/prelude/index.qmd": "p2", "lessons/lesson08_transpose_naive.qmd": "lesson08",
           "lessons/lesson09_transpose_tiled.qmd": "lesson09", "lessons/lesson10_gemm_tiled.qmd": "lesson10"}


def graded_here(page: str) -> list:
    """The exercises a lesson's notebook is graded for: its exercise and its challenge (whose optional design
    explanation, issue 29, has its own answer cell)."""
    return [load_exercise(LESSONS[page]), load_exercise(LESSONS[page] + "_challenge")]


def student_notebook(page: str) -> nbformat.NotebookNode:
    doc = run_pipeline(read_qmd(REPO / page, page), BuildContext("exercise", "ipynb"), SOURCE_PIPELINE + NOTEBOOK_PIPELINE)
    return to_notebook(doc, student=True, branch="exercise")


@pytest.mark.parametrize("page", sorted(LESSONS))
def test_every_manual_item_has_one_answer_cell(page):
    nb = student_notebook(page)
    cells = [c for c in nb.cells if c.metadata.get("course_role") == "answer"]
    assert sorted(c.metadata["course_question"] for c in cells) == sorted(m.id for ex in graded_here(page)
                                                                          for m in ex.manual)
    for c in cells:
        assert c.cell_type == "markdown" and "answer" in c.metadata["tags"]
        assert c.source.strip() == "**你的答案：**"        # its own cell: no question text, rubric or heading in it


@pytest.mark.parametrize("page", sorted(LESSONS))
def test_grader_reads_the_answer_cells_even_with_headings_broken(page, tmp_path):
    nb = student_notebook(page)
    written = {}
    for c in nb.cells:
        if c.metadata.get("course_role") == "answer":
            q = c.metadata["course_question"]
            written[q] = f"{q} 的作答：第一句。\n\n第二段。"
            c.source += "\n\n" + written[q]
    for c in nb.cells:      # the student rewrites every heading: the heading fallback could find nothing now
        if c.cell_type == "markdown" and c.metadata.get("course_role") != "answer":
            c.source = "\n".join(("#### 我的笔记" if ln.startswith("#") else ln) for ln in c.source.splitlines())
    for ex in graded_here(page):
        got = extract_answers([dict(c) for c in nb.cells], ex)
        assert got == {m.id: written[m.id] for m in ex.manual}


def test_unanswered_cell_is_empty_not_missing():
    ex = load_exercise("lesson10")
    nb = student_notebook("lessons/lesson10_gemm_tiled.qmd")
    got = extract_answers([dict(c) for c in nb.cells], ex)
    assert got == {m.id: "" for m in ex.manual}


def test_markdown_cells_added_after_the_answer_cell_count(ex):
    cells = [new_markdown_cell("### Q1\n\n题目"),
             new_markdown_cell("**你的答案：**\n\n第一段",
                               metadata={"course_role": "answer", "course_question": "Q1", "tags": ["answer"]}),
             new_markdown_cell("学生自己加的第二个单元格"),
             new_markdown_cell("### Q2\n\n题目"), new_markdown_cell("这一段属于 Q2 的题目区，不是 Q1 的作答")]
    got = answers_from_cells([dict(c) for c in cells], ex)
    assert got == {"Q1": "第一段\n\n学生自己加的第二个单元格"}


def test_old_notebook_without_answer_cells_falls_back_to_headings(ex, tmp_path):
    sub = load_submission(write(notebook(fill(ex, "33"), answers={"Q1": "旧笔记本的 Q1 作答", "explanation": "解释"}),
                                tmp_path / "old.ipynb"), ex)
    assert sub.answers["Q1"] == "旧笔记本的 Q1 作答" and sub.answers["explanation"] == "解释"
    assert sub.answers["Q2"] == ""


def test_answer_cell_wins_over_heading_text(ex):
    cells = [new_markdown_cell("### Q1\n\n题目\n\n**你的答案：**\n\n标题下的旧文字"),
             new_markdown_cell("**你的答案：** 答案单元格里的文字",
                               metadata={"course_role": "answer", "course_question": "Q1"})]
    assert extract_answers([dict(c) for c in cells], ex)["Q1"] == "答案单元格里的文字"


def test_answer_div_needs_a_question_id():
    with pytest.raises(QmdError, match="question="):
        to_notebook(parse_qmd("::: {.course-answer}\n**你的答案：**\n:::\n", "x.qmd"))
