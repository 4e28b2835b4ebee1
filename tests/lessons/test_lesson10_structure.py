"""Lesson 10's teaching order and tables, checked on what the lesson really shows: the playground kernel, no
B-tile index (the answer) in anything displayed before the exercise, sentences naming real table columns."""
from __future__ import annotations

import ast
import re

import pytest

from lessonref import REPO, answer_only, challenge_line, read_lesson, run_cell, shown_texts
from sitebuilds import explorer_cache

from figures import lesson10
from figures.table import Table

LESSON10 = REPO / "lessons" / "lesson10_gemm_tiled.qmd"


@pytest.fixture(scope="module")
def lesson():
    return read_lesson(LESSON10)


def _role(lesson, name):
    # the lesson's exercise; the optional challenge after it has its own cells (test_lesson_challenges)
    end = challenge_line(lesson)
    return [c for c in lesson.cells if c.options.get("course_role") == name and c.line < end]


def _runnable(c) -> bool:
    # %%writefile cells and the grader's check run in test_lesson10_runs; the explorer is tested on its own
    return (c.lang == "python" and not c.source.startswith("%%") and "check(" not in c.source
            and "bank_explorer" not in c.source)


@pytest.fixture(scope="module")
def ran(lesson):
    ns: dict = {}
    out = []
    for c in lesson.cells:
        if _runnable(c) and not answer_only(c.divs):
            value, printed = run_cell(c.source, ns)
            out.append((c, value, shown_texts(value, printed)))
    return out


def test_one_short_editable_kernel(lesson):
    (play,) = [c for c in lesson.cells if "playground" in (c.options.get("tags") or [])]
    tree = ast.parse(play.source)
    kernels = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(kernels) == 1 and kernels[0].args.args[0].arg == "blk"
    assert len(play.source.strip().splitlines()) <= 15
    assert "launch(" in play.source and not answer_only(play.divs)
    (ex,) = _role(lesson, "exercise")
    assert play.line < ex.line


def test_nothing_displayed_gives_the_index_away(lesson, ran):
    """No cell of the exercise branch displays the B-tile index, before or after the exercise (tables and race
    reports show the line with the blank); the answer branch's solution cell is the only place it appears."""
    assert len(ran) >= 10, "the lesson's cells did not run"
    pattern = re.compile(r"\(\s*t\s*\+\s*ty\s*\)\s*\*\s*N")
    bad = [c.line for c, _, texts in ran if pattern.search(" ".join(texts))]
    assert not bad, f"cells at lines {bad} display the B-tile index on the exercise branch"
    assert pattern.search(lesson10.exercise_source()), "the detector finds the index (it can fail)"
    assert any("B[______]" in " ".join(texts) for _, _, texts in ran)


NAMED = re.compile(r"“([^”]+)”\s*(列|行)")


def test_sentences_name_columns_the_tables_have(lesson, ran):
    tables = [v for _, v, _ in ran if isinstance(v, Table)]
    headers = {h for tab in tables for h in tab.headers}
    named = [(ln, m.group(1), m.group(2)) for ln, t, _ in lesson.prose for m in NAMED.finditer(t)]
    assert len(named) >= 4
    bad = [f"line {ln}: “{name}”{kind}" for ln, name, kind in named if kind == "列" and name not in headers]
    assert not bad, "sentences name columns no table has: " + "; ".join(bad)


def test_figures_are_referred_to_after_they_exist(lesson):
    text = LESSON10.read_text(encoding="utf-8")
    for c in lesson.cells:
        label = str(c.options.get("label", ""))
        if label.startswith("fig-"):
            assert text.index(f"@{label}") > 0 and c.options.get("fig-alt")


def test_explorer_static_build(monkeypatch):
    monkeypatch.setenv("COURSEBUILD_STATIC", "1")
    monkeypatch.setenv("COURSEBUILD_EXPLORER_CACHE", str(explorer_cache()))   # the page's spec, computed once
    ex = lesson10.bank_explorer()
    assert ex.view_at(tile=16, pad=0, access="b_col", k=0)["wavefronts"] == 8
    assert ex.view_at(tile=32, pad=1, access="b_col", k=5)["wavefronts"] == 1


# What answers each question (issue 28, item 4): Q1 double buffering with one barrier, Q2 a 2×2 block per
# thread, Q3 a padding of 4 floats that keeps LDS.128. None of it may be stated before the questions.
ANSWERS = {
    "Q1": [r"双缓冲", r"As\[2\]", r"double.?buffer", r"\(s \+ 1\) % 2", r"只(要|保留|需|用)一个\s*(`__syncthreads\(\)`|屏障)", r"一个屏障同时"],
    "Q2": [r"2\s*×\s*2", r"寄存器分块", r"register til", r"峰值的 1/4", r"32×32"],
    "Q3": [r"\+\s*4(?!\d)", r"TILE \+ 4", r"\[32\]\[36\]", r"\[16\]\[20\]", r"p\s*=\s*4", r"_pad4", r"填 4"],
}


def test_questions_are_not_answered_before_they_are_asked(lesson, ran):
    """The exercise branch states none of Q1-Q3's answers before the questions: not in the prose, not in what
    a cell displays (the explorer computes any state it is asked for; it states nothing by itself)."""
    text = LESSON10.read_text(encoding="utf-8").splitlines()
    q_line = next(i for i, ln in enumerate(text, 1) if ln.startswith("## 问答题"))
    before = [(ln, t) for ln, t, divs in lesson.prose if ln < q_line and not answer_only(divs)]
    before += [(c.line, " ".join(texts)) for c, _, texts in ran if c.line < q_line]
    bad = [f"{q} line {ln}: {m.group(0)!r}" for q, pats in ANSWERS.items() for p in pats
           for ln, t in before for m in [re.search(p, t)] if m]
    assert not bad, "answers stated before the questions: " + "; ".join(bad)
    # the detector can fail: every question's answer is stated after the questions (reference answer, sec-beyond)
    after = "\n".join(t for ln, t, divs in lesson.prose if ln > q_line)
    for q, pats in ANSWERS.items():
        assert any(re.search(p, after) for p in pats), q
    # and the questions are the graders' (questions.toml), each after every section that shows its method
    for sec in ("sec-barriers", "sec-time", "sec-speed", "sec-explore"):
        assert next(i for i, ln in enumerate(text, 1) if f"{{#{sec}}}" in ln) < q_line
