"""Lesson 9 (tiled transpose, bank conflicts): every number and figure the lesson shows, computed on labsim.

Each function runs labsim kernels (``figures.lesson09_kernels``) and returns a :class:`figures.table.Table` or a
matplotlib Figure; a lesson cell calls one of them and shows the result, so no number in the lesson is typed.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from labsim.errors import LabsimError
from labsim.gpus import get_gpu

from . import lessonkit as kit
from . import recordings
from ._fonts import t
from .recordings import measurements_dir  # noqa: F401  (tests read the raw files beside the recordings)
from .heatmap import bank_conflicts, draw_bank_heatmaps
from .lesson09_kernels import BLOCK_ROWS, TILE_DIM, float4_access, instr, per_request, run_transpose, tile_access
from .sectors import draw_sector_maps
from .table import Table

TRANSPOSES = (
    ("copy", t("copy（基线，不转置）", "copy (baseline)"), {}),
    ("naive", t("朴素转置（第 8 课）", "naive transpose (lesson 8)"), {}),
    ("tiled", "tiled, float tile[32][32]", {"pad": 0}),
    ("tiled", "tiled, float tile[32][33]", {"pad": 1}),
    ("tiled", t("tiled, float tile[32][32] + XOR 混洗", "tiled, tile[32][32] + XOR swizzle"), {"pad": 0, "swizzle": True}),
)


def gpu_facts(gpu: str = "H200") -> Table:
    """The memory geometry labsim uses for this GPU preset (banks, bank width, sector size, warp size)."""
    g = get_gpu(gpu)
    rows = [
        [t("warp 大小（线程）", "warp size"), g.warp_size],
        [t("共享内存 bank 数", "shared-memory banks"), g.banks],
        [t("每个 bank 的宽度（字节）", "bank width (bytes)"), g.bank_bytes],
        [t("全局内存 sector 大小（字节）", "global sector (bytes)"), g.sector_bytes],
        [t("每个 block 的静态共享内存上限（字节）", "static shared memory per block (bytes)"), g.smem_per_block],
    ]
    return Table([t("labsim 预设 " + g.name, "labsim preset " + g.name), t("数值", "value")], rows)


def _result_ok(kind: str, a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.array_equal(b, a if kind == "copy" else a.T))


def transpose_table(n: int = 256, *, fixes: bool = True) -> Table:
    """Copy, naive and tiled transposes of an n×n float32 matrix: sectors and wavefronts per request.

    ``fixes=False`` leaves out the padded and swizzled tiles (the lesson shows them after the exercise).
    """
    rows, copy_sectors = [], None
    for kind, label, opts in TRANSPOSES:
        if not fixes and opts.get("pad", 0) + opts.get("swizzle", False):
            continue
        st, a, b = run_transpose(kind, n, n, **opts)
        total = st.gld_sectors + st.gst_sectors
        copy_sectors = copy_sectors or total
        sh = [s for s in st.instructions if s.space == "shared"]
        sst = next((per_request(s) for s in sh if s.op == "st"), None)
        sld = next((per_request(s) for s in sh if s.op == "ld"), None)
        rows.append([label, per_request(instr(st, "global", "ld")), per_request(instr(st, "global", "st")),
                     "—" if sst is None else sst, "—" if sld is None else sld, f"{total / copy_sectors:.2f}×",
                     t("对", "right") if _result_ok(kind, a, b) else t("错", "wrong")])
    return Table([t("内核", "kernel"), t("读 input：sector/请求", "input load: sectors/req"),
                  t("写 output：sector/请求", "output store: sectors/req"),
                  t("写 tile：wavefront/请求", "tile store: wavefronts/req"),
                  t("读 tile：wavefront/请求", "tile load: wavefronts/req"),
                  t("全局 sector 总数（相对 copy）", "global sectors vs copy"), t("结果", "result")], rows,
                 caption=t(f"labsim：{n}×{n} float32 矩阵，block 32×8，每个 block 搬一块 32×32",
                           f"labsim: {n}×{n} float32, 32×8 threads per block, one 32×32 tile each"))


@kit.pure_figure
def transpose_sector_maps(n: int = 256) -> Figure:
    """Sector maps of one warp's global accesses: the input read, the naive write, the tiled write."""
    naive, _, _ = run_transpose("naive", n, n)
    tiled, _, _ = run_transpose("tiled", n, n, pad=0)   # the store is the same for every tile layout
    accesses = [instr(naive, "global", "ld").sample, instr(naive, "global", "st").sample,
                instr(tiled, "global", "st").sample]
    titles = [t("读 input（两种写法相同）", "input load (both kernels)"), t("朴素转置写 output", "naive store"),
              t("分块转置写 output", "tiled store")]
    return draw_sector_maps(accesses, titles)


def transposed_read(pad: int = 0, swizzle: bool = False, n: int = 64):
    """The WarpAccess of the tiled kernel's transposed shared read (block (0,0), warp 0, j = 0)."""
    st, _, _ = run_transpose("tiled", n, n, pad=pad, swizzle=swizzle)
    return instr(st, "shared", "ld").sample


@kit.pure_figure
def tile_heatmaps(fixes: bool = True) -> Figure:
    """The transposed read ``tile[threadIdx.x][threadIdx.y + j]`` of one warp: the unpadded tile and, with
    ``fixes``, the padded and swizzled ones next to it."""
    variants = [("float tile[32][32]", 0, False)]
    if fixes:
        variants += [("float tile[32][33]", 1, False),
                     (t("float tile[32][32]，XOR 混洗", "tile[32][32], XOR swizzle"), 0, True)]
    accesses = [transposed_read(pad, sw) for _, pad, sw in variants]
    return draw_bank_heatmaps(accesses, [v[0] for v in variants], ncols=3)


def lane_bank_table(pads: tuple[int, ...] = (0, 1)) -> Table:
    """The worked demo: for each lane of the transposed read, the element, its word offset and its bank."""
    heads, cols = [t("lane", "lane")], []
    for pad in pads:
        wa = transposed_read(pad)
        ld = TILE_DIM + pad
        elem = wa.addr // wa.itemsize          # shared offsets: tile is the block's only array, at 0
        heads += [f"[32][{ld}] {t('元素', 'element')}", f"[32][{ld}] {t('字偏移', 'word')}",
                  f"[32][{ld}] bank"]
        cols.append((wa, [f"tile[{e // ld}][{e % ld}]" for e in elem], wa.words, wa.banks))
    rows = []
    for lane in range(32):
        row = [lane]
        for _, names, words, banks in cols:
            row += [names[lane], int(words[lane]), int(banks[lane])]
        rows.append(row)
    summary = [t("合计", "total")]
    for wa, _, _, banks in cols:
        summary += ["", t(f"{len(set(banks.tolist()))} 个不同 bank", f"{len(set(banks.tolist()))} banks"),
                    t(f"{wa.wavefronts} 个 wavefront", f"{wa.wavefronts} wavefronts")]
    rows.append(summary)
    return Table(heads, rows, caption=t("labsim：block (0,0) 的 warp 0 在 j = 0 时的转置读（读第 0 列）",
                                        "labsim: warp 0 of block (0,0), j = 0 (reads column 0)"))


def lesson_source(blank: str, *, sync: bool = True, guard_in: str = "right",
                  guard_out: str = "right", barrier: str = "after_loop") -> str:
    """The lesson's CUDA exercise (grading's template) with the blank filled and, for the demos, one edit.

    ``sync=False`` comments the barrier out; ``guard_in="removed"`` drops the load guard; ``guard_out`` is
    "right" (row < N && col < M), "unswapped" (the load's guard reused) or "removed"; ``barrier="guard"``
    moves ``__syncthreads()`` into the load guard, ``barrier="return"`` adds an early ``return`` for threads
    outside the input before it. Line numbers never shift.
    """
    edits = []
    if not sync:
        edits.append(("    __syncthreads();", "    // __syncthreads();   (removed for this demo)"))
    if barrier == "guard":
        edits += [("    __syncthreads();", "    // __syncthreads();   (moved into the guard)"),
                  ("= input[row * N + col];", "= input[row * N + col]; __syncthreads();")]
    elif barrier == "return":
        edits.append(("    int y = blockIdx.y * TILE_DIM + threadIdx.y;",
                      "    int y = blockIdx.y * TILE_DIM + threadIdx.y; if (x >= N || y >= M) return;"))
    elif barrier != "after_loop":
        raise ValueError(f"barrier must be 'after_loop', 'guard' or 'return', got {barrier!r}")
    if guard_in == "removed":
        edits.append(("if (row < M && col < N) {", "if (true) {  // load guard removed"))
    if guard_out == "unswapped":
        edits.append(("if (row < N && col < M) {", "if (row < M && col < N) {  // not swapped"))
    elif guard_out == "removed":
        edits.append(("if (row < N && col < M) {", "if (true) {  // store guard removed"))
    return kit.source("lesson09", blank, edits)


def run_lesson_kernel(M: int, N: int, *, seed: int = 0, schedule: str = "lockstep", **edits):
    """Compile the lesson's CUDA kernel (with ``edits``, see :func:`lesson_source`) and run its host launcher
    on a random M×N matrix with labsim.cuda; returns (result, input, output)."""
    a = np.random.default_rng(seed).standard_normal((M, N)).astype(np.float32)
    b = np.zeros((N, M), dtype=np.float32)
    res = kit.run_source("lesson09", lesson_source(**edits), (a, b, M, N, 0), schedule=schedule)
    return res, a, b



def race_table(n: int = 64) -> Table:
    """The barrier: the lesson's CUDA kernel with and without __syncthreads(), lockstep and adversarial.

    Runs the unpadded tile (the race does not depend on the padding, and the lesson shows it before the
    exercise). Notes: each race's two lines, numbered as the exercise cell is (the file's plus ``%%writefile``).
    """
    def run(sync, schedule):
        res, a, b = run_lesson_kernel(n, n, sync=sync, schedule=schedule, blank="TILE_DIM")
        return res, np.count_nonzero(b != a.T)
    return kit.race_table([("__syncthreads()", True), (t("删掉 __syncthreads()", "no __syncthreads()"), False)], run,
                          wrong_header=t(f"错误元素（共 {n * n} 个）", f"wrong elements (of {n * n})"),
                          caption=t(f"labsim.cuda：本课的 CUDA 内核（不填充的 tile），{n}×{n} 矩阵",
                                    f"labsim.cuda: the lesson's kernel, {n}×{n}"))


def _sanitizer(path: str | Path | None = None) -> dict | None:
    """raw/sanitizer.txt as figures.recordings parses it (None when not recorded)."""
    return recordings.read("sanitizer", path)


def recorded_wrong_outputs(path: str | Path | None = None) -> dict:
    """The H200's own wrong-output counts of the no-barrier kernel (``race.cu``), from raw/sanitizer.txt.

    ``{"plain": {(M, N): (wrong, total)}, "racecheck": {...}}``: plain runs, and runs under racecheck.
    Empty dicts when the recording is absent.
    """
    rec = _sanitizer(path)
    out: dict = {"plain": {}, "racecheck": {}}
    if rec is None:
        return out
    for section, runs in rec["wrong_outputs"].items():
        for shape, (wrong, total) in runs.items():
            out[section][tuple(int(v) for v in shape.split("x"))] = (wrong, total)
    return out


def recorded_hazards(path: str | Path | None = None) -> dict | None:
    """The hazard report of racecheck on the 32×32 no-barrier kernel (one tile), from raw/sanitizer.txt.

    racecheck reports per byte: ``errors`` are pairs of threads in different warps, ``warnings`` ("Warp Level
    Programming") pairs in the same warp; divided by the 4 bytes of a float they count element pairs.
    """
    rec = _sanitizer(path)
    if rec is None or rec["hazards"] is None:
        return None
    errors, warnings = rec["hazards"]["errors"], rec["hazards"]["warnings"]
    return {"errors": errors, "warnings": warnings, "cross_warp": errors // 4, "same_warp": warnings // 4}


def h200_race_table(shapes: tuple[tuple[int, int], ...] = ((32, 32), (64, 64), (33, 45))) -> Table:
    """Without the barrier, on the H200 (recorded) and on labsim: wrong outputs, and racecheck's hazards."""
    rec = recorded_wrong_outputs()

    def simulate(M, N):
        _, a, b = run_lesson_kernel(M, N, sync=False, schedule="adversarial", blank="TILE_DIM")
        return int(np.count_nonzero(b != a.T)), M * N
    runs = [kit.RecordedRun([f"{M}×{N}"], [rec["plain"].get((M, N)), rec["racecheck"].get((M, N))],
                            lambda M=M, N=N: simulate(M, N)) for M, N in shapes]
    runs += [kit.RecordedRun([f"{M}×{N}"], [pair, rec["racecheck"].get((M, N))])
             for (M, N), pair in sorted(rec["plain"].items()) if (M, N) not in shapes]
    return kit.racecheck_table(runs, recorded=bool(rec["plain"] or rec["racecheck"]),
                               headers=[t("矩阵", "matrix"), t("H200 直接运行：错误元素", "H200 plain run: wrong"),
                                        t("H200 在 racecheck 下：错误元素", "H200 under racecheck: wrong"),
                                        t("labsim adversarial：错误元素", "labsim adversarial: wrong")],
                               caption=t("删掉 __syncthreads() 的内核：H200 的记录（measurements/h200/raw/sanitizer.txt）与 labsim",
                                         "the kernel without __syncthreads(): recorded H200 runs and labsim"))


def hazard_table() -> Table:
    """One 32×32 tile without the barrier: racecheck's hazards on the H200 (recorded) next to labsim's count in
    racecheck's terms (``labsim.racecheck``: per byte, errors = different warps, warnings = the same warp)."""
    from labsim import racecheck
    rec = recorded_hazards()
    res, _, _ = run_lesson_kernel(32, 32, sync=False, blank="TILE_DIM")
    sim = racecheck.report(res.stats)
    none = kit.NOT_RECORDED
    rows = [
        [t("不同 warp 的线程对（racecheck 的 error）", "pairs in different warps (racecheck errors)"),
         none if rec is None else rec["cross_warp"], sim["errors"] // 4],
        [t("同一 warp 的线程对（racecheck 的 warning）", "pairs in the same warp (racecheck warnings)"),
         none if rec is None else rec["same_warp"], sim["warnings"] // 4],
    ]
    notes = [t(f"racecheck 按字节报告，每个 float 4 个字节：H200 记录 {rec['errors']} 个 error、{rec['warnings']} 个 "
               f"warning；labsim 数出 {sim['errors']} 和 {sim['warnings']}。" if rec else
               f"racecheck 按字节报告，每个 float 4 个字节：labsim 数出 {sim['errors']} 个 error、{sim['warnings']} 个 warning。",
               "racecheck counts bytes, 4 per float.")]
    return Table([t("冲突的读写对（以元素计）", "hazard pairs (elements)"), t("H200 racecheck（记录）", "H200 racecheck"),
                  t("labsim（racecheck 口径）", "labsim (racecheck terms)")], rows,
                 caption=t("一块 32×32 tile，删掉 __syncthreads()：每个被别的线程写、又被读的元素算一对",
                           "one 32×32 tile without __syncthreads()"), notes=notes)


def barrier_table(M: int = 65, N: int = 45) -> Table:
    """Where the barrier goes: in place, inside the load guard (labsim's DivergentBarrierError), and after an
    early ``return`` of the threads outside the input (wrong output: they were needed in the second phase)."""
    variants = [
        (t("__syncthreads() 在循环之后（本课的写法）", "after the loop (the lesson's)"), {}),
        (t("__syncthreads() 放进读守卫 if (row < M && col < N) 里", "inside the load guard"), {"barrier": "guard"}),
        (t("开头 if (x >= N || y >= M) return;", "early return of threads outside the input"), {"barrier": "return"}),
    ]
    return kit.outcome_table(variants, lambda edits: _wrong(M, N, **edits), header=t("屏障的位置", "barrier"),
                             caption=t(f"labsim.cuda：本课的 CUDA 内核，{M}×{N} 矩阵（边上的 block 只有部分线程在矩阵内）",
                                       f"labsim.cuda: the lesson's kernel, {M}×{N} matrix"))


def _wrong(M: int, N: int, **edits) -> int:
    """Wrong elements of the lesson's kernel (unpadded tile, with ``edits``) on an M×N matrix."""
    _, a, b = run_lesson_kernel(M, N, blank="TILE_DIM", **edits)
    return int(np.count_nonzero(b != a.T))


def bounds_table(M: int = 65, N: int = 45) -> Table:
    """The two bounds guards of the lesson's CUDA kernel on an M×N matrix that is not a multiple of 32."""
    variants = [
        (t("两个守卫都对", "both guards right"), {}),
        (t("删掉读守卫 row < M && col < N", "load guard removed"), {"guard_in": "removed"}),
        (t("写守卫没交换（仍写 row < M && col < N）", "store guard not swapped"), {"guard_out": "unswapped"}),
        (t("删掉写守卫", "store guard removed"), {"guard_out": "removed"}),
    ]
    return kit.outcome_table(variants, lambda edits: _wrong(M, N, **edits), header=t("边界守卫", "guards"),
                             caption=t(f"labsim.cuda：本课的 CUDA 内核，{M}×{N} 矩阵（不是 32 的倍数）",
                                       f"labsim.cuda: the lesson's kernel, {M}×{N} matrix"))


def layout_table(n: int = 64, pads: tuple[int, ...] = (0, 1, 2, 3, 4, 8)) -> Table:
    """Padding cost vs XOR swizzle: shared bytes per block and wavefronts per request of both tile accesses,
    next to gcd(row stride in words, banks): the conflict degree the arithmetic predicts for 4-byte elements."""
    base_bytes = TILE_DIM * TILE_DIM * 4
    rows = []
    for pad, sw in [(p, False) for p in pads] + [(0, True)]:
        st, a, b = run_transpose("tiled", n, n, pad=pad, swizzle=sw)
        nbytes = TILE_DIM * (TILE_DIM + pad) * 4
        name = f"float tile[32][{TILE_DIM + pad}]" + (t(" + XOR 混洗", " + XOR swizzle") if sw else "")
        banks = get_gpu("H200").banks
        rows.append([name, nbytes, nbytes - base_bytes, per_request(instr(st, "shared", "st")),
                     per_request(instr(st, "shared", "ld")), "—" if sw else math.gcd(TILE_DIM + pad, banks),
                     t("对", "right") if np.array_equal(b, a.T) else t("错", "wrong")])
    return Table([t("tile 布局", "tile layout"), t("每 block 共享内存（字节）", "shared bytes per block"),
                  t("比不填充多（字节）", "extra bytes"), t("行写：wavefront/请求", "row store: wf/req"),
                  t("转置读：wavefront/请求", "transposed load: wf/req"),
                  t("gcd(行跨度, 32)", "gcd(stride, 32)"), t("结果", "result")], rows,
                 caption=t("labsim：同一个转置内核，只改 tile 的布局", "labsim: one kernel, different tile layouts"))


Q3_CASES = (
    # (element type, declaration, access, how to run it on labsim)
    ("float", "float tile[32][32]", "column", lambda: tile_access(0, "float32", "column")),
    ("float", "float tile[32][33]", "column", lambda: tile_access(1, "float32", "column")),
    ("__half", "__half tile[32][32]", "column", lambda: tile_access(0, "float16", "column")),
    ("__half", "__half tile[32][33]", "column", lambda: tile_access(1, "float16", "column")),
    ("__half", "__half tile[32][33]", "column1", lambda: tile_access(1, "float16", "column", index=1)),
    ("__half", "__half tile[32][34]", "column", lambda: tile_access(2, "float16", "column")),
    ("double", "double tile[32][32]", "column", lambda: tile_access(0, "float64", "column")),
    ("double", "double tile[32][33]", "column", lambda: tile_access(1, "float64", "column")),
    ("float4", "float tile[32][32]", "rows", lambda: float4_access(0, "rows")),
    ("float4", "float tile[32][33]", "rows", lambda: float4_access(1, "rows")),
    ("float4", "float tile[32][32]", "column", lambda: float4_access(0, "column")),
    ("float4", "float tile[32][33]", "column", lambda: float4_access(1, "column")),
    ("float4", "float tile[32][36]", "column", lambda: float4_access(4, "column")),
    ("float", t("float tile[32][32] + XOR 混洗", "tile[32][32] + XOR swizzle"), "column",
     lambda: tile_access(0, "float32", "column", swizzle=True)),
)

_ACCESS_TEXT = {
    "column": t("lane k 读 tile[k][0]", "lane k reads tile[k][0]"),
    "column1": t("lane k 读 tile[k][1]", "lane k reads tile[k][1]"),
    "rows": t("每 8 个 lane 读一行（共 4 行）", "8 lanes per row, 4 rows"),
}


def q3_table() -> Table:
    """Element type and padding: wavefronts and bank conflicts per warp request (or the fault), on labsim."""
    rows = []
    for ctype, decl, access, run in Q3_CASES:
        label = _ACCESS_TEXT[access] if ctype != "float4" or access == "rows" else \
            t("lane k 读 tile[k][0..3]（一个 float4）", "lane k reads tile[k][0..3] as a float4")
        try:
            wa = run()
            w, c = int(wa.wavefronts), bank_conflicts(wa)
            verdict = t("无冲突", "conflict-free") if c == 0 else t(f"多出 {c} 个 wavefront", f"{c} extra")
            rows.append([ctype, decl, label, w, c, verdict])
        except LabsimError as e:
            rows.append([ctype, decl, label, "—", "—", f"{type(e).__name__}: {e.message}"])
    return Table([t("每个 lane 读", "per lane"), t("声明", "declaration"), t("访问方式", "access"),
                  "wavefront", t("bank 冲突（ncu 计数）", "bank conflicts (ncu)"), t("结论", "verdict")], rows,
                 caption=t("labsim：一个 warp 的一次共享内存读", "labsim: one warp's shared-memory read"))


# Lesson cases measured on the H200 (measurements/h200/microbench.cu kernel names) and the same access on labsim.
H200_CASES = (
    ("sld_f32_col_pad0_w1", "float tile[32][32]", "tile[lane][7]", lambda: tile_access(0, "float32", "column", index=7)),
    ("sld_f32_col_pad1_w1", "float tile[32][33]", "tile[lane][7]", lambda: tile_access(1, "float32", "column", index=7)),
    ("sld_f32_col_pad2_w1", "float tile[32][34]", "tile[lane][7]", lambda: tile_access(2, "float32", "column", index=7)),
    ("sld_f32_col_xor_w1", "float tile[32][32]", "tile[lane][7 ^ lane]",
     lambda: tile_access(0, "float32", "column", swizzle=True, index=7)),
    ("sld_f16_col_pad0_w1", "__half tile[32][32]", "tile[lane][7]", lambda: tile_access(0, "float16", "column", index=7)),
    ("sld_f16_col_pad1_w1", "__half tile[32][33]", "tile[lane][7]", lambda: tile_access(1, "float16", "column", index=7)),
    ("sld_f16_col_pad2_w1", "__half tile[32][34]", "tile[lane][7]", lambda: tile_access(2, "float16", "column", index=7)),
    ("sld_f64_col_pad0_w1", "double tile[32][32]", "tile[lane][7]", lambda: tile_access(0, "float64", "column", index=7)),
    ("sld_f64_col_pad1_w1", "double tile[32][33]", "tile[lane][7]", lambda: tile_access(1, "float64", "column", index=7)),
    ("sld_f32x4_col_w1", "float4 tile[32][8]", "tile[lane][1]", lambda: float4_access(0, "column", col4=1)),
)
WAVEFRONTS_LD = kit.metric("shared", "ld", "cost")
SHARED_LD_INSTR = kit.metric("shared", "ld", "executed")


def h200_table(path: str | Path | None = None) -> Table:
    """labsim next to the recorded H200 measurement (Nsight Compute) for the lesson's shared-memory reads.

    Reads ``measurements/h200/results.json``; where it is missing, the H200 column says so rather than guessing.
    """
    recorded: dict = recordings.read("round1", path) or {}
    name = Path(path).name if path is not None else "results.json"
    rows = []
    for kernel, decl, expr, run in H200_CASES:
        wa = run()
        m = recorded.get(kernel) or {}
        wf, n = m.get(WAVEFRONTS_LD), m.get(SHARED_LD_INSTR)
        measured = wf / n if isinstance(wf, (int, float)) and n else None
        rows.append([decl, expr, int(wa.wavefronts),
                     kit.NOT_RECORDED if measured is None else measured,
                     "" if measured is None else (t("一致", "same") if measured == wa.wavefronts
                                                  else t("不同", "differs"))])
    notes = [t(f"H200 数据来自 {name}（Nsight Compute，{recorded.get('provenance', {}).get('ncu', 'ncu')}）",
               f"H200 figures from {name}")] if recorded else \
        [t("本机没有 H200 实测记录（measurements/h200/results.json），只显示 labsim 的计数。",
           "no recorded H200 measurement here; labsim only.")]
    return Table([t("声明", "declaration"), t("每个 lane 读", "lane reads"), t("labsim：wavefront", "labsim"),
                  t("H200 实测：wavefront", "H200 measured"), t("对照", "check")], rows,
                 caption=t("一个 warp 的一次共享内存读：labsim 与 H200 实测", "one warp's shared read: labsim vs H200"),
                 notes=notes)


def half_table(columns: tuple[int, ...] = (0, 1, 2, 3), pads: tuple[int, ...] = (0, 1, 2)) -> Table:
    """``__half tile[32][32 + pad]`` read down a column: wavefronts per column, and the verdict in words."""
    rows, verdicts = [], []
    for pad in pads:
        per_col = [int(tile_access(pad, "float16", "column", index=c).wavefronts) for c in range(TILE_DIM)]
        mean = sum(per_col) / len(per_col)
        rows.append([f"__half tile[32][{TILE_DIM + pad}]", *[per_col[c] for c in columns], round(mean, 2)])
        even, odd = sorted(set(per_col[0::2])), sorted(set(per_col[1::2]))
        if max(per_col) == 1:
            verdicts.append(t(f"[32][{TILE_DIM + pad}]：每一列都无冲突。", f"[32][{TILE_DIM + pad}]: conflict-free."))
        elif even != odd:
            verdicts.append(t(f"[32][{TILE_DIM + pad}]：偶数列 {'/'.join(map(str, even))} 个 wavefront，"
                              f"奇数列 {'/'.join(map(str, odd))} 个——结果取决于读哪一列。",
                              f"[32][{TILE_DIM + pad}]: even columns {even}, odd columns {odd} wavefronts."))
        else:
            verdicts.append(t(f"[32][{TILE_DIM + pad}]：每列 {'/'.join(map(str, even))} 个 wavefront。",
                              f"[32][{TILE_DIM + pad}]: {even} wavefronts per column."))
    return Table([t("声明", "declaration"), *[t(f"读第 {c} 列", f"column {c}") for c in columns],
                  t("32 列平均", "mean of 32 columns")], rows,
                 caption=t("labsim：一个 warp 按列读 __half tile（lane k 读 tile[k][c]），每列的 wavefront 数",
                           "labsim: one warp reading a __half tile down column c"), notes=verdicts)


def misaligned_table(path: str | Path | None = None) -> Table:
    """A float4 read of row 1 of ``float tile[32][33]``: the recorded H200 run and labsim, side by side.

    The recording is ``measurements/h200/raw/sanitizer.txt`` (the plain run's CUDA error and the first
    compute-sanitizer report of ``misaligned.cu``); labsim runs the same access (lane k reads float4 k % 8).
    """
    rec = _sanitizer(path)
    rows, ld = [], 33                # the recorded kernel's row length: float tile[32][33]
    if rec is not None:
        plain, report = rec["misaligned"]["plain"], rec["misaligned"]["report"]
        if plain:
            rows.append([t("H200 直接运行（记录）", "H200 plain run (recorded)"), plain])
        if report:
            rows.append([t("H200 compute-sanitizer（记录）", "H200 compute-sanitizer (recorded)"), "；".join(report)])
    if not rows:
        rows.append([t("H200", "H200"), t("（本机没有记录）", "(not recorded here)")])
    try:
        float4_access(ld - TILE_DIM, "rows", row=1)
        rows.append(["labsim", t("没有报错", "no error")])
    except LabsimError as e:
        rows.append(["labsim", f"{type(e).__name__}: {e}"])
    return Table([t("在哪里运行", "where"), t("结果", "outcome")], rows,
                 caption=t(f"对 float tile[32][{ld}] 的第 1 行做 float4 读（第 1 行从字节 {ld * 4} 开始）",
                           f"float4 read of row 1 of float tile[32][{ld}] (row 1 starts at byte {ld * 4})"))


def occupancy_table(gpu: str = "H200", pads: tuple[int, ...] = (0, 1)) -> Table:
    """How many 256-thread blocks of the tiled transpose one SM holds, and which resource sets it, from the
    GPU preset's limits; registers per thread from the H200 recording (``launch__registers_per_thread``)."""
    from labsim.gpus import occupancy
    g = get_gpu(gpu)
    launches = _recorded().get("provenance", {}).get("launches", {})
    rows = []
    for pad in pads:
        smem = TILE_DIM * (TILE_DIM + pad) * 4
        regs = launches.get(f"transpose_tiled_pad{pad}_64x64", {}).get("launch__registers_per_thread")
        occ = occupancy(g, TILE_DIM * BLOCK_ROWS, smem, regs)
        lim = occ["limits"]
        rows.append([f"float tile[32][{TILE_DIM + pad}]", smem, smem + g.smem_reserved_per_block,
                     "—" if regs is None else regs, lim["threads"], lim["shared"],
                     lim.get("registers", "—"), occ["blocks"],
                     f"{occ['smem_used']} / {occ['smem_per_sm']}"])
    notes = [t(f"{g.name} 预设：每个 SM 最多 {g.max_threads_per_sm} 个线程、{g.max_blocks_per_sm} 个 block、"
               f"{g.smem_per_sm} 字节共享内存、{g.regs_per_sm} 个寄存器；每个 block 另占 {g.smem_reserved_per_block} "
               f"字节共享内存（运行时保留）。",
               f"{g.name} preset limits per SM: {g.max_threads_per_sm} threads, {g.max_blocks_per_sm} blocks, "
               f"{g.smem_per_sm} B shared, {g.regs_per_sm} registers; {g.smem_reserved_per_block} B reserved per block."),
             t("每线程寄存器数取自 H200 的记录（measurements/h200/results.json 的 launch__registers_per_thread）。",
               "registers per thread: recorded on the H200.")]
    return Table([t("tile 布局", "tile layout"), t("tile（字节）", "tile bytes"), t("每 block 实占（字节）", "per block"),
                  t("寄存器/线程", "regs/thread"), t("线程数允许的 block", "by threads"),
                  t("共享内存允许的 block", "by shared"), t("寄存器允许的 block", "by registers"),
                  t("每个 SM 驻留的 block", "blocks per SM"), t("占用共享内存 / SM 容量（字节）", "shared used / capacity")],
                 rows, caption=t(f"labsim 的 {g.name} 预设：256 线程的 block，每个 SM 能同时驻留几个",
                                 f"{g.name} preset: resident 256-thread blocks per SM"), notes=notes)


def float4_table(lds: tuple[int, ...] = (32, 33, 36, 40, 44, 48)) -> Table:
    """``float tile[32][LD]`` read down a column as float4 (lane k reads tile[k][0..3]), and a 16-byte-chunk
    swizzle of the unpadded tile: wavefronts, or the fault; next to gcd(stride in 16-byte units, 8)."""
    rows = []
    for ld in lds:
        units = ld * 4 / 16
        try:
            wa = float4_access(ld - TILE_DIM, "column")
            w, c = int(wa.wavefronts), bank_conflicts(wa)
        except LabsimError as e:
            w, c = "—", f"{type(e).__name__}"
        rows.append([f"float tile[32][{ld}]", ld * 4, units if units != int(units) else int(units),
                     math.gcd(int(units), 8) if units == int(units) else "—", w, c])
    wa = float4_access(0, "column_swizzled")
    rows.append([t("float tile[32][32]，16 字节块 XOR 混洗", "tile[32][32], 16-byte chunk XOR swizzle"), TILE_DIM * 4,
                 TILE_DIM * 4 // 16, "—", int(wa.wavefronts), bank_conflicts(wa)])
    return Table([t("声明", "declaration"), t("行跨度（字节）", "row stride (bytes)"),
                  t("行跨度（16 字节单位）", "stride (16-byte units)"), t("gcd(单位数, 8)", "gcd(units, 8)"),
                  "wavefront", t("bank 冲突（ncu 计数）", "bank conflicts (ncu)")], rows,
                 caption=t("labsim：一个 warp 按列做 float4 读（lane k 读 tile[k][0..3]）；无冲突时也要 4 个 wavefront",
                           "labsim: one warp's float4 column read; 4 wavefronts without conflicts"))


def write_side_table(n: int = 64) -> Table:
    """Q1's transfer case: the swap on the tile store (column store, row read) vs on the read, per layout."""
    rows = []
    for side in ("read", "write"):
        for pad in (0, 1):
            st, a, b = run_transpose("tiled", n, n, pad=pad, side=side)
            rows.append([t("读 tile 时对调（本课）", "swap on the read (lesson)") if side == "read" else
                         t("写 tile 时对调", "swap on the write"), f"float tile[32][{TILE_DIM + pad}]",
                         per_request(instr(st, "global", "ld")), per_request(instr(st, "global", "st")),
                         per_request(instr(st, "shared", "st")), per_request(instr(st, "shared", "ld")),
                         t("对", "right") if np.array_equal(b, a.T) else t("错", "wrong")])
    return Table([t("对调的位置", "where the swap is"), t("tile 布局", "tile layout"),
                  t("读 input：sector/请求", "input load: sectors/req"), t("写 output：sector/请求", "output store: sectors/req"),
                  t("写 tile：wavefront/请求", "tile store: wavefronts/req"),
                  t("读 tile：wavefront/请求", "tile load: wavefronts/req"), t("结果", "result")], rows,
                 caption=t(f"labsim：{n}×{n}，行列对调放在写 tile 还是读 tile", f"labsim: {n}×{n}, swap side"))


# Whole kernels recorded on the H200 (64×64 float32, measurements/h200/microbench.cu) and their labsim twins.
H200_KERNELS = (
    ("copy_64x64", t("copy", "copy"), ("copy", {})),
    ("transpose_naive_64x64", t("朴素转置", "naive"), ("naive", {})),
    ("transpose_tiled_pad0_64x64", "tiled, float tile[32][32]", ("tiled", {"pad": 0})),
    ("transpose_tiled_pad1_64x64", "tiled, float tile[32][33]", ("tiled", {"pad": 1})),
    ("transpose_tiled_pad2_64x64", "tiled, float tile[32][34]", ("tiled", {"pad": 2})),
)
_PER_REQ = (
    (kit.metric("global", "ld", "cost"), kit.metric("global", "ld", "requests"),
     ("global", "ld"), t("读 input：sector/请求", "input load: sectors/req")),
    (kit.metric("global", "st", "cost"), kit.metric("global", "st", "requests"),
     ("global", "st"), t("写 output：sector/请求", "output store: sectors/req")),
    (kit.metric("shared", "ld", "cost"), kit.metric("shared", "ld", "executed"),
     ("shared", "ld"), t("读 tile：wavefront/请求", "tile load: wavefronts/req")),
)


def _recorded(path: str | Path | None = None) -> dict:
    return recordings.read("round1", path) or {}


def h200_kernels_table(fixes: bool = True, path: str | Path | None = None) -> Table:
    """The whole-kernel counters the H200 recorded for copy, naive and tiled transposes (64×64), next to
    labsim's count of the same kernels. ``fixes=False`` keeps only the unpadded tile."""
    rec = _recorded(path)
    none = kit.NOT_RECORDED
    rows = []
    for name, label, (kind, opts) in H200_KERNELS:
        if not fixes and opts.get("pad", 0):
            continue
        st, _, _ = run_transpose(kind, 64, 64, **opts)
        m = rec.get(name, {})
        row = [label]
        for num, den, (space, op), _ in _PER_REQ:
            have = [s for s in st.instructions if s.space == space and s.op == op]
            sim = per_request(have[0]) if have else "—"
            meas = m[num] / m[den] if m.get(den) else ("—" if m else none)
            row += [meas, sim]
        rows.append(row)
    heads = [t("内核（64×64）", "kernel (64×64)")]
    for *_, head in _PER_REQ:
        heads += [f"{head} H200", f"{head} labsim"]
    notes = [t("H200：Nsight Compute 记录的整个内核的计数之比（measurements/h200/results.json）；读 tile 一列用 "
               "smsp__inst_executed_op_shared_ld.sum 作分母。",
               "H200: ratios of whole-kernel Nsight Compute counters (measurements/h200/results.json).")]
    return Table(heads, rows, caption=t("H200 实测与 labsim：整个内核的每请求 sector / wavefront",
                                        "H200 recorded vs labsim: per-request counts of whole kernels"), notes=notes)


def _gbps(v):
    """GB/s to whole numbers (the runs spread by far more than a unit); non-numbers pass through."""
    return int(round(v)) if isinstance(v, (int, float)) else v


BANDWIDTH_NAMES = ("copy", "copy_restrict", "transpose_naive", "transpose_naive_colread", "transpose_tiled_pad0",
                   "transpose_tiled_pad1", "transpose_tiled_swizzle")
BANDWIDTH_TEXT = {
    "copy": t("copy（基线）", "copy (baseline)"),
    "copy_restrict": t("copy，指针加 __restrict__", "copy, __restrict__ pointers"),
    "transpose_naive": t("朴素转置：按行读、跨步写", "naive: row read, strided write"),
    "transpose_naive_colread": t("朴素转置：跨步读、按行写", "naive: strided read, row write"),
    "transpose_tiled_pad0": "tiled, float tile[32][32]",
    "transpose_tiled_pad1": "tiled, float tile[32][33]",
    "transpose_tiled_swizzle": t("tiled, tile[32][32] + XOR 混洗", "tiled, XOR swizzle"),
}


def bandwidth_table(fixes: bool = True, path: str | Path | None = None) -> Table:
    """Effective bandwidth the H200 recorded (measurements/h200/bandwidth/results.json: 2·n²·4 bytes over the
    median time, Harris's definition), or "not recorded" for each kernel while the file is absent.
    ``fixes=False`` leaves out the padded and swizzled tiles."""
    names = [n for n in BANDWIDTH_NAMES if fixes or n not in ("transpose_tiled_pad1", "transpose_tiled_swizzle")]
    data = recordings.read("bandwidth", path) or {}
    recs = data.get("records", [])
    none = kit.NOT_RECORDED
    rows = []
    for name in names:
        mine = sorted((r for r in recs if r.get("name") == name), key=lambda r: r.get("n", 0))
        label = BANDWIDTH_TEXT.get(name, name)
        if not mine:
            rows.append([label, none, none, none, none])
        for r in mine:
            rows.append([label, r.get("n"), *kit.gbps_cells(r), r.get("runs")])
    meta = data.get("meta", {})
    notes = [t(f"H200 记录：{meta.get('gpu', '')}，驱动 {meta.get('driver', '')}，{meta.get('date', '')}；"
               f"有效带宽 = 2·n²·4 字节 / 中位时间。",
               f"recorded on {meta.get('gpu', '')}, {meta.get('date', '')}")] if data else \
        [t("还没有 H200 带宽记录（measurements/h200/bandwidth/results.json）：这里不填任何猜测的数字。",
           "no recorded H200 bandwidth yet; nothing is guessed here.")]
    return Table([t("内核", "kernel"), "n", t("有效带宽 GB/s（中位）", "GB/s (median)"), t("最小–最大", "min–max"),
                  t("次数", "runs")], rows,
                 caption=t("H200 实测的有效带宽（n×n float32，block 32×8）", "H200 effective bandwidth"), notes=notes)


@kit.pure_figure
def tile_bank_map(fixes: bool = True, col: int = 0) -> Figure:
    """The tile coloured by bank (labsim's bank of every element) with one warp's column read outlined:
    ``float tile[32][32]``, and with ``fixes`` ``float tile[32][33]`` beside it."""
    from .heatmap import draw_tile_banks
    pads = (0, 1) if fixes else (0,)
    fig = Figure(figsize=(7.0, 7.4 * len(pads)), layout="constrained")   # one above the other: each fits the page
    axes = fig.subplots(len(pads), 1, squeeze=False)[:, 0]
    for ax, pad in zip(axes, pads):
        rows = [tile_access(pad, "float32", "row", index=r) for r in range(TILE_DIM)]
        read = tile_access(pad, "float32", "column", index=col)
        draw_tile_banks(rows, read, ld=TILE_DIM + pad, ax=ax, title=f"float tile[32][{TILE_DIM + pad}]")
    return fig


# ---- whole-kernel conflict counter vs the Source page; what the L1 does for strided reads (issue 28) -----------

CONFLICT_KERNELS = (("transpose_tiled_pad0", "tiled, float tile[32][32]", 0, False),
                    ("transpose_tiled_pad1", "tiled, float tile[32][33]", 1, False),
                    ("transpose_tiled_swizzle", t("tiled, tile[32][32] + XOR 混洗", "tiled, XOR swizzle"), 0, True))


def _details(name: str, n: int) -> dict | None:
    data = recordings.load("bandwidth_details") or {}
    return next((r.get("ncu") for r in data.get("runs", []) if r.get("name") == name and r.get("n") == n), None)


def conflict_counter_table(n: int = 8192) -> Table:
    """The whole-kernel bank-conflict counter at n² on the H200 next to labsim's model of the address pattern, and
    the Source page's per-instruction wavefronts vs ideal (recorded for the padded and unpadded tiles)."""
    none = kit.NOT_RECORDED
    src = (recordings.load("n8192") or {}).get(f"source_counters_{n}", {})
    rows = []
    for name, label, pad, sw in CONFLICT_KERNELS:
        m = _details(name, n)
        per = transposed_read(pad, sw).wavefronts            # labsim: wavefronts of one transposed read
        lds = [r for r in src.get(name, []) if "LDS" in r.get("sass", "")]
        # "not recorded" only without the recording; a kernel whose Source page was not captured is a dash
        page = (f"{sum(r['wavefronts'] for r in lds)} / {sum(r['wavefronts_ideal'] for r in lds)}" if lds
                else "—" if src else none)
        if m is None:
            rows.append([label, none, none, none, none, none, page])
            continue
        ins = m["smsp__inst_executed_op_shared_ld.sum"]
        wf = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]
        model = ins * per
        rows.append([label, ins, wf, model, m["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"],
                     f"{100 * (wf / model - 1):.1f}%", page])
    return Table([t("内核", "kernel"), t("共享读指令", "shared ld instructions"), t("共享读 wavefront", "wavefronts"),
                  t("labsim：地址模式的 wavefront", "labsim: the pattern's wavefronts"),
                  t("ncu 读 bank 冲突", "ncu ld bank conflicts"), t("wavefront 比模型多", "above the model"),
                  t("Source 页：LDS 的 wavefront / 理想值", "Source page: LDS wavefronts / ideal")], rows,
                 caption=t(f"H200，n = {n}：整个内核的计数器（Nsight Compute）、labsim 对地址模式的计数、"
                           "Source 页逐条指令的计数（L1 Wavefronts Shared 与 L1 Wavefronts Shared Ideal）",
                           f"H200 at n = {n}: whole-kernel counters, labsim's model, the Source page"),
                 notes=[t("记录：measurements/h200/bandwidth/details.json（整个内核）、measurements/h200/n8192/results.json"
                          "（ncu --section SourceCounters；—：这个内核没有记录 Source 页）。",
                          "recorded: bandwidth/details.json, n8192/results.json (—: no Source page recorded)")])


CACHE_KERNELS = (("copy", t("copy（基线）", "copy (baseline)")),
                 ("transpose_naive", t("朴素转置：按行读、跨步写", "naive: row read, strided write")),
                 ("transpose_naive_colread", t("朴素转置：跨步读、按行写", "naive: strided read, row write")),
                 ("transpose_tiled_pad0", "tiled, float tile[32][32]"),
                 ("transpose_tiled_pad1", "tiled, float tile[32][33]"))


def cache_table(n: int = 8192) -> Table:
    """Global sectors at L1TEX and what went on to L2, loads and stores, with the effective bandwidth: the L1 serves
    a strided read's repeated sectors; a strided write's partial sectors all go to L2."""
    none = kit.NOT_RECORDED
    rows = []
    for name, label in CACHE_KERNELS:
        m = _details(name, n)
        rec = recordings.bandwidth_record(name, n)
        if m is None:
            rows.append([label, none, none, none, none, none if rec is None else _gbps(rec["gbps_median"])])
            continue
        rows.append([label, m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"], m["lts__t_sectors_srcunit_tex_op_read.sum"],
                     m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"], m["lts__t_sectors_srcunit_tex_op_write.sum"],
                     none if rec is None else _gbps(rec["gbps_median"])])
    return Table([t("内核", "kernel"), t("L1TEX 读 sector 查找", "L1TEX load sectors"),
                  t("L1 向 L2 读的 sector", "L2 read sectors from L1"), t("L1TEX 写 sector", "L1TEX store sectors"),
                  t("写到 L2 的 sector", "L2 write sectors"), t("有效带宽 GB/s（中位）", "GB/s (median)")], rows,
                 caption=t(f"H200，n = {n}：全局访存在 L1TEX 和 L2 的 sector 数（Nsight Compute）与有效带宽",
                           f"H200 at n = {n}: sectors at L1TEX and L2, and bandwidth"))
