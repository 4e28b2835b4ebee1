"""Lesson 10 (shared-memory tiled GEMM): every number and figure the lesson shows, computed on labsim or read
from the H200 recordings (measurements/h200/gemm/, through figures.recordings: in the student kit, its bundle).

All kernels are real CUDA run by ``labsim.cuda``, built from the lesson's exercise
(``grading/exercises/lesson10/template.cu`` filled with :func:`figures.lessonkit.demo_fill`: the reference on the
answer branch, the student's own fill on the exercise branch -- this module holds no answer): the
exercise itself for the races and boundaries (line numbers are the exercise cell's), and its variants TILE
4/8/16/32, padded, B tile stored column-wise -- textually the variants of measurements/h200/gemm/gemm_tiled.cuh
the H200 ran -- for the counters. The naive kernel is :data:`NAIVE_SOURCE` (= gemm_naive.cuh). Without any
recording (neither measurements/ nor the kit's bundle) every H200 column reads "not recorded".

A lesson cell calls one function here and shows the :class:`figures.table.Table` or Figure it returns.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from . import recordings
from . import lessonkit as kit
from ._fonts import t
from .recordings import measurements_dir  # noqa: F401  (tests read the raw files beside the recordings)
from . import static_explorer as se
from .lessonkit import cell_line
from .heatmap import (DEGREE_BOUNDS, DEGREE_COLORS, DEGREE_LABELS, bank_conflicts, bank_degrees,
                      draw_bank_heatmap, draw_bank_heatmaps, wavefront_caption)
from .table import Table

EXERCISE = "lesson10"
TARGET = "10_gemm_tiled.cu"
SHAPE = (64, 64, 64)                 # the recorded H200 shapes: 64³ and a guarded non-multiple one
ODD_SHAPE = (70, 45, 33)
RIGHT, WRONG = t("对", "right"), t("错", "wrong")

# Kernels the H200 ran (measurements/h200/gemm/results.json), in the order the lesson lists them.
H200_KERNELS = ("gemm_naive", "gemm_tiled16", "gemm_tiled16_pad", "gemm_tiled16_bt", "gemm_tiled16_bt_pad",
                "gemm_tiled32", "gemm_tiled32_pad", "gemm_tiled32_bt", "gemm_tiled32_bt_pad")


# ---- sources -------------------------------------------------------------------------------------------

def records():
    """figures.recordings, the one reader of the H200 recordings (the repo's measurements/h200/, or the
    student kit's bundle); every answer is None where nothing is recorded."""
    return recordings



after_exercise = kit.after_exercise(EXERCISE)


def fill() -> str:
    """The fill the demos run (kit.demo_fill; raises kit.NeedsFill on the exercise branch before the exercise)."""
    return kit.demo_fill(EXERCISE).text


def exercise_source(blank: str | None = None, *, sync1: bool = True, sync2: bool = True, loads: str = "zero_fill") -> str:
    """The lesson's exercise (grading's template) with the blank filled and, for the demos, one edit.

    ``sync1=False`` / ``sync2=False`` comment out the barrier after the tile loads / after the inner loop;
    ``loads="guard_only"`` keeps the bounds test but stores nothing outside (no zero-fill: the tile keeps the
    previous step's values), ``loads="no_guard"`` loads without any test. Line numbers never shift.
    """
    blank = blank or fill()
    src = kit.source(EXERCISE, blank)
    a_load = "As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;"
    b_load = f"Bs[ty][tx] = (t + ty < K && col < N) ? B[{blank}] : 0.0f;"
    lines = src.split("\n")
    barriers = [i for i, ln in enumerate(lines) if ln.strip() == "__syncthreads();"]
    if len(barriers) != 2:
        raise ValueError(f"exercise_source: expected two __syncthreads() lines in the {EXERCISE} template")
    for keep, i, what in ((sync1, barriers[0], "first"), (sync2, barriers[1], "second")):
        if not keep:
            lines[i] = f"        // __syncthreads();   ({what} barrier removed for this demo)"
    src = "\n".join(lines)
    edits = []
    if loads == "guard_only":
        edits += [(a_load, "if (row < M && t + tx < K) As[ty][tx] = A[row * K + t + tx];  // no zero-fill"),
                  (b_load, f"if (t + ty < K && col < N) Bs[ty][tx] = B[{blank}];  // no zero-fill")]
    elif loads == "no_guard":
        edits += [(a_load, "As[ty][tx] = A[row * K + t + tx];  // no bounds test"),
                  (b_load, f"Bs[ty][tx] = B[{blank}];  // no bounds test")]
    elif loads != "zero_fill":
        raise ValueError(f"loads must be 'zero_fill', 'guard_only' or 'no_guard', got {loads!r}")
    for old, new in edits:
        if src.count(old) != 1:
            raise ValueError(f"exercise_source: expected one {old!r} in the {EXERCISE} template")
        src = src.replace(old, new)
    return src


def masked(code: str) -> str:
    """Code as the lesson displays it: the exercise's answer (the B-tile index) shown as the blank, so no table or
    report of the exercise branch gives it away (the answer branch has the solution cell)."""
    try:
        return code.replace(fill(), kit.BLANK)
    except kit.NeedsFill:
        return code


def operands(M: int, N: int, K: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32))


def wrong_mask(C: np.ndarray, A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Elements of C farther from the float64 product than float32 summation can explain (NaN counts as wrong):
    the exercise's own tolerance (grading/exercises/lesson10/exercise.py), as the grader checks."""
    ref = A.astype(np.float64) @ B.astype(np.float64)
    return ~(np.abs(C.astype(np.float64) - ref) <= kit.exercise(EXERCISE).module.tolerance(A, B))


def run_exercise(M: int, N: int, K: int, *, seed: int = 0, schedule: str = "lockstep", **edits):
    """Compile the exercise (with ``edits``, see :func:`exercise_source`) and run its launcher on labsim;
    returns (result, A, B, C). C starts as NaN, so elements never written show as wrong."""
    A, B = operands(M, N, K, seed)
    C = np.full((M, N), np.nan, dtype=np.float32)
    (res,) = kit.run_source(EXERCISE, exercise_source(**edits), (A, B, C, M, N, K, 0), schedule=schedule)
    return res, A, B, C


# The naive kernel of measurements/h200/gemm/gemm_naive.cuh (what the H200 ran; a test keeps them equal), with a
# launcher. Kept here because the student kit ships figures but not measurements/.
NAIVE_SOURCE = """\
// Lesson 10's naive GEMM: C[M, N] = A[M, K] * B[K, N], float32, row-major, one thread per element of C,
// every operand read from global memory. Block (16, 16), grid (ceil(N / 16), ceil(M / 16)).
extern "C" __global__ void gemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                      int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
"""
VARIANT = re.compile(r"gemm_tiled(\d+)(_bt)?(_pad(\d*))?")


def pad_of(name: str) -> int:
    """Floats added to each tile row: ``_pad`` is +1 (the recorded kernels), ``_pad4`` +4; 0 otherwise."""
    m = VARIANT.fullmatch(name)
    return 0 if not m or not m[3] else int(m[4] or 1)


def kernel_source(name: str, blank: str | None = None) -> tuple[str, int, str]:
    """(source, tile, kernel) of a lesson kernel: ``gemm_naive``, or ``gemm_tiled{T}[_bt][_pad]`` built from the
    exercise (reference fill) by changing only TILE, the tiles' row length (``_pad``: ``[TILE][TILE + 1]``,
    ``_pad4``: ``[TILE][TILE + 4]``) and
    the B tile's layout (``_bt``: stored as ``Bs[tx][ty]``, read as ``Bs[tx][k]``) -- the variants of
    measurements/h200/gemm/gemm_tiled.cuh the H200 ran (a test checks they count the same)."""
    if name == "gemm_naive":
        return NAIVE_SOURCE, 16, "gemm_naive"
    m = VARIANT.fullmatch(name)
    if not m or int(m[1]) not in (4, 8, 16, 32):
        raise ValueError(f"unknown GEMM kernel {name!r}: gemm_naive or gemm_tiled<T>[_bt][_pad], T in 4, 8, 16, 32")
    src = exercise_source(blank)
    edits = [("constexpr int TILE = 16;", f"constexpr int TILE = {m[1]};")]
    if m[3]:
        p = pad_of(name)
        edits += [("__shared__ float As[TILE][TILE];", f"__shared__ float As[TILE][TILE + {p}];"),
                  ("__shared__ float Bs[TILE][TILE];", f"__shared__ float Bs[TILE][TILE + {p}];")]
    if m[2]:
        edits += [("Bs[ty][tx] = (t + ty < K && col < N)", "Bs[tx][ty] = (t + ty < K && col < N)"),
                  ("acc += As[ty][k] * Bs[k][tx];", "acc += As[ty][k] * Bs[tx][k];")]
    for old, new in edits:
        if src.count(old) != 1:
            raise ValueError(f"kernel_source({name!r}): expected one {old!r} in the exercise template")
        src = src.replace(old, new)
    return src, int(m[1]), "gemm_tiled_kernel"


def run_gemm(name: str, shape: tuple[int, int, int] = SHAPE, seed: int = 0, counting: str = "auto"):
    """Run a lesson kernel (see :func:`kernel_source`) on labsim at M×N×K; returns (result, A, B, C).
    ``counting``: "auto" counts the compiled kernel (LDS.128 merging included, labsim.cuda.sass), "source" each
    access as written (the bank table's scalar view). Memoised per fill."""
    return _run_gemm(name, shape, seed, counting, None if name == "gemm_naive" else fill())


@functools.lru_cache(maxsize=64)
def _run_gemm(name: str, shape: tuple[int, int, int], seed: int, counting: str, blank: str | None):
    from labsim.cuda import compile as compile_cuda
    M, N, K = shape
    src, tile, kernel = kernel_source(name, blank)
    A, B = operands(M, N, K, seed)
    C = np.full((M, N), np.nan, dtype=np.float32)
    prog = compile_cuda(src, f"{name}.cu" if name == "gemm_naive" else TARGET)
    res = prog.launch(kernel, (-(-N // tile), -(-M // tile)), (tile, tile), (A, B, C, M, N, K), counting=counting)
    return res, A, B, C


def _label(name: str) -> str:
    if name == "gemm_naive":
        return t("朴素 GEMM", "naive GEMM")
    m = VARIANT.fullmatch(name)
    T, bt, pad = int(m[1]), bool(m[2]), pad_of(name)
    # short: the H200 tables have nine columns; "+1" is the padded row [TILE][TILE + 1]
    return f"TILE {T}, " + ("Bs[tx][k]" if bt else "Bs[k][tx]") + (f" +{pad}" if pad else "")


# ---- global traffic and reuse ----------------------------------------------------------------------------

def _global(stats, op: str = "ld") -> tuple[int, int]:
    m = stats.metrics
    return (m[kit.metric("global", op, "requests")], m[kit.metric("global", op, "cost")])


@after_exercise
def intensity_table(shape: tuple[int, int, int] = SHAPE, tiles: tuple[int, ...] = (4, 8, 16, 32), *,
                    naive_only: bool = False) -> Table:
    """Per element of C: global load requests, sectors and bytes (labsim), and FLOP per byte of global load
    traffic (2K FLOP per element over the bytes its sectors move), naive vs tiled with each tile edge."""
    M, N, K = shape
    names = ["gemm_naive"] + ([] if naive_only else [f"gemm_tiled{T}" for T in tiles])
    rows = []
    for name in names:
        res, A, B, C = run_gemm(name, shape)
        req, sec = _global(res.stats)
        elems = M * N
        byte = sec * res.stats.gpu.sector_bytes
        asked = sum(s.bytes_requested for s in res.stats.instructions if s.space == "global" and s.op == "ld")
        rows.append([_label(name) if name == "gemm_naive" else f"tiled, TILE = {kernel_source(name)[1]}",
                     req / elems, asked / elems, round(2 * K * elems / asked, 3), sec / elems, byte / elems,
                     round(2 * K * elems / byte, 3), RIGHT if not wrong_mask(C, A, B).any() else WRONG])
    return Table([t("内核", "kernel"), t("全局读请求 / C 元素", "load requests per C element"),
                  t("线程要读的字节 / C 元素", "requested bytes per C element"),
                  t("FLOP / 要读的字节", "FLOP per requested byte"),
                  t("全局读 sector / C 元素", "load sectors per C element"),
                  t("sector 字节 / C 元素", "sector bytes per C element"),
                  t("FLOP / sector 字节", "FLOP per sector byte"), t("结果", "result")], rows,
                 caption=t(f"labsim：M×N×K = {M}×{N}×{K}，每个 C 元素 2K = {2 * K} FLOP；block = TILE×TILE（朴素版 16×16）；"
                           "sector 字节 = sector × 32",
                           f"labsim: {M}×{N}×{K}, 2K = {2 * K} FLOP per C element; sector bytes = sectors × 32"))


@after_exercise
def lines_table(name: str = "gemm_naive", shape: tuple[int, int, int] = SHAPE, *, source: str = "kernel") -> Table:
    """Per source line with a global access: requests, sectors, and how often each element of the array went
    through the L1 (sector bytes / array bytes) and was asked for (requested bytes / array bytes).

    ``source="exercise"`` runs the lesson's exercise (with the demo fill) instead of a recorded kernel."""
    M, N, K = shape
    if source == "exercise":
        res, *_ = run_exercise(M, N, K)
        title = t("本课练习的内核（填好填空）", "the lesson's exercise, filled")
        where = lambda ln: t(f"单元格第 {cell_line(ln)} 行", f"cell line {cell_line(ln)}")   # noqa: E731
    else:
        res, *_ = run_gemm(name, shape)
        title = _label(name)
        if name == "gemm_naive":
            where = lambda ln: f"gemm_naive.cuh:{ln}"   # noqa: E731
        else:
            where = lambda ln: t(f"单元格第 {cell_line(ln)} 行", f"cell line {cell_line(ln)}")   # noqa: E731
    size = {"A": M * K * 4, "B": K * N * 4, "C": M * N * 4}
    rows = []
    for s in res.stats.instructions:
        if s.space != "global":
            continue
        code = masked(res.source_line(s.line).split("//")[0].strip())
        rows.append([where(s.line), code, s.array, "ld" if s.op == "ld" else "st",
                     s.requests, s.cost, round(s.cost / s.requests, 2) if s.requests else 0,
                     round(s.cost * res.stats.gpu.sector_bytes / size[s.array], 2),
                     round(s.bytes_requested / size[s.array], 2)])
    return Table([t("行", "line"), t("源代码", "source"), t("数组", "array"), t("读/写", "op"), t("请求", "requests"),
                  "sector", t("sector/请求", "sectors/request"),
                  t("sector 字节 ÷ 数组字节", "sector bytes / array bytes"),
                  t("线程要的字节 ÷ 数组字节", "requested bytes / array bytes")], rows,
                 caption=t(f"labsim：{title}，M×N×K = {M}×{N}×{K}，每条全局访存指令一行",
                           f"labsim: {title}, {M}×{N}×{K}, one row per global instruction"))


def recorded_registers(path: str | Path | None = None) -> dict[str, int]:
    """Registers per thread of each GEMM kernel as ncu recorded them (launch__registers_per_thread in
    raw2/gemm/ncu_gemm_64.csv); {} when absent."""
    return recordings.read("gemm_registers", path) or {}


@after_exercise
def occupancy_table(names: tuple[str, ...] = ("gemm_tiled16", "gemm_tiled32"), gpu: str = "H200") -> Table:
    """Resident blocks and threads per SM of the tiled kernels, from the GPU preset's limits and the recorded
    registers per thread: what a bigger tile costs."""
    from labsim.gpus import get_gpu, occupancy
    g = get_gpu(gpu)
    regs = recorded_registers()
    rows = []
    for name in names:
        T = kernel_source(name)[1]
        ld = T + pad_of(name)
        smem = 2 * T * ld * 4
        r = regs.get(name)
        occ = occupancy(g, T * T, smem, r)
        lim = occ["limits"]
        rows.append([_label(name), T * T, smem, "—" if r is None else r, lim["threads"], lim["shared"],
                     lim.get("registers", "—"), occ["blocks"], occ["blocks"] * T * T,
                     f"{occ['smem_used']} / {occ['smem_per_sm']}"])
    return Table([t("内核", "kernel"), t("线程/block", "threads/block"), t("两块 tile（字节）", "tile bytes"),
                  t("寄存器/线程", "regs/thread"), t("线程数允许的 block", "by threads"),
                  t("共享内存允许的 block", "by shared"), t("寄存器允许的 block", "by registers"),
                  t("每个 SM 驻留的 block", "blocks per SM"), t("每个 SM 驻留的线程", "threads per SM"),
                  t("占用共享内存 / SM 容量（字节）", "shared used / capacity")], rows,
                 caption=t(f"labsim 的 {g.name} 预设：每个 SM 能同时驻留几个 block", f"{g.name} preset: resident blocks per SM"),
                 notes=[t("寄存器/线程取自 H200 的记录（measurements/h200/raw2/gemm/ncu_gemm_64.csv 的 "
                          "launch__registers_per_thread）。", "registers per thread: recorded on the H200.")])


# ---- the two barriers ----------------------------------------------------------------------------------

RACE_VERSIONS = (
    (t("两个屏障都在", "both barriers"), {}),
    (t("删掉第一个（读入之后）", "first removed (after the loads)"), {"sync1": False}),
    (t("删掉第二个（内层循环之后）", "second removed (after the inner loop)"), {"sync2": False}),
)


def _wrong(M: int, N: int, K: int, **edits) -> int:
    """Wrong elements of C of the exercise (with ``edits``, see :func:`exercise_source`) at M×N×K."""
    _, A, B, C = run_exercise(M, N, K, **edits)
    return int(wrong_mask(C, A, B).sum())


@after_exercise
def race_table(shape: tuple[int, int, int] = SHAPE) -> Table:
    """The exercise with both barriers, without the first, without the second; lockstep and adversarial warp
    orders: races labsim detects (different warps), and wrong elements of C. Notes: each race's two lines."""
    M, N, K = shape

    def run(edits, schedule):
        res, A, B, C = run_exercise(M, N, K, schedule=schedule, **edits)
        return res, wrong_mask(C, A, B).sum()
    return kit.race_table(RACE_VERSIONS, run, code=masked,
                          wrong_header=t(f"C 的错误元素（共 {M * N} 个）", f"wrong elements of C (of {M * N})"),
                          caption=t(f"labsim.cuda：本课的练习内核（填好填空），M×N×K = {M}×{N}×{K}",
                                    f"labsim.cuda: the exercise, {M}×{N}×{K}"))


@after_exercise
def race_figure(shape: tuple[int, int, int] = SHAPE) -> Figure:
    """C under the adversarial order without the first and without the second barrier: wrong elements in red."""
    M, N, K = shape
    fig = Figure(figsize=(9.6, 4.9), layout="constrained")
    axes = fig.subplots(1, 2)
    cmap = ListedColormap(["#e8f1e4", "#c0392b"])
    for ax, (label, edits) in zip(axes, RACE_VERSIONS[1:]):
        res, A, B, C = run_exercise(M, N, K, schedule="adversarial", **edits)
        bad = wrong_mask(C, A, B)
        ax.imshow(bad.astype(int), cmap=cmap, vmin=0, vmax=1, interpolation="nearest", aspect="equal")
        for v in range(16, N, 16):
            ax.axvline(v - 0.5, color="white", linewidth=0.8)
        for h in range(16, M, 16):
            ax.axhline(h - 0.5, color="white", linewidth=0.8)
        ax.set_title(t(f"{label}\n{int(bad.sum())} / {M * N} 个元素错（红色）", f"{label}\n{int(bad.sum())} wrong"),
                     fontsize=9)
        ax.set_xlabel(t("列 col（白线：block 边界）", "column (white: block edges)"))
        ax.set_ylabel(t("行 row", "row"))
    return fig


def _racecheck_pairs(kernel: str, shape: str) -> str:
    """racecheck's (severity, write line, read line) groups of one recorded analysis run, named by array."""
    groups = recordings.racecheck_hazards(kernel, shape)
    if groups is None:
        return kit.NOT_RECORDED
    lines = (recordings.load("gemm_tiled_source") or "").splitlines()

    def array(ln: int) -> str:
        text = lines[ln - 1].strip() if 0 < ln <= len(lines) else ""
        m = re.match(r"(As|Bs)\[", text)
        return m[1] if m else t("内层循环", "inner loop") if "acc +=" in text else f":{ln}"

    sev = {"error": t("error（不同 warp）", "error (two warps)"), "warning": t("warning（同一 warp）", "warning (one warp)")}
    return "；".join(f"{sev.get(g[0], g[0])}：{array(g[2])} {g[1]} :{g[2]} ↔ {array(g[4])} {g[3]} :{g[4]}"
                    for g in groups)


def h200_race_table() -> Table:
    """The exercise without one barrier: wrong elements of C in the H200's plain runs (recorded, gemm_bench's
    ``race`` mode on gemm_tiled.cuh with SYNC1/SYNC2 = 0) next to labsim's adversarial order, and the hazard
    groups racecheck reported on the H200 (gemm_tiled.cuh's lines)."""
    data = recordings.load("racecheck") or {}
    plain = data.get("plain_runs", {}).get("gemm", [])
    runs = []
    for (label, edits), kernel in zip(RACE_VERSIONS[1:], ("gemm_tiled16_nosync1", "gemm_tiled16_nosync2")):
        mine = {(r["M"], r["N"], r["K"]): r for r in plain if r["name"] == kernel}
        for M, N, K in sorted(mine) or [SHAPE]:
            shape = f"{M}x{N}x{K}"
            under = recordings.racecheck_run(kernel, shape)
            at_shape = (M, N, K) == SHAPE      # labsim runs the lesson's shape; the larger ones take too long
            runs.append(kit.RecordedRun(
                [label, f"{M}×{N}×{K}"],
                [None if r is None else (r["wrong"], M * N) for r in (mine.get((M, N, K)), under)],
                (lambda M=M, N=N, K=K, edits=edits: (_wrong(M, N, K, schedule="adversarial", **edits), M * N))
                if at_shape else None,
                [_racecheck_pairs(kernel, shape) if at_shape else ""]))
    return kit.racecheck_table(
        runs, recorded=bool(data),
        headers=[t("版本", "version"), "M×N×K", t("H200 直接运行：C 的错误元素", "H200 plain run: wrong"),
                 t("H200 在 racecheck 下运行：C 的错误元素", "H200 under racecheck: wrong"),
                 t("labsim adversarial：C 的错误元素", "labsim adversarial: wrong"),
                 t("H200 racecheck 报告的冒险（gemm_tiled.cuh 的行）", "H200 racecheck hazards (gemm_tiled.cuh lines)")],
        caption=t("删掉一个屏障：H200 的记录（measurements/h200/racecheck/results.json）与 labsim",
                  "one barrier removed: recorded H200 runs and labsim"))


# ---- shared-memory banks of the inner loop ---------------------------------------------------------------

def shared_reads(name: str, shape: tuple[int, int, int] = SHAPE) -> dict[str, object]:
    """{array: InstrSummary} of the inner loop's two shared loads of a recorded kernel."""
    res, *_ = run_gemm(name, shape)
    return {s.array: s for s in res.stats.instructions if s.space == "shared" and s.op == "ld"}


def _access_text(name: str, array: str) -> str:
    bt = "_bt" in name
    return {"As": "As[ty][k]", "Bs": "Bs[tx][k]" if bt else "Bs[k][tx]"}[array]


@after_exercise
def inner_loop_heatmaps(names: tuple[str, ...] = ("gemm_tiled16", "gemm_tiled16_bt", "gemm_tiled16_bt_pad"),
                        with_a: bool = True) -> Figure:
    """Lane × bank heatmaps of one warp's inner-loop reads (labsim, block (0,0), warp 0, k = 0)."""
    accesses, titles = [], []
    first = True
    for name in names:
        reads = shared_reads(name)
        for array in (("As", "Bs") if with_a and first else ("Bs",)):
            accesses.append(reads[array].sample)
            T = kernel_source(name)[1]      # the declaration says whether the row is padded
            titles.append(f"float {array}[{T}][{T + pad_of(name)}]: {_access_text(name, array)}")
        first = False
    return draw_bank_heatmaps(accesses, titles, ncols=min(4, len(accesses)), panel_size=3.4)


@after_exercise
def bank_table(shape: tuple[int, int, int] = SHAPE, names: tuple[str, ...] = H200_KERNELS[1:]) -> Table:
    """Every tiled variant: wavefronts per request of the tile stores and of the two inner-loop reads (labsim),
    shared memory per block, and the result."""
    rows = []
    for name in names:
        res, A, B, C = run_gemm(name, shape, counting="source")     # each access as a scalar instruction
        per = {}
        for s in res.stats.instructions:
            if s.space == "shared":
                per[(s.array, s.op)] = s.cost / s.requests if s.requests else 0.0
        T = kernel_source(name)[1]
        ld = T + pad_of(name)
        rows.append([_label(name), per[("As", "st")], per[("Bs", "st")], per[("As", "ld")], per[("Bs", "ld")],
                     2 * T * ld * 4, RIGHT if not wrong_mask(C, A, B).any() else WRONG])
    M, N, K = shape
    return Table([t("内核", "kernel"), t("写 As：wavefront/请求", "As store: wf/req"),
                  t("写 Bs：wavefront/请求", "Bs store: wf/req"), t("读 As[ty][k]：wavefront/请求", "As read: wf/req"),
                  t("读 Bs：wavefront/请求", "Bs read: wf/req"), t("两块 tile（字节）", "tile bytes"),
                  t("结果", "result")], rows,
                 caption=t(f"labsim：M×N×K = {M}×{N}×{K}，每条指令按标量（4 字节）访问计", f"labsim: {M}×{N}×{K}, scalar accesses"))


# ---- boundaries ----------------------------------------------------------------------------------------

BOUNDS_VERSIONS = (
    (t("越界处填 0（本课）", "zero-fill (the lesson)"), "zero_fill"),
    (t("只判断边界，不填 0", "bounds test, no zero-fill"), "guard_only"),
    (t("不判断边界", "no bounds test"), "no_guard"),
)


@after_exercise
def bounds_table(shape: tuple[int, int, int] = ODD_SHAPE) -> Table:
    """The exercise at a shape that is not a multiple of the tile, with the loads written three ways."""
    M, N, K = shape
    return kit.outcome_table(BOUNDS_VERSIONS, lambda loads: _wrong(M, N, K, loads=loads),
                             header=t("读入 tile 的写法", "tile loads"),
                             count_header=t(f"C 的错误元素（共 {M * N} 个）", f"wrong (of {M * N})"),
                             caption=t(f"labsim.cuda：M×N×K = {M}×{N}×{K}（都不是 16 的倍数）",
                                       f"labsim.cuda: {M}×{N}×{K}, not multiples of 16"))


# ---- the H200 --------------------------------------------------------------------------------------------

H200_COLUMNS = (
    (kit.metric("global", "ld", "requests"), t("全局读请求", "global ld requests")),
    (kit.metric("global", "ld", "cost"), t("全局读 sector", "global ld sectors")),
    (kit.metric("global", "st", "cost"), t("全局写 sector", "global st sectors")),
    (kit.metric("shared", "ld", "executed"), t("共享读指令", "shared ld instructions")),
    (kit.metric("shared", "ld", "cost"), t("共享读 wavefront", "shared ld wavefronts")),
    (kit.metric("shared", "st", "cost"), t("共享写 wavefront", "shared st wavefronts")),
    (kit.metric("shared", "st", "conflicts"), t("共享写 bank 冲突", "shared st conflicts")),
)


def lds128_merged(name: str) -> bool:
    """Whether ptxas merged inner-loop reads into LDS.128 on the H200 (raw2/sass_gemm_bench.txt shows it for
    every tiled kernel without padding); labsim counts the merge too (issue 17, labsim.cuda.sass)."""
    return name.startswith("gemm_tiled") and pad_of(name) % 4 == 0


def h200_table(shape: str = "64x64x64", names: tuple[str, ...] = H200_KERNELS) -> Table:
    """Nsight Compute's whole-kernel counters on the H200 (recorded) and labsim's, two rows per kernel."""
    M, N, K = map(int, shape.split("x"))
    none = kit.NOT_RECORDED
    rows = []
    for name in names:
        h = records().gemm_counters(name, shape)
        rows.append([_label(name), "H200", *[none if h is None else h[key] for key, _ in H200_COLUMNS], ""])
        sim = kit.or_pending(lambda: run_gemm(name, (M, N, K))[0].stats.metrics)
        if sim is kit.PENDING:          # exercise branch before the exercise: the H200's row stays
            rows.append(["", "labsim", *[kit.PENDING for _ in H200_COLUMNS], ""])
            continue
        differ = [label for key, label in H200_COLUMNS if h is not None and h[key] != sim[key]]
        rows.append(["", "labsim", *[sim[key] for key, _ in H200_COLUMNS],
                     t("全部相同", "all equal") if h is not None and not differ else
                     (none if h is None else t("不同：", "differ: ") + "、".join(differ))])
    return Table([t("内核", "kernel"), t("来源", "source"), *[label for _, label in H200_COLUMNS],
                  t("对照", "check")], rows,
                 caption=t(f"整个内核的计数器，M×N×K = {M}×{N}×{K}：H200（Nsight Compute，measurements/h200/gemm/results.json）"
                           "与 labsim", f"whole-kernel counters at {shape}: H200 recorded vs labsim"))


@after_exercise
def h200_summary(shapes: tuple[str, ...] = ("64x64x64", "70x45x33"), names: tuple[str, ...] = H200_KERNELS) -> Table:
    """The H200-vs-labsim comparison in one line per shape: how many kernels and counters were compared, how many
    are equal, which differ (the full two-rows-per-kernel table is :func:`h200_table`)."""
    none = kit.NOT_RECORDED
    rows = []
    for shape in shapes:
        M, N, K = map(int, shape.split("x"))
        compared = equal = 0
        differ = []
        for name in names:
            h = records().gemm_counters(name, shape)
            if h is None:
                continue
            sim = run_gemm(name, (M, N, K))[0].stats.metrics
            for key, label in H200_COLUMNS:
                compared += 1
                if h[key] == sim[key]:
                    equal += 1
                else:
                    differ.append(f"{_label(name)}：{label}")
        rows.append([f"{M}×{N}×{K}", len(names), len(H200_COLUMNS), none if not compared else f"{equal} / {compared}",
                     none if not compared else ("—" if not differ else "；".join(differ))])
    return Table([t("M×N×K", "M×N×K"), t("内核", "kernels"), t("每个内核的计数器", "counters per kernel"),
                  t("相同 / 比较的计数", "equal / compared"), t("不同的计数", "differing")], rows,
                 caption=t("整个内核的计数器：H200（Nsight Compute，measurements/h200/gemm/results.json）与 labsim 逐个比较",
                           "whole-kernel counters, H200 vs labsim"),
                 notes=[t("计数器：" + "、".join(label for _, label in H200_COLUMNS) + "。",
                          "counters: " + ", ".join(label for _, label in H200_COLUMNS))])


@after_exercise
def gflops_table() -> Table:
    """GFLOP/s at 4096³ recorded on the H200 (median of 20 launches), next to cuBLAS SGEMM (plain FP32)."""
    rec = records()
    data = rec.load("gemm")
    none = kit.NOT_RECORDED
    if data is None:
        return Table([t("内核", "kernel"), "GFLOP/s"], [[none, none]])
    timing = {r["name"]: r for r in data["timing"]}
    cublas = rec.gemm_gflops("cublas_sgemm")
    rows = []
    for name in ("cublas_sgemm",) + H200_KERNELS:
        r = timing.get(name)
        if r is None:
            rows.append([name, none, none, none, none])
            continue
        label = t("cuBLAS SGEMM（FP32，不用 TF32）", "cuBLAS SGEMM (FP32, no TF32)") if name == "cublas_sgemm" else _label(name)
        g = rec.gemm_gflops(name)
        rows.append([label, round(r["median_ms"], 3), f"{r['min_ms']:.3f}–{r['max_ms']:.3f}", int(round(g)),
                     f"{g / cublas:.2f}×" if cublas else none])
    meta = data.get("meta", {})
    return Table([t("内核", "kernel"), t("中位时间（ms）", "median ms"), t("最小–最大（ms）", "min–max ms"),
                  "GFLOP/s", t("相对 cuBLAS", "vs cuBLAS")], rows,
                 caption=t("H200 实测：M = N = K = 4096，2 次预热后计时 20 次（CUDA events），GFLOP/s = 2·4096³ / 中位时间",
                           "H200: 4096³, median of 20 timed launches"),
                 notes=[t(f"记录：{meta.get('gpu', '')}，nvcc {meta.get('nvcc', '')}（{meta.get('nvcc_flags', '')}），"
                          f"{meta.get('date', '')}；measurements/h200/gemm/results.json。",
                          f"recorded on {meta.get('gpu', '')}, {meta.get('date', '')}")])


def sass_counts(path: str | Path | None = None) -> dict[str, dict[str, int]]:
    """Static shared-memory instructions of each kernel in the recorded SASS (cuobjdump of gemm_bench):
    {kernel: {"LDS": n, "LDS.128": n, "STS": n, ...}}; {} when the file is absent."""
    return recordings.read("gemm_sass", path) or {}


def sass_table(names: tuple[str, ...] = H200_KERNELS[1:]) -> Table:
    """How ptxas compiled the inner loop on the H200: static LDS / LDS.128 / STS counts per kernel (recorded
    SASS), next to the recorded shared-load instructions and wavefronts at 64³ and labsim's (merges included)."""
    sass = sass_counts()
    none = kit.NOT_RECORDED
    rows = []
    for name in names:
        s = sass.get(name)
        h = records().gemm_counters(name, "64x64x64") or {}
        sim = kit.or_pending(lambda: run_gemm(name, SHAPE)[0].stats.metrics)
        mine = (lambda key: kit.PENDING) if sim is kit.PENDING else (lambda key: sim[key])   # noqa: E731
        rows.append([_label(name), none if s is None else s.get("LDS", 0), none if s is None else s.get("LDS.128", 0),
                     h.get(kit.metric("shared", "ld", "executed"), none),
                     h.get(kit.metric("shared", "ld", "cost"), none),
                     mine(kit.metric("shared", "ld", "executed")),
                     mine(kit.metric("shared", "ld", "cost")),
                     h.get(kit.metric("shared", "ld", "conflicts"), none)])
    return Table([t("内核", "kernel"), t("SASS 里的 LDS（标量）", "scalar LDS in SASS"),
                  t("SASS 里的 LDS.128", "LDS.128 in SASS"), t("H200 共享读指令", "H200 shared ld instr"),
                  t("H200 共享读 wavefront", "H200 shared ld wavefronts"), t("labsim 共享读指令", "labsim shared ld instr"),
                  t("labsim 共享读 wavefront", "labsim shared ld wavefronts"), t("H200 读 bank 冲突", "H200 ld conflicts")],
                 rows, caption=t("H200 的 SASS（measurements/h200/raw2/sass_gemm_bench.txt，静态指令数）与 64³ 的计数器",
                                 "the H200's SASS and its counters at 64³"))


# ---- the explorer --------------------------------------------------------------------------------------

EXPLORER_TILES = (8, 16, 32)
EXPLORER_PADS = range(0, 5)          # the widget's range too
EXPLORER_KS = range(0, 32)           # the widget's range; k is clipped to TILE - 1
EXPLORER_ACCESSES = (
    ("a_row", "As[ty][k]"),
    ("b_row", "Bs[k][tx]"),
    ("b_col", "Bs[tx][k]"),
    ("store", t("写 tile：Xs[ty][tx]", "tile store Xs[ty][tx]")),
    ("store_t", t("转置写：Bs[tx][ty]", "transposed store Bs[tx][ty]")),
)
EXPLORER_WIDTHS = ((4, t("4 字节（LDS）", "4 bytes (LDS)")),
                   (16, t("16 字节（LDS.128：k 所在的四个一组）", "16 bytes (LDS.128, k's group of four)")))


def vector_ok(tile: int, pad: int, access: str) -> bool:
    """Whether ptxas can merge this inner-loop read of ``float Xs[TILE][TILE + pad]`` over k..k+3 into one
    LDS.128: k must run along the row (As[ty][k], Bs[tx][k]) and every row start 16-byte aligned."""
    return access in ("a_row", "b_col") and (tile + pad) * 4 % 16 == 0


@functools.lru_cache(maxsize=8192)
def warp_access(tile: int = 16, pad: int = 0, access: str = "b_row", k: int = 0, warp: int = 0, width: int = 4):
    """One warp of a TILE×TILE block touching ``float Xs[TILE][TILE + pad]`` as the GEMM does, on labsim:
    lane l is thread (tx, ty) = (l % TILE, warp·32/TILE + l / TILE) (for TILE ≥ 32 one row per warp).
    ``width=16``: the LDS.128 ptxas makes of the reads k4..k4+3 (k4 = k rounded down to a multiple of 4);
    only where :func:`vector_ok` (else a ValueError)."""
    from labsim import launch
    from labsim.memory import FLOAT4
    if access not in dict(EXPLORER_ACCESSES):
        raise ValueError(f"access must be one of {', '.join(dict(EXPLORER_ACCESSES))}, got {access!r}")
    if tile not in (4, 8, 16, 32) or not 0 <= pad <= 32 or not 0 <= k < tile:
        raise ValueError(f"tile must be 4, 8, 16 or 32, pad 0..32 and k in 0..tile-1; got {tile}, {pad}, {k}")
    if width not in (4, 16) or (width == 16 and not vector_ok(tile, pad, access)):
        raise ValueError(f"width must be 4, or 16 for a 16-byte aligned As[ty][k] / Bs[tx][k]; got {width} for "
                         f"{access} in Xs[{tile}][{tile + pad}]")
    ld = tile + pad
    kk = k - k % 4 if width == 16 else k

    def kernel(blk):
        tiles = blk.shared((tile, ld), np.float32, name="Xs")
        flat = warp * 32 + blk.lane
        tx, ty = flat % tile, flat // tile
        r, c = {"a_row": (ty, kk + 0 * tx), "b_row": (kk + 0 * tx, tx), "b_col": (tx, kk + 0 * tx),
                "store": (ty, tx), "store_t": (tx, ty)}[access]
        if access.startswith("store"):
            blk.sstore(tiles, r * ld + c, 0.0, name="Xs", line=1)
        elif width == 16:
            blk.sload(tiles, (r * ld + c) * 4, name="Xs", view=FLOAT4, line=1)   # byte offset of &Xs[r][c]
        else:
            blk.sload(tiles, r * ld + c, name="Xs", line=1)

    stats = launch(kernel, grid=1, block=32, name="gemm_tile_access")
    return stats.instructions[0].sample


def _explorer_title(tile: int, pad: int, access: str, k: int, width: int) -> str:
    what = dict(EXPLORER_ACCESSES)[access]
    if width == 16:
        what = what.replace("[k]", f"[{k - k % 4}..{k - k % 4 + 3}]") + "（LDS.128）"
    return f"float Xs[{tile}][{tile + pad}]，{what}，k = {k}"


@functools.lru_cache(maxsize=512)
def _per_k_wavefronts(tile: int, pad: int, access: str, width: int) -> tuple[int, ...]:
    """Wavefronts of the inner-loop read at each k, once per setting (the static explorer's views of one
    setting all show this row: 4800 views, ~100 settings)."""
    return tuple(int(warp_access(tile, pad, access, kk, width=width).wavefronts) for kk in range(tile))


def explorer_view(tile: int, pad: int, access: str, k: int, width: int = 4) -> dict:
    k = min(k, tile - 1)
    note = ""
    if width == 16 and not vector_ok(tile, pad, access):
        note = (t("；这种访问沿 k 不连续，ptxas 不会合并成 LDS.128：显示的是 4 字节的读", "; not mergeable: 4-byte view")
                if access not in ("a_row", "b_col") else
                t(f"；行跨度 {(tile + pad) * 4} 字节不是 16 的倍数，行首不再 16 字节对齐，ptxas 不会合并成 LDS.128："
                  "显示的是 4 字节的读", "; rows not 16-byte aligned: no LDS.128, 4-byte view"))
        width = 4
    wa = warp_access(tile, pad, access, k, width=width)
    deg = bank_degrees(wa)
    lanes, banks = np.nonzero(deg)
    per_k = list(_per_k_wavefronts(tile, pad, access, width)) if access in ("a_row", "b_row", "b_col") \
        else [int(wa.wavefronts)] * tile
    words = np.asarray(wa.words)
    return {
        "heatmap": {"title": _explorer_title(tile, pad, access, k, width),
                    "cells": np.stack([lanes, banks, deg[lanes, banks]], axis=1).ravel().tolist()},
        "per_k": {"values": per_k, "title": t("每个 k 的 wavefront 数（橙色：当前 k）", "wavefronts per k (orange: this k)")},
        "wavefronts": int(wa.wavefronts), "conflicts": bank_conflicts(wa),
        "distinct": int(np.unique(words[np.asarray(wa.active)]).size),
        "caption": wavefront_caption(wa) + (
            t(f"；这一条指令里 32 个 lane 只要 {int(np.unique(words).size)} 个不同的字",
              f"; 32 lanes ask for {int(np.unique(words).size)} distinct words") if width == 4 else
            t(f"；每个 lane 读 16 字节（4 个字），32 个 lane 只要 {int(np.unique(words).size)} 个不同的 16 字节块",
              f"; 16 bytes per lane, {int(np.unique(words).size)} distinct 16-byte blocks")) + note,
    }


def static_explorer(key: str = "lesson10-gemm-explorer") -> se.StaticExplorer:
    """tile × padding × access × k × width → one warp's heatmap and wavefronts, every state precomputed by labsim."""
    parts = [
        se.Number("wavefronts", t("wavefront（这个 k）", "wavefronts (this k)")),
        se.Number("conflicts", t("bank 冲突（ncu 口径）", "bank conflicts (ncu)")),
        se.Number("distinct", t("不同的地址（字或 16 字节块）", "distinct words / 16-byte blocks")),
        se.Text("caption"),
        se.Heatmap("heatmap", rows=32, cols=32, bounds=DEGREE_BOUNDS, colors=DEGREE_COLORS, legend=DEGREE_LABELS,
                   xlabel="bank", ylabel="lane", label=t("冲突路数", "conflict degree")),
        se.Bars("per_k", xlabel="k", ylabel="wavefront", highlight="k"),
    ]
    controls = [
        se.Radio("tile", "TILE", [(T, str(T)) for T in EXPLORER_TILES], value=16),
        se.Slider("pad", t("填充（每行多几个 float）", "padding (floats per row)"), EXPLORER_PADS),
        se.Select("access", t("访问", "access"), list(EXPLORER_ACCESSES), value="b_col"),
        se.Slider("k", t("k（超过 TILE − 1 时按 TILE − 1）", "k (clipped to TILE - 1)"), EXPLORER_KS),
        se.Radio("width", t("每个 lane 读", "bytes per lane"), list(EXPLORER_WIDTHS), value=4),
    ]
    presets = [(t("Bs[tx][k]，TILE 16，不填充", "Bs[tx][k], 16, no pad"), {"tile": 16, "pad": 0, "access": "b_col", "k": 0}),
               (t("Bs[tx][k]，TILE 32，不填充", "Bs[tx][k], 32, no pad"), {"tile": 32, "pad": 0, "access": "b_col", "k": 0}),
               (t("Bs[tx][k]，TILE 32，填 1", "Bs[tx][k], 32, pad 1"), {"tile": 32, "pad": 1, "access": "b_col", "k": 0}),
               (t("写 tile，TILE 16，填 1", "tile store, 16, pad 1"), {"tile": 16, "pad": 1, "access": "store", "k": 0}),
               (t("As[ty][k] 的 LDS.128，TILE 16", "As[ty][k] as LDS.128, 16"),
                {"tile": 16, "pad": 0, "access": "a_row", "k": 0, "width": 16})]
    # k past TILE - 1 shows TILE - 1's view (explorer_view clips it): 56 distinct k of the 96 per setting
    clipped = functools.lru_cache(maxsize=None)(explorer_view)

    def compute(tile: int, pad: int, access: str, k: int, width: int = 4) -> dict:
        return clipped(tile, pad, access, min(k, tile - 1), width)

    return se.StaticExplorer(controls, parts, compute,
                             title=t("GEMM 内层循环的 bank 探索器（labsim 预先算好的全部组合）",
                                     "GEMM inner-loop bank explorer (precomputed by labsim)"),
                             presets=presets, key=key)


def bank_explorer():
    """ipywidgets in Jupyter (each change reruns labsim); the static explorer during the site build."""
    def widgets():
        import ipywidgets as w
        from IPython.display import display
        tile = w.ToggleButtons(options=[(str(T), T) for T in EXPLORER_TILES], value=16, description="TILE")
        pad = w.IntSlider(value=0, min=EXPLORER_PADS.start, max=EXPLORER_PADS.stop - 1, description=t("填充", "padding"),
                          continuous_update=False)
        access = w.Dropdown(options=[(label, a) for a, label in EXPLORER_ACCESSES], value="b_col",
                            description=t("访问", "access"))
        k = w.IntSlider(value=0, min=EXPLORER_KS.start, max=EXPLORER_KS.stop - 1, description="k",
                        continuous_update=False)
        width = w.ToggleButtons(options=[(label, v) for v, label in EXPLORER_WIDTHS], value=4,
                                description=t("每个 lane 读", "bytes/lane"))
        status, out = w.HTML(), w.Output()

        def redraw(tile, pad, access, k, width):
            kk = min(k, tile - 1)
            view = explorer_view(tile, pad, access, kk, width)
            wide = 16 if width == 16 and vector_ok(tile, pad, access) else 4
            wa = warp_access(tile, pad, access, kk, width=wide)
            status.value = f"<b>labsim</b>：{view['caption']}"
            with out:
                out.clear_output(wait=True)
                display(draw_bank_heatmap(wa, title=_explorer_title(tile, pad, access, kk, wide)))

        w.interactive_output(redraw, {"tile": tile, "pad": pad, "access": access, "k": k, "width": width})
        return w.HBox([w.VBox([tile, pad, access, k, width, status]), out])

    return se.choose(static_explorer, widgets)


# ---- where the time goes (issue 28) ----------------------------------------------------------------------

TIME_KERNELS = ("gemm_tiled16", "gemm_tiled16_pad", "gemm_tiled32", "gemm_tiled32_pad",
                "gemm_tiled16_bt", "gemm_tiled16_bt_pad", "gemm_tiled32_bt", "gemm_tiled32_bt_pad")


def warp_ffma(shape: tuple[int, int, int] = SHAPE) -> int:
    """Warp-level FFMAs of any of the lesson's GEMMs: each thread does K multiply-adds for its C element (one
    FFMA each, ``acc += a * b``), a warp issues them together: M·N·K / 32 (shapes that are tile multiples)."""
    M, N, K = shape
    return M * N * K // 32


@after_exercise
def shared_loads_by_array(name: str = "gemm_tiled16", shape: tuple[int, int, int] = SHAPE) -> Table:
    """The inner loop's shared loads of one kernel as compiled (labsim counts ptxas's LDS.128 merges): per array,
    instructions, wavefronts and wavefronts per instruction; the total next to the H200's recording."""
    res, *_ = run_gemm(name, shape)
    rows = []
    for s in res.stats.instructions:
        if s.space == "shared" and s.op == "ld":
            rows.append([_access_text(name, s.array), s.requests, s.cost, s.cost / s.requests if s.requests else 0])
    m = res.stats.metrics
    ins, wf = m["smsp__inst_executed_op_shared_ld.sum"], m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
    rows.append([t("合计（labsim）", "total (labsim)"), ins, wf, wf / ins])
    h = records().gemm_counters(name, "x".join(map(str, shape)))
    none = kit.NOT_RECORDED
    hi = none if h is None else h["smsp__inst_executed_op_shared_ld.sum"]
    hw = none if h is None else h["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
    rows.append([t("合计（H200 记录）", "total (H200)"), hi, hw, hw / hi if h is not None else none])
    M, N, K = shape
    return Table([t("内层循环的读", "inner-loop read"), t("共享读指令", "shared ld instructions"),
                  t("共享读 wavefront", "shared ld wavefronts"), t("wavefront/指令", "wavefronts/instruction")],
                 rows, caption=t(f"{_label(name)}，M×N×K = {M}×{N}×{K}：按编译后的程序计数（As 的四次读合并成一条 LDS.128）",
                                 f"{_label(name)} at {M}×{N}×{K}, as compiled"))


def fp32_peak(gpu: str = "H200") -> float:
    """FP32 FLOP/s of the preset: SMs × FMAs per clock per SM × 2 FLOP × clock (datasheet clock, documented
    throughput; not a measurement)."""
    from labsim.gpus import get_gpu
    g = get_gpu(gpu)
    return g.sms * g.fp32_fma_per_clock_per_sm * 2 * g.sm_clock_hz


def shared_cap(wavefronts_per_ffma: float, gpu: str = "H200") -> float:
    """Fraction of FP32 peak a kernel can reach when every warp FFMA needs ``wavefronts_per_ffma`` shared-memory
    wavefronts: the SM serves one wavefront per smem_clocks_per_wavefront clocks and could issue
    fp32_fma_per_clock_per_sm / 32 warp FFMAs per clock. An upper bound: other instructions are not counted."""
    from labsim.gpus import get_gpu
    g = get_gpu(gpu)
    ffma_per_clock = g.fp32_fma_per_clock_per_sm / g.warp_size
    shared_ffma_per_clock = 1.0 / (g.smem_clocks_per_wavefront * wavefronts_per_ffma)
    return min(1.0, shared_ffma_per_clock / ffma_per_clock)


def time_rows(names: tuple[str, ...] = TIME_KERNELS, shape: tuple[int, int, int] = SHAPE) -> list[dict]:
    """Per kernel: labsim's shared wavefronts (loads, stores) per warp FFMA, the cap they set, and the H200's
    recorded GFLOP/s at 4096³ (None when not recorded)."""
    out = []
    peak = fp32_peak()
    for name in names:
        res, *_ = run_gemm(name, shape)
        m = res.stats.metrics
        ld = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        st = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
        ffma = warp_ffma(shape)
        cap = shared_cap((ld + st) / ffma)
        g = records().gemm_gflops(name)
        out.append({"name": name, "ld": ld, "st": st, "ffma": ffma, "ld_per_ffma": ld / ffma,
                    "per_ffma": (ld + st) / ffma, "cap": cap, "cap_tflops": cap * peak / 1e12,
                    "tflops": None if g is None else g / 1e3,
                    "of_cap": None if g is None else g * 1e9 / (cap * peak)})
    return out


@after_exercise
def time_table(names: tuple[str, ...] = TIME_KERNELS) -> Table:
    """Where the time goes: shared-memory wavefronts per warp FFMA (labsim), the share of FP32 peak they allow
    (the preset's rates), and what the H200 reached at 4096³ (recorded)."""
    none = kit.NOT_RECORDED
    rows = []
    for r in time_rows(names):
        rows.append([_label(r["name"]), r["ffma"], r["ld"], r["st"], round(r["ld_per_ffma"], 3),
                     round(r["per_ffma"], 3), f"1/{1 / r['cap']:.1f}", round(r["cap_tflops"], 1),
                     none if r["tflops"] is None else round(r["tflops"], 2),
                     none if r["of_cap"] is None else f"{100 * r['of_cap']:.0f}%"])
    M, N, K = SHAPE
    return Table([t("内核", "kernel"), t("warp 级 FFMA", "warp FFMAs"), t("共享读 wavefront", "shared ld wavefronts"),
                  t("共享写 wavefront", "shared st wavefronts"), t("读 wavefront / FFMA", "ld wavefronts per FFMA"),
                  t("读写 wavefront / FFMA", "wavefronts per FFMA"), t("共享内存允许的峰值比例", "cap (share of peak)"),
                  t("上限 TFLOP/s", "cap TFLOP/s"), t("H200 实测 TFLOP/s", "H200 TFLOP/s"),
                  t("实测 / 上限", "measured / cap")], rows,
                 caption=t(f"labsim 计数（M×N×K = {M}×{N}×{K}，按编译后的程序；每个 k 步的比例与矩阵大小无关）与 H200 在 4096³ 的实测",
                           "labsim's counts per FFMA and the H200's 4096³ speed"),
                 notes=[t(f"FP32 峰值 = SM 数 × 每个 SM 每拍的 FP32 乘加 × 2 × 时钟 = {fp32_peak() / 1e12:.1f} TFLOP/s"
                          "（labsim 的 H200 预设：SM 数和加速时钟取自数据手册，每拍 128 个 FP32 乘加取自 CUDA C++ Programming "
                          "Guide 的算术指令吞吐表）；共享内存每拍送出一个 wavefront（32 个 bank × 4 字节）。",
                          f"FP32 peak {fp32_peak() / 1e12:.1f} TFLOP/s from the preset"),
                        t("上限 = (每拍 1 个 wavefront ÷ 每个 FFMA 的 wavefront) ÷ 每拍 4 个 warp 级 FFMA：只数共享内存，"
                          "不数其它指令占用的发射槽，所以是上界。",
                          "cap = (1 wavefront per clock / wavefronts per FFMA) / 4 warp FFMAs per clock"),
                        *peak_check_notes()])


def peak_check_notes() -> list[str]:
    """What round 3 measured against the preset's peak: the pure-FFMA kernel's speed and the SM clock the GEMMs
    ran at (empty where not recorded)."""
    peak = ffma_peak_measured()
    m = big_metrics("gemm_tiled16") or {}
    clk = m.get("sm__cycles_elapsed.avg.per_second")
    if peak is None or clk is None:
        return []
    return [t(f"同一轮 H200 测量（measurements/h200/round3）：只做 FFMA 的内核实测 {peak / 1e12:.1f} TFLOP/s，"
              f"是上面峰值的 {100 * peak / fp32_peak():.0f}%；4096³ 的 GEMM 运行时 SM 时钟 {clk / 1e9:.3f} GHz。",
              f"round 3: pure-FFMA kernel {peak / 1e12:.1f} TFLOP/s; SM clock {clk / 1e9:.3f} GHz")]


ROOFLINE_KERNELS = ("gemm_naive", "gemm_tiled16", "gemm_tiled16_pad", "gemm_tiled32", "gemm_tiled32_pad")


def l1_intensity(name: str, shape: tuple[int, int, int] = SHAPE) -> float:
    """FLOP per byte of L1TEX global-load sector lookups (labsim), 2·M·N·K over sectors × 32."""
    M, N, K = shape
    res, *_ = run_gemm(name, shape)
    return 2 * M * N * K / (_global(res.stats)[1] * res.stats.gpu.sector_bytes)


@after_exercise
def roofline_figure(names: tuple[str, ...] = ROOFLINE_KERNELS) -> Figure:
    """The kernels on a roofline: x = FLOP per L1TEX sector byte (labsim), y = the H200's recorded TFLOP/s at
    4096³; roofs: FP32 peak (preset) and DRAM at the bandwidth a copy sustained on the H200 (recorded); dashed:
    the shared-memory caps of 1.5 and 2 wavefronts per FFMA; hollow (where round 3 is recorded): the same kernels
    at their intensity per DRAM byte read."""
    from labsim.gpus import get_gpu
    g = get_gpu("H200")
    peak = fp32_peak() / 1e12
    bw = (g.dram_bandwidth_sustained or g.dram_bandwidth) / 1e12
    fig = Figure(figsize=(8.4, 5.2), layout="constrained")
    ax = fig.subplots()
    x = np.logspace(-2, 2, 200)
    ax.plot(x, np.minimum(peak, bw * x), color="#34495e", linewidth=2)
    ax.text(0.012, bw * 0.012 * 1.35, t(f"DRAM：{bw:.2f} TB/s × 强度", f"DRAM {bw:.2f} TB/s"), fontsize=8, rotation=24,
            color="#34495e")
    ax.text(12, peak * 1.08, t(f"FP32 峰值 {peak:.1f} TFLOP/s", f"FP32 peak {peak:.1f}"), fontsize=8, color="#34495e")
    for wpf, style in ((1.5, "--"), (2.0, ":")):
        cap = shared_cap(wpf) * peak
        ax.axhline(cap, color="#c0392b", linestyle=style, linewidth=1)
        ax.text(0.011, cap * 1.05, t(f"共享内存上限（只数读：每个 FFMA {wpf:g} 个 wavefront）：{cap:.1f}",
                                     f"shared cap at {wpf:g} wf/FFMA: {cap:.1f}"), fontsize=8, color="#c0392b")
    rec = records()
    for name in names:
        gf = rec.gemm_gflops(name)
        if gf is None:
            continue
        xi = l1_intensity(name)
        ax.plot([xi], [gf / 1e3], "o", color="#2e86c1" if name != "gemm_naive" else "#e67e22", markersize=7)
        left = "16" in name      # TILE 16 labels to the left, TILE 32 to the right: they share an x
        ax.annotate(f"{_label(name)}: {gf / 1e3:.1f}", (xi, gf / 1e3), textcoords="offset points",
                    xytext=(-8 if left else 8, -11 if "pad" in name else 4), fontsize=8,
                    ha="right" if left else "left")
    for r in dram_rows():
        gf = rec.gemm_gflops(r["name"])
        if gf is None or r.get("dram_intensity") is None:
            continue
        xi, xd, y = l1_intensity(r["name"]), r["dram_intensity"], gf / 1e3
        ax.annotate("", (xd, y), (xi, y), arrowprops={"arrowstyle": "->", "color": "#7f8c8d", "linestyle": ":"})
        ax.plot([xd], [y], "o", markerfacecolor="white", markeredgecolor="#7f8c8d", markersize=7)
    if any(r.get("dram_intensity") for r in dram_rows()):
        ax.text(0.9, 0.07, t("空心点：同一内核按 DRAM 实际读的字节算的强度（H200，4096³）",
                               "hollow: intensity per DRAM byte actually read (H200, 4096³)"), fontsize=8, color="#7f8c8d")
    cub = rec.gemm_gflops("cublas_sgemm")
    if cub is not None:
        ax.axhline(cub / 1e3, color="#27ae60", linewidth=1)
        ax.text(0.011, cub / 1e3 * 1.06, t(f"cuBLAS SGEMM 实测 {cub / 1e3:.1f}", f"cuBLAS {cub / 1e3:.1f}"), fontsize=8,
                color="#27ae60")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(0.01, 100)
    ax.set_ylim(0.05, 150)
    ax.set_xlabel(t("算术强度：FLOP / L1TEX 查找的 sector 字节（labsim）", "FLOP per L1TEX sector byte (labsim)"))
    ax.set_ylabel(t("TFLOP/s（H200 实测，4096³）", "TFLOP/s (H200, 4096³)"))
    ax.grid(True, which="both", alpha=0.25)
    return fig


# ---- the H200 at 4096³: stalls and memory levels (measurements/h200/round3, issue 28) ----------------------

STALL_PREFIX, STALL_SUFFIX = "smsp__average_warps_issue_stalled_", "_per_issue_active.ratio"
STALL_TEXT = {
    "long_scoreboard": t("等全局内存（L1TEX）读的结果", "waiting for a global (L1TEX) load"),
    "short_scoreboard": t("等共享内存读的结果", "waiting for a shared-memory load"),
    "mio_throttle": t("共享内存指令队列满（MIO）", "shared-memory instruction queue full (MIO)"),
    "barrier": t("停在 __syncthreads()", "waiting at __syncthreads()"),
    "math_pipe_throttle": t("FMA 单元忙", "math pipe busy"),
    "not_selected": t("就绪但没被选中发射", "ready, not selected"),
    "selected": t("正在发射", "issuing"),
    "wait": t("固定延迟的等待", "fixed-latency wait"),
    "lg_throttle": t("全局内存指令队列满", "global-memory queue full"),
    "dispatch_stall": t("分派停顿", "dispatch stall"),
    "no_instruction": t("没有取到指令", "no instruction"),
    "branch_resolving": t("等分支结果", "branch resolving"),
}


def round3_gemm() -> dict | None:
    """The H200's third recording round for the GEMMs (stall reasons, DRAM/L2 bytes and speed at 4096³, the +4
    variants' counters, the FFMA peak), through the records reader; None where it is not recorded."""
    return records().load("round3_gemm")


def big_metrics(name: str) -> dict | None:
    """Nsight Compute's metrics of one GEMM kernel at 4096³ (round 3), or None where not recorded."""
    return ((round3_gemm() or {}).get("ncu_4096") or {}).get(name)


def big_gflops(name: str) -> float | None:
    """Median GFLOP/s at 4096³ in round 3 (all padding variants timed in one run), or None."""
    r = next((r for r in (round3_gemm() or {}).get("timing_4096", []) if r.get("name") == name), None)
    return None if r is None else float(r["gflops_median"])


def round3_counters(name: str, shape: str = "64x64x64") -> dict | None:
    """Round 3's ncu counters of a kernel at 64³ or 70×45×33 (the +4 variants included), or None."""
    return ((round3_gemm() or {}).get("counters") or {}).get(shape, {}).get(name)


def ffma_peak_measured() -> float | None:
    """FLOP/s of the pure-FFMA kernel round 3 timed on the H200 (median), or None."""
    g = (round3_gemm() or {}).get("ffma_peak", {}).get("gflops_median")
    return None if g is None else g * 1e9


STALL_KERNELS = ("gemm_naive", "gemm_tiled16", "gemm_tiled16_pad", "gemm_tiled32", "gemm_tiled32_pad")


def stall_table(names: tuple[str, ...] = STALL_KERNELS, top: int = 6) -> Table:
    """Warp stall reasons at 4096³ on the H200 (ncu: average warps stalled for the reason per issued instruction),
    the ``top`` reasons by their largest value over the kernels."""
    none = kit.NOT_RECORDED
    data = {n: big_metrics(n) for n in names}
    reasons = sorted({k[len(STALL_PREFIX):-len(STALL_SUFFIX)] for m in data.values() if m for k in m
                      if k.startswith(STALL_PREFIX) and k.endswith(STALL_SUFFIX)})
    if not reasons:
        return Table([t("停顿原因", "stall reason"), *[_label(n) for n in names]],
                     [[none, *[none for _ in names]]],
                     caption=t("H200，4096³：warp 停顿原因（还没有记录）", "H200 stall reasons (not recorded)"))

    def val(n, r):
        m = data[n]
        return None if not m else m.get(STALL_PREFIX + r + STALL_SUFFIX)

    ranked = sorted(reasons, key=lambda r: -max((val(n, r) or 0) for n in names))[:top]
    rows = [[f"{r}：{STALL_TEXT.get(r, r)}", *[none if val(n, r) is None else round(float(val(n, r)), 2) for n in names]]
            for r in ranked]
    return Table([t("停顿原因", "stall reason"), *[_label(n) for n in names]], rows,
                 caption=t("H200，M = N = K = 4096：每发射一条指令，平均有几个 warp 因这个原因停着"
                           "（Nsight Compute smsp__average_warps_issue_stalled_*_per_issue_active.ratio，前几项）",
                           "H200 at 4096³: warps stalled per issued instruction, top reasons"))


def dram_rows(names: tuple[str, ...] = ("gemm_naive", "gemm_tiled16", "gemm_tiled32")) -> list[dict]:
    """Per kernel at 4096³ (recorded): L1TEX sector lookups, their L1 hits, L2 reads from L1, DRAM reads."""
    out = []
    flop = 2 * 4096 ** 3
    for name in names:
        m = big_metrics(name)
        if not m:
            out.append({"name": name, "m": None})
            continue
        l1 = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        hit = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum")
        l2 = m.get("lts__t_sectors_srcunit_tex_op_read.sum")
        dram = m.get("dram__bytes_read.sum")
        out.append({"name": name, "m": m, "l1_bytes": None if l1 is None else l1 * 32,
                    "l1_hit": None if (l1 is None or hit is None) else hit / l1,
                    "l2_bytes": None if l2 is None else l2 * 32, "dram_bytes": dram,
                    "dram_intensity": None if not dram else flop / dram})
    return out


def dram_table(names: tuple[str, ...] = ("gemm_naive", "gemm_tiled16", "gemm_tiled32")) -> Table:
    """Where the bytes came from at 4096³ on the H200: L1TEX lookups, L1 hits, L2 reads, DRAM reads, and the
    intensity and DRAM roof at each level."""
    from labsim.gpus import get_gpu
    g = get_gpu("H200")
    bw = g.dram_bandwidth_sustained or g.dram_bandwidth
    none = kit.NOT_RECORDED
    gib = lambda v: none if v is None else round(v / 2 ** 30, 2)      # noqa: E731
    rows = []
    for r in dram_rows(names):
        if r["m"] is None:
            rows.append([_label(r["name"]), none, none, none, none, none, none])
            continue
        di = r["dram_intensity"]
        rows.append([_label(r["name"]), gib(r["l1_bytes"]),
                     none if r["l1_hit"] is None else f"{100 * r['l1_hit']:.0f}%", gib(r["l2_bytes"]),
                     gib(r["dram_bytes"]), none if di is None else round(di, 1),
                     none if di is None else round(min(di * bw, fp32_peak()) / 1e12, 1)])
    return Table([t("内核", "kernel"), t("L1TEX 查找（GiB）", "L1TEX lookups (GiB)"), t("L1 命中", "L1 hits"),
                  t("L2 读（GiB）", "L2 reads (GiB)"), t("DRAM 读（GiB）", "DRAM reads (GiB)"),
                  t("FLOP / DRAM 字节", "FLOP per DRAM byte"), t("按 DRAM 字节的屋顶 TFLOP/s", "DRAM roof TFLOP/s")],
                 rows, caption=t("H200，M = N = K = 4096：全局读在各级存储上的字节（Nsight Compute）",
                                 "H200 at 4096³: global-load bytes at each memory level"),
                 notes=[t(f"屋顶 = FLOP / DRAM 字节 × H200 上 copy 实测的 {bw / 1e12:.2f} TB/s（labsim 预设，"
                          "measurements/h200/bandwidth/），不超过 FP32 峰值。",
                          f"roof = intensity × {bw / 1e12:.2f} TB/s (recorded copy bandwidth)")])


PADDING_KERNELS = tuple(f"gemm_tiled{T}{bt}{pad}" for T in (16, 32) for bt in ("", "_bt") for pad in ("", "_pad", "_pad4"))


def merged_lds128(name: str, shape: tuple[int, int, int] = SHAPE) -> bool:
    """Whether labsim, counting the compiled kernel, merged inner-loop reads into LDS.128 (fewer shared-load
    instructions than the source's one per access)."""
    key = "smsp__inst_executed_op_shared_ld.sum"
    return run_gemm(name, shape)[0].stats.metrics[key] < run_gemm(name, shape, counting="source")[0].stats.metrics[key]


@after_exercise
def padding_table(names: tuple[str, ...] = PADDING_KERNELS) -> Table:
    """Padding 0, +1, +4 for both B layouts and both tiles: LDS.128 kept or not, shared wavefronts per FFMA
    (labsim), the cap they set, and the H200's 4096³ speed (recorded)."""
    none = kit.NOT_RECORDED
    yes, no = t("是", "yes"), t("否", "no")
    rows = []
    peak = fp32_peak()
    for r in time_rows(names):
        g = big_gflops(r["name"])
        rows.append([_label(r["name"]), yes if merged_lds128(r["name"]) else no, round(r["ld_per_ffma"], 3),
                     round(r["per_ffma"], 3), round(r["cap_tflops"], 1),
                     none if g is None else round(g / 1e3, 2),
                     none if g is None else f"{100 * g * 1e9 / (r['cap'] * peak):.0f}%"])
    return Table([t("内核", "kernel"), t("合并成 LDS.128", "LDS.128"), t("读 wavefront / FFMA", "ld wavefronts per FFMA"),
                  t("读写 wavefront / FFMA", "wavefronts per FFMA"), t("上限 TFLOP/s", "cap TFLOP/s"),
                  t("H200 实测 TFLOP/s", "H200 TFLOP/s"), t("实测 / 上限", "measured / cap")], rows,
                 caption=t("填充 0、+1、+4：labsim 按编译后的程序计数（64³），上限的算法同“时间花在哪里”一节；H200 实测为 4096³",
                           "padding 0, +1, +4: labsim counts, caps, H200 speed"))
