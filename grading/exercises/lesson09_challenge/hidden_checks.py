"""Hidden checks of lesson 9's challenge: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import check_case, draw_not_multiple, oob_outcome, Outcome, race_outcome, runs_outcome
from grading.context import RunContext
from grading.sim import Case

from .exercise import counters_outcome, shape

SIZES = (32, 64, 96, 128, 160)


def cases(rng: np.random.Generator) -> dict[str, list[Case]]:
    """Multiples of 32 (square and not), boundary shapes no tile divides, the race cases, the counter case."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    regular = [shape("regular-square", "regular", *(2 * [int(rng.choice(SIZES))]), seed())]
    for i in range(2):
        m, n = (int(v) for v in rng.choice(SIZES, 2, replace=False))
        m, n = (min(m, n), max(m, n)) if i == 0 else (max(m, n), min(m, n))     # M < N and M > N
        regular.append(shape(f"regular-{i}", "regular", m, n, seed()))
    side = draw_not_multiple(rng, 33, 100)
    boundary = [
        shape("one-by-one", "boundary", 1, 1, seed()),
        shape("one-row", "boundary", 1, draw_not_multiple(rng, 2, 100), seed()),
        shape("one-column", "boundary", draw_not_multiple(rng, 2, 100), 1, seed()),
        shape("ragged", "boundary", draw_not_multiple(rng, 33, 100), draw_not_multiple(rng, 33, 100), seed()),
        shape("tall", "boundary", draw_not_multiple(rng, 150, 260), draw_not_multiple(rng, 2, 20), seed()),
        shape("wide", "boundary", draw_not_multiple(rng, 2, 20), draw_not_multiple(rng, 150, 260), seed()),
        shape("ragged-square", "boundary", side, side, seed()),
    ]
    race = [shape("race-ragged", "race", draw_not_multiple(rng, 33, 80), draw_not_multiple(rng, 33, 80), seed()),
            shape("race-regular", "race", 64, 96, seed())]
    m, n = (int(v) for v in rng.choice((64, 96, 128), 2, replace=False))
    return {"regular": regular, "boundary": boundary, "race": race,
            "counter": [shape("counter", "counter", m, n, seed())]}


@check_case(name="挑战·32 倍数的形状（方阵与非方阵，随机值）：结果正确", points=1, hidden=True, kind="regular",
            tags=("rubric:normal",))
def challenge09_regular_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("32 倍数的形状", ctx.runs("regular"))


@check_case(name="挑战·边界形状（非 32 倍数、1×1、1×N、N×1、瘦高、扁宽）：结果正确", points=1, hidden=True,
            kind="boundary", tags=("rubric:boundary",))
def challenge09_boundary_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="挑战·对抗调度下无数据竞争、结果仍正确", points=1, hidden=True, kind="race", tags=("rubric:race",))
def challenge09_race_free(ctx: RunContext) -> Outcome:
    return race_outcome(ctx)


@check_case(name="挑战·按列读 shared 无多余 wavefront、global 读写合并", points=2, hidden=True, kind="counter",
            tags=("rubric:counter",))
def challenge09_counter_targets(ctx: RunContext) -> Outcome:
    return counters_outcome(ctx)


@check_case(name="挑战·无越界访问", hidden=True, kind="oob")
def challenge09_oob_free(ctx: RunContext) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
