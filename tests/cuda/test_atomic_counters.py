"""atomicAdd in CUDA C: a discarded result is a reduction (ncu's _op_red), a used one an atomic (_op_atom);
same-address lanes are serialised (H200: 32 sectors for 32 lanes on one float, measurements/h200/)."""
from __future__ import annotations

import numpy as np

from labsim import cuda

SRC = """
__global__ void red_same(float* acc) { atomicAdd(acc, 1.0f); }
__global__ void atom_contig(float* acc, float* old) { old[threadIdx.x] = atomicAdd(acc + threadIdx.x, 1.0f); }
"""


def test_red_and_atom_counters():
    prog = cuda.compile(SRC)
    acc = np.zeros(32, np.float32)
    m = prog.launch("red_same", 1, 32, (acc,)).metrics
    assert acc[0] == 32
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"] == 1
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"] == 32
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 0
    old = np.zeros(32, np.float32)
    m = prog.launch("atom_contig", 1, 32, (acc, old)).metrics
    assert old.tolist() == [32.0] + [0.0] * 31
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"] == 1
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum"] == 4
