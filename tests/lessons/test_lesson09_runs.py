"""Lesson 9 executes top to bottom on both branches; on the exercise branch the check meets the blank kindly."""
from __future__ import annotations

import importlib

import pytest

from lessonref import LESSON9, answer_only, read_lesson

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")


def _notebook(branch: str):
    cells = []
    for c in read_lesson(LESSON9).cells:
        if c.lang != "python":
            continue
        if branch == "exercise" and (answer_only(c.divs) or c.options.get("course_role") == "solution"):
            continue
        # IPython needs a cell magic on the first line: option lines go to metadata, as the site build does
        cells.append(nbformat.v4.new_code_cell(c.source, metadata={"course_role": c.options.get("course_role")}))
    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    return nb


def _run(branch: str):
    try:
        getattr(importlib.import_module("grading"), "check")
        importlib.import_module("labsim.cuda")
    except (ImportError, AttributeError) as e:
        pytest.skip(f"the lesson's check needs grading.check and labsim.cuda: {e}")
    nb = _notebook(branch)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": str(LESSON9.parent)}}).execute()
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


def test_exercise_branch_runs_and_check_explains_the_blank():
    nb = _run("exercise")
    (check,) = [c for c in nb.cells if c.metadata.get("course_role") == "check"]
    assert "______" in _text(check) or "空" in _text(check), _text(check)
    assert not any(c.metadata.get("course_role") == "solution" for c in nb.cells)


def test_answer_branch_runs_and_the_solution_passes():
    nb = _run("answer")
    figures = [c for c in nb.cells if any("image/png" in o.get("data", {}) for o in c.outputs)]
    assert len(figures) >= 4   # sector map, figure 9-1, the explorer grid, the solution's heatmap
