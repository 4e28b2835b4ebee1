"""The P2 lesson executes top to bottom on both branches; on the exercise branch the check meets the blank kindly,
and with the blank filled (the student's path) the check passes and draws the sector map."""
from __future__ import annotations

import pytest

from lessonref import REPO, answer_only, read_lesson, site_notebook

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

LESSON = REPO / "lessons" / "prelude" / "index.qmd"


def _notebook(branch: str, fill: str | None = None):
    cells = []
    for c in read_lesson(LESSON).cells:
        if c.lang != "python":
            continue
        if branch == "exercise" and (answer_only(c.divs) or c.options.get("course_role") == "solution"):
            continue
        src = c.source
        if fill is not None and c.options.get("course_role") == "exercise":
            src = src.replace("______", fill)          # what a student types into the blank
        cells.append(nbformat.v4.new_code_cell(src, metadata={"course_role": c.options.get("course_role")}))
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    return nb


FILLS = ("j * THREADS + t", "t * PER_THREAD + j")      # coalesced (the answer), uncoalesced (still correct)


def _run(branch: str, fill: str | None = None):
    if fill is None:
        return site_notebook(LESSON, branch)     # the site build's run; only a filled blank runs here
    return _filled_runs()[fill]


_FILLED: dict = {}


def _filled_runs() -> dict:
    """The exercise branch with each of FILLS typed into the blank, one after the other in one kernel (as a
    student retries): a filled blank changes only what the exercise and check cells do, so the imports run once,
    then each fill's exercise and check cells (the whole notebook already runs top to bottom in the site build,
    whose run site_notebook returns). {fill: a notebook of the imports and that fill's cells}."""
    if _FILLED:
        return _FILLED
    parts = []
    for fill in FILLS:
        nb = _notebook("exercise", fill)
        cells = [c for c in nb.cells if c.metadata.get("course_role") in ("exercise", "check")
                 or c.source.startswith(("import figures", "from figures import"))]
        assert [c.metadata.get("course_role") for c in cells][-2:] == ["exercise", "check"], "setup, exercise, check"
        setup = [c for c in cells if not c.metadata.get("course_role")]
        parts.append((fill, setup, [c for c in cells if c.metadata.get("course_role")]))
    run = nbformat.v4.new_notebook()
    run.cells = parts[0][1] + [c for _, _, own in parts for c in own]
    nbclient.NotebookClient(run, timeout=600, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(LESSON.parent)}}).execute()
    errors = [(i, o.ename, o.evalue) for i, c in enumerate(run.cells) for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    at = len(parts[0][1])
    for fill, setup, own in parts:
        nb = nbformat.v4.new_notebook()
        nb.cells = run.cells[:len(setup)] + run.cells[at:at + len(own)]
        at += len(own)
        _FILLED[fill] = nb
    return _FILLED


def _text(cell) -> str:
    return "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def _check_cell(nb):
    # the exercise's check; the challenge's check cell comes after it
    check = next(c for c in nb.cells if c.metadata.get("course_role") == "check")
    return check


def test_exercise_branch_runs_and_check_explains_the_blank():
    nb = _run("exercise")
    text = _text(_check_cell(nb))
    assert "______" in text or "空" in text, text
    assert not any(c.metadata.get("course_role") == "solution" for c in nb.cells)


def test_exercise_branch_with_the_blank_filled_passes():
    nb = _run("exercise", fill=FILLS[0])
    check = _check_cell(nb)
    text = _text(check)
    assert "全部通过" in text and "sector" in text, text
    assert any("image/png" in o.get("data", {}) for o in check.outputs), "the check cell draws the sector map"


def test_exercise_branch_with_an_uncoalesced_fill_is_told_about_sectors_not_correctness():
    nb = _run("exercise", fill=FILLS[1])
    text = _text(_check_cell(nb))
    assert "结果正确" in text and "16.00 个 sector" in text and "4.00 个" in text, text
    assert "碰巧" not in text and "错误" not in text.split("sector")[0], text


def test_answer_branch_runs():
    nb = _run("answer")
    figures = [c for c in nb.cells if any("image/png" in o.get("data", {}) for o in c.outputs)]
    assert len(figures) >= 3    # patterns, row/col, the solution's check (the blank is unfilled above)
