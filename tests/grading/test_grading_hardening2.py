"""The second hardening round and the wording of grading v3 (issue 25 items 5, 6, 14, 15; issue 24 item 7):
each test names the hole it closes and fails on the code before the fix."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest
from grading_testlib import CORPORA, fill

from grading.conformance import check_conformance
from grading.grade import Options, grade_submission
from grading.checkcell import CheckReport, check
from grading.report import feedback_markdown, write_gradebook
from grading.results import SubmissionResult, TestResult, Veto
from grading.spec import load_exercise

REPO = Path(__file__).parents[2]


def student_text(res) -> str:
    return json.dumps(res.to_gradescope(), ensure_ascii=False)


# ---- item 5: the blank is echoed as written ------------------------------------------------------------

def test_the_blank_is_echoed_as_written_in_every_report(tmp_path):
    ex = load_exercise("lesson08")
    src = CORPORA / "lesson08" / "passes_whitespace_and_comments.cu"
    written = "tx*TILE_DIM  +  ( ty+j )"     # spacing kept; the comment after it is not part of the blank
    res = grade_submission(src, ex, options=Options(nvcc="off", hidden=False))
    assert res.blank == written
    assert f"只改了填空：`{written}`" in next(t.output for t in res.tests if t.id == "conformance")
    rep = check(src, "lesson08", quiet=True)
    assert f"填空：{written}" in rep.text()


def test_a_syntax_message_quotes_the_blank_as_written():
    c = check_conformance("int a[4]; int f() { return a[______]; }", "int a[4]; int f() { return a[(1 +  ]; }",
                          blank="______", names={}, rules=None)
    assert c.problem and "(1 +  " not in c.blank_text and c.blank_source == "(1 +"


# ---- item 6: wording ------------------------------------------------------------------------------------

def test_no_literal_backticks_and_no_zero_unwritten_in_what_students_read():
    ex = load_exercise("lesson08")
    res = grade_submission(CORPORA / "lesson08" / "fails_ignores_step_j.cu", ex, options=Options(nvcc="off"))
    text = student_text(res)
    assert "`" not in text
    assert "（其中 0 个从未写入）" not in text
    rep = check(CORPORA / "lesson08" / "fails_unfilled_blank.cu", "lesson08", quiet=True)
    assert "`" not in rep.text() and "“______”" in rep.text()


def test_heatmap_summary_spaces_a_latin_label():
    from grading.checkcell import _heatmap_summary

    class Sample:
        block, warp, space, sectors = (0, 0), 0, "global", 4
        active = [True] * 32

        def sector_ids(self):
            return list(range(32))
    assert "读 in 的一个 warp" in _heatmap_summary(Sample(), "读 in")


# ---- issue 24 item 7: marks that render without an emoji font -------------------------------------------

def test_reports_use_marks_in_the_shipped_fonts():
    ex = load_exercise("lesson08")
    res = grade_submission(CORPORA / "lesson08" / "fails_ignores_step_j.cu", ex, options=Options(nvcc="off"))
    rep = check(CORPORA / "lesson08" / "fails_ignores_step_j.cu", "lesson08", quiet=True)
    for text in (feedback_markdown(res), rep.text(), rep.markdown(), rep.html()):
        assert "✅" not in text and "❌" not in text and "✗" in text


# ---- item 15: a blank in CheckReport.markdown() cannot open raw HTML -------------------------------------

@pytest.mark.parametrize("blank", ["a`<img src=x onerror=alert(1)>`", "`` <script>alert(1)</script> ``"])
def test_markdown_escapes_the_blank(blank):
    rep = CheckReport("x.cu", "lesson08", False, "v", blank=blank,
                      checks=[TestResult("c", "n", 0, 0, "failed", f"填空 `{blank}` 错")], notes=[f"`{blank}`"])
    md = rep.markdown()
    assert "<img" not in md and "<script" not in md


# ---- item 15: gradebook.csv quotes every cell ------------------------------------------------------------

def test_gradebook_quotes_every_cell(tmp_path):
    r = SubmissionResult("=1+1;=2+2", "lesson08", "cu", blank="a;=cmd|' /C calc'!A0")
    r.vetoes.append(Veto("x;=1+1", "t", "r"))
    path = tmp_path / "gradebook.csv"
    write_gradebook([r], path)
    raw = path.read_text(encoding="utf-8").splitlines()
    for line in raw:
        cells = next(csv.reader([line]))
        assert line == ",".join('"' + c.replace('"', '""') + '"' for c in cells)
    # split on ';' as a spreadsheet set to that separator would: no piece outside quotes starts a formula
    for line in raw:
        inside = False
        for i, ch in enumerate(line):
            if ch == '"':
                inside = not inside
            elif ch == ";" and not inside:
                assert line[i + 1: i + 2] not in "=+-@"


# ---- item 15: invisible characters in the blank -----------------------------------------------------------

@pytest.mark.parametrize("ch", ["\u200b", "\u00a0", "\ufeff", "\u2060", "\u202e"])
def test_invisible_characters_in_the_blank_are_refused(ch):
    ex = load_exercise("lesson08")
    res_src = fill(ex, f"col * M + row{ch}")
    c = check_conformance(ex.template, res_src, blank=ex.blank, names=ex.names, regions=ex.regions,
                          rules=ex.blank_rules)
    assert c.problem and f"U+{ord(ch):04X}" in c.problem


# ---- item 15: python -m grading check | head -1 --------------------------------------------------------

def test_check_into_a_closed_pipe_prints_no_traceback(tmp_path):
    ex = load_exercise("lesson08")
    f = tmp_path / "08_transpose_naive.cu"
    f.write_text(fill(ex, "col * N + row"), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "grading", "check", str(f)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()                         # what `| head -1` does after its line
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


def test_lesson_pages_use_no_emoji_marks():
    """The answer callouts' 💡 and any ✅/❌ render as empty boxes without an emoji font."""
    import re
    emoji = re.compile("[\U0001F300-\U0001FAFF\u2705\u274C\u274E\u2B50]")
    found = [f"{p.relative_to(REPO)}:{n}" for p in sorted((REPO / "lessons").rglob("*.qmd"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if emoji.search(line)]
    assert not found, found


# ---- item 12: nvcc's children die with it -----------------------------------------------------------------

def test_nvcc_timeout_kills_its_children(tmp_path, monkeypatch):
    """A stand-in nvcc that starts a long-running child (as nvcc starts cudafe++) and hangs: after the timeout
    the child is gone too."""
    import os
    import time

    from grading import nvcc
    pidfile = tmp_path / "child.pid"
    fake = tmp_path / "nvcc"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pidfile}\nsleep 300\n")
    fake.chmod(0o755)
    monkeypatch.setattr(nvcc, "find_nvcc", lambda: str(fake))
    nvcc._CACHE.clear()
    res = nvcc.nvcc_compile("int x;", timeout_s=1.0)
    assert res.status == "timeout"
    child = int(pidfile.read_text())
    for _ in range(50):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        # a zombie until reaped by init counts as gone
        stat = Path(f"/proc/{child}/stat")
        if stat.exists() and stat.read_text().split()[2] == "Z":
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"nvcc's child {child} outlived the timeout")


# ---- item 14: no student dropped silently ------------------------------------------------------------------

def test_a_class_bigger_than_the_limit_is_warned_about(tmp_path):
    from grading.source import discover
    ex = load_exercise("lesson08")
    for i in range(7):
        (tmp_path / f"s{i}.cu").write_text("x")
    warnings: list[str] = []
    items = discover([tmp_path], ex, warnings, limit=5)
    assert len(items) == 5 and len(warnings) == 1 and "5" in warnings[0] and "MAX_SUBMISSIONS" in warnings[0]
    # the default limit grades far more than the old silent 2000
    many = tmp_path / "class"
    many.mkdir()
    for i in range(2005):
        (many / f"s{i:04d}.cu").write_text("x")
    warnings.clear()
    assert len(discover([many], ex, warnings)) == 2005 and not warnings


def test_a_file_too_deep_is_named_not_dropped(tmp_path):
    from grading.source import MAX_FOLDER_DEPTH, load_submission
    ex = load_exercise("lesson08")
    deep = tmp_path / "alice"
    d = deep
    for i in range(MAX_FOLDER_DEPTH + 2):
        d = d / f"d{i}"
    d.mkdir(parents=True)
    (d / "08.cu").write_text(ex.solution_path.read_text(encoding="utf-8"))
    sub = load_submission(deep, ex, "alice")
    assert sub.problem and f"嵌套超过 {MAX_FOLDER_DEPTH} 层" in sub.problem


# ---- item 13: one folder, bounded memory ---------------------------------------------------------------

def test_hard_links_to_one_notebook_are_read_once(tmp_path, monkeypatch):
    import os

    from nbmaker import notebook, write

    from grading import source
    ex = load_exercise("lesson08")
    folder = tmp_path / "bob"
    folder.mkdir()
    first = write(notebook(ex.solution_path.read_text(encoding="utf-8")), folder / "n00.ipynb")
    for i in range(1, 40):
        os.link(first, folder / f"n{i:02d}.ipynb")
    reads = []
    real = source.read_notebook
    monkeypatch.setattr(source, "read_notebook", lambda p, *a, **k: (reads.append(p), real(p, *a, **k))[1])
    sub = source.load_submission(folder, ex, "bob")
    assert sub.problem is None and len(reads) == 1


def test_only_the_chosen_notebook_is_parsed(tmp_path, monkeypatch):
    """Of several notebooks that all hold the exercise, the newest is read and the others are not parsed."""
    import os

    from nbmaker import notebook, write

    from grading import source
    ex = load_exercise("lesson08")
    folder = tmp_path / "carol"
    folder.mkdir()
    for i in range(5):
        p = write(notebook(ex.solution_path.read_text(encoding="utf-8")), folder / f"try{i}.ipynb")
        os.utime(p, (1_000_000 + i, 1_000_000 + i))
    reads = []
    real = source.read_notebook
    monkeypatch.setattr(source, "read_notebook", lambda p, *a, **k: (reads.append(p.name), real(p, *a, **k))[1])
    sub = source.load_submission(folder, ex, "carol")
    assert sub.graded_file == "try4.ipynb" and reads == ["try4.ipynb"]


# ---- items 10, 11: the edited version's runs have a work budget ------------------------------------------

def test_a_huge_launch_in_the_edited_host_function_is_refused_by_name(tmp_path):
    ex = load_exercise("lesson08")
    code = fill(ex, "tx * TILE_DIM + ty + j").replace("<<<grid, block, 0, stream>>>", "<<<1 << 28, 32, 0, stream>>>")
    assert code != fill(ex, "tx * TILE_DIM + ty + j")
    f = tmp_path / "08_transpose_naive.cu"
    f.write_text(code, encoding="utf-8")
    rep = check(f, "lesson08", quiet=True)
    assert rep.ok                                    # graded: the template's launch with the right blank
    text = "\n".join(rep.edited)
    assert "work limit" in text and "LABSIM_WORK_LIMIT" in text, text
    assert "labsim 的报错原文是" in text


def test_the_work_limit_names_itself():
    import numpy as np

    import labsim.cuda as lc
    from labsim.budget import limited
    from labsim.errors import WorkBudgetError
    p = lc.compile("__global__ void k(float* a){ a[0] = 1.0f; }\nvoid go(float* a){ k<<<1 << 20, 1024>>>(a); }\n")
    with limited(1 << 26), pytest.raises(WorkBudgetError, match="work limit of 67108864"):
        p.call("go", np.zeros(1, np.float32))


# ---- issue 22 item 4: grading a notebook reuses the graded public run ---------------------------------------

def test_grading_a_notebook_compiles_once_and_verifies_its_receipt(tmp_path, monkeypatch):
    from nbmaker import notebook, write

    from grading import sim
    ex = load_exercise("lesson08")
    code = fill(ex, "tx * TILE_DIM + ty + j")
    f = tmp_path / ex.target_name
    f.write_text(code, encoding="utf-8")
    out = check(f, "lesson08", quiet=True, cell_lines=2).text()      # run in the notebook's cell numbering
    nb = write(notebook(code, check_output=out, target=ex.config["target"], title=ex.config["title"]),
               tmp_path / "s.ipynb")
    ex.cache.clear()                     # forget the check's compile and runs (memoised per source)
    compiled, ran = [], []
    real, real_run = sim.compile_source, sim.run_case
    monkeypatch.setattr(sim, "compile_source", lambda *a, **k: (compiled.append(1), real(*a, **k))[1])
    monkeypatch.setattr(sim, "run_case", lambda *a, **k: (ran.append(1), real_run(*a, **k))[1])
    res = grade_submission(nb, ex, options=Options(nvcc="off"))
    assert res.instructor["receipt"] == "ok" and not res.vetoes
    assert len(compiled) == 1            # the graded compile; the receipt's re-run is the same run
    # issue 22 item 3: the same submission graded again (same name, same hidden cases) compiles and runs
    # nothing: no edit outside the blank, so no veto runs anything either
    compiled.clear(), ran.clear()
    again = grade_submission(nb, ex, options=Options(nvcc="off"))
    assert again.score == res.score and not compiled and not ran


# ---- item 3: a check line about the template never reads as about the edited code ---------------------------

def test_check_lines_say_they_are_about_the_graded_version_when_code_was_edited(tmp_path):
    ex = load_exercise("lesson10")
    f = tmp_path / ex.target_name
    f.write_text((CORPORA / "lesson10" / "fails_conformance_syncwarp.cu").read_text(encoding="utf-8"), encoding="utf-8")
    rep = check(f, "lesson10", quiet=True)
    lines = [ln for ln in rep.text().splitlines() if ln.strip().startswith("✓")]
    assert lines and all("（评分版本：模板 + 你的填空）" in ln for ln in lines), lines
    assert any("数据竞争" in ln for ln in rep.edited)


def test_a_batch_worker_cannot_take_unbounded_memory(tmp_path):
    """Issue 25 item 13: the worker's address space is capped, so a runaway allocation is a MemoryError (a graded
    result), not the machine's memory."""
    code = ("from grading.batch import _limit_memory\n_limit_memory(1024)\n"
            "try:\n    bytearray(4 << 30)\nexcept MemoryError:\n    print('capped')\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "capped", r.stderr
