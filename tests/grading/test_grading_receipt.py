"""Run receipts: the grader re-runs the public check and compares the saved output of the check cell that
matters line by line; a receipt binds the code and the whole printed verdict (issues 14 and 15)."""
from __future__ import annotations

import re

import labsim
import nbformat
import pytest
from grading_testlib import fill
from nbformat.v4 import new_code_cell, new_output
from nbmaker import notebook, write

from grading import check
from grading.grade import Options, grade_submission
from grading.receipt import out_hash


def run_check(tmp_path, code: str) -> str:
    p = tmp_path / "run.cu"
    p.write_text(code, encoding="utf-8")
    return check(p, "lesson09", quiet=True).text()


def grade_nb(ex, tmp_path, code, output, *, extra_cells=()):
    nb = notebook(code, check_output=output)
    for pos, cell in extra_cells:
        nb.cells.insert(pos, cell)
    path = write(nb, tmp_path / "student.ipynb")
    return grade_submission(path, ex, options=Options(nvcc="off"))


def vetoes(res):
    return [v.id for v in res.vetoes]


def rehash(text: str) -> str:
    """What a student can do with the shipped algorithm: recompute the out hash after editing."""
    lines = text.splitlines()
    body = lines[1:-1]
    return "\n".join([*lines[:-1], re.sub(r"out=[0-9a-f]{12}", f"out={out_hash(body)}", lines[-1])])


# ---- honest notebooks are never vetoed -----------------------------------------------------------------

@pytest.mark.parametrize("blank", ["TILE_DIM + 1", "TILE_DIM", "33 + 0 * 7", "______"])
def test_matching_receipt_is_ok(ex, tmp_path, blank):
    code = fill(ex, blank)
    res = grade_nb(ex, tmp_path, code, run_check(tmp_path, code))
    assert res.instructor["receipt"] == "ok" and "unrun_output" not in vetoes(res)


def test_resaved_notebook_is_still_ok(ex, tmp_path):
    code = fill(ex, "TILE_DIM + 1")
    path = write(notebook(code, check_output=run_check(tmp_path, code)), tmp_path / "a.ipynb")
    for _ in range(2):                              # Jupyter reads and re-saves it
        nbformat.write(nbformat.read(str(path), as_version=4), str(path))
    res = grade_submission(path, ex, options=Options(nvcc="off"))
    assert res.instructor["receipt"] == "ok" and not res.vetoes


def test_whitespace_edit_after_running_is_still_the_same_code(ex, tmp_path):
    code = fill(ex, "TILE_DIM + 1")
    out = run_check(tmp_path, code)
    res = grade_nb(ex, tmp_path, code.replace("    ", "  ") + "\n// 提交前加的注释\n", out)
    assert res.instructor["receipt"] == "ok" and not res.vetoes


def test_rerun_after_an_edit_is_ok(ex, tmp_path):
    run_check(tmp_path, fill(ex, "TILE_DIM + 2"))                 # first run, then the blank changed ...
    code = fill(ex, "TILE_DIM + 1")
    res = grade_nb(ex, tmp_path, code, run_check(tmp_path, code))  # ... and the check cell was run again
    assert res.instructor["receipt"] == "ok" and not res.vetoes


@pytest.mark.parametrize("where", [1, 2])
def test_stale_receipt_in_another_cell_does_not_veto(ex, tmp_path, where):
    old = run_check(tmp_path, fill(ex, "TILE_DIM + 2"))
    code = fill(ex, "TILE_DIM + 1")
    cell = new_code_cell("from grading import check\ncheck('/tmp/09_transpose_tiled.cu')" if where == 1
                         else "#| course_role: check\ncheck('/tmp/09_transpose_tiled.cu')")
    cell.outputs = [new_output("stream", name="stdout", text=old)]
    res = grade_nb(ex, tmp_path, code, run_check(tmp_path, code), extra_cells=[(2, cell)])
    assert res.instructor["receipt"] == "ok" and not res.vetoes


def test_no_saved_output_is_not_a_veto(ex, tmp_path):
    res = grade_nb(ex, tmp_path, fill(ex, "TILE_DIM + 1"), None)
    assert res.instructor["receipt"] == "none" and not res.vetoes


def test_check_before_the_file_existed_is_not_a_veto(ex, tmp_path):
    out = check(tmp_path / "missing.cu", ex.id, quiet=True).text()
    res = grade_nb(ex, tmp_path, fill(ex, "TILE_DIM + 1"), out)
    assert res.instructor["receipt"] == "none" and not res.vetoes


@pytest.mark.parametrize("older", ["1"])              # a released model (grading/releases.toml)
def test_other_model_version_is_rechecked_not_vetoed(ex, tmp_path, monkeypatch, older):
    code = fill(ex, "TILE_DIM + 1")
    monkeypatch.setattr(labsim, "MODEL_VERSION", older)
    out = run_check(tmp_path, code)
    monkeypatch.undo()
    res = grade_nb(ex, tmp_path, code, out)
    assert res.instructor["receipt"] == "recheck" and res.instructor.get("needs_rerun")
    assert not res.vetoes and any("重新运行" in n for n in res.notes)


# ---- edits after running are caught ---------------------------------------------------------------------

def test_output_from_other_code_is_vetoed(ex, tmp_path):
    out = run_check(tmp_path, fill(ex, "TILE_DIM + 2"))      # ran with +2, then changed the blank, never re-ran
    res = grade_nb(ex, tmp_path, fill(ex, "TILE_DIM + 1"), out)
    assert res.instructor["receipt"] == "stale_code"
    assert vetoes(res) == ["unrun_output"] and res.verdict == "fail"


def _edit_verdict(text: str) -> str:
    return re.sub(r"结论：.*", "结论：公开检查全部通过（3/3）。", text, count=1)


def _edit_counter(text: str) -> str:
    return re.sub(r"(wavefronts_mem_shared_op_ld\.sum = )(\d+)", lambda m: m.group(1) + "1", text, count=1)


def _drop_a_check_line(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if "✗" not in ln)


def _add_a_line(text: str) -> str:
    lines = text.splitlines()
    return "\n".join([*lines[:2], "  ✓ 没有 bank conflict", *lines[2:]])


@pytest.mark.parametrize("edit", [_edit_verdict, _edit_counter, _drop_a_check_line, _add_a_line])
@pytest.mark.parametrize("forge", [False, True], ids=["edited", "edited+rehashed"])
def test_hand_edited_output_is_vetoed_naming_the_line(ex, tmp_path, edit, forge):
    code = fill(ex, "TILE_DIM")                                   # fails the conflict check: worth faking
    out = run_check(tmp_path, code)
    edited = edit(out)
    assert edited != out
    res = grade_nb(ex, tmp_path, code, rehash(edited) if forge else edited)
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res)
    [veto] = [v for v in res.vetoes if v.id == "unrun_output"]
    assert re.search(r"第 \d+ 行", veto.reason)


@pytest.mark.parametrize("mangle", [lambda t: "\n".join(t.splitlines()[:-1]),
                                    lambda t: re.sub(r"code=[0-9a-f]{12}", "code=zz", t),
                                    lambda t: t.replace("out=", "sig=")])
def test_removed_or_malformed_receipt_is_vetoed(ex, tmp_path, mangle):
    code = fill(ex, "TILE_DIM")
    res = grade_nb(ex, tmp_path, code, mangle(run_check(tmp_path, code)))
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res)


@pytest.mark.parametrize("model", ["0", "1.0.1x", "999"])
def test_changing_the_version_does_not_hide_stale_code(ex, tmp_path, model):
    """The bypass: a stale receipt with its version field changed (and hashes recomputed) is still stale."""
    out = run_check(tmp_path, fill(ex, "TILE_DIM + 1"))
    forged = rehash(re.sub(r"model=\S+", f"model={model}", out))
    res = grade_nb(ex, tmp_path, fill(ex, "TILE_DIM"), forged)
    assert res.instructor["receipt"] == "stale_code" and "unrun_output" in vetoes(res)


def test_changing_the_version_to_hide_an_edit_is_never_a_pass(ex, tmp_path):
    """Issue 25 item 9: under another released model the verdict and each check's pass/fail are still compared,
    and a model or tool no release wrote is an edit."""
    code = fill(ex, "TILE_DIM")
    for model in ("1", "0"):
        forged = rehash(re.sub(r"model=\S+", f"model={model}", _edit_verdict(run_check(tmp_path, code))))
        res = grade_nb(ex, tmp_path, code, forged)
        assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res), model
    forged = rehash(re.sub(r"tool=\S+", "tool=deadbeef", run_check(tmp_path, code)))
    res = grade_nb(ex, tmp_path, code, forged)
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res)
    future = rehash(re.sub(r"model=\S+", "model=99999", _edit_verdict(run_check(tmp_path, code))))
    res = grade_nb(ex, tmp_path, code, future)
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res)


def test_gradebook_shows_which_receipts_need_a_rerun(ex, tmp_path, monkeypatch):
    import csv

    from grading.report import write_gradebook
    code = fill(ex, "TILE_DIM + 1")
    monkeypatch.setattr(labsim, "MODEL_VERSION", "1")
    old = run_check(tmp_path, code)
    monkeypatch.undo()
    results = [grade_nb(ex, tmp_path, code, old), grade_nb(ex, tmp_path, code, run_check(tmp_path, code))]
    write_gradebook(results, tmp_path / "g.csv")
    rows = list(csv.DictReader((tmp_path / "g.csv").open(encoding="utf-8")))
    assert [r["receipt"] for r in rows] == ["recheck (re-run needed)", "ok"]


# ---- receipts across versions (issue 25 items 8-9) ----------------------------------------------------------

def _format1(text: str, ex_id: str = "lesson09") -> str:
    """The same check output with the receipt line the first release wrote (code= result= tool= sig=), old
    marks and all: what an honest notebook run with that release holds."""
    from grading.receipt import _sig1
    lines = text.replace("✓", "✅").replace("✗", "❌").splitlines()
    code = re.search(r"code=([0-9a-f]{12})", lines[-1]).group(1)
    result, tool = "0123456789ab", "fedcba987654"
    lines[-1] = (f"运行凭据 receipt {ex_id} code={code} result={result} tool={tool} "
                 f"sig={_sig1(ex_id, code, result, tool)}")
    return "\n".join(lines)


@pytest.mark.parametrize("blank", ["TILE_DIM + 1", "TILE_DIM"])
def test_an_honest_notebook_from_the_first_release_is_rechecked_not_vetoed(ex, tmp_path, blank):
    code = fill(ex, blank)
    res = grade_nb(ex, tmp_path, code, _format1(run_check(tmp_path, code)))
    assert res.instructor["receipt"] == "recheck" and "unrun_output" not in vetoes(res)


def test_a_first_release_receipt_over_other_code_is_vetoed(ex, tmp_path):
    """A passing output of the right blank, its format-1 receipt rebuilt for the submitted (wrong) code."""
    from grading.receipt import code_hash
    good = _format1(run_check(tmp_path, fill(ex, "TILE_DIM + 1")))
    code = fill(ex, "TILE_DIM")
    forged = re.sub(r"code=[0-9a-f]{12}", f"code={code_hash(code)}", good)
    from grading.receipt import _sig1
    forged = re.sub(r"sig=[0-9a-f]{8}", "sig=" + _sig1("lesson09", code_hash(code), "0123456789ab", "fedcba987654"),
                    forged)
    res = grade_nb(ex, tmp_path, code, forged)
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res)


def test_a_released_model_forgery_over_other_code_is_vetoed(ex, tmp_path):
    """Issue 25 item 9: a saved passing output of other code, receipt rebuilt by the shipped algorithm with a
    released model=1 for the submitted code."""
    from grading.receipt import code_hash
    good = run_check(tmp_path, fill(ex, "TILE_DIM + 1"))
    code = fill(ex, "TILE_DIM")
    forged = rehash(re.sub(r"code=[0-9a-f]{12}", f"code={code_hash(code)}", re.sub(r"model=\S+", "model=1", good)))
    # the blank line is the submitted one too (the forger edits it to match)
    forged = rehash(forged.replace("填空：TILE_DIM + 1 = 33", "填空：TILE_DIM = 32"))
    res = grade_nb(ex, tmp_path, code, forged)
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res)


def test_an_untagged_scratch_cell_with_an_old_report_does_not_veto(ex, tmp_path):
    """Issue 25 item 15: without course_role tags only the cell that calls check( is the check cell; a later
    scratch cell that printed an old report (print(old_text)) neither vetoes nor vouches."""
    old = run_check(tmp_path, fill(ex, "TILE_DIM + 2"))
    code = fill(ex, "TILE_DIM + 1")
    nb = notebook(code, check_output=run_check(tmp_path, code), tag="metadata")   # the check cell untagged
    for c in nb.cells:
        c.source = c.source.replace("#| course_role: check\n", "")
    scratch = new_code_cell("print(open('old_report.txt').read())")
    scratch.outputs = [new_output("stream", name="stdout", text=old)]
    nb.cells.append(scratch)
    res = grade_submission(write(nb, tmp_path / "s.ipynb"), ex, options=Options(nvcc="off"))
    assert res.instructor["receipt"] == "ok" and not res.vetoes


# ---- the HTML view a notebook shows is bound like the text ------------------------------------------------

def grade_displayed(ex, tmp_path, code, *, edit=None, shape=None, cell_lines=1):
    """A notebook whose check cell saved what check() displays in Jupyter: one display_data output, the text
    as text/plain and the source view as text/html (``edit`` changes the HTML afterwards)."""
    p = tmp_path / "run.cu"
    p.write_text(code, encoding="utf-8")
    rep = check(p, "lesson09", quiet=True, shape=shape, cell_lines=cell_lines)
    view = rep.html()
    if edit:
        view = edit(view)
    nb = notebook(code)
    cell = next(c for c in nb.cells if "from grading import check" in c.source)
    cell.outputs = [new_output("display_data", data={"text/plain": rep.text(), "text/html": view})]
    path = write(nb, tmp_path / "student.ipynb")
    return grade_submission(path, ex, options=Options(nvcc="off"))


def check_view(tmp_path, code):
    p = tmp_path / "run.cu"
    p.write_text(code, encoding="utf-8")
    return check(p, "lesson09", quiet=True, cell_lines=1).html()


def test_displayed_view_is_ok_in_the_cells_numbering(ex, tmp_path):
    res = grade_displayed(ex, tmp_path, fill(ex, "TILE_DIM + 1"))
    assert res.instructor["receipt"] == "ok" and not res.vetoes


def test_displayed_view_with_a_shape_is_ok(ex, tmp_path):
    res = grade_displayed(ex, tmp_path, fill(ex, "TILE_DIM + 1"), shape=(65, 45))
    assert res.instructor["receipt"] == "ok" and not res.vetoes


@pytest.mark.parametrize("edit", [
    lambda v: v.replace("公开检查通过 2/3，没通过的项目见下面的说明。", "公开检查全部通过（3/3）。"),   # what a TA reads
    lambda v: re.sub(r"(<td class='wf'[^>]*>)32<", r"\g<1>1<", v, count=1),  # a counter of the source view
])
def test_edited_html_view_is_vetoed(ex, tmp_path, edit):
    code = fill(ex, "TILE_DIM")               # a 32-way conflict (public 2/3): the edits make it look better
    honest = grade_displayed(ex, tmp_path, code)
    assert honest.instructor["receipt"] == "ok"
    assert edit(fill_view := check_view(tmp_path, code)) != fill_view        # the edit did change something
    res = grade_displayed(ex, tmp_path, code, edit=edit)
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res), res.notes
    assert any("HTML" in n for n in res.notes)
