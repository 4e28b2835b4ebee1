"""labsim against the H200's counters for lesson 10's GEMM kernels (measurements/h200/gemm/, 64³ and 70×45×33).

Every counter of every kernel is exact: labsim counts what the compiled kernel does (issue 17,
labsim.cuda.sass): ptxas merges four ``As[ty][k]`` reads of an unpadded 16-byte-aligned row into one ``LDS.128``
(also ``Bs[tx][k]`` in the transposed-B layout), and the guarded ``C`` store is a branch, so warps with no
active lane do not execute it.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import labsim.cuda as lc

H = Path(__file__).resolve().parents[2] / "measurements" / "h200" / "gemm"
GLOBAL = ["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
          "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
          "smsp__inst_executed_op_global_ld.sum"]
SHARED = ["smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum",
          "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
          "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"]


def _recorded() -> dict:
    path = H / "results.json"
    if not path.is_file():
        pytest.skip("GEMM counters not recorded")
    return json.loads(path.read_text(encoding="utf-8"))["counters"]


def _source(name: str) -> tuple[str, int]:
    if name == "gemm_naive":
        return (H / "gemm_naive.cuh").read_text(encoding="utf-8"), 16
    tile = 16 if "16" in name else 32
    src = (H / "gemm_tiled.cuh").read_text(encoding="utf-8").replace("#define TILE 16", f"#define TILE {tile}")
    if "_pad" in name:
        src = src.replace("#define PAD 0", "#define PAD 1")
    if "_bt" in name:
        src = src.replace("#define BT 0", "#define BT 1")
    return src, tile


def _run(name: str, shape: str):
    M, N, K = map(int, shape.split("x"))
    src, tile = _source(name)
    rng = np.random.default_rng(0)
    args = (rng.random((M, K), dtype=np.float32), rng.random((K, N), dtype=np.float32),
            np.zeros((M, N), np.float32), M, N, K)
    kernel = "gemm_naive" if name == "gemm_naive" else "gemm_tiled"
    return lc.compile(src, f"{name}.cu").launch(kernel, (-(-N // tile), -(-M // tile)), (tile, tile), args).stats


CASES = [(shape, name) for shape in ("64x64x64", "70x45x33")
         for name in ("gemm_naive", "gemm_tiled16", "gemm_tiled16_pad", "gemm_tiled16_bt", "gemm_tiled16_bt_pad",
                      "gemm_tiled32", "gemm_tiled32_pad", "gemm_tiled32_bt", "gemm_tiled32_bt_pad")]


@pytest.mark.parametrize("shape, name", CASES)
def test_gemm_counters_against_the_h200(shape, name):
    """Every counter exact: the global ones, the shared stores, the shared loads with ``As[ty][k]`` (and
    ``Bs[tx][k]`` with BT) merged four to one LDS.128, and the guarded ``C`` store behind a branch (executed by
    warps with an active lane only)."""
    h = _recorded()[shape][name]
    m = _run(name, shape).metrics
    for key in GLOBAL + SHARED + ["smsp__inst_executed_op_global_st.sum"]:
        assert m[key] == h[key], key


@pytest.mark.parametrize("name", ["gemm_tiled16", "gemm_tiled16_bt", "gemm_tiled32_pad"])
def test_gemm_source_rules_equal_the_sass(name, monkeypatch):
    """Without nvcc (LABSIM_SASS=0) the source rules give the same counters as the SASS."""
    h = _recorded()["70x45x33"][name]
    monkeypatch.setenv("LABSIM_SASS", "0")
    st = _run(name, "70x45x33")
    assert st.counting == "source-rules"
    for key in GLOBAL + SHARED + ["smsp__inst_executed_op_global_st.sum"]:
        assert st.metrics[key] == h[key], key


def test_lesson10_kernel_at_64_cubed():
    """Lesson 10's exercise kernel (TILE 16, unpadded): the H200's 10240 shared-load instructions and 12288
    wavefronts at 64³ (recorded as gemm_tiled16, the same kernel body)."""
    root = Path(__file__).resolve().parents[2]
    path = root / "grading" / "exercises" / "lesson10" / "solution.cu"
    if not path.is_file():
        pytest.skip("lesson 10's solution is not in the repo yet")
    h = _recorded()["64x64x64"]["gemm_tiled16"]
    assert (h["smsp__inst_executed_op_shared_ld.sum"], h["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]) \
        == (10240, 12288)
    prog = lc.compile(path.read_text(encoding="utf-8"), "solution.cu")
    kernel = next(iter(prog.kernels))
    rng = np.random.default_rng(1)
    A, B = rng.random((64, 64), dtype=np.float32), rng.random((64, 64), dtype=np.float32)
    C = np.zeros((64, 64), np.float32)
    m = prog.launch(kernel, (4, 4), (16, 16), (A, B, C, 64, 64, 64)).stats.metrics
    assert np.allclose(C, A @ B, rtol=1e-4)
    for key in GLOBAL + SHARED + ["smsp__inst_executed_op_global_st.sum"]:
        assert m[key] == h[key], key
