"""Counters against the brute-force per-lane reference, over random patterns, dtypes, masks and block shapes."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

from labsim import FLOAT4, launch, warp_sectors, warp_wavefronts
from labsim.stats import METRIC_NAMES

from labsim_reference import global_counts, shared_counts, shared_warp_wavefronts, thread_layout

BLOCKS = [(32,), (64,), (48,), (33,), (32, 8), (16, 4), (8, 4, 2), (96,), (17, 3)]
GRIDS = [(1,), (2,), (3,), (2, 2)]
DTYPES = [np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.float16), np.dtype(np.int32), FLOAT4,
          np.dtype("V16")]


def positions(blk):
    """Launch-order position of each thread (clipped for the padding lanes of partial warps)."""
    threads = blk.bdx * blk.bdy * blk.bdz
    b = blk.bx + blk.gdx * (blk.by + blk.gdy * blk.bz)
    t = blk.tx + blk.bdx * (blk.ty + blk.bdy * blk.tz)
    return b * threads + t


@st.composite
def patterns(draw):
    block = draw(st.sampled_from(BLOCKS))
    grid = draw(st.sampled_from(GRIDS))
    n = int(np.prod(block)) * int(np.prod(grid))
    kind = draw(st.sampled_from(["stride", "random", "broadcast", "modulo"]))
    if kind == "stride":
        s, off = draw(st.integers(0, 40)), draw(st.integers(0, 40))
        idx = np.arange(n) * s + off
    elif kind == "random":
        idx = np.array(draw(st.lists(st.integers(0, 4 * n + 64), min_size=n, max_size=n)))
    elif kind == "broadcast":
        idx = np.full(n, draw(st.integers(0, 64)))
    else:
        m = draw(st.integers(1, 70))
        idx = (np.arange(n) * draw(st.integers(1, 9))) % m
    mode = draw(st.sampled_from(["all", "random", "prefix"]))
    if mode == "all":
        mask = np.ones(n, bool)
    elif mode == "prefix":
        mask = np.arange(n) % int(np.prod(block)) < draw(st.integers(0, int(np.prod(block))))
    else:
        mask = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    dtype = draw(st.sampled_from(DTYPES))
    return grid, block, idx.astype(np.int64), mask, dtype


def _array(dtype, n):
    return np.zeros(n * dtype.itemsize, dtype=np.uint8).view(dtype)


@settings(max_examples=120, deadline=None)
@given(patterns())
def test_global_load_and_store_counters_match_brute_force(case):
    grid, block, idx, mask, dtype = case
    A = _array(dtype, int(idx.max()) + 1)

    def kernel(blk, A, idx, mask):
        p = np.minimum(positions(blk), idx.size - 1)
        with blk.where(mask[p]):
            v = blk.load(A, idx[p])
            blk.store(A, idx[p], v)

    stats = launch(kernel, grid, block, (A, idx, mask))
    addrs = idx * dtype.itemsize
    req, sec, nbytes = global_counts(addrs, mask, grid, block, dtype.itemsize)
    m = stats.metrics
    assert m[METRIC_NAMES["global", "ld", "requests"]] == req
    assert m[METRIC_NAMES["global", "ld", "cost"]] == sec
    assert m[METRIC_NAMES["global", "st", "requests"]] == req
    assert m[METRIC_NAMES["global", "st", "cost"]] == sec
    assert stats.g_bytes_requested == 2 * nbytes
    assert (stats.gld_sectors, stats.gld_instr) == (sec, req)


@settings(max_examples=120, deadline=None)
@given(patterns())
def test_shared_wavefronts_match_brute_force(case):
    grid, block, idx, mask, dtype = case
    idx = idx % 512

    def kernel(blk, idx, mask):
        sh = blk.shared(512, dtype, name="sh")
        p = np.minimum(positions(blk), idx.size - 1)
        with blk.where(mask[p]):
            v = blk.sload(sh, idx[p])
            blk.sstore(sh, idx[p], v)

    stats = launch(kernel, grid, block, (idx, mask))
    m = stats.metrics
    for op in ("ld", "st"):
        req, wf, conf = shared_counts(idx * dtype.itemsize, mask, grid, block, dtype.itemsize, op)
        assert m[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum"] == wf
        assert m[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum"] == conf
    assert stats.shared_requests == 2 * req


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4096), min_size=32, max_size=32), st.lists(st.booleans(), min_size=32, max_size=32),
       st.sampled_from([2, 4, 8, 16]))
def test_single_warp_model_matches_reference(words, active, itemsize):
    addrs = np.array(words) * itemsize
    act = np.array(active)
    for op in ("ld", "st"):
        assert warp_wavefronts(addrs, act, itemsize, op=op) == shared_warp_wavefronts(addrs, act, itemsize, op)[0]
    expect = len({a // 32 for a, on in zip(addrs, act) if on})
    assert warp_sectors(addrs, act, itemsize) == expect


def test_instructions_executed_counts_predicated_warps():
    # 4 warps reach the load, only warps 2 and 3 have active lanes under the `if`.
    A = np.zeros(256, np.float32)

    def kernel(blk, A):
        with blk.where(blk.tx >= 64):
            blk.load(A, blk.tx)

    m = launch(kernel, 1, 128, (A,)).metrics
    assert m["smsp__inst_executed_op_global_ld.sum"] == 4
    assert m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 2


def test_thread_layout_reference_is_warp_major():
    # the reference's own layout must agree with CUDA's: x fastest, then y, then z
    lay = thread_layout((1,), (8, 4, 2))
    assert [t for _, t, _ in lay] == list(range(64))
    assert [w for _, _, w in lay][31:33] == [0, 1]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 40), min_size=32, max_size=32), min_size=1, max_size=4),
       st.lists(st.booleans(), min_size=32, max_size=32))
def test_atomic_sectors_match_brute_force(rows, active):
    from labsim.launch_records import atomic_sectors_per_warp
    addr = np.array(rows, dtype=np.int64) * 4
    act = np.broadcast_to(np.array(active), addr.shape)
    expect = []
    for r in range(addr.shape[0]):
        per_addr: dict[int, int] = {}
        for lane in range(32):
            if act[r, lane]:
                per_addr[int(addr[r, lane])] = per_addr.get(int(addr[r, lane]), 0) + 1
        worst: dict[int, int] = {}
        for a, n in per_addr.items():
            worst[a // 32] = max(worst.get(a // 32, 0), n)
        expect.append(sum(worst.values()))
    assert atomic_sectors_per_warp(addr, act).tolist() == expect
