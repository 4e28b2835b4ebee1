"""Lesson 9 executes top to bottom on both branches (as the site build ran it); on the exercise branch the
check meets the blank kindly."""
from __future__ import annotations

from lessonref import LESSON9, site_notebook


def _run(branch: str):
    return site_notebook(LESSON9, branch)      # the site build's run of the lesson, not a third one


def _text(cell) -> str:
    out = []
    for o in cell.outputs:
        out.append(o.get("text", ""))
        out.append(o.get("data", {}).get("text/plain", ""))
    return "".join(out)


def test_exercise_branch_runs_and_check_explains_the_blank():
    nb = _run("exercise")
    # the exercise's check; the challenge's check cell comes after it
    check = next(c for c in nb.cells if c.metadata.get("course_role") == "check")
    assert "______" in _text(check) or "空" in _text(check), _text(check)
    assert not any(c.metadata.get("course_role") == "solution" for c in nb.cells)


def test_answer_branch_runs_and_the_solution_passes():
    nb = _run("answer")
    figures = [c for c in nb.cells if any("image/png" in o.get("data", {}) for o in c.outputs)]
    assert len(figures) >= 4   # sector map, figure 9-1, the explorer grid, the solution's heatmap
