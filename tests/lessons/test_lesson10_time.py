"""Lesson 10, second edition (issue 28): where the time goes, the LDS.128 wavefronts, padding +4, the folded H200
comparison, the racecheck runs, the explorer's vector view, and the numbers the new prose states -- each against
an independent reference (the H200 recordings, the preset's documented rates, arithmetic written here)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from lessonref import REPO, read_lesson
from sitebuilds import explorer_cache

from figures import lesson10
from labsim.gpus import get_gpu

LESSON10 = REPO / "lessons" / "lesson10_gemm_tiled.qmd"
GPU = get_gpu("H200")
TEXT = LESSON10.read_text(encoding="utf-8")


def _section(sec_id: str) -> str:
    """The qmd text of one section, from its heading to the next heading of the same or a higher level."""
    lines = TEXT.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("#") and f"{{#{sec_id}}}" in ln)
    level = len(lines[start]) - len(lines[start].lstrip("#"))
    end = next((j for j in range(start + 1, len(lines)) if re.match(rf"^#{{1,{level}}} ", lines[j])), len(lines))
    return "\n".join(lines[start:end])


def _recorded():
    if lesson10.records().load("gemm") is None:
        pytest.skip("measurements/h200/gemm/results.json not recorded")
    return lesson10.records()


# ---- where the time goes --------------------------------------------------------------------------------

def test_warp_ffma_is_one_per_thread_and_k():
    M, N, K = lesson10.SHAPE
    threads = M * N                                # one thread per C element, K multiply-adds each
    assert lesson10.warp_ffma() == threads * K // GPU.warp_size


def test_time_rows_count_what_the_h200_counted():
    """labsim's shared wavefronts per kernel equal the H200's recorded ones at 64³; the cap is the preset's
    documented rates: one 128-byte wavefront per clock against fp32_fma_per_clock_per_sm / 32 warp FFMAs."""
    rec = _recorded()
    assert GPU.smem_bandwidth_per_sm == GPU.banks * GPU.bank_bytes        # one wavefront per clock
    warp_ffma_per_clock = GPU.fp32_fma_per_clock_per_sm / GPU.warp_size
    for r in lesson10.time_rows():
        h = rec.gemm_counters(r["name"])
        assert r["ld"] == h["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        assert r["st"] == h["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
        assert r["cap"] == pytest.approx(1 / (warp_ffma_per_clock * (r["ld"] + r["st"]) / r["ffma"]))
        assert r["tflops"] == pytest.approx(rec.gemm_gflops(r["name"]) / 1e3)


def test_fp32_peak_is_the_presets_arithmetic():
    assert lesson10.fp32_peak() == GPU.sms * GPU.fp32_fma_per_clock_per_sm * 2 * GPU.sm_clock_hz
    assert GPU.fp32_fma_per_clock_per_sm == 128      # the Programming Guide's cc 9.0 throughput the prose cites


def test_time_section_states_what_the_tables_compute():
    _recorded()
    sec = _section("sec-time")
    rows = {r["name"]: r for r in lesson10.time_rows()}
    t16, t16p = rows["gemm_tiled16"], rows["gemm_tiled16_pad"]
    # the predict box: the preset's rates
    assert f"每拍能完成 {GPU.fp32_fma_per_clock_per_sm} 个乘加，即 {GPU.fp32_fma_per_clock_per_sm // GPU.warp_size} 条" in sec
    # 16 k-steps of one warp: LDS.128 of As and LDS of Bs, from labsim's per-instruction counts
    reads = lesson10.shared_reads("gemm_tiled16")
    warps_steps = lesson10.warp_ffma() // 16
    a_n, b_n = reads["As"].requests // warps_steps, reads["Bs"].requests // warps_steps
    a_w, b_w = reads["As"].cost // reads["As"].requests, reads["Bs"].cost // reads["Bs"].requests
    assert (f"{a_n} 条 `LDS.128` 各 {a_w} 个 wavefront、{b_n} 条 `LDS` 各 {b_w} 个，共 {a_n * a_w + b_n * b_w} 个 "
            f"wavefront 喂 16 条 FFMA，每条 FFMA {t16['ld_per_ffma']:g} 个") in sec
    assert f"只数读，上限是峰值的 1/{round(4 * t16['ld_per_ffma'])}" in sec and 4 * t16["ld_per_ffma"] == 6
    assert f"每条 FFMA {t16p['ld_per_ffma']:g} 个 wavefront，上限降到 1/{round(4 * t16p['ld_per_ffma'])} 左右" in sec
    caps = [r["of_cap"] for r in rows.values()]
    assert f"{100 * min(caps):.0f}%–{100 * max(caps):.0f}%" in sec
    # padding: instructions ×1.6, wavefronts ×1.33, time ×1.29
    h = _recorded()
    ins = h.gemm_counters("gemm_tiled16_pad")["smsp__inst_executed_op_shared_ld.sum"] / \
        h.gemm_counters("gemm_tiled16")["smsp__inst_executed_op_shared_ld.sum"]
    wf = t16p["ld"] / t16["ld"]
    tm = h.gemm_gflops("gemm_tiled16") / h.gemm_gflops("gemm_tiled16_pad")
    assert f"共享读指令变成 {ins:.1f} 倍" in sec and f"读 wavefront 只变成 {wf:.2f} 倍" in sec
    assert f"实测时间变成 {tm:.2f} 倍" in sec and abs(tm - wf) < abs(tm - ins)
    # the roofline puzzle: the naive kernel above its own L1TEX-intensity DRAM roof
    bw = GPU.dram_bandwidth_sustained
    xi = lesson10.l1_intensity("gemm_naive")
    roof = xi * bw / 1e12
    assert f"每字节只做 {xi:g} 个 FLOP，DRAM 屋顶是 {xi:g} × {bw / 1e12:.1f} TB/s = {roof:.1f} TFLOP/s" in sec
    assert 2 <= h.gemm_gflops("gemm_naive") / 1e3 / roof < 3 and "两倍多" in sec


def test_roofline_figure_places_the_recorded_kernels():
    rec = _recorded()
    fig = lesson10.roofline_figure()
    filled = {(round(l.get_xdata()[0], 6), round(l.get_ydata()[0], 6)) for l in fig.axes[0].lines
              if l.get_marker() == "o" and l.get_markerfacecolor() != "white"}
    want = {(round(lesson10.l1_intensity(n), 6), round(rec.gemm_gflops(n) / 1e3, 6)) for n in lesson10.ROOFLINE_KERNELS}
    assert filled == want
    hollow = {(round(l.get_xdata()[0], 6), round(l.get_ydata()[0], 6)) for l in fig.axes[0].lines
              if l.get_marker() == "o" and l.get_markerfacecolor() == "white"}
    if lesson10.round3_gemm() is not None:       # FLOP per DRAM byte read, from the recording
        assert hollow == {(round(2 * 4096 ** 3 / lesson10.big_metrics(n)["dram__bytes_read.sum"], 6),
                           round(rec.gemm_gflops(n) / 1e3, 6)) for n in ("gemm_naive", "gemm_tiled16", "gemm_tiled32")}
    # brute force: FLOP per sector byte of the naive kernel, from its access pattern (a 16×16 block, a warp is two
    # rows: A's load is two broadcasts of one sector each; B's halves read the same 64 bytes: two sectors)
    sectors_per_warp_k = 2 + 2
    assert lesson10.l1_intensity("gemm_naive") == (32 * 2) / (sectors_per_warp_k * 32)


def test_stall_and_dram_tables_read_the_recording_or_say_not_recorded(monkeypatch, tmp_path):
    from figures import recordings
    monkeypatch.setattr(recordings, "measurements_dir", lambda: tmp_path)
    monkeypatch.setattr(recordings, "_bundle", lambda: None)
    none = ("（未记录）", "(not recorded)")
    assert all(v in none for v in lesson10.stall_table().data[0])
    assert all(r[3] in none for r in lesson10.h200_race_table().data)      # the runs under racecheck too
    assert all(v in none for row in lesson10.dram_table().data for v in row[1:])
    assert all(r[-1] in none for r in lesson10.padding_table().data)


def test_stall_table_ranks_the_recorded_reasons(monkeypatch):
    fake = {"gemm_tiled16": {lesson10.STALL_PREFIX + "mio_throttle" + lesson10.STALL_SUFFIX: 3.0,
                             lesson10.STALL_PREFIX + "barrier" + lesson10.STALL_SUFFIX: 1.0},
            "gemm_tiled16_pad": {lesson10.STALL_PREFIX + "mio_throttle" + lesson10.STALL_SUFFIX: 5.0,
                                 lesson10.STALL_PREFIX + "barrier" + lesson10.STALL_SUFFIX: 6.0}}
    monkeypatch.setattr(lesson10, "big_metrics", lambda name: fake.get(name))
    tab = lesson10.stall_table(("gemm_tiled16", "gemm_tiled16_pad"))
    assert [r[0].split("：")[0] for r in tab.data] == ["barrier", "mio_throttle"]     # by the largest value
    assert tab.data[0][1:] == [1.0, 6.0] and tab.data[1][1:] == [3.0, 5.0]


# ---- LDS.128: why As costs 2 wavefronts --------------------------------------------------------------------

def test_as_lds128_costs_two_wavefronts_and_the_prose_says_so():
    rec = _recorded()
    tab = lesson10.shared_loads_by_array("gemm_tiled16")
    (a, b, total, h200) = tab.data
    assert a[0] == "As[ty][k]" and a[3] == 2 and b[3] == 1
    assert total[1:3] == h200[1:3]                       # labsim's merged count is the H200's
    h = rec.gemm_counters("gemm_tiled16")
    wf, ins = h["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"], h["smsp__inst_executed_op_shared_ld.sum"]
    assert h["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 0
    sec = _section("sec-speed")
    assert (f"H200 记录的 {wf} 个共享读 wavefront 里，`Bs` 的 {b[1]} 条 `LDS` 各 1 个，剩下的 {wf - b[1]} 个是 `As` 的 "
            f"{a[1]} 条 `LDS.128`，每条 {a[3]:g} 个") in sec
    src = lesson10.run_gemm("gemm_tiled16", counting="source")[0].stats.metrics
    assert (f"是 {src['smsp__inst_executed_op_shared_ld.sum']} 条指令、"
            f"{src['l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum']} 个 wavefront；合并后指令减到 {ins} 条，"
            f"wavefront 只减到 {wf} 个") in sec


def test_explorer_vector_view_equals_the_h200_per_instruction():
    """The explorer's 16-byte view: As[ty][k] as LDS.128 costs what the H200's As loads cost per instruction,
    Bs[tx][k] unpadded what the column-layout kernels' Bs loads cost (recorded totals minus As's share)."""
    rec = _recorded()
    for T in (16, 32):
        h = rec.gemm_counters(f"gemm_tiled{T}")
        b_ins = lesson10.warp_ffma()                      # Bs LDS: one per k per warp = one per warp FFMA
        a_ins = h["smsp__inst_executed_op_shared_ld.sum"] - b_ins
        a_wf = (h["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] - b_ins) / a_ins
        assert lesson10.explorer_view(T, 0, "a_row", 0, 16)["wavefronts"] == a_wf == 2
        bt = rec.gemm_counters(f"gemm_tiled{T}_bt")
        bt_b_ins = bt["smsp__inst_executed_op_shared_ld.sum"] - a_ins
        bt_b_wf = (bt["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] - a_ins * a_wf) / bt_b_ins
        assert lesson10.explorer_view(T, 0, "b_col", 0, 16)["wavefronts"] == bt_b_wf


def test_explorer_ranges_are_the_widgets_and_the_vector_view_explains_itself(monkeypatch):
    import inspect
    src = inspect.getsource(lesson10.bank_explorer)
    assert "EXPLORER_PADS.stop - 1" in src and "EXPLORER_KS.stop - 1" in src     # one range for both
    assert list(lesson10.EXPLORER_KS) == list(range(32)) and list(lesson10.EXPLORER_PADS) == list(range(5))
    v = lesson10.explorer_view(16, 1, "b_col", 0, 16)
    assert "不是 16 的倍数" in v["caption"] and v["wavefronts"] == lesson10.explorer_view(16, 1, "b_col", 0)["wavefronts"]
    assert "不会合并" in lesson10.explorer_view(16, 0, "b_row", 0, 16)["caption"]
    monkeypatch.setenv("COURSEBUILD_STATIC", "1")
    monkeypatch.setenv("COURSEBUILD_EXPLORER_CACHE", str(explorer_cache()))   # the page's spec, computed once
    ex = lesson10.bank_explorer()
    assert ex.view_at(tile=32, pad=4, access="b_col", k=5, width=16)["wavefronts"] == 4
    assert ex.view_at(tile=32, pad=0, access="b_col", k=31, width=4)["wavefronts"] == 32
    with pytest.raises(ValueError, match="width"):
        lesson10.warp_access(16, 1, "b_col", 0, width=16)


# ---- padding +4 -----------------------------------------------------------------------------------------

def test_pad4_keeps_lds128_and_the_row_layouts_wavefronts():
    rows = {r["name"]: r for r in lesson10.time_rows(lesson10.PADDING_KERNELS)}
    for T in (16, 32):
        assert lesson10.merged_lds128(f"gemm_tiled{T}_pad4") and lesson10.merged_lds128(f"gemm_tiled{T}_bt_pad4")
        assert not lesson10.merged_lds128(f"gemm_tiled{T}_pad") and lesson10.merged_lds128(f"gemm_tiled{T}")
        base = rows[f"gemm_tiled{T}"]["ld_per_ffma"]
        assert rows[f"gemm_tiled{T}_pad4"]["ld_per_ffma"] == base == rows[f"gemm_tiled{T}_bt_pad4"]["ld_per_ffma"]
    # the prose: +4 puts a conflict into the TILE-16 store (the second row starts at word 20)
    assert rows["gemm_tiled16_pad4"]["per_ffma"] > rows["gemm_tiled16"]["per_ffma"]
    assert "第二行从第 20 个字开始" in _section("sec-pad4")


@pytest.mark.parametrize("name", ["gemm_tiled16_pad4", "gemm_tiled16_bt_pad4", "gemm_tiled32_pad4", "gemm_tiled32_bt_pad4"])
def test_pad4_variants_count_as_the_recorded_source(name):
    """The +4 variants built from the exercise count like gemm_tiled.cuh with PAD 4 (what round 3 ran)."""
    import labsim.cuda as lc
    path = lesson10.measurements_dir() / "gemm" / "gemm_tiled.cuh"
    if not path.is_file():
        pytest.skip("gemm_tiled.cuh not recorded")
    m = lesson10.VARIANT.fullmatch(name)
    src = path.read_text(encoding="utf-8").replace("#define TILE 16", f"#define TILE {m[1]}")
    src = src.replace("#define PAD 0", "#define PAD 4").replace("#define BT 0", f"#define BT {1 if m[2] else 0}")
    M, N, K = lesson10.SHAPE
    T = int(m[1])
    A, B = lesson10.operands(M, N, K)
    C = np.zeros((M, N), np.float32)
    rec = lc.compile(src, "gemm_tiled.cu").launch("gemm_tiled", (-(-N // T), -(-M // T)), (T, T), (A, B, C, M, N, K))
    ours, *_ = lesson10.run_gemm(name)
    assert ours.stats.metrics == rec.stats.metrics


# ---- the H200 comparison folded, the racecheck runs, occupancy ----------------------------------------------

def test_h200_summary_is_the_full_tables_count():
    _recorded()
    for row, shape in zip(lesson10.h200_summary().data, ("64x64x64", "70x45x33")):
        full = lesson10.h200_table(shape).data
        equal = sum(1 for h, s in zip(full[0::2], full[1::2]) for a, b in zip(h[2:-1], s[2:-1]) if a == b)
        assert row[3] == f"{equal} / {len(full) // 2 * len(lesson10.H200_COLUMNS)}" and row[4] == "—"
    assert "lesson10.h200_table(\"70x45x33\")" not in TEXT and "lesson10.h200_summary()" in TEXT


def test_racecheck_runs_are_shown_and_the_prose_matches_them():
    path = lesson10.measurements_dir() / "racecheck" / "results.json"
    if not path.is_file():
        pytest.skip("racecheck/results.json not recorded")
    data = json.loads(path.read_text())
    rows = lesson10.h200_race_table().data
    s1 = next(r for r in rows if "第一个" in r[0] and r[1] == "64×64×64")
    s2 = next(r for r in rows if "第二个" in r[0] and r[1] == "64×64×64")
    # independent: the raw racecheck logs' result lines
    raw = lesson10.measurements_dir() / "raw2" / "racecheck"
    for row, kernel in ((s1, "gemm_tiled16_nosync1"), (s2, "gemm_tiled16_nosync2")):
        log = (raw / f"{kernel}_analysis_64x64x64.txt").read_text()
        wrong = int(re.search(r'"wrong": (\d+)', log).group(1))
        assert row[3] == f"{wrong} / 4096"
    plain1, under1 = (int(v.split(" / ")[0]) for v in s1[2:4])
    plain2, under2 = (int(v.split(" / ")[0]) for v in s2[2:4])
    assert plain1 > 0 and under1 > 0 and plain1 != under1       # "两次都大面积出错，错的个数却不一样"
    assert plain2 == 0 and under2 > 0                             # "直接运行一个元素也没错，在 racecheck 下运行却错了一大片"
    assert data["plain_runs"]["gemm"]


def test_occupancy_prose_holds():
    rows = lesson10.occupancy_table().data
    if any(r[3] == "—" for r in rows):
        pytest.skip("registers not recorded")
    for r in rows:
        assert r[4] == r[6] == r[7], "threads and registers allow the same number of blocks"
        T = int(r[0].split()[1].rstrip(","))
        used = r[7] * (2 * T * T * 4 + GPU.smem_reserved_per_block)
        assert r[9] == f"{used} / {GPU.smem_per_sm}"
    t16, t32 = rows
    assert t32[7] == 2 and t16[7] == 8          # "只有两个……一半"、"八分之一"
    sec = _section("sec-traffic")
    assert "TILE = 32 时只有两个" in sec and "八分之一" in sec and "一大半" not in sec


# ---- the questions, the hint, the metric names --------------------------------------------------------------

def test_hint3_asks_for_the_probe_shape():
    from grading.exercises.lesson10.common import PROBE_K, PROBE_M, PROBE_N
    from grading.exercises.lesson10.exercise import TILE
    hints = _section("sec-hints")
    assert f"M×N×K = {PROBE_M}×{PROBE_N}×{PROBE_K}（检查单元的探针输入就是这个形状）" in hints
    assert f"t = {TILE} 这一步" in hints and PROBE_K > TILE
    assert "K 还是 N" not in hints and "是 K 还是 N" not in TEXT


def test_metric_names_in_the_lesson_are_ncus():
    path = lesson10.measurements_dir() / "raw" / "query_metrics.txt"
    if not path.is_file():
        pytest.skip("query_metrics.txt not recorded")
    known = path.read_text(encoding="utf-8", errors="replace")
    names = set(re.findall(r"`((?:smsp|sm|l1tex|lts|dram|gpu)__[a-z0-9_]+)(?:\.[a-z_]+)?`", TEXT))
    assert len(names) >= 5
    assert [n for n in names if n not in known] == []


# ---- round 3: the H200 at 4096³ and the +4 variants ----------------------------------------------------------

def _round3():
    if lesson10.round3_gemm() is None:
        pytest.skip("measurements/h200/round3 not recorded")
    return lesson10.round3_gemm()


@pytest.mark.parametrize("name", ["gemm_tiled16_pad4", "gemm_tiled16_bt_pad4", "gemm_tiled32_pad4", "gemm_tiled32_bt_pad4"])
@pytest.mark.parametrize("shape", ["64x64x64", "70x45x33"])
def test_pad4_counters_equal_round3(name, shape):
    _round3()
    h = lesson10.round3_counters(name, shape)
    res, *_ = lesson10.run_gemm(name, tuple(map(int, shape.split("x"))))
    keys = [k for k in res.stats.metrics if k in h]
    assert len(keys) >= 12
    assert {k: res.stats.metrics[k] for k in keys} == {k: h[k] for k in keys}


def test_per_ffma_ratios_hold_at_4096():
    """The lesson computes wavefronts per FFMA at 64³ and applies them to 4096³: the H200's own counts at 4096³
    (thread-level FFMAs / 32 and shared wavefronts) give the same ratios."""
    _round3()
    for r in lesson10.time_rows(lesson10.PADDING_KERNELS):
        m = lesson10.big_metrics(r["name"])
        ffma = m["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] / 32
        assert ffma == lesson10.warp_ffma((4096, 4096, 4096))
        ld = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] / ffma
        st = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] / ffma
        # a full GPU adds a few wavefronts the address pattern does not have (lesson 9's 8192² record): within 1%
        assert ld == pytest.approx(r["ld_per_ffma"], rel=0.01), r["name"]
        model_st = r["per_ffma"] - r["ld_per_ffma"]
        assert model_st * 0.999 <= st <= 1.2 * model_st, r["name"]     # stores: up to 14% more on the full GPU


def test_peak_and_clock_notes():
    _round3()
    peak = lesson10.ffma_peak_measured()
    assert 0.95 < peak / lesson10.fp32_peak() <= 1.0                            # "实测到了它的 97%"
    assert f"{100 * peak / lesson10.fp32_peak():.0f}%" == "97%" and "97%" in _section("sec-time")
    clk = lesson10.big_metrics("gemm_tiled16")["sm__cycles_elapsed.avg.per_second"]
    assert abs(clk / GPU.sm_clock_hz - 1) < 0.005                               # "正是预设的加速时钟"
    assert lesson10.round3_gemm()["properties"]["fp32_lanes_per_sm"] == GPU.fp32_fma_per_clock_per_sm


def test_stall_prose_holds():
    _round3()
    def top(name, n=2):
        m = lesson10.big_metrics(name)
        st = {k[len(lesson10.STALL_PREFIX):-len(lesson10.STALL_SUFFIX)]: v for k, v in m.items()
              if k.startswith(lesson10.STALL_PREFIX)}
        return [r for r, _ in sorted(st.items(), key=lambda kv: -kv[1])[:n]], st
    (naive, _), (t16, s16), (t16p, s16p), (t32, s32), (t32p, s32p) = (top(n) for n in lesson10.STALL_KERNELS)
    assert naive == ["long_scoreboard", "lg_throttle"]                              # "几乎只在等全局内存"
    assert t32[0] == "mio_throttle" and t32p[0] == "mio_throttle"
    assert t16 == ["long_scoreboard", "mio_throttle"] and t16p[0] == "mio_throttle"
    assert s16p["mio_throttle"] > s16["mio_throttle"] and s32p["mio_throttle"] > s32["mio_throttle"]
    assert all(s["barrier"] > 1 for s in (s16, s16p, s32, s32p))
    sec = _section("sec-time")
    assert "TILE = 32 时 `mio_throttle` 排第一" in sec and "TILE = 16 时排第一的仍是等全局内存读，`mio_throttle` 第二" in sec


def test_dram_prose_holds():
    _round3()
    rows = {r["name"]: r for r in lesson10.dram_rows()}
    naive, t16, t32 = rows["gemm_naive"], rows["gemm_tiled16"], rows["gemm_tiled32"]
    assert naive["l1_hit"] > 0.5 and naive["dram_bytes"] < 0.1 * naive["l1_bytes"]    # "大部分命中了 L1"、"一小部分"
    assert naive["l2_bytes"] < naive["l1_bytes"] * (1 - naive["l1_hit"]) * 1.01 and naive["dram_bytes"] < naive["l2_bytes"]
    assert 10 <= naive["dram_intensity"] < 20                                         # "强度十几处"
    bw = GPU.dram_bandwidth_sustained
    for r in (naive, t16, t32):
        assert r["dram_intensity"] * bw > 2 * lesson10.records().gemm_gflops(r["name"]) * 1e9   # DRAM is not the cap
    assert t16["l1_hit"] < 0.05 and t32["l1_hit"] < 0.05                              # "L1 几乎不命中"
    assert 0.3 < t16["l2_bytes"] / naive["l2_bytes"] < 3 and 0.3 < t32["l2_bytes"] / naive["l2_bytes"] < 3   # 同一量级


def test_pad4_speeds_and_prose():
    _round3()
    g = lesson10.big_gflops
    assert abs(g("gemm_tiled32_pad4") / g("gemm_tiled32") - 1) < 0.01                # "一样快"
    assert g("gemm_tiled16_pad4") < g("gemm_tiled16") and g("gemm_tiled16_pad4") > g("gemm_tiled16_pad")   # "慢一点"
    for T in (16, 32):
        assert g(f"gemm_tiled{T}_bt_pad4") > 1.1 * g(f"gemm_tiled{T}_bt_pad")           # "快得多"
    assert g("gemm_tiled32_bt_pad4") > 0.9 * g("gemm_tiled32")                         # "接近按行存"
    of_cap = [float(r[-1].rstrip("%")) for r in lesson10.padding_table().data]
    time_caps = [100 * r["of_cap"] for r in lesson10.time_rows()]
    assert min(time_caps) - 0.5 <= min(of_cap) and max(of_cap) <= max(time_caps) + 0.5   # "仍落在那个范围里"
    assert "逐个相同" in _section("sec-pad4")
