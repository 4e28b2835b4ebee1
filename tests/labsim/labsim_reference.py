"""The one brute-force reference for sectors and wavefronts, used by every test (labsim, figures, lessons).

Written independently of labsim.model, lane by lane in plain Python loops, from the rules measured on an
H200 (measurements/h200/patterns/; tests/labsim/test_h200_patterns.py checks this module against them).
"""
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


def warp_sectors(addrs, active, itemsize, sector=32):
    """Distinct sectors the active lanes of one warp touch (a lane's bytes may straddle two)."""
    touched = set()
    for a, on in zip(addrs, active):
        if on:
            a = int(a)
            for s in range(a // sector, (a + itemsize - 1) // sector + 1):
                touched.add(s)
    return len(touched)


def global_counts(addrs, active, grid, block, itemsize, sector=32):
    """(requests, sectors, bytes requested) for one global instruction, by brute force."""
    requests = sectors = nbytes = 0
    for lanes in warps_of(grid, block).values():
        n = warp_sectors([addrs[p] for p in lanes], [active[p] for p in lanes], itemsize, sector)
        nbytes += itemsize * sum(1 for p in lanes if active[p])
        if n:
            requests += 1
            sectors += n
    return requests, sectors, nbytes


def _group_cost(byte_addrs, active, lanes, itemsize, banks, width):
    """(most distinct words one bank serves, banks used, distinct words) for a set of lanes."""
    bank_words: dict[int, set[int]] = {}
    for lane in lanes:
        if active[lane]:
            first = int(byte_addrs[lane]) // width
            for w in range(first, first + max(1, itemsize // width)):
                bank_words.setdefault(w % banks, set()).add(w)
    cost = max((len(v) for v in bank_words.values()), default=0)
    return cost, set(bank_words), sum(len(v) for v in bank_words.values())


def shared_warp_wavefronts(byte_addrs, active, itemsize, op="ld", banks=32, width=4):
    """(wavefronts, bank conflicts) of one warp's shared access, by the rules measured on an H200
    (measurements/h200/patterns/): lanes gathered per warp (<= 4 B), half-warp (8 B) or quarter-warp (16 B;
    16-byte loads: ``_wide_load``);
    a group costs the most distinct words any bank serves. For loads, groups 0+1 (and 2+3) share wavefronts
    if their banks are disjoint or all their active lanes read one address; conflicts are the wavefronts
    beyond ceil(active bytes / 128). For stores, groups never share; conflicts are per group, beyond one."""
    if itemsize == 16 and op == "ld":
        return _wide_load(byte_addrs, active, banks, width)
    size = 32 if itemsize <= 4 else 128 // itemsize
    groups = [range(i, i + size) for i in range(0, 32, size)]
    costs = [_group_cost(byte_addrs, active, g, itemsize, banks, width) for g in groups]
    if op == "ld":
        total = 0
        if len(groups) == 1:
            total = costs[0][0]
        for i in range(0, len(groups) - 1, 2):
            (c1, b1, _), (c2, b2, _) = costs[i], costs[i + 1]
            addrs = {int(byte_addrs[l]) for l in list(groups[i]) + list(groups[i + 1]) if active[l]}
            total += max(c1, c2) if (not (b1 & b2) or len(addrs) <= 1) else c1 + c2
        nbytes = sum(itemsize for l in range(32) if active[l])
        return total, max(0, total - (nbytes + 127) // 128)
    total = sum(c for c, _, _ in costs)
    conflicts = sum(c - (d + banks - 1) // banks for c, _, d in costs if c)
    return total, conflicts


def _wide_load(byte_addrs, active, banks, width):
    """16-byte loads, half-warp by half-warp (issue 17): the quarters of a half share wavefronts when their banks
    are disjoint, or when they read at most two addresses and no bank holds two of their words. The ideal half
    needs its distinct bytes at 128 per wavefront, and one wavefront per non-empty quarter unless the quarters'
    words are disjoint or they read at most two addresses; conflicts are the wavefronts beyond it."""
    def words(lanes):
        return {int(byte_addrs[l]) // width + j for l in lanes for j in range(16 // width)}

    def most_per_bank(ws):
        per = {}
        for w in ws:
            per[w % banks] = per.get(w % banks, 0) + 1
        return max(per.values(), default=0)
    total = conflicts = 0
    for h in (0, 16):
        qs = [[l for l in range(h + q, h + q + 8) if active[l]] for q in (0, 8)]
        w0, w1 = words(qs[0]), words(qs[1])
        c0, c1 = most_per_bank(w0), most_per_bank(w1)
        addrs = {int(byte_addrs[l]) for l in qs[0] + qs[1]}
        union = w0 | w1
        share = not ({w % banks for w in w0} & {w % banks for w in w1}) or (most_per_bank(union) <= 1 and
                                                                          len(addrs) <= 2)
        wf = max(c0, c1) if share else c0 + c1
        total += wf
        if union:
            apart = not (w0 & w1) or len(addrs) <= 2
            ideal = max((len(union) * width + 127) // 128, 1 if apart else sum(1 for q in qs if q))
            conflicts += max(0, wf - ideal)
    return total, conflicts


def shared_counts(byte_addrs, active, grid, block, itemsize, op="ld"):
    """(requests, wavefronts, conflicts) of one shared instruction, by brute force."""
    req = wf = conf = 0
    for lanes in warps_of(grid, block).values():
        a = [byte_addrs[p] for p in lanes]
        m = [bool(active[p]) for p in lanes]
        if any(m):
            w, c = shared_warp_wavefronts(a + [0] * (32 - len(a)), m + [False] * (32 - len(m)), itemsize, op)
            req += 1
            wf += w
            conf += c
    return req, wf, conf
