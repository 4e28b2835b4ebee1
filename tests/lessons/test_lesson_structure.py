"""The structure every graded lesson follows (seed 000 and STYLE.md), checked on each lesson listed here:
hidden setup, one exercise = the grader's template, one solution only on the answer branch, a check cell,
figures with captions and alt text, cells that only call library functions, the answer markers the grader
extracts, four nested hint levels, answer text only in the answer profile, no hand numbering or pagination."""
from __future__ import annotations

import ast
import re

import pytest

from lessonref import REPO, answer_only, challenge_line, graded_lessons, read_lesson

# Every lesson page with an exercise, in the site's order (_quarto.yml: the one list of lessons); its exercise
# is the grading folder whose target the exercise cell writes, its fill the reference solution's.
LESSONS = {path.relative_to(REPO / "lessons").as_posix(): (eid, target, fill)
           for path, eid, target, fill in graded_lessons()}


def test_the_course_has_graded_lessons():
    assert len(LESSONS) >= 3 and all(not name.startswith("prelude/") for name in LESSONS)


@pytest.fixture(scope="module", params=list(LESSONS))
def lesson(request):
    path = REPO / "lessons" / request.param
    lesson = read_lesson(path)
    lesson.path = path
    lesson.exercise, lesson.target, lesson.fill = LESSONS[request.param]
    return lesson


def role(lesson, name):
    # the lesson's exercise; the optional challenge after it has its own cells (test_lesson_challenges)
    end = challenge_line(lesson)
    return [c for c in lesson.cells if c.options.get("course_role") == name and c.line < end]


def test_front_matter_and_hidden_setup(lesson):
    assert lesson.front["title"] and lesson.front["lang"] == "zh"
    first = lesson.cells[0]
    assert first.options.get("include") is False and "figures.setup_lesson()" in first.source


def test_one_exercise_one_solution_one_check(lesson):
    (ex,), (sol,), (chk,) = role(lesson, "exercise"), role(lesson, "solution"), role(lesson, "check")
    head = f"%%writefile {lesson.target}\n"
    assert ex.source.startswith(head) and sol.source.startswith(head)
    assert "______" in ex.source and "______" not in sol.source
    assert not answer_only(ex.divs) and not answer_only(chk.divs)
    assert answer_only(sol.divs) and any("callout-tip" in d for d in sol.divs)
    assert f'check("{lesson.target}"' in chk.source     # the exercise is found by the target's name
    assert ex.line < chk.line < sol.line


def test_exercise_is_the_graders_template(lesson):
    folder = REPO / "grading" / "exercises" / lesson.exercise
    template = (folder / "template.cu").read_text(encoding="utf-8")
    (ex,), (sol,) = role(lesson, "exercise"), role(lesson, "solution")
    assert ex.source.split("\n", 1)[1].strip() == template.strip()

    def code(text):
        return [ln.split("//")[0].rstrip() for ln in text.strip().splitlines()]

    filled = template.replace("______", lesson.fill)
    assert code(sol.source.split("\n", 1)[1]) == code(filled)
    assert code((folder / "solution.cu").read_text(encoding="utf-8")) == code(filled)


def test_figures_have_labels_captions_and_alt_text(lesson):
    figs = [c for c in lesson.cells if str(c.options.get("label", "")).startswith("fig-")]
    assert figs
    text = lesson.path.read_text(encoding="utf-8")
    for c in figs:
        assert c.options.get("fig-cap") and c.options.get("fig-alt"), c.options["label"]
        assert f"@{c.options['label']}" in text, f"{c.options['label']} is never referred to"


def test_cells_call_library_functions_only(lesson):
    """A cell calls one to three functions of labsim/figures/grading; no simulator logic in the notebook."""
    for c in lesson.cells:
        if c.lang != "python" or c.source.startswith("%%") or "playground" in (c.options.get("tags") or []):
            continue   # a playground is the one editable kernel a lesson may show (lesson 9 tests its shape)
        tree = ast.parse(c.source)
        assert len([n for n in ast.walk(tree) if isinstance(n, ast.Call)]) <= 3, f"line {c.line}"
        banned = (ast.FunctionDef, ast.ClassDef, ast.For, ast.While, ast.Lambda, ast.ListComp)
        assert not [n for n in ast.walk(tree) if isinstance(n, banned)], f"line {c.line}: logic in a cell"
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                assert all(m.split(".")[0] in {"figures", "labsim", "grading"} for m in mods), mods


def test_no_downloads_installs_hand_numbers_or_pagination(lesson):
    text = lesson.path.read_text(encoding="utf-8")
    assert not re.search(r"^\s*[!%]\s*(pip|wget|curl|conda|apt)", text, re.M)
    assert not re.search(r"^#{2,4}\s+\d+[.、]", text, re.M), "headings are numbered by the renderer"
    assert "course-pagination" not in text and "上一课" not in text, "the build generates pagination"
    refs = set(re.findall(r"@(sec-[\w-]+)", text))
    ids = set(re.findall(r"\{#(sec-[\w-]+)\}", text))
    assert refs <= ids, refs - ids


def test_answer_cells_the_grader_extracts(lesson):
    """Headings Q1-Q3 and the implementation note, each followed by the '你的答案' marker, on both branches."""
    prose = [(ln, t) for ln, t, divs in lesson.prose if not answer_only(divs)]
    for heading in ("### 解释你的实现", "### Q1", "### Q2", "### Q3"):
        (start,) = [i for i, (_, t) in enumerate(prose) if t.strip() == heading]
        nxt = next((i for i in range(start + 1, len(prose)) if prose[i][1].startswith("#")), len(prose))
        assert any("**你的答案：**" in t for _, t in prose[start:nxt]), heading


def test_hints_open_one_level_at_a_time(lesson):
    hints = [(line, attrs, depth) for line, attrs, depth in lesson.divs if "级提示" in attrs]
    assert [a.split("title=")[1].split("：")[0].strip('"') for _, a, _ in hints] == \
        ["第 1 级提示", "第 2 级提示", "第 3 级提示", "第 4 级提示"]
    depths = [d for _, _, d in hints]
    assert depths == list(range(depths[0], depths[0] + 4)) and all('collapse="true"' in a for _, a, _ in hints)


def test_answer_text_stays_on_the_answer_branch(lesson):
    for ln, text, divs in lesson.prose:
        if lesson.fill in text or (text.startswith("#") and "参考答案" in text):
            assert answer_only(divs), f"line {ln}: answer text outside the answer-profile div"
    callouts = [ln for ln, a, _ in lesson.divs if "callout-tip" in a]
    assert callouts
    for ln in callouts:
        assert [a for l2, a, _ in lesson.divs if l2 < ln and 'when-profile="answer"' in a], ln


def test_nothing_before_the_exercise_gives_the_answer_away(lesson):
    (ex,) = role(lesson, "exercise")
    before = [t for ln, t, _ in lesson.prose if ln < ex.line]
    before += [c.source for c in lesson.cells if c.line < ex.line]
    compact = lesson.fill.replace(" ", "")
    assert not [t for t in before if compact in t.replace(" ", "")]
