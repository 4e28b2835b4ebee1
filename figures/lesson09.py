"""Lesson 9 (tiled transpose, bank conflicts): every number and figure the lesson shows, computed on labsim.

Each function runs labsim kernels (``figures.kernels``) and returns a :class:`figures.table.Table` or a
matplotlib Figure; a lesson cell calls one of them and shows the result, so no number in the lesson is typed.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from labsim.errors import LabsimError
from labsim.gpus import get_gpu

from ._fonts import t
from .heatmap import bank_conflicts, draw_bank_heatmaps
from .kernels import TILE_DIM, float4_access, instr, per_request, run_transpose, tile_access
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


def transpose_table(n: int = 256) -> Table:
    """Copy, naive and tiled transposes of an n×n float32 matrix: sectors and wavefronts per request."""
    rows, copy_sectors = [], None
    for kind, label, opts in TRANSPOSES:
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


def transpose_sector_maps(n: int = 256) -> Figure:
    """Sector maps of one warp's global accesses: the input read, the naive write, the tiled write."""
    naive, _, _ = run_transpose("naive", n, n)
    tiled, _, _ = run_transpose("tiled", n, n, pad=1)
    accesses = [instr(naive, "global", "ld").sample, instr(naive, "global", "st").sample,
                instr(tiled, "global", "st").sample]
    titles = [t("读 input（两种写法相同）", "input load (both kernels)"), t("朴素转置写 output", "naive store"),
              t("分块转置写 output", "tiled store")]
    return draw_sector_maps(accesses, titles)


def transposed_read(pad: int = 0, swizzle: bool = False, n: int = 64):
    """The WarpAccess of the tiled kernel's transposed shared read (block (0,0), warp 0, j = 0)."""
    st, _, _ = run_transpose("tiled", n, n, pad=pad, swizzle=swizzle)
    return instr(st, "shared", "ld").sample


def tile_heatmaps() -> Figure:
    """Figure 9-1: the transposed read ``tile[threadIdx.x][threadIdx.y + j]`` of one warp, three layouts."""
    variants = [("float tile[32][32]", 0, False), ("float tile[32][33]", 1, False),
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


def lesson_source(blank: str = "TILE_DIM + 1", *, sync: bool = True, guard_in: str = "right",
                  guard_out: str = "right") -> str:
    """The lesson's CUDA exercise (grading's template) with the blank filled and, for the demos, one edit.

    ``sync=False`` comments the barrier out; ``guard_in="removed"`` drops the load guard; ``guard_out`` is
    "right" (row < N && col < M), "unswapped" (the load's guard reused) or "removed". Line numbers never shift.
    """
    import grading
    path = Path(grading.__file__).resolve().parent / "exercises" / "lesson09" / "template.cu"
    src = path.read_text(encoding="utf-8").replace("______", blank)
    edits = []
    if not sync:
        edits.append(("    __syncthreads();", "    // __syncthreads();   (removed for this demo)"))
    if guard_in == "removed":
        edits.append(("if (row < M && col < N) {", "if (true) {  // load guard removed"))
    if guard_out == "unswapped":
        edits.append(("if (row < N && col < M) {", "if (row < M && col < N) {  // not swapped"))
    elif guard_out == "removed":
        edits.append(("if (row < N && col < M) {", "if (true) {  // store guard removed"))
    for old, new in edits:
        if src.count(old) != 1:
            raise ValueError(f"lesson_source: expected one {old!r} in {path}")
        src = src.replace(old, new)
    return src


def run_lesson_kernel(M: int, N: int, *, seed: int = 0, schedule: str = "lockstep", **edits):
    """Compile the lesson's CUDA kernel (with ``edits``, see :func:`lesson_source`) and run its host launcher
    on a random M×N matrix with labsim.cuda; returns (result, input, output)."""
    from labsim.cuda import compile as compile_cuda
    prog = compile_cuda(lesson_source(**edits), "09_transpose_tiled.cu")
    a = np.random.default_rng(seed).standard_normal((M, N)).astype(np.float32)
    b = np.zeros((N, M), dtype=np.float32)
    res = prog.call("launch_transpose_tiled", a, b, M, N, 0, schedule=schedule)
    return res, a, b


def race_table(n: int = 64) -> Table:
    """The barrier: the lesson's CUDA kernel with and without __syncthreads(), lockstep and adversarial."""
    rows, example, res = [], None, None
    for sync in (True, False):
        for schedule in ("lockstep", "adversarial"):
            res, a, b = run_lesson_kernel(n, n, sync=sync, schedule=schedule)
            wrong = int(np.count_nonzero(b != a.T))
            rows.append(["__syncthreads()" if sync else t("删掉 __syncthreads()", "no __syncthreads()"),
                         schedule, res.race_count, wrong])
            if res.races and example is None:
                example = (res.races[0], res)
    notes = []
    if example:
        race, r = example
        notes = [t("labsim 报告的第一个竞争：", "first race labsim reported: ") + str(race),
                 f"  line {race.first_line}: {r.source_line(race.first_line).strip()}",
                 f"  line {race.second_line}: {r.source_line(race.second_line).strip()}"]
    return Table([t("版本", "version"), t("warp 执行顺序", "warp order"), t("检测到的竞争", "races detected"),
                  t(f"错误元素（共 {n * n} 个）", f"wrong elements (of {n * n})")], rows,
                 caption=t(f"labsim.cuda：本课的 CUDA 内核，{n}×{n} 矩阵，tile[32][33]",
                           f"labsim.cuda: the lesson's kernel, {n}×{n}"), notes=notes)


def bounds_table(M: int = 65, N: int = 45) -> Table:
    """The two bounds guards of the lesson's CUDA kernel on an M×N matrix that is not a multiple of 32."""
    variants = [
        (t("两个守卫都对", "both guards right"), {}),
        (t("删掉读守卫 row < M && col < N", "load guard removed"), {"guard_in": "removed"}),
        (t("写守卫没交换（仍写 row < M && col < N）", "store guard not swapped"), {"guard_out": "unswapped"}),
        (t("删掉写守卫", "store guard removed"), {"guard_out": "removed"}),
    ]
    rows = []
    for label, edits in variants:
        try:
            _, a, b = run_lesson_kernel(M, N, **edits)
            outcome = t("结果正确", "right") if np.array_equal(b, a.T) else t("结果错误", "wrong")
        except LabsimError as e:
            outcome = f"{type(e).__name__}: {e}"
        rows.append([label, outcome])
    return Table([t("边界守卫", "guards"), t("labsim 的结果", "labsim outcome")], rows,
                 caption=t(f"labsim.cuda：本课的 CUDA 内核，{M}×{N} 矩阵（不是 32 的倍数）",
                           f"labsim.cuda: the lesson's kernel, {M}×{N} matrix"))


def layout_table(n: int = 64, pads: tuple[int, ...] = (0, 1, 2, 3, 4)) -> Table:
    """Padding cost vs XOR swizzle: shared bytes per block and wavefronts per request of both tile accesses."""
    base_bytes = TILE_DIM * TILE_DIM * 4
    rows = []
    for pad, sw in [(p, False) for p in pads] + [(0, True)]:
        st, a, b = run_transpose("tiled", n, n, pad=pad, swizzle=sw)
        nbytes = TILE_DIM * (TILE_DIM + pad) * 4
        name = f"float tile[32][{TILE_DIM + pad}]" + (t(" + XOR 混洗", " + XOR swizzle") if sw else "")
        rows.append([name, nbytes, nbytes - base_bytes, per_request(instr(st, "shared", "st")),
                     per_request(instr(st, "shared", "ld")),
                     t("对", "right") if np.array_equal(b, a.T) else t("错", "wrong")])
    return Table([t("tile 布局", "tile layout"), t("每 block 共享内存（字节）", "shared bytes per block"),
                  t("比不填充多（字节）", "extra bytes"), t("行写：wavefront/请求", "row store: wf/req"),
                  t("转置读：wavefront/请求", "transposed load: wf/req"), t("结果", "result")], rows,
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
WAVEFRONTS_LD = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
SHARED_LD_INSTR = "smsp__inst_executed_op_shared_ld.sum"


def measurements_dir() -> Path:
    """Where the repo keeps the H200 recordings (absent when the package is installed without the repo)."""
    return Path(__file__).resolve().parents[1] / "measurements" / "h200"


def h200_table(path: str | Path | None = None) -> Table:
    """labsim next to the recorded H200 measurement (Nsight Compute) for the lesson's shared-memory reads.

    Reads ``measurements/h200/results.json``; where it is missing, the H200 column says so rather than guessing.
    """
    p = Path(path) if path is not None else measurements_dir() / "results.json"
    recorded: dict = {}
    if p.is_file():
        recorded = json.loads(p.read_text(encoding="utf-8"))
    rows = []
    for kernel, decl, expr, run in H200_CASES:
        wa = run()
        m = recorded.get(kernel) or {}
        wf, n = m.get(WAVEFRONTS_LD), m.get(SHARED_LD_INSTR)
        measured = wf / n if isinstance(wf, (int, float)) and n else None
        rows.append([decl, expr, int(wa.wavefronts),
                     t("（未记录）", "(not recorded)") if measured is None else measured,
                     "" if measured is None else (t("一致", "same") if measured == wa.wavefronts
                                                  else t("不同", "differs"))])
    notes = [t(f"H200 数据来自 {p.name}（Nsight Compute，{recorded.get('provenance', {}).get('ncu', 'ncu')}）",
               f"H200 figures from {p.name}")] if recorded else \
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
    p = Path(path) if path is not None else measurements_dir() / "raw" / "sanitizer.txt"
    rows = []
    if p.is_file():
        lines = p.read_text(encoding="utf-8", errors="replace").splitlines()
        plain = next((ln for ln in lines if ln.startswith("sync:") and "isaligned" in ln), None)
        report = []
        for i, ln in enumerate(lines):
            if "Invalid __shared__ read" in ln:
                report = [x.strip("= ").strip() for x in lines[i:i + 4]]
                break
        if plain:
            rows.append([t("H200 直接运行（记录）", "H200 plain run (recorded)"), plain.strip()])
        if report:
            rows.append([t("H200 compute-sanitizer（记录）", "H200 compute-sanitizer (recorded)"), "；".join(report)])
    if not rows:
        rows.append([t("H200", "H200"), t("（本机没有记录）", "(not recorded here)")])
    try:
        float4_access(1, "rows", row=1)
        rows.append(["labsim", t("没有报错", "no error")])
    except LabsimError as e:
        rows.append(["labsim", f"{type(e).__name__}: {e}"])
    return Table([t("在哪里运行", "where"), t("结果", "outcome")], rows,
                 caption=t(f"对 float tile[32][33] 的第 1 行做 float4 读（第 1 行从字节 {(TILE_DIM + 1) * 4} 开始）",
                           f"float4 read of row 1 of float tile[32][33] (row 1 starts at byte {(TILE_DIM + 1) * 4})"))
