"""Hidden checks of lesson 10: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import check_case, draw_not_multiple, oob_outcome, Outcome, race_outcome, runs_outcome
from grading.context import RunContext
from grading.sim import Case

from .exercise import gemm

TILE = 16
SIZES = (16, 32, 48, 64, 80)     # multiples of the tile; labsim runs 80³ in well under a second


def cases(rng: np.random.Generator) -> dict[str, list[Case]]:
    """Square and non-square (N ≠ K) tile multiples, and shapes that leave partial tiles, random values."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    ragged = lambda lo, hi: draw_not_multiple(rng, lo, hi, TILE)  # noqa: E731
    square = [gemm(f"square-{i}", "square", int(s), int(s), int(s), seed())
              for i, s in enumerate(rng.choice(SIZES, 3, replace=False))]
    nonsquare = []
    for i in range(3):
        n, k = (int(v) for v in rng.choice(SIZES, 2, replace=False))     # N ≠ K: a row pitch of K goes wrong
        if i == 0 and n > k:                        # both orientations: N < K and N > K
            n, k = k, n
        elif i == 1 and n < k:
            n, k = k, n
        nonsquare.append(gemm(f"nonsquare-{i}", "nonsquare", int(rng.choice(SIZES)), n, k, seed()))
    # N = K ≠ M: a row pitch of K is right here, a row pitch of M is not (the groups no longer overlap)
    s_, m_ = (int(v) for v in rng.choice(SIZES, 2, replace=False))
    nonsquare.append(gemm("nonsquare-nk", "nonsquare", m_, s_, s_, seed()))
    boundary = [
        gemm("one", "boundary", 1, 1, 1, seed()),
        gemm("short-k", "boundary", ragged(17, 40), ragged(17, 40), ragged(2, 15), seed()),   # K < TILE
        gemm("ragged", "boundary", ragged(33, 80), ragged(33, 80), ragged(33, 80), seed()),
        gemm("ragged-square", "boundary", *([ragged(17, 60)] * 3), seed()),
        gemm("one-column", "boundary", ragged(17, 60), 1, ragged(17, 60), seed()),
        gemm("one-row", "boundary", 1, ragged(17, 60), ragged(17, 60), seed()),
        gemm("long-k", "boundary", ragged(2, 15), ragged(2, 15), ragged(90, 150), seed()),
    ]
    race = [gemm("race", "race", int(rng.choice(SIZES[1:])), int(rng.choice(SIZES[1:])), int(rng.choice(SIZES[1:])),
                 seed()),
            gemm("race-ragged", "race", ragged(17, 60), ragged(17, 60), ragged(17, 60), seed())]
    return {"square": square, "nonsquare": nonsquare, "boundary": boundary, "race": race}


@check_case(name="正常形状·方阵（M = N = K，16 的倍数，随机值）：C 正确", points=1, hidden=True, kind="square",
            tags=("rubric:normal",))
def gemm_square_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("方阵", ctx.runs("square"))


@check_case(name="正常形状·非方阵（16 的倍数，N ≠ K 或 M ≠ N = K，随机值）：C 正确", points=1, hidden=True, kind="nonsquare",
            tags=("rubric:normal",))
def gemm_nonsquare_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("非方阵", ctx.runs("nonsquare"))


@check_case(name="边界形状（非 16 倍数、1×1×1、K < 16、单行、单列、K 很长）：C 正确", points=1, hidden=True,
            kind="boundary", tags=("rubric:boundary",))
def gemm_boundary_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="对抗调度下无数据竞争、C 仍正确", hidden=True, kind="race")
def gemm_race_free(ctx: RunContext) -> Outcome:
    return race_outcome(ctx, "C 错误")


@check_case(name="无越界访问", hidden=True, kind="oob")
def oob_free(ctx: RunContext) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
