"""Batch and command-line hardening (issue 15): the parent never reads a submission, workers die with the
parent, bad names never abort the batch or write outside --out, arguments are validated, output is escaped,
Gradescope always gets a results.json."""
from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from grading_testlib import fill

import grading.batch
import grading.grade
from grading.batch import grade_many
from grading.cli import main
from grading.grade import Options, grade_submission
from grading.report import csv_cell, feedback_markdown, write_gradebook
from grading.source import discover

ROOT = Path(__file__).parents[2]
GRADER = ROOT / "grading" / "exercises" / "lesson09"


def _files_under(root: Path) -> set[Path]:
    return {root, *root.rglob("*")} if root.exists() else set()


# ---- 3. the parent never touches a submission; the time limit bounds everything --------------------------

def test_parent_does_not_reread_after_a_timeout(ex, tmp_path, monkeypatch):
    (tmp_path / "slow.ipynb").write_text("{}")
    monkeypatch.setattr(grading.batch, "grade_submission", lambda *a, **k: time.sleep(600))
    reads = []
    monkeypatch.setattr(grading.grade, "load_submission", lambda *a, **k: reads.append(a) or 1 / 0)
    t0 = time.monotonic()
    [res] = grade_many(discover([tmp_path / "slow.ipynb"], ex), ex.id, None, jobs=1, time_limit=1.0,
                       options=Options(nvcc="off"), progress=False)
    assert time.monotonic() - t0 < 300       # the batch did not wait for the 600 s worker (not a speed target)
    assert not reads and "超时" in res.problem and res.verdict == "fail"


@pytest.mark.parametrize("special", ["fifo_cu", "fifo_ipynb", "fifo_in_folder"])
def test_fifo_never_stalls_the_batch(ex, tmp_path, special):
    d = tmp_path / "in"
    d.mkdir()
    (d / "ok.cu").write_text(fill(ex, "TILE_DIM + 1"))
    if special == "fifo_in_folder":
        (d / "f").mkdir()
        os.mkfifo(d / "f" / "lesson09.ipynb")
    else:
        os.mkfifo(d / ("f.cu" if special == "fifo_cu" else "f.ipynb"))
    # a FIFO that were opened would block its worker until the time limit: "超时" would say so
    res = grade_many(discover([d], ex), ex.id, tmp_path / "out", jobs=2, time_limit=120,
                     options=Options(nvcc="off"), progress=False)
    by = {r.name: r for r in res}
    assert by["f"].problem and "超时" not in by["f"].problem
    assert by["ok"].verdict != "fail" or by["ok"].score > 0


# ---- SIGTERM / SIGKILL to the parent -------------------------------------------------------------------

def _children(pid: int) -> set[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return set()
    return {int(x) for x in text.split()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_workers_die_with_the_parent(ex, tmp_path, sig):
    for i in range(3):
        (tmp_path / f"s{i}.cu").write_text("x")
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(f"""
        import time, grading.batch
        grading.batch.grade_submission = lambda *a, **k: time.sleep(300)
        from grading.cli import main
        main(["grade", "--exercise", "lesson09", "--out", {str(tmp_path / 'out')!r}, "--jobs", "2",
              "--no-progress", "--", {str(tmp_path / 's0.cu')!r}, {str(tmp_path / 's1.cu')!r}])
    """))
    proc = subprocess.Popen([sys.executable, str(script)], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        kids: set[int] = set()
        while time.monotonic() < deadline and len(kids) < 2:
            time.sleep(0.2)
            kids = _children(proc.pid)
        assert len(kids) >= 2, "workers never started"
        time.sleep(1.0)
        os.kill(proc.pid, sig)
        proc.wait(20)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(_alive(k) for k in kids):
            time.sleep(0.2)
        assert not [k for k in kids if _alive(k)]
    finally:
        if proc.poll() is None:
            proc.kill()
        for k in _children(proc.pid):
            os.kill(k, signal.SIGKILL)


# ---- 6./7. names never steer output or abort the batch, and a mixed folder ----------------------------

def test_mixed_hostile_folder(ex, tmp_path, monkeypatch):
    monkeypatch.setenv("GRADING_SECRET", "s3cr3t-in-env")
    d = tmp_path / "in"
    d.mkdir()
    (d / "alice.cu").write_text(fill(ex, "TILE_DIM + 1"))
    (d / "bob.cu").write_text(fill(ex, "TILE_DIM"))
    (d / "...cu").write_text(fill(ex, "TILE_DIM + 1"))
    (d / "_instructor.cu").write_text(fill(ex, "TILE_DIM + 1"))
    (d / "x.cu").write_text("1")
    (d / "x.ipynb").write_text("{}")
    (d / "x_2.cu").write_text("2")
    (d / "gradebook.csv").mkdir()
    (d / "gradebook.csv" / "a.cu").write_text(fill(ex, "33"))
    (d / ("n" * 240)).mkdir()
    (d / ("n" * 240) / "a.cu").write_text(fill(ex, "33"))
    (d / "leak.cu").symlink_to(GRADER / "solution.cu")
    (d / "env").mkdir()
    (d / "env" / "a.cu").symlink_to("/proc/self/environ")
    os.mkfifo(d / "pipe.cu")
    (d / "zip.cu").write_bytes(b"PK\x03\x04" + b"\0" * 30)
    (d / "deep.ipynb").write_text("[" * 50_000 + "]" * 50_000)
    out = tmp_path / "out"
    before = _files_under(tmp_path) - _files_under(out)
    results = grade_many(discover([d], ex), ex.id, out, jobs=2, time_limit=120, options=Options(nvcc="off"),
                         progress=False)
    assert not [r.name for r in results if r.problem and "超时" in r.problem]   # no hostile file stalls a worker
    assert _files_under(tmp_path) - _files_under(out) == before          # nothing written outside --out
    names = [r.name for r in results]
    assert len(set(names)) == len(names) == len(discover([d], ex))
    assert all((out / n / "results.json").is_file() for n in names)
    assert (out / "gradebook.csv").is_file()
    rows = list(csv.DictReader((out / "gradebook.csv").open(encoding="utf-8")))
    assert len(rows) == len(names)
    solution = (GRADER / "solution.cu").read_text(encoding="utf-8")
    secret_lines = [ln.strip() for ln in solution.splitlines() if len(ln.strip()) > 25]
    for n in names:
        shown = (out / n / "results.json").read_text(encoding="utf-8") + (out / n / "feedback.md").read_text()
        assert "s3cr3t-in-env" not in shown and not [ln for ln in secret_lines if ln in shown]
    alone = {n: grade_submission(d / f"{n}.cu", ex, name=n, options=Options(nvcc="off")) for n in ("alice", "bob")}
    by = {r.name: r for r in results}
    for n, r in alone.items():
        assert (by[n].score, by[n].verdict, [v.id for v in by[n].vetoes]) == (r.score, r.verdict, [v.id for v in r.vetoes])


def test_an_unwritable_result_does_not_abort_the_batch(ex, tmp_path, monkeypatch):
    d = tmp_path / "in"
    d.mkdir()
    for n in ("a", "b", "c"):
        (d / f"{n}.cu").write_text(fill(ex, "TILE_DIM + 1"))
    real = grading.batch.write_submission

    def flaky(res, out):
        if res.name == "a":
            raise OSError(36, "File name too long")
        real(res, out)
    monkeypatch.setattr(grading.batch, "write_submission", flaky)
    res = grade_many(discover([d], ex), ex.id, tmp_path / "out", jobs=1, options=Options(nvcc="off"), progress=False)
    assert len(res) == 3 and (tmp_path / "out" / "c" / "results.json").is_file()
    assert (tmp_path / "out" / "gradebook.csv").is_file()


def test_gradebook_path_taken_by_a_folder(ex, tmp_path):
    (tmp_path / "a.cu").write_text(fill(ex, "TILE_DIM + 1"))
    out = tmp_path / "out"
    (out / "gradebook.csv").mkdir(parents=True)
    grade_many(discover([tmp_path / "a.cu"], ex), ex.id, out, jobs=1, options=Options(nvcc="off"), progress=False)
    assert list(out.glob("gradebook-*.csv"))


# ---- arguments and `--` ----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [["--time-limit", "0"], ["--time-limit", "-1"], ["--time-limit", "nan"],
                                  ["--time-limit", "inf"], ["--time-limit", "ten"], ["--jobs", "0"],
                                  ["--jobs", "-3"]])
def test_bad_values_are_misuse(tmp_path, args, capsys):
    (tmp_path / "a.cu").write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["grade", "--exercise", "lesson09", "--out", str(tmp_path / "o"), *args, str(tmp_path / "a.cu")])
    assert e.value.code == 2


@pytest.mark.parametrize("fname", ["--secret=x.cu", "--out=elsewhere.cu", "--sec=x.cu", "-x.cu"])
def test_globbed_option_names_are_refused(tmp_path, monkeypatch, fname, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / fname).write_text("x")
    (tmp_path / "a.cu").write_text("x")
    code = main(["grade", "--exercise", "lesson09", "--out", "o", *sorted(os.listdir("."))])
    assert code == 2 and "--" in capsys.readouterr().err
    assert not (tmp_path / "o").exists() and not (tmp_path / "elsewhere.cu").is_dir()


def test_double_dash_ends_options(ex, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--secret=x.cu").write_text(fill(ex, "TILE_DIM + 1"))
    code = main(["grade", "--exercise", "lesson09", "--out", "o", "--nvcc", "off", "--no-progress", "--jobs", "1",
                 "--", "--secret=x.cu"])
    assert code == 0
    [row] = list(csv.DictReader((tmp_path / "o" / "gradebook.csv").open(encoding="utf-8")))
    assert row["submission"] == "secret_x"


# ---- Gradescope always writes results.json --------------------------------------------------------------

@pytest.mark.parametrize("make", ["missing", "file", "link"])
def test_gradescope_without_a_submission_folder(tmp_path, make):
    sub = tmp_path / "submission"
    if make == "file":
        sub.write_text("x")
    elif make == "link":
        sub.symlink_to(tmp_path)
    results = tmp_path / "results" / "results.json"
    code = main(["gradescope", "--exercise", "lesson09", "--submission", str(sub), "--results", str(results)])
    assert code == 2
    d = json.loads(results.read_text(encoding="utf-8"))
    assert d["score"] == 0 and "提交" in d["output"]


# ---- output injection ------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["=HYPERLINK(\"http://x\")", "@SUM(A1)", "+1+2", "-1+cmd|' /C calc'!A0", "\t=1"])
def test_csv_cells_cannot_be_formulas(text):
    assert not csv_cell(text).startswith(("=", "+", "-", "@", "\t"))


@pytest.mark.parametrize("blank", ["TILE_DIM + 1 ` <script>alert(1)</script>", "`` <img src=x onerror=alert(1)>",
                                   "1 /* </code><b>x</b> */", "[x](javascript:alert(1))"])
def test_feedback_escapes_student_text(ex, tmp_path, blank):
    p = tmp_path / "a.cu"
    p.write_text(fill(ex, blank))
    res = grade_submission(p, ex, options=Options(nvcc="off"))
    res.notes.append("文件 <b>x</b>.cu")
    md = feedback_markdown(res)
    for bad in ("<script", "<img", "<b>", "](javascript"):
        assert bad not in md
    gb = tmp_path / "g.csv"
    res.blank = "=" + blank
    write_gradebook([res], gb)
    [row] = list(csv.DictReader(gb.open(encoding="utf-8")))
    assert row["blank"].startswith("'=")
