"""Lesson 9's own promises (hidden shapes, messages) on its corpus (tests/grading/submissions/lesson09/). The
corpus itself, each entry failing exactly what its name says, is test_grading_exercises.py's test_corpus,
for every exercise; both read the session's one grading of each entry (grading_testlib.graded)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
from grading_testlib import REFERENCE, SUBMISSIONS, graded, path_of, validate_gradescope

from grading.grade import Options, grade_submission


def test_reference_differs_from_template_only_in_the_blank(ex):
    from grading.conformance import check_conformance
    c = check_conformance(ex.template, REFERENCE.read_text(encoding="utf-8"), blank=ex.blank, names=ex.names)
    assert c.edits == [] and c.blank_ok and c.value == ex.names["TILE_DIM"] + 1


def hidden_shapes(res) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in re.search(r"(\d+)x(\d+)", c).groups()) for c in res.instructor.get("cases", [])]


def _brute_wavefronts(ld: int) -> int:
    """Independent reference: lane k reads float tile[k][0] of a row-major tile with ld columns."""
    words = [k * ld for k in range(32)]
    per_bank: dict[int, set[int]] = {}
    for w in words:
        per_bank.setdefault(w % 32, set()).add(w)
    return max(len(s) for s in per_bank.values())


@pytest.mark.parametrize("name,ld", [("fails_bank_conflict.cu", 34), ("fails_right_by_luck_32.cu", 32),
                                     ("fails_right_by_luck_64.cu", 64)])
def test_conflict_message_matches_brute_force(ex, name, ld):
    res = graded(SUBMISSIONS / name, ex)
    msg = next(t.output for t in res.tests if t.id == "conflict_free_read")
    assert f"每个 warp 请求 {_brute_wavefronts(ld)} 个 wavefront" in msg


def test_wasted_shared_memory_note_is_arithmetic(ex):
    res = graded(SUBMISSIONS / "passes_padding_plus3.cu", ex)
    extra = (35 - 33) * 32 * np.dtype(np.float32).itemsize
    assert any(f"多占 {extra} 字节" in n for n in res.notes)


@pytest.mark.parametrize("name", ["solution.cu", "fails_bank_conflict.cu", "fails_out_of_bounds.cu"])
def test_student_visible_text_never_shows_hidden_inputs(ex, name):
    res = graded(path_of(name), ex)
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


def test_hidden_cases_cover_the_promised_shapes(ex):
    res = graded(REFERENCE, ex)
    cases = res.instructor["cases"]
    normal = [s for c, s in zip(cases, hidden_shapes(res)) if c.startswith("normal")]
    boundary = [s for c, s in zip(cases, hidden_shapes(res)) if not c.startswith(("normal", "race"))]
    assert all(m % 32 == 0 and n % 32 == 0 for m, n in normal) and len(normal) >= 3
    assert (1, 1) in boundary
    assert any(m == 1 and n > 1 for m, n in boundary) and any(n == 1 and m > 1 for m, n in boundary)
    assert any(m > 4 * n for m, n in boundary) and any(n > 4 * m for m, n in boundary)
    assert any(m % 32 and n % 32 and m > 32 and n > 32 for m, n in boundary)


def test_hidden_cases_are_reproducible_and_per_submission(ex, tmp_path):
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
