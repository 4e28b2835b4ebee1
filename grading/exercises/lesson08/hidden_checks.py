"""Hidden checks of lesson 8: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import Outcome, check_case, draw_not_multiple, oob_outcome, runs_outcome
from grading.context import RunContext
from grading.sim import Case

from .exercise import shape

SIZES = (32, 64, 96, 128, 160)


def cases(rng: np.random.Generator) -> dict[str, list[Case]]:
    """Square and non-square multiples of 32, and boundary shapes, random values, drawn from ``rng``."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    square = [shape(f"square-{i}", "square", m, m, seed()) for i, m in enumerate(rng.choice(SIZES, 3, replace=False))]
    nonsquare = []
    for i in range(3):
        m, n = (int(v) for v in rng.choice(SIZES, 2, replace=False))
        if i == 0 and m > n:                        # both orientations: M < N and M > N
            m, n = n, m
        elif i == 1 and m < n:
            m, n = n, m
        nonsquare.append(shape(f"nonsquare-{i}", "nonsquare", m, n, seed()))
    boundary = [
        shape("one-by-one", "boundary", 1, 1, seed()),
        shape("one-row", "boundary", 1, draw_not_multiple(rng, 2, 100), seed()),
        shape("one-column", "boundary", draw_not_multiple(rng, 2, 100), 1, seed()),
        shape("ragged", "boundary", draw_not_multiple(rng, 33, 100), draw_not_multiple(rng, 33, 100), seed()),
        shape("tall", "boundary", draw_not_multiple(rng, 150, 260), draw_not_multiple(rng, 2, 20), seed()),
        shape("wide", "boundary", draw_not_multiple(rng, 2, 20), draw_not_multiple(rng, 150, 260), seed()),
    ]
    # a square that is not a multiple of 32: a pitch of N and a pitch of M rounded up to 32 part ways here
    side = draw_not_multiple(rng, 33, 100)
    boundary.append(shape("ragged-square", "boundary", side, side, seed()))
    return {"square": square, "nonsquare": nonsquare, "boundary": boundary}


@check_case(name="正常形状·方阵（32 的倍数，随机值）：结果正确", points=1, hidden=True, kind="square",
            tags=("rubric:normal",))
def square_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("方阵", ctx.runs("square"))


@check_case(name="正常形状·非方阵（32 的倍数，M ≠ N，随机值）：结果正确", points=1, hidden=True, kind="nonsquare",
            tags=("rubric:normal",))
def nonsquare_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("非方阵", ctx.runs("nonsquare"))


@check_case(name="边界形状（非 32 倍数、1×1、1×N、N×1、瘦高、扁宽、非 32 倍数的方阵）：结果正确", points=1, hidden=True,
            kind="boundary", tags=("rubric:boundary",))
def boundary_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="无越界访问", hidden=True, kind="oob")
def oob_free(ctx: RunContext) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
