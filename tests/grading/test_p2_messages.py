"""Issue 26 items 1-3: P2's messages are true of the submission and do not hand out the fix. A correct but
uncoalesced mapping is a lower score on the coalescing point, never a correctness veto; a wrong mapping is told
by what it did (unwritten elements, where in the first block); the coalescing point needs every normal run right."""
from __future__ import annotations

from pathlib import Path

import pytest

from grading.grade import Options, grade_submission
from grading.spec import load_exercise

CORPUS = Path(__file__).resolve().parent / "submissions" / "p2"
FIX = ("j * THREADS", "THREADS * j", "j*THREADS")


@pytest.fixture(scope="module")
def ex():
    return load_exercise("p2")


def _grade(ex, name):
    res = grade_submission(CORPUS / name, ex, options=Options(nvcc="off"))
    return res, {t.id: t for t in res.tests}


def test_uncoalesced_is_scored_lower_not_vetoed(ex):
    res, tests = _grade(ex, "fails_coalescing_four_adjacent_per_thread.cu")
    good, _ = _grade(ex, "passes_coalesced.cu")
    assert not res.vetoes and good.score - res.score == 1
    assert tests["p2_hidden_sectors_coalesced"].status == "failed" and tests["p2_hidden_normal_correct"].status == "passed"
    msg = tests["public_coalesced"].output
    assert "16.00 个 sector" in msg and "4.00 个" in msg
    assert "结果正确" in msg and "碰巧" not in msg and "错误" not in msg
    assert msg.count("：") == 0, msg                                  # no chained colons (issue 26 item 2)
    assert not any(f in msg for f in FIX)
    assert "相邻 lane 的地址差有 2 种（16、" in msg                   # what this warp did: 16-byte steps


def test_wrong_mapping_is_told_by_what_it_did(ex):
    res, tests = _grade(ex, "fails_ignores_step_j.cu")
    msg = tests["public_normal"].output
    assert "4608 个从未被写入" in msg and "第 8–31 行整行没有写" in msg
    assert not any(f in msg for f in FIX)
    # no coalescing point for a mapping that is not right yet (issue 26 item 3)
    assert tests["p2_hidden_sectors_coalesced"].status == "failed"
    assert "结果都正确之后" in tests["p2_hidden_sectors_coalesced"].output
