"""estimate_time's shared-memory term: wavefronts x clocks per wavefront / (SMs x clock), per preset.

Clocks per wavefront come from the CUDA C Programming Guide 5.0 (appendix F): compute capability 2.x banks
deliver 32 bits per two clocks (a 32-bank wavefront of 4-byte words every 2 clocks), 3.x 64 bits per clock
(a warp of 4-byte words is still one wavefront per clock), and Hopper one 4-byte word per bank per clock.
"""
from __future__ import annotations

import numpy as np
import pytest

from labsim import estimate_time, launch
from labsim.gpus import get_gpu

# (preset, SMs, SM clock in Hz, SM clocks per 4-byte wavefront): written out here, not read from the presets
PRESETS = [("M2050", 14, 1.15e9, 2), ("K20c", 13, 0.706e9, 1), ("H200", 132, 1.98e9, 1)]


def _column_read(blk):
    tile = blk.shared((32, 32), np.float32, name="tile")
    blk.sload(tile, blk.lane * 32, name="tile", line=1)      # lane k reads tile[k][0]: 32 words in one bank


@pytest.mark.parametrize("gpu,sms,clock,clocks_per_wf", PRESETS)
def test_shared_time_per_preset(gpu, sms, clock, clocks_per_wf):
    st = launch(_column_read, grid=4, block=32)
    assert st.shared_wavefronts == 4 * 32                   # 4 warps, each 32 wavefronts
    e = estimate_time(st, gpu)
    assert e["t_shared"] == pytest.approx(4 * 32 * clocks_per_wf / (sms * clock))
    assert e["t_est"] == pytest.approx(max(e["t_mem"], e["t_shared"]))
    assert get_gpu(gpu).smem_clocks_per_wavefront == clocks_per_wf


def test_fermi_is_twice_as_slow_per_wavefront_as_kepler_per_clock():
    st = launch(_column_read, grid=1, block=32)
    m, k = estimate_time(st, "M2050"), estimate_time(st, "K20c")
    assert m["t_shared"] * 14 * 1.15e9 == pytest.approx(2 * k["t_shared"] * 13 * 0.706e9)
