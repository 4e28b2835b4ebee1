"""Blanks a grader must answer with a graded result and a message, never "评分程序内部错误" (issues 14, 15):
C++ forms beyond the arithmetic subset are evaluated, what the evaluator cannot decide goes to a person,
pathological nesting, literals, Unicode and NUL bytes get messages naming the problem."""
from __future__ import annotations

import pytest
from grading_testlib import fill

from grading import check
from grading.grade import Options, grade_submission


def grade(ex, tmp_path, blank):
    p = tmp_path / "s.cu"
    p.write_text(fill(ex, blank), encoding="utf-8")
    return grade_submission(p, ex, options=Options(nvcc="off"))


def no_internal_error(res):
    assert "internal_errors" not in res.instructor, res.instructor.get("internal_errors")
    assert not any("内部错误" in n for n in res.notes)


@pytest.mark.parametrize("blank", ["sizeof(float) * 8 + 1", "(int)33.9", "static_cast<int>(TILE_DIM) + 1",
                                   "TILE_DIM + sizeof(char)", "int(TILE_DIM + 1)", "TILE_DIM + \\\n1",
                                   "- " * 1000 + "-33 * -1", "(" * 90 + "TILE_DIM + 1" + ")" * 90])
def test_right_answers_in_other_spellings_pass(ex, tmp_path, blank):
    res = grade(ex, tmp_path, blank)
    no_internal_error(res)
    assert res.value == 33 and not res.problem
    assert all(t.status == "passed" for t in res.tests if "public" in t.tags)


@pytest.mark.parametrize("blank", ["(" * 1000 + "33" + ")" * 1000, "1 ? " * 1000 + "33" + " : 0" * 1000,
                                   "std::max(TILE_DIM, 33)", "(int)" * 500 + "33"])
def test_undecidable_blanks_go_to_a_person(ex, tmp_path, blank):
    res = grade(ex, tmp_path, blank)
    no_internal_error(res)
    assert res.verdict == "pending" and "人工" in res.problem
    code = [t for t in res.tests if t.max_score and "manual" in t.tags and ("public" in t.tags or t.hidden)]
    assert code and all(t.status == "pending" for t in code)


@pytest.mark.parametrize("blank,word", [("9" * 5000, "太大"), ("33\0", "NUL"), ("３３", "整数字面量"),
                                        ("TILE_DIM\u202e + 1", "U+202E"), ("x" * 100_000, "不能用在这里"),
                                        ("𝑇𝐼𝐿𝐸 + 1", "不能用在这里"), ("1" + "+1" * 50_000, "")])
def test_pathological_blanks_get_messages(ex, tmp_path, blank, word, capsys):
    res = grade(ex, tmp_path, blank)
    no_internal_error(res)
    if word:
        assert res.problem and word in res.problem and len(res.problem) < 600
    p = tmp_path / "c.cu"
    p.write_text(fill(ex, blank), encoding="utf-8")
    rep = check(p, ex.id, quiet=True)                 # the check cell: a message, never a traceback
    assert rep.text()
