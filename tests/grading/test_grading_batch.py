"""Batch mode and the CLI: a worker pool, a per-submission time limit on a child process, one bad submission
never stops the batch, results.json / feedback.md / gradebook.csv, exit codes."""
from __future__ import annotations

import csv
import json
import os
import shutil
import time

import pytest
from grading_testlib import REFERENCE, SUBMISSIONS

import grading.batch
import grading.sim
from grading.batch import grade_many
from grading.cli import main
from grading.grade import Options
from grading.source import discover


@pytest.fixture
def corpus(tmp_path):
    d = tmp_path / "in"
    d.mkdir()
    for name in ("passes_reference.cu", "fails_bank_conflict.cu", "fails_empty.cu", "fails_not_json.ipynb",
                 "fails_unfilled_blank.cu"):
        shutil.copy(SUBMISSIONS / name if name != "passes_reference.cu" else REFERENCE, d / name)
    return d


def test_batch_writes_everything(ex, corpus, tmp_path):
    out = tmp_path / "out"
    results = grade_many(discover([corpus], ex), ex.id, out, jobs=2, options=Options(nvcc="off"), progress=False)
    assert [r.name for r in results] == sorted(p.stem for p in corpus.iterdir())
    for r in results:
        folder = out / r.name
        d = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        assert d["score"] == r.score and d["extra_data"]["verdict"] == r.verdict
        assert (folder / "feedback.md").read_text(encoding="utf-8").startswith("# 评分反馈")
        assert sorted(p.name for p in folder.iterdir()) == ["feedback.md", "results.json"]   # student-safe
        inst = json.loads((out / "_instructor" / f"{r.name}.json").read_text(encoding="utf-8"))
        assert inst["submission"] == r.name and "cases" in inst or r.problem
    rows = list(csv.DictReader(open(out / "gradebook.csv", encoding="utf-8")))
    assert {r["submission"] for r in rows} == {p.stem for p in corpus.iterdir()}
    by = {r["submission"]: r for r in rows}
    assert by["passes_reference"]["score"] == "3" and by["passes_reference"]["verdict"] == "pending"
    assert by["fails_bank_conflict"]["conflict_free_read"] == "0"
    assert by["passes_reference"]["manual_Q1"] == "pending"
    assert by["fails_empty"]["problem"]


def test_time_limit_kills_only_the_slow_submission(ex, corpus, tmp_path, monkeypatch):
    real = grading.batch.grade_submission

    def slow_or_crash(path, exercise, *, name=None, options=None, **kw):
        if name == "fails_bank_conflict":
            time.sleep(600)
        if name == "fails_empty":
            os._exit(3)                     # a worker that dies outright
        return real(path, exercise, name=name, options=options, **kw)

    monkeypatch.setattr(grading.batch, "grade_submission", slow_or_crash)
    t0 = time.monotonic()
    # the limit is far above an honest grading on a busy machine, far below the sleeper's 600 s
    results = grade_many(discover([corpus], ex), ex.id, tmp_path / "out", jobs=2, time_limit=30,
                         options=Options(nvcc="off"), progress=False)
    assert time.monotonic() - t0 < 300       # the batch did not wait for the sleeper (not a speed target)
    by = {r.name: r for r in results}
    assert "超时" in by["fails_bank_conflict"].problem and by["fails_bank_conflict"].score == 0
    assert by["fails_bank_conflict"].pending_max == 7          # manual items still listed for the grader
    assert "意外退出" in by["fails_empty"].problem
    assert by["passes_reference"].score == 3                    # the rest of the batch went on


def test_cli_grade(ex, corpus, tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["grade", "--exercise", "lesson09", str(corpus), "--out", str(out), "--nvcc", "off",
                 "--no-progress", "--jobs", "1"]) == 0
    assert (out / "gradebook.csv").exists() and "graded 5 submission(s)" in capsys.readouterr().out


def test_cli_gradescope(ex, tmp_path):
    sub = tmp_path / "submission"
    sub.mkdir()
    shutil.copy(SUBMISSIONS / "fails_bank_conflict.cu", sub / "my.cu")
    results = tmp_path / "results" / "results.json"
    assert main(["gradescope", "--exercise", "lesson09", "--submission", str(sub), "--results", str(results),
                 "--nvcc", "off"]) == 0
    d = json.loads(results.read_text(encoding="utf-8"))
    assert d["score"] == 2 and d["extra_data"]["veto"] == []


@pytest.mark.parametrize("argv", [
    ["grade", "--exercise", "lesson99", "x.cu", "--out", "o"],
    ["grade", "--exercise", "lesson09", "/nonexistent/x.cu", "--out", "o"],
    ["check", "--exercise", "lesson09", "/nonexistent/x.cu"],
    ["bundle"],
    ["frobnicate"],
])
def test_misuse_exits_nonzero(argv):
    with pytest.raises(SystemExit) as e:
        code = main(argv)
        raise SystemExit(code)
    assert e.value.code == 2


def test_gradescope_seeds_by_submission_id(ex, tmp_path):
    sub = tmp_path / "submission"
    sub.mkdir()
    shutil.copy(REFERENCE, sub / "a.cu")
    cases = []
    for sid in (101, 101, 202):
        meta = tmp_path / "meta.json"
        meta.write_text(json.dumps({"id": sid, "users": []}))
        res_path = tmp_path / f"r{sid}.json"
        assert main(["gradescope", "--exercise", "lesson09", "--submission", str(sub), "--results", str(res_path),
                     "--metadata", str(meta), "--nvcc", "off"]) == 0
        cases.append(json.loads(res_path.read_text())["extra_data"]["submission"])
    assert cases == ["gs101", "gs101", "gs202"]


def test_cli_edited_time_limit_reaches_the_batch(ex, corpus, tmp_path, monkeypatch, capsys):
    """grade --edited-time-limit S is the batch's limit for the edited version's run; zero, negative or
    non-numeric values are refused by name."""
    import grading.batch
    seen = {}

    def fake(items, exercise, out, **kw):
        seen.update(kw)
        return []
    monkeypatch.setattr(grading.batch, "grade_many", fake)
    assert main(["grade", "--exercise", "lesson09", str(corpus), "--out", str(tmp_path / "o"), "--nvcc", "off",
                 "--no-progress", "--edited-time-limit", "7.5"]) == 0
    assert seen["edited_time_limit"] == 7.5
    for bad in ("0", "-1", "soon"):
        with pytest.raises(SystemExit):
            main(["grade", "--exercise", "lesson09", str(corpus), "--out", str(tmp_path / "o"),
                  "--edited-time-limit", bad])
        assert "--edited-time-limit" in capsys.readouterr().err
