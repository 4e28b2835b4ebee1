"""An ``if`` whose condition every lane of a full thread set meets runs its arm without a mask push
(``stmt.IF_ALL``): the mask would stay as it is. These kernels put such ifs (and ones some lanes fail) around
global and shared accesses, inside loops, with and without a ``break``/``continue``/``return`` in the arm (those
always push), in full thread sets and in ones with a partial warp; every counter, sampled warp, race and result
must equal the push-every-time path's, and the result a plain Python evaluation of the same C."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim import cuda
from labsim.cuda import stmt

SRC = """
__global__ void k(float* out, const float* x, int n, int lim, int brk) {{
    __shared__ float sh[128];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    sh[threadIdx.x] = x[t];
    __syncthreads();
    float acc = 0.0f;
    for (int i = 0; i < n; ++i) {{
        if (threadIdx.x < lim) {{
            acc += x[(t + i) % {size}] + sh[(threadIdx.x + i) % blockDim.x];
            {jump}
        }}
        acc += 1.0f;
    }}
    if (t < {size}) out[t] = acc;
}}
"""


def reference(x, threads, blocks, n, lim, brk, jump):
    size = x.size
    out = np.zeros(size, np.float32)
    for b in range(blocks):
        for tx in range(threads):
            t = b * threads + tx
            acc = np.float32(0)
            for i in range(n):
                stop = False
                if tx < lim:
                    acc = np.float32(acc + np.float32(x[(t + i) % size] + x[b * threads + (tx + i) % threads]))
                    if jump and i == brk:
                        if jump == "break":
                            stop = True
                        elif jump == "continue":
                            continue
                        else:
                            break          # return: nothing after the loop either
                if stop:
                    break
                acc = np.float32(acc + np.float32(1))
            else:
                out[t] = acc
                continue
            if jump != "return":
                out[t] = acc
    return out


def _sites(st_):
    return sorted((s.space, s.op, s.line, s.col, s.array, s.executed, s.requests, s.cost, s.conflicts,
                   s.bytes_requested, None if s.sample is None else (s.sample.block, s.sample.warp,
                                                                     s.sample.active.tolist(), s.sample.addr.tolist()))
                  for s in st_.instructions)


@settings(max_examples=40, deadline=None)
@given(threads=st.sampled_from([32, 64, 48]), blocks=st.integers(1, 3), n=st.integers(1, 4),
       lim=st.sampled_from([0, 7, 32, 64, 128]), brk=st.integers(0, 3),
       jump=st.sampled_from(["", "break", "continue", "return"]), seed=st.integers(0, 3))
def test_if_every_lane_takes_counts_as_with_a_push(threads, blocks, n, lim, brk, jump, seed):
    size = threads * blocks
    code = {"": "", "break": f"if (i == {brk}) break;", "continue": f"if (i == {brk}) continue;",
            "return": f"if (i == {brk}) return;"}[jump]
    prog = cuda.compile(SRC.format(size=size, jump=code), "k.cu")
    x = np.random.default_rng(seed).integers(-8, 9, size).astype(np.float32)
    got = []
    for on in (True, False):
        old = stmt.IF_ALL
        stmt.IF_ALL = on
        try:
            out = np.zeros(size, np.float32)
            r = prog.launch("k", blocks, threads, (out, x, n, lim, brk))
        finally:
            stmt.IF_ALL = old
        got.append((_sites(r.stats), r.stats.metrics, r.stats.race_count, [str(e) for e in r.stats.races], out))
    assert got[0][:4] == got[1][:4]
    assert np.array_equal(got[0][4], got[1][4])
    assert np.array_equal(got[0][4], reference(x, threads, blocks, n, lim, brk, jump))
