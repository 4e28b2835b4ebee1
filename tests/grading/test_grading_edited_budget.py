"""Issue 25 item 10: the edited version (the student's source as written, 不计分) runs after the graded steps,
under a time limit of its own, so edits in the host function can never cost the graded run its time or change
its verdict. No test here races the clock: the edited runs either never start (a limit of 0) or are minutes of
labsim work (a thousand launches, the most a host function may make, of 2^14 threads each, every one within
the per-launch work budget) against a limit of one second."""
from __future__ import annotations

import json
import re

import pytest
from grading_testlib import fill
from nbmaker import notebook, write

import grading.checkcell
from grading.batch import grade_many
from grading.checkcell import EDITED_TITLE, GRADED_VERSION, check
from grading.grade import Options, grade_submission
from grading.source import discover
from grading.spec import load_exercise

RIGHT = "tx * TILE_DIM + ty + j"
LAUNCH = "    transpose_naive_kernel<<<grid, block, 0, stream>>>"


@pytest.fixture(scope="module")
def ex08():
    return load_exercise("lesson08")


def _notebook(ex, tmp_path, code: str, name: str, monkeypatch) -> object:
    """A notebook holding ``code`` and its check cell's honest output (run in the cell's numbering). The check
    cell's own edited-version run gets a tiny work budget, so that a million launches are refused at once there
    (the student's edits would take minutes; the saved section is not what this test is about)."""
    f = tmp_path / ex.target_name
    f.write_text(code, encoding="utf-8")
    with monkeypatch.context() as m:
        m.setattr(grading.checkcell, "EDITED_WORK_LIMIT", 64)
        out = check(f, "lesson08", quiet=True, cell_lines=2).text()
    ex.cache.clear()                # forget the runs made under that budget (memoised per source)
    assert "运行凭据 receipt" in out
    folder = tmp_path / "subs" / name
    folder.mkdir(parents=True)
    write(notebook(code, check_output=out, target=ex.config["target"], title=ex.config["title"]),
          folder / "lesson08.ipynb")
    return folder


def _graded(res) -> dict:
    """What grading decided: score, verdict, vetoes, and each automatic check's status, points and message."""
    return {"score": res.score, "verdict": res.verdict, "vetoes": [v.id for v in res.vetoes], "problem": res.problem,
            "checks": {t.id: (t.status, t.score, t.output.removeprefix(GRADED_VERSION)) for t in res.tests
                       if t.id != "conformance" and "manual" not in t.tags}}


@pytest.mark.parametrize("edited_limit", [0, 1.0], ids=["limit-0", "limit-1s"])
def test_heavy_host_edits_never_cost_the_graded_run_its_time(ex08, tmp_path, monkeypatch, edited_limit):
    right = fill(ex08, RIGHT)
    assert LAUNCH in right
    # each launch is within the per-launch work budget (2^14 threads, the guard keeps it right); a thousand
    # of them are minutes of labsim work
    heavy = right.replace(LAUNCH, "    for (int r = 0; r < 1000; ++r)\n    transpose_naive_kernel<<<dim3(8, 8), block, 0, stream>>>")
    _notebook(ex08, tmp_path, right, "honest", monkeypatch)
    _notebook(ex08, tmp_path, heavy, "edited", monkeypatch)
    results = grade_many(discover([tmp_path / "subs"], ex08), ex08.id, tmp_path / "out", jobs=1,
                         options=Options(nvcc="off"), edited_time_limit=edited_limit, progress=False)
    by_name = {r.name: r for r in results}
    base, res = by_name["honest"], by_name["edited"]
    assert base.instructor["receipt"] == res.instructor["receipt"] == "ok"
    # the graded result is that of the same notebook without the edits: full automatic points, no timeout
    assert _graded(res) == _graded(base)
    auto = [t for t in res.tests if "manual" not in t.tags and t.id != "conformance"]
    assert auto and all(t.status == "passed" for t in auto)
    student = json.dumps(res.to_gradescope(), ensure_ascii=False)
    assert "评分超时" not in student and res.problem is None
    # the note about the edited version: 不计分, the limit named, the graded result said to be unaffected
    conf = next(t for t in res.to_gradescope()["tests"] if "不计分" in t["output"])
    assert re.search(rf"{EDITED_TITLE}：运行你修改后的代码的检查在它自己的时间上限（{edited_limit:g} 秒）处停止",
                     conf["output"]), conf["output"]
    assert "分数、结论和每一项检查都不受影响" in conf["output"]
    assert "edited_time_limit_s" in res.instructor["edited_version"]
    assert "edited_version" not in base.instructor


def test_the_edited_section_is_compared_after_the_verdict_and_never_vetoes(ex08, tmp_path, monkeypatch):
    """The receipt check binds the graded lines; the saved edited section is compared with the grader's own run
    of the edits afterwards: a forged one is said (不计分) and flagged for the instructor, with no veto."""
    # a grid one block high: the edited version leaves rows unwritten, the graded version is right
    code = fill(ex08, RIGHT).replace("(M + TILE_DIM - 1) / TILE_DIM)", "1)")
    assert code != fill(ex08, RIGHT)
    f = tmp_path / ex08.target_name
    f.write_text(code, encoding="utf-8")
    out = check(f, "lesson08", quiet=True, cell_lines=2).text()
    assert EDITED_TITLE in out

    def grade(text: str, name: str):
        write(notebook(code, check_output=text, target=ex08.config["target"], title=ex08.config["title"]),
              tmp_path / f"{name}.ipynb")
        return grade_submission(tmp_path / f"{name}.ipynb", ex08, options=Options(nvcc="off", hidden=False))

    honest = grade(out, "honest")
    assert honest.instructor["receipt"] == "ok" and not honest.vetoes
    conf = next(t for t in honest.tests if t.id == "conformance")
    assert EDITED_TITLE in conf.output and "edited_section" not in honest.instructor
    # the saved section claims the edited version is right everywhere (and the receipt is rebuilt to match)
    lines = out.splitlines()
    forged = [re.sub(r"：输出有.*", "：输出正确。", ln) if ln.startswith("  ") and "输入，" in ln else ln
              for ln in lines]
    assert forged != lines
    from grading.receipt import make_receipt
    body = forged[1:-1]
    forged[-1] = make_receipt(ex08.id, code, body, ex08.fingerprint()).line()
    res = grade("\n".join(forged), "forged")
    assert res.instructor["receipt"] == "ok" and not res.vetoes and res.verdict == honest.verdict
    assert res.score == honest.score
    assert res.instructor["edited_section"] == "differs"
    assert any(EDITED_TITLE in n and "不一致" in n for n in res.notes)


def test_the_html_bound_by_the_receipt_is_the_same_with_or_without_the_edited_section():
    """The check cell's saved view holds the edited version's section; the grader's re-run (before the
    verdict) has none: what the receipt binds of both must be equal, down to the line that joined the section
    (a blank line left behind vetoed every honest notebook with edits as 'edited')."""
    from dataclasses import replace

    from grading.checkcell import rerun
    from grading.checkview import EDITED_START, bound_html
    ex = load_exercise("lesson09")
    src = ex.solution_path.read_text(encoding="utf-8").replace("__syncthreads();", "", 1)
    saved, again = rerun(src, ex, edited=True), rerun(src, ex, edited=False)
    assert saved.edited and not again.edited
    again = replace(again, receipt=saved.receipt)
    assert EDITED_START in saved.html() and EDITED_START not in again.html()
    assert bound_html(saved.html()) == bound_html(again.html())


def test_a_worker_that_dies_in_the_edited_run_keeps_the_graded_result(ex08, tmp_path, monkeypatch):
    """The edited version's run kills its worker (as a memory cap or a crash in labsim would): the graded result
    the worker sent before it is kept as it was, with a note that the edited run did not finish."""
    import os

    import grading.batch
    import grading.grade
    if grading.batch._context().get_start_method() != "fork":
        pytest.skip("the stand-in crash reaches the worker only through fork")
    right = fill(ex08, RIGHT)
    edited = right.replace(LAUNCH, "    for (int r = 0; r < 2; ++r)\n" + LAUNCH)
    _notebook(ex08, tmp_path, right, "honest", monkeypatch)
    _notebook(ex08, tmp_path, edited, "edited", monkeypatch)
    monkeypatch.setattr(grading.grade, "edited_version", lambda *a, **k: os._exit(3))
    results = grade_many(discover([tmp_path / "subs"], ex08), ex08.id, tmp_path / "out", jobs=1,
                         options=Options(nvcc="off"), edited_time_limit=60, progress=False)
    by_name = {r.name: r for r in results}
    base, res = by_name["honest"], by_name["edited"]
    assert _graded(res) == _graded(base) and res.problem is None
    conf = next(t for t in res.to_gradescope()["tests"] if "不计分" in t["output"])
    assert "没有运行完（评分进程在这一步意外退出）" in conf["output"], conf["output"]
    assert "分数、结论和每一项检查都不受影响" in conf["output"]
