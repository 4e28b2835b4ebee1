"""Issue 29's optional manual points for the challenges: a short design explanation scored by a person with the
challenge's rubric.toml. Students read the question and the general criteria, never the model answer; the item
is outside the pass rule (the automatic points and the pass rule stay as they were); an instructor turns it off
with ``optional_manual = false``; the lesson page asks the rubric's question and carries its answer cell."""
from __future__ import annotations

import csv
import json
import re
import tomllib
from pathlib import Path

import pytest

from grading.gradebook import apply_manual, merge
from grading.grade import Options, grade_submission
from grading.report import feedback_markdown, write_submission
from grading.spec import SpecError, _manual_items, load_exercise

REPO = Path(__file__).resolve().parents[2]
PAGES = {"p2_challenge": "lessons/prelude/index.qmd", "lesson08_challenge": "lessons/lesson08_transpose_naive.qmd",
         "lesson09_challenge": "lessons/lesson09_transpose_tiled.qmd",
         "lesson10_challenge": "lessons/lesson10_gemm_tiled.qmd"}
# the automatic points of each challenge and its pass score before the manual item existed (issue 29's commits)
AUTOMATIC = {"p2_challenge": 5, "lesson08_challenge": 4, "lesson09_challenge": 5, "lesson10_challenge": 5}


def _graded(ex, name: str):
    path = ex.folder / name
    return grade_submission(path, ex, name=Path(name).stem, options=Options(nvcc="off"))


@pytest.mark.parametrize("eid", sorted(PAGES))
def test_the_design_item_is_there_and_outside_the_pass_rule(eid):
    ex = load_exercise(eid)
    [item] = ex.manual
    assert item.id == "challenge_design" and not item.counts_toward_pass and item.points > 0
    assert ex.config["pass_score"] == AUTOMATIC[eid]            # pass: every automatic point, as before
    sol, base = _graded(ex, "solution.cu"), _graded(ex, "baseline.cu")
    for res in (sol, base):
        auto = [t for t in res.tests if "manual" not in t.tags]
        assert sum(t.max_score for t in auto) == AUTOMATIC[eid]
        assert res.max_score == AUTOMATIC[eid] + item.points and res.pending_max == item.points
    # the reference passes now, without waiting for a person; the baseline (correctness points only) fails, and
    # full marks on the explanation could not lift it over the pass score
    assert sol.score == AUTOMATIC[eid] and sol.verdict == "pass"
    assert base.score < AUTOMATIC[eid] and base.verdict == "fail"
    assert base.score + item.points >= AUTOMATIC[eid]       # so the rule matters: counted, it would pass
    out = sol.to_gradescope()
    assert out["extra_data"]["optional_manual_items"] == ["challenge_design"]
    assert "不计入通过规则" in out["output"]


@pytest.mark.parametrize("eid", sorted(PAGES))
def test_students_read_the_criteria_and_the_instructor_the_model_answer(eid, tmp_path):
    ex = load_exercise(eid)
    rubric = tomllib.loads((ex.folder / "rubric.toml").read_text(encoding="utf-8"))["challenge_design"]
    assert rubric["question"] and rubric["elements"] and rubric["scoring"]
    res = _graded(ex, "solution.cu")
    write_submission(res, tmp_path)
    student = (tmp_path / "solution" / "results.json").read_text(encoding="utf-8") + \
        (tmp_path / "solution" / "feedback.md").read_text(encoding="utf-8")
    instructor = (tmp_path / "_instructor" / "solution.json").read_text(encoding="utf-8")
    assert json.dumps(rubric["question"], ensure_ascii=False)[1:-1] in student
    for secret in [*rubric["elements"], *rubric["scoring"], rubric["notes"]]:
        quoted = json.dumps(secret, ensure_ascii=False)[1:-1]
        assert quoted not in student and secret not in student
        assert quoted in instructor
    assert "选做" in student


def test_gradebook_adds_the_points_without_touching_the_verdict(tmp_path):
    ex = load_exercise("lesson08_challenge")
    graded = tmp_path / "graded"
    for name in ("solution.cu", "baseline.cu"):
        write_submission(_graded(ex, name), graded)
    manual = tmp_path / "manual.csv"
    with open(manual, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["student", "exercise", "item", "points"])
        w.writerow(["solution", ex.id, "challenge_design", "1"])
        w.writerow(["baseline", ex.id, "challenge_design", "2"])
    _, table = merge([graded])
    assert apply_manual(table, manual) == 2
    sol, base = table["solution"][ex.id], table["baseline"][ex.id]
    assert (sol.score, sol.verdict, sol.pending) == (4 + 1, "pass", 0)
    # 2 correctness points + 2 manual = 4 = the pass score, yet the baseline still fails: the manual item is optional
    assert (base.score, base.verdict, base.pending) == (2 + 2, "fail", 0)


def test_an_instructor_turns_it_off_in_the_config():
    ex = load_exercise("lesson08_challenge")
    cfg = ex.folder / "config.toml"
    config = tomllib.loads(cfg.read_text(encoding="utf-8"))
    assert [m.id for m in _manual_items(cfg, config, ex.rubric)] == ["challenge_design"]
    assert _manual_items(cfg, {**config, "optional_manual": False}, ex.rubric) == []
    # items that count toward the pass rule stay whatever the switch says
    counted = {**config, "optional_manual": False,
               "manual": [{**config["manual"][0], "counts_toward_pass": True}]}
    assert [m.id for m in _manual_items(cfg, counted, ex.rubric)] == ["challenge_design"]
    with pytest.raises(SpecError, match="optional_manual must be true or false"):
        _manual_items(cfg, {**config, "optional_manual": "no"}, ex.rubric)


@pytest.mark.parametrize("eid", sorted(PAGES))
def test_the_lesson_asks_the_rubrics_question_in_the_challenge_section(eid):
    page = (REPO / PAGES[eid]).read_text(encoding="utf-8")
    question = tomllib.loads((REPO / "grading/exercises" / eid / "rubric.toml").read_text(encoding="utf-8"))[
        "challenge_design"]["question"]
    section = page[page.index("## 挑战（选做）"):page.index("## 参考资料")]
    assert question in section.replace("`", "")
    assert re.search(r'::: \{\.course-answer question="challenge_design"\}\n\*\*你的答案：\*\*\n:::', section)
    assert "不计入挑战的通过规则" in section
    # the page's own rule for passing the challenge stays true: every automatic point
    assert "挑战只有拿到全部自动评分的分才算通过" in page or "只有拿到全部自动评分的分才算通过" in page
