"""Lesson 8's exercise beyond what every exercise is checked for (test_grading_exercises.py): the hidden
shapes it promises, the right-by-luck veto's message, hidden inputs kept from students, and the lesson's
own notebook filled in by a "student", checked in a Jupyter kernel and graded with its receipt."""
from __future__ import annotations

import copy
import json
import os
import re

import pytest
from grading_testlib import CORPORA, graded, needs_cuda

from grading.grade import Options, grade_submission
from grading.spec import load_exercise

pytestmark = needs_cuda
CORPUS = CORPORA / "lesson08"
LESSON = "lessons/lesson08_transpose_naive.qmd"


@pytest.fixture(scope="module")
def ex8():
    return load_exercise("lesson08")


def grade(ex, path):
    return graded(path, ex)


def hidden_shapes(res) -> list[tuple[str, int, int]]:
    out = []
    for c in res.instructor.get("cases", []):
        m, n = re.search(r"(\d+)x(\d+)", c).groups()
        out.append((c.split()[0], int(m), int(n)))
    return out


def test_hidden_cases_cover_the_promised_shapes(ex8):
    shapes = hidden_shapes(grade(ex8, ex8.solution_path))
    square = [(m, n) for cid, m, n in shapes if cid.startswith("square")]
    nonsquare = [(m, n) for cid, m, n in shapes if cid.startswith("nonsquare")]
    boundary = [(m, n) for cid, m, n in shapes if cid not in {c for c, *_ in shapes if c.startswith(("square", "non"))}
                and not cid.startswith("public")]
    assert len(square) >= 2 and all(m == n and m % 32 == 0 for m, n in square)
    assert len(nonsquare) >= 2 and all(m != n and m % 32 == 0 and n % 32 == 0 for m, n in nonsquare)
    assert any(m < n for m, n in nonsquare) and any(m > n for m, n in nonsquare), "both orientations"
    assert (1, 1) in boundary and any(m == 1 < n for m, n in boundary) and any(n == 1 < m for m, n in boundary)
    assert any(m % 32 and n % 32 and m > 32 and n > 32 for m, n in boundary)
    assert any(m == n and m % 32 for m, n in boundary), "a ragged square"


def test_uncoalesced_but_correct_loses_only_the_coalescing_point(ex8):
    good, slow = grade(ex8, ex8.solution_path), grade(ex8, CORPUS / "passes_uncoalesced_row_mapping.cu")
    assert not slow.vetoes and good.score - slow.score == 1
    (t,) = [t for t in slow.tests if t.id == "coalesced_store_point"]
    assert t.status == "failed" and t.output.startswith("写 output 合并的运行：0/")
    public = next(t for t in slow.tests if t.id == "public_coalesced_store")
    # 64×96: a warp writes down a column of output, M = 64 floats (256 bytes) apart
    assert "相邻 lane 的地址相差 256 字节" in public.output and "每个请求 32 个 sector（" in public.output


def test_harmless_guard_edit_is_not_vetoed_a_weakened_one_is(ex8):
    ok = grade(ex8, CORPUS / "passes_guard_strengthened.cu")
    assert not ok.vetoes
    conf = next(t for t in ok.tests if t.id == "conformance")
    assert conf.status == "failed" and "row >= 0" in conf.output
    bad = grade(ex8, CORPUS / "fails_bounds_check_weakened.cu")
    (veto,) = bad.vetoes
    assert "越界" in veto.reason and "33×47" in veto.reason


def test_wrong_mapping_message_shows_what_the_threads_moved(ex8):
    res = grade(ex8, CORPUS / "fails_ignores_step_j.cu")
    out = next(t for t in res.tests if t.id == "public_square").output
    # tx * 32 + ty at j = 0 for warp 0: 0, 32, 64, ...; 768 numbers nobody moves, 256 moved 4 times
    assert "0、32、64、96、128、160……992" in out and "768 个编号没有线程搬" in out and "256 个编号被搬了不止一次" in out
    assert "col * M + row" not in out and "tx * TILE_DIM + ty + j" not in out
    right = grade(ex8, CORPUS / "fails_ragged_shapes_only.cu")
    msg = next(t for t in right.tests if t.id == "public_boundary").output
    assert "从未写入" in msg
    ok = next(t for t in right.tests if t.id == "public_square").output
    assert "从未写入" not in ok
    assert next(t for t in right.tests if t.id == "boundary_shapes").output.startswith("边界形状：")


def test_student_visible_text_never_shows_hidden_inputs(ex8):
    from grading.report import feedback_markdown
    for name in ("fails_ragged_shapes_only.cu", "fails_ignores_step_j.cu"):
        res = grade(ex8, CORPUS / name)
        visible = json.dumps(res.to_gradescope(), ensure_ascii=False) + feedback_markdown(res)
        public = {(c.M, c.N) for k in ex8.public_module.cases().values() for c in k}
        for _, m, n in hidden_shapes(res):
            if (m, n) in public or 1 in (m, n):
                continue
            for form in (f"{m}x{n}", f"{m}×{n}", f"M={m}", f"({m}, {n})"):
                assert not re.search(rf"(?<![\d×x]){re.escape(form)}(?![\d×x])", visible), (name, form)
        for t in res.tests:
            if t.hidden:
                assert re.fullmatch(r"[^：]+：\d+/\d+(（[^）]*）)?", t.output) or "之后，才计算" in t.output, t.output


def test_student_fills_the_lesson_notebook_and_the_grader_accepts_it(ex8, tmp_path, monkeypatch):
    """The exercise-branch notebook of lesson 8, filled; its setup, exercise and check cells run in a kernel, then graded."""
    import nbformat
    from nbclient import NotebookClient
    from test_grading_lesson_notebook import REPO, exercise_notebook, role

    nb = exercise_notebook(LESSON)
    # the lesson's exercise, then (after the questions) its challenge's, which stays unfilled
    assert [c.source.splitlines()[0] for c in nb.cells if role(c) == "exercise"] == \
        [f"%%writefile {ex8.config['target']}", "%%writefile /tmp/08_transpose_challenge.cu"]
    ex_cell = next(c for c in nb.cells if role(c) == "exercise")
    ex_cell.source = ex_cell.source.replace("______", "tx * TILE_DIM + ty + j")
    for q in ("explanation", "Q1", "Q2", "Q3"):      # each question's own answer cell (issue 24 item 10)
        cell = next(c for c in nb.cells if c.metadata.get("course_question") == q)
        cell.source += f"\n\n我的 {q} 回答：因为……所以……\n"
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    # Run what the check needs: the setup and import cells, the exercise and the check cell. The whole
    # exercise notebook already runs top to bottom in the fallback site build (tests/coursebuild/test_lessons.py),
    # so its figure cells need not run a second time here.
    run = copy.deepcopy(nb)
    setup = [c for c in run.cells if c.cell_type == "code" and ("setup_lesson" in c.source
                                                                 or c.source.strip() == "import figures\nfrom figures import lesson08")]
    assert len(setup) == 2, "the lesson's setup cell and the cell importing figures.lesson08"
    check = next(c for c in run.cells if role(c) == "check")
    ran = [*setup, next(c for c in run.cells if role(c) == "exercise"), check]
    mini = nbformat.v4.new_notebook(cells=ran)
    mini.metadata = run.metadata
    NotebookClient(mini, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(REPO / "lessons")}}).execute()
    for cell, done in zip(ran, mini.cells):      # the submitted notebook holds the outputs of that run
        cell.outputs, cell.execution_count = done.outputs, done.execution_count
    errors = [o for c in ran for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    text = "".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in check.outputs)
    assert "公开检查全部通过" in text and "receipt lesson08" in text
    assert any("image/png" in o.get("data", {}) for o in check.outputs), "the sector maps of the student's kernel"
    p = tmp_path / "lesson08.ipynb"
    nbformat.write(run, str(p))
    res = grade(ex8, p)
    assert res.problem is None and res.score == 3 and not res.vetoes and res.instructor["receipt"] == "ok"

    # the blank changes afterwards and the notebook is submitted without re-running the check
    next(c for c in run.cells if role(c) == "exercise").source = ex_cell.source.replace("tx * TILE_DIM + ty + j", "ty + j + tx * TILE_DIM")
    nbformat.write(run, str(p))
    res = grade(ex8, p)
    assert [v.id for v in res.vetoes] == ["unrun_output"]


def test_student_build_without_exercise_argument_ships_lesson08(tmp_path):
    """`student-build --out DIR` (no --exercise) builds every exercise: lesson 8's public parts only."""
    from grading.cli import main
    assert main(["student-build", "--out", str(tmp_path)]) == 0
    folder = tmp_path / "grading" / "exercises" / "lesson08"
    assert {"template.cu", "public_checks.py", "exercise.py", "config.toml"} <= {p.name for p in folder.iterdir()}
    assert not {"hidden_checks.py", "solution.cu", "rubric.toml"} & {p.name for p in folder.iterdir()}
    assert "instructor_secret" not in (folder / "config.toml").read_text(encoding="utf-8")
