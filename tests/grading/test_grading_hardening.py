"""Hostile and careless submission folders (issue 15): links, special files, endless files, pathological
notebooks, names that steer output paths, the wrong file graded. Each class has several variants."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from grading_testlib import fill
from nbformat.v4 import new_code_cell, new_markdown_cell
from nbmaker import notebook, write
from workbound import hang_guard, linear_multiple

from grading.grade import Options, grade_submission
from grading.report import feedback_markdown
from grading import source
from grading.source import discover, load_submission, read_cu, read_notebook

GRADER = Path(__file__).parents[2] / "grading" / "exercises" / "lesson09"


def student_visible(res) -> str:
    return json.dumps(res.to_gradescope(), ensure_ascii=False) + feedback_markdown(res)


# ---- 1. links are never followed, special files never read --------------------------------------------

SECRET_TARGETS = [GRADER / "hidden_checks.py", GRADER / "solution.cu", GRADER / "rubric.toml",
                  Path("/proc/self/environ"), Path("/proc/self/cmdline")]


@pytest.mark.parametrize("target", SECRET_TARGETS, ids=lambda p: p.name)
@pytest.mark.parametrize("as_name", ["transpose.cu", "lesson09.ipynb", "notes.txt"])
def test_links_in_a_folder_are_not_followed(ex, tmp_path, target, as_name, monkeypatch):
    monkeypatch.setenv("GRADING_SECRET", "s3cr3t-value-never-shown")
    folder = tmp_path / "mallory"
    folder.mkdir()
    (folder / as_name).symlink_to(target)
    res = grade_submission(folder, ex, options=Options(nvcc="off"))
    shown = student_visible(res)
    assert "s3cr3t-value-never-shown" not in shown
    if target.exists() and target.suffix:
        text = target.read_text(encoding="utf-8")
        lines = [ln.strip() for ln in text.splitlines() if len(ln.strip()) > 25]
        assert not [ln for ln in lines if ln in shown]
    assert "符号链接" in shown


@pytest.mark.parametrize("target", SECRET_TARGETS, ids=lambda p: p.name)
def test_a_linked_submission_file_is_refused(ex, tmp_path, target):
    link = tmp_path / "bob.cu"
    link.symlink_to(target)
    sub = load_submission(link, ex)
    assert sub.source is None and sub.problem_kind == "symlink" and "符号链接" in sub.problem


def test_a_linked_folder_inside_a_submission_is_not_entered(ex, tmp_path):
    folder = tmp_path / "eve"
    folder.mkdir()
    (folder / "inside").symlink_to(GRADER)
    (folder / "mine.cu").write_text(fill(ex, "TILE_DIM + 1"))
    sub = load_submission(folder, ex)
    assert sub.source == fill(ex, "TILE_DIM + 1")
    assert any("inside" in n and "符号链接" in n for n in sub.notes)


@pytest.mark.parametrize("make", ["fifo", "dev_zero", "link_dev_zero"])
def test_special_files_are_not_read(ex, tmp_path, make):
    folder = tmp_path / "x"
    folder.mkdir()
    p = folder / "transpose.cu"
    if make == "fifo":
        os.mkfifo(p)
    elif make == "link_dev_zero":
        p.symlink_to("/dev/zero")
    else:
        pytest.importorskip("os").mknod if False else None
        p.symlink_to("/dev/zero")
    with hang_guard(120):      # a read of the FIFO would block for ever; /dev/zero would never end
        for sub in (load_submission(folder, ex), load_submission(p, ex), read_cu(p, ex), read_notebook(p, ex)):
            assert sub.source is None and sub.problem


# ---- 2. hard byte limits ---------------------------------------------------------------------------------

def test_reads_stop_at_the_limit(ex, tmp_path, monkeypatch):
    p = tmp_path / "big.cu"
    p.write_text(fill(ex, "33") + "// x\n" * 100_000)
    calls = []
    real = source.os.fdopen

    def spy(fd, mode="r", *a, **k):
        f = real(fd, mode, *a, **k)
        orig = f.read
        f.read = lambda n=-1: calls.append(n) or orig(n)
        return f
    monkeypatch.setattr(source.os, "fdopen", spy)
    monkeypatch.setattr(source.os, "lstat", lambda path: os.stat_result((0o100644, 0, 0, 1, 0, 0, 0, 0, 0, 0)))
    sub = read_cu(p, ex)              # st_size lies (0), as for /proc files: the read itself is bounded
    assert sub.problem_kind == "too_large"
    assert calls and all(0 < n <= 200_001 for n in calls)


@pytest.mark.parametrize("data,kind", [(b"PK\x03\x04" + b"\0" * 40, "zip"), (b"\x1f\x8b\x08" + b"\0" * 40, "gzip"),
                                       (b"7z\xbc\xaf\x27\x1c" + b"\0" * 10, "7z"),
                                       (b"x" * 257 + b"ustar" + b"\0" * 50, "tar")])
@pytest.mark.parametrize("suffix", [".cu", ".ipynb", ".zip"])
def test_archives_get_a_clear_message(ex, tmp_path, data, kind, suffix):
    p = tmp_path / f"alice{suffix}"
    p.write_bytes(data)
    [(name, path)] = discover([tmp_path], ex)
    sub = load_submission(path, ex, name)
    assert sub.problem_kind == "archive" and kind in sub.problem and "解压" in sub.problem
    assert "UTF-8" not in sub.problem


def test_a_folder_with_only_an_archive(ex, tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "lesson09.zip").write_bytes(b"PK\x03\x04")
    sub = load_submission(tmp_path / "a", ex)
    assert sub.problem_kind == "archive" and "解压" in sub.problem


# ---- 4. no super-linear regexes in notebook extraction ---------------------------------------------------

def _load_cost(path, ex):
    """(the submission, its loading cost as a multiple of json.loads of the same file: CPU time of both, here
    and now, so machine speed and load cancel; a linear reader costs 2-60 of these, a quadratic one on these
    20 000-character lines tens of thousands)."""
    text = path.read_text(encoding="utf-8")
    cost, sub = linear_multiple(lambda: load_submission(path, ex), lambda: json.loads(text))
    return sub, cost


@pytest.mark.parametrize("md", ["#" + " " * 20_000 + "x", "# Q1" + " " * 20_000 + "#" + " " * 20_000 + "y",
                                "### " + " \t" * 20_000 + "#" * 50 + " " * 20_000 + "z",
                                ("#  \n" * 20_000)])
def test_pathological_headings_cost_a_linear_pass(ex, tmp_path, md):
    nb = notebook(fill(ex, "33"))
    nb.cells.insert(3, new_markdown_cell(md))
    sub, cost = _load_cost(write(nb, tmp_path / "a.ipynb"), ex)
    assert sub.source is not None and cost < 1000, cost


@pytest.mark.parametrize("filler", [" " * 30_000, "\n" * 30_000, " \n" * 15_000])
def test_pathological_option_lines_cost_a_linear_pass(ex, tmp_path, filler):
    nb = notebook(fill(ex, "33"))
    nb.cells.insert(2, new_code_cell("#|" + filler + "course_role:" + filler + "x"))
    sub, cost = _load_cost(write(nb, tmp_path / "a.ipynb"), ex)
    assert sub.source is not None and cost < 1000, cost


def test_300k_cells(ex, tmp_path):
    nb = notebook(fill(ex, "33"))
    cells = [{"cell_type": "markdown", "metadata": {}, "source": "#"} for _ in range(150_000)]
    cells += [{"cell_type": "code", "metadata": {}, "source": "", "outputs": [], "execution_count": None}
              for _ in range(150_000)]
    raw = json.loads(json.dumps(nb))
    raw["cells"] = cells + raw["cells"]
    p = tmp_path / "many.ipynb"
    p.write_text(json.dumps(raw))
    sub, cost = _load_cost(p, ex)
    assert sub.source == fill(ex, "33") and cost < 1000, cost


# ---- 10. malformed but JSON-valid notebooks, deep JSON, huge integers ------------------------------------

def _nb_with(tmp_path, ex, mutate):
    raw = json.loads(json.dumps(notebook(fill(ex, "33"))))
    mutate(raw)
    p = tmp_path / "odd.ipynb"
    p.write_text(json.dumps(raw) if not isinstance(raw, str) else raw)
    return p


@pytest.mark.parametrize("mutate", [
    lambda nb: nb["cells"][2].__setitem__("source", 12),                 # integer source (check cell)
    lambda nb: nb["cells"][0].__setitem__("source", ["a", 3, None]),      # list with non-strings
    lambda nb: nb["cells"][2].__setitem__("metadata", ["x"]),            # list metadata
    lambda nb: nb["cells"][2].__setitem__("outputs", {"text": "x"}),      # non-list outputs
    lambda nb: nb["cells"][2].__setitem__("outputs", [{"data": ["x"], "text": 5}]),
    lambda nb: nb["cells"][1]["metadata"].__setitem__("tags", "course_role: exercise"),
], ids=["int-source", "list-junk-source", "list-metadata", "dict-outputs", "odd-output", "str-tags"])
def test_malformed_cells_are_graded_not_crashed(ex, tmp_path, mutate):
    res = grade_submission(_nb_with(tmp_path, ex, mutate), ex, options=Options(nvcc="off"))
    assert "internal_errors" not in res.instructor, res.instructor.get("internal_errors")


def test_malformed_exercise_cell_has_a_message(ex, tmp_path):
    def mutate(nb):
        nb["cells"][1]["source"] = 7
        nb["cells"][1]["metadata"] = {"course_role": "exercise"}
    res = grade_submission(_nb_with(tmp_path, ex, mutate), ex, options=Options(nvcc="off"))
    assert "internal_errors" not in res.instructor
    assert res.problem and "练习单元格" in res.problem and "source" in res.problem


@pytest.mark.parametrize("text,word", [("[" * 100_000 + "]" * 100_000, "嵌套"),
                                       ('{"cells": [], "x": ' + "9" * 5000 + "}", "JSON"),
                                       ('{"a": ' * 50_000 + "1" + "}" * 50_000, "嵌套")])
def test_deep_or_huge_json(ex, tmp_path, text, word):
    p = tmp_path / "deep.ipynb"
    p.write_text(text)
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    assert "internal_errors" not in res.instructor
    assert res.problem and word in res.problem


# ---- 6./7. result names --------------------------------------------------------------------------------

@pytest.mark.parametrize("raw", ["..", ".", "...", "_instructor", "gradebook.csv", "gradebook", "a/../../b",
                                 "x" * 252, "汉" * 100, "-rf", "con\0x", "  ", "__"])
def test_safe_names(raw):
    name = source.safe_name(raw)
    assert name and name not in (".", "..") and not name.startswith(("_", ".", "-")) and "/" not in name
    assert "." not in name and len(name.encode()) <= 80 and name.casefold() not in ("gradebook", "instructor")


def test_names_from_files_are_unique(ex, tmp_path):
    for n in ("x.cu", "x.ipynb", "x_2.cu", "X.cu", "...cu", "_instructor.cu"):
        (tmp_path / n).write_text("1")
    (tmp_path / "gradebook.csv").mkdir()
    (tmp_path / ("y" * 250)).mkdir()
    names = [n for n, _ in discover([tmp_path], ex)]
    assert len({n.casefold() for n in names}) == len(names) == 8
    assert all(source.safe_name(n) == n for n in names)


# ---- 8. which file is graded ---------------------------------------------------------------------------

def _touch(p: Path, text: str, age: float) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    t = time.time() - age
    os.utime(p, (t, t))


def test_macos_resource_fork_is_ignored(ex, tmp_path):
    (tmp_path / "__MACOSX").mkdir()
    (tmp_path / "__MACOSX" / "._lesson09.ipynb").write_bytes(b"\0\x05\x16\x07\xff\xfe")
    (tmp_path / "._lesson09.ipynb").write_bytes(b"\0\x05\x16\x07\xff\xfe")
    (tmp_path / ".DS_Store").write_bytes(b"\0\0\0\1Bud1")
    write(notebook(fill(ex, "TILE_DIM + 1")), tmp_path / "lesson09.ipynb")
    sub = load_submission(tmp_path, ex)
    assert sub.problem is None and sub.kind == "ipynb" and sub.graded_file == "lesson09.ipynb"


def test_readme_before_code(ex, tmp_path):
    _touch(tmp_path / "README.txt", "这是我的作业。", 0)
    _touch(tmp_path / "transpose.cu", fill(ex, "TILE_DIM + 1"), 100)
    sub = load_submission(tmp_path, ex)
    assert sub.graded_file == "transpose.cu"
    assert any("README.txt" in n for n in sub.notes) and any("transpose.cu" in n for n in sub.notes)


def test_untitled_notebook_without_exercise(ex, tmp_path):
    nb = notebook(None)
    write(nb, tmp_path / "Untitled.ipynb")
    write(notebook(fill(ex, "TILE_DIM + 1")), tmp_path / "lesson09.ipynb")
    sub = load_submission(tmp_path, ex)
    assert sub.graded_file == "lesson09.ipynb" and any("Untitled.ipynb" in n for n in sub.notes)


def test_newest_of_two_attempts(ex, tmp_path):
    _touch(tmp_path / "attempt1.cu", fill(ex, "TILE_DIM"), 1000)
    _touch(tmp_path / "transpose_final.cu", fill(ex, "TILE_DIM + 1"), 10)
    sub = load_submission(tmp_path, ex)
    assert sub.graded_file == "transpose_final.cu" and "TILE_DIM + 1" in sub.source
    assert any("attempt1.cu" in n and "较旧" in n for n in sub.notes)


def test_old_notebook_vs_new_notebook(ex, tmp_path):
    write(notebook(fill(ex, "TILE_DIM + 2")), tmp_path / "new.ipynb")
    write(notebook(fill(ex, "TILE_DIM")), tmp_path / "a_old.ipynb")
    t = time.time() - 1000
    os.utime(tmp_path / "a_old.ipynb", (t, t))
    assert load_submission(tmp_path, ex).graded_file == "new.ipynb"


def test_no_veto_for_an_unrelated_file(ex, tmp_path):
    _touch(tmp_path / "README.txt", "if (row < M && col < N) 这里是我的笔记", 0)
    res = grade_submission(tmp_path, ex, options=Options(nvcc="off"))
    assert res.problem and not res.vetoes
