"""labsim.gpus.occupancy against a brute-force count, and races named by their C element (tile[1][0])."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from labsim import launch
from labsim.gpus import GPUS, occupancy


def brute_blocks(g, threads, smem, regs):
    """Add blocks to one SM until some resource would overflow (no division anywhere)."""
    n = 0
    while True:
        m = n + 1
        warps = m * -(-threads // g.warp_size)
        reg_need = 0
        if regs is not None:
            per_warp = regs * g.warp_size
            while per_warp % g.reg_alloc_unit:
                per_warp += 1
            reg_need = warps * per_warp
        if (m * threads > g.max_threads_per_sm or m > g.max_blocks_per_sm
                or m * (smem + g.smem_reserved_per_block) > g.smem_per_sm or reg_need > g.regs_per_sm):
            return n
        n = m


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(sorted(GPUS)), st.integers(1, 32).map(lambda w: 32 * w), st.integers(0, 48 * 1024),
       st.one_of(st.none(), st.integers(1, 255)))
def test_occupancy_is_the_brute_force_count(name, threads, smem, regs):
    g = GPUS[name]
    occ = occupancy(g, threads, smem, regs)
    assert occ["blocks"] == brute_blocks(g, threads, smem, regs)
    assert occ["smem_used"] == occ["blocks"] * (smem + g.smem_reserved_per_block)


def test_occupancy_rejects_nonsense():
    with pytest.raises(ValueError, match="threads_per_block"):
        occupancy("H200", 0, 1024)


def test_race_names_the_2d_element():
    def kernel(blk, out):
        tile = blk.shared((4, 8), name="tile")
        blk.sstore(tile, blk.lane, 1.0)            # warp 0 writes rows 0..3
        v = blk.sload(tile, (blk.lane + 9) % 32)   # warp 1 reads them, no barrier
        blk.store(out, blk.warp * 32 + blk.lane, v)

    out = np.zeros(64, np.float32)
    st_ = launch(kernel, grid=1, block=64, args=(out,))
    assert st_.race_count
    r = st_.races[0]
    row, col = divmod(r.index, 8)
    assert r.element == f"tile[{row}][{col}]" and f"__shared__ tile[{row}][{col}]" in str(r)
