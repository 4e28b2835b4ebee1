"""Races (against a brute-force reference), the adversarial schedule, bounds, launch limits and bad input."""
from __future__ import annotations

import numpy as np

import labsim
import pytest
from hypothesis import given, settings, strategies as st

from labsim import (DivergentBarrierError, KernelError, LaunchError, MemoryArgumentError, MisalignedAddressError,
                    OutOfBoundsError, UnsupportedError, FLOAT4, launch)


def brute_force_races(wr, rd, threads, sync):
    """RAW + WAW hazards of `store sh[wr[t]]; [sync;] load sh[rd[t]]` in one block, by brute force.

    Lockstep order: all stores, then all loads. Within the store instruction the highest thread's value
    lands last. A hazard is an access whose conflicting partner (the address's final writer) is in another
    warp with no barrier between them.
    """
    final = {}
    for t in range(threads):
        final[wr[t]] = t                      # last writer in lane order
    waw = sum(1 for t in range(threads) if final[wr[t]] // 32 != t // 32)
    if sync:
        return waw, 0
    raw = sum(1 for t in range(threads) if rd[t] in final and final[rd[t]] // 32 != t // 32)
    return waw, raw


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8).map(lambda w: 32 * w), st.data(), st.booleans())
def test_race_counts_match_brute_force(threads, data, sync):
    wr = np.array(data.draw(st.lists(st.integers(0, 63), min_size=threads, max_size=threads)))
    rd = np.array(data.draw(st.lists(st.integers(0, 63), min_size=threads, max_size=threads)))

    def kernel(blk, wr, rd):
        sh = blk.shared(64, np.float32)
        blk.sstore(sh, wr[blk.tx], 1.0)
        if sync:
            blk.sync()
        blk.sload(sh, rd[blk.tx])

    stats = launch(kernel, 1, threads, (wr, rd))
    waw, raw = brute_force_races(list(wr), list(rd), threads, sync)
    assert stats.race_count == waw + raw
    kinds = {r.kind for r in stats.races}
    assert ("RAW" in kinds) == (raw > 0) or len(stats.races) == 100


def _transpose(blk, A, B, N, sync):
    tile = blk.shared((32, 33), np.float32, name="tile")
    x, y = blk.bx * 32 + blk.tx, blk.by * 32 + blk.ty
    for j in range(0, 32, 8):
        blk.sstore(tile, (blk.ty + j) * 33 + blk.tx, blk.load(A, (y + j) * N + x))
    if sync:
        blk.sync()
    x, y = blk.by * 32 + blk.tx, blk.bx * 32 + blk.ty
    for j in range(0, 32, 8):
        blk.store(B, (y + j) * N + x, blk.sload(tile, blk.tx * 33 + blk.ty + j))


@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
@pytest.mark.parametrize("sync", [True, False])
def test_adversarial_schedule_exposes_the_missing_barrier(schedule, sync):
    A = np.random.default_rng(1).random((64, 64), dtype=np.float32)
    B = np.zeros_like(A)
    stats = launch(_transpose, (2, 2), (32, 8), (A, B, 64, sync), schedule=schedule)
    correct = np.array_equal(B, A.T)
    if sync:
        assert correct and stats.race_count == 0
    else:
        assert stats.race_count > 0
        assert correct == (schedule == "lockstep")   # lockstep hides the bug; the adversarial order does not
        r = stats.races[0]
        # lockstep: every write comes first (RAW); adversarial: a later warp reads before the writers (WAR)
        kind = "RAW" if schedule == "lockstep" else "WAR"
        assert r.kind == kind and r.array == "tile" and r.first_line != r.second_line
        assert f"Potential {kind} hazard at __shared__ tile[" in str(r)


def test_out_of_bounds_names_array_index_thread_and_line():
    A = np.zeros(100, np.float32)

    def kernel(blk, A):
        blk.load(A, blk.bx * blk.bdx + blk.tx)

    with pytest.raises(OutOfBoundsError) as e:
        launch(kernel, 1, 128, (A,))
    msg = str(e.value)
    assert "A[100]" in msg and "100 elements" in msg and "thread (100,0,0)" in msg and "block (0,0,0)" in msg
    assert e.value.where["line"] == kernel.__code__.co_firstlineno + 1


def test_shared_out_of_bounds():
    def kernel(blk):
        sh = blk.shared((32, 32), np.float32, name="tile")
        blk.sstore(sh, blk.tx * 34, 0.0)

    with pytest.raises(OutOfBoundsError, match=r"tile\[32\]\[30\] \(flat index 1054\) but tile has 32×32 = 1024 elements.*thread \(31,0,0\)"):
        launch(kernel, 1, 32)


def test_misaligned_float4_from_padded_row_faults_and_aligned_row_does_not():
    def kernel(blk, row):
        tile = blk.shared((32, 33), np.float32, name="tile")
        blk.sload(tile, np.full(blk.tx.shape, row * 33 * 4), view=FLOAT4)

    launch(kernel, 1, 32, (4,))          # row 4 starts at 528 = 16 * 33: aligned
    with pytest.raises(MisalignedAddressError, match="misaligned address"):
        launch(kernel, 1, 32, (1,))      # row 1 starts at 132 bytes


@pytest.mark.parametrize("grid,block,match", [
    ((0,), (32,), "zero"), ((1,), (1025,), "1025 threads"), ((1,), (1, 1, 65), "dimension z"),
    ((1, 1, 1, 1), (32,), "4 dimensions"), ("x", (32,), "tuple"), ((1,), (32, 64), "2048 threads"),
])
def test_bad_launch_shapes(grid, block, match):
    with pytest.raises(LaunchError, match=match):
        launch(lambda blk: None, grid, block)


def test_launch_too_large_for_the_lab_is_refused_up_front():
    with pytest.raises(LaunchError, match="too large for the lab"):
        launch(lambda blk: None, (65535, 1024), (1024,))


def test_shared_memory_over_the_preset_limit():
    def kernel(blk):
        blk.shared(13000, np.float32)   # 52,000 bytes > 48 KiB

    with pytest.raises(LaunchError, match="too many resources requested for launch.*49152"):
        launch(kernel, 1, 32)


def test_divergent_barrier():
    def kernel(blk):
        with blk.where(blk.tx < 16):
            blk.sync()

    with pytest.raises(DivergentBarrierError, match=r"divergent barrier.*thread \(16,0,0\)"):
        launch(kernel, 1, 64)


def test_barrier_after_whole_block_exits_is_fine():
    def kernel(blk):
        blk.exit(blk.bx == 1)       # block 1 returns early; block 0 still synchronises
        blk.sync()

    launch(kernel, 2, 64)


@pytest.mark.parametrize("arr,match", [
    ([1.0, 2.0], "list, not a numpy array"),
    (np.zeros((8, 8), np.float32)[:, ::2], "not C-contiguous"),
    (np.zeros(8, np.complex64), "unsupported element type complex64"),
    (np.zeros(8, np.complex128), "unsupported element type complex128"),
    (np.zeros(8, bool), "unsupported element type bool"),
])
def test_bad_memory_arguments(arr, match):
    def kernel(blk, A):
        blk.load(A, 0)

    with pytest.raises((MemoryArgumentError, UnsupportedError), match=match):
        launch(kernel, 1, 32, (arr,))


def test_float_index_is_rejected():
    def kernel(blk, A):
        blk.load(A, blk.tx * 0.5)

    with pytest.raises(MemoryArgumentError, match="index must be integers"):
        launch(kernel, 1, 32, (np.zeros(64, np.float32),))


def test_kernel_exception_names_kernel_and_line():
    def broken(blk, A):
        x = blk.load(A, blk.tx)
        return x[1000]

    with pytest.raises(KernelError, match="kernel broken raised IndexError") as e:
        launch(broken, 1, 32, (np.zeros(32, np.float32),))
    assert e.value.where["line"] == broken.__code__.co_firstlineno + 2


def test_seed_style_lambda_args_are_allowed():
    A = np.arange(64, dtype=np.float32)

    def kernel(blk, A, fn):
        blk.load(A, fn(blk.tx))

    assert launch(kernel, 1, 32, (A, lambda i: 2 * i)).gld_sectors == 8


def test_atomic_add_returns_old_values_in_lane_order():
    A = np.zeros(4, np.int32)

    def kernel(blk, A):
        return blk.atomic_add(A, blk.tx % 4, 1)

    out = {}

    def capture(blk, A):
        out["old"] = kernel(blk, A)

    launch(capture, 1, 32, (A,))
    assert A.tolist() == [8, 8, 8, 8]
    assert out["old"][:8].tolist() == [0, 0, 0, 0, 1, 1, 1, 1]


def test_float4_view_of_an_offset_array_reads_the_right_bytes():
    base = np.arange(64, dtype=np.float32)
    arr = base[1:61]                 # starts 4 bytes into a 256-byte aligned buffer
    out = {}

    def kernel(blk, a, first):
        # lane k reads the float4 at byte offset first + 16k of `a`
        out["v"] = blk.load(a, first + 16 * blk.tx, view=FLOAT4)

    launch(kernel, 1, 8, (arr, 12))  # device address 16 + 16k: aligned
    got = np.array([list(x) for x in out["v"][:8]])   # lanes 8-31 pad the warp
    assert got.tolist() == [list(base[4 + 4 * k: 8 + 4 * k]) for k in range(8)]
    with pytest.raises(MisalignedAddressError):
        launch(kernel, 1, 8, (arr, 8))


def test_shared_out_of_bounds_names_the_2d_element():
    # a [32][33] tile: flat 1056 + 33*lane is row 32 + lane, column 0 (past the last row), as C names it
    def k(blk, out):
        t = blk.shared((32, 33), np.float32, name="tile")
        blk.sstore(t, blk.tx * 33 + 1056 + 5, 1.0)
    with pytest.raises(labsim.OutOfBoundsError) as e:
        labsim.launch(k, (1,), (32,), (np.zeros(4, np.float32),))
    assert "tile[32][5] (flat index 1061)" in str(e.value) and "32×33 = 1056" in str(e.value)
    assert e.value.where["index"] == 1061
