"""Each lesson's optional challenge (issue 29): a section after the questions and the answers with the challenge's
template as a second exercise cell, its reference solution on the answer branch only, and a check cell; the
targets and the H200's speeds it states come from the config and the recording, not typed into the page."""
from __future__ import annotations

import json
import re

import pytest
from lessonref import REPO, answer_only, challenge_line, read_lesson, run_cell, shown_texts

from coursebuild.context import BuildContext
from coursebuild.qmd import parse_qmd, write_qmd
from coursebuild.transforms import run_pipeline
from coursebuild.transforms.select_branch import select_branch

CHALLENGES = {"lesson08_transpose_naive.qmd": ("lesson08_challenge", "/tmp/08_transpose_challenge.cu", "gbps_median"),
              "lesson10_gemm_tiled.qmd": ("lesson10_challenge", "/tmp/10_gemm_challenge.cu", "gflops_median"),
              "lesson09_transpose_tiled.qmd": ("lesson09_challenge", "/tmp/09_transpose_half_challenge.cu", "gbps_median"),
              "prelude/index.qmd": ("p2_challenge", "/tmp/p2_aos_to_soa_challenge.cu", "gbps_median")}
ROUND3 = json.loads((REPO / "measurements/h200/round3/results.json").read_text(encoding="utf-8"))["challenges"]


@pytest.fixture(params=sorted(CHALLENGES), scope="module")
def page(request):
    path = REPO / "lessons" / request.param
    lesson = read_lesson(path)
    eid, target, key = CHALLENGES[request.param]
    folder = REPO / "grading" / "exercises" / eid
    return path, lesson, eid, target, key, folder


def _challenge_cells(lesson, role):
    start = challenge_line(lesson)
    return [c for c in lesson.cells if c.line > start and c.options.get("course_role") == role]


def test_the_challenge_follows_the_questions_and_the_answers(page):
    _, lesson, *_ = page
    start = challenge_line(lesson)
    assert start != float("inf")
    (questions,) = [ln for ln, t, _ in lesson.prose if t.startswith("## 问答题")]
    (answers,) = [ln for ln, t, _ in lesson.prose if t.startswith("## 参考答案")]
    (refs,) = [ln for ln, t, _ in lesson.prose if t.startswith("## 参考资料")]
    assert questions < answers < start < refs
    heading = next(t for ln, t, _ in lesson.prose if ln == start)
    assert "{#sec-challenge}" in heading


def test_template_solution_and_check_cells(page):
    _, lesson, eid, target, _, folder = page
    (ex,), (sol,), (chk,) = (_challenge_cells(lesson, r) for r in ("exercise", "solution", "check"))
    head = f"%%writefile {target}\n"
    assert ex.source.startswith(head) and sol.source.startswith(head)
    assert ex.source[len(head):].strip() == (folder / "template.cu").read_text(encoding="utf-8").strip()
    assert sol.source[len(head):].strip() == (folder / "solution.cu").read_text(encoding="utf-8").strip()
    assert not answer_only(ex.divs) and not answer_only(chk.divs)
    assert answer_only(sol.divs) and any("callout-tip" in d for d in sol.divs)
    assert f'check("{target}", "{eid}")' in chk.source
    assert ex.line < sol.line < chk.line


def test_the_exercise_branch_has_no_challenge_solution(page):
    path, _, eid, target, _, folder = page
    out = write_qmd(run_pipeline(parse_qmd(path.read_text(encoding="utf-8")), BuildContext("exercise", "html"),
                                 [select_branch]))
    solution = (folder / "solution.cu").read_text(encoding="utf-8")
    # every line of the reference that no template (the code every student is given) has stays off the branch
    template = {ln.strip() for t in (REPO / "grading" / "exercises").glob("*/template.cu")
                for ln in t.read_text(encoding="utf-8").splitlines()}
    own = [ln for ln in solution.splitlines() if ln.strip() not in template and len(ln.strip()) > 12]
    assert own and not [ln for ln in own if ln in out]
    assert f"%%writefile {target}" in out      # the template is there
    answer = write_qmd(run_pipeline(parse_qmd(path.read_text(encoding="utf-8")), BuildContext("answer", "html"),
                                    [select_branch]))
    assert all(ln in answer for ln in own)


def test_targets_and_speeds_come_from_the_config_and_the_recording(page):
    path, lesson, eid, _, key, folder = page
    import tomllib
    cfg = tomllib.loads((folder / "config.toml").read_text(encoding="utf-8"))
    start = challenge_line(lesson)
    prose = "\n".join(t for ln, t, _ in lesson.prose if ln > start and not t.startswith("## 参考资料"))
    ref = next(t for t in ROUND3["timing"] if t["variant"] == f"{eid}/solution")
    base = next(t for t in ROUND3["timing"] if t["variant"] == f"{eid}/baseline")
    # nothing typed by hand: neither the targets nor the speeds appear in the page's text
    for c in cfg["counter"]:
        if not float(c["target"]).is_integer():      # a small whole target (1, 4) is any digit of the prose
            assert f"{c['target']:g}" not in prose
    assert f"{ref[key]:.0f}" not in path.read_text(encoding="utf-8")
    shown = []
    ns: dict = {}
    for c in lesson.cells:
        if c.line > start and c.options.get("echo") is False:
            value, printed = run_cell(c.source, ns)
            shown += shown_texts(getattr(value, "data", value), printed)
    text = "\n".join(shown)
    for c in cfg["counter"]:
        assert f"不超过 {c['target']:g}" in text and f"参考解 {c['reference']:g}" in text
    assert f"参考解 {ref[key]:.0f}" in text and f"基线内核 {base[key]:.0f}" in text
    r = ref[key] / base[key]
    if r >= 1.1:
        assert f"快 {r:.1f} 倍" in text
    else:       # P2: the reference is no faster on the H200; the config's note says why
        assert f"参考解是基线的 {r:.2f} 倍" in text and cfg["h200"]["note"] in text and not re.search(r"快 [0-9.]+ 倍", text)
