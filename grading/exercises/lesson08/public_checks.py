"""Public checks of lesson 8: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, error_text, failure_kind, unwritten_text, warp_picture

from .exercise import FOCUS, LABELS, coalesced_store, probe_text, shape

CASES = {
    "square": [shape("public-64x64", "square", 64, 64, seed=8)],
    "nonsquare": [shape("public-64x96", "nonsquare", 64, 96, seed=9)],
    "boundary": [shape("public-33x47", "boundary", 33, 47, seed=10)],
}


def cases(rng=None):
    return CASES


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _per_request(rec, fid: str) -> str:
    s = rec.summary(fid)
    return _num(s.cost / s.requests) if s is not None and s.requests else "?"


def wrong_message(rec, blank: str | None) -> str:
    """A wrong result, told from what the run and the mapping did (never the fix)."""
    size = rec.case.shape_text("×")
    msg = f"{size} 的输入转置错误：{rec.wrong} 个元素与 numpy 的转置不同{unwritten_text(rec)}"
    picture = probe_text(blank, rec.case.M, rec.case.N) if blank else ""
    return msg + (f"。{picture}。" if picture else "。")


def _shape_outcome(ctx, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    k = failure_kind(rec)
    size = rec.case.shape_text("×")
    if k is None:
        return Outcome(True, f"{size} 的输入转置正确；读 input 每个请求 {_per_request(rec, 'load')} 个 sector，"
                             f"写 output 每个请求 {_per_request(rec, 'store')} 个 sector。")
    if k == "wrong":
        return Outcome(False, wrong_message(rec, getattr(ctx, "blank", None)))
    return Outcome(False, f"{size} 的输入运行出错（{error_text(rec)}）。")


def store_outcome(rec) -> Outcome:
    """Sectors per request of the store against a store that writes one row of output per warp, on the same
    input; the load is reported beside it (not scored)."""
    req, sec = coalesced_store(rec.case.M, rec.case.N)
    s = rec.summary("store")
    if s is None or not s.requests:
        return Outcome(False, "写 output 没有执行，先让结果正确。")
    ld = rec.summary("load")
    yours, ref = s.cost / s.requests, sec / req
    msg = (f"写 output 每个请求 {_num(yours)} 个 sector（一个 warp 写 output 一行的 32 个相邻元素时是 {_num(ref)} 个）"
           + (f"；读 input 每个请求 {_num(ld.cost / ld.requests)} 个 sector（不计分）" if ld is not None and ld.requests
              else "") + "。")
    if s.cost > sec:
        picture = warp_picture(rec, "store", LABELS["store"])
        msg += (f"{picture}。" if picture else "") + "结果正确，但写 output 没有合并：评分时拿不到“写合并”这一分。"
    return Outcome(s.cost <= sec, msg, data={"store": {"sectors_per_request": yours, "coalesced": ref}})


@check_case(name="公开检查：64×64（方阵）转置正确", kind="square")
def public_square(ctx) -> Outcome:
    return _shape_outcome(ctx, "square")


@check_case(name="公开检查：64×96（非方阵，M ≠ N）转置正确", kind="nonsquare")
def public_nonsquare(ctx) -> Outcome:
    return _shape_outcome(ctx, "nonsquare")


@check_case(name="公开检查：33×47（不是 32 的倍数）转置正确", kind="boundary")
def public_boundary(ctx) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：64×96 上写 output 每个请求的 sector 数（合并）", kind="coalesced")
def public_coalesced_store(ctx) -> Outcome:
    rec = ctx.runs("nonsquare")[0]
    if failure_kind(rec) is not None:
        return Outcome(False, "64×96 的结果还不正确。先让结果正确，再数 sector。")
    return store_outcome(rec)
