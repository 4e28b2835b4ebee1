"""Issue 26 item 5: on the exercise branch, P2 states none of Q1-Q3's answers before the questions.

Each question's answer is pinned down here by what would give it away: the functions that print it, the
explorer and prediction settings that show it, and the phrases of its reference answer. Everything the exercise
branch shows before ``## 问答题`` is checked against them, so moving a variant section, a table or a preset back
above the questions fails this test."""
from __future__ import annotations

import numpy as np
import pytest

from figref import brute_sectors
from lessonref import REPO, answer_only, read_lesson

LESSON = REPO / "lessons" / "prelude" / "index.qmd"

# calls whose output answers a question: the exercise kernel's table (Q1: 4t + j; Q3: TILE 16 and 8), the
# right-edge table (Q2), the row/column table (its block(16, 16) and block(8, 32) rows answer Q3)
ANSWER_CALLS = ("p2.exercise_table", "p2.edge_table", "p2.row_col_table", "p2.row_col_sector_maps")
# phrases of the reference answers (and the configurations the questions ask about, stated with a result)
ANSWER_PHRASES = {
    "Q1": ("16 个 sector、25%", "4t + j", "同一批 16 个 sector", "请求数变成四分之一"),
    "Q2": ("14 个 lane", "184r", "N = 46"),
    "Q3": ("TILE 16", "两行、每行 16", "四行、每行 8", "block(16, 16)", "block(8, 32)", "读两行各 16"),
}


@pytest.fixture(scope="module")
def before_questions():
    lesson = read_lesson(LESSON)
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
    text = "\n".join(prose) + "\n".join(c.source for c in cells if c.options.get("course_role") != "exercise")
    for phrase in ANSWER_PHRASES[q]:
        assert phrase not in text, f"{q}: {phrase!r} appears before the questions"


def _q2_rows() -> set[tuple[int, int]]:
    """(first element of the warp's active lanes mod 8, active lanes) of Q2's four rows: N = 46, col 32..45."""
    return {((46 * r + 32) % 8, 14) for r in range(4)}


def test_no_preset_shows_q2_or_q3(before_questions):
    from figures import p2
    shown = list(p2.PREDICTIONS) + list(p2.EXPLORER_PRESETS)
    for stride, offset, itemsize, mask in shown:
        k = np.arange(32)
        lanes = int(p2.MASKS[mask][1](k).sum())
        # Q2: a float warp reading 14 contiguous lanes from a given alignment
        assert not (itemsize == 4 and stride == 1 and ((offset % 8), lanes) in _q2_rows()), (stride, offset, mask)
    for preset in getattr(p2, "MAPPING_PRESETS", ()):
        assert preset.get("N") != 46 and preset.get("width") not in (16, 8), preset


def test_the_q2_setting_really_differs_row_by_row():
    # the guard above is only meaningful if the question's rows are not all alike (what makes Q2 a question)
    cols = [32 + x for x in range(32)]
    act = [c < 46 for c in cols]
    got = {brute_sectors([(r * 46 + c) * 4 for c in cols], act, 4) for r in range(4)}
    assert got == {2, 3}
