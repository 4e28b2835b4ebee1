"""Lesson 10's challenge, as code: how ``launch_gemm`` is called and checked: C against a float64 product of the
same float32 inputs, within the float32 summation error bound. Shipped to students: nothing here is secret."""
from __future__ import annotations

import numpy as np

from grading.sim import Call, Case, Output

UNIT_ROUNDOFF = 2.0 ** -24          # float32


def gemm(id: str, kind: str, m: int, n: int, k: int, seed: int = 0) -> Case:
    """A case: C[M, N] = A[M, K] · B[K, N], random float32 values drawn from ``seed``."""
    return Case(id, kind, {"M": m, "N": n, "K": k}, seed)


def tolerance(a: np.ndarray, b: np.ndarray) -> float:
    """|fl(Σ) − Σ| ≤ γ_K Σ|a||b| with γ_K = K·u / (1 − K·u) (Higham 3.1), at the largest Σ|a||b| of C, plus the
    rounding of the float64 reference to float32: any summation order passes, a dropped or doubled product not."""
    k = a.shape[1]
    gamma = k * UNIT_ROUNDOFF / (1 - k * UNIT_ROUNDOFF)
    scale = float((np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)).max(initial=0.0))
    return (gamma + UNIT_ROUNDOFF) * scale + np.finfo(np.float32).tiny


def call(case: Case) -> Call:
    """``launch_gemm(A, B, C, M, N, K, 0)``; C must equal A·B within float32 rounding."""
    rng = case.rng()
    a = rng.standard_normal((case.M, case.K)).astype(np.float32)
    b = rng.standard_normal((case.K, case.N)).astype(np.float32)
    c = np.full((case.M, case.N), np.nan, dtype=np.float32)      # NaN marks elements never written
    want = (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    return Call((a.reshape(-1), b.reshape(-1), c.reshape(-1), case.M, case.N, case.K, 0),
                [Output("C", c, want, atol=tolerance(a, b))])
