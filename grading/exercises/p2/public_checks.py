"""Public checks of P2: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

import numpy as np

from grading import sim
from grading.checks import Outcome, check_case, failure_kind

from .exercise import FOCUS, LABELS, TILE, coalesced_counts, matrix, warp_picture

# 64×96: whole blocks; 33×45: the right-edge warps have 13 active lanes, the last block row one active row
CASES = {"normal": [matrix("public-64x96", "normal", 64, 96, seed=2)],
         "boundary": [matrix("public-33x45", "boundary", 33, 45, seed=3)]}


def cases(rng=None):
    return CASES


def _ranges(rows: np.ndarray) -> str:
    """0, 1, 2, 5, 6 -> "0–2、5–6"."""
    out, start = [], None
    for i, r in enumerate(rows):
        if start is None:
            start = r
        if i + 1 == len(rows) or rows[i + 1] != r + 1:
            out.append(str(start) if start == r else f"{start}–{r}")
            start = None
    return "、".join(out)


def first_block_picture(ctx, rec) -> str:
    """Which elements of the first 32×32 block the run left unwritten, read back from out (a second run: a run
    record keeps counters only). What the mapping did, not what it should be."""
    ex = ctx.exercise
    call = ex.call(rec.case)
    again = sim.run_case(ctx.program, ex.config["host_function"], call, rec.case)
    if not again.ok:
        return ""
    out = np.asarray(call.outputs[0].array).reshape(rec.case.M, rec.case.N)[:TILE, :TILE]
    never = np.isnan(out)
    if not never.any():
        return "第一个 32×32 块的每个元素都写了，错的元素在别的块里"
    full = np.flatnonzero(never.all(axis=1))
    part = np.flatnonzero(never.any(axis=1) & ~never.all(axis=1))
    bits = []
    if full.size:
        bits.append(f"第 {_ranges(full)} 行整行没有写")
    if part.size == 1:
        bits.append(f"第 {int(part[0])} 行有 {int(never[part].sum())} 个元素没有写")
    elif part.size:
        bits.append(f"第 {_ranges(part)} 行各有一部分没有写（共 {int(never[part].sum())} 个元素）")
    return "第一个 32×32 块（块内行号 0–31）里，" + "，".join(bits)


def wrong_message(rec, ctx=None) -> str:
    """A wrong result, told from what the run did: how many elements differ, how many were never written, and
    where in the first block they are."""
    shape = rec.case.shape_text("×")
    msg = f"{shape} 的输入结果错误，{rec.wrong} 个元素与 alpha * in 不同"
    if rec.unwritten:
        msg += (f"，其中 {rec.unwritten} 个从未被写入。每块 1024 个元素、256 × 4 个 (t, j)：有元素没人搬，"
                "就有同样多的 (t, j) 搬了重复的元素或块外的元素")
        picture = first_block_picture(ctx, rec) if ctx is not None else ""
        if picture:
            msg += f"。{picture}"
    return msg + "。"


def _shape_outcome(ctx, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    k = failure_kind(rec)
    if k is None:
        return Outcome(True, f"{rec.case.shape_text('×')} 的输入结果正确。")
    if k == "wrong":
        return Outcome(False, wrong_message(rec, ctx if kind == "normal" else None))
    return Outcome(False, f"{rec.case.shape_text('×')} 的输入运行出错。{rec.error}")


def sectors_outcome(rec) -> Outcome:
    """Sectors per request of the load and the store against the coalesced mapping on the same input; when
    they are more, one warp of the run, as labsim recorded it (what the code did, not what to write)."""
    req, sec = coalesced_counts(rec.case.M, rec.case.N)
    parts, bad, data = [], [], {}
    for fid in FOCUS:
        s = rec.summary(fid)
        if s is None or not s.requests:
            return Outcome(False, f"{LABELS[fid]} 没有执行，先让结果正确。")
        yours, ref = s.cost / s.requests, sec / req
        data[fid] = {"sectors_per_request": yours, "coalesced": ref}
        parts.append(f"{LABELS[fid]} 每个请求 {yours:.2f} 个 sector（合并的映射 {ref:.2f} 个）")
        if s.cost > sec:
            bad.append(fid)
    msg = "，".join(parts) + "。"
    if bad:
        picture = warp_picture(rec, bad[0])
        msg += (f"{picture}。" if picture else "") + "结果正确，但这个映射让一个 warp 碰到的 sector 比需要的多。"
    return Outcome(not bad, msg, data=data)


@check_case(name="公开检查：64×96 结果正确", kind="normal")
def public_normal(ctx) -> Outcome:
    return _shape_outcome(ctx, "normal")


@check_case(name="公开检查：33×45（右边缘的 warp 只有 13 个 lane 活跃）结果正确、不越界", kind="boundary")
def public_boundary(ctx) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：64×96 上读 in、写 out 每个请求的 sector 数（合并）", kind="coalesced")
def public_coalesced(ctx) -> Outcome:
    rec = ctx.runs("normal")[0]
    if failure_kind(rec) is not None:
        return Outcome(False, "64×96 的结果还不正确。先让结果正确，再数 sector。")
    return sectors_outcome(rec)
