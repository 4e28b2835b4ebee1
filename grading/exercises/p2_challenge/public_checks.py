"""Public checks of part 2's challenge: shipped with the student notebook; their inputs are no secret."""
from __future__ import annotations

from grading.checks import Outcome, check_case, shape_outcome
from grading.context import RunContext
from grading.sim import Case
from grading.whole import counter_outcome, counter_targets

from .exercise import structs

CASES = {
    "regular": [structs("public-n1024", "regular", 1024, seed=20)],
    "boundary": [structs("public-n1000", "boundary", 1000, seed=21)],
    "counter": [structs("public-n2048", "counter", 2048, seed=22)],
}


def cases(rng=None) -> dict[str, list[Case]]:
    return CASES


def _shape_outcome(ctx: RunContext, kind: str) -> Outcome:
    rec = ctx.runs(kind)[0]
    t = counter_targets(ctx.exercise)[0]
    v = t.value(rec)
    extra = f"{t.label} = {v:.3g}。" if v is not None else ""
    return shape_outcome(rec, where=f"n = {rec.case.n} 时，", wrong="x、y、z 有错", reference="各结构体的三个字段",
                         right=f"x、y、z 正确，{extra}")


@check_case(name="公开检查：n = 1024 时 x、y、z 正确", kind="regular")
def public_regular(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "regular")


@check_case(name="公开检查：n = 1000（不是 256 的倍数）时 x、y、z 正确", kind="boundary")
def public_boundary(ctx: RunContext) -> Outcome:
    return _shape_outcome(ctx, "boundary")


@check_case(name="公开检查：n = 2048 上读 + 写的 global sector 数 / 元素与目标", kind="counter")
def public_counter(ctx: RunContext) -> Outcome:
    return counter_outcome(ctx, "sectors")
