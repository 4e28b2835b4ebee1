"""labsim.cuda remembers a unary step (int64 conversion, scaling a row index, ``x + constant``) for the array
object it saw last (``expr.UNARY_MEMO``): a loop re-evaluating ``sh[ty + 16][k]`` converts and scales ``ty`` once.
These kernels change the inputs of such steps inside the loop (a variable assigned a new value, an element of a
per-thread array written in place, which reading gives as a view) and compare every thread's result with a plain
Python evaluation of the same C, and with the memo switched off."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from labsim import cuda
from labsim.cuda import expr

SRC = """
__global__ void k(int* out, int n) {{
    __shared__ int sh[{rows}][{w}];
    for (int e = threadIdx.x; e < {rows} * {w}; e += blockDim.x) sh[e / {w}][e % {w}] = e / {w} * 100 + e % {w};
    __syncthreads();
    int t = threadIdx.x;
    int arr[2];
    arr[0] = t;
    arr[1] = 0;
    int acc = 0;
    for (int i = 0; i < n; ++i) {{
        acc += (t + {c1}) * {s} + i;
        acc += sh[(t + {c1}) % {rows}][i % {w}];
        acc += sh[(arr[0] + {c2}) % {rows}][{w} - 1] * 3;
        arr[0] = arr[0] + 1;
        if (i == {m}) t = t + 5;
    }}
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}}
"""


def reference(threads, blocks, rows, w, c1, c2, s, n, m):
    out = []
    for _ in range(blocks):
        for tx in range(threads):
            t, a0, acc = tx, tx, 0
            for i in range(n):
                acc += (t + c1) * s + i
                acc += (t + c1) % rows * 100 + i % w
                acc += ((a0 + c2) % rows * 100 + w - 1) * 3
                a0 += 1
                if i == m:
                    t += 5
            out.append(acc)
    return np.array(out, np.int32)


@settings(max_examples=30, deadline=None)
@given(threads=st.sampled_from([32, 64]), blocks=st.integers(1, 3), rows=st.integers(1, 8),
       w=st.integers(1, 8), c1=st.integers(0, 40), c2=st.integers(0, 40), s=st.integers(1, 40),
       n=st.integers(1, 6), m=st.integers(0, 6))
def test_loops_that_change_a_steps_input_match_plain_evaluation(threads, blocks, rows, w, c1, c2, s, n, m):
    prog = cuda.compile(SRC.format(rows=rows, w=w, c1=c1, c2=c2, s=s, m=m), "k.cu")
    want = reference(threads, blocks, rows, w, c1, c2, s, n, m)
    got = {}
    for memo in (True, False):
        old = expr.UNARY_MEMO
        expr.UNARY_MEMO = memo
        try:
            out = np.zeros(threads * blocks, np.int32)
            res = prog.launch("k", blocks, threads, (out, n))
            got[memo] = (out, res.stats.metrics)
        finally:
            expr.UNARY_MEMO = old
    assert np.array_equal(got[True][0], want)
    assert np.array_equal(got[False][0], want)
    assert got[True][1] == got[False][1]


def test_a_value_read_from_a_per_thread_array_does_not_follow_later_writes():
    """``int x = a[0]; a[0] = 100;`` leaves x as read (the element's column was once handed out as a view)."""
    prog = cuda.compile("""
__global__ void k(int* out) {
    int a[2];
    a[0] = threadIdx.x;
    int x = a[0];
    int y = a[0] + 0;
    a[0] = 100;
    out[threadIdx.x] = x * 1000 + y;
}
""", "k.cu")
    out = np.zeros(32, np.int32)
    prog.launch("k", 1, 32, (out,))
    assert out.tolist() == [t * 1000 + t for t in range(32)]
