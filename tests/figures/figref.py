"""Helpers for the figure and lesson tests. Sector and wavefront counts come from the one brute-force
reference, tests/labsim/labsim_reference.py (no labsim logic: the rules, lane by lane)."""
from __future__ import annotations

import numpy as np

from labsim_reference import shared_warp_wavefronts, warp_sectors


def brute_bank_degrees(addr, active, itemsize):
    """Per-lane, per-bank conflict degree, written from the hardware rules lane by lane (no labsim code):

    32 banks of 4-byte words; accesses up to 4 bytes are one phase of 32 lanes, 8-byte ones two phases of 16
    lanes, 16-byte ones four phases of 8 lanes; in a phase a bank serves each distinct word once.
    Returns (degrees 32x32, wavefronts of the load, from the reference).
    """
    lanes_per_phase = {1: 32, 2: 32, 4: 32, 8: 16, 16: 8}[itemsize]
    nwords = max(1, itemsize // 4)
    deg = [[0] * 32 for _ in range(32)]
    for start in range(0, 32, lanes_per_phase):
        words_in_bank = {}
        for lane in range(start, start + lanes_per_phase):
            if not active[lane]:
                continue
            for j in range(nwords):
                w = int(addr[lane]) // 4 + j
                words_in_bank.setdefault(w % 32, set()).add(w)
        for lane in range(start, start + lanes_per_phase):
            if not active[lane]:
                continue
            for j in range(nwords):
                b = (int(addr[lane]) // 4 + j) % 32
                deg[lane][b] = len(words_in_bank[b])
    return np.array(deg), shared_warp_wavefronts(addr, active, itemsize)[0]


def make_shared_access(addr, itemsize=4, active=None, line=7):
    from labsim.launch_records import WarpAccess
    act = np.ones(32, bool) if active is None else np.asarray(active, bool)
    return WarpAccess("shared", "ld", line, "tile", itemsize, (0, 0, 0), 0, act, np.asarray(addr, np.int64))


def make_global_access(addr, itemsize=4, active=None, op="st"):
    from labsim.launch_records import WarpAccess
    act = np.ones(32, bool) if active is None else np.asarray(active, bool)
    return WarpAccess("global", op, 9, "output", itemsize, (0, 0, 0), 0, act, np.asarray(addr, np.int64))


def brute_sectors(addr, active, itemsize, sector=32):
    """Distinct 32-byte sectors touched by the active lanes (the reference's count)."""
    return warp_sectors(addr, active, itemsize, sector)


def brute_column_wavefronts(ld_elems, itemsize, col=0, swizzle=False, row_access=False, index=0):
    """Wavefronts of one warp reading T tile[32][ld] along a column (lane k: row k) or a row, from scratch."""
    addr = []
    for k in range(32):
        r, c = (k, col) if not row_access else (index, k)
        if swizzle:
            c ^= r
        addr.append((r * ld_elems + c) * itemsize)
    return brute_bank_degrees(addr, [True] * 32, itemsize)[1]
