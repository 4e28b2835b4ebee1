"""Adding a lesson is one .qmd, one exercise folder, one figures module with only that lesson's tables, and one
line of order (tests/fixtures/lesson11/README.md): lesson 11, added to a copy of the course, is found by
everything that lists lessons, without another edit."""
from __future__ import annotations

import ast
import importlib.util
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "lesson11"
EXERCISES = Path(__file__).parent / "grading" / "fixtures" / "exercises"   # holds vecscale/
PAGE = "lessons/lesson11_vecscale.qmd"

sys.path.insert(0, str(Path(__file__).parent / "lessons"))
from lessonref import graded_lessons, read_lesson  # noqa: E402


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course's pages (no code: that is imported from the repo) plus the new lesson."""
    root = tmp_path_factory.mktemp("course")
    for name in ("_quarto.yml", "_quarto-answer.yml", "_quarto-exercise.yml", "index.qmd"):
        shutil.copy(REPO / name, root / name)
    shutil.copytree(REPO / "lessons", root / "lessons")
    shutil.copy(FIXTURE / PAGE, root / PAGE)
    return root


@pytest.fixture(autouse=True)
def exercise_folders(monkeypatch):
    monkeypatch.setenv("GRADING_EXERCISES", str(EXERCISES))
    from grading.spec import clear_caches
    clear_caches()
    yield
    clear_caches()


@pytest.fixture(scope="module")
def lesson11_module():
    """The lesson's figures module, as figures.lesson11 (where it would live)."""
    spec = importlib.util.spec_from_file_location("figures.lesson11", FIXTURE / "figures" / "lesson11.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["figures.lesson11"] = mod
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        del sys.modules["figures.lesson11"]


def test_the_site_orders_it_after_lesson_10(course):
    from coursebuild.site import load_site
    site = load_site(course)
    assert site.order[-1] == PAGE and PAGE in site.pages
    assert site.neighbors("lessons/lesson10_gemm_tiled.qmd")[1] == PAGE
    assert site.titles[PAGE] == "第 11 课：向量缩放（测试用）"


def test_the_landing_page_lists_it(course):
    from coursebuild.context import BuildContext
    from coursebuild.qmd import Markdown, read_qmd
    from coursebuild.site import load_site
    from coursebuild.transforms import SOURCE_PIPELINE, run_pipeline
    doc = run_pipeline(read_qmd(course / "index.qmd", "index.qmd"),
                       BuildContext("exercise", None, lessons=load_site(course).lessons()), SOURCE_PIPELINE)
    text = "".join(n.text for n in doc.children if isinstance(n, Markdown))
    assert f"| [第 11 课：向量缩放（测试用）]({PAGE}) | 每块线程数与读 sector：测试用的新课 |" in text


def test_the_lists_of_graded_lessons_find_it_and_its_exercise(course):
    found = {p.relative_to(course).as_posix(): rest for p, *rest in graded_lessons(course)}
    assert found[PAGE] == ["vecscale", "/tmp/vecscale.cu", "BLOCK"]
    assert list(found)[-1] == PAGE and len(found) == len(graded_lessons(REPO)) + 1


def test_its_exercise_cell_is_the_graders_template_and_the_check_finds_it(course, tmp_path):
    from grading import check
    from grading.spec import load_exercise
    ex = load_exercise("vecscale")
    cells = {c.options.get("course_role"): c for c in read_lesson(course / PAGE).cells}
    head = "%%writefile /tmp/vecscale.cu\n"
    assert cells["exercise"].source.startswith(head) and cells["solution"].source.startswith(head)
    assert cells["exercise"].source[len(head):].strip() == ex.template.strip()
    assert cells["solution"].source[len(head):].strip() == ex.solution_path.read_text(encoding="utf-8").strip()
    assert 'check("/tmp/vecscale.cu")' in cells["check"].source
    p = tmp_path / "vecscale.cu"                      # the check cell's file, found by the target's name
    p.write_text(ex.solution_path.read_text(encoding="utf-8"), encoding="utf-8")
    rep = check(p, quiet=True)
    assert rep.exercise == "vecscale" and rep.ok


def test_its_figures_module_holds_only_its_own_table(lesson11_module):
    tree = ast.parse((FIXTURE / "figures" / "lesson11.py").read_text(encoding="utf-8"))
    defs = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defs == ["block_size_table", "bounds_table"]
    imported = {a.name.split(".")[0] if isinstance(n, ast.Import) else (n.module or "").split(".")[0]
                for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    assert imported <= {"__future__", "numpy", "figures"}     # no path to grading/exercises, no copied helper


def _brute_sectors(block: int, n: int, kernel_block: int = 128) -> int:
    """Sectors the loads of x[i] touch, warp by warp (the kernel indexes with its own BLOCK constant)."""
    total = 0
    for b in range((n + kernel_block - 1) // kernel_block):
        for w in range((block + 31) // 32):
            idx = [b * kernel_block + t for t in range(w * 32, min(block, w * 32 + 32))]
            idx = [i for i in idx if i < n]
            total += len({i * 4 // 32 for i in idx})
    return total


def test_its_table_counts_what_a_brute_force_count_says(lesson11_module):
    table = lesson11_module.block_size_table(blocks=(32, 128), n=1000)
    assert table.data == [[32, _brute_sectors(32, 1000)], [128, _brute_sectors(128, 1000)]]
    assert table.data[1][1] == 125 and table.data[0][1] < 125        # 1000 floats = 125 sectors; gaps read less
    assert np.isfinite(table.data[0][1])


def test_its_outcome_table_is_the_kits(lesson11_module):
    """The bounds table written with figures.lessonkit.outcome_table: right, the count of wrong elements (only
    the last one is skipped by i < n - 1), and the out-of-bounds error numbered as the exercise cell is."""
    from grading.spec import load_exercise
    rows = lesson11_module.bounds_table(n=1000).data
    assert [r[1] for r in rows[:2]] == ["结果正确", "结果错误（1 个元素）"]
    file_line = load_exercise("vecscale").template.splitlines().index("        y[i] = a * x[i];") + 1
    assert rows[2][1].startswith("OutOfBoundsError: ") and f"单元格第 {file_line + 1} 行" in rows[2][1], rows[2][1]
    assert "\n" not in rows[2][1]
