"""Hidden-check snippets: which lines count, and the scanner finds them in built files."""
from __future__ import annotations

from pathlib import Path

from coursebuild.leaks import hidden_snippets, scan_for_leaks

FIXTURE = Path(__file__).parent / "fixtures" / "site"


def test_snippets_exclude_public_lines(tmp_path):
    ex = tmp_path / "grading" / "exercises" / "l9"
    (ex / "hidden").mkdir(parents=True)
    shared = "int x = blockIdx.x * TILE_DIM + threadIdx.x;"
    (ex / "template.cu").write_text(shared + "\n", encoding="utf-8")
    (ex / "hidden" / "cases.py").write_text(f"import numpy as np\n{shared}\nSECRET_SHAPES = [(33, 65), (1, 1)]\nx = 1\n",
                                            encoding="utf-8")
    (ex / "hidden_checks.py").write_text("def check_boundary_secret(): pass\n", encoding="utf-8")
    got = {line for _, line in hidden_snippets(tmp_path)}
    assert got == {"SECRET_SHAPES = [(33, 65), (1, 1)]", "def check_boundary_secret(): pass"}


def test_fixture_snippets():
    got = {line for _, line in hidden_snippets(FIXTURE)}
    assert "HIDDEN_SHAPES = [(33, 65), (1, 1), (1024, 7)]  # fixture-hidden-shapes" in got


def test_scan_sees_through_highlighting_and_json(tmp_path):
    snippet = [("hidden.py", 'SECRET = "a<b>"  # note')]
    html = tmp_path / "p.html"
    html.write_text('<span class="n">SECRET</span> <span>=</span> "a&lt;b&gt;"  # note', encoding="utf-8")
    nb = tmp_path / "p.ipynb"
    nb.write_text('{"source": "SECRET = \\"a<b>\\"  # note"}', encoding="utf-8")
    clean = tmp_path / "c.html"
    clean.write_text("nothing", encoding="utf-8")
    hits = scan_for_leaks([html, nb, clean], snippet)
    assert len(hits) == 2 and all("hidden.py" in h for h in hits)


# ---- reference fills (issue 24, item 4) ---------------------------------------------------------------------

import os  # noqa: E402
import re  # noqa: E402

import pytest  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from coursebuild.leaks import (ALLOW_FILLS, exercise_fills, fill_patterns, public_code, reference_fill,  # noqa: E402
                               scan_for_fills)

REPO = Path(__file__).resolve().parents[2]


def _fill_by_text(template: str, solution: str) -> str:
    """The solution's text in place of the blank: its blank line, comment cut, minus the template's text before
    and after the blank (characters, independent of coursebuild's token diff)."""
    t_line = next(ln for ln in template.splitlines() if "______" in ln).split("//")[0].strip()
    before, after = t_line.split("______")
    s_line = next(c for c in (ln.split("//")[0].strip() for ln in solution.splitlines())
                  if c.startswith(before) and c.endswith(after) and c != t_line)
    return s_line[len(before):len(s_line) - len(after)]


@pytest.mark.parametrize("eid", sorted(p.name for p in (REPO / "grading" / "exercises").iterdir()
                                       if (p / "solution.cu").is_file()
                                       and 'kind = "whole"' not in (p / "config.toml").read_text(encoding="utf-8")))
def test_reference_fill_of_every_exercise(eid):
    folder = REPO / "grading" / "exercises" / eid
    template, solution = (folder / "template.cu").read_text(encoding="utf-8"), (folder / "solution.cu").read_text(encoding="utf-8")
    fill = reference_fill(eid, template, solution)
    assert fill.fill == _fill_by_text(template, solution)
    assert fill.statement.replace(fill.fill, "______") in template


def test_fill_patterns_skip_fills_the_templates_give_away():
    # a fill that is another exercise's given code (lesson 8's read input[row * N + col]) is no answer by itself:
    # only its own filled statement counts
    given = reference_fill("a", "int idx = ______;\n", "int idx = row * N + col;\n")
    own = reference_fill("b", "out[______] = v;\n", "out[col * M + row] = v;\n")
    pats = {(e, what) for e, what, _ in fill_patterns([given, own], ["float v = input[row * N + col];"])}
    assert pats == {("a", "int idx = row * N + col;"), ("b", "out[col * M + row] = v;"), ("b", "col * M + row")}
    # the course's own exercises: the bare fill is searched exactly when no template holds it
    fills = exercise_fills(REPO)
    public = " ".join(" ".join(code.split()) for code in public_code(REPO))
    searched = {(e, what) for e, what, _ in fill_patterns(fills, public_code(REPO))}
    for f in fills:
        assert (f.exercise, f.statement) in searched
        assert ((f.exercise, f.fill) in searched) == (" ".join(f.fill.split()) not in public), f


def test_scan_finds_a_fill_however_spaced_and_wherever(tmp_path):
    fill = reference_fill("x", "  a[______] = v;  // TODO\n", "  a[col * M + row] = v;  // done\n")
    pats = fill_patterns([fill], ["b[row * N + col] = 0;"])
    files = {"a.py": 'BLANK = "col*M+row"\n', "b.html": "<span>col</span> <span>*</span> M + row",
             "c.ipynb": '{"source": ["x = (col  *  M + row)\\n"]}', "d.md": "col * M + row0 and xcol * M + row",
             "e.txt": "  a[ col * M + row ] = v;"}
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    hits = scan_for_fills(sorted(tmp_path.iterdir()), pats, allow={})
    assert sorted(re.match(r".*/(\w\.\w+):", h)[1] for h in hits) == ["a.py", "b.html", "c.ipynb", "e.txt", "e.txt"]
    assert scan_for_fills(sorted(tmp_path.iterdir()), pats, allow={"a.py": {"x"}, "e.txt": {"x"}, "b.html": {"x"},
                                                                   "c.ipynb": {"x"}}) == []


@given(st.lists(st.sampled_from(["int", "e", "=", "tx", "*", "TILE_DIM", "+", "j", ";", "_", "1", "(", ")", " ", "\n",
                                   "\t", "x", "a"]), max_size=30),
       st.sampled_from([("int", "e", "=", "tx", "*", "TILE_DIM", "+", "j", ";"), ("tx", "*", "TILE_DIM", "+", "j"),
                        ("(", "tx", "+", "j", ")", "*", "e"), ("TILE_DIM", "+", "1"), ("e",)]))
def test_fill_regex_is_the_plain_token_pattern(parts, toks):
    """The pattern searched (its word boundary checked after the first token, for speed) finds exactly what
    the plain pattern finds: tokens with any whitespace between, no word character just before or after."""
    from grading.studentbuild.fills import _regex
    text = "".join(parts)
    head = r"(?<![\w])" if re.match(r"\w", toks[0]) else ""
    tail = r"(?![\w])" if re.match(r".*\w$", toks[-1]) else ""
    plain = re.compile(head + r"\s*".join(re.escape(t) for t in toks) + tail)
    assert [m.span() for m in _regex(toks).finditer(text)] == [m.span() for m in plain.finditer(text)]


def test_exercises_outside_the_root_count(tmp_path, monkeypatch):
    """GRADING_EXERCISES adds exercise roots, as grading.spec reads it: their hidden lines and fills count."""
    ext = tmp_path / "elsewhere" / "ext1"
    ext.mkdir(parents=True)
    (ext / "template.cu").write_text("int k = ______;\n", encoding="utf-8")
    (ext / "solution.cu").write_text("int k = warp_id * 33 + lane;\n", encoding="utf-8")
    (ext / "hidden_checks.py").write_text("SECRET_CASES = [(7, 9), (1, 1), (2, 3)]\n", encoding="utf-8")
    root = tmp_path / "course"
    root.mkdir()
    assert exercise_fills(root) == [] and hidden_snippets(root) == []
    monkeypatch.setenv("GRADING_EXERCISES", str(tmp_path / "elsewhere"))
    assert [f.fill for f in exercise_fills(root)] == ["warp_id * 33 + lane"]
    assert [line for _, line in hidden_snippets(root)] == ["SECRET_CASES = [(7, 9), (1, 1), (2, 3)]"]


def test_allow_list_names_only_real_files():
    for suffix in ALLOW_FILLS:
        assert (REPO / suffix).is_file(), f"ALLOW_FILLS names {suffix}, which does not exist"
