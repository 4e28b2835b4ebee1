"""Lesson 9's source: structure the site builder and the grader rely on, and the rules lessons follow."""
from __future__ import annotations

import ast
import re

import pytest

from lessonref import LESSON9, REPO, answer_only, challenge_line, read_lesson

TEMPLATE = REPO / "grading" / "exercises" / "lesson09" / "template.cu"
TARGET = "%%writefile /tmp/09_transpose_tiled.cu"


@pytest.fixture(scope="module")
def lesson():
    return read_lesson(LESSON9)


def role(lesson, name):
    # the lesson's exercise; the optional challenge after it has its own cells (test_lesson_challenges)
    end = challenge_line(lesson)
    return [c for c in lesson.cells if c.options.get("course_role") == name and c.line < end]


def test_front_matter_and_hidden_setup(lesson):
    assert lesson.front["title"].startswith("第 9 课")
    assert lesson.front["lang"] == "zh"
    first = lesson.cells[0]
    assert first.options.get("include") is False
    assert "figures.setup_lesson()" in first.source


def test_one_exercise_one_solution_one_check(lesson):
    (ex,), (sol,), (chk,) = role(lesson, "exercise"), role(lesson, "solution"), role(lesson, "check")
    assert ex.source.startswith(TARGET + "\n") and sol.source.startswith(TARGET + "\n")
    assert "______" in ex.source and "______" not in sol.source
    assert not answer_only(ex.divs) and not answer_only(chk.divs)
    assert answer_only(sol.divs), "the solution must sit inside the answer-profile div"
    assert any("callout-tip" in d for d in sol.divs), "the solution lives in the answer callout"
    assert 'check("/tmp/09_transpose_tiled.cu")' in chk.source
    assert "draw_bank_heatmap(report.heatmap" in chk.source
    assert ex.line < chk.line < sol.line


def test_exercise_is_the_graders_template(lesson):
    if not TEMPLATE.is_file():
        pytest.skip("grading/exercises/lesson09/template.cu not in this checkout yet")
    template = TEMPLATE.read_text(encoding="utf-8")
    (ex,), (sol,) = role(lesson, "exercise"), role(lesson, "solution")
    body = ex.source[len(TARGET) + 1:]
    assert body.strip() == template.strip()
    # the solution is the template with the blank filled (comments may explain the answer)
    filled = re.sub(r"______\];\s*//[^\n]*", "TILE_DIM + 1];", template)

    def code(text):
        return [ln.split("//")[0].rstrip() for ln in text.strip().splitlines()]

    assert code(sol.source[len(TARGET) + 1:]) == code(filled)


def test_figures_have_labels_captions_and_alt_text(lesson):
    figs = [c for c in lesson.cells if str(c.options.get("label", "")).startswith("fig-")]
    labels = {c.options["label"] for c in figs}
    assert {"fig-sector-map", "fig-flow", "fig-bank-heatmap", "fig-tile-banks", "fig-fix-heatmaps",
            "fig-tile-banks-fix", "fig-explorer-grid"} <= labels
    for c in figs:
        assert c.options.get("fig-cap") and c.options.get("fig-alt"), c.options["label"]
    (flow,) = [c for c in figs if c.lang == "mermaid"]
    # (after Mermaid directives such as %%{init: ...}%%)
    assert re.sub(r"^\s*%%\{.*\}%%\s*\n", "", flow.source).lstrip().startswith("flowchart")
    text = LESSON9.read_text(encoding="utf-8")
    for label in labels:
        assert f"@{label}" in text, f"{label} is never referred to"


def test_one_short_editable_kernel(lesson):
    """The playground: one labsim kernel (Python API) a student edits and re-runs, short and self-contained."""
    (play,) = [c for c in lesson.cells if "playground" in (c.options.get("tags") or [])]
    tree = ast.parse(play.source)
    kernels = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(kernels) == 1 and kernels[0].args.args[0].arg == "blk"
    assert len(play.source.strip().splitlines()) <= 15
    assert any(isinstance(n, ast.ImportFrom) and n.module == "labsim" for n in tree.body)
    assert "launch(" in play.source and not answer_only(play.divs)
    (ex,) = role(lesson, "exercise")
    assert play.line < ex.line, "the playground comes before the exercise, for the prediction"


def test_cells_call_library_functions_only(lesson):
    """A cell calls one to three functions of labsim/figures/grading; no simulator logic in the notebook
    (except the playground's one editable kernel, tested above)."""
    for c in lesson.cells:
        if c.lang != "python" or c.source.startswith("%%") or "playground" in (c.options.get("tags") or []):
            continue
        tree = ast.parse(c.source)
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        assert len(calls) <= 3, f"line {c.line}: {len(calls)} calls"
        banned = (ast.FunctionDef, ast.ClassDef, ast.For, ast.While, ast.Lambda, ast.ListComp)
        assert not [n for n in ast.walk(tree) if isinstance(n, banned)], f"line {c.line}: logic in a cell"
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                assert all(m.split(".")[0] in {"figures", "labsim", "grading"} for m in mods), mods


def test_no_downloads_or_installs():
    text = LESSON9.read_text(encoding="utf-8")
    assert not re.search(r"^\s*[!%]\s*(pip|wget|curl|conda|apt)", text, re.M)


def test_answer_text_stays_on_the_answer_branch(lesson):
    for ln, text, divs in lesson.prose:
        if "TILE_DIM + 1" in text or "参考答案" in text and text.startswith("#"):
            assert answer_only(divs), f"line {ln}: answer text outside the answer-profile div"
    callouts = [(ln, a) for ln, a, _ in lesson.divs if "callout-tip" in a]
    assert callouts
    for ln, _ in callouts:
        enclosing = [a for l2, a, d in lesson.divs if l2 < ln and 'when-profile="answer"' in a]
        assert enclosing, f"line {ln}: answer callout not inside an answer-profile div"


def test_hint_three_points_at_the_condition_not_the_number(lesson):
    hints = [ln for ln, a, _ in lesson.divs if "第 3 级提示" in a]
    nxt = [ln for ln, a, _ in lesson.divs if "第 4 级提示" in a]
    text = " ".join(t for ln, t, _ in lesson.prose if hints[0] < ln < nxt[0])
    assert "两两不同" in text or "什么时候" in text
    for answer in ("33", "TILE_DIM + 1", "奇数", "+ 1", "互素"):
        assert answer not in text, f"hint 3 gives the answer away: {answer!r}"


def test_refs_to_answer_sections_stay_in_the_answer_branch(lesson):
    """An @sec- reference in the exercise branch must not point at a section only the answer branch has."""
    answer_ids = {m for ln, t, divs in lesson.prose if answer_only(divs) for m in re.findall(r"\{#(sec-[\w-]+)\}", t)}
    for ln, t, divs in lesson.prose:
        if not answer_only(divs):
            used = set(re.findall(r"@(sec-[\w-]+)", t)) & answer_ids
            assert not used, f"line {ln}: refers to answer-only {used}"


def test_rubric_matches_the_questions_and_maps_pass_conditions(lesson):
    """Q1 is the transfer question in both the lesson and the rubric; every manual item names the pass
    condition it scores, and the lesson's mapping table lists every pass condition of the goals section."""
    import tomllib
    rubric = tomllib.loads((REPO / "grading" / "exercises" / "lesson09" / "rubric.toml").read_text(encoding="utf-8"))
    text = LESSON9.read_text(encoding="utf-8")
    q1 = text[text.index("### Q1"):text.index("### Q2")]
    assert "写** tile 时对调" in q1 and "写 tile" in rubric["Q1"]["question"]
    for item in ("explanation", "Q1", "Q2", "Q3"):
        assert rubric[item]["pass_condition"] and len(rubric[item]["elements"]) >= 3
    goals = text[text.index("通过必须同时满足"):text.index("## 前置关系")]
    table = text[text.index("| 通过条件 |"):text.index("一票否决：", text.index("| 通过条件 |"))]
    for key in ("补齐", "因果链", "正确性边界", "8/10"):
        assert key in goals and key in table, key
