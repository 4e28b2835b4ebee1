"""Lesson 10's exercise, as code: how launch_gemm_tiled is called and checked (``call``): C against a float64
product of the same float32 inputs, within the float32 summation error bound.

Shipped to students with the public checks: nothing here is secret.
"""
from __future__ import annotations

import numpy as np

from grading.checks import Hypothesis, IndexEvidence, evidence_veto, linear_fit, scored_passes, which
from grading.results import Veto
from grading.sim import Call, Case, Output, run_case

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


# ---- evidence for the right-by-luck veto (issue 25): the pitch the index uses, on two probes ----------------
# every size ≥ 16 and M, N, K, TILE take different values across the two probes, N is not a multiple of TILE
# in the second, so each hypothesis below predicts a different pair of pitches; K = TILE there keeps it to
# one k-step
EVIDENCE_PROBES = ({"M": 3 * TILE, "N": 4 * TILE, "K": 2 * TILE},
                   {"M": 3 * TILE, "N": 2 * TILE + 8, "K": TILE})
PITCHES = [
    Hypothesis(f"N 向上取整到 {TILE} 的倍数（gridDim.x * TILE）", lambda s: -(-s["N"] // TILE) * TILE,
               f"N 是 {TILE} 的倍数时"),
    Hypothesis("K（A 的列数）", lambda s: s["K"], "N = K 时"),
    Hypothesis("M（C 的行数）", lambda s: s["M"], "M = N 时"),
    Hypothesis(f"TILE（{TILE}）", lambda s: TILE, f"N = {TILE} 时"),
]


def index_evidence(program, host: str) -> IndexEvidence:
    """Every probe's B loads (B padded and numbered, so a wrong in-range or beyond-B index is measured, not
    stopped), fitted as index = a · (t + ty) + b · col + c."""
    coefs, right = [], True
    for sizes in EVIDENCE_PROBES:
        m, n, k = sizes["M"], sizes["N"], sizes["K"]
        points = []
        for s in range(k // TILE):
            case = gemm(f"evidence-{m}x{n}x{k}-t{s * TILE}", "probe", m, n, k, fill=f"probe{s}")
            a, _ = operands(case)
            b = np.arange(1, 8 * k * n + 1, dtype=np.float32)
            c = np.full((m, n), np.nan, dtype=np.float32)
            rec = run_case(program, host, Call((a.reshape(-1), b, c.reshape(-1), m, n, k, 0), []), case)
            if not rec.ok:
                return IndexEvidence(list(EVIDENCE_PROBES), [], False, rec.error_kind)
            got = np.rint(np.nan_to_num(c[:TILE].astype(np.float64), nan=0.0)).astype(np.int64) - 1
            ty, col = np.meshgrid(np.arange(TILE), np.arange(n), indexing="ij")
            right = right and bool(np.all(got == (s * TILE + ty) * n + col))
            points += [({"row": int(s * TILE + y), "col": int(x)}, int(g))
                       for y, x, g in zip(ty.ravel(), col.ravel(), got.ravel()) if g >= 0]
        coefs.append(linear_fit(points))
    return IndexEvidence(list(EVIDENCE_PROBES), coefs, right)


def explain(ev: IndexEvidence) -> str:
    shapes = " 和 ".join(f"{s['M']}×{s['N']}×{s['K']}" for s in ev.probes)
    ns = "、".join(str(s["N"]) for s in ev.probes)
    a, b = ev.pitch("row"), ev.pitch("col")
    head = f"探针输入（M×N×K = {shapes}，B 的每个元素等于它的下标 + 1）"
    if a is None or b is None:
        return f"{head}上，搬进 Bs 的元素不是按 B 的行 t + ty、列 col 排的：见公开检查里探针那一项的说明。"
    if any(v != 1 for v in b) or any(c["const"] for c in ev.coef):
        return f"{head}上，col 每加 1 下标前进 {'、'.join(map(str, b))} 个元素（应为 1）：列号用错了。"
    h = which(a, ev.probes, PITCHES)
    what = f"，正是 {h.label}" if h else ""
    when = f"只有 {h.when}两者相同。" if h else "两者不同。"
    return (f"{head}量出：B 的行号每加 1，下标前进 {'、'.join(map(str, a))} 个元素{what}；B 是 K 行 N 列，"
            f"一行有 N（{ns}）个元素，{when}")


def right_by_luck(st) -> Veto | None:
    """The probes measure the B index the blank uses; a wrong one that still earned points is vetoed, with
    the explanation the probes give (never inferred from which groups passed)."""
    if st.program is None or not scored_passes(st):       # nothing earned: no luck to veto, no probe run
        return None
    ev = index_evidence(st.program, st.exercise.config["host_function"])
    return evidence_veto(st, ev, explain(ev))


VETOES = [right_by_luck]
