"""Public checks of lesson 10's challenge: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, shape_outcome
from grading.context import RunContext
from grading.sim import Case
from grading.whole import counter_outcome, counter_targets

from .exercise import gemm

CASES = {
    "square": [gemm("public-64x64x64", "square", 64, 64, 64, seed=10)],
    "boundary": [gemm("public-70x45x33", "boundary", 70, 45, 33, seed=11)],
    "counter": [gemm("public-64x128x64", "counter", 64, 128, 64, seed=12)],
}


def cases(rng=None) -> dict[str, list[Case]]:
    return CASES


def _shape_outcome(ctx: RunContext, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    t = counter_targets(ctx.exercise)[0]
    v = t.value(rec)
    extra = f"{t.label} = {v:.3g}。" if v is not None else ""
    return shape_outcome(rec, where=f"{rec.case.shape_text('×')} 的输入", wrong=" C 错误",
                         reference=" float64 的 A·B（float32 舍入误差之内）", right=f" C 正确，{extra}")


@check_case(name="公开检查：64×64×64 的 C 正确", kind="square")
def public_square(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "square")


@check_case(name="公开检查：70×45×33（不满一个 tile）的 C 正确", kind="boundary")
def public_boundary(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：64×128×64 上 shared 读的 wavefront 数 / FFMA 与目标", kind="counter")
def public_counter(ctx: RunContext) -> Outcome:
    return counter_outcome(ctx, "lds_per_ffma")
