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
from grading.pipeline import Options, grade_submission
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


@pytest.mark.parametrize("older", ["0", "0.9"])
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
    return "\n".join(ln for ln in text.splitlines() if "❌" not in ln)


def _add_a_line(text: str) -> str:
    lines = text.splitlines()
    return "\n".join([*lines[:2], "  ✅ 没有 bank conflict", *lines[2:]])


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
    code = fill(ex, "TILE_DIM")
    forged = rehash(re.sub(r"model=\S+", "model=0", _edit_verdict(run_check(tmp_path, code))))
    res = grade_nb(ex, tmp_path, code, forged)
    assert res.instructor["receipt"] == "recheck" and res.instructor.get("needs_rerun")
    future = rehash(re.sub(r"model=\S+", "model=99999", _edit_verdict(run_check(tmp_path, code))))
    res = grade_nb(ex, tmp_path, code, future)
    assert res.instructor["receipt"] == "edited" and "unrun_output" in vetoes(res)


def test_gradebook_shows_which_receipts_need_a_rerun(ex, tmp_path, monkeypatch):
    import csv

    from grading.report import write_gradebook
    code = fill(ex, "TILE_DIM + 1")
    monkeypatch.setattr(labsim, "MODEL_VERSION", "0")
    old = run_check(tmp_path, code)
    monkeypatch.undo()
    results = [grade_nb(ex, tmp_path, code, old), grade_nb(ex, tmp_path, code, run_check(tmp_path, code))]
    write_gradebook(results, tmp_path / "g.csv")
    rows = list(csv.DictReader((tmp_path / "g.csv").open(encoding="utf-8")))
    assert [r["receipt"] for r in rows] == ["recheck (re-run needed)", "ok"]


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
