"""figures.lessonkit: the exercise through grading's API, the fill the demos run (never one typed in figures), the
note on the exercise branch before the exercise, the external figures' one file."""
from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from figures import lesson08, lesson10
from figures import lessonkit as kit
from grading.spec import load_exercise

REPO = Path(__file__).resolve().parents[2]
EXERCISES = ("p2", "lesson08", "lesson09", "lesson10")


def solution_fill(eid: str) -> str:
    """The reference fill as the leak scanners define it: what solution.cu has where the template has the blank
    (an independent diff, not kit.blank_of)."""
    ex = load_exercise(eid)
    tl, sl = ex.template.splitlines(), ex.solution_path.read_text(encoding="utf-8").splitlines()
    line = next(t for t in tl if ex.blank in t)
    sol = max(sl, key=lambda s: difflib.SequenceMatcher(a=line, b=s).ratio())
    pre, post = line.split(ex.blank)
    post = post.split("//")[0].rstrip()
    start = len(pre)
    return sol[start:sol.index(post, start) if post else len(sol)].strip() if post else sol[start:].split(";")[0]


@pytest.mark.parametrize("eid", EXERCISES)
def test_reference_fill_is_read_from_the_solution(eid):
    assert kit.reference_fill(eid) == solution_fill(eid)


@pytest.mark.parametrize("eid", EXERCISES)
def test_no_shipped_module_holds_a_lessons_fill(eid):
    """figures and the exercise's shipped Python files (exercise.py, public checks, common.py) hold no fill."""
    fill = solution_fill(eid)
    ex = load_exercise(eid)
    shipped = [p for p in sorted((REPO / "figures").rglob("*")) if p.suffix in (".py", ".js", ".json")]
    shipped += [p for p in sorted(ex.folder.glob("*.py")) if p.name not in ex.instructor_files]
    for p in shipped:
        if p.is_file():
            assert fill not in p.read_text(encoding="utf-8"), f"{p.relative_to(REPO)} holds {eid}'s answer {fill!r}"


def test_p2_budget_equals_the_reference_mapping():
    """P2's public budget, computed without the blank's expression, equals what the reference mapping does."""
    from grading.exercises.p2.exercise import PER_THREAD, THREADS, TILE, coalesced_counts
    from labsim.model import sectors_per_warp
    import numpy as np
    for M, N in ((1, 1), (32, 32), (45, 70), (100, 33), (7, 260), (64, 96)):
        gx, gy = -(-N // TILE), -(-M // TILE)
        bx, by, j, t = np.meshgrid(np.arange(gx), np.arange(gy), np.arange(PER_THREAD), np.arange(THREADS),
                                   indexing="ij")
        e = j * THREADS + t                                    # the reference mapping (solution.cu)
        row, col = (by * TILE + e // TILE).reshape(-1, 32), (bx * TILE + e % TILE).reshape(-1, 32)
        active = (row < M) & (col < N)
        keep = active.any(axis=1)
        addr = (row * N + col).astype(np.int64)[keep] * 4
        assert coalesced_counts(M, N) == (int(keep.sum()), int(sectors_per_warp(addr, active[keep], 4).sum()))


def test_exercise_branch_never_reads_the_solution(monkeypatch, tmp_path):
    monkeypatch.setenv("COURSEBUILD_BRANCH", "exercise")
    target = tmp_path / "08_transpose_naive.cu"
    ex = load_exercise("lesson08")
    monkeypatch.setitem(ex.config, "target", str(target))
    monkeypatch.setattr(kit, "exercise", lambda eid: ex)
    with pytest.raises(kit.NeedsFill):
        kit.demo_fill("lesson08")
    # lesson 8's demos run Harris's mapping (correct, store uncoalesced: not the answer), so they need no fill
    tab = lesson08.store_lane_table()
    assert "Harris" in tab.caption and tab.data[1][4] == "output[1][0]"
    assert kit.template("lesson08").count(kit.BLANK) == 1 and lesson08.HARRIS_FILL not in solution_fill("lesson08")
    target.write_text(ex.template, encoding="utf-8")           # written but not filled yet
    with pytest.raises(kit.NeedsFill):
        kit.demo_fill("lesson08")
    target.write_text(ex.fill("ty * TILE_DIM + tx"), encoding="utf-8")   # the student's own (wrong) fill
    fill = kit.demo_fill("lesson08")
    assert fill == kit.Fill("ty * TILE_DIM + tx", "yours") and fill.label == "你的填法"


def test_answer_branch_runs_the_reference(monkeypatch):
    monkeypatch.setenv("COURSEBUILD_BRANCH", "answer")
    assert kit.demo_fill("lesson10") == kit.Fill(solution_fill("lesson10"), "reference")
    # what the lesson shows masks the fill (the exercise branch's outputs never show it either)
    assert kit.BLANK in lesson10.masked(kit.source("lesson10", kit.demo_fill("lesson10").text))


def test_source_edits_must_match_once():
    with pytest.raises(ValueError, match="exactly one"):
        kit.source("lesson08", "0", [("no such text", "x")])
    src = kit.source("lesson08", "0", [("if (row < M && col < N) {", "if (true) {")])
    assert src.count("\n") == load_exercise("lesson08").template.count("\n")   # line numbers never shift


def test_cell_line_is_gradings_numbering():
    assert kit.cell_line(7) == 8 and kit.cell_line(None) is None


def test_harris_numbers_live_in_one_labelled_file():
    data = json.loads((REPO / "figures" / "data" / "harris_2013.json").read_text(encoding="utf-8"))
    assert "not measured by this course" in data["what"] and data["url"].startswith("https://developer.nvidia.com/")
    typed = ("105.2", "18.8", "55.3", "144.3")
    places = [p for p in list((REPO / "figures").glob("*.py")) + list((REPO / "lessons").rglob("*.qmd"))
              + list((REPO / "lessons").rglob("*.py")) if any(v in p.read_text(encoding="utf-8") for v in typed)]
    assert places == []
    tab = kit.harris_table()
    assert tab.data[0] == ["copy", 105.2, 136.0] and len(tab.data) == 5


def test_one_reader_of_the_recordings():
    """Only figures.recordings finds measurements/h200 (lessonkit delegates to it); lesson modules ask them."""
    finds = [p.name for p in (REPO / "figures").glob("*.py") if '"measurements"' in p.read_text(encoding="utf-8")]
    assert finds == ["recordings.py"]
    assert kit.records().__name__ == "figures.recordings"


def test_h200_columns_stay_on_the_exercise_branch(monkeypatch, tmp_path):
    """Before the exercise only labsim's cells of the filled kernel wait; the recorded H200 numbers are shown."""
    monkeypatch.setenv("COURSEBUILD_BRANCH", "exercise")
    ex = load_exercise("lesson08")
    monkeypatch.setitem(ex.config, "target", str(tmp_path / "none.cu"))
    monkeypatch.setattr(kit, "exercise", lambda eid: ex)
    tab = lesson08.ncu_table()
    naive = [r for r in tab.data if r[0].startswith("transpose_naive")]
    copy = [r for r in tab.data if r[0].startswith("copy")]
    # lesson 8's naive transpose is Harris's mapping, not the exercise's answer: labsim's cells never wait
    assert naive and all(isinstance(r[2], int) for r in naive)
    assert all(isinstance(r[2], int) for r in copy)
    if lesson08.recordings.read("round1"):
        assert all(isinstance(r[3], int) for r in naive)                # the H200's numbers stay
    harris = lesson08.harris_table()
    assert not any(r[3] == kit.PENDING for r in harris.data)
