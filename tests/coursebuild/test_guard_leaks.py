"""guard_leaks: the exercise branch refuses solution cells and hidden-check text."""
from __future__ import annotations

import pytest

from coursebuild.context import BuildContext
from coursebuild.qmd import parse_qmd
from coursebuild.transforms.guard_leaks import LeakError, guard_leaks

SOL = "intro\n\n```{python}\n#| course_role: solution\nx = 1\n```\n"


def test_solution_cell_is_a_leak_on_exercise_only():
    with pytest.raises(LeakError, match=r"lessons/l\.qmd:3: a `course_role: solution` cell"):
        guard_leaks(parse_qmd(SOL, "lessons/l.qmd"), BuildContext("exercise"))
    guard_leaks(parse_qmd(SOL, "lessons/l.qmd"), BuildContext("answer"))


def test_hidden_snippet_is_a_leak_and_names_its_source():
    ctx = BuildContext("exercise", hidden_snippets=[("grading/exercises/x/hidden_checks.py", "HIDDEN = (33, 65)")])
    with pytest.raises(LeakError, match=r"line 3 .*hidden_checks\.py"):
        guard_leaks(parse_qmd("a\nb\nsee HIDDEN = (33, 65) here\n", "l.qmd"), ctx)
    guard_leaks(parse_qmd("a\nb\nnothing hidden\n", "l.qmd"), ctx)
