"""Execution: the kernel is the build's Python, cwd is the notebook folder, errors name file/line/cell."""
from __future__ import annotations

import sys

import nbformat
import pytest

from coursebuild.execute import NotebookExecutionError, execute_notebook
from coursebuild.notebook import to_notebook
from coursebuild.qmd import parse_qmd


def test_kernel_is_this_interpreter(tmp_path):
    (tmp_path / "data.txt").write_text("here", encoding="utf-8")
    nb = to_notebook(parse_qmd("```{python}\nimport os, sys\nprint(sys.executable)\nprint(open('data.txt').read())\n"
                               "print(os.environ['QUARTO_PROFILE'])\n```\n", "lessons/k.qmd"))
    execute_notebook(nb, tmp_path, branch="exercise")
    out = nb.cells[0].outputs[0]["text"].split()
    assert out == [sys.executable, "here", "exercise"]


def test_cell_error_names_lesson_line_and_cell(tmp_path):
    src = "intro\n\n```{python}\nx = 1\n```\n\n```{python}\n#| label: boom\nraise ValueError('bad shape (3, 4)')\n```\n"
    nb = to_notebook(parse_qmd(src, "lessons/lesson99.qmd"))
    with pytest.raises(NotebookExecutionError) as exc:
        execute_notebook(nb, tmp_path, branch="answer", kernel_log=tmp_path / "k.log")
    msg = str(exc.value)
    assert msg.startswith("lessons/lesson99.qmd:7: cell 2 (boom) failed on the answer branch: ValueError: bad shape (3, 4)")
    assert "Traceback" not in msg.splitlines()[0]


def test_allowed_error_and_skipped_cell(tmp_path):
    src = ("```{python}\n#| error: true\n1/0\n```\n\n```{python}\n#| eval: false\nraise SystemExit\n```\n"
           "```{python}\nprint('after')\n```\n")
    nb = to_notebook(parse_qmd(src))
    execute_notebook(nb, tmp_path, branch="answer")
    assert nb.cells[0].outputs[0]["ename"] == "ZeroDivisionError"
    assert nb.cells[1].outputs == []
    assert nb.cells[2].outputs[0]["text"] == "after\n"


def test_markdown_only_needs_no_kernel(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("x")]
    assert execute_notebook(nb, tmp_path, branch="answer") is nb
