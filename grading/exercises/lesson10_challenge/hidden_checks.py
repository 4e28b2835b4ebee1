"""Hidden checks of lesson 10's challenge: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import check_case, draw_not_multiple, oob_outcome, Outcome, race_outcome, runs_outcome
from grading.context import RunContext
from grading.sim import Case
from grading.whole import counter_outcome

from .exercise import gemm

SIZES = (32, 64, 96, 128)


def cases(rng: np.random.Generator) -> dict[str, list[Case]]:
    """Multiples of 32 (N ≠ K among them), shapes that leave partial tiles, the race cases, the counter case."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    ragged = lambda lo, hi: draw_not_multiple(rng, lo, hi, 16)  # noqa: E731
    regular = [gemm(f"regular-{i}", "regular", *(int(v) for v in rng.choice(SIZES, 3)), seed()) for i in range(2)]
    n, k = (int(v) for v in rng.choice(SIZES, 2, replace=False))
    regular.append(gemm("regular-nk", "regular", int(rng.choice(SIZES)), n, k, seed()))
    boundary = [
        gemm("one", "boundary", 1, 1, 1, seed()),
        gemm("short-k", "boundary", ragged(17, 40), ragged(17, 40), ragged(2, 15), seed()),
        gemm("ragged", "boundary", ragged(33, 80), ragged(33, 80), ragged(33, 80), seed()),
        gemm("one-column", "boundary", ragged(17, 60), 1, ragged(17, 60), seed()),
        gemm("one-row", "boundary", 1, ragged(17, 60), ragged(17, 60), seed()),
        gemm("long-k", "boundary", ragged(2, 15), ragged(2, 15), ragged(90, 150), seed()),
    ]
    race = [gemm("race-ragged", "race", ragged(17, 60), ragged(17, 60), ragged(17, 60), seed())]
    m, n = (int(v) for v in rng.choice((64, 128), 2))
    return {"regular": regular, "boundary": boundary, "race": race,
            "counter": [gemm("counter", "counter", m, n, 64, seed())]}


@check_case(name="挑战·32 倍数的形状（随机值）：C 正确", points=1, hidden=True, kind="regular", tags=("rubric:normal",))
def challenge10_regular_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("32 倍数的形状", ctx.runs("regular"))


@check_case(name="挑战·边界形状（不满 tile、1×1×1、单行、单列、K 很长）：C 正确", points=1, hidden=True,
            kind="boundary", tags=("rubric:boundary",))
def challenge10_boundary_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="挑战·对抗调度下无数据竞争、C 仍正确", points=1, hidden=True, kind="race", tags=("rubric:race",))
def challenge10_race_free(ctx: RunContext) -> Outcome:
    return race_outcome(ctx, "C 错误")


@check_case(name="挑战·shared 读的 wavefront 数 / FFMA 达到目标", points=2, hidden=True, kind="counter",
            tags=("rubric:counter",))
def challenge10_lds_target(ctx: RunContext) -> Outcome:
    return counter_outcome(ctx, "lds_per_ffma")


@check_case(name="挑战·无越界访问", hidden=True, kind="oob")
def challenge10_oob_free(ctx: RunContext) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
