"""Public checks of lesson 8: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, shape_outcome
from grading.context import RunContext
from grading.sim import Case

from .exercise import shape

CASES = {
    "square": [shape("public-64x64", "square", 64, 64, seed=8)],
    "nonsquare": [shape("public-64x96", "nonsquare", 64, 96, seed=9)],
    "boundary": [shape("public-33x47", "boundary", 33, 47, seed=10)],
}


def cases(rng=None) -> dict[str, list[Case]]:
    return CASES


def _sectors(rec, fid: str) -> str:
    s = rec.summary(fid)
    return f"{s.cost / s.requests:.2f}".rstrip("0").rstrip(".") if s is not None and s.requests else "?"


def _shape_outcome(ctx: RunContext, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    return shape_outcome(rec, where=f"{rec.case.shape_text('×')} 的输入", wrong="转置错误", reference=" numpy 的转置",
                         right=f"转置正确，读每个请求 {_sectors(rec, 'load')} 个 sector，"
                               f"写每个请求 {_sectors(rec, 'store')} 个 sector。")


@check_case(name="公开检查：64×64（方阵）转置正确", kind="square")
def public_square(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "square")


@check_case(name="公开检查：64×96（非方阵，M ≠ N）转置正确", kind="nonsquare")
def public_nonsquare(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "nonsquare")


@check_case(name="公开检查：33×47（不是 32 的倍数）转置正确", kind="boundary")
def public_boundary(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "boundary")
