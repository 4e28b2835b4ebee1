"""Hidden checks of lesson 8: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import (Outcome, check_case, count_message, draw_not_multiple, failure_kind, instructor_detail,
                            oob_outcome, runs_outcome)

from .exercise import LABELS, coalesced_store, shape

SIZES = (32, 64, 96, 128, 160)


def cases(rng: np.random.Generator) -> dict:
    """Square and non-square multiples of 32, and boundary shapes (a ragged square among them), random values."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    normal = [shape(f"square-{i}", "normal", m, m, seed()) for i, m in enumerate(rng.choice(SIZES, 2, replace=False))]
    for i in range(2):
        m, n = (int(v) for v in rng.choice(SIZES, 2, replace=False))
        if (i == 0) == (m > n):                        # both orientations: M < N and M > N
            m, n = n, m
        normal.append(shape(f"nonsquare-{i}", "normal", m, n, seed()))
    side = draw_not_multiple(rng, 33, 100)
    boundary = [
        shape("one-by-one", "boundary", 1, 1, seed()),
        shape("one-row", "boundary", 1, draw_not_multiple(rng, 2, 100), seed()),
        shape("one-column", "boundary", draw_not_multiple(rng, 2, 100), 1, seed()),
        shape("ragged-square", "boundary", side, side, seed()),
        shape("ragged", "boundary", draw_not_multiple(rng, 33, 100), draw_not_multiple(rng, 33, 100), seed()),
        shape("tall", "boundary", draw_not_multiple(rng, 150, 260), draw_not_multiple(rng, 2, 20), seed()),
        shape("wide", "boundary", draw_not_multiple(rng, 2, 20), draw_not_multiple(rng, 150, 260), seed()),
    ]
    return {"normal": normal, "boundary": boundary}


@check_case(name="正常形状（32 的倍数的方阵和非方阵，随机值）：结果正确", points=1, hidden=True, kind="normal",
            tags=("rubric:normal",))
def normal_shapes(ctx) -> Outcome:
    return runs_outcome("正常形状", ctx.runs("normal"))


@check_case(name="边界形状（不是 32 的倍数的方阵和非方阵、1×1、1×N、N×1、瘦高、扁宽）：结果正确", points=1,
            hidden=True, kind="boundary", tags=("rubric:boundary",))
def boundary_shapes(ctx) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="合并：正常形状上写 output 每个请求的 sector 数不多于一个 warp 写 output 一行", points=1,
            hidden=True, kind="coalesced", tags=("rubric:normal",))
def coalesced_store_point(ctx) -> Outcome:
    runs = ctx.runs("normal")
    wrong = [r for r in runs if failure_kind(r) is not None]
    if wrong:        # a coalescing point for a mapping that is not right yet would reward a wrong mapping
        return Outcome(False, count_message("正常形状的结果正确", len(runs) - len(wrong), len(runs))
                       + "。每个正常形状的结果都正确之后，才计算合并这一分。", detail=instructor_detail(wrong))
    good, details = 0, []
    for r in runs:
        req, sec = coalesced_store(r.case.M, r.case.N)
        s = r.summary("store")
        ok = s is not None and s.cost <= sec
        good += ok
        if not ok:
            details.append(f"{r.case.id} {r.case.label} store: {s.cost if s else '?'}/{s.requests if s else '?'} "
                           f"sectors/requests, coalesced {sec}/{req}")
    more = {f"{LABELS['store']} 的 sector 多于合并的写": len(runs) - good}
    return Outcome(good == len(runs), count_message("写 output 合并的运行", good, len(runs), more),
                   detail="\n".join(details))


@check_case(name="无越界访问", hidden=True, kind="oob")
def oob_free(ctx) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
