"""figures.lessonkit's table plumbing (outcome_table, race_table, racecheck_table) on toy CUDA kernels run by
labsim.cuda: the expected counts come from numpy and brute force, never from the code under test."""
from __future__ import annotations

import re

import numpy as np
import pytest

from figures import lessonkit as kit

SCALE = """\
__global__ void scale(const float* x, float* y, int n, int limit) {
    int i = blockIdx.x * 32 + threadIdx.x;
    if (i < limit) {
        y[i] = 2.0f * x[i];
    }
}

void launch(const float* x, float* y, int n, int limit, cudaStream_t stream) {
    scale<<<(n + 31) / 32 + 1, 32, 0, stream>>>(x, y, n, limit);
}
"""

REVERSE = """\
__global__ void reverse(const float* x, float* y) {
    __shared__ float s[64];
    int i = threadIdx.x;
    s[i] = x[i];
    SYNC
    y[i] = s[63 - i];
}

void launch(const float* x, float* y, cudaStream_t stream) {
    reverse<<<1, 64, 0, stream>>>(x, y);
}
"""


def line_of(src: str, text: str) -> int:
    """The 1-based line of ``src`` holding ``text`` (the written file's numbering)."""
    return next(i for i, ln in enumerate(src.splitlines(), 1) if text in ln)


def scale_wrong(limit: int, n: int = 70) -> int:
    from labsim.cuda import compile as compile_cuda
    x = np.arange(1, n + 1, dtype=np.float32)
    y = np.full(n, np.nan, dtype=np.float32)
    compile_cuda(SCALE, "toy.cu").call("launch", x, y, n, limit, 0)
    return np.count_nonzero(~(y == 2 * x))


def test_outcome_table_right_wrong_and_error_in_cell_lines():
    n = 70
    tab = kit.outcome_table([("right", n), ("short", n - 5), ("past", n + 1)], lambda limit: scale_wrong(limit, n),
                            header="limit", caption="toy", count_header="wrong")
    assert tab.headers == ["limit", "labsim 的结果", "wrong"] and tab.caption == "toy"
    (right, short, past) = tab.data
    assert right[1:] == ["结果正确", 0]
    assert short[1:] == ["结果错误（5 个元素）", 5]            # the last 5 of n are never written
    # the launch has one block too many: i = n reads x[n]; the error names the cell's line (file line + 1)
    cell = line_of(SCALE, "y[i] = 2.0f * x[i];") + 1
    assert past[1].startswith("OutOfBoundsError: ") and f"单元格第 {cell} 行" in past[1], past[1]
    assert "toy.cu:" not in past[1] and "\n" not in past[1] and past[2] == "—"


def test_outcome_table_without_a_count_column_and_with_the_lessons_own_error_text():
    tab = kit.outcome_table([("past", 71)], scale_wrong, header="h", caption="c", error=lambda e: "mine")
    assert tab.headers == ["h", "labsim 的结果"] and tab.data == [["past", "mine"]]


def test_outcome_table_lets_other_exceptions_through():
    with pytest.raises(ZeroDivisionError):
        kit.outcome_table([("x", 0)], lambda v: 1 // v, header="h", caption="c")


def reverse_run(sync: bool, schedule: str):
    from labsim.cuda import compile as compile_cuda
    src = REVERSE.replace("SYNC", "__syncthreads();" if sync else "// no barrier")
    x = np.arange(1, 65, dtype=np.float32)
    y = np.zeros(64, dtype=np.float32)
    res = compile_cuda(src, "toy.cu").call("launch", x, y, 0, schedule=schedule)
    return res, np.count_nonzero(y != x[::-1])


def test_race_table_counts_and_groups_races_by_line_pair():
    tab = kit.race_table([("barrier", True), ("none", False)], reverse_run, wrong_header="wrong", caption="toy")
    assert [r[:2] for r in tab.data] == [["barrier", "lockstep"], ["barrier", "adversarial"],
                                         ["none", "lockstep"], ["none", "adversarial"]]
    # brute force: thread i reads s[63 - i], written by thread 63 - i, always in the other warp of two
    cross = sum((i // 32) != ((63 - i) // 32) for i in range(64))
    assert [r[2] for r in tab.data] == [0, 0, cross, cross]
    # lockstep: every write before any read; adversarial (warp 1 runs first): warp 1 reads s[31..0] unwritten
    assert [r[3] for r in tab.data] == [0, 0, 0, 32]
    write, read = line_of(REVERSE, "s[i] = x[i];") + 1, line_of(REVERSE, "y[i] = s[63 - i];") + 1
    assert tab.notes[0] == f"none：RAW（写后读）s，单元格第 {write} 行 ↔ 第 {read} 行：s[i] = x[i];  ↔  y[i] = s[63 - i];"
    # then one race of that pair by hand: thread w writes s[e] with e = w; the reader of s[e] is thread 63 - e
    assert len(tab.notes) == 2
    m = re.fullmatch(rf"  例如 block \(0, 0, 0\) 里，线程 \((\d+), 0, 0\) 在第 {write} 行写 s\[(\d+)\]，"
                     rf"线程 \((\d+), 0, 0\) 在第 {read} 行读同一个元素，两者之间没有屏障。", tab.notes[1])
    assert m, tab.notes[1]
    writer, e, reader = map(int, m.groups())
    assert writer == e and reader == 63 - e and writer // 32 != reader // 32


def test_race_notes_show_code_through_the_lessons_mask():
    res, _ = reverse_run(False, "lockstep")
    note, example = kit.race_notes("v", res, code=lambda s: s.replace("x[i]", "______"))
    assert "s[i] = ______;" in note and "x[i]" not in note + example


def test_racecheck_table_marks_missing_pending_and_unsimulated_cells():
    def pending():
        raise kit.NeedsFill("toy")
    runs = [kit.RecordedRun(["a"], [(3, 10), None], lambda: (4, 10), ["x"]),
            kit.RecordedRun(["b"], [None, (1, 2)], None, ["y"]),
            kit.RecordedRun(["c"], [(0, 5), (0, 5)], pending, [""])]
    tab = kit.racecheck_table(runs, recorded=True, headers=list("hpqsx"), caption="toy")
    assert tab.data == [["a", "3 / 10", "—", "4 / 10", "x"], ["b", "—", "1 / 2", kit.NOT_SIMULATED, "y"],
                        ["c", "0 / 5", "0 / 5", kit.PENDING, ""]]
    assert tab.notes == [kit.NOT_RUN_NOTE] and kit.NOT_RUN_NOTE.startswith("—")
    bare = kit.racecheck_table(runs[1:2], recorded=False, headers=list("hpqsx"), caption="toy")
    assert bare.data == [["b", "（未记录）", "1 / 2", "（太大，不模拟）", "y"]] and bare.notes == []


def test_gbps_cells_round_to_whole_gb_per_s():
    assert kit.gbps_cells({"gbps_median": 1234.5678, "gbps_min": 999.4, "gbps_max": 1300.6}) == (1235, "999–1301")
