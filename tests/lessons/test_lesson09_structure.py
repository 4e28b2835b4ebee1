"""Lesson 9's teaching order, checked on what the lesson really shows.

* The exercise branch shows no fix before the exercise: no padded or swizzled layout, no padded stride, in the
  prose, the cells, or anything those cells display (tables, figure texts, printed text).
* Sentences that name a table's column or row (“…”列 / “…”行) name one the lesson's tables really have.
"""
from __future__ import annotations

import re

import pytest

from lessonref import LESSON9, answer_only, read_lesson, run_cell, shown_texts

from figures.table import Table

# A fix or its numbers: a padded declaration, TILE_DIM + k, the stride of 33 words, "pad one column", a swizzle.
FIX = [re.compile(p) for p in (
    r"tile\[32\]\[(?!32\])\d+\]",          # float tile[32][33], [32][34], ...
    r"\[\s*TILE_DIM\s*\+",                 # [TILE_DIM + 1]
    r"33\s*个字|33k|×\s*33\b|33\s*×\s*k",   # the padded stride's arithmetic
    r"填一列|填充一列|\+\s*1\s*(?:填充|padding)",
    r"XOR|混洗|swizzle",
)]


def fixes_in(text: str) -> list[str]:
    return [m.group(0) for p in FIX for m in p.finditer(text)]


@pytest.fixture(scope="module")
def lesson():
    return read_lesson(LESSON9)


def _exercise_line(lesson) -> int:
    ex = next(c for c in lesson.cells if c.options.get("course_role") == "exercise")   # the challenge's follows
    return ex.line


def _runnable(c) -> bool:
    # %%writefile cells, the grader's check and the ipywidgets explorer are exercised by test_lesson09_runs
    return (c.lang == "python" and not c.source.startswith("%%") and "check(" not in c.source
            and "bank_explorer" not in c.source)


@pytest.fixture(scope="module")
def ran(lesson):
    """(cell, displayed value, texts it displays) for every runnable cell of the lesson, both branches."""
    ns: dict = {}
    out = []
    for c in lesson.cells:
        if _runnable(c):
            value, printed = run_cell(c.source, ns)
            out.append((c, value, shown_texts(value, printed)))
    return out


@pytest.fixture(scope="module")
def displayed(ran):
    return [(c, texts) for c, _, texts in ran]


def test_the_detector_finds_the_fix(displayed):
    """The patterns do catch the fix where the lesson shows it (after the exercise): the test can fail."""
    after = [t for c, texts in displayed if "fixes=False" not in c.source for t in texts]
    assert fixes_in(" ".join(after))
    assert fixes_in("__shared__ float tile[TILE_DIM][TILE_DIM + 1];") and fixes_in("行跨度 33 个字")


def test_no_fix_before_the_exercise_in_the_prose_and_cells(lesson):
    ex_line = _exercise_line(lesson)
    bad = [f"line {ln}: {fixes_in(t)}" for ln, t, divs in lesson.prose
           if ln < ex_line and not answer_only(divs) and fixes_in(t)]
    bad += [f"cell at line {c.line}: {fixes_in(c.source + str(c.options))}" for c in lesson.cells
            if c.line < ex_line and not answer_only(c.divs) and fixes_in(c.source + str(c.options))]
    assert not bad, "the exercise branch shows the fix before the exercise: " + "; ".join(bad)


def test_no_fix_before_the_exercise_in_what_the_cells_show(lesson, displayed):
    ex_line = _exercise_line(lesson)
    before = [(c, texts) for c, texts in displayed if c.line < ex_line and not answer_only(c.divs)]
    assert len(before) >= 10, "the cells before the exercise did not run"
    bad = [f"cell at line {c.line}: {sorted(set(fixes_in(' '.join(texts))))}" for c, texts in before
           if fixes_in(" ".join(texts))]
    assert not bad, "a cell before the exercise displays the fix: " + "; ".join(bad)


def test_the_fix_comes_after_the_check(lesson):
    """The padded layout is first shown after the check cell (so the student has tried the exercise)."""
    chk = next(c for c in lesson.cells if c.options.get("course_role") == "check")   # the challenge's follows
    first = min([ln for ln, t, divs in lesson.prose if fixes_in(t) and not answer_only(divs)]
                + [c.line for c in lesson.cells if fixes_in(c.source) and c.options.get("course_role") != "solution"
                   and not answer_only(c.divs)])
    # the hints live between the exercise and the check: only their answer-branch level may name the fix
    assert first > chk.line, f"line {first}: the fix appears before the check cell (line {chk.line})"


NAMED = re.compile(r"“([^”]+)”\s*(列|行)")


def test_sentences_name_columns_and_rows_the_tables_have(lesson, ran):
    tables = [v for _, v, _ in ran if isinstance(v, Table)]
    headers = {h for tab in tables for h in tab.headers}
    first_cells = {str(r[0]) for tab in tables for r in tab.data}
    named = [(ln, m.group(1), m.group(2)) for ln, t, _ in lesson.prose for m in NAMED.finditer(t)]
    assert len(named) >= 5, "the lesson should point at its tables' columns by name"
    bad = [f"line {ln}: “{name}”{kind}" for ln, name, kind in named
           if name not in (headers if kind == "列" else first_cells)]
    assert not bad, "sentences name columns/rows no table has: " + "; ".join(bad)
