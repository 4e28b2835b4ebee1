"""Extraction: .cu files, notebooks (the cell tagged course_role: exercise), folders; answers; bad input."""
from __future__ import annotations

import json

import pytest
from grading_testlib import SUBMISSIONS, fill
from nbmaker import notebook, write

from grading.source import discover, load_submission


@pytest.mark.parametrize("tag", ["option", "metadata", "tags"])
def test_notebook_exercise_cell_found_and_magic_stripped(ex, tmp_path, tag):
    code = fill(ex, "TILE_DIM + 1")
    sub = load_submission(write(notebook(code, tag=tag), tmp_path / "alice.ipynb"), ex)
    assert sub.problem is None and sub.kind == "ipynb"
    assert sub.source == code          # the %%writefile line and #| options are gone, line 1 is #include


def test_answers_follow_headings_and_marker(ex, tmp_path):
    answers = {"Q1": "输入阶段合并读。\n\n状态变化：__syncthreads()。", "Q3": "不总是。", "explanation": "填 TILE_DIM + 1。"}
    sub = load_submission(write(notebook(fill(ex, "33"), answers=answers), tmp_path / "a.ipynb"), ex)
    assert sub.answers["Q1"] == answers["Q1"]
    assert sub.answers["Q3"] == "不总是。"
    assert sub.answers["Q2"] == ""                        # heading present, nothing written
    assert sub.answers["explanation"] == "填 TILE_DIM + 1。"


def test_missing_heading_is_none(ex, tmp_path):
    nb = notebook(fill(ex, "33"))
    nb.cells = [c for c in nb.cells if "解释你的实现" not in c.source]
    sub = load_submission(write(nb, tmp_path / "a.ipynb"), ex)
    assert sub.answers["explanation"] is None


def test_folder_of_student_folders(ex, tmp_path):
    (tmp_path / "alice").mkdir()
    write(notebook(fill(ex, "33")), tmp_path / "alice" / "lesson09.ipynb")
    (tmp_path / "bob.cu").write_text(fill(ex, "34"))
    (tmp_path / "carol").mkdir()
    (tmp_path / "notes.pdf").write_bytes(b"%PDF")
    items = discover([tmp_path], ex)
    assert [n for n, _ in items] == ["alice", "bob", "carol"]
    subs = {n: load_submission(p, ex, n) for n, p in items}
    assert subs["alice"].kind == "ipynb" and subs["alice"].source is not None
    assert subs["bob"].kind == "cu"
    assert subs["carol"].problem_kind == "no_files" and "carol" in subs["carol"].problem


def test_duplicate_names_get_suffixes(ex, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "x.cu").write_text("1")
    (tmp_path / "b" / "x.cu").write_text("2")
    names = [n for n, _ in discover([tmp_path / "a" / "x.cu", tmp_path / "b" / "x.cu"], ex)]
    assert names == ["x", "x_2"]


@pytest.mark.parametrize("name,kind,words", [
    ("fails_empty.cu", "empty", ["空文件"]),
    ("fails_not_utf8.cu", "encoding", ["UTF-8", "第"]),
    ("fails_not_json.ipynb", "not_json", ["JSON", "第 1 行"]),
    ("fails_no_exercise_cell.ipynb", "no_exercise_cell", ["练习单元格", "course_role: exercise"]),
])
def test_bad_files_give_messages(ex, name, kind, words):
    sub = load_submission(SUBMISSIONS / name, ex)
    assert sub.problem_kind == kind
    assert name in sub.problem
    for w in words:
        assert w in sub.problem


def test_several_megabytes(ex, tmp_path):
    p = tmp_path / "huge.cu"
    p.write_text(fill(ex, "33") + "// padding\n" * 400_000)
    assert p.stat().st_size > 4_000_000
    sub = load_submission(p, ex)
    assert sub.problem_kind == "too_large" and "MB" in sub.problem


def test_big_notebook_with_small_exercise_cell_is_fine(ex, tmp_path):
    nb = notebook(fill(ex, "33"))
    nb.cells[-1].source += "\n\n" + "图" * 2_000_000        # a notebook carrying several MB of other content
    p = write(nb, tmp_path / "big.ipynb")
    assert p.stat().st_size > 4_000_000
    sub = load_submission(p, ex)
    assert sub.problem is None and sub.source is not None


def test_json_that_is_not_a_notebook(ex, tmp_path):
    p = tmp_path / "x.ipynb"
    p.write_text(json.dumps([1, 2, 3]))
    assert load_submission(p, ex).problem_kind == "not_notebook"
