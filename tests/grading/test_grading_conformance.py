"""Conformance: only the blank may change; whitespace and comments are free; every other edit is found,
placed on its line and tagged with the template region it touches."""
from __future__ import annotations

import re

import pytest
from grading_testlib import fill
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grading.conformance import check_conformance
from grading.ctokens import tokenize


def conform(ex, text):
    return check_conformance(ex.template, text, blank=ex.blank, names=ex.names, regions=ex.regions,
                             value_range=ex.value_range(), rules=ex.blank_rules)


def _code_spaces(text: str) -> list[tuple[int, int]]:
    """Whitespace runs outside comments and preprocessor lines (safe places to rewrite)."""
    masked = re.sub(r"//[^\n]*\n|/\*.*?\*/|^#[^\n]*\n", lambda m: "x" * len(m.group()), text, flags=re.S | re.M)
    return [m.span() for m in re.finditer(r"[ \t\n]+", masked)]


fillers = st.sampled_from([" ", "  ", "\t", "\n", "\n\n   ", " /* 注释 */ ", " // 行注释\n", " /**/ "])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_whitespace_and_comment_edits_are_free(ex, data):
    text = fill(ex, "TILE_DIM + 1")
    spans = _code_spaces(text)
    chosen = sorted(data.draw(st.sets(st.integers(0, len(spans) - 1), max_size=12)), reverse=True)
    for i in chosen:
        a, b = spans[i]
        text = text[:a] + data.draw(fillers) + text[b:]
    c = conform(ex, text)
    assert c.edits == [] and c.blank_ok and c.value == 33 and c.blank_text == "TILE_DIM + 1"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_deleting_any_word_is_found_on_its_line(ex, data):
    text = fill(ex, "TILE_DIM + 1")
    masked = re.sub(r"//[^\n]*|^#[^\n]*", lambda m: " " * len(m.group()), text, flags=re.M)
    words = [m for m in re.finditer(r"[A-Za-z_]\w*", masked) if m.group() != "TILE_DIM" or
             m.start() != text.index("TILE_DIM + 1")]
    m = data.draw(st.sampled_from(words))
    line = text.count("\n", 0, m.start()) + 1
    edited = text[:m.start()] + text[m.end():]
    c = conform(ex, edited)
    assert c.edits, f"deleting {m.group()!r} on line {line} went unnoticed"
    assert any(abs(e.template_line - line) <= 1 for e in c.edits)


@pytest.mark.parametrize("blank,value", [("TILE_DIM + 1", 33), ("33", 33), ("TILE_DIM+3", 35), ("(TILE_DIM) + 0x1", 33)])
def test_blank_value(ex, blank, value):
    c = conform(ex, fill(ex, blank))
    assert c.blank_ok and c.value == value and not c.edits


def test_multiline_blank_is_canonicalised_and_keeps_lines(ex):
    c = conform(ex, fill(ex, "TILE_DIM\n        + 1"))
    assert c.blank_text == "TILE_DIM + 1" and c.value == 33
    assert ex.fill(c.blank_text).count("\n") == ex.template.count("\n")
    # lines after the blank moved down by one in the student's file
    read_line = ex.focus_by_id("transposed_read").line
    assert c.line_map[read_line] == read_line + 1


@pytest.mark.parametrize("edit,region", [
    (("if (row < M && col < N)", "if (row < M)"), "bounds_check"),
    (("if (row < N && col < M) {", "{"), "bounds_check"),
    (("    __syncthreads();\n", ""), "barrier"),
    (("j += BLOCK_ROWS", "j += 0"), "loop"),
    (("tile[threadIdx.x][threadIdx.y + j]", "tile[threadIdx.y + j][threadIdx.x]"), "tile_access"),
    (("dim3 block(TILE_DIM, BLOCK_ROWS);", "dim3 block(TILE_DIM, TILE_DIM);"), "launch"),
])
def test_edit_regions(ex, edit, region):
    old, new = edit
    text = fill(ex, "TILE_DIM + 1")
    assert old in text
    c = conform(ex, text.replace(old, new, 1))
    assert c.blank_ok and c.value == 33
    assert region in c.touched_regions, c.edits
    assert c.edits[0].describe(ex.region_labels)


def test_unfilled(ex):
    c = conform(ex, ex.template)
    assert c.problem_kind == "unfilled" and "______" in c.problem


@pytest.mark.parametrize("blank", ["TILE_DIM + 1]; __syncthreads(); float pwn[1", "33]; } void evil() { int a[1",
                                   "33, 2"])
def test_injection(ex, blank):
    c = conform(ex, fill(ex, blank))
    assert c.problem_kind == "injection" and "不能闭合数组再追加代码" in c.problem


def test_injection_with_other_edits_is_still_injection(ex):
    text = fill(ex, "33]; int q; float x[1").replace("    __syncthreads();\n", "")
    c = conform(ex, text)
    assert c.problem_kind == "injection"
    assert "barrier" in c.touched_regions


@pytest.mark.parametrize("blank,kind", [("TILE_DIM +", "syntax"), ("M + 1", "syntax"), ("TILE_DIM * 1000", "range"),
                                        ("0", "range"), ("-33", "range")])
def test_bad_blanks(ex, blank, kind):
    c = conform(ex, fill(ex, blank))
    assert c.problem_kind == kind and c.problem


def test_unrelated_source(ex):
    c = conform(ex, "int main() { return 0; }\n")
    assert c.problem_kind == "unrelated"


# ---- an index-expression blank ([blank_rules] kind = "expression"), as a 1-D access-pattern exercise has ----

INDEX_TEMPLATE = """constexpr int STRIDE = 2;
__global__ void k(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = x[______];
    }
}
"""


def test_expression_blank_takes_any_expression_without_a_value():
    from grading.conformance import BlankRules
    rules = BlankRules.from_config({"kind": "expression", "unfilled": "把 `{blank}` 换成下标表达式。"})
    ok = check_conformance(INDEX_TEMPLATE, INDEX_TEMPLATE.replace("______", "(i * STRIDE) % n"), blank="______",
                           names={"STRIDE": 2}, rules=rules)
    assert ok.blank_ok and ok.value is None and ok.blank_text == "( i * STRIDE ) % n"
    unfilled = check_conformance(INDEX_TEMPLATE, INDEX_TEMPLATE, blank="______", names={}, rules=rules)
    assert unfilled.problem == "把 `______` 换成下标表达式。"
    escape = check_conformance(INDEX_TEMPLATE, INDEX_TEMPLATE.replace("______", "i]; y[0"), blank="______",
                               names={}, rules=rules)
    assert escape.problem_kind == "injection" and "`]`" in escape.problem


def test_blank_rules_refuse_unknown_keys_and_kinds():
    from grading.conformance import BlankRules
    with pytest.raises(ValueError, match="unknown keys"):
        BlankRules.from_config({"unfiled": "typo"})
    with pytest.raises(ValueError, match="kind"):
        BlankRules.from_config({"kind": "regex"})
    assert BlankRules.from_config({"range": [1, 4]}) == BlankRules()       # the range is the exercise's


# ---- edits next to the blank and repeated tokens ----------------------------------------------------------

GUARDED = """__global__ void k(const float* x, float* y, int n) {
    __shared__ float s[32];
    int i = threadIdx.x;
    s[i] = (i < n) ? x[______] : 0.0f;
    __syncthreads();
    y[i] = s[31 - i];
}
"""


def _regions():
    from grading.conformance import Region
    return [Region("guard", "守卫", frozenset({4})), Region("barrier", "屏障", frozenset({5}))]


def test_a_deleted_line_is_placed_on_that_line_not_the_one_before():
    """``x;`` then ``__syncthreads();``: the deletion may align as ``; __syncthreads ( )``; it is reported on the
    barrier's line and touches the barrier only."""
    from grading.conformance import BlankRules
    text = GUARDED.replace("______", "i").replace("    __syncthreads();\n", "")
    c = check_conformance(GUARDED, text, blank="______", names={}, regions=_regions(),
                          rules=BlankRules(kind="expression"))
    assert c.blank_ok and c.blank_text == "i"
    assert [(e.op, e.old, e.template_line, e.regions) for e in c.edits] == [
        ("delete", "__syncthreads();", 5, ("barrier",))]


@pytest.mark.parametrize("blank", ["i", "(i + 1) % n", "n - 1 - i"])
def test_a_guard_deleted_around_the_blank_keeps_the_blank(blank):
    """Deleting the guard on the blank's own line lends the blank's tokens to the alignment; the blank is still
    found, and the edits are the guard's tokens only."""
    from grading.conformance import BlankRules
    text = GUARDED.replace("(i < n) ? x[______] : 0.0f", f"x[{blank}]")
    c = check_conformance(GUARDED, text, blank="______", names={}, regions=_regions(),
                          rules=BlankRules(kind="expression"))
    assert c.blank_ok and c.blank_text == " ".join(t.text for t in tokenize(blank))
    assert {e.old for e in c.edits} == {"(i < n) ?", ": 0.0f"} and c.touched_regions == {"guard"}


def test_an_unfilled_blank_with_its_guard_deleted_is_still_unfilled():
    from grading.conformance import BlankRules
    c = check_conformance(GUARDED, GUARDED.replace("(i < n) ? x[______] : 0.0f", "x[______]"), blank="______",
                          names={}, regions=_regions(), rules=BlankRules(kind="expression"))
    assert c.problem_kind == "unfilled" and c.touched_regions == {"guard"}


def test_two_one_token_edits_on_a_line_name_their_neighbours():
    """Issue 25 item 6: "row < M" and "col < N" both made "<=" read as two different edits, not one repeated."""
    from grading.spec import load_exercise
    ex = load_exercise("p2")
    src = ex.solution_path.read_text(encoding="utf-8").replace("row < M && col < N", "row <= M && col <= N")
    c = check_conformance(ex.template, src, blank=ex.blank, names=ex.names, regions=ex.regions,
                          rules=ex.blank_rules)
    said = [e.describe(ex.region_labels) for e in c.edits]
    assert len(said) == 2 and len(set(said)) == 2
    assert "`row < M` 改成了 `row <= M`" in said[0] and "`col < N` 改成了 `col <= N`" in said[1]
