"""Tests of the round-2 H200 recordings: the parsers on hand-written inputs, and the recorded files against
facts computed here independently (brute force over the kernels' thread mappings, plain arithmetic).

Run: .venv/bin/python -m pytest measurements/h200/test_round2.py -q
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import round2_parse as r2  # noqa: E402

HARRIS = r2.HARRIS_NAMES


def _load(rel: str) -> dict:
    return json.loads((HERE / rel).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------------------------- parsers
@settings(max_examples=50, deadline=None)
@given(n=st.sampled_from([32, 64, 1024, 8192]),
       ms=st.lists(st.floats(min_value=1e-3, max_value=1e3, allow_nan=False), min_size=1, max_size=40))
def test_bandwidth_record_arithmetic(n, ms):
    rec = r2.bandwidth_record("copy", n, ms, 10, 20)
    srt = sorted(ms)
    mid = len(srt) // 2
    med = srt[mid] if len(srt) % 2 else (srt[mid - 1] + srt[mid]) / 2
    assert rec["median_ms"] == pytest.approx(med)
    assert rec["gbps_median"] == pytest.approx(8 * n * n / (med / 1000) / 1e9)
    assert rec["gbps_min"] <= rec["gbps_median"] * (1 + 1e-12) and rec["gbps_median"] <= rec["gbps_max"] * (1 + 1e-12)
    assert rec["runs"] == len(ms)


def test_bandwidth_record_rejects_bad_input():
    with pytest.raises(ValueError, match="no timed runs"):
        r2.bandwidth_record("copy", 1024, [], None, None)
    with pytest.raises(ValueError, match="non-positive"):
        r2.bandwidth_record("copy", 1024, [1.0, 0.0], None, None)


ANALYSIS_SAMPLE = """\
========= COMPUTE-SANITIZER
========= Error: Race reported between Write access at k+0x370 in g.cuh:44
=========     and Read access at k+0x380 in g.cuh:53 [1024 hazards]
=========     and Read access at k+0x3a0 in g.cuh:53 [768 hazards]
========= 
========= Warning: Race reported between Write access at k+0x360 in g.cuh:40
=========     and Read access at k+0x390 in g.cuh:53 [2048 hazards]
========= 
========= RACECHECK SUMMARY: 2 hazards displayed (1 error, 1 warning)
"""

HAZARD_SAMPLE = """\
========= Error: Potential RAW hazard detected at __shared__ 0x414 in block (0,0,0) :
=========     Write Thread (5,0,0) at k+0x360 in race.cu:26
=========     Read Thread (0,5,0) at k+0x3c0 in race.cu:38
=========     Current Value : 0
========= Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x820 in block (0,0,0) :
=========     Write Thread (0,0,0) at k+0x380 in race.cu:26
=========     Read Thread (8,0,0) at k+0x3c0 in race.cu:38
=========     Current Value : 0
========= Error: Potential WAR hazard detected at __shared__ 0x418 in block (1,0,0) :
=========     Read Thread (0,6,0) at k+0x3c0 in race.cu:38
=========     Write Thread (6,0,0) at k+0x360 in race.cu:26
=========     Current Value : 0
========= RACECHECK SUMMARY: 3 hazards displayed (2 errors, 1 warning)
"""


def test_parse_racecheck_analysis_sample():
    out = r2.parse_racecheck_analysis(ANALYSIS_SAMPLE)
    assert [(p["severity"], p["first"]["line"], p["second"]["line"], p["hazards"]) for p in out["pairs"]] == [
        ("error", 44, 53, 1024), ("error", 44, 53, 768), ("warning", 40, 53, 2048)]
    assert out["pairs"][1]["second"]["pc"] == "0x3a0"
    assert out["summary"] == {"displayed": 2, "errors": 1, "warnings": 1}


def test_parse_racecheck_hazards_sample():
    r2._warp.bdx = 32
    out = r2.parse_racecheck_hazards(HAZARD_SAMPLE)
    assert out["parsed"] == 3
    got = {(g["severity"], g["kind"], g["first"]["line"], g["second"]["line"], g["same_warp"]): g["count"]
           for g in out["groups"]}
    # thread (5,0,0) is warp 0, (0,5,0) is warp 5 (block x = 32); (0,0,0) and (8,0,0) share warp 0
    assert got == {("error", "RAW", 26, 38, False): 1, ("warning", "RAW", 26, 38, True): 1,
                   ("error", "WAR", 38, 26, False): 1}
    assert out["summary"]["errors"] == 2


SOURCE_SAMPLE = '''"Kernel Name","k",
"Address","Source","Instructions Executed","L1 Conflicts Shared N-Way","L1 Wavefronts Shared","L1 Wavefronts Shared Ideal"
"0x10","      S2R R8, SR_TID.Y","524288","0","0","0"
"0x20","      @!P4 STS [R15], R10 ;","524288","1","524288","524288"
"0x30","      LDS R13, [R13+0x60] ;","524288","32","16,777,216","524288"
'''


def test_parse_source_csv_sample():
    out = r2.parse_source_csv(SOURCE_SAMPLE)
    assert [i["sass"].split()[0] for i in out["k"]] == ["@!P4", "LDS"]
    assert out["k"][1]["wavefronts"] == 16777216 and out["k"][1]["wavefronts_ideal"] == 524288


# ----------------------------------------------------------------------------------------------- recorded data
def test_bandwidth_results_schema_and_consistency():
    data = _load("bandwidth/results.json")
    assert set(data) == {"meta", "records"}
    assert {"gpu", "driver", "nvcc", "ncu", "date", "command"} <= set(data["meta"])
    keys = {"name", "n", "runs", "median_ms", "gbps_median", "gbps_min", "gbps_max", "dram_bytes_read",
            "dram_bytes_write"}
    assert all(set(r) == keys for r in data["records"])
    assert sorted((r["name"], r["n"]) for r in data["records"]) == sorted((k, n) for k in HARRIS for n in (1024, 8192))
    details = {(d["name"], d["n"]): d for d in _load("bandwidth/details.json")["runs"]}
    for r in data["records"]:
        ms = details[(r["name"], r["n"])]["ms"]
        assert r["runs"] == len(ms) >= 20
        assert r["median_ms"] == pytest.approx(statistics.median(ms))
        assert r["gbps_median"] == pytest.approx(2 * r["n"] ** 2 * 4 / (r["median_ms"] / 1e3) / 1e9)
        assert r["gbps_min"] <= r["gbps_median"] <= r["gbps_max"]
    # At 8192² (256 MiB a matrix, five times the L2) every kernel reads at least the input from DRAM.
    for r in data["records"]:
        if r["n"] == 8192:
            assert r["dram_bytes_read"] >= 8192 ** 2 * 4


def test_results_files_are_up_to_date():
    """The committed JSON equals what round2_parse.py builds from raw2/ now."""
    results, details = r2.build_bandwidth()
    assert _load("bandwidth/results.json") == json.loads(json.dumps(results))
    assert _load("bandwidth/details.json") == json.loads(json.dumps(details))
    assert _load("gemm/results.json") == json.loads(json.dumps(r2.build_gemm()))
    assert _load("racecheck/results.json") == json.loads(json.dumps(r2.build_racecheck()))
    assert _load("n8192/results.json") == json.loads(json.dumps(r2.build_n8192()))


def test_gemm_outputs_right_and_counters_recorded():
    data = _load("gemm/results.json")
    names = {"gemm_naive", "gemm_tiled16", "gemm_tiled16_pad", "gemm_tiled16_bt", "gemm_tiled16_bt_pad",
             "gemm_tiled32", "gemm_tiled32_pad", "gemm_tiled32_bt", "gemm_tiled32_bt_pad"}
    assert {c["name"] for c in data["check"]} == names
    assert all(c["wrong"] == 0 and c["rel_err"] < 1e-5 for c in data["check"])
    for shape in ("64x64x64", "70x45x33"):
        assert set(data["counters"][shape]) == names
    t = {x["name"]: x for x in data["timing"]}
    assert names | {"cublas_sgemm", "torch_matmul_fp32_no_tf32"} == set(t)
    assert all(x["rel_err_vs_cublas"] is not None and x["rel_err_vs_cublas"] < 1e-5 for n, x in t.items()
               if n.startswith("gemm_"))
    # 4096³: 2·4096³ flop over the median time
    x = t["gemm_tiled16"]
    assert x["gflops_median"] == pytest.approx(2 * 4096 ** 3 / (x["median_ms"] / 1e3) / 1e9)


def test_gemm_global_counts_match_the_tiling_arithmetic():
    """At 64³ each block loads K/T tiles of A and of B, T rows of T floats each: requests and sectors from the
    tile arithmetic alone (one request per warp-row instruction, 4-byte floats, 32-byte sectors)."""
    c = _load("gemm/results.json")["counters"]["64x64x64"]
    for tile in (16, 32):
        blocks, steps, warps = (64 // tile) ** 2, 64 // tile, tile * tile // 32
        k = c[f"gemm_tiled{tile}"]
        assert k["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == blocks * steps * warps * 2
        assert k["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == blocks * steps * 2 * tile * tile * 4 // 32


def _transpose_nosync_pairs(M: int, N: int) -> tuple[int, int]:
    """Brute force over race.cu's thread mapping: elements of each block's tile read by a thread other than their
    writer, split into (other warp, same warp). Block (32, 8), 4 rows per thread, warp = threadIdx.y."""
    cross = same = 0
    for by in range(-(-M // 32)):
        for bx in range(-(-N // 32)):
            writer = {}
            for ty in range(8):
                for tx in range(32):
                    for j in range(0, 32, 8):
                        if by * 32 + ty + j < M and bx * 32 + tx < N:
                            writer[(ty + j, tx)] = (tx, ty)
            for ty in range(8):
                for tx in range(32):
                    for j in range(0, 32, 8):
                        # read tile[tx][ty + j] when row < N && col < M of the output (swapped block indices)
                        if bx * 32 + ty + j < N and by * 32 + tx < M:
                            w = writer.get((tx, ty + j))
                            if w is None or w == (tx, ty):
                                continue
                            if w[1] == ty:
                                same += 1
                            else:
                                cross += 1
    return cross, same


@pytest.mark.parametrize("shape", ["32x32", "64x64", "33x45"])
def test_racecheck_transpose_counts_are_bytes_of_racing_elements(shape):
    """racecheck's hazard report for the barrier-less transpose: one hazard per byte of each tile element whose
    reader is not its writer; errors = other warp, warnings = same warp; the analysis report's pair counts
    add up to the same total."""
    M, N = map(int, shape.split("x"))
    cross, same = _transpose_nosync_pairs(M, N)
    cases = {(c["mode"], c["shape"]): c for c in _load("racecheck/results.json")["cases"]
             if c["kernel"] == "transpose_tiled_nosync"}
    hz = cases[("hazard", shape)]
    assert hz["summary"]["errors"] == 4 * cross and hz["summary"]["warnings"] == 4 * same
    assert hz["parsed"] == 4 * (cross + same)
    assert sum(g["count"] for g in hz["groups"] if g["same_warp"]) == 4 * same
    an = cases[("analysis", shape)]
    assert sum(p["hazards"] for p in an["pairs"]) == 4 * (cross + same)
    assert {(p["first"]["line"], p["second"]["line"]) for p in an["pairs"]} <= {(26, 38), (38, 26)}


def test_records_loader():
    from figures import recordings as records   # the one reader of these files (repo and student kit)

    assert records.bandwidth_record("transpose_naive", 8192)["runs"] >= 20
    assert records.bandwidth_record("transpose_naive", 12345) is None
    assert records.gemm_counters("gemm_tiled16")["smsp__inst_executed_op_shared_ld.sum"] == 10240
    assert records.gemm_gflops("cublas_sgemm") > records.gemm_gflops("gemm_tiled32")
    assert records.kernel_counters("p2", "p2_contig")["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 2048
    with pytest.raises(KeyError, match="unknown H200 recording"):
        records.load("nope")
