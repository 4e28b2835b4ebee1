"""Issue 27 items 2-3: on the exercise branch, lesson 8 states none of Q1-Q3's answers before the questions,
and the hints sit between the exercise cell and the check cell.

Each answer is pinned down by what would give it away: the functions that print it and phrases of its reference
answer. Everything the exercise branch shows before ``## 问答题`` is checked against them, so moving a table or
a sentence of an answer above the questions fails this test."""
from __future__ import annotations

import pytest

from lessonref import REPO, answer_only, read_lesson

LESSON = REPO / "lessons" / "lesson08_transpose_naive.qmd"

# Q1: the block-shape table (its sum column answers it); Q2: the three store indices on six shapes;
# Q3: the fill and column-sum measurements
ANSWER_CALLS = ("lesson08.block_shape_table", "lesson08.shape_table", "lesson08.q3_table")
ANSWER_PHRASES = {
    "Q1": ("4 + 8", "8 + 4", "4 + 32", "dim3(4, 64)", "从 36 降到 12"),
    "Q2": ("1×2", "output[2]", "output[1 * 2 + 0]"),
    "Q3": ("fill_col", "fill_row", "colsum", "按列清零的预测", "按列求和的预测"),
}


@pytest.fixture(scope="module")
def lesson():
    return read_lesson(LESSON)


@pytest.fixture(scope="module")
def before_questions(lesson):
    (q_line,) = [ln for ln, text, _ in lesson.prose if text.startswith("## 问答题")]
    prose = [text for ln, text, divs in lesson.prose if ln < q_line and not answer_only(divs)]
    cells = [c for c in lesson.cells if c.line < q_line and not answer_only(c.divs)]
    return prose, cells


def test_no_answer_table_before_the_questions(before_questions):
    _, cells = before_questions
    for c in cells:
        for call in ANSWER_CALLS:
            assert call not in c.source, f"line {c.line}: {call} answers a question before it is asked"


@pytest.mark.parametrize("q", sorted(ANSWER_PHRASES))
def test_no_answer_phrase_before_the_questions(before_questions, q):
    prose, cells = before_questions
    text = "\n".join(prose) + "\n".join(c.source for c in cells)
    for phrase in ANSWER_PHRASES[q]:
        assert phrase not in text, f"{q}: {phrase!r} appears before the questions"


def test_every_pinned_answer_exists_after_the_questions(lesson):
    # the guard above is only meaningful if the phrases are really the reference answers'
    (q_line,) = [ln for ln, text, _ in lesson.prose if text.startswith("## 问答题")]
    after = "\n".join(t for ln, t, _ in lesson.prose if ln > q_line) + "\n".join(
        c.source for c in lesson.cells if c.line > q_line)
    for call in ANSWER_CALLS:
        assert call in after
    for q, phrases in ANSWER_PHRASES.items():
        assert any(p in after for p in phrases), q


def test_hints_sit_between_the_exercise_and_the_check(lesson):
    ex = next(c.line for c in lesson.cells if c.options.get("course_role") == "exercise")
    check = next(c.line for c in lesson.cells if c.options.get("course_role") == "check")
    hints = [ln for ln, text, _ in lesson.prose if "提示" in text and text.startswith("#")]
    assert hints and all(ex < ln < check for ln in hints)
    # hint 2 asks for output's shape and stops there
    hint2 = next(text for ln, text, _ in lesson.prose if ex < ln < check and "output" in text and "形状" in text)
    assert hint2.rstrip().endswith("什么形状？")
