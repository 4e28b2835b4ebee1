"""Public checks of P2: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, failure_kind

from .exercise import FOCUS, coalesced_counts, matrix

LABELS = {"load": "读 in", "store": "写 out"}
# 64×96: whole warps; 33×45: the right-edge warps have 13 active lanes, the last block row one active row
CASES = {"normal": [matrix("public-64x96", "normal", 64, 96, seed=2)],
         "boundary": [matrix("public-33x45", "boundary", 33, 45, seed=3)]}


def cases(rng=None):
    return CASES


def _shape_outcome(ctx, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    k = failure_kind(rec)
    shape = rec.case.shape_text("×")
    if k is None:
        return Outcome(True, f"{shape} 的输入结果正确。")
    if k == "wrong":
        return Outcome(False, f"{shape} 的输入结果错误：{rec.wrong} 个元素与 alpha * in 不同"
                              f"（其中 {rec.unwritten} 个从未写入）。")
    return Outcome(False, f"{shape} 的输入运行出错：{rec.error}")


def sectors_outcome(rec, *, show: bool) -> Outcome:
    """Sectors per request of the load and the store against the coalesced count on the same input."""
    req, sec = coalesced_counts(rec.case.M, rec.case.N)
    parts, ok, data = [], True, {}
    for fid in FOCUS:
        s = rec.summary(fid)
        if s is None or not s.requests:
            return Outcome(False, f"{LABELS[fid]} 没有执行：先让结果正确。")
        yours, ref = s.cost / s.requests, sec / req
        data[fid] = {"sectors_per_request": yours, "coalesced": ref}
        ok &= s.cost <= sec
        parts.append(f"{LABELS[fid]}：每个请求 {yours:.2f} 个 sector（合并写法 {ref:.2f}）" if show else
                     f"{LABELS[fid]}：{'合并' if s.cost <= sec else '不合并'}")
    msg = "；".join(parts) + "。"
    if not ok:
        msg += "同一个 warp 里 col 连续变化：相邻 lane 的地址应当相邻。"
    return Outcome(ok, msg, data=data)


@check_case(name="公开检查：64×96 结果正确", kind="normal")
def public_normal(ctx) -> Outcome:
    return _shape_outcome(ctx, "normal")


@check_case(name="公开检查：33×45（右边缘的 warp 只有 13 个 lane 活跃）结果正确、不越界", kind="boundary")
def public_boundary(ctx) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：读 in 和写 out 都合并（每个请求的 sector 数不多于行主序写法）", kind="coalesced")
def public_coalesced(ctx) -> Outcome:
    rec = ctx.runs("normal")[0]
    if failure_kind(rec) is not None:
        return Outcome(False, "结果还不正确，先让结果正确，再看合并。")
    return sectors_outcome(rec, show=True)
