"""P2's exercise code: how launch_scale is called, its reference output, the coalesced reference counts, and
what one warp of a submission did (for messages that show the student's mapping, not the fix)."""
from __future__ import annotations

import numpy as np

from grading import checks
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
    """What one warp of the run did at focus ``fid`` (grading.checks.warp_picture with P2's labels)."""
    return checks.warp_picture(rec, fid, LABELS[fid])
