"""The course gradebook: per-exercise folders merged into one row per student (issue 14)."""
from __future__ import annotations

import csv
import json

import pytest
from grading_testlib import fill

from grading.batch import grade_many
from grading.cli import main
from grading.grade import Options
from grading.report import write_submission
from grading.results import SubmissionResult, TestResult
from grading.source import discover


def _fake(out, name, exercise, score, max_score=10.0, pending=0.0):
    r = SubmissionResult(name, exercise, "cu", pass_score=8)
    r.tests = [TestResult("a", "a", score, max_score, "passed" if score else "failed", "")]
    if pending:
        r.tests.append(TestResult("m", "m", 0, pending, "pending", "", ["manual", "pending"]))
    write_submission(r, out)
    return r


@pytest.fixture
def graded(ex, tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    (d / "alice.cu").write_text(fill(ex, "TILE_DIM + 1"))
    (d / "bob.cu").write_text(fill(ex, "TILE_DIM"))
    (d / "=cmd.cu").write_text(fill(ex, "TILE_DIM + 1"))
    l9 = tmp_path / "g9"
    grade_many(discover([d], ex), ex.id, l9, jobs=1, options=Options(nvcc="off"), progress=False)
    p2 = tmp_path / "gp2"
    _fake(p2, "alice", "p2", 7.0)
    _fake(p2, "carol", "p2", 3.0, pending=2.0)
    return l9, p2


def _rows(path):
    return list(csv.DictReader(path.open(encoding="utf-8")))


def test_one_row_per_student_columns_in_the_order_given(graded, tmp_path):
    l9, p2 = graded
    out = tmp_path / "course.csv"
    assert main(["gradebook", str(l9), str(p2), "--out", str(tmp_path / "other.csv")]) == 0
    head = list(_rows(tmp_path / "other.csv")[0])
    assert head.index("lesson09 score") < head.index("p2 score")       # the grader knows no course order
    assert main(["gradebook", str(p2), str(l9), "--out", str(out)]) == 0
    rows = {r["student"]: r for r in _rows(out)}
    assert set(rows) == {"alice", "bob", "cmd", "carol"}
    head = list(_rows(out)[0])
    assert head.index("p2 score") < head.index("lesson09 score")       # as the instructor listed them
    alone = {r["submission"]: r for r in _rows(l9 / "gradebook.csv")}
    assert rows["alice"]["lesson09 score"] == alone["alice"]["score"]
    assert rows["alice"]["p2 score"] == "7" and rows["carol"]["lesson09 verdict"] == "missing"
    assert rows["carol"]["p2 pending_manual"] == "2"
    assert rows["bob"]["lesson09 veto"] == alone["bob"]["veto"]
    assert float(rows["alice"]["total"]) == 7 + float(alone["alice"]["score"])


def test_gradescope_metadata_names_the_student(tmp_path):
    d = tmp_path / "gs"
    _fake(d, "gs123", "lesson09", 9.0)
    (d / "gs123" / "submission_metadata.json").write_text(json.dumps({"users": [{"email": "=a@x.edu"}]}))
    out = tmp_path / "c.csv"
    assert main(["gradebook", str(d), "--out", str(out)]) == 0
    [row] = _rows(out)
    assert row["student"] == "'=a@x.edu"             # escaped: a spreadsheet shows it as text


@pytest.mark.parametrize("setup,word", [("empty", "no <submission>/results.json"), ("twice", "graded twice"),
                                        ("broken", "not a results.json"), ("missing", "no such folder")])
def test_misuse_is_named(tmp_path, setup, word, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    if setup == "twice":
        _fake(a, "alice", "lesson09", 1)
        _fake(b, "alice", "lesson09", 2)
    elif setup == "broken":
        (a / "x").mkdir()
        (a / "x" / "results.json").write_text("{}")
    dirs = [str(tmp_path / "nope")] if setup == "missing" else [str(a)] + ([str(b)] if setup == "twice" else [])
    assert main(["gradebook", *dirs, "--out", str(tmp_path / "c.csv")]) == 2
    assert word in capsys.readouterr().err


# ---- manual points a TA enters (issue 24 item 12) ------------------------------------------------------------

def _manual_folder(tmp_path):
    out = tmp_path / "g8"
    for name, auto in (("alice", 3.0), ("bob", 1.0)):
        r = SubmissionResult(name, "lesson08", "cu", pass_score=8)
        r.tests = [TestResult("normal", "n", auto, 3.0, "passed", ""),
                   TestResult("manual_Q1", "Q1", 0, 2.0, "pending", "", ["manual", "pending"]),
                   TestResult("manual_Q2", "Q2", 0, 5.0, "pending", "", ["manual", "pending"])]
        write_submission(r, out)
    return out


def test_a_ta_fills_the_template_and_the_gradebook_adds_the_points(tmp_path):
    g8 = _manual_folder(tmp_path)
    template = tmp_path / "manual.csv"
    assert main(["gradebook", str(g8), "--manual-template", str(template)]) == 0
    rows = _rows(template)
    assert [(r["student"], r["item"], r["max_points"]) for r in rows] == [
        ("alice", "Q1", "2"), ("alice", "Q2", "5"), ("bob", "Q1", "2"), ("bob", "Q2", "5")]
    # the TA scores alice fully and bob's Q1 only
    points = {("alice", "Q1"): "2", ("alice", "Q2"): "4", ("bob", "Q1"): "1"}
    with template.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "exercise", "item", "points", "comment", "max_points"])
        for r in rows:
            w.writerow([r["student"], r["exercise"], r["item"], points.get((r["student"], r["item"]), ""), "", ""])
    out = tmp_path / "course.csv"
    assert main(["gradebook", str(g8), "--manual", str(template), "--out", str(out)]) == 0
    got = {r["student"]: r for r in _rows(out)}
    assert got["alice"]["lesson08 score"] == "9" and got["alice"]["lesson08 pending_manual"] == "0"
    assert got["alice"]["lesson08 verdict"] == "pass"                    # 3 + 2 + 4 = 9 >= 8
    assert got["bob"]["lesson08 score"] == "2" and got["bob"]["lesson08 pending_manual"] == "5"
    assert got["bob"]["lesson08 verdict"] == "fail"                      # 2 + 5 pending < 8: out of reach


@pytest.mark.parametrize("row,error", [
    (["mallory", "lesson08", "Q1", "1"], "no graded result"),
    (["alice", "lesson08", "Q9", "1"], "no manual item"),
    (["alice", "lesson08", "Q1", "3"], "outside 0..2"),
    (["alice", "lesson08", "Q1", "x"], "not a number"),
])
def test_a_wrong_manual_row_is_an_error_naming_it(tmp_path, capsys, row, error):
    g8 = _manual_folder(tmp_path)
    m = tmp_path / "m.csv"
    m.write_text("student,exercise,item,points\n" + ",".join(row) + "\n", encoding="utf-8")
    assert main(["gradebook", str(g8), "--manual", str(m), "--out", str(tmp_path / "c.csv")]) == 2
    err = capsys.readouterr().err
    assert error in err and "m.csv:2" in err
