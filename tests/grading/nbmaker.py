"""Build lesson-9-like student notebooks for the tests (nbformat, as Jupyter saves them)."""
from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

TARGET = "/tmp/09_transpose_tiled.cu"


def notebook(code: str | None, *, answers: dict[str, str] | None = None, check_output: str | None = None,
             tag: str = "option", target: str = TARGET,
             title: str = "第 9 课：共享内存转置与 Bank Conflict") -> nbformat.NotebookNode:
    """A notebook shaped like the exercise branch: exercise cell, check cell, explanation, Q1–Q3 (lesson 9's
    unless ``target`` and ``title`` name another exercise)."""
    answers = answers or {}
    cells = [new_markdown_cell(f"# {title}\n\n## 实践任务：唯一代码填空")]
    if code is not None:
        src = f"%%writefile {target}\n{code}"
        meta = {}
        if tag == "option":
            src = "#| course_role: exercise\n" + src
        elif tag == "metadata":
            meta = {"course_role": "exercise"}
        elif tag == "tags":
            meta = {"tags": ["course_role: exercise"]}
        cells.append(new_code_cell(src, metadata=meta))
    check = new_code_cell(f'#| course_role: check\nfrom grading import check\nreport = check("{target}")')
    if check_output is not None:
        check.outputs = [new_output("stream", name="stdout", text=check_output)]
    cells.append(check)
    cells.append(new_markdown_cell("### 解释你的实现\n\n用两三句话说明。\n\n**你的答案：**\n\n" +
                                   answers.get("explanation", "")))
    cells.append(new_markdown_cell("## 问答题"))
    for q, text in (("Q1", "不要背定义：请从输入、状态变化和输出三个阶段解释。"), ("Q2", "删除中间 __syncthreads() 为什么是数据竞争？"),
                    ("Q3", "+1 是否总是最优？")):
        cells.append(new_markdown_cell(f"### {q}\n\n{text}\n\n**你的答案：**\n"))
        if q in answers:
            cells.append(new_markdown_cell(answers[q]))
    cells.append(new_markdown_cell("## 评分与通过规则\n\n- 代码 4 分"))
    return new_notebook(cells=cells)


def write(nb: nbformat.NotebookNode, path: Path) -> Path:
    nbformat.write(nb, str(path))
    return path
