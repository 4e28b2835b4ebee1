"""Lesson 10 executes top to bottom on both branches (as a student's Jupyter would run it); on the exercise
branch the check meets the blank kindly, and with the blank filled the student's notebook passes its check."""
from __future__ import annotations

import importlib

import pytest

from lessonref import REPO, answer_only, challenge_line, read_lesson, site_notebook

from figures import lesson10  # noqa: F401
from figures import lessonkit as kit

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
LESSON10 = REPO / "lessons" / "lesson10_gemm_tiled.qmd"


def _notebook(branch: str, fill: str | None = None):
    """The lesson's cells up to its exercise's check cell, then only its labelled figures (race map, inner-loop
    heatmaps, roofline) before the challenge: the tables between run the reference fill (lessonkit.demo_fill
    outside the build), as the site build's answer branch runs them, top to bottom, on every build."""
    lesson = read_lesson(LESSON10)
    check_line = min(c.line for c in lesson.cells if c.options.get("course_role") == "check")
    end = challenge_line(lesson)
    cells = []
    for c in lesson.cells:
        if c.lang != "python":
            continue
        if branch == "exercise" and (answer_only(c.divs) or c.options.get("course_role") == "solution"):
            continue
        if c.line > check_line and not (c.line < end and str(c.options.get("label", "")).startswith("fig-")):
            continue
        src = c.source
        if fill is not None and c.options.get("course_role") == "exercise":
            src = src.replace("______", fill)
        # IPython needs a cell magic on the first line: option lines go to metadata, as the site build does
        cells.append(nbformat.v4.new_code_cell(src, metadata={"course_role": c.options.get("course_role")}))
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    return nb


def _run(branch: str, fill: str | None = None):
    if fill is None:
        return site_notebook(LESSON10, branch)   # the site build's run; only a filled blank runs here
    try:
        getattr(importlib.import_module("grading"), "check")
        importlib.import_module("labsim.cuda")
    except (ImportError, AttributeError) as e:
        pytest.skip(f"the lesson's check needs grading.check and labsim.cuda: {e}")
    nb = _notebook(branch, fill)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(LESSON10.parent)}}).execute()
    errors = [(i, o.ename, o.evalue) for i, c in enumerate(nb.cells) for o in c.outputs
              if o.output_type == "error"]
    assert not errors, errors
    return nb


def _text(cell) -> str:
    out = []
    for o in cell.outputs:
        out.append(o.get("text", ""))
        out.append(o.get("data", {}).get("text/plain", ""))
    return "".join(out)


def _check(nb):
    # the exercise's check; the challenge's check cell comes after it
    check = next(c for c in nb.cells if c.metadata.get("course_role") == "check")
    return _text(check)


def test_exercise_branch_runs_and_check_explains_the_blank():
    nb = _run("exercise")
    assert "______" in _check(nb) or "空" in _check(nb), _check(nb)
    assert not any(c.metadata.get("course_role") == "solution" for c in nb.cells)


def test_student_notebook_with_the_blank_filled_passes_its_check():
    nb = _run("exercise", fill=kit.reference_fill("lesson10"))
    text = _check(nb)
    assert "通过" in text or "PASS" in text.upper(), text[-2000:]
    assert not any(c.metadata.get("course_role") == "solution" for c in nb.cells)
    figures = [c for c in nb.cells if any("image/png" in o.get("data", {}) for o in c.outputs)]
    assert len(figures) >= 4     # playground, race map, inner-loop heatmaps, the check's sector map


def test_answer_branch_runs():
    nb = _run("answer")
    assert any(c.metadata.get("course_role") == "solution" for c in nb.cells)
