"""Hidden checks of P2: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import (Outcome, check_case, count_message, draw_not_multiple, failure_kind, instructor_detail,
                            oob_outcome, runs_outcome)

from .exercise import FOCUS, LABELS, coalesced_counts, matrix


def cases(rng: np.random.Generator) -> dict:
    """Normal shapes (multiples of 32), boundary shapes and edge lane masks, random values."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    ragged = lambda lo, hi, of=32: draw_not_multiple(rng, lo, hi, of)  # noqa: E731
    sizes = [32, 64, 96, 128]
    normal = []
    for i in range(3):
        m, n = (int(rng.choice(sizes)) for _ in range(2))
        if i == 2 and m == n:                      # at least one rectangle
            n = 32 if m != 32 else 64
        normal.append(matrix(f"normal-{i}", "normal", m, n, seed()))
    boundary = [
        matrix("one-by-one", "boundary", 1, 1, seed()),
        matrix("one-row", "boundary", 1, ragged(2, 100), seed()),
        matrix("one-column", "boundary", ragged(2, 100), 1, seed()),
        matrix("lane0-edge", "boundary", ragged(9, 40), 32 * int(rng.integers(1, 4)) + 1, seed()),
        matrix("partial-edge", "boundary", ragged(9, 40), 32 * int(rng.integers(1, 3)) + int(rng.integers(2, 31)), seed()),
        matrix("tall", "boundary", ragged(150, 260), ragged(2, 20), seed()),
        matrix("wide", "boundary", ragged(2, 7), ragged(150, 260), seed()),
    ]
    return {"normal": normal, "boundary": boundary}


@check_case(name="P2 正常形状（32 的倍数，随机值）：out 正确", points=1, hidden=True, kind="normal",
            tags=("rubric:normal",))
def p2_hidden_normal_correct(ctx) -> Outcome:
    return runs_outcome("正常形状", ctx.runs("normal"))


@check_case(name="P2 合并：正常形状上读 in、写 out 每个请求的 sector 数不多于合并的映射", points=1, hidden=True,
            kind="coalesced", tags=("rubric:normal",))
def p2_hidden_sectors_coalesced(ctx) -> Outcome:
    runs = ctx.runs("normal")
    wrong = [r for r in runs if failure_kind(r) is not None]
    if wrong:        # a coalescing point for a mapping that is not right yet would reward a wrong index
        return Outcome(False, count_message("正常形状的结果正确", len(runs) - len(wrong), len(runs))
                       + "。每个正常形状的结果都正确之后，才计算合并这一分。", detail=instructor_detail(wrong))
    more: dict[str, int] = {}
    good = 0
    details = []
    for r in runs:
        req, sec = coalesced_counts(r.case.M, r.case.N)
        over = [fid for fid in FOCUS if r.summary(fid) is not None and r.summary(fid).cost > sec]
        good += not over
        for fid in over:
            key = f"{LABELS[fid]} 的 sector 多于合并的映射"
            more[key] = more.get(key, 0) + 1
            s = r.summary(fid)
            details.append(f"{r.case.id} {r.case.label} {fid}: {s.cost}/{s.requests} sectors/requests, "
                           f"coalesced {sec}/{req}")
    return Outcome(good == len(runs), count_message("读写都合并的运行", good, len(runs), more),
                   detail="\n".join(details))


@check_case(name="P2 边界形状（1×1、1×N、N×1、右边缘只有部分 lane 活跃、瘦高、扁宽）：out 正确", points=1,
            hidden=True, kind="boundary", tags=("rubric:boundary",))
def p2_hidden_boundary_correct(ctx) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="P2 无越界访问", hidden=True, kind="oob")
def p2_hidden_no_oob(ctx) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
