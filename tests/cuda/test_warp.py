"""Warp-level primitives (issue 23 item 1) against per-lane references written from the CUDA Programming Guide:
shuffles with width, votes, ``__reduce_*_sync``, ``__activemask``, ``__syncwarp``; the undefined cases are
named errors; shuffles are not memory instructions."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labsim
import labsim.cuda as lc
from labsim.cuda.warp import WarpSyncError

SHFL = r'''
__global__ void k(const {T}* x, const int* arg, {T}* out, int width) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = {fn}(0xffffffff, x[i], arg[i]{w});
}}
'''


def ref_shuffle(fn: str, x: np.ndarray, arg: np.ndarray, width: int) -> np.ndarray:
    """The Programming Guide's words, lane by lane (independent of labsim.cuda.warp's PTX formulation)."""
    out = np.empty_like(x)
    for t in range(x.size):
        warp, lane = divmod(t, 32)
        start = lane // width * width
        a = int(arg[t])
        if fn == "__shfl_sync":
            src = start + a % width                       # srcLane modulo width, within the caller's group
        elif fn == "__shfl_up_sync":
            src = lane - a if lane - a >= start else lane  # below the group: the caller's own value
        elif fn == "__shfl_down_sync":
            src = lane + a if lane + a < start + width else lane
        else:
            src = lane ^ a
            if src >= start + width:                       # a later group: own value; an earlier one is read
                src = lane
        out[t] = x[warp * 32 + src]
    return out


@settings(max_examples=40, deadline=None)
@given(fn=st.sampled_from(["__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"]),
       width=st.sampled_from([1, 2, 4, 8, 16, 32, None]), dtype=st.sampled_from(["float", "int", "double",
                                                                                 "unsigned long long"]),
       seed=st.integers(0, 2**31), uniform=st.booleans())
def test_shuffles_match_the_programming_guide(fn, width, dtype, seed, uniform):
    rng = np.random.default_rng(seed)
    npt = {"float": np.float32, "int": np.int32, "double": np.float64, "unsigned long long": np.uint64}[dtype]
    n = 64
    x = rng.integers(0, 1 << 30, n).astype(npt)
    lo = -40 if fn == "__shfl_sync" else 0
    arg = np.full(n, rng.integers(0, 32), np.int32) if uniform else rng.integers(lo, 32, n).astype(np.int32)
    out = np.zeros(n, npt)
    src = SHFL.format(T=dtype, fn=fn, w="" if width is None else ", width")
    lc.compile(src).launch("k", 2, 32, (x, arg, out, 32 if width is None else width))
    assert np.array_equal(out, ref_shuffle(fn, x, arg, 32 if width is None else width))


VOTE = r'''
__global__ void k(const int* on, const int* pred, unsigned* bal, int* any, int* all, unsigned* am,
                  int* red, const int* v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (on[i]) {
        unsigned m = __activemask();
        am[i] = m;
        bal[i] = __ballot_sync(m, pred[i]);
        any[i] = __any_sync(m, pred[i]);
        all[i] = __all_sync(m, pred[i] != 0);
        red[i] = __reduce_OP_sync(m, v[i]);
        __syncwarp(m);
    }
}
'''


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), op=st.sampled_from(["add", "min", "max", "and", "or", "xor"]),
       signed=st.booleans())
def test_votes_and_reductions_over_the_active_lanes(seed, op, signed):
    rng = np.random.default_rng(seed)
    n = 96
    on = (rng.random(n) < rng.random()).astype(np.int32)
    pred = (rng.random(n) < 0.5).astype(np.int32)
    if op in ("and", "or", "xor"):
        signed = False
    v = rng.integers(-2**31 if signed else 0, 2**31, n).astype(np.int32 if signed else np.uint32)
    outs = [np.zeros(n, t) for t in (np.uint32, np.int32, np.int32, np.uint32, np.int32 if signed else np.uint32)]
    src = VOTE.replace("OP", op).replace("const int* v", "const int* v" if signed else "const unsigned* v")
    src = src.replace("int* red", "int* red" if signed else "unsigned* red")
    lc.compile(src).launch("k", 1, n, (on, pred, *outs, v))
    bal, any_, all_, am, red = outs
    for w in range(n // 32):
        s = slice(32 * w, 32 * w + 32)
        lanes = np.nonzero(on[s])[0]
        if not lanes.size:
            continue
        mask = sum(1 << int(k) for k in lanes)
        ballot = sum(1 << int(k) for k in lanes if pred[s][k])
        vals = [int(x) for x in v[s][lanes]]
        if op == "add":
            want = sum(vals)
        elif op in ("min", "max"):
            want = min(vals) if op == "min" else max(vals)
        else:
            want = vals[0]
            for x in vals[1:]:
                want = {"and": want & x, "or": want | x, "xor": want ^ x}[op]
        want = np.array(want % (1 << 32), np.uint64).astype(np.uint32)
        for k in lanes:
            assert am[s][k] == mask and bal[s][k] == ballot
            assert any_[s][k] == (ballot != 0) and all_[s][k] == (ballot == mask)
            assert red[s][k].astype(np.uint32) == want, (op, vals)


BFLY = r'''
__global__ void k(const float* x, float* out) {
    float v = x[threadIdx.x];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);
    out[threadIdx.x] = v;
}
'''


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
def test_butterfly_reduction_and_no_memory_counters(schedule):
    """Every lane ends with its warp's sum; the counters are those of the one load and one store, exactly as for
    the same kernel with the shuffles replaced by arithmetic (a shuffle is not a memory instruction)."""
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(64, np.float32)
    st_ = lc.compile(BFLY).launch("k", 1, 64, (x, out), schedule=schedule).stats
    assert np.array_equal(out, np.repeat(x.reshape(2, 32).sum(1), 32))
    plain = lc.compile(BFLY.replace("__shfl_xor_sync(0xffffffff, v, o)", "v * (float)o")).launch(
        "k", 1, 64, (x, np.zeros(64, np.float32))).stats
    assert st_.metrics == plain.metrics
    assert st_.metrics["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 2
    assert st_.metrics["smsp__inst_executed_op_shared_ld.sum"] == 0


ERR = r'''
__global__ void k(float* x) {{
    float v = x[threadIdx.x];
    {body}
    x[threadIdx.x] = v;
}}
'''


@pytest.mark.parametrize("body,lane,what", [
    ("v = __shfl_sync(0x0000ffff, v, 0);", 16, "does not include the calling lane"),
    ("if (threadIdx.x < 16) v = __shfl_down_sync(0xffffffff, v, 1);", 0, "does not execute this call"),
    ("if (threadIdx.x < 16) v = __shfl_xor_sync(0x0000ffff, v, 16, 16);", None, None),  # later group: own
    ("if (threadIdx.x >= 16) v = __shfl_xor_sync(0xffff0000, v, 16);", 16, "reads lane 0"),
    ("v = __shfl_sync(0xffffffff, v, 0, 12);", 0, "width 12 is not a power of two"),
    ("if (threadIdx.x & 1) __syncwarp();", 1, "does not execute this call"),
    ("v = __shfl_sync(threadIdx.x < 16 ? 0xffffffff : 0xffff0000, v, 0);", 0, "different masks"),
    ("v += __ballot_sync(1u << threadIdx.x, v > 0);", None, None),
])
def test_undefined_warp_intrinsics_are_named_errors(body, lane, what):
    x = np.ones(32, np.float32)
    prog = lc.compile(ERR.format(body=body), "warp.cu")
    if what is None:
        prog.launch("k", 1, 32, (x,))
        return
    with pytest.raises(WarpSyncError) as ei:
        prog.launch("k", 1, 32, (x,))
    e = ei.value
    assert isinstance(e, labsim.LabsimError) and isinstance(e, lc.CudaError)
    assert what in e.message and e.where["line"] == 4 and e.where["lane"] == lane
    assert str(e).startswith("warp.cu:4:") and "__s" in e.message


def test_exited_lanes_may_be_named_in_the_mask():
    """"all non-exited threads named in mask": a full mask after some lanes returned is fine, unless a lane reads
    an exited one."""
    src = r'''
    __global__ void k(float* x, int n) {
        if (threadIdx.x >= n) return;
        float v = x[threadIdx.x];
        v += __shfl_down_sync(0xffffffff, v, 1);
        x[threadIdx.x] = v;
    }
    '''
    prog = lc.compile(src, "warp.cu")
    x = np.arange(32, dtype=np.float32)
    with pytest.raises(WarpSyncError, match="reads lane 20, which does not take part"):
        prog.launch("k", 1, 32, (x, 20))
    prog = lc.compile(src.replace("v, 1)", "v, 0)"), "warp.cu")
    prog.launch("k", 1, 32, (x, 20))
    assert np.array_equal(x[:20], 2 * np.arange(20)) and np.array_equal(x[20:], np.arange(20, 32))


def test_legacy_and_host_uses_are_rejected_by_name():
    with pytest.raises(lc.CudaUnsupportedError, match="removed for sm_70.*__shfl_down_sync"):
        lc.compile("__global__ void k(float* x) { x[0] = __shfl_down(x[0], 1); }")
    with pytest.raises(lc.CudaError, match="only be called in device code"):
        lc.compile("void h() { unsigned m = __activemask(); }")
    with pytest.raises(lc.CudaCompileError, match="value must be an integer"):
        lc.compile("__global__ void k(float* x) { x[0] = __reduce_add_sync(0xffffffff, x[0]); }")
