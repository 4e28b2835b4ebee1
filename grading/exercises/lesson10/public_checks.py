"""Public checks of lesson 10: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, shape_outcome
from grading.context import RunContext
from grading.sim import Case

from .common import probe_outcome
from .exercise import gemm

CASES = {
    "square": [gemm("public-64x64x64", "square", 64, 64, 64, seed=10)],
    "nonsquare": [gemm("public-32x48x64", "nonsquare", 32, 48, 64, seed=11)],
    "boundary": [gemm("public-70x45x33", "boundary", 70, 45, 33, seed=12)],
}


def cases(rng=None) -> dict[str, list[Case]]:
    return CASES


def _shape_outcome(ctx: RunContext, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    return shape_outcome(rec, where=f"M×N×K = {rec.case.shape_text('×')} 时 ", wrong="C 错误",
                         right="C 与 numpy 的 A @ B 一致（float32 舍入误差以内）。", reference=" numpy 的 A @ B ")


@check_case(name="公开检查：64×64×64（方阵，tile 的倍数）C 正确", kind="square")
def public_square(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "square")


@check_case(name="公开检查：32×48×64（N ≠ K）C 正确", kind="nonsquare")
def public_nonsquare(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "nonsquare")


@check_case(name="公开检查：70×45×33（不是 16 的倍数）C 正确", kind="boundary")
def public_boundary(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：探针输入下，每个线程搬进 Bs 的 B 元素", kind="probe")
def public_probe(ctx: RunContext) -> Outcome:
    return probe_outcome(ctx)
