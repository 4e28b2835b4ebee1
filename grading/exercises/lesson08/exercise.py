"""Lesson 8's exercise, as code: how the host function is called and checked (``call``) and the right-by-luck
veto, on evidence: probes measure the row pitch the blank actually uses, and a wrong index that still earned
points (on the shapes where that pitch happens to be right) is vetoed, with the explanation the probes give.

Shipped to students with the public checks: nothing here is secret.
"""
from __future__ import annotations

import numpy as np

from grading.checks import Hypothesis, IndexEvidence, evidence_veto, linear_fit, scored_passes, which
from grading.results import Veto
from grading.sim import Call, Case, Output, run_case


def shape(id: str, kind: str, m: int, n: int, seed: int = 0) -> Case:
    """A case: an M×N float32 matrix of random values drawn from ``seed``."""
    return Case(id, kind, {"M": m, "N": n}, seed)


def call(case: Case) -> Call:
    """``launch_transpose_naive(input, output, M, N, 0)``; the output must equal numpy's transpose."""
    a = case.rng().standard_normal((case.M, case.N)).astype(np.float32)
    out = np.full((case.N, case.M), np.nan, dtype=np.float32)   # NaN marks elements never written
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, 0), [Output("output", out, a.T)])


# the probes that measure the blank's index: M ≠ N, neither a multiple of 32, no 1-wide shape
PROBES = ({"M": 48, "N": 80}, {"M": 80, "N": 48})
ceil32 = lambda v: -(-v // 32) * 32  # noqa: E731
# what a wrong row pitch may be, and on which shapes it is right (output's rows have M elements)
PITCHES = [
    Hypothesis("input 的列数 N", lambda s: s["N"], "M = N 时"),
    Hypothesis("M 向上取整到 32 的倍数（gridDim.y * TILE_DIM）", lambda s: ceil32(s["M"]), "M 是 32 的倍数时"),
    Hypothesis("N 向上取整到 32 的倍数（gridDim.x * TILE_DIM）", lambda s: ceil32(s["N"]), "M 恰好等于 N 向上取整到 32 的倍数时"),
    Hypothesis("TILE_DIM（32）", lambda s: 32, "M = 32 时"),
]


def index_evidence(program, host: str = "launch_transpose_naive") -> IndexEvidence:
    """Run each probe with input[r][c] = r * N + c + 1 and a generous output buffer (a wrong index lands inside
    it and is measured rather than stopping the run): output[i] = v says input (row, col) went to i."""
    coefs, right = [], True
    for sizes in PROBES:
        m, n = sizes["M"], sizes["N"]
        case = Case("probe-" + f"{m}x{n}", "probe", dict(sizes), 0, "arange")
        a = np.arange(1, m * n + 1, dtype=np.float32)
        out = np.full(8 * m * n, np.nan, dtype=np.float32)
        rec = run_case(program, host, Call((a, out, m, n, 0), []), case)
        if not rec.ok:
            return IndexEvidence(list(PROBES), [], False, rec.error_kind)
        i = np.flatnonzero(~np.isnan(out))
        row, col = np.divmod(out[i].astype(np.int64) - 1, n)
        right = right and len(i) == m * n and bool(np.all(i == col * m + row))
        coefs.append(linear_fit([({"col": int(c), "row": int(r)}, int(k)) for c, r, k in zip(col, row, i)]))
    return IndexEvidence(list(PROBES), coefs, right)


def explain(ev: IndexEvidence) -> str:
    """What the probes show about the index, in one or two sentences (true of the measured index)."""
    shapes = " 和 ".join(f"{s['M']}×{s['N']}" for s in ev.probes)
    ms = "、".join(str(s["M"]) for s in ev.probes)
    a, b = ev.pitch("col"), ev.pitch("row")
    if a is None or b is None:
        return f"探针输入（M×N = {shapes}，每个元素等于自己的下标 + 1）上，它不是 row、col 的一次式：有元素写到了别处或被覆盖。"
    if any(v != 1 for v in b) or any(c["const"] for c in ev.coef):
        return (f"探针输入（M×N = {shapes}）上，row 每加 1 下标前进 {'、'.join(map(str, b))} 个元素：output 里同一行"
                "相邻的两个元素（row 相差 1）应当相邻，下标应当只差 1。")
    h = which(a, ev.probes, PITCHES)
    what = f"，正是 {h.label}" if h else ""
    when = f"只有 {h.when}两者相同。" if h else "两者不同。"
    return (f"探针输入（M×N = {shapes}，每个元素等于自己的下标 + 1）量出：col 每加 1，下标前进 "
            f"{'、'.join(map(str, a))} 个元素{what}；output 是 N 行 M 列，一行有 M（{ms}）个元素，{when}")


def right_by_luck(st) -> Veto | None:
    """The index is wrong on the probes, yet some scored check passed: those points are luck."""
    if st.program is None or not scored_passes(st):       # nothing earned: no luck to veto, no probe run
        return None
    ev = index_evidence(st.program, st.exercise.config["host_function"])
    return evidence_veto(st, ev, explain(ev))


VETOES = [right_by_luck]
