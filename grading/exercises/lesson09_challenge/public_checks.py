"""Public checks of lesson 9's challenge: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, shape_outcome
from grading.context import RunContext
from grading.sim import Case
from grading.whole import counter_targets

from .exercise import counters_outcome, shape

CASES = {
    "square": [shape("public-64x64", "square", 64, 64, seed=8)],
    "nonsquare": [shape("public-64x96", "nonsquare", 64, 96, seed=9)],
    "boundary": [shape("public-33x45", "boundary", 33, 45, seed=10)],
    "counter": [shape("public-96x64", "counter", 96, 64, seed=11)],
}


def cases(rng=None) -> dict[str, list[Case]]:
    return CASES


def _shape_outcome(ctx: RunContext, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    values = [(t.label, t.value(rec)) for t in counter_targets(ctx.exercise)]
    extra = "".join(f"{label} = {v:.3g}。" for label, v in values if v is not None)
    return shape_outcome(rec, where=f"{rec.case.shape_text('×')} 的输入", wrong="转置错误", reference=" numpy 的转置",
                         right=f"转置正确，{extra}")


@check_case(name="公开检查：64×64（方阵）转置正确", kind="square")
def public_square(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "square")


@check_case(name="公开检查：64×96（非方阵，M ≠ N）转置正确", kind="nonsquare")
def public_nonsquare(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "nonsquare")


@check_case(name="公开检查：33×45（不是 32 的倍数）转置正确", kind="boundary")
def public_boundary(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：96×64 上 shared 读的 wavefront 数与 global sector 数对照目标", kind="counter")
def public_counter(ctx: RunContext) -> Outcome:
    return counters_outcome(ctx)
