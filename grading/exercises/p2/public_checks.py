"""Public checks of P2: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, failure_kind

from .exercise import FOCUS, LABELS, coalesced_counts, matrix, warp_picture

# 64×96: whole blocks; 33×45: the right-edge warps have 13 active lanes, the last block row one active row
CASES = {"normal": [matrix("public-64x96", "normal", 64, 96, seed=2)],
         "boundary": [matrix("public-33x45", "boundary", 33, 45, seed=3)]}


def cases(rng=None):
    return CASES


def wrong_message(rec) -> str:
    """A wrong result, told from what the run did: how many elements differ and how many were never written."""
    shape = rec.case.shape_text("×")
    msg = f"{shape} 的输入结果错误，{rec.wrong} 个元素与 alpha * in 不同"
    if rec.unwritten:
        msg += (f"，其中 {rec.unwritten} 个从未被写入。每块 1024 个元素、256 × 4 个 (t, j)：有元素没人搬，"
                "就有同样多的 (t, j) 搬了重复的元素或块外的元素")
    return msg + "。"


def _shape_outcome(ctx, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    k = failure_kind(rec)
    if k is None:
        return Outcome(True, f"{rec.case.shape_text('×')} 的输入结果正确。")
    if k == "wrong":
        return Outcome(False, wrong_message(rec))
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
