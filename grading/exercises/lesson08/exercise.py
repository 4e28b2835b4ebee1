"""Lesson 8's exercise, as code: how the host function is called and checked (``call``) and the right-by-luck
veto (right on every square matrix, wrong on a non-square one: the blank used the wrong row length).

Shipped to students with the public checks: nothing here is secret.
"""
from __future__ import annotations

import numpy as np

from grading.results import Veto
from grading.sim import Call, Case, Output


def shape(id: str, kind: str, m: int, n: int, seed: int = 0) -> Case:
    """A case: an M×N float32 matrix of random values drawn from ``seed``."""
    return Case(id, kind, {"M": m, "N": n}, seed)


def call(case: Case) -> Call:
    """``launch_transpose_naive(input, output, M, N, 0)``; the output must equal numpy's transpose."""
    a = case.rng().standard_normal((case.M, case.N)).astype(np.float32)
    out = np.full((case.N, case.M), np.nan, dtype=np.float32)   # NaN marks elements never written
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, 0), [Output("output", out, a.T)])


def right_by_luck(st) -> Veto | None:
    """Every square case right, some non-square case wrong or out of bounds: the index only works for M = N."""
    runs = [r for ctx in (st.public_ctx, st.hidden_ctx) if ctx is not None for r in ctx.all_runs()]
    square = [r for r in runs if r.case.M == r.case.N]
    # with N = 1 every row length gives the same index, so those shapes cannot tell the fills apart
    other = [r for r in runs if r.case.M != r.case.N and r.case.N > 1]
    if not square or not other or not all(r.passed for r in square):
        return None
    bad = [r for r in other if not r.passed]
    if not bad:
        return None
    oob = sum(r.error_kind == "oob" for r in bad)
    how = "，".join(x for x in (f"{oob} 个越界" if oob else "", f"{len(bad) - oob} 个结果错误" if len(bad) > oob else "") if x)
    return Veto("right_by_luck", "结果碰巧正确但核心因果链错误",
                f"填空 `{st.result.blank}` 在全部 {len(square)} 个方阵（M = N）上正确，但 {len(other)} 个非方阵中 "
                f"{len(bad)} 个出错（{how}）：下标用的行宽只有在 M = N 时才对。output 是 N 行 M 列，它的一行有几个元素？")


VETOES = [right_by_luck]
