"""Lesson 10's exercise, as code: how launch_gemm_tiled is called and checked (``call``): C against a float64
product of the same float32 inputs, within the float32 summation error bound.

Shipped to students with the public checks: nothing here is secret.
"""
from __future__ import annotations

import numpy as np

from grading.results import Veto
from grading.sim import Call, Case, Output

TILE = 16                           # the template's TILE (a region edits may not touch)
UNIT_ROUNDOFF = 2.0 ** -24          # float32


def gemm(id: str, kind: str, m: int, n: int, k: int, seed: int = 0, fill: str = "normal") -> Case:
    """A case: C[M, N] = A[M, K] · B[K, N], random float32 values drawn from ``seed``."""
    return Case(id, kind, {"M": m, "N": n, "K": k}, seed, fill)


def operands(case: Case) -> tuple[np.ndarray, np.ndarray]:
    """Random normal A and B, or for a probe case (``fill="probe<s>"``) A with an identity block in k-step s
    and zeros elsewhere and B holding each element's flat index + 1: then C[row][col] is exactly the B value
    thread (col mod TILE, row mod TILE) loaded into Bs at step s (0: it loaded nothing, the zero fill)."""
    if case.fill.startswith("probe"):
        step = int(case.fill[len("probe"):])
        a = np.zeros((case.M, case.K), dtype=np.float32)
        for r in range(case.M):
            if step * TILE + r % TILE < case.K:
                a[r, step * TILE + r % TILE] = 1.0
        b = np.arange(1, case.K * case.N + 1, dtype=np.float32).reshape(case.K, case.N)
        return a, b
    rng = case.rng()
    a = rng.standard_normal((case.M, case.K)).astype(np.float32)
    b = rng.standard_normal((case.K, case.N)).astype(np.float32)
    return a, b


def tolerance(a: np.ndarray, b: np.ndarray) -> float:
    """The worst-case error of a K-term float32 dot product in any summation order, |fl(Σ) − Σ| ≤ γ_K Σ|a||b|
    with γ_K = K·u / (1 − K·u) (Higham, Accuracy and Stability, 3.1), taken at the largest Σ|a||b| of C, plus
    the rounding of the float64 reference to float32. A wrong index adds or drops whole products: errors of
    order |a||b| ≈ 1, far above this bound."""
    k = a.shape[1]
    gamma = k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)
    scale = float((np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)).max(initial=0.0))
    return (gamma + UNIT_ROUNDOFF) * scale + np.finfo(np.float32).tiny


def call(case: Case) -> Call:
    """``launch_gemm_tiled(A, B, C, M, N, K, 0)``; C must equal A·B within float32 rounding."""
    a, b = operands(case)
    c = np.full((case.M, case.N), np.nan, dtype=np.float32)      # NaN marks elements never written
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return Call((a.reshape(-1), b.reshape(-1), c.reshape(-1), case.M, case.N, case.K, 0),
                [Output("C", c, want, atol=tolerance(a, b))])


def _failures(bad: list) -> str:
    oob = sum(r.error_kind == "oob" for r in bad)
    return "，".join(x for x in (f"{oob} 个越界" if oob else "",
                                 f"{len(bad) - oob} 个结果错误" if len(bad) > oob else "") if x)


def right_by_luck(st) -> Veto | None:
    """Every case with N = K right and some N ≠ K case wrong (a row pitch of K, not N), or every tile-multiple
    case right and some partial-tile case wrong: the index holds only on the shapes it happened to meet."""
    runs = [r for ctx in (st.public_ctx, st.hidden_ctx) if ctx is not None for r in ctx.all_runs() if r.schedule == "lockstep"]
    if not runs:
        return None
    blank = st.result.blank or ""
    blank = blank if len(blank) <= 80 else blank[:79] + "…"
    # with K = 1 every row pitch gives the same index (t + ty is 0), so those shapes tell no pitch apart
    runs = [r for r in runs if r.case.kind != "probe"]
    same = [r for r in runs if r.case.N == r.case.K]
    other = [r for r in runs if r.case.N != r.case.K and r.case.K > 1]
    bad = [r for r in other if not r.passed]
    if same and all(r.passed for r in same) and bad:
        return Veto("right_by_luck", "结果碰巧正确但核心因果链错误",
                    f"填空 `{blank}` 在全部 {len(same)} 个 N = K 的用例上正确，但 {len(other)} 个 N ≠ K 的用例中 "
                    f"{len(bad)} 个出错（{_failures(bad)}）：下标里的行宽只有在 N = K 时才对。B 是 K 行 N 列的"
                    "行主序矩阵，第 t + ty 行从哪个下标开始？")
    whole = [r for r in runs if all(v % TILE == 0 for v in r.case.sizes.values())]
    partial = [r for r in runs if r not in whole]
    bad = [r for r in partial if not r.passed]
    if whole and all(r.passed for r in whole) and bad:
        return Veto("right_by_luck", "结果碰巧正确但核心因果链错误",
                    f"填空 `{blank}` 在全部 {len(whole)} 个 M、N、K 都是 {TILE} 的倍数的用例上正确，但 {len(partial)} 个"
                    f"留下不满 tile 的用例中 {len(bad)} 个出错（{_failures(bad)}）：下标依赖的量只在整 tile 时等于矩阵的尺寸。")
    return None


VETOES = [right_by_luck]
