"""Hidden checks of P2: never shipped to students (the student build drops this file).

Inputs are drawn per submission from the instructor secret. Messages carry counts and failure kinds only.
"""
from __future__ import annotations

import numpy as np

from grading.checks import Outcome, check_case, count_message, failure_kind, oob_outcome, runs_outcome

from .exercise import matrix
from .public_checks import sectors_outcome


def _ragged(rng: np.random.Generator, lo: int, hi: int, mod: int = 32) -> int:
    while True:
        v = int(rng.integers(lo, hi + 1))
        if v % mod:
            return v


def cases(rng: np.random.Generator) -> dict:
    """Normal shapes (multiples of 32 and 8), boundary shapes and edge lane masks, random values."""
    seed = lambda: int(rng.integers(2**31))  # noqa: E731
    sizes = [32, 64, 96, 128]
    normal = []
    for i in range(3):
        m, n = (int(rng.choice(sizes)) for _ in range(2))
        if i == 2 and m == n:                      # at least one rectangle: a transposed index goes wrong there
            n = 32 if m != 32 else 64
        normal.append(matrix(f"normal-{i}", "normal", m, n, seed()))
    boundary = [
        matrix("one-by-one", "boundary", 1, 1, seed()),
        matrix("one-row", "boundary", 1, _ragged(rng, 2, 100), seed()),
        matrix("one-column", "boundary", _ragged(rng, 2, 100, 8), 1, seed()),
        matrix("lane0-edge", "boundary", _ragged(rng, 9, 40, 8), 32 * int(rng.integers(1, 4)) + 1, seed()),
        matrix("partial-edge", "boundary", _ragged(rng, 9, 40, 8), 32 * int(rng.integers(1, 3)) + int(rng.integers(2, 31)), seed()),
        matrix("tall", "boundary", _ragged(rng, 150, 260, 8), _ragged(rng, 2, 20), seed()),
        matrix("wide", "boundary", _ragged(rng, 2, 7, 8), _ragged(rng, 150, 260), seed()),
    ]
    return {"normal": normal, "boundary": boundary}


@check_case(name="正常形状（32 的倍数，随机值）：结果正确", points=1, hidden=True, kind="normal",
            tags=("rubric:normal",))
def normal_shapes(ctx) -> Outcome:
    return runs_outcome("正常形状", ctx.runs("normal"))


@check_case(name="正常形状：读 in 和写 out 都合并", points=1, hidden=True, kind="coalesced",
            tags=("rubric:normal",))
def normal_shapes_use_few_sectors(ctx) -> Outcome:
    runs = [r for r in ctx.runs("normal") if failure_kind(r) is None]
    if not runs:
        return Outcome(False, "结果还不正确，先让结果正确，再看合并。")
    outcomes = [sectors_outcome(r, show=False) for r in runs]
    bad = [o for o in outcomes if not o.passed]
    return Outcome(not bad, count_message("合并的运行", len(runs) - len(bad), len(runs)) + "：" +
                   (bad[0] if bad else outcomes[0]).message)


@check_case(name="边界形状（1×1、1×N、N×1、右边缘只有部分 lane 活跃、瘦高、扁宽）：结果正确", points=1, hidden=True,
            kind="boundary", tags=("rubric:boundary",))
def boundary_shapes(ctx) -> Outcome:
    return runs_outcome("边界形状", ctx.runs("boundary"))


@check_case(name="无越界访问", hidden=True, kind="oob")
def oob_free(ctx) -> Outcome:
    return oob_outcome("无越界访问的运行", ctx.all_runs())
