"""The probe of lesson 10's public checks (shipped): which B element every thread loads into Bs at each k-step,
read back from C on a probe input, and what the pattern of wrong loads says about the index."""
from __future__ import annotations

import numpy as np

from grading import sim
from grading.checks import FAILURE_LABELS, Outcome, failure_kind
from grading.context import RunContext

from .exercise import TILE, gemm

# one block row, three block columns, two k-steps; N ≠ K, and a row pitch of K stays inside B (the lesson's
# hint 3 works through this shape; the veto's probes are exercise.EVIDENCE_PROBES)
PROBE_M, PROBE_N, PROBE_K = TILE, 3 * TILE, 2 * TILE


def probe_cases():
    return [gemm(f"probe-t{s * TILE}", "probe", PROBE_M, PROBE_N, PROBE_K, fill=f"probe{s}")
            for s in range(PROBE_K // TILE)]


def loaded_indices(ctx: RunContext) -> tuple[np.ndarray | None, str | None]:
    """got[s, ty, col]: the flat index into B that thread (col mod TILE, ty) of block (col // TILE, 0) loaded
    into Bs at k-step s (-1: it loaded nothing), or None and why the probe could not run."""
    ex = ctx.exercise
    got = []
    for case in probe_cases():
        rec = ctx.run(case)                              # memoised: what the report and the instructor see
        if not rec.ok:
            return None, f"{FAILURE_LABELS[failure_kind(rec)]}：{rec.error}"
        call = ex.call(case)                             # a second run keeps C (a run record holds counters only)
        again = sim.run_case(ctx.program, ex.config["host_function"], call, case)
        if not again.ok:
            return None, f"{FAILURE_LABELS[failure_kind(again)]}：{again.error}"
        c = np.nan_to_num(np.asarray(call.outputs[0].array, dtype=np.float64), nan=0.0)[:TILE]
        got.append(np.rint(c).astype(np.int64) - 1)
    return np.stack(got), None


def _pattern(got: np.ndarray, t: np.ndarray, ty: np.ndarray, tx: np.ndarray, col: np.ndarray) -> str:
    """One sentence on what the wrong loads have in common, from the loads themselves."""
    n, k = PROBE_N, PROBE_K
    rows = t + ty
    step = got[:, 1, 0] - got[:, 0, 0]                  # how far the index moves when ty grows by 1
    if np.all(got == rows * step[0] + col) and step[0] not in (n, 0):
        # what was loaded, not the conclusion: the student compares the step with B's shape
        return (f"ty 每加 1，你的下标在 B 里前进 {step[0]} 个元素：t = 0 时线程 (tx = 0, ty = 0) 搬 B[{got[0, 0, 0]}]，"
                f"(tx = 0, ty = 1) 搬 B[{got[0, 1, 0]}]。探针的 B 有 K = {k} 行、N = {n} 列。"
                "B 的同一列上相邻两行的两个元素，在行主序的内存里相隔几个元素？")
    if np.all(got == ty * n + col) and t.max() > 0:
        return (f"t = {TILE} 这一步搬的和 t = 0 一样，都是 B 的前 {TILE} 行：下标没有随 t 前进，C 只累加了前 {TILE} 个"
                f"乘积（K ≤ {TILE} 的形状碰巧正确）。")
    if np.all(got == (t + tx) * n + col):
        return ("同一个 ty 的 16 个线程搬了 16 个不同的行：行号跟着 tx 走了。tx 决定这个线程算 C 的哪一列，"
                "所以它只该决定 B 的列。")
    if np.all(got == col * k + rows):
        return ("ty 加 1 时下标只加 1、col 加 1 时下标加 K：这是按列主序（把 B 当成它的转置）取元素，而 B 是行主序。")
    r, c = np.divmod(got, n)
    if np.all(r == rows):
        return "搬的行都对，列不对：列号应当是这个线程算的 C 的列。"
    if np.all(c == col):
        return "搬的列都对，行不对：第 t 步、第 ty 行的线程该搬 B 的哪一行？"
    return "行和列都不对。"


def probe_outcome(ctx: RunContext) -> Outcome:
    """Every thread's load into Bs on the probe, against the element the inner loop multiplies it with."""
    got, error = loaded_indices(ctx)
    size = f"M×N×K = {PROBE_M}×{PROBE_N}×{PROBE_K}"
    if got is None:
        return Outcome(False, f"探针输入（{size}）运行出错（{error}）")
    steps, rows, cols = got.shape
    t, ty, col = np.meshgrid(np.arange(steps) * TILE, np.arange(rows), np.arange(cols), indexing="ij")
    tx = col % TILE
    want = np.ravel_multi_index((t + ty, col), (PROBE_K, PROBE_N))      # B's element (t + ty, col)
    bad = got != want
    total = got.size
    if not bad.any():
        return Outcome(True, f"探针输入（{size}）：{total} 次搬运（{steps} 步 × {rows * cols} 个线程）都把 B 的"
                             "第 t + ty 行、第 col 列搬进了 Bs[ty][tx]。")
    s, y, x = (int(v) for v in np.argwhere(bad)[0])
    idx = int(got[s, y, x])
    what = "什么也没搬（填了 0）" if idx < 0 else f"B[{idx}]，即 B 的第 {idx // PROBE_N} 行第 {idx % PROBE_N} 列"
    head = (f"探针输入（{size}；A 在第 t 步的那一块是单位矩阵、其余为 0，B 的每个元素等于它的下标 + 1，"
            f"于是 C 直接显示每个线程搬进 Bs 的是哪个 B 元素）：{int(bad.sum())}/{total} 次搬运拿错了元素。")
    example = (f"例如 t = {s * TILE} 时 block ({x // TILE}, 0) 的线程 (tx = {x % TILE}, ty = {y}) 搬进 Bs[{y}][{x % TILE}] "
               f"的是 {what}。内层循环在 k = {y} 时用 Bs[{y}][{x % TILE}] 去乘 As[ty][{y}]（A 的第 t + {y} = {s * TILE + y} 列），"
               f"所以它应当是 B 第 {s * TILE + y} 行、第 col = {x} 列的元素；拿错了，这个 block 算的 C 第 {x} 列的 "
               f"{TILE} 个元素都乘进了错的数，不再是 A 的一行与 B 第 {x} 列的点积。")
    return Outcome(False, f"{head}{example}{_pattern(got, t, ty, tx, col)}",
                   data={"wrong_loads": int(bad.sum()), "loads": total})
