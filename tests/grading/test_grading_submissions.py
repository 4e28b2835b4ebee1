"""The corpus: the reference solution through every hidden check, and one deliberately wrong submission per
failure mode (tests/grading/submissions/fails_*.cu), each failing exactly what its name says."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from grading_testlib import REFERENCE, SUBMISSIONS, path_of

from grading.pipeline import Options, grade_submission

AUTO = ["public_normal", "public_boundary", "public_conflict_free", "normal_shapes", "conflict_free_read",
        "boundary_shapes", "race_free", "oob_free"]
ALL_PASS = {t: "passed" for t in AUTO}


def expect(failed=(), vetoes=(), problem=None, conformance="passed", notes=()):
    return {"failed": set(failed), "vetoes": set(vetoes), "problem": problem, "conformance": conformance,
            "notes": notes}


BLOCKED = set(AUTO)
EXPECTED = {
    "solution.cu": expect(),                  # the reference solution, through every hidden check
    "passes_literal_33_with_magic_line.cu": expect(notes=["TILE_DIM + 1"]),
    "passes_padding_plus3.cu": expect(notes=["256 字节"]),
    "passes_whitespace_and_comments.cu": expect(),
    "fails_bank_conflict.cu": expect(failed={"public_conflict_free", "conflict_free_read"}),
    "fails_right_by_luck_tile_dim.cu": expect(failed={"public_conflict_free", "conflict_free_read"},
                                              vetoes={"right_by_luck"}),
    "fails_right_by_luck_32.cu": expect(failed={"public_conflict_free", "conflict_free_read"}, vetoes={"right_by_luck"}),
    "fails_right_by_luck_64.cu": expect(failed={"public_conflict_free", "conflict_free_read"}, vetoes={"right_by_luck"}),
    "fails_out_of_bounds.cu": expect(failed={"public_normal", "public_boundary", "public_conflict_free", "normal_shapes",
                                             "conflict_free_read", "boundary_shapes", "oob_free", "race_free"}),
    "fails_bounds_check_deleted.cu": expect(vetoes={"deleted_bounds_check"}, conformance="failed"),
    "fails_bounds_check_weakened.cu": expect(vetoes={"deleted_bounds_check"}, conformance="failed"),
    "fails_conformance_syncthreads_removed.cu": expect(conformance="failed"),
    "fails_conformance_loop_never_ends.cu": expect(conformance="failed"),
    "fails_unfilled_blank.cu": expect(failed=BLOCKED, problem="______", conformance="failed"),
    "fails_blank_syntax_error.cu": expect(failed=BLOCKED, problem="不是合法的整数常量表达式", conformance="failed"),
    "fails_blank_injection.cu": expect(failed=BLOCKED, problem="不能闭合数组再追加代码", conformance="failed"),
    "fails_blank_not_constant.cu": expect(failed=BLOCKED, problem="`M`", conformance="failed"),
    "fails_blank_too_large.cu": expect(failed=BLOCKED, problem="静态共享内存", conformance="failed"),
    "fails_empty.cu": expect(failed=BLOCKED, problem="空文件", conformance=None),
    "fails_not_utf8.cu": expect(failed=BLOCKED, problem="UTF-8", conformance=None),
    "fails_not_json.ipynb": expect(failed=BLOCKED, problem="JSON", conformance=None),
    "fails_no_exercise_cell.ipynb": expect(failed=BLOCKED, problem="练习单元格", conformance=None),
}


def test_reference_differs_from_template_only_in_the_blank(ex):
    from grading.conformance import check_conformance
    c = check_conformance(ex.template, REFERENCE.read_text(encoding="utf-8"), blank=ex.blank, names=ex.names)
    assert c.edits == [] and c.blank_ok and c.value == ex.names["TILE_DIM"] + 1


def test_every_corpus_file_has_an_expectation():
    files = {p.name for p in SUBMISSIONS.iterdir() if p.is_file()} | {"solution.cu"}
    assert files == set(EXPECTED)


def validate_gradescope(d: dict) -> None:
    """Gradescope's results.json schema, as its autograder specification describes it."""
    assert isinstance(d["score"], (int, float)) and isinstance(d["tests"], list)
    assert d.get("visibility", "visible") in ("hidden", "after_due_date", "after_published", "visible")
    assert isinstance(d["extra_data"], dict) and isinstance(d["extra_data"]["veto"], list)
    for t in d["tests"]:
        assert set(t) <= {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
                          "tags", "visibility", "extra_data"}
        assert isinstance(t["name"], str) and isinstance(t["output"], str) and isinstance(t["tags"], list)
        assert 0 <= t["score"] <= t["max_score"]
        assert t.get("status", "passed") in ("passed", "failed")
        assert t["visibility"] in ("hidden", "after_due_date", "after_published", "visible")
        if "manual" in t["tags"]:
            assert t["score"] == 0 and "status" not in t and "pending" in t["tags"]
    assert d["score"] == pytest.approx(sum(t["score"] for t in d["tests"]))
    json.dumps(d)


def hidden_shapes(res) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in re.search(r"(\d+)x(\d+)", c).groups()) for c in res.instructor.get("cases", [])]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus(ex, sim, name):
    res = grade_submission(path_of(name), ex, options=Options(nvcc="off"))
    exp = EXPECTED[name]
    status = {t.id: t.status for t in res.tests}
    failed = {t for t in AUTO if status[t] != "passed"}
    assert failed == exp["failed"], {t.id: t.output for t in res.tests if t.id in failed ^ exp["failed"]}
    assert {v.id for v in res.vetoes} == exp["vetoes"]
    if exp["problem"]:
        assert res.problem and exp["problem"] in res.problem
        assert all(t.output.startswith("未运行") for t in res.tests if t.id in AUTO)
    else:
        assert res.problem is None
    assert status.get("conformance") == exp["conformance"]
    for n in exp["notes"]:
        assert any(n in note for note in res.notes), res.notes
    # scoring follows the rubric: normal 2 (correct 1 + conflict-free 1), boundary 1, manual 7 pending
    assert res.max_score == 10 and res.pending_max == 7
    auto = sum(1 for t in ("normal_shapes", "conflict_free_read", "boundary_shapes") if status[t] == "passed")
    assert res.score == auto
    assert res.verdict == ("fail" if exp["vetoes"] or auto + 7 < 8 else "pending")
    validate_gradescope(res.to_gradescope())


def _brute_wavefronts(ld: int) -> int:
    """Independent reference: lane k reads float tile[k][0] of a row-major tile with ld columns."""
    words = [k * ld for k in range(32)]
    per_bank: dict[int, set[int]] = {}
    for w in words:
        per_bank.setdefault(w % 32, set()).add(w)
    return max(len(s) for s in per_bank.values())


@pytest.mark.parametrize("name,ld", [("fails_bank_conflict.cu", 34), ("fails_right_by_luck_32.cu", 32),
                                     ("fails_right_by_luck_64.cu", 64)])
def test_conflict_message_matches_brute_force(ex, sim, name, ld):
    res = grade_submission(SUBMISSIONS / name, ex, options=Options(nvcc="off"))
    msg = next(t.output for t in res.tests if t.id == "conflict_free_read")
    assert f"每个 warp 请求 {_brute_wavefronts(ld)} 个 wavefront" in msg


def test_wasted_shared_memory_note_is_arithmetic(ex, sim):
    res = grade_submission(SUBMISSIONS / "passes_padding_plus3.cu", ex, options=Options(nvcc="off"))
    extra = (35 - 33) * 32 * np.dtype(np.float32).itemsize
    assert any(f"多占 {extra} 字节" in n for n in res.notes)


@pytest.mark.parametrize("name", ["solution.cu", "fails_bank_conflict.cu", "fails_out_of_bounds.cu"])
def test_student_visible_text_never_shows_hidden_inputs(ex, sim, name):
    res = grade_submission(path_of(name), ex, options=Options(nvcc="off"))
    shapes = hidden_shapes(res)
    assert shapes
    from grading.report import feedback_markdown
    visible = json.dumps(res.to_gradescope(), ensure_ascii=False) + feedback_markdown(res)
    public = {(c.M, c.N) for k in ex.public_module.cases().values() for c in k}
    for m, n in shapes:
        if (m, n) == (1, 1) or (m, n) in public:     # public shapes are printed on purpose
            continue
        for form in (f"{m}x{n}", f"{m}×{n}", f"{m} x {n}", f"M={m}", f"({m}, {n})"):
            assert not re.search(rf"(?<![\d×x]){re.escape(form)}(?![\d×x])", visible), form
    for t in res.tests:
        if t.hidden and t.id in ("normal_shapes", "boundary_shapes", "race_free", "oob_free"):
            assert re.fullmatch(r"[^：]+：\d+/\d+(（[^）]*）)?(；对抗调度下结果错误)?", t.output), t.output


def test_hidden_cases_cover_the_promised_shapes(ex, sim):
    res = grade_submission(REFERENCE, ex, options=Options(nvcc="off"))
    cases = res.instructor["cases"]
    normal = [s for c, s in zip(cases, hidden_shapes(res)) if c.startswith("normal")]
    boundary = [s for c, s in zip(cases, hidden_shapes(res)) if not c.startswith(("normal", "race"))]
    assert all(m % 32 == 0 and n % 32 == 0 for m, n in normal) and len(normal) >= 3
    assert (1, 1) in boundary
    assert any(m == 1 and n > 1 for m, n in boundary) and any(n == 1 and m > 1 for m, n in boundary)
    assert any(m > 4 * n for m, n in boundary) and any(n > 4 * m for m, n in boundary)
    assert any(m % 32 and n % 32 and m > 32 and n > 32 for m, n in boundary)


def test_hidden_cases_are_reproducible_and_per_submission(ex, fake_sim, tmp_path):
    a = tmp_path / "alice.cu"
    b = tmp_path / "bob.cu"
    a.write_bytes((REFERENCE).read_bytes())
    b.write_bytes(a.read_bytes())
    ra1 = grade_submission(a, ex, options=Options(nvcc="off"))
    ra2 = grade_submission(a, ex, options=Options(nvcc="off"))
    rb = grade_submission(b, ex, options=Options(nvcc="off"))
    assert ra1.instructor["cases"] == ra2.instructor["cases"]
    assert ra1.instructor["cases"] != rb.instructor["cases"]
    other = grade_submission(a, ex, options=Options(nvcc="off", secret="another-secret"))
    assert other.instructor["cases"] != ra1.instructor["cases"]


def test_several_megabyte_file_is_a_graded_result(ex, tmp_path):
    p = tmp_path / "huge.cu"
    p.write_bytes(b"// x\n" * 1_000_000)
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    assert "MB" in res.problem and res.verdict == "fail" and res.score == 0
    validate_gradescope(res.to_gradescope())
