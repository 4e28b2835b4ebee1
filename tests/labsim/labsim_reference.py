"""Brute-force per-lane references, written independently of labsim.analysis (plain Python loops)."""
from __future__ import annotations

import numpy as np


def thread_layout(grid, block):
    """(block linear id, linear thread id in block, warp in block) for every thread, in launch order."""
    gx, gy, gz = (tuple(grid) + (1, 1))[:3]
    bx, by, bz = (tuple(block) + (1, 1))[:3]
    out = []
    for b in range(gx * gy * gz):
        for t in range(bx * by * bz):
            out.append((b, t, t // 32))
    return out


def warps_of(grid, block):
    """Group thread positions (launch order) by (block, warp)."""
    groups: dict[tuple[int, int], list[int]] = {}
    for pos, (b, t, w) in enumerate(thread_layout(grid, block)):
        groups.setdefault((b, w), []).append(pos)
    return groups


def global_counts(addrs, active, grid, block, itemsize, sector=32):
    """(requests, sectors, bytes requested) for one global instruction, by brute force."""
    requests = sectors = nbytes = 0
    for lanes in warps_of(grid, block).values():
        touched = set()
        for p in lanes:
            if active[p]:
                a = int(addrs[p])
                for s in range(a // sector, (a + itemsize - 1) // sector + 1):
                    touched.add(s)
                nbytes += itemsize
        if touched:
            requests += 1
            sectors += len(touched)
    return requests, sectors, nbytes


def shared_warp_wavefronts(byte_addrs, active, itemsize, banks=32, width=4):
    """Wavefronts of one warp: split lanes into phases of <= 128 bytes; each phase costs the most distinct
    words any bank serves; empty phases cost nothing. Returns (wavefronts, non-empty phases)."""
    per_phase = 32 if itemsize <= 4 else 128 // itemsize
    total = nonempty = 0
    for start in range(0, 32, per_phase):
        bank_words: dict[int, set[int]] = {}
        for lane in range(start, start + per_phase):
            if lane < len(byte_addrs) and active[lane]:
                first = int(byte_addrs[lane]) // width
                last = (int(byte_addrs[lane]) + itemsize - 1) // width
                for w in range(first, last + 1):
                    bank_words.setdefault(w % banks, set()).add(w)
        if bank_words:
            nonempty += 1
            total += max(len(v) for v in bank_words.values())
    return total, nonempty


def shared_counts(byte_addrs, active, grid, block, itemsize):
    """(requests, wavefronts, conflicts) of one shared instruction, by brute force."""
    req = wf = conf = 0
    for lanes in warps_of(grid, block).values():
        a = [byte_addrs[p] for p in lanes]
        m = [bool(active[p]) for p in lanes]
        if any(m):
            w, ph = shared_warp_wavefronts(a, m, itemsize)
            req += 1
            wf += w
            conf += w - ph
    return req, wf, conf
