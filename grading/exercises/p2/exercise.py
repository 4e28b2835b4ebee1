"""P2's exercise code: how launch_scale is called, its reference output, the coalesced reference counts, and
what one warp of a submission did (for messages that show the student's mapping, not the fix)."""
from __future__ import annotations

import numpy as np

from grading.sim import Call, Case, Output

ALPHA = 2.0                     # a power of two: alpha * x rounds the same on every float32 path
TILE, THREADS = 32, 256         # the template's TILE and THREADS (a region edits may not touch)
PER_THREAD = TILE * TILE // THREADS
FOCUS = ("load", "store")
LABELS = {"load": "读 in", "store": "写 out"}


def matrix(id: str, kind: str, M: int, N: int, seed: int = 0) -> Case:
    return Case(id, kind, {"M": M, "N": N}, seed)


def call(case: Case) -> Call:
    """``launch_scale(in, out, M, N, alpha, 0)``; out must equal alpha * in, element by element (NaN: never
    written)."""
    a = case.rng().standard_normal((case.M, case.N)).astype(np.float32)
    out = np.full((case.M, case.N), np.nan, dtype=np.float32)
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, np.float32(ALPHA), 0),
                [Output("out", out.reshape(-1), (np.float32(ALPHA) * a).reshape(-1))])


def coalesced_counts(M: int, N: int) -> tuple[int, int]:
    """(requests, sectors) of the load (and of the store) a coalesced mapping achieves: every warp request covers
    32 neighbouring columns of one row of a block, counted with labsim's sector rule on those addresses (arrays
    start 256-byte aligned). A request is one warp's instruction with at least one active lane. (This file ships
    to students: it states the budget, not the blank's expression.)"""
    from labsim.model import sectors_per_warp
    gx, gy = -(-N // TILE), -(-M // TILE)
    bx, by, r, k = np.meshgrid(np.arange(gx), np.arange(gy), np.arange(TILE), np.arange(32), indexing="ij")
    row, col = (by * TILE + r).reshape(-1, 32), (bx * TILE + k).reshape(-1, 32)
    active = (row < M) & (col < N)
    addr = (row * N + col).astype(np.int64) * 4
    keep = active.any(axis=1)
    return int(keep.sum()), int(sectors_per_warp(addr[keep], active[keep], 4).sum())


def warp_picture(rec, fid: str) -> str:
    """What one warp of the run did at focus ``fid`` (labsim's sample): the bytes its active lanes span, the
    distance between neighbouring lanes and its sectors, as a clause. Empty when there is no sample."""
    wa = rec.sample(fid)
    if wa is None:
        return ""
    act = np.asarray(wa.active, bool)
    if not act.any():
        return ""
    addr = np.asarray(wa.addr, dtype=np.int64)[act]
    span = int(addr.max() - addr.min()) + int(wa.itemsize)
    gaps = np.unique(np.diff(addr)) if addr.size > 1 else np.array([], dtype=np.int64)
    if gaps.size == 1:
        gap = f"相邻 lane 的地址相差 {int(gaps[0])} 字节"
    elif gaps.size:
        shown = "、".join(str(int(g)) for g in gaps[:4]) + ("……" if gaps.size > 4 else "")
        gap = f"相邻 lane 的地址差有 {gaps.size} 种（{shown} 字节）"
    else:
        gap = "只有一个活跃 lane"
    return (f"labsim 记录的一个 warp {LABELS[fid]} 时，{int(act.sum())} 个活跃 lane 的地址跨过 {span} 字节，{gap}，"
            f"碰到 {int(wa.sectors)} 个 sector")
