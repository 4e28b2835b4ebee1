"""Lesson 10's exercise beyond what every exercise is checked for (test_grading_exercises.py): the hidden
shapes it promises, the float32 tolerance, the probe's diagnosis of wrong indices, the right-by-luck veto's
message, hidden inputs kept from students, the check cell on a kernel with a barrier removed, the questions
and rubric against the recorded H200 data, and a student kit without the answer."""
from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest
from grading_testlib import CORPORA, graded, needs_cuda
from hypothesis import given, settings
from hypothesis import strategies as st

from grading.ctokens import tokenize
from grading.grade import Options, grade_submission
from grading.spec import load_exercise

REPO = Path(__file__).resolve().parents[2]
CORPUS = CORPORA / "lesson10"
GEMM = REPO / "measurements" / "h200" / "gemm" / "results.json"


@pytest.fixture(scope="module")
def ex10():
    return load_exercise("lesson10")


def grade(ex, path):
    return graded(path, ex)


def hidden_shapes(res) -> list[tuple[str, int, int, int]]:
    out = []
    for c in res.instructor.get("cases", []):
        m, n, k = re.search(r"(\d+)x(\d+)x(\d+)", c).groups()
        out.append((c.split()[0], int(m), int(n), int(k)))
    return out


def test_the_kernel_is_the_leads(ex10):
    """template.cu and solution.cu differ only in the blank (and its TODO comment): the B tile's index."""
    sol = ex10.solution_path.read_text(encoding="utf-8")
    assert _token_runs(sol) == _token_runs(ex10.template.replace("______", "(t + ty) * N + col"))
    assert sol.count("\n") == ex10.template.count("\n")


@needs_cuda
def test_hidden_cases_cover_the_promised_shapes(ex10):
    shapes = hidden_shapes(grade(ex10, ex10.solution_path))
    kind = lambda prefix: [(m, n, k) for cid, m, n, k in shapes if cid.startswith(prefix)]  # noqa: E731
    assert len(kind("square")) >= 3 and all(m == n == k and m % 16 == 0 for m, n, k in kind("square"))
    nonsquare = kind("nonsquare")
    assert len(nonsquare) >= 4 and all((n != k or m != n) and m % 16 == n % 16 == k % 16 == 0
                                       for m, n, k in nonsquare)
    assert any(n < k for _, n, k in nonsquare) and any(n > k for _, n, k in nonsquare), "both orientations"
    assert any(n == k != m for m, n, k in nonsquare), "N = K ≠ M: a pitch of K right, a pitch of M wrong"
    boundary = [(m, n, k) for cid, m, n, k in shapes if not cid.startswith(("square", "nonsquare", "race"))]
    assert (1, 1, 1) in boundary
    assert any(1 < k < 16 for _, _, k in boundary), "K < TILE"
    assert any(m % 16 and n % 16 and k % 16 and n != k for m, n, k in boundary), "all three ragged, N ≠ K"
    assert any(n == 1 < m for m, n, _ in boundary) and any(m == 1 < n for m, n, _ in boundary)
    assert kind("race"), "race cases under the adversarial schedule"


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 300), seed=st.integers(0, 2**32 - 1))
def test_tolerance_admits_any_summation_order_and_no_missing_product(k, seed):
    """Any order of float32 additions stays within the bound; dropping the largest product does not."""
    from grading.exercises.lesson10.exercise import tolerance
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((1, k)).astype(np.float32)
    b = rng.standard_normal((k, 1)).astype(np.float32)
    exact = float((a.astype(np.float64) @ b.astype(np.float64))[0, 0])
    want = np.float32(exact)
    tol = tolerance(a, b)
    products = (a[0] * b[:, 0]).astype(np.float32)
    for order in (np.arange(k), np.arange(k)[::-1], rng.permutation(k)):
        acc = np.float32(0)
        for i in order:
            acc = np.float32(acc + products[i])
        assert abs(float(acc) - float(want)) <= tol
    # a wrong index drops or swaps whole products: the largest is far outside the bound
    assert float(np.abs(products).max()) > tol


@needs_cuda
@pytest.mark.parametrize("name,index,pattern", [
    # the first wrong load the probe finds (t, ty, col), its flat index computed here from the wrong formula
    ("fails_right_by_luck_stride_k.cu", lambda t, ty, col: (t + ty) * 32 + col, "ty 每加 1，你的下标在 B 里前进 32 个元素"),
    ("fails_row_from_tx.cu", lambda t, ty, col: (t + col % 16) * 48 + col, "行号跟着 tx 走了"),
    ("fails_missing_tile_offset.cu", lambda t, ty, col: ty * 48 + col, "下标没有随 t 前进"),
    ("fails_right_by_luck_stride_m.cu", lambda t, ty, col: (t + ty) * 16 + col, "ty 每加 1，你的下标在 B 里前进 16 个元素"),
    ("fails_transposed_b.cu", lambda t, ty, col: col * 32 + t + ty, "列主序"),
])
def test_probe_names_the_wrong_load_and_its_pattern(ex10, name, index, pattern):
    res = grade(ex10, CORPUS / name)
    out = next(t for t in res.tests if t.id == "public_probe").output
    m = re.search(r"t = (\d+) 时 block \((\d+), 0\) 的线程 \(tx = (\d+), ty = (\d+)\) 搬进 Bs\[\d+\]\[\d+\] 的是 B\[(\d+)\]",
                  out)
    assert m, out
    t, bx, tx, ty, got = (int(v) for v in m.groups())
    col = bx * 16 + tx
    assert got == index(t, ty, col) and got != (t + ty) * 48 + col          # the probe's N is 48
    assert f"第 {got // 48} 行第 {got % 48} 列" in out and pattern in out
    # the probe shows what was loaded and leaves the conclusion (the row pitch is N) to the student
    if "stride_k" in name:
        assert "碰巧正确" not in out and "一行有 N" not in out


@needs_cuda
def test_stride_k_is_vetoed_with_its_cause(ex10):
    res = grade(ex10, CORPUS / "fails_right_by_luck_stride_k.cu")
    (veto,) = [v for v in res.vetoes if v.id == "right_by_luck"]
    # the cause comes from the probes (the pitch the index uses), never from which groups passed
    assert "下标前进 32、16 个元素，正是 K（A 的列数）" in veto.reason and "只有 N = K 时两者相同" in veto.reason
    assert "B 是 K 行 N 列" in veto.reason
    public = next(t for t in res.tests if t.id == "public_nonsquare")
    # 32×48×64: (t + ty) * K + col reaches K·N = 3072, named by row and column of the K×N host array
    assert "越界" in public.output and re.search(r"B\[(64\]\[0\] \(flat index 3072\)|3072\])", public.output)


@needs_cuda
def test_student_visible_text_never_shows_hidden_inputs(ex10):
    from grading.report import feedback_markdown
    public = {(c.M, c.N, c.K) for k in ex10.public_module.cases().values() for c in k}
    for name in ("fails_right_by_luck_stride_k.cu", "fails_row_from_tx.cu", "fails_right_by_luck_grid_pitch.cu"):
        res = grade(ex10, CORPUS / name)
        visible = json.dumps(res.to_gradescope(), ensure_ascii=False) + feedback_markdown(res)
        for _, m, n, k in hidden_shapes(res):
            if (m, n, k) in public or 1 in (m, n, k):          # 1×1×1, 1×N, N×1: named by the checks
                continue
            for form in (f"{m}x{n}x{k}", f"{m}×{n}×{k}"):
                assert form not in visible, (name, form)
        for t in res.tests:
            if t.hidden:
                assert re.fullmatch(r"[^：]+：\d+/\d+(（[^）]*）)?(；[^：]*)?", t.output), t.output


@needs_cuda
@pytest.mark.parametrize("name,kind", [("fails_conformance_first_barrier_removed.cu", "RAW"),
                                       ("fails_conformance_second_barrier_removed.cu", "WAR")])
def test_check_cell_shows_the_race_of_a_removed_barrier(ex10, name, kind, tmp_path, capsys):
    """Graded on the template (both barriers), but the check cell runs the edited kernel on labsim: the race
    the removed barrier allowed, with its two source lines, and a wrong C under the adversarial schedule."""
    from grading import check
    p = tmp_path / ex10.target_name
    p.write_text((CORPUS / name).read_text(encoding="utf-8"), encoding="utf-8")
    rep = check(p)
    out = capsys.readouterr().out
    assert rep.ok and "不会被评分" in out
    lines = [ln for ln in out.splitlines() if ln.strip().startswith(kind + " __shared__")]
    assert lines and re.search(r"第 \d+ 行 “.*Bs\[", lines[0]), out
    assert re.search(r"对抗调度[^\n]*输出有 [1-9]\d* 个元素与参考答案不同", out), out


def test_questions_are_the_rubrics_and_the_rubric_matches_the_h200_record(ex10):
    questions = tomllib.loads((ex10.folder / "questions.toml").read_text(encoding="utf-8"))
    rubric = tomllib.loads((ex10.folder / "rubric.toml").read_text(encoding="utf-8"))
    assert set(questions) == {m.id for m in ex10.manual}
    for item in ex10.manual:
        assert rubric[item.id]["question"] == questions[item.id]["question"]
        assert rubric[item.id]["points"] == item.points
    assert sum(m.points for m in ex10.manual) == 7
    # the reference answers' numbers, derived here: Q2 (a 2×2 block per thread, 32×32 C, K step 16), Q3 (padding
    # that keeps LDS.128 for Bs[tx][k] at TILE 32), against labsim and the H200's recorded column-layout loads
    from figures import lesson10
    q2, q3 = " ".join(rubric["Q2"]["elements"]), " ".join(rubric["Q3"]["elements"])
    assert f"32×16 + 16×32 = {32 * 16 + 16 * 32} 个 float" in q2 and f"{2 * 64 // (4 * (64 // 16))} FLOP/字节" in q2
    assert "峰值的 1/4" in q2 and "为 1/6" in q2
    wf0 = lesson10.explorer_view(32, 0, "b_col", 0, 16)["wavefronts"]
    wf4 = lesson10.explorer_view(32, 4, "b_col", 0, 16)["wavefronts"]
    rec = json.loads(GEMM.read_text(encoding="utf-8"))["counters"]["64x64x64"]["gemm_tiled32_bt"]
    a_wf = 2 * 2048                                     # As: 2048 LDS.128 at 2 wavefronts (the row layout's)
    assert (rec["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] - a_wf) // 2048 == wf0   # H200: Bs LDS.128
    assert f"一条 LDS.128 {wf0} 个 wavefront" in q3 and f"p = 4 每组 1 拍、{wf4} 个 wavefront" in q3
    assert f"{lesson10.explorer_view(32, 4, 'store_t', 0)['wavefronts']} 路冲突" in q3
    assert "= 1.5" in q3 and lesson10.time_rows(("gemm_tiled32_bt_pad4",))[0]["ld_per_ffma"] == 1.5


def _token_runs(text: str) -> str:
    return " ".join(t.text for t in tokenize(text))


def test_student_kit_ships_public_checks_and_questions_without_the_answer(ex10, tmp_path):
    from grading.studentbuild import build
    build(tmp_path, ("lesson10",))
    folder = tmp_path / "grading" / "exercises" / "lesson10"
    shipped = {p.name for p in folder.iterdir() if p.is_file()}
    assert {"template.cu", "public_checks.py", "common.py", "exercise.py", "config.toml", "questions.toml"} <= shipped
    assert not {"hidden_checks.py", "solution.cu", "rubric.toml"} & shipped
    config = tomllib.loads((folder / "config.toml").read_text(encoding="utf-8"))
    assert "bench" not in config and "instructor_secret" not in config
    # no right index in any shipped file, however it is spelled (tokens, whitespace and order of the sum)
    answers = [_token_runs(s) for s in ("(t + ty) * N + col", "col + (t + ty) * N", "(ty + t) * N + col",
                                        "N * (t + ty) + col", "(t + ty) * N")]
    for p in tmp_path.rglob("*"):
        if p.is_file() and p.suffix in (".py", ".cu", ".toml", ".md", ".txt", ".json"):
            text = _token_runs(p.read_text(encoding="utf-8", errors="replace"))
            for a in answers:
                assert a not in text, (p, a)


def test_the_lesson_shows_the_canonical_questions(ex10):
    """The notebook's question cells carry questions.toml's text verbatim (the rubric grades that question)."""
    lesson = REPO / "lessons" / "lesson10_gemm_tiled.qmd"
    text = lesson.read_text(encoding="utf-8") if lesson.is_file() else ""
    if "### Q1" not in text:
        pytest.skip("lesson 10 has no question cells yet")
    questions = tomllib.loads((ex10.folder / "questions.toml").read_text(encoding="utf-8"))
    for item, q in questions.items():
        assert q["question"] in text, item


@pytest.mark.parametrize("edit,changes", [("common.py", True), ("exercise.py", True), ("public_checks.py", True),
                                          ("hidden_checks.py", False), ("rubric.toml", False),
                                          ("config.toml", False)])   # a comment: nothing the check prints
def test_receipts_follow_every_module_the_public_checks_import(ex10, tmp_path, edit, changes):
    """A receipt's tool hash changes with what the public check prints from (lesson 10's messages live in
    common.py), and not with what only the grader reads."""
    import shutil
    copies = []
    for name in ("a", "b"):
        d = tmp_path / name / "lesson10"
        shutil.copytree(ex10.folder, d, ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(d)
    p = copies[1] / edit
    p.write_text(p.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    a, b = (load_exercise(d).fingerprint() for d in copies)
    assert (a != b) == changes


def test_receipts_follow_the_config_the_check_prints_from(ex10, tmp_path):
    """A focus label is printed by the check: changing it changes the receipt's tool hash; stripping the
    instructor secret and [bench] (as the student build does) does not."""
    import shutil

    from grading.studentbuild.strip_config import strip_keys, strip_tables
    copies = []
    for name in ("a", "b", "c"):
        d = tmp_path / name / "lesson10"
        shutil.copytree(ex10.folder, d, ignore=shutil.ignore_patterns("__pycache__"))
        copies.append(d)
    cfg = copies[1] / "config.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('label = "读 B 的 tile"', 'label = "读 B"'), encoding="utf-8")
    cfg = copies[2] / "config.toml"
    cfg.write_text(strip_tables(strip_keys(cfg.read_text(encoding="utf-8"))), encoding="utf-8")
    a, b, c = (load_exercise(d).fingerprint() for d in copies)
    assert a != b and a == c


@needs_cuda
def test_a_notebook_with_its_check_output_is_verified_and_a_changed_blank_is_not(ex10, tmp_path, capsys):
    """The check output saved with the code that printed it verifies (receipt ok, no veto); the same output
    kept after the blank changed to the stride-K index is output its code does not produce."""
    from nbmaker import notebook, write

    from grading import check
    code = ex10.solution_path.read_text(encoding="utf-8")
    p = tmp_path / ex10.target_name
    p.write_text(code, encoding="utf-8")
    check(p)
    printed = capsys.readouterr().out
    kw = dict(target=ex10.config["target"], title=ex10.config["title"])
    answers = {q: f"我的 {q} 回答：因为……所以……" for q in ("explanation", "Q1", "Q2", "Q3")}
    res = grade(ex10, write(notebook(code, answers=answers, check_output=printed, **kw), tmp_path / "ok.ipynb"))
    assert res.instructor["receipt"] == "ok" and not res.vetoes and res.score == 3
    assert all(f"我的 {m.id} 回答" in t.output for m in ex10.manual for t in res.tests if t.id == f"manual_{m.id}")
    stale = code.replace("(t + ty) * N + col", "(t + ty) * K + col")
    res = grade(ex10, write(notebook(stale, answers=answers, check_output=printed, **kw), tmp_path / "stale.ipynb"))
    assert {v.id for v in res.vetoes} == {"unrun_output", "right_by_luck", "out_of_bounds"}
