"""Hidden checks of lesson 9: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import (Outcome, check_case, count_message, draw_not_multiple, instructor_detail, oob_outcome,
                            runs_outcome)
from grading.context import RunContext
from grading.sim import Case

from .common import conflict_outcome
from .exercise import shape

TILE = 32


def cases(rng: np.random.Generator) -> dict[str, list[Case]]:
    """Normal shapes (multiples of 32) and boundary shapes, random values, drawn from ``rng``."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    sizes = [32, 64, 96, 128]
    normal = []
    for i in range(3):
        m, n = (int(rng.choice(sizes)) for _ in range(2))
        if i == 2 and m == n:                       # at least one non-square tile grid
            n = TILE if m != TILE else 2 * TILE
        normal.append(shape(f"normal-{i}", "normal", m, n, seed()))
    boundary = [
        shape("one-by-one", "boundary", 1, 1, seed()),
        shape("one-row", "boundary", 1, draw_not_multiple(rng, 2, 100), seed()),
        shape("one-column", "boundary", draw_not_multiple(rng, 2, 100), 1, seed()),
        shape("ragged", "boundary", draw_not_multiple(rng, 33, 100), draw_not_multiple(rng, 33, 100), seed()),
        shape("tall", "boundary", draw_not_multiple(rng, 150, 260), draw_not_multiple(rng, 2, 20), seed()),
        shape("wide", "boundary", draw_not_multiple(rng, 2, 20), draw_not_multiple(rng, 150, 260), seed()),
    ]
    m = int(rng.choice(sizes[1:]))
    race = [shape("race", "race", m, m, seed())]
    return {"normal": normal, "boundary": boundary, "race": race}


@check_case(name="正常形状（32 的倍数，随机值）：结果正确", points=1, hidden=True, kind="normal",
            tags=("rubric:normal",))
def normal_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("正常形状", ctx.runs("normal"))


@check_case(name="正常形状：转置读没有 bank conflict", points=1, hidden=True, kind="conflict",
            tags=("rubric:normal",))
def conflict_free_read(ctx: RunContext) -> Outcome:
    return conflict_outcome(ctx, ctx.runs("normal"), show_shapes=False)


@check_case(name="边界形状（非 32 倍数、1×1、1×N、N×1、瘦高、扁宽）：结果正确", points=1, hidden=True,
            kind="boundary", tags=("rubric:boundary",))
def boundary_shapes(ctx: RunContext) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="无数据竞争（对抗调度）", hidden=True, kind="race")
def race_free(ctx: RunContext) -> Outcome:
    ctx.runs("race", schedule="adversarial")
    runs = ctx.all_runs()
    racy = [r for r in runs if r.race_count]
    wrong = [r for r in ctx.runs("race", schedule="adversarial") if r.ok and not r.correct]
    if not racy and not wrong:
        return Outcome(True, count_message("无数据竞争的运行", len(runs), len(runs)), detail=instructor_detail(runs))
    msg = count_message("无数据竞争的运行", len(runs) - len(racy), len(runs))
    if wrong:
        msg += "；对抗调度下结果错误"
    first = str(racy[0].races[0]) if racy and racy[0].races else ""
    return Outcome(False, msg, detail=(first + "\n" + instructor_detail(runs)).strip())


@check_case(name="无越界访问", hidden=True, kind="oob")
def oob_free(ctx: RunContext) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
