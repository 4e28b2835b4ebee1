"""Public checks of lesson 9: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, shape_outcome
from grading.context import RunContext
from grading.sim import Case

from .common import conflict_outcome
from .exercise import shape

CASES = {
    "normal": [shape("public-64x96", "normal", 64, 96, seed=9)],
    "boundary": [shape("public-33x47", "boundary", 33, 47, seed=10)],
}


def cases(rng=None) -> dict[str, list[Case]]:
    return CASES


def _shape_outcome(ctx: RunContext, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    return shape_outcome(rec, where=f"{rec.case.shape_text('×')} 的输入", right="转置正确。", wrong="转置错误",
                         reference=" numpy 的转置")


@check_case(name="公开检查：64×96 转置正确", kind="normal")
def public_normal(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "normal")


@check_case(name="公开检查：33×47（不是 32 的倍数）转置正确", kind="boundary")
def public_boundary(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：转置读没有 bank conflict", kind="conflict")
def public_conflict_free(ctx: RunContext) -> Outcome:
    return conflict_outcome(ctx, ctx.runs("normal"), show_shapes=True)
