"""P2's exercise code: how launch_scale is called, its reference output, the coalesced reference counts, and
the right-by-luck veto (right output, more sectors per request than the row-major index)."""
from __future__ import annotations

import numpy as np

from grading.results import Veto
from grading.sim import Call, Case, Output

ALPHA = 2.0                     # a power of two: alpha * x rounds the same on every float32 path
BLOCK = (32, 8)                 # the template's BLOCK_X, BLOCK_Y (a region edits may not touch)
FOCUS = ("load", "store")


def matrix(id: str, kind: str, M: int, N: int, seed: int = 0) -> Case:
    return Case(id, kind, {"M": M, "N": N}, seed)


def call(case: Case) -> Call:
    """``launch_scale(in, out, M, N, alpha, 0)``; out must equal alpha * in, element by element."""
    a = case.rng().standard_normal((case.M, case.N)).astype(np.float32)
    out = np.full((case.M, case.N), np.nan, dtype=np.float32)
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, np.float32(ALPHA), 0),
                [Output("out", out.reshape(-1), (np.float32(ALPHA) * a).reshape(-1))])


def coalesced_counts(M: int, N: int) -> tuple[int, int]:
    """(requests, sectors) of the load (and of the store) when idx = row * N + col, counted warp by warp with
    labsim's sector rule on the addresses that mapping gives (the arrays start 256-byte aligned)."""
    from labsim.model import sectors_per_warp
    bx, by = BLOCK
    gx, gy = -(-N // bx), -(-M // by)
    # thread (x, y) of block (i, j): col = i*bx + x, row = j*by + y; warps are 32 consecutive x-major threads
    i, j, y, x = np.meshgrid(np.arange(gx), np.arange(gy), np.arange(by), np.arange(bx), indexing="ij")
    col, row = (i * bx + x).reshape(-1, 32), (j * by + y).reshape(-1, 32)
    active = (row < M) & (col < N)
    addr = (row * N + col).astype(np.int64) * 4
    keep = active.any(axis=1)
    return int(keep.sum()), int(sectors_per_warp(addr[keep], active[keep], 4).sum())


def excess(rec) -> dict[str, tuple[float, float]]:
    """For each focus instruction of one passed run whose sectors exceed the coalesced count:
    {focus id: (student's sectors per request, coalesced sectors per request)}."""
    req, sec = coalesced_counts(rec.case.M, rec.case.N)
    out = {}
    for fid in FOCUS:
        s = rec.summary(fid)
        if s is None or not s.requests:
            continue
        if s.cost > sec:
            out[fid] = (s.cost / s.requests, sec / req)
    return out


def right_by_luck(st) -> Veto | None:
    """Right output on every case, but the load or the store touches more sectors than the row-major index."""
    ctx = st.hidden_ctx or st.public_ctx
    if ctx is None:
        return None
    runs = [r for r in ctx.all_runs() if r.ok]
    if not runs or not all(r.passed for r in runs):
        return None
    for rec in runs:
        bad = excess(rec)
        if bad:
            fid, (yours, ref) = next(iter(bad.items()))
            label = {"load": "读 in", "store": "写 out"}[fid]
            return Veto("right_by_luck", "结果碰巧正确但核心因果链错误",
                        f"结果正确，但{label}：每个请求 {yours:g} 个 sector，合并的写法只要 {ref:g} 个：相邻 lane 的地址不相邻。")
    return None


VETOES = [right_by_luck]
