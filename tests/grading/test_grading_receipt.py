"""Run receipts: the grader re-runs the public checks and flags a notebook whose saved output does not
come from its code ("presented unrun output as measured")."""
from __future__ import annotations

import re

import pytest
from grading_testlib import fill
from nbmaker import notebook, write

from grading import check
from grading.pipeline import Options, grade_submission
from grading.receipt import make_receipt


def run_check(tmp_path, code: str) -> str:
    p = tmp_path / "run.cu"
    p.write_text(code, encoding="utf-8")
    return check(p, "lesson09", quiet=True).text()


def grade_nb(ex, tmp_path, code, output):
    nb = write(notebook(code, check_output=output), tmp_path / "student.ipynb")
    return grade_submission(nb, ex, options=Options(nvcc="off"))


def test_matching_receipt_is_ok(ex, sim, tmp_path):
    code = fill(ex, "TILE_DIM + 1")
    res = grade_nb(ex, tmp_path, code, run_check(tmp_path, code))
    assert res.instructor["receipt"] == "ok" and not res.vetoes


def test_whitespace_edit_after_running_is_still_the_same_code(ex, sim, tmp_path):
    code = fill(ex, "TILE_DIM + 1")
    out = run_check(tmp_path, code)
    res = grade_nb(ex, tmp_path, code.replace("    ", "  ") + "\n// 提交前加的注释\n", out)
    assert res.instructor["receipt"] == "ok" and not res.vetoes


def test_output_from_other_code_is_vetoed(ex, sim, tmp_path):
    out = run_check(tmp_path, fill(ex, "TILE_DIM + 2"))      # ran with +2, then changed the blank, never re-ran
    res = grade_nb(ex, tmp_path, fill(ex, "TILE_DIM + 1"), out)
    assert res.instructor["receipt"] == "stale_code"
    assert [v.id for v in res.vetoes] == ["unrun_output"] and res.verdict == "fail"


def test_hand_edited_receipt_is_vetoed(ex, sim, tmp_path):
    code = fill(ex, "TILE_DIM + 2")
    out = run_check(tmp_path, code)
    forged = re.sub(r"result=([0-9a-f]{12})", lambda m: "result=" + "0" * 12, out)
    res = grade_nb(ex, tmp_path, code, forged)
    assert res.instructor["receipt"] == "tampered" and [v.id for v in res.vetoes] == ["unrun_output"]


def test_results_that_code_does_not_produce_are_vetoed(ex, sim, tmp_path):
    code = fill(ex, "TILE_DIM + 2")
    fake = make_receipt(ex.id, code, [34, ["public_conflict_free", "passed", "没有 bank conflict"]], ex.fingerprint())
    res = grade_nb(ex, tmp_path, code, "公开检查全部通过\n" + fake.line())
    assert res.instructor["receipt"] == "mismatch" and [v.id for v in res.vetoes] == ["unrun_output"]


def test_no_saved_output_is_not_a_veto(ex, sim, tmp_path):
    res = grade_nb(ex, tmp_path, fill(ex, "TILE_DIM + 1"), None)
    assert res.instructor["receipt"] == "none" and not res.vetoes


@pytest.mark.parametrize("code_edit", [lambda s: s, lambda s: s.replace("TILE_DIM + 1", "33")])
def test_receipt_binds_code_tokens(ex, code_edit):
    a = make_receipt(ex.id, fill(ex, "TILE_DIM + 1"), [1], "f" * 12)
    b = make_receipt(ex.id, code_edit(fill(ex, "TILE_DIM + 1")), [1], "f" * 12)
    assert (a.code == b.code) == (code_edit(fill(ex, "TILE_DIM + 1")) == fill(ex, "TILE_DIM + 1"))
    assert a.valid_sig and b.valid_sig
