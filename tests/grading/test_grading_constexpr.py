"""The blank's evaluator against an independent reference: random expression trees evaluated directly
with C semantics (int32, truncating / and %), rendered to C text and parsed by grading.constexpr."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.constexpr import ConstExprError, constexpr_names, evaluate

NAMES = {"TILE_DIM": 32, "BLOCK_ROWS": 8}
INT_MIN, INT_MAX = -(2**31), 2**31 - 1


class Overflow(Exception):
    pass


def c_eval(tree) -> int:
    """Reference: evaluate a tree of ("lit", v) / ("name", n) / (op, a, b) / ("neg", a) with int32 rules."""
    kind = tree[0]
    if kind == "lit":
        return tree[1]
    if kind == "name":
        return NAMES[tree[1]]
    if kind == "neg":
        v = -c_eval(tree[1])
    else:
        a, b = c_eval(tree[1]), c_eval(tree[2])
        if kind == "+":
            v = a + b
        elif kind == "-":
            v = a - b
        elif kind == "*":
            v = a * b
        elif kind in ("/", "%"):
            if b == 0:
                raise Overflow
            q = int(a / b) if abs(a) < 2**52 else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)
            v = q if kind == "/" else a - q * b
        elif kind == "<<":
            if not 0 <= b < 32 or a < 0:
                raise Overflow
            v = a << b
        elif kind == ">>":
            if not 0 <= b < 32:
                raise Overflow
            v = a >> b
        else:
            raise AssertionError(kind)
    if not INT_MIN <= v <= INT_MAX:
        raise Overflow
    return v


def render(tree, rng_fmt) -> str:
    kind = tree[0]
    if kind == "lit":
        v = tree[1]
        return {"dec": str(v), "hex": hex(v), "oct": "0" + oct(v)[2:] if v else "0", "bin": bin(v)}[rng_fmt]
    if kind == "name":
        return tree[1]
    if kind == "neg":
        return f"-({render(tree[1], rng_fmt)})"
    return f"({render(tree[1], rng_fmt)} {kind} {render(tree[2], rng_fmt)})"


leaves = st.one_of(st.tuples(st.just("lit"), st.integers(0, 5000)),
                   st.tuples(st.just("name"), st.sampled_from(sorted(NAMES))))
trees = st.recursive(leaves, lambda sub: st.one_of(
    st.tuples(st.sampled_from(["+", "-", "*", "/", "%", "<<", ">>"]), sub, sub),
    st.tuples(st.just("neg"), sub)), max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(trees, st.sampled_from(["dec", "hex", "oct", "bin"]))
def test_matches_c_semantics(tree, fmt):
    text = render(tree, fmt)
    try:
        expected = c_eval(tree)
    except Overflow:
        with pytest.raises(ConstExprError):
            evaluate(text, NAMES)
        return
    assert evaluate(text, NAMES) == expected


@pytest.mark.parametrize("text,value", [
    ("TILE_DIM + 1", 33), ("33", 33), ("0x21", 33), ("041", 33), ("0b100001", 33), ("3'3", 33),
    ("33u", 33), ("33L", 33), ("TILE_DIM > 8 ? TILE_DIM + 1 : 0", 33), ("!0 + TILE_DIM", 33),
    ("~-34", 33), ("-7 / 2", -3), ("-7 % 2", -1), ("4294967295u + 2u", 1), ("BLOCK_ROWS * 4 + 1", 33),
    # C++ forms beyond the arithmetic subset (issue 14): sizeof/alignof, casts, floating literals under casts
    ("sizeof(float) * 8 + 1", 33), ("sizeof(int) * BLOCK_ROWS + 1", 33), ("TILE_DIM + sizeof(char)", 33),
    ("sizeof TILE_DIM * 8 + 1", 33), ("sizeof(TILE_DIM + 1LL) * 4 + 1", 33), ("sizeof(1 / 0) + 29", 33),
    ("sizeof(std::size_t) * 4 + 1", 33), ("alignof(double) * 4 + 1", 33), ("sizeof(unsigned short) + 31", 33),
    ("(int)33.7", 33), ("(int)-33.7", -33), ("static_cast<int>(32.9f) + 1", 33), ("int(33)", 33),
    ("(int)(0.29 * 100) + 5", 33),          # IEEE double: 0.29 * 100 = 28.999999999999996
    ("(unsigned char)289", 33), ("(short)65569", 33), ("(bool)7 + TILE_DIM", 33), ("TILE_DIM + true", 33),
    ("'!'", 33), ("' ' + 1", 33), ("(unsigned)-1 > 0 ? 33 : 0", 33), ("-1 < 0u ? 0 : 33", 33),
    ("- " * 1000 + "33", 33), ("~ " * 998 + "~-34", 33), ("!" * 1001 + "0 + 32", 33),
    ("(" * 99 + "33" + ")" * 99, 33), ("+".join(["1"] * 33), 33), ("(1, 33)", 33), ("(TILE_DIM, 0) + 33", 33),
])
def test_examples(text, value):
    assert evaluate(text, NAMES) == value


@pytest.mark.parametrize("text,fragment", [
    ("", "空"), ("33 +", "不完整"), ("M + 1", "`M`"), ("33]", "`]`"),
    ("2147483647 + 1", "溢出"), ("TILE_DIM / 0", "除以零"), ("1 << 40", "移位"), ("33.0", "浮点数"),
    ("(33", "`)`"), ("\"33\"", "不能出现"), ("33 33", "多出"), ("0x", "不是整数字面量"),
    ("9" * 5000, "太大"), ("0x" + "f" * 3000, "太大"), ("TILE_DIM\0", "不能出现"), ("Ｔ + 1", "`Ｔ`"),
    ("x" * 100_000, "不能用在这里"), ("--33", "`--`"), ("(int)1e30", "超出范围"), ("33.5 % 2", "浮点数"),
    ("sizeof(tile)", "`tile`"), ("TILE_DIM(3)", "多出"),
])
def test_rejections_name_the_problem(text, fragment):
    with pytest.raises(ConstExprError) as e:
        evaluate(text, NAMES)
    assert fragment in e.value.message and not e.value.undecidable
    assert len(e.value.message) < 300          # long tokens are clipped, not echoed


@pytest.mark.parametrize("text", ["(" * 150 + "33" + ")" * 150, "(" * 5000 + "33" + ")" * 5000,
                                  "1 ? " * 300 + "33" + " : 0" * 300, "0 ? 0 : " * 300 + "33",
                                  "std::max(32, 33)", "max(32, 33) + 0", "::TILE_DIM + 1",
                                  "(int)" * 200 + "33", "sizeof(" * 150 + "1" + ")" * 150])
def test_undecidable_is_said_not_scored(text):
    """Beyond what the evaluator follows (calls of constexpr functions, very deep nesting): it says so."""
    with pytest.raises(ConstExprError) as e:
        evaluate(text, NAMES)
    assert e.value.undecidable and "判断" in e.value.message or "不再往下算" in e.value.message


def test_error_points_at_token():
    with pytest.raises(ConstExprError) as e:
        evaluate("TILE_DIM + foo", NAMES)
    assert (e.value.token.line, e.value.token.col) == (1, 12)


def test_template_names_are_read_from_source():
    src = "constexpr int A = 4;\nconstexpr int B = A * 2 + 1;  // uses A\nint c = 3;"
    assert constexpr_names(src) == {"A": 4, "B": 9}


@pytest.mark.parametrize("text,value", [("TILE_DIM + \\\n1", 33), ("3\\\n3", 33), ("TILE_\\\nDIM + 1", 33),
                                        ("TILE_DIM + 1\\\r\n", 33), ("0x2\\\n1", 33)])
def test_line_splices_are_removed_before_tokenizing(text, value):
    assert evaluate(text, NAMES) == value


def test_splices_keep_original_places():
    from grading.ctokens import tokenize
    toks = tokenize("int a = 3\\\n3;\nint b = q;")
    assert [(t.text, t.line) for t in toks] == [("int", 1), ("a", 1), ("=", 1), ("33", 1), (";", 2),
                                                  ("int", 3), ("b", 3), ("=", 3), ("q", 3), (";", 3)]
    assert toks[-2].col == 9
