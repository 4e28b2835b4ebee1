"""The public check a student's check cell runs: verdict, per-line counters, heatmap, receipt, no exceptions."""
from __future__ import annotations

import numpy as np
import pytest
from grading_testlib import SUBMISSIONS, fill, needs_cuda

from grading import check
from grading.checkcell import CheckReport


def write(tmp_path, text):
    p = tmp_path / "09_transpose_tiled.cu"
    p.write_text(text, encoding="utf-8")
    return p


def test_reference_passes_and_says_hidden_checks_remain(ex, tmp_path, capsys):
    rep = check(write(tmp_path, fill(ex, "TILE_DIM + 1")))
    out = capsys.readouterr().out
    assert isinstance(rep, CheckReport) and rep.ok
    assert "公开检查全部通过" in out and "隐藏检查" in out
    assert "全部测试通过" not in out and "all tests passed" not in out.lower()
    assert rep.receipt and rep.receipt in out


def test_counters_per_line_with_read_line_marked(ex, tmp_path, capsys):
    # two extra comment lines before the kernel: the report speaks in the student's line numbers
    text = "// 我的笔记\n// 第二行\n" + fill(ex, "TILE_DIM + 1")
    rep = check(write(tmp_path, text), quiet=True)
    reads = [c for c in rep.counters if c.focus]
    assert len(reads) == 1
    read = reads[0]
    read_line = ex.focus_by_id("transposed_read").line
    assert read.focus == "转置读" and read.line == read_line + 2 and read.template_line == read_line
    assert "tile[threadIdx.x][threadIdx.y + j]" in read.source
    # independent count: a 64×96 input, block 32×8, 4 iterations: one shared load per warp per iteration
    M, N = 64, 96
    warps = ((N + 31) // 32) * ((M + 31) // 32) * 8 * 4
    assert read.metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == warps
    assert read.metrics.get("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0) == 0
    assert all(k.startswith(("l1tex__", "smsp__")) for c in rep.counters for k in c.metrics)


@pytest.mark.parametrize("ld", [32, 33, 34])
def test_heatmap_is_the_students_transposed_read(ex, tmp_path, ld):
    rep = check(write(tmp_path, fill(ex, str(ld))), quiet=True)
    wa = rep.heatmap
    assert wa is not None and wa.space == "shared" and wa.op == "ld" and wa.line == ex.focus_by_id("transposed_read").line
    # brute force: lane k of warp 0 reads tile[k][0] -> word k*ld
    expected = np.array([(k * ld) % 32 for k in range(32)])
    assert np.array_equal(np.asarray(wa.banks), expected)
    m = wa.bank_matrix()
    assert m.shape == (32, 32) and m.sum() == 32


@pytest.mark.parametrize("blank,words", [("______", ["还没有填写"]), ("TILE_DIM +", ["不是合法的整数常量表达式"]),
                                         ("33]; int x[1", ["不能闭合数组"])])
def test_student_mistakes_give_friendly_messages(ex, tmp_path, capsys, blank, words):
    rep = check(write(tmp_path, fill(ex, blank)))       # no simulator needed: caught before running
    out = capsys.readouterr().out
    assert not rep.ok and rep.heatmap is None and rep.receipt   # every printed verdict is bound by a receipt
    for w in words:
        assert w in out and w in rep.markdown()


def test_missing_file(tmp_path, capsys):
    rep = check(tmp_path / "09_transpose_tiled.cu")      # the exercise is found by the target's file name
    assert not rep.ok and "先运行上面的练习单元格" in capsys.readouterr().out


def test_edits_outside_blank_are_reported(ex, tmp_path):
    rep = check(write(tmp_path, (SUBMISSIONS / "fails_conformance_syncthreads_removed.cu").read_text()), quiet=True)
    assert any("__syncthreads" in n for n in rep.notes)


def test_reprs(ex, tmp_path):
    rep = check(write(tmp_path, fill(ex, "TILE_DIM + 2")), quiet=True)
    assert "ok=False" in repr(rep)
    md = rep.markdown()
    assert "✗" in md and "❌" not in md and "◀ 转置读" in md and "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" in md


@needs_cuda
def test_edited_version_runs_as_written_but_the_verdict_is_template_plus_blank(ex, tmp_path):
    from grading.checkcell import EDITED_TITLE
    template_plus_blank = fill(ex, "TILE_DIM + 1")
    lines = template_plus_blank.splitlines()
    sync = next(i for i, ln in enumerate(lines) if "__syncthreads" in ln)
    edited = "\n".join(lines[:sync] + lines[sync + 1:]) + "\n"
    honest = check(write(tmp_path, template_plus_blank), quiet=True)
    rep = check(write(tmp_path, edited), quiet=True)
    # graded verdict: that of template + blank (all public checks pass), the edit only reported
    assert rep.ok and [c.status for c in rep.checks] == [c.status for c in honest.checks]
    assert not honest.edited and EDITED_TITLE not in honest.text()
    text = rep.text()
    assert EDITED_TITLE in text and rep.edited[0].startswith(EDITED_TITLE)
    shown = "\n".join(rep.edited)
    # a race names both source lines of the edited file: the tile store and the transposed read
    edited_lines = edited.splitlines()
    store = next(i for i, ln in enumerate(edited_lines, 1) if "tile[threadIdx.y + j][threadIdx.x] =" in ln)
    load = next(i for i, ln in enumerate(edited_lines, 1) if "= tile[threadIdx.x][threadIdx.y + j]" in ln)
    assert f"第 {store} 行" in shown and f"第 {load} 行" in shown and "RAW" in shown
    # without the barrier the adversarial order reads tile elements before they are written
    adv = next(ln for ln in rep.edited if "对抗调度" in ln)
    assert "个元素与参考答案不同" in adv
    # the receipt binds the edited section too (it is part of what the check printed)
    assert text.index(EDITED_TITLE) < text.index("运行凭据")


@needs_cuda
def test_edited_version_reports_out_of_bounds(ex, tmp_path):
    src = fill(ex, "TILE_DIM + 1").replace("if (row < N && col < M) {", "if (true) {")
    rep = check(write(tmp_path, src), quiet=True)
    assert any("越界" in ln for ln in rep.edited), rep.edited


@needs_cuda
def test_html_source_view_rows_carry_the_read_lines_counters(ex, tmp_path):
    import re
    src = fill(ex, "TILE_DIM")            # no padding: the transposed read is a 32-way bank conflict
    rep = check(write(tmp_path, src), quiet=True)
    page = rep.html()
    case = ex.public_module.cases()[next(iter(ex.public_module.cases()))][0]
    # derived by hand from the launch: one request per warp per j-iteration (TILE_DIM / BLOCK_ROWS = 4)
    blocks = -(-case.M // 32) * -(-case.N // 32)
    requests = blocks * (32 * 8 // 32) * 4
    read = next(i for i, ln in enumerate(src.splitlines(), 1) if "= tile[threadIdx.x][threadIdx.y + j]" in ln)
    rows = re.findall(rf"<tr[^>]*data-line='{read}'[^>]*>(.*?)</tr>", page, re.S)
    assert rows, f"no row for line {read}"
    heads = re.findall(rf"<tr[^>]*data-line='{read}'[^>]*>", page)
    assert all("lc-focus" in h for h in heads)                           # the focus line is framed
    cells = {}
    for row in rows:                                                     # one row per instruction
        for k, v in re.findall(r"<td class='(what|req|sec|wf|conf|map)'[^>]*>(.*?)</td>", row, re.S):
            cells.setdefault(k, []).append(v)
    assert any("◀ 转置读" in w for w in cells["what"])
    assert cells["req"] == [str(requests)] * 2                           # the shared load and the global store
    assert "32" in cells["wf"]                                           # all 32 lanes in bank 0
    assert str(31 * requests) in cells["conf"]
    assert "4" in cells["sec"]                                           # 32 contiguous floats: 4 sectors
    assert any("lane 0..31 → bank：" + " ".join(["0"] * 32) in w for w in cells["map"])
    # lines without memory instructions have empty counters; the plain text stays as before
    assert "<details" in page and "<script" not in page and "http" not in page
    assert "<tr" not in rep.text() and rep.text().splitlines()[-1] == rep.receipt
def test_shape_runs_the_students_kernel_on_that_shape(ex, tmp_path):
    """check(shape=(M, N)): a verdict for that shape after the receipt; the receipt binds the public cases."""
    path = write(tmp_path, fill(ex, "TILE_DIM + 1"))
    plain = check(path, quiet=True)
    rep = check(path, shape=(65, 45), quiet=True)
    assert rep.shape_lines[0] == "你指定的 65×45 输入结果正确。"
    assert rep.receipt == plain.receipt and rep.body_lines() == plain.body_lines()
    assert rep.text().endswith("\n".join(rep.shape_lines))
    # 65x45: the 45x65 output is written by row pieces of at most 32 floats, 3 requests per output row
    store = [x for x in rep.shape_lines[1:] if "sector" in x]
    assert not store or all("个请求" in x for x in store)
    same = check(path, shape={"N": 45, "M": 65}, quiet=True)
    assert same.shape_lines == rep.shape_lines
    wrong = check(write(tmp_path, fill(ex, "31")), shape=(65, 45), quiet=True)
    assert "运行出错" in wrong.shape_lines[0] or "结果错误" in wrong.shape_lines[0]


def test_shape_that_is_not_positive_sizes_is_a_message(ex, tmp_path):
    path = write(tmp_path, fill(ex, "TILE_DIM + 1"))
    for bad in ((0, 45), (3,), "65x45", (2.5, 3), (4096, 4096), {"M": 3}, {"M": 3, "K": 4}):
        rep = check(path, shape=bad, quiet=True)
        assert "shape" in rep.shape_lines[0] and len(rep.shape_lines) == 1 and rep.ok
