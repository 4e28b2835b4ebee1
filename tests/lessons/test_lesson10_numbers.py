"""Every number lesson 10 shows comes from labsim (checked here against a brute-force count written from the
kernel's thread mapping) or from the H200 recordings (measurements/h200/gemm/, checked against labsim)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from figref import brute_bank_degrees, brute_sectors
from lessonref import REPO, answer_only, read_lesson
from sitebuilds import explorer_cache

from figures import lesson10
from figures import lessonkit as kit
from labsim.gpus import get_gpu

LESSON10 = REPO / "lessons" / "lesson10_gemm_tiled.qmd"
GPU = get_gpu("H200")
RIGHT = ("对", "right")


# ---- brute force: the GEMMs' global loads, warp by warp -----------------------------------------------------

def brute_global_loads(M, N, K, tile, naive=False):
    """(requests, sectors, requested bytes) of every global load of the naive or the tiled GEMM, counted warp by
    warp from the kernels' index expressions and guards (no labsim code)."""
    bdim = 16 if naive else tile
    gx, gy = -(-N // bdim), -(-M // bdim)
    req = sec = asked = 0
    for by in range(gy):
        for bx in range(gx):
            threads = [(tx, ty) for ty in range(bdim) for tx in range(bdim)]
            for w in range(0, len(threads), 32):
                warp = threads[w:w + 32]
                rows = [by * bdim + ty for _, ty in warp]
                cols = [bx * bdim + tx for tx, _ in warp]
                if naive:
                    live = [r < M and c < N for r, c in zip(rows, cols)]
                    if not any(live):
                        continue
                    for k in range(K):
                        for addr in ([4 * (r * K + k) for r in rows], [4 * (k * N + c) for c in cols]):
                            a = addr + [0] * (32 - len(addr))
                            act = live + [False] * (32 - len(live))
                            req += 1
                            sec += brute_sectors(a, act, 4)
                            asked += 4 * sum(act)
                    continue
                for t in range(0, K, tile):
                    a_act = [r < M and t + tx < K for (tx, _), r in zip(warp, rows)]
                    a_addr = [4 * (r * K + t + tx) for (tx, _), r in zip(warp, rows)]
                    b_act = [t + ty < K and c < N for (_, ty), c in zip(warp, cols)]
                    b_addr = [4 * ((t + ty) * N + c) for (_, ty), c in zip(warp, cols)]
                    for addr, act in ((a_addr, a_act), (b_addr, b_act)):
                        if not any(act):
                            continue    # a predicated-off load issues no request
                        pad = 32 - len(addr)
                        req += 1
                        sec += brute_sectors(addr + [0] * pad, act + [False] * pad, 4)
                        asked += 4 * sum(act)
    return req, sec, asked


def test_intensity_table_against_brute_force():
    M, N, K = lesson10.SHAPE
    tab = lesson10.intensity_table()
    assert len(tab.data) == 5
    for row, (tile, naive) in zip(tab.data, [(16, True), (4, False), (8, False), (16, False), (32, False)]):
        req, sec, asked = brute_global_loads(M, N, K, tile, naive)
        elems = M * N
        assert row[1] == req / elems and row[2] == asked / elems and row[4] == sec / elems, row
        assert row[5] == sec * 32 / elems and row[6] == round(2 * K * elems / (sec * 32), 3)
        assert row[3] == round(2 * K * elems / asked, 3) and row[7] in RIGHT
        if not naive:   # the lesson's formula: FLOP per requested byte = TILE / 4
            assert row[3] == tile / 4
    naive, t4, t8 = tab.data[:3]
    assert naive[3] == 0.25 and t4[6] == naive[6] and t8[6] == t8[3]   # what the prose says about TILE = 4


def test_intensity_table_before_the_exercise_is_the_naive_kernel_only():
    tab = lesson10.intensity_table(naive_only=True)
    assert len(tab.data) == 1 and "tiled" not in tab.data[0][0]


def test_lines_tables():
    M, N, K = lesson10.SHAPE
    naive = {r[2]: r for r in lesson10.lines_table("gemm_naive").data}
    assert naive["A"][6] == naive["B"][6] == 2          # "每个请求 2 个 sector"
    assert naive["A"][8] == N and naive["B"][8] == M    # each element asked for N (A) / M (B) times
    tiled = {r[2]: r for r in lesson10.lines_table("gemm_tiled16").data}
    assert tiled["A"][6] == tiled["B"][6] == 4          # "每个请求 4 个 sector"
    assert tiled["A"][7] == N / 16 and tiled["B"][7] == M / 16   # moved N / TILE times
    src = lesson10.exercise_source().splitlines()
    b_line = next(i for i, ln in enumerate(src, 1) if "Bs[ty][tx] =" in ln)
    assert tiled["B"][0] == f"单元格第 {b_line + 1} 行" and tiled["B"][1].endswith("? B[______] : 0.0f;")   # masked


def test_naive_source_is_the_recorded_kernel():
    path = lesson10.measurements_dir() / "gemm" / "gemm_naive.cuh"
    if not path.is_file():
        pytest.skip("gemm_naive.cuh not recorded")
    assert lesson10.NAIVE_SOURCE.strip() == path.read_text(encoding="utf-8").strip()


@pytest.mark.parametrize("name", lesson10.H200_KERNELS[1:])
@pytest.mark.parametrize("shape", [lesson10.SHAPE, lesson10.ODD_SHAPE])
def test_variants_count_as_the_recorded_sources(name, shape):
    """The lesson's variants (built from the exercise) and gemm_tiled.cuh's (what the H200 ran) give labsim the
    same counters, line for line: the recorded H200 numbers apply to the lesson's kernels."""
    import labsim.cuda as lc
    path = lesson10.measurements_dir() / "gemm" / "gemm_tiled.cuh"
    if not path.is_file():
        pytest.skip("gemm_tiled.cuh not recorded")
    m = lesson10.VARIANT.fullmatch(name)
    src = path.read_text(encoding="utf-8").replace("#define TILE 16", f"#define TILE {m[1]}")
    src = src.replace("#define PAD 0", f"#define PAD {1 if m[3] else 0}").replace("#define BT 0", f"#define BT {1 if m[2] else 0}")
    M, N, K = shape
    T = int(m[1])
    A, B = lesson10.operands(M, N, K)
    C = np.zeros((M, N), np.float32)
    rec = lc.compile(src, "gemm_tiled.cu").launch("gemm_tiled", (-(-N // T), -(-M // T)), (T, T), (A, B, C, M, N, K))
    ours, *_ = lesson10.run_gemm(name, shape)
    assert ours.stats.metrics == rec.stats.metrics
    assert sorted((s.space, s.op, s.array, s.requests, s.cost) for s in ours.stats.instructions) == \
        sorted((s.space, s.op, s.array, s.requests, s.cost) for s in rec.stats.instructions)


def test_tables_without_the_recordings(monkeypatch, tmp_path):
    """The student kit ships figures but not measurements/: every H200 column reads 'not recorded'."""
    from figures import recordings
    monkeypatch.setattr(recordings, "measurements_dir", lambda: tmp_path)
    monkeypatch.setattr(recordings, "_bundle", lambda: None)
    none = ("（未记录）", "(not recorded)")
    rows = lesson10.h200_table().data
    assert all(r[2] in none for r in rows[0::2]) and rows[1][2] == 16384
    assert lesson10.gflops_table().data[0][1] in none
    assert all(r[1] in none for r in lesson10.sass_table().data)
    assert all(r[3] == "—" for r in lesson10.occupancy_table().data)


def test_occupancy_table_against_the_preset():
    g = GPU
    regs = lesson10.recorded_registers()
    rows = lesson10.occupancy_table().data
    for row, T in zip(rows, (16, 32)):
        smem = 2 * T * T * 4
        by_threads = g.max_threads_per_sm // (T * T)
        by_smem = g.smem_per_sm // (smem + g.smem_reserved_per_block)
        assert row[1:3] == [T * T, smem] and (row[4], row[5]) == (by_threads, by_smem)
        want = min(by_threads, by_smem, g.max_blocks_per_sm)
        r = regs.get(f"gemm_tiled{T}")
        if r is not None:
            per_warp = -(-r * 32 // g.reg_alloc_unit) * g.reg_alloc_unit
            want = min(want, g.regs_per_sm // (per_warp * (T * T // 32)))
        assert row[7] == want and row[8] == want * T * T
    assert rows[0][8] == rows[1][8] and rows[0][7] > rows[1][7]     # the prose: same threads, fewer blocks


def test_recorded_registers_parse(tmp_path):
    p = tmp_path / "n.csv"
    p.write_text('"ID","Kernel Name","launch__registers_per_thread"\n"","","register/thread"\n"0","k","30"\n')
    assert lesson10.recorded_registers(p) == {"k": 30}
    assert lesson10.recorded_registers(tmp_path / "none.csv") == {}


# ---- races ---------------------------------------------------------------------------------------------

def test_race_table_and_its_lines():
    rows = lesson10.race_table().data
    both_l, both_a, s1_l, s1_a, s2_l, s2_a = rows
    assert both_l[2:] == [0, 0] and both_a[2:] == [0, 0]
    for lock, adv in ((s1_l, s1_a), (s2_l, s2_a)):
        assert lock[2] > 0 and lock[3] == 0, "lockstep hides the race"
        assert adv[2] > 0 and adv[3] > 0, "the adversarial order exposes it"
    notes = lesson10.race_table().notes
    src = lesson10.exercise_source().splitlines()
    b_store = next(i for i, ln in enumerate(src, 1) if "Bs[ty][tx] =" in ln) + 1      # cell line = file line + 1
    inner = next(i for i, ln in enumerate(src, 1) if "acc += As[ty][k] * Bs[k][tx]" in ln) + 1
    assert not any(kit.reference_fill("lesson10") in n for n in notes), "the notes show the blank, not its answer"
    assert f"RAW" in notes[0] and f"第 {b_store} 行 ↔ 第 {inner} 行" in notes[0]
    assert "WAR" in notes[2] and f"第 {inner} 行 ↔ 第 {b_store} 行" in notes[2]
    # each pair's example by hand: Bs[r][c] is written by thread (c, r) and read (Bs[k][tx]) by threads (c, y),
    # here in another warp of the 16 x 16 block
    for note, (first, l1, second, l2) in ((notes[1], ("写", b_store, "读", inner)),
                                          (notes[3], ("读", inner, "写", b_store))):
        m = re.fullmatch(rf"  例如 block \(\d+, \d+, 0\) 里，线程 \((\d+), (\d+), 0\) 在第 {l1} 行{first} Bs\[(\d+)\]\[(\d+)\]，"
                         rf"线程 \((\d+), (\d+), 0\) 在第 {l2} 行{second}同一个元素，两者之间没有屏障。", note)
        assert m, note
        ax, ay, r, c, bx, by = map(int, m.groups())
        writer, reader = ((ax, ay), (bx, by)) if first == "写" else ((bx, by), (ax, ay))
        assert writer == (c, r) and reader[0] == c and (ay * 16 + ax) // 32 != (by * 16 + bx) // 32


def test_exercise_source_edits_keep_lines():
    base = lesson10.exercise_source().splitlines()
    for edits in ({"sync1": False}, {"sync2": False}, {"loads": "guard_only"}, {"loads": "no_guard"}):
        assert len(lesson10.exercise_source(**edits).splitlines()) == len(base)
    assert lesson10.exercise_source(sync1=False).count("__syncthreads();\n") == 1
    with pytest.raises(ValueError, match="loads"):
        lesson10.exercise_source(loads="maybe")


def test_race_figure_marks_the_wrong_elements():
    fig = lesson10.race_figure()
    rows = lesson10.race_table().data
    for ax, row in zip(fig.axes, (rows[3], rows[5])):
        img = ax.get_images()[0].get_array()
        assert int(np.asarray(img).sum()) == row[3]


def test_h200_race_table_reads_the_recording():
    path = lesson10.measurements_dir() / "racecheck" / "results.json"
    if not path.is_file():
        pytest.skip("racecheck/results.json not recorded")
    runs = json.loads(path.read_text())["plain_runs"]["gemm"]
    rows = lesson10.h200_race_table().data
    adv = {r[0]: r[3] for r in lesson10.race_table().data if r[1] == "adversarial"}
    for row in rows:
        kernel = "gemm_tiled16_nosync1" if "第一个" in row[0] else "gemm_tiled16_nosync2"
        M, N, K = map(int, row[1].split("×"))
        rec = next(r for r in runs if r["name"] == kernel and (r["M"], r["N"], r["K"]) == (M, N, K))
        assert row[2] == f"{rec['wrong']} / {M * N}"
        if (M, N, K) == lesson10.SHAPE:
            assert row[4] == f"{adv[row[0]]} / {M * N}"
            assert "Bs write :44" in row[5] and "As write :40" in row[5] and "error" in row[5]
    # the prose: without the first barrier the H200 is wrong, without the second its recorded runs were right
    assert all(r["wrong"] > 0 for r in runs if r["name"] == "gemm_tiled16_nosync1")
    assert all(r["wrong"] == 0 for r in runs if r["name"] == "gemm_tiled16_nosync2")
    src = (lesson10.measurements_dir() / "gemm" / "gemm_tiled.cuh").read_text().splitlines()
    assert src[43].strip().startswith("Bs[ty][tx] =") and src[39].strip().startswith("As[ty][tx] =")
    assert src[52].strip().startswith("acc += As[ty][k] * Bs[k][tx]")


def test_which_rows_survive_the_adversarial_order():
    """The prose: without the first barrier only the last warp to run (warp 0: rows 0-1 of each block) is right,
    without the second only the first (warp 7: rows 14-15) is; every other row has wrong elements."""
    M, N, K = lesson10.SHAPE
    for edits, good in (({"sync1": False}, {0, 1}), ({"sync2": False}, {14, 15})):
        _, A, B, C = lesson10.run_exercise(M, N, K, schedule="adversarial", **edits)
        bad = lesson10.wrong_mask(C, A, B)
        for r in range(M):
            if r % 16 in good:
                assert not bad[r].any(), (edits, r)
            else:
                assert bad[r].sum() >= N - 2, (edits, r)


def test_wrong_mask_uses_the_summation_bound():
    A, B = lesson10.operands(8, 8, 8)
    C = (A.astype(np.float64) @ B).astype(np.float32)
    assert not lesson10.wrong_mask(C, A, B).any()
    C[3, 4] += 1.0
    C[0, 0] = np.nan
    assert lesson10.wrong_mask(C, A, B).sum() == 2


# ---- banks ---------------------------------------------------------------------------------------------

def brute_inner_wavefronts(tile, pad, access, k=0):
    """Wavefronts of warp 0 of a TILE×TILE block: lane l is (tx, ty) = (l % TILE, l // TILE)."""
    ld = tile + pad
    addr = []
    for lane in range(32):
        tx, ty = lane % tile, lane // tile
        r, c = {"a_row": (ty, k), "b_row": (k, tx), "b_col": (tx, k), "store": (ty, tx), "store_t": (tx, ty)}[access]
        addr.append(4 * (r * ld + c))
    return brute_bank_degrees(addr, [True] * 32, 4)[1]


def test_bank_table_against_brute_force():
    for row, name in zip(lesson10.bank_table().data, lesson10.H200_KERNELS[1:]):
        tile = 16 if "16" in name else 32
        pad = 1 if name.endswith("_pad") else 0
        bt = "_bt" in name
        assert row[1] == brute_inner_wavefronts(tile, pad, "store")
        assert row[2] == brute_inner_wavefronts(tile, pad, "store_t" if bt else "store")
        assert row[3] == brute_inner_wavefronts(tile, pad, "a_row")
        assert row[4] == brute_inner_wavefronts(tile, pad, "b_col" if bt else "b_row")
        assert row[5] == 2 * tile * (tile + pad) * 4 and row[6] in RIGHT
    # the prose: column-wise B is 8-way at 16 and 32-way at 32; padding makes the 16-tile store 2-way
    assert brute_inner_wavefronts(16, 0, "b_col") == 8 and brute_inner_wavefronts(32, 0, "b_col") == 32
    assert brute_inner_wavefronts(16, 1, "store") == 2 and brute_inner_wavefronts(16, 0, "store") == 1


def test_explorer_views_are_labsims(monkeypatch):
    for tile in lesson10.EXPLORER_TILES:
        for pad in (0, 1):
            for access, _ in lesson10.EXPLORER_ACCESSES:
                v = lesson10.explorer_view(tile, pad, access, 3)
                assert v["wavefronts"] == brute_inner_wavefronts(tile, pad, access, min(3, tile - 1)), (tile, pad, access)
    monkeypatch.setenv("COURSEBUILD_EXPLORER_CACHE", str(explorer_cache()))   # the page's spec, computed once
    ex = lesson10.static_explorer()
    assert ex.view_at(tile=32, pad=0, access="b_col", k=0)["wavefronts"] == 32
    assert ex.view_at(tile=32, pad=1, access="b_col", k=0)["wavefronts"] == 1
    assert ex.view_at(tile=16, pad=1, access="store", k=0)["wavefronts"] == 2


# ---- boundaries ----------------------------------------------------------------------------------------

def test_bounds_table():
    M, N, K = lesson10.ODD_SHAPE
    assert M % 16 and N % 16 and K % 16
    right, no_fill, no_guard = lesson10.bounds_table().data
    assert right[2] == 0 and right[1] in ("结果正确", "right")
    assert no_fill[2] > 0
    assert no_guard[1].startswith("OutOfBoundsError") and "单元格第" in no_guard[1]


# ---- the H200 ------------------------------------------------------------------------------------------

def _recorded():
    if lesson10.records().load("gemm") is None:
        pytest.skip("measurements/h200/gemm/results.json not recorded")
    return lesson10.records()


SHAPES = ("64x64x64", "70x45x33")
GLOBAL_KEYS = [k for k, _ in lesson10.H200_COLUMNS if "global" in k]
SHARED_KEYS = [k for k, _ in lesson10.H200_COLUMNS if "shared" in k]
SHARED_LD = ["smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
CASES = [(s, n) for s in SHAPES for n in lesson10.H200_KERNELS]


@pytest.mark.parametrize("shape, name", CASES)
def test_global_counters_equal_the_h200(shape, name):
    rec = _recorded()
    h = rec.gemm_counters(name, shape)
    res, *_ = lesson10.run_gemm(name, tuple(map(int, shape.split("x"))))
    for key in GLOBAL_KEYS:
        assert res.stats.metrics[key] == h[key], key


@pytest.mark.parametrize("shape, name", CASES)
def test_shared_counters_equal_the_h200_where_loads_stay_scalar(shape, name):
    """Naive and padded kernels: every shared counter; unpadded ones: the stores (scalar STS on the H200)."""
    rec = _recorded()
    h = rec.gemm_counters(name, shape)
    res, *_ = lesson10.run_gemm(name, tuple(map(int, shape.split("x"))))
    keys = SHARED_KEYS if not lesson10.lds128_merged(name) else [k for k in SHARED_KEYS if k not in SHARED_LD]
    for key in keys:
        assert res.stats.metrics[key] == h[key], key


@pytest.mark.parametrize("shape, name", [(s, n) for s, n in CASES if lesson10.lds128_merged(n)])
def test_shared_loads_of_unpadded_kernels_equal_the_h200(shape, name):
    h = _recorded().gemm_counters(name, shape)
    res, *_ = lesson10.run_gemm(name, tuple(map(int, shape.split("x"))))
    for key in SHARED_LD:
        assert res.stats.metrics[key] == h[key], key


def test_h200_table_is_the_recording_next_to_labsim():
    rec = _recorded()
    rows = lesson10.h200_table("64x64x64").data
    keys = [k for k, _ in lesson10.H200_COLUMNS]
    for i, name in enumerate(lesson10.H200_KERNELS):
        h_row, s_row = rows[2 * i], rows[2 * i + 1]
        assert h_row[2:-1] == [rec.gemm_counters(name)[k] for k in keys]
        res, *_ = lesson10.run_gemm(name)
        assert s_row[2:-1] == [res.stats.metrics[k] for k in keys]
        same = h_row[2:-1] == s_row[2:-1]
        assert (s_row[-1] in ("全部相同", "all equal")) == same
        assert same      # what the prose says: every counter equal, LDS.128 kernels included (issue 17)


def test_gflops_table_reads_the_recording():
    rec = _recorded()
    rows = {r[0]: r for r in lesson10.gflops_table().data}
    for name in lesson10.H200_KERNELS:
        assert rows[lesson10._label(name)][3] == int(round(rec.gemm_gflops(name)))
    data = json.loads((lesson10.measurements_dir() / "gemm" / "results.json").read_text())
    assert len(lesson10.gflops_table().data) == len([t for t in data["timing"] if t["name"] != "torch_matmul_fp32_no_tf32"])


def test_speed_statements_hold_for_the_recording():
    """The prose: tiled beats naive, 32 a little faster than 16, padding slows the row layout, the column layout
    is slowest unpadded and padded comes back to the row layout's padded speed, cuBLAS far ahead."""
    g = _recorded().gemm_gflops
    assert g("gemm_naive") < g("gemm_tiled16") < g("gemm_tiled32") < 1.2 * g("gemm_tiled16")
    assert g("gemm_tiled16_pad") < g("gemm_tiled16") and g("gemm_tiled32_pad") < g("gemm_tiled32")
    for T in (16, 32):
        assert g(f"gemm_tiled{T}_bt") < min(g(n) for n in lesson10.H200_KERNELS if n != f"gemm_tiled{T}_bt"
                                            and str(T) in n)
        assert abs(g(f"gemm_tiled{T}_bt_pad") / g(f"gemm_tiled{T}_pad") - 1) < 0.01
    assert g("cublas_sgemm") > 4 * max(g(n) for n in lesson10.H200_KERNELS)


def test_sass_counts_parse(tmp_path):
    raw = tmp_path / "s.txt"
    raw.write_text("  Function : k1\n /*0390*/  LDS R22, [R21] ; /* 0x0 */\n /*03a0*/  LDS.128 R8, [R19] ; /* 0x0 */\n"
                   " /*03b0*/  @!P0 STS [R1], R2 ; /* 0x0 */\n  Function : k2\n /*0010*/  LDS R1, [R2] ; /* 0x0 */\n")
    assert lesson10.sass_counts(raw) == {"k1": {"LDS": 1, "LDS.128": 1, "STS": 1}, "k2": {"LDS": 1}}
    assert lesson10.sass_counts(tmp_path / "none.txt") == {}


def test_sass_table_shows_the_merge_and_labsim_counts_it():
    if not lesson10.sass_counts():
        pytest.skip("raw2/sass_gemm_bench.txt not recorded")
    for row, name in zip(lesson10.sass_table().data, lesson10.H200_KERNELS[1:]):
        assert (row[2] > 0) == lesson10.lds128_merged(name), name     # LDS.128 only without padding
        assert (row[3], row[4]) == (row[5], row[6])                    # labsim counts the merged loads too
        scalar = lesson10.run_gemm(name, counting="source")[0].stats.metrics["smsp__inst_executed_op_shared_ld.sum"]
        assert (row[3] < scalar) == lesson10.lds128_merged(name)      # fewer than one per access as written


# ---- the prose ---------------------------------------------------------------------------------------

# whole numbers only: a decimal ("1.6 倍") is checked by the section tests that state it
UNIT = re.compile(r"(?<![\d.])(\d+)(?![\d.])\s*(个\s*sector|字节|个\s*warp|个线程|个字|路冲突|个\s*float|倍|KiB)")


def _claims() -> dict[tuple[str, str], set[int]]:
    """Each (number, unit) the prose may state and what it may be, derived here (not typed from the tables)."""
    naive = {r[2]: r for r in lesson10.lines_table("gemm_naive").data}
    tiled = {r[2]: r for r in lesson10.lines_table("gemm_tiled16").data}
    req = {n: lesson10.run_gemm(n)[0].stats.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]
           for n in ("gemm_naive", "gemm_tiled16", "gemm_tiled32")}
    return {
        ("16", "倍"): {req["gemm_naive"] // req["gemm_tiled16"]}, ("32", "倍"): {req["gemm_naive"] // req["gemm_tiled32"]},
        ("2", "KiB"): {2 * 16 * 16 * 4 // 1024}, ("8", "KiB"): {2 * 32 * 32 * 4 // 1024},
        ("1024", "个线程"): {GPU.max_threads_per_block},
        ("2", "个sector"): {naive["A"][6]}, ("4", "个sector"): {tiled["B"][6]},
        ("32", "字节"): {GPU.sector_bytes}, ("16", "字节"): {4 * 4}, ("64", "字节"): {16 * 4, 16 * 4 * 1},
        ("8", "个warp"): {16 * 16 // GPU.warp_size}, ("16", "个线程"): {16},
        ("32", "个线程"): {GPU.warp_size}, ("16", "个字"): {16}, ("17", "个字"): {17},
        ("8", "路冲突"): {brute_inner_wavefronts(16, 0, "b_col")}, ("2", "路冲突"): {brute_inner_wavefronts(16, 1, "store")},
        ("4", "个float"): {4}, ("17", "个float"): {17}, ("16", "个float"): {16},
        ("4", "字节"): {np.dtype(np.float32).itemsize}, ("128", "字节"): {32 * 4},      # a float; a 32-float row
        # each step, each C element: requested bytes per C element / steps / 4 bytes
        ("2", "个float"): {int(lesson10.intensity_table().data[3][2] / (lesson10.SHAPE[2] / 16) / 4)},
        ("1", "KiB"): {GPU.smem_reserved_per_block // 1024},            # the runtime's reservation per block
        ("20", "个字"): {16 + 4},                                        # row 1 of a [16][20] tile starts there
        # Q2's answer (2×2 per thread, 32×32 C block, K step 16): the two tiles a step loads, the block's threads
        ("1024", "个float"): {32 * 16 + 16 * 32}, ("256", "个线程"): {16 * 16},
        # Q3's answer: an LDS.128 reads 4 words; the unpadded TILE-32 row is 32 words; the +4 store conflict
        ("4", "个字"): {16 // 4}, ("32", "个字"): {32},
        ("4", "路冲突"): {lesson10.explorer_view(32, 4, "store_t", 0)["wavefronts"]},
    }


def test_prose_numbers_are_derived():
    claims = _claims()
    for (num, unit), values in claims.items():
        assert int(num) in values, f"prose says {num} {unit}, derived {values}"
    unchecked = []
    for ln, text, divs in read_lesson(LESSON10).prose:
        prose = re.sub(r"`[^`]*`", "", text)
        for m in UNIT.finditer(prose):
            key = (m.group(1), re.sub(r"\s+", "", m.group(2)))
            if key not in claims:
                unchecked.append(f"line {ln}: {m.group(0)}")
    assert not unchecked, "numbers stated in prose that nothing derives: " + "; ".join(unchecked)


def test_question_text_is_the_graders():
    """Q1-Q3 and the implementation note read exactly as grading/exercises/lesson10/questions.toml has them."""
    path = REPO / "grading" / "exercises" / "lesson10" / "questions.toml"
    if not path.is_file():
        pytest.skip("questions.toml not landed")
    import tomllib
    q = tomllib.loads(path.read_text(encoding="utf-8"))
    text = LESSON10.read_text(encoding="utf-8")
    for key in ("explanation", "Q1", "Q2", "Q3"):
        assert q[key]["question"] in text, key


def test_answer_fill_is_never_shown_before_the_exercise():
    lesson = read_lesson(LESSON10)
    # the lesson's exercise: the challenge's exercise cell comes after the questions
    ex = next(c for c in lesson.cells if c.options.get("course_role") == "exercise")
    compact = kit.reference_fill("lesson10").replace(" ", "")
    before = [t for ln, t, divs in lesson.prose if ln < ex.line and not answer_only(divs)]
    before += [c.source for c in lesson.cells if c.line < ex.line]
    assert not [t for t in before if compact in t.replace(" ", "")]
    # what the cells before the exercise display: their functions never run the reference kernel's source text
    for c in lesson.cells:
        if c.line < ex.line and "lesson10." in c.source:
            assert "gemm_tiled" not in c.source and "race" not in c.source, c.source
