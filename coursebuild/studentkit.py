"""The student hand-out: exercise notebooks plus an installable copy of what they import.

``_site/notebooks/`` becomes a folder a student can take home: the exercise-branch notebooks, the packages the
lessons import (labsim, figures, and grading's *student build*: public checks only, no hidden checks, rubric,
solution or instructor secret), a minimal ``pyproject.toml`` with the same run-time requirements as the
course, and a README in Chinese. ``pip install .`` in that folder, then open the notebooks in Jupyter.
"""
from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

PACKAGES = ("labsim", "figures")

README = """# CUDA 访存课程：学生包

这个文件夹里有练习版 notebook（`lessons/`）和运行它们所需的 Python 包（labsim 模拟器、画图用的 figures、
只含公开检查的 grading）。不需要 GPU。

```bash
python3 -m venv .venv && . .venv/bin/activate
pip install .          # 安装 labsim、figures、grading（学生版）及其依赖
jupyter lab lessons/   # 或 jupyter notebook
```

每课的检查单元会在模拟器上运行你写的 CUDA 代码，并打印结论、逐行计数器和一张"回执"。
提交时保留检查单元的输出，不要手改。
"""


def make_student_kit(root: Path, hand_out: Path) -> list[str]:
    """Add the packages, pyproject.toml and README to ``hand_out`` (which already holds the notebooks).

    A project without the course packages (a test fixture course) gets no kit: returns an empty log.
    """
    if not all((root / pkg).is_dir() for pkg in PACKAGES + ("grading",)):
        return []
    from grading.studentbuild import build as grading_student_build   # instructor tool, present in the repo

    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for pkg in PACKAGES:
        shutil.rmtree(hand_out / pkg, ignore_errors=True)
        shutil.copytree(root / pkg, hand_out / pkg, ignore=ignore)
    shutil.rmtree(hand_out / "grading", ignore_errors=True)
    ctx = grading_student_build(hand_out)
    with open(root / "pyproject.toml", "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    lines = ["[build-system]", 'requires = ["setuptools>=68"]', 'build-backend = "setuptools.build_meta"', "",
             "[project]", 'name = "cuda-memory-course-student"', 'version = "0.1.0"',
             'requires-python = ">=3.11"', "dependencies = ["] + [f'    "{d}",' for d in deps] + \
            ["    \"jupyterlab>=4.0\",", "]", "", "[tool.setuptools]",
             'packages = { find = { include = ["labsim*", "figures*", "grading*"] } }', "",
             "[tool.setuptools.package-data]", '"*" = ["*.cu", "*.json", "*.toml", "*.md"]', ""]
    (hand_out / "pyproject.toml").write_text("\n".join(lines), encoding="utf-8")
    (hand_out / "README.md").write_text(README, encoding="utf-8")
    return ctx.log
