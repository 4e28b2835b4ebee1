"""Notebooks: cell options kept (source and metadata), roles as tags, div markers balanced, valid nbformat."""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from coursebuild.context import BuildContext
from coursebuild.notebook import cell_tags, to_notebook
from coursebuild.qmd import parse_qmd, read_qmd
from coursebuild.transforms import NOTEBOOK_PIPELINE, SOURCE_PIPELINE, run_pipeline

FIXTURE = Path(__file__).parent / "fixtures" / "site" / "lessons" / "lesson01_demo.qmd"


def _nb(branch, student, fmt="ipynb"):
    doc = run_pipeline(read_qmd(FIXTURE, "lessons/lesson01_demo.qmd"), BuildContext(branch, fmt),
                       SOURCE_PIPELINE + NOTEBOOK_PIPELINE)
    return to_notebook(doc, student=student, branch=branch)


def test_options_in_source_and_metadata():
    nb = _nb("answer", student=True)
    fig = next(c for c in nb.cells if c.metadata.get("course_options", {}).get("label") == "fig-heatmap")
    assert fig.cell_type == "code" and fig.id == "fig-heatmap"
    assert fig.source.startswith("#| label: fig-heatmap\n#| fig-cap:")
    assert fig.metadata["course_options"]["fig-alt"].startswith("warp 到 bank")
    setup = nb.cells[1]
    assert "remove-cell" in setup.metadata["tags"] and setup.source.startswith("#| include: false")


def test_cell_magic_stays_first_line():
    nb = _nb("answer", student=True)
    for role in ("exercise", "solution"):
        cell = next(c for c in nb.cells if c.metadata.get("course_role") == role)
        assert cell.source.startswith("%%writefile demo_kernel.cu\n"), role
        assert role in cell.metadata["tags"]
        assert cell.metadata["course_options"] == {"course_role": role}


def test_exercise_notebook_has_no_solution():
    nb = _nb("exercise", student=True)
    assert not [c for c in nb.cells if c.metadata.get("course_role") == "solution"]
    text = nbformat.writes(nb)
    assert "fixture-solution-marker" not in text and "fixture-answer-marker" not in text
    assert "（笔记本专有：交互控件）" in text and "（静态网页专有：预渲染视图）" not in text


def _balanced(nb):
    depth = 0
    for cell in nb.cells:
        depth += len(cell.metadata.get("course_div_open", []))
        depth -= cell.metadata.get("course_div_close", 0)
        assert depth >= 0
    return depth == 0


@pytest.mark.parametrize("branch", ["answer", "exercise"])
@pytest.mark.parametrize("student", [True, False])
def test_markers_balanced_and_valid(branch, student):
    nb = _nb(branch, student, "ipynb" if student else "html")
    nbformat.validate(nb)
    assert _balanced(nb)
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids))
    assert nb.metadata["kernelspec"]["name"] == "python3"


def test_markers_count_every_div():
    # Independent count: fenced-div openings in the branch source vs. markers in the notebook.
    src = ("::: {.a}\n::: {.b}\n:::\n:::\n\n::: {.callout-note}\ntext\n\n```{python}\nx\n```\n:::\n")
    nb = to_notebook(parse_qmd(src))
    opened = sum(len(c.metadata.get("course_div_open", [])) for c in nb.cells)
    assert opened == src.count("::: {")
    assert _balanced(nb)


def test_student_chrome():
    nb = _nb("answer", student=True)
    chrome = [c.source for c in nb.cells if "course-chrome" in c.metadata.get("tags", [])]
    assert chrome[0].startswith("# 第 1 课：演示课")
    assert any("💡 点击展开参考答案" in s for s in chrome)
    assert any('<a id="fig-heatmap"></a>*图 2：' in s for s in chrome)
    assert not [c for c in _nb("answer", student=False, fmt="html").cells
                if "course-chrome" in c.metadata.get("tags", [])]


def test_tags_from_options():
    assert cell_tags({"include": False, "echo": False, "output": False, "eval": False, "error": True,
                      "course_role": "check"}) == ["check", "remove-cell", "remove-input", "remove-output",
                                                   "skip-execution", "raises-exception"]


def test_unsupported_cell_language():
    with pytest.raises(ValueError, match=r"x\.qmd:1: executable `\{r\}` cells are not supported"):
        to_notebook(parse_qmd("```{r}\n1\n```\n", "x.qmd"))


def test_text_only_collapsible_callouts_stay_folded_in_student_notebooks():
    nb = _nb("exercise", student=True)
    hint = [c for c in nb.cells if "course-collapsed" in c.metadata.get("tags", [])]
    assert len(hint) == 1
    src = hint[0].source
    assert src.count("<details") == 2 and src.count("</details>") == 2
    assert src.index("第 1 级提示") < src.index("看行步长") < src.index("第 2 级提示") < src.index("奇数行步长")
    # The site keeps the div markers instead (the page template nests them).
    site = _nb("exercise", student=False, fmt="html")
    assert not [c for c in site.cells if "course-collapsed" in c.metadata.get("tags", [])]
    assert any("奇数行步长" in c.source for c in site.cells)
