"""Tests of the round-3 H200 recording: parse3.py on hand-written inputs, and the recorded counters against facts
computed here independently (brute force over each kernel's thread-to-address mapping, plain arithmetic).

Run: .venv/bin/python -m pytest measurements/h200/round3/test_round3.py -q
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import parse3  # noqa: E402

RESULTS = json.loads((HERE / "results.json").read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------------------------- brute force
def sectors(byte_addresses, size: int = 4) -> int:
    """Distinct 32-byte sectors touched by accesses of ``size`` bytes at these byte addresses."""
    out = set()
    for a in byte_addresses:
        out.update(range(a // 32, (a + size - 1) // 32 + 1))
    return len(out)


def warps_of_block(bx: int, by: int):
    """Threads (tx, ty) of a block grouped into warps by linear index tx + ty * bx."""
    threads = [(t % bx, t // bx) for t in range(bx * by)]
    return [threads[i:i + 32] for i in range(0, len(threads), 32)]


# ----------------------------------------------------------------------------------------------- parsers
def test_kernel_name_and_variant():
    assert parse3.kernel_name("void l09_alt_pad1::<unnamed>::transpose_half_pad1(const __half *, __half *, int, int)") \
        == "l09_alt_pad1::transpose_half_pad1"
    assert parse3.kernel_name("void tred<128>(const float *, float *)") == "tred<128>"
    assert parse3.kernel_name("shfl_down_reduce_w1") == "shfl_down_reduce_w1"
    assert parse3.variant_of("l09_alt_pad1::transpose_half_pad1") == "lesson09_challenge/alt_pad1"
    assert parse3.variant_of("p2_alt_staged_loop::aos_to_soa_staged") == "p2_challenge/alt_staged_loop"
    assert parse3.variant_of("l10_solution::gemm_reg2x2_kernel") == "lesson10_challenge/solution"
    assert parse3.variant_of("gemm_tiled16") is None


def test_metric_list():
    cmd = "ncu --clock-control none --metrics a__x.sum,b__y.ratio --export n prog once"
    assert parse3.metric_list(cmd) == ["a__x.sum", "b__y.ratio"]
    with pytest.raises(ValueError, match="no --metrics"):
        parse3.metric_list("ncu --section X prog")


@settings(max_examples=60, deadline=None)
@given(ms=st.lists(st.floats(min_value=1e-3, max_value=1e3, allow_nan=False), min_size=1, max_size=40),
       nbytes=st.integers(min_value=1, max_value=1 << 40))
def test_timing_arithmetic(ms, nbytes):
    t = parse3.timing(ms, bytes_moved=nbytes, flop=2 * nbytes)
    srt = sorted(ms)
    mid = len(srt) // 2
    med = srt[mid] if len(srt) % 2 else (srt[mid - 1] + srt[mid]) / 2
    assert t["median_ms"] == pytest.approx(med)
    assert t["gbps_median"] == pytest.approx(nbytes / (med / 1e3) / 1e9)
    assert t["gflops_median"] == pytest.approx(2 * nbytes / (med / 1e3) / 1e9)
    assert t["gbps_min"] <= t["gbps_median"] * (1 + 1e-12) <= t["gbps_max"] * (1 + 1e-9)
    assert t["runs"] == len(ms)


def test_timing_rejects_bad_input():
    with pytest.raises(ValueError, match="no timed runs"):
        parse3.timing([])
    with pytest.raises(ValueError, match="non-positive"):
        parse3.timing([1.0, -2.0])


def test_results_file_is_the_parsers_output():
    """results.json is regenerated from raw3/ and raw3b/ by parse3.py, not edited by hand."""
    assert json.loads(json.dumps(parse3.build())) == RESULTS


def test_provenance():
    m = RESULTS["meta"]
    assert m["gpu"] == "NVIDIA H200" and m["driver"] and m["nvcc"].startswith("V13") and m["ncu"]
    assert "--clock-control none" in m["commands"]["classes3/ncu_classes3"]
    assert RESULTS["challenges"]["meta"]["command"].endswith("raw3b/)")


# ----------------------------------------------------------------------------------------------- B: sweep
@pytest.mark.parametrize("kind", ["offset", "stride"])
def test_sweep_l1_sectors_equal_brute_force(kind):
    sw = RESULTS["sweep"]
    threads = {"offset": 64 << 20, "stride": 32 << 20}[kind]
    for s, m in sw["ncu"][kind].items():
        s = int(s)
        # one warp's addresses; the pattern repeats for every warp (bases 256-byte aligned)
        addr = [4 * (lane + s) if kind == "offset" else 4 * lane * s for lane in range(32)]
        per_warp = sectors(addr)
        if kind == "offset":   # a warp's window starts at 128 * w + 4 s: same count for every warp
            expect = per_warp * (threads // 32)
        else:                  # warp w starts at 128 * s * w: sector-aligned, same count for every warp
            expect = per_warp * (threads // 32)
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == expect, (kind, s)
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == expect, (kind, s)
        assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == threads // 32


def test_sweep_points_complete_and_correct():
    pts = RESULTS["sweep"]["points"]
    assert sorted(p["s"] for p in pts if p["sweep"] == "offset") == list(range(33))
    assert sorted(p["s"] for p in pts if p["sweep"] == "stride") == list(range(1, 33))
    assert all(p["wrong"] == 0 and p["runs"] == 20 for p in pts)


# ----------------------------------------------------------------------------------------------- C: transposes
def test_transpose_sectors_equal_brute_force():
    n = 8192
    for r in RESULTS["transpose8"]["ncu"]:
        name, (bx, by) = r["name"], r["block"]
        if name not in ("transpose_naive_1e", "transpose_colread_1e"):
            continue
        ld = st_ = 0
        for warp in warps_of_block(bx, by):   # block (0, 0); every block has the same pattern at n = 8192
            if name == "transpose_naive_1e":   # reads input[y][x], writes output[x][y]
                ld += sectors([4 * (y * n + x) for x, y in warp])
                st_ += sectors([4 * (x * n + y) for x, y in warp])
            else:                              # reads input[x][y], writes output[y][x]
                ld += sectors([4 * (x * n + y) for x, y in warp])
                st_ += sectors([4 * (y * n + x) for x, y in warp])
        blocks = (n // bx) * (n // by)
        m = r["metrics"]
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == ld * blocks, (name, bx, by)
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == st_ * blocks, (name, bx, by)


def test_transpose_outputs_checked():
    for t in RESULTS["transpose8"]["timing"]:
        if t["name"] in parse3.FLOAT32_ORDER:
            assert t["wrong"] == parse3.FLOAT32_ORDER[t["name"]] and "wrong_reason" in t
        else:
            assert t["wrong"] == 0, t["name"]
    shapes = {(t["name"], tuple(t["block"])) for t in RESULTS["transpose8"]["timing"]}
    assert ("transpose_naive_1e", (8, 32)) in shapes and ("transpose_naive", (32, 8)) in shapes


# ----------------------------------------------------------------------------------------------- D: GEMM
def test_gemm_ffma_count_is_mnk():
    """Every kernel does one FFMA per multiply-add: M N K thread-level FFMAs at 4096^3."""
    for name, m in RESULTS["gemm"]["ncu_4096"].items():
        assert m["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] == 4096 ** 3, name


def test_gemm_checked_and_complete():
    names = {t["name"] for t in RESULTS["gemm"]["timing_4096"]}
    for tile in (16, 32):
        for layout in ("", "_bt"):
            for pad in ("", "_pad", "_pad4"):
                assert f"gemm_tiled{tile}{layout}{pad}" in names
    assert all(c["wrong"] == 0 for c in RESULTS["gemm"]["check"])
    assert all(t["nan"] == 0 and t["runs"] == 20 for t in RESULTS["gemm"]["timing_4096"])
    assert set(RESULTS["gemm"]["counters"]) == {"64x64x64", "70x45x33"}


def test_ffma_peak_flop_count_and_ceiling():
    pk, p = RESULTS["device"]["ffma_peak"], RESULTS["device"]["properties"]
    assert pk["flop"] == 2 * 8 * 65536 * (p["sm_count"] * 8) * 256
    ceiling = 2 * 128 * p["sm_count"] * p["clock_khz"] * 1e3 / 1e9   # 128 FP32 lanes per SM
    assert pk["gflops_max"] <= ceiling * 1.001
    assert pk["ncu"]["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] * 2 == pk["flop"]


# ----------------------------------------------------------------------------------------------- A: classes3
VEC_SIZES = {"char4": 4, "uchar4": 4, "short2": 4, "int2": 8, "int4": 16, "float2": 8, "float4": 16, "double2": 16}


@pytest.mark.parametrize("vec", sorted(VEC_SIZES))
def test_vector_copy_sectors(vec):
    k = RESULTS["classes3"]["kernels"][f"vcopy_{vec}_2x256"]
    size = VEC_SIZES[vec]
    expect = sum(sectors([size * (32 * w + lane) for lane in range(32)], size) for w in range(16))
    assert k["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == expect
    assert k["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == expect
    assert k["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 16   # one vector load per warp


def test_constant_memory_is_not_global():
    """LDC (constant bank) reads do not count as global loads: only in[] is a global load."""
    for name in ("const_uniform_2x256", "const_divergent_2x256", "const_divergent4_2x256"):
        k = RESULTS["classes3"]["kernels"][name]
        loads = 0 if name.startswith("const_divergent") else 16   # const_uniform also loads in[]
        assert k["smsp__inst_executed_op_global_ld.sum"] == loads, name


def test_classes3_complete_and_checked():
    ks = RESULTS["classes3"]["kernels"]
    assert len(ks) == 64 and {"tred<128>", "tred<256>", "tcopy<float>", "tcopy<double>"} <= set(ks)
    assert RESULTS["classes3"]["checks"] and all(v == "OK" for v in RESULTS["classes3"]["checks"].values())
    assert set(parse3.DATA_DEPENDENT) <= set(ks)


def test_scan_racecheck():
    san = RESULTS["sanitizer"]
    assert san["classes3_scan"]["kernels"] == ["scan_hillis_steele_inplace_racy_b256"]
    assert san["classes3_scan"]["racecheck"]["errors"] > 0
    assert san["classes3_memcheck"]["memcheck_errors"] == 0


# ----------------------------------------------------------------------------------------------- E: challenges
def test_challenges_checked_race_free():
    for block in ("challenges", "challenges_first_call"):
        c = RESULTS[block]
        assert c["check"] and all(x["wrong"] == 0 for x in c["check"])
        assert all(t.get("wrong", 0) == 0 and t.get("nan", 0) == 0 for t in c["timing"])
        assert c["sanitizer"]["challenges_once"]["racecheck"]["displayed"] == 0
        assert c["sanitizer"]["challenges_memcheck"]["memcheck_errors"] == 0


def test_lesson08_challenge_store_sectors_brute_force():
    small = RESULTS["challenges"]["ncu_small"]
    n = 64
    for variant, (bx, by), per_thread in (("lesson08_challenge/baseline", (32, 8), 4),
                                          ("lesson08_challenge/solution", (8, 32), 1)):
        st_sec = 0
        for warp in warps_of_block(bx, by):
            for j in range(per_thread):   # the baseline's 4 rows a thread: row ty + 8 j
                st_sec += sectors([4 * (x * n + y + 8 * j) for x, y in warp])
        blocks = (n // bx) * (n // (by * per_thread))
        m = small[variant]["64x64"]
        assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == st_sec * blocks, variant


def test_lesson09_challenge_reference_is_conflict_free():
    small = RESULTS["challenges"]["ncu_small"]
    for shape in ("64x64", "33x45"):
        assert small["lesson09_challenge/solution"][shape]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 0
        assert small["lesson09_challenge/baseline"][shape]["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] > 0


def test_lesson10_challenge_fewer_wavefronts_per_ffma():
    small = RESULTS["challenges"]["ncu_small"]

    def per_ffma(v):
        m = small[v]["64x64x64"]
        return m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] / (
            m["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] / 32)

    assert per_ffma("lesson10_challenge/solution") < per_ffma("lesson10_challenge/baseline")
    for v in ("lesson10_challenge/baseline", "lesson10_challenge/solution", "lesson10_challenge/alt_4x4"):
        assert small[v]["64x64x64"]["smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"] == 64 ** 3


def test_first_call_rename_is_the_same_kernel():
    """raw3's 'p2_challenge/solution' is today's alt_staged_loop.cu: same counters in both calls."""
    a = RESULTS["challenges_first_call"]["ncu_small"]["p2_challenge/alt_staged_loop"]["n=4096"]
    b = RESULTS["challenges"]["ncu_small"]["p2_challenge/alt_staged_loop"]["n=4096"]
    for key in ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                "smsp__inst_executed_op_shared_ld.sum"):
        assert a[key] == b[key]
