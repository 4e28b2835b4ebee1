"""select_branch: what each branch keeps, for profile and format conditions."""
from __future__ import annotations

import pytest

from coursebuild.context import BuildContext
from coursebuild.qmd import Cell, parse_qmd, write_qmd
from coursebuild.transforms import run_pipeline
from coursebuild.transforms.select_branch import select_branch

SRC = """\
intro
```{python}
#| course_role: exercise
%%writefile k.cu
blank ______
```
```{python}
#| course_role: solution
SOLUTION_CELL
```
::: {.content-visible when-profile="answer"}
ANSWER_DIV
::: {.callout-tip collapse="true"}
NESTED_ANSWER
:::
:::
::: {.content-visible when-profile="exercise"}
EXERCISE_DIV
:::
::: {.content-visible unless-profile="answer"}
VISIBLE_UNLESS
:::
::: {.content-hidden when-profile="answer"}
HIDDEN_ON_ANSWER
:::
::: {.content-hidden unless-profile="answer"}
HIDDEN_UNLESS_ANSWER
:::
::: {.content-visible when-format="html"}
HTML_ONLY
:::
::: {.content-visible when-format="ipynb"}
IPYNB_ONLY
:::
::: {.content-visible when-profile="answer" when-format="html"}
ANSWER_AND_HTML
:::
span [SPAN_ANSWER]{.content-visible when-profile="answer"} and [SPAN_EXERCISE]{.content-visible when-profile="exercise"}
"""

MARKERS = ["SOLUTION_CELL", "ANSWER_DIV", "NESTED_ANSWER", "EXERCISE_DIV", "VISIBLE_UNLESS", "HIDDEN_ON_ANSWER",
           "HIDDEN_UNLESS_ANSWER", "HTML_ONLY", "IPYNB_ONLY", "ANSWER_AND_HTML", "SPAN_ANSWER", "SPAN_EXERCISE"]

# Expected visibility written out by hand from Quarto's documented semantics (independent of the code).
EXPECTED = {
    ("answer", "html"): {"SOLUTION_CELL", "ANSWER_DIV", "NESTED_ANSWER", "HIDDEN_UNLESS_ANSWER", "HTML_ONLY",
                         "ANSWER_AND_HTML", "SPAN_ANSWER"},
    ("exercise", "html"): {"EXERCISE_DIV", "VISIBLE_UNLESS", "HIDDEN_ON_ANSWER", "HTML_ONLY", "SPAN_EXERCISE"},
    ("answer", "ipynb"): {"SOLUTION_CELL", "ANSWER_DIV", "NESTED_ANSWER", "HIDDEN_UNLESS_ANSWER", "IPYNB_ONLY",
                          "SPAN_ANSWER"},
    ("exercise", "ipynb"): {"EXERCISE_DIV", "VISIBLE_UNLESS", "HIDDEN_ON_ANSWER", "IPYNB_ONLY", "SPAN_EXERCISE"},
    # Format undecided (the branch .qmd for Quarto): format-conditional content stays for Quarto.
    ("answer", None): {"SOLUTION_CELL", "ANSWER_DIV", "NESTED_ANSWER", "HIDDEN_UNLESS_ANSWER", "HTML_ONLY",
                       "IPYNB_ONLY", "ANSWER_AND_HTML", "SPAN_ANSWER"},
    ("exercise", None): {"EXERCISE_DIV", "VISIBLE_UNLESS", "HIDDEN_ON_ANSWER", "HTML_ONLY", "IPYNB_ONLY",
                         "SPAN_EXERCISE"},
}


@pytest.mark.parametrize("branch, fmt", sorted(EXPECTED, key=str))
def test_visibility(branch, fmt):
    out = write_qmd(select_branch(parse_qmd(SRC), BuildContext(branch, fmt)))
    present = {m for m in MARKERS if m in out}
    assert present == EXPECTED[(branch, fmt)]
    assert "blank ______" in out  # the exercise cell is in both branches


def test_solution_cell_dropped_anywhere_on_exercise():
    src = "::: {.callout-note}\n```{python}\n#| course_role: solution\nS\n```\n:::\n"
    doc = select_branch(parse_qmd(src), BuildContext("exercise", "html"))
    assert "S\n" not in write_qmd(doc)
    doc = select_branch(parse_qmd(src), BuildContext("answer", "html"))
    assert any(isinstance(n, Cell) for n in doc.children[0].children)


def test_source_not_mutated_by_pipeline():
    doc = parse_qmd(SRC)
    before = write_qmd(doc)
    run_pipeline(doc, BuildContext("exercise", "html"), [select_branch])
    assert write_qmd(doc) == before


def test_unknown_branch_rejected():
    with pytest.raises(ValueError, match="unknown branch"):
        BuildContext("teacher")
