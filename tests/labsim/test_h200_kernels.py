"""Whole kernels against the H200: the lesson-9 transposes, naive transpose and copy of measurements/h200/.

The CUDA sources are measurements/h200/microbench.cu; these are the same kernels through labsim's Python API.
Requests, sectors, wavefronts and bank conflicts must equal Nsight Compute's. Instruction counts
(smsp__inst_executed_*) depend on how ptxas chose between branches and predication, which labsim does not
model per kernel: they are checked only where the choice is known (the first, predicated loop).
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from labsim import launch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(ROOT, "measurements", "h200", "results.json"), encoding="utf-8") as f:
    H200 = json.load(f)

EXACT = [
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "smsp__inst_executed_op_global_ld.sum", "smsp__inst_executed_op_shared_st.sum",
]


def seed_transpose(blk, inp, out, M, N, pad):
    """The lesson-9 kernel (TILE_DIM 32, BLOCK_ROWS 8) with both bounds guards."""
    w = 32 + pad
    tile = blk.shared((32, w), np.float32, name="tile")
    x, y = blk.bx * 32 + blk.tx, blk.by * 32 + blk.ty
    for j in range(0, 32, 8):
        with blk.where((y + j < M) & (x < N)):
            blk.sstore(tile, (blk.ty + j) * w + blk.tx, blk.load(inp, (y + j) * N + x))
    blk.sync()
    x, y = blk.by * 32 + blk.tx, blk.bx * 32 + blk.ty
    for j in range(0, 32, 8):
        with blk.where((y + j < N) & (x < M)):
            blk.store(out, (y + j) * M + x, blk.sload(tile, blk.tx * w + blk.ty + j))


def naive(blk, inp, out, n):
    x, y = blk.bx * 32 + blk.tx, blk.by * 32 + blk.ty
    for j in range(0, 32, 8):
        blk.store(out, x * n + y + j, blk.load(inp, (y + j) * n + x))


def copy(blk, inp, out, n):
    x, y = blk.bx * 32 + blk.tx, blk.by * 32 + blk.ty
    for j in range(0, 32, 8):
        blk.store(out, (y + j) * n + x, blk.load(inp, (y + j) * n + x))


CASES = [(f"transpose_tiled_pad{p}_{m}x{n}", p, m, n) for p in (0, 1, 2) for m, n in ((64, 64), (33, 45))]


@pytest.mark.parametrize("name,pad,M,N", CASES, ids=[c[0] for c in CASES])
def test_lesson9_transpose_matches_h200(name, pad, M, N):
    A = np.random.default_rng(0).random((M, N), dtype=np.float32)
    B = np.zeros((N, M), np.float32)
    st = launch(seed_transpose, ((N + 31) // 32, (M + 31) // 32), (32, 8), (A, B, M, N, pad))
    assert np.array_equal(B, A.T)
    for metric in EXACT:
        assert st.metrics[metric] == H200[name][metric], metric


@pytest.mark.parametrize("name,kernel", [("transpose_naive_64x64", naive), ("copy_64x64", copy)])
def test_naive_and_copy_match_h200(name, kernel):
    A = np.random.default_rng(0).random((64, 64), dtype=np.float32)
    st = launch(kernel, (2, 2), (32, 8), (A, np.zeros_like(A), 64))
    for metric in EXACT:
        if "shared" not in metric:
            assert st.metrics[metric] == H200[name][metric], metric


@pytest.mark.parametrize("name,index,returns", [
    ("gatom_f32_contig_w1", lambda blk: blk.tx, True),
    ("gred_f32_contig_w1", lambda blk: blk.tx, False),
    ("gred_f32_same_w1", lambda blk: blk.tx * 0, False),
])
def test_global_atomics_match_h200(name, index, returns):
    def kernel(blk, acc):
        blk.atomic_add(acc, index(blk), np.float32(1), returns=returns)

    st = launch(kernel, 1, 32, (np.zeros(32, np.float32),))
    op = "atom" if returns else "red"
    for what in ("requests", "sectors"):
        metric = f"l1tex__t_{what}_pipe_lsu_mem_global_op_{op}.sum"
        assert st.metrics[metric] == H200[name][metric], metric
