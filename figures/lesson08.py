"""Lesson 8 (naive transpose, coalesced access): every number and figure the lesson shows, computed on labsim
or read from the H200 recordings in ``measurements/h200/``.

The kernels are the lesson's own CUDA C (grading's ``lesson08/template.cu`` with its blank filled) run by
``labsim.cuda``; a lesson cell calls one function here and shows the Table or Figure it returns. The naive
transpose demos run Harris's mapping (:data:`HARRIS_FILL`: correct, store uncoalesced); the student's own kernel
is shown only from the check report: this module holds no answer.
"""
from __future__ import annotations

import functools
import re
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from labsim import launch
from labsim.errors import LabsimError
from labsim.gpus import get_gpu
from labsim.stats import estimate_time, estimate_traffic

from . import lessonkit as kit
from . import recordings
from .recordings import measurements_dir  # noqa: F401  (tests read the raw files beside the recordings)
from ._fonts import t
from .sectors import draw_sector_maps
from .table import Table

EXERCISE = "lesson08"
TILE_DIM, BLOCK_ROWS = 32, 8
HOST = "launch_transpose_naive"
SQUARE_ONLY_BLANK = "col * N + row"     # Q2's fill: right on square matrices only (the question names it)

# The other naive transpose: a warp reads down a column of input (stride N) and writes a row of output.
COLREAD_SOURCE = """\
#include <cuda_runtime.h>

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void transpose_colread_kernel(const float* __restrict__ input, float* __restrict__ output,
                                         int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;   // output column = input row
    int y = blockIdx.y * TILE_DIM + threadIdx.y;   // output row = input column
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int row = y + j;
        int col = x;
        if (row < N && col < M) {
            float v = input[col * N + row];
            output[row * M + col] = v;
        }
    }
}

void launch_transpose_colread(const float* input, float* output, int M, int N, cudaStream_t stream) {
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((M + TILE_DIM - 1) / TILE_DIM, (N + TILE_DIM - 1) / TILE_DIM);
    transpose_colread_kernel<<<grid, block, 0, stream>>>(input, output, M, N);
}
"""

# Each thread of the lesson's launch writes down which (row, col) it handles, for the mapping table.
MAPPING_SOURCE = """\
constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void whoami(int* rows, int* cols, int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    int t = ((blockIdx.y * gridDim.x + blockIdx.x) * (TILE_DIM * BLOCK_ROWS) + threadIdx.y * TILE_DIM
             + threadIdx.x) * (TILE_DIM / BLOCK_ROWS);
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int row = y + j;
        int col = x;
        rows[t + j / BLOCK_ROWS] = row;
        cols[t + j / BLOCK_ROWS] = col;
    }
}
"""

LD_SECTORS = kit.metric("global", "ld", "cost")
ST_SECTORS = kit.metric("global", "st", "cost")
LD_REQUESTS = kit.metric("global", "ld", "requests")
ST_REQUESTS = kit.metric("global", "st", "requests")

BANDWIDTH_KERNELS = (
    ("copy", t("copy（Harris 的写法，指针无 __restrict__）", "copy (Harris's, plain pointers)")),
    ("copy_restrict", t("copy（const __restrict__，指针与转置相同）", "copy (const __restrict__)")),
    ("transpose_naive", t("Harris 的朴素转置：读合并、写跨步", "naive: coalesced read, strided write")),
    ("transpose_naive_colread", t("朴素转置：读跨步、写合并", "naive: strided read, coalesced write")),
)
BANDWIDTH_SIZES = (1024, 8192)
# names inside a sentence (no nested brackets)
SHORT_NAMES = {"copy": t("Harris 的 copy", "copy"), "copy_restrict": t("__restrict__ 的 copy", "copy, __restrict__"),
               "transpose_naive": t("Harris 的朴素转置", "naive"),
               "transpose_naive_colread": t("读跨步的朴素转置", "naive, strided read")}


Prose = kit.Note     # a sentence computed from data: a paragraph in a notebook, plain text in a terminal
after_exercise = kit.after_exercise(EXERCISE)


# ---- the lesson's kernels on labsim ------------------------------------------------------------------------

# Harris's naive transpose as a fill of the exercise: a warp walks one row of the block (coalesced read, strided
# write). It is the kernel the lesson measures, and a correct fill that loses the coalescing point, not the answer.
HARRIS_FILL = "(ty + j) * TILE_DIM + tx"
STORE_LINE = "output[col * M + row] = v;"


def copy_blank() -> str:
    """The copy's mapping (Harris's); :func:`run_kernel` makes the store index equal the load's."""
    return HARRIS_FILL


def naive_blank() -> str:
    """The fill of the lesson's naive transpose demos: Harris's mapping."""
    return HARRIS_FILL


def lesson_source(blank: str, *, guard: str | None = None, store: str | None = None) -> str:
    """The lesson's CUDA exercise with the blank filled and, for the demos, the bounds guard replaced
    (``guard`` is the new condition, e.g. ``"true"``) or the store's index (``store``). Line numbers never shift."""
    edits = [("if (row < M && col < N) {", f"if ({guard}) {{")] if guard is not None else []
    if store is not None:
        edits.append((STORE_LINE, f"output[{store}] = v;"))
    return kit.source(EXERCISE, blank, edits)


def _matrix(M: int, N: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((M, N)).astype(np.float32)


def run_kernel(kind: str, M: int, N: int, *, seed: int = 0, blank: str | None = None, guard: str | None = None,
               store: str | None = None):
    """Run one of the lesson's kernels on a random M×N float32 matrix with labsim.cuda.

    ``kind``: "copy" (the template with the output index equal to the input's), "naive" (the template with
    ``blank``, by default :func:`naive_blank`) or "colread" (strided read, coalesced write). Returns
    (result, input, output as the kernel left it, expected output); never-written elements are NaN.
    """
    from labsim.cuda import compile as compile_cuda
    a = _matrix(M, N, seed)
    if kind == "colread":
        prog, host = compile_cuda(COLREAD_SOURCE, "08_transpose_colread.cu"), "launch_transpose_colread"
    elif kind not in ("copy", "naive"):
        raise ValueError(f"unknown kernel {kind!r}; choose copy, naive or colread")
    out = np.full(M * N, np.nan, dtype=np.float32)
    if kind == "colread":
        res = prog.call(host, a.reshape(-1), out, M, N, 0)
    else:
        fill = copy_blank() if kind == "copy" else (blank or naive_blank())
        store = "row * N + col" if kind == "copy" else store
        res = kit.run_source(EXERCISE, lesson_source(fill, guard=guard, store=store), (a.reshape(-1), out, M, N, 0))
    want = a.reshape(-1) if kind == "copy" else a.T.reshape(-1)
    return res, a, out, want


def _instr(res, op: str):
    return next(s for s in res.instructions if s.space == "global" and s.op == op)


def _per_request(s) -> float:
    return s.cost / s.requests if s.requests else 0.0


def _efficiency(s, sector_bytes: int = 32) -> float:
    """Bytes the lanes asked for / bytes the sectors carry, in percent."""
    return 100.0 * s.bytes_requested / (s.cost * sector_bytes) if s.cost else 0.0


def _pct(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".") + "%"


def _times(x: float) -> str:
    """A ratio in a sentence: one decimal, none when it rounds to a whole number ("3.4 倍", "8 倍", never
    "8.00 倍"): the medians it comes from vary by more than that between runs."""
    return f"{x:.1f}".rstrip("0").rstrip(".") + " 倍"


def _ratio(x: float) -> str:
    """A ratio in a table column: one decimal throughout the column ("4.2×")."""
    return f"{x:.1f}×"


def _wan(n: float) -> str:
    """A large count the Chinese way: 67108864 -> "6711 万"."""
    return f"{n / 1e4:.0f} 万"


# ---- before the exercise -------------------------------------------------------------------------------------

def mapping_table(M: int = 70, N: int = 100, threads=((1, 0, 0, 0), (1, 0, 1, 0), (1, 0, 31, 0),
                                                       (1, 0, 0, 1), (1, 0, 0, 7), (0, 2, 5, 3))) -> Table:
    """Which (row, col) each listed thread (blockIdx.x, blockIdx.y, threadIdx.x, threadIdx.y) handles in the
    four j iterations; computed by running the lesson's index arithmetic on labsim.cuda."""
    from labsim.cuda import compile as compile_cuda
    grid = (-(-N // TILE_DIM), -(-M // TILE_DIM))
    per = TILE_DIM // BLOCK_ROWS
    total = grid[0] * grid[1] * TILE_DIM * BLOCK_ROWS * per
    rows, cols = np.full(total, -1, dtype=np.int32), np.full(total, -1, dtype=np.int32)
    prog = compile_cuda(MAPPING_SOURCE, "whoami.cu")
    prog.launch("whoami", grid, (TILE_DIM, BLOCK_ROWS), (rows, cols, M, N))
    out = []
    for bx, by, tx, ty in threads:
        t0 = ((by * grid[0] + bx) * TILE_DIM * BLOCK_ROWS + ty * TILE_DIM + tx) * per
        pairs = []
        for k in range(per):
            r, c = int(rows[t0 + k]), int(cols[t0 + k])
            inside = r < M and c < N
            pairs.append(f"({r}, {c})" + ("" if inside else t(" 越界，跳过", " outside, skipped")))
        warp = (ty * TILE_DIM + tx) // 32
        out.append([f"({bx}, {by})", f"({tx}, {ty})", warp, tx % 32, *pairs])
    heads = [t("blockIdx (x, y)", "blockIdx"), t("threadIdx (x, y)", "threadIdx"), t("block 内 warp", "warp"),
             "lane"] + [f"j = {j}: (row, col)" for j in range(0, TILE_DIM, BLOCK_ROWS)]
    return Table(heads, out, caption=t(f"labsim.cuda：本课的下标算术，{M}×{N} 矩阵，grid {grid}，block (32, 8)",
                                       f"labsim.cuda: the lesson's index arithmetic, {M}×{N}, grid {grid}"))


def stride_table(strides=(1, 2, 4, 8, 16, 32, 1024), n: int = 1024) -> Table:
    """One warp storing float32 at ``addr = base + 4 * stride * lane``: sectors, bytes moved, efficiency."""
    rows = []
    for s in strides:
        def kernel(blk, out, stride=s):
            blk.store(out, blk.lane * stride, 1.0, name="out", line=1)
        buf = np.zeros(32 * s, dtype=np.float32)
        st = launch(kernel, grid=1, block=32, args=(buf,), name="strided_store")
        ins = st.instructions[0]
        rows.append([s, 4 * s, ins.cost, ins.cost * 32, ins.bytes_requested, _pct(_efficiency(ins))])
    return Table([t("相邻 lane 相隔（个 float）", "stride (floats)"), t("相隔（字节）", "stride (bytes)"),
                  t("sector/请求", "sectors/request"), t("搬运字节", "bytes moved"),
                  t("线程要的字节", "bytes requested"), t("效率", "efficiency")], rows,
                 caption=t("labsim：一个 warp 的 32 个 lane 各写一个 float，地址按固定步长递增",
                           "labsim: one warp, 32 lanes each storing one float at a fixed stride"))


def copy_table(n: int = 256) -> Table:
    """The lesson's kernel as a copy (output index = input index) on an n×n matrix: the baseline."""
    return _kernel_table([("copy", t("copy（输出下标 = 输入下标）", "copy"))], n)


def _kernel_table(kinds, n: int) -> Table:
    rows, copy_total = [], None
    for kind, label in kinds:
        res, _, out, want = run_kernel(kind, n, n)
        ld, st = _instr(res, "ld"), _instr(res, "st")
        total = ld.cost + st.cost
        if copy_total is None:
            copy_total = total if kind == "copy" else 2 * ld.requests * 4   # 4 sectors per full float32 request
        useful = ld.bytes_requested + st.bytes_requested
        rows.append([label, _per_request(ld), _per_request(st), _pct(_efficiency(ld)), _pct(_efficiency(st)),
                     round(total * 32 / useful, 2), t("对", "right") if np.array_equal(out, want) else t("错", "wrong")])
    return Table([t("内核", "kernel"), t("读：sector/请求", "load: sectors/req"),
                  t("写：sector/请求", "store: sectors/req"), t("读效率", "load efficiency"),
                  t("写效率", "store efficiency"), t("搬运字节 / 有用字节", "bytes moved per useful byte"),
                  t("结果", "result")], rows,
                 caption=t(f"labsim.cuda：block 32×8，{n}×{n} float32",
                           f"labsim.cuda: the lesson's kernels, {n}×{n} float32, block 32×8"))


def copy_sector_maps(n: int = 256) -> Figure:
    """Sector maps of one warp's load and store in the copy."""
    res, *_ = run_kernel("copy", n, n)
    return draw_sector_maps([_instr(res, "ld").sample, _instr(res, "st").sample],
                            [t("copy 读 input", "copy: load"), t("copy 写 output", "copy: store")])


def line_table(res) -> Table:
    """Per source line of a labsim.cuda result: each global instruction's requests, sectors, efficiency."""
    rows = []
    for s in sorted((s for s in res.instructions if s.space == "global"), key=lambda s: (s.line or 0, s.op)):
        rows.append([s.line or 0, res.source_line(s.line or 0).strip(), t("读", "load") if s.op == "ld" else t("写", "store"),
                     s.requests, s.cost, _per_request(s), _pct(_efficiency(s))])
    return Table([t("行", "line"), t("代码", "source"), t("操作", "op"), t("请求", "requests"), "sector",
                  t("sector/请求", "sectors/req"), t("效率", "efficiency")], rows)


def _run_file(path: str | Path, host: str, M: int, N: int):
    """Compile a CUDA file with labsim.cuda and run its host launcher on a random M×N matrix:
    (result, input, output) or the labsim error (a typo, an out-of-bounds index), never raised."""
    from labsim.cuda import compile as compile_cuda
    p = Path(path)
    try:
        prog = compile_cuda(p.read_text(encoding="utf-8"), p.name)
        a = _matrix(M, N, 0)
        out = np.full(M * N, np.nan, dtype=np.float32)
        return prog.call(host, a.reshape(-1), out, M, N, 0), a, out
    except (LabsimError, OSError) as e:
        return e


def run_file(path: str | Path = "/tmp/08_copy.cu", host: str = "launch_copy", M: int = 256, N: int = 256):
    """The per-line counters of a CUDA file's kernel (for the lesson's editable copy kernel), and whether its
    output equals its input; a labsim error is returned as its message."""
    got = _run_file(path, host, M, N)
    if isinstance(got, Exception):
        return Prose(f"{type(got).__name__}: {got}")
    res, a, out = got
    tab = line_table(res)
    same = np.array_equal(out, a.reshape(-1))
    tab.caption = t(f"labsim.cuda：{Path(path).name}，{M}×{N} 矩阵", f"labsim.cuda: {Path(path).name}, {M}×{N}")
    tab.notes = [t("输出等于输入，copy 本该如此。" if same else "输出不等于输入，而 copy 的输出应当等于输入。",
                   f"output {'equals' if same else 'differs from'} the input.")]
    return tab


def file_sector_maps(path: str | Path = "/tmp/08_copy.cu", host: str = "launch_copy", M: int = 256, N: int = 256):
    """Sector maps of one warp of each global load and store of a CUDA file's kernel (None after an error)."""
    got = _run_file(path, host, M, N)
    if isinstance(got, Exception):
        print(f"{type(got).__name__}: {got}")
        return None
    samples = [s.sample for s in sorted(got[0].instructions, key=lambda s: (s.line or 0, s.op)) if s.space == "global"]
    return draw_sector_maps(samples, [t(f"第 {s.line} 行：{'读' if s.op == 'ld' else '写'}",
                                        f"line {s.line}: {'load' if s.op == 'ld' else 'store'}") for s in samples])


# ---- the student's kernel (check cell) -------------------------------------------------------------------------

def check_sector_maps(report) -> Figure | None:
    """Sector maps of one warp's load and store of the student's kernel, from the check report; when the check
    could not run the kernel (blank unfilled, syntax error), says so and returns None."""
    samples = getattr(report, "samples", None) or {}
    load, store = samples.get("load"), samples.get("store")
    if load is None or store is None:
        print(t("（没有可画的 sector 图：检查没能运行你的内核，先按上面的说明改好填空。）",
                "(no sector map: the check could not run your kernel)"))
        return None
    return draw_sector_maps([load, store], [t("你的内核：读 input", "your load"), t("你的内核：写 output", "your store")])


# ---- after the exercise ----------------------------------------------------------------------------------------

@after_exercise
def naive_table(n: int = 256) -> Table:
    """Copy, the naive transpose (reference fill) and the strided-read variant on an n×n matrix."""
    return _kernel_table([("copy", t("copy（基线）", "copy")), ("naive", t("Harris 的朴素转置", "naive (Harris)")),
                          ("colread", t("朴素转置：读跨步、写合并", "naive, strided read"))], n)


@after_exercise
@kit.pure_figure
def naive_sector_maps(n: int = 256) -> Figure:
    """One warp's load and store: the lesson's naive transpose and the strided-read variant."""
    naive, *_ = run_kernel("naive", n, n)
    col, *_ = run_kernel("colread", n, n)
    return draw_sector_maps([_instr(naive, "ld").sample, _instr(naive, "st").sample, _instr(col, "ld").sample,
                             _instr(col, "st").sample],
                            [t("Harris：读 input", "naive: load"), t("Harris：写 output", "naive: store"),
                             t("读跨步版：读 input", "strided read: load"), t("读跨步版：写 output", "strided read: store")])


@after_exercise
def store_lane_table(M: int = 256, N: int = 256) -> Table:
    """The worked example: for each lane of one warp's load and store, the element, its byte offset from the
    array's start and its 32-byte sector (block (0,0), warp 0, j = 0: lane 0 touches element 0 of both)."""
    res, *_ = run_kernel("naive", M, N)
    ld, st = _instr(res, "ld").sample, _instr(res, "st").sample
    ld_off, st_off = ld.addr - ld.addr[0], st.addr - st.addr[0]
    if ld.addr[0] % 32 or st.addr[0] % 32:
        raise ValueError("store_lane_table: array bases must be 32-byte aligned for sector numbers to hold")
    rows = []
    for lane in range(32):
        li, si = int(ld_off[lane]) // 4, int(st_off[lane]) // 4
        rows.append([lane, f"input[{li // N}][{li % N}]", int(ld_off[lane]), int(ld_off[lane]) // 32,
                     f"output[{si // M}][{si % M}]", int(st_off[lane]), int(st_off[lane]) // 32])
    rows.append([t("合计", "total"), "", "", t(f"{ld.sectors} 个 sector", f"{ld.sectors} sectors"), "", "",
                 t(f"{st.sectors} 个 sector", f"{st.sectors} sectors")])
    return Table(["lane", t("读的元素", "load element"), t("读：字节偏移", "load byte"), t("读：sector", "load sector"),
                  t("写的元素", "store element"), t("写：字节偏移", "store byte"), t("写：sector", "store sector")],
                 rows, caption=t(f"labsim.cuda：{M}×{N} 矩阵，block (0, 0) 的 warp 0 在 j = 0 时的读和写（Harris 的映射）；"
                                 "字节偏移和 sector 编号都从数组开头算起",
                                 f"labsim.cuda: {M}×{N}, block (0,0), warp 0, j = 0 (Harris's mapping)"))


_OOB = re.compile(r"(\w+)((?:\[-?\d+\])+)(?: \(flat index -?\d+\))? but \w+ has (?:[\d×]+ = )?(\d+) elements")


def _outcome(e: LabsimError) -> str:
    m = _OOB.search(str(e))
    if m:
        return t(f"越界：{m.group(1)}{m.group(2)}（只有 {m.group(3)} 个元素）",
                 f"out of bounds: {m.group(1)}{m.group(2)} of {m.group(3)}")
    return f"{type(e).__name__}: {getattr(e, 'message', e)}"


@after_exercise
def shape_table(blanks=("col * M + row", SQUARE_ONLY_BLANK, "row * M + col"),
                shapes=((64, 64), (64, 96), (96, 64), (1, 2), (2, 1), (33, 47))) -> Table:
    """Each store index of Harris's naive transpose on square and non-square shapes: right, wrong (how many
    elements) or the error."""
    rows = []
    for blank in blanks:
        row = [f"output[{blank}]"]
        for M, N in shapes:
            try:
                _, _, out, want = run_kernel("naive", M, N, store=blank)
                bad = int(np.count_nonzero(~(out == want)))
                row.append(t("对", "right") if bad == 0 else t(f"错 {bad}/{M * N}", f"wrong {bad}/{M * N}"))
            except LabsimError as e:
                row.append(_outcome(e))
        rows.append(row)
    return Table([t("写的下标", "store index")] + [f"{M}×{N}" for M, N in shapes], rows,
                 caption=t("labsim.cuda：Harris 的朴素转置，三种写下标，方阵与非方阵", "labsim.cuda: three store indices, square and not"))


@after_exercise
def bounds_table(M: int = 65, N: int = 45) -> Table:
    """The bounds guard of the lesson's kernel (the demo fill) on a matrix that is not a multiple of 32."""
    variants = [(t("row < M && col < N（模板）", "row < M && col < N"), None),
                (t("删掉守卫", "guard removed"), "true"),
                (t("只查行：row < M", "row only"), "row < M"),
                (t("行列写反：row < N && col < M", "swapped"), "row < N && col < M")]

    def wrong(guard):
        _, _, out, want = run_kernel("naive", M, N, guard=guard)
        return np.count_nonzero(~(out == want))
    return kit.outcome_table(variants, wrong, header=t("边界守卫", "guard"), error=_outcome,
                             caption=t(f"labsim.cuda：Harris 的映射，{M}×{N} 矩阵（不是 32 的倍数）",
                                       f"labsim.cuda: the lesson's kernel, {M}×{N}"))


def block_shape_table(shapes=((32, 8), (16, 16), (8, 32), (4, 64), (2, 128), (1, 256)), n: int = 256) -> Table:
    """Q1: one thread per element with block (bx, by): sectors per request of the naive load and store."""
    rows = []
    for bx, by in shapes:
        def kernel(blk, inp, out, M, N, bx=bx, by=by):
            x = blk.bx * bx + blk.tx
            y = blk.by * by + blk.ty
            with blk.where((y < M) & (x < N)):
                v = blk.load(inp, y * N + x, name="input", line=1)
                blk.store(out, x * M + y, v, name="output", line=2)
        a = _matrix(n, n, 0)
        b = np.zeros((n, n), dtype=np.float32)
        st = launch(kernel, grid=(n // bx, n // by), block=(bx, by), args=(a, b, n, n), name="transpose_naive")
        ld = next(s for s in st.instructions if s.op == "ld")
        sto = next(s for s in st.instructions if s.op == "st")
        gbps = h200_block_gbps(bx, by)
        rows.append([f"dim3({bx}, {by})", max(1, 32 // bx), _per_request(ld), _per_request(sto),
                     _per_request(ld) + _per_request(sto),
                     t("对", "right") if np.array_equal(b, a.T) else t("错", "wrong"),
                     round(gbps) if gbps is not None else "—"])
    return Table([t("block", "block"), t("一个 warp 覆盖几行", "rows per warp"), t("读：sector/请求", "load"),
                  t("写：sector/请求", "store"), t("读 + 写", "load + store"), t("结果", "result"),
                  t("H200 GB/s（8192²）", "H200 GB/s")], rows,
                 caption=t(f"labsim：Harris 的映射，每个线程一个元素，{n}×{n}；H200 一栏是第三轮测量在 8192² 上测的同一个"
                           "内核，30 次计时的中位数（measurements/h200/round3）",
                           f"labsim: one element a thread, {n}×{n}; H200 column: round 3 at 8192²"))


# ---- H200 recordings --------------------------------------------------------------------------------------------

NCU_METRICS = (LD_REQUESTS, LD_SECTORS, ST_REQUESTS, ST_SECTORS)


def ncu_table(path: str | Path | None = None, n: int = 64) -> Table:
    """labsim next to Nsight Compute on the H200 for the copy and the naive transpose at n×n (microbench.cu)."""
    recorded = recordings.read("round1", path) or {}
    where = Path(path).name if path is not None else "measurements/h200/results.json"
    rows = []
    for kind, kernel in (("copy", f"copy_{n}x{n}"), ("naive", f"transpose_naive_{n}x{n}")):
        res = kit.or_pending(lambda: run_kernel(kind, n, n)[0])
        m = recorded.get(kernel) or {}
        for metric in NCU_METRICS:
            mine = res if res is kit.PENDING else int(res.metrics.get(metric, 0))
            h = m.get(metric)
            rows.append([kernel, metric, mine, t("（未记录）", "(not recorded)") if h is None else int(h),
                         "" if h is None or mine is kit.PENDING else
                         (t("一致", "same") if int(h) == mine else t("不同", "differs"))])
    version = re.sub(r"\s*\((.*)\)\s*$", r"，\1", str(recorded.get("provenance", {}).get("ncu_version", "")))
    notes = [t(f"H200 数据：{where}（Nsight Compute {version}）" if version else f"H200 数据：{where}",
               f"H200: {where}")] if recorded else \
        [t("本机没有 H200 记录（measurements/h200/results.json），只显示 labsim。", "no H200 recording here")]
    return Table([t("内核", "kernel"), t("指标（Nsight Compute）", "metric"), "labsim", t("H200 实测", "H200"),
                  t("对照", "check")], rows,
                 caption=t(f"{n}×{n} float32：labsim 与 H200 上的 Nsight Compute", f"{n}×{n}: labsim vs ncu"),
                 notes=notes)


def load_bandwidth(path: str | Path | None = None) -> dict:
    """The recorded H200 bandwidth run ({"meta": ..., "records": [...]}) or {} when it is not recorded."""
    data = recordings.read("bandwidth", path)
    if data is None:
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("records"), list):
        raise ValueError(f"{path or 'bandwidth/results.json'}: expected {{'meta': ..., 'records': [...]}}")
    return data


def _record(data: dict, name: str, n: int) -> dict | None:
    return next((r for r in data.get("records", []) if r.get("name") == name and int(r.get("n", 0)) == n), None)


_SIM = {"copy": "copy", "copy_restrict": "copy", "transpose_naive": "naive", "transpose_naive_colread": "colread"}


COUNT_N = 256     # labsim counts the kernels at this size and scales: per-element counts do not depend on n


def _counted(sim: str, m: int):
    """labsim's Stats of one of the lesson's kernels on an m×m matrix (memoised per fill: several tables reuse them)."""
    return _counted_with(sim, m, naive_blank() if sim == "naive" else None)


@functools.lru_cache(maxsize=None)
def _counted_with(sim: str, m: int, blank: str | None):
    res, *_ = run_kernel(sim, m, m, blank=blank)
    return res.stats


def labsim_estimate(kind: str, n: int, gpu: str = "H200", *, count_n: int = COUNT_N, traffic: bool = False) -> float:
    """labsim's estimate as effective bandwidth (2·n²·4 bytes / t_est), in GB/s: ``estimate_time`` (every L1
    sector at the datasheet DRAM peak), or with ``traffic`` ``estimate_traffic`` (what DRAM, L2 and L1 each
    move; see its docstring for the two H200 rates it is calibrated with).

    The counters are taken at ``count_n`` (a multiple of 32) and scaled by (n / count_n)²: for every shape
    that is a multiple of 32 each warp request is the same, so the counts per element do not change (a test
    checks this); simulating 8192² would take minutes.
    """
    m = min(n, count_n)
    stats = _counted(_SIM[kind], m)
    scale = (n / m) ** 2
    if traffic:
        est = estimate_traffic(stats, gpu, footprint={"input": n * n * 4, "output": n * n * 4}, scale=scale)
        return 2 * n * n * 4 / est["t_est"] / 1e9
    return 2 * n * n * 4 / (estimate_time(stats, gpu)["t_est"] * scale) / 1e9


def bandwidth_table(path: str | Path | None = None) -> Table:
    """H200 effective bandwidth (recorded: median of the timed runs, min–max) next to labsim's estimate."""
    data = load_bandwidth(path)
    rows = []
    for name, label in BANDWIDTH_KERNELS:
        for n in BANDWIDTH_SIZES:
            rec = _record(data, name, n) if data else None
            est = kit.or_pending(lambda: labsim_estimate(name, n))
            h200 = kit.gbps_cells(rec) if rec else (kit.NOT_RECORDED, "")
            if est is kit.PENDING:       # the naive transpose before the exercise: the H200's columns stay
                rows.append([label, f"{n}²", *h200, est, "", est, ""])
                continue
            traffic = labsim_estimate(name, n, traffic=True)
            if rec is None:
                rows.append([label, f"{n}²", *h200, round(est), "", round(traffic), ""])
                continue
            med = float(rec["gbps_median"])
            rows.append([label, f"{n}²", *h200, round(est), _ratio(est / med), round(traffic),
                         t("（标定）", "(calibration)") if (name, n) in CALIBRATED else _ratio(traffic / med)])
    notes = []
    meta = data.get("meta", {}) if data else {}
    if data:
        timing = str(meta.get("command", "?")).split("; DRAM bytes:")[0]
        notes.append(t(f"H200 记录：{meta.get('gpu', 'H200')}，驱动 {meta.get('driver', '?')}，nvcc {meta.get('nvcc', '?')} "
                       f"{meta.get('nvcc_flags', '')}，{meta.get('date', '?')}。计时（记录原文）：{timing}。"
                       "DRAM 字节的 ncu 命令见 measurements/h200/bandwidth/results.json 的 meta.command。",
                       f"H200 recording: {meta.get('gpu')}, {meta.get('date')}; timing: {timing}"))
    else:
        notes.append(t("本机没有 H200 带宽记录（measurements/h200/bandwidth/results.json），H200 一列未记录。",
                       "no H200 bandwidth recording here"))
    return Table([t("内核", "kernel"), "n", t("H200 实测中位数（GB/s）", "H200 median (GB/s)"),
                  t("H200 最小–最大", "H200 min–max"), t("estimate_time（GB/s）", "estimate_time (GB/s)"),
                  t("estimate_time / 实测", "estimate_time / measured"),
                  t("estimate_traffic（GB/s）", "estimate_traffic (GB/s)"),
                  t("estimate_traffic / 实测", "estimate_traffic / measured")], rows,
                 caption=t("有效带宽 = 2·n²·4 字节 / 内核时间（Harris 的定义），float32，block 32×8",
                           "effective bandwidth = 2·n²·4 bytes / kernel time"), notes=notes)


# estimate_traffic's two H200 rates were measured on these runs (labsim.estimate_traffic's docstring)
CALIBRATED = {("copy_restrict", 8192), ("transpose_naive", 8192)}


@after_exercise
def estimate_error_text(path: str | Path | None = None) -> Prose:
    """How far labsim's two estimates are from the H200 recording, per matrix size, computed from the data;
    estimate_traffic is judged only on the runs it was not calibrated on."""
    data = load_bandwidth(path)
    names = SHORT_NAMES

    def span(traffic: bool, n: int) -> str | None:
        ratios = []
        for name, _ in BANDWIDTH_KERNELS:
            rec = _record(data, name, n) if data else None
            if rec is None or float(rec["gbps_median"]) <= 0 or (traffic and (name, n) in CALIBRATED):
                continue
            ratios.append((name, labsim_estimate(name, n, traffic=traffic) / float(rec["gbps_median"])))
        if not ratios:
            return None
        lo, hi = min(ratios, key=lambda r: r[1]), max(ratios, key=lambda r: r[1])
        if lo is hi:
            return t(f"在 {n}² 上是实测的 {_times(lo[1])}（{names[lo[0]]}）", f"{n}²: {lo[1]:.1f}×")
        return t(f"在 {n}² 上是实测的 {_times(lo[1])}（{names[lo[0]]}）到 {_times(hi[1])}（{names[hi[0]]}）",
                 f"{n}²: {lo[1]:.1f}× to {hi[1]:.1f}× the measurement")

    first = [x for n in BANDWIDTH_SIZES if (x := span(False, n))]
    if not first:
        return Prose(t("H200 的带宽尚未记录，所以这里还不能给出 labsim 估计的误差；记录之后本句由数据生成。",
                       "The H200 bandwidth is not recorded yet, so the estimate's error cannot be stated."))
    traffic = [x for n in BANDWIDTH_SIZES if (x := span(True, n))]
    text = t("estimate_time 估计的带宽", "estimate_time: ") + t("，", "; ").join(first) + t("。", ". ")
    if traffic:
        text += t("estimate_traffic 的两个速率是拿 H200 上 8192² 的 __restrict__ copy 和 Harris 的朴素转置标定的，"
                  "这两行与实测相符是构造使然，不算误差；在其余各行，它",
                  "estimate_traffic, on the runs it was not calibrated on: ") + \
            t("，", "; ").join(traffic) + t("。", ".")
    return Prose(text)


def load_details(path: str | Path | None = None) -> dict:
    """The recorded per-kernel ncu counters of the bandwidth run ({"meta", "runs": [{name, n, ms, ncu}]}), or {}."""
    return recordings.read("bandwidth_details", path) or {}


def _ncu(details: dict, name: str, n: int) -> dict | None:
    run = next((r for r in details.get("runs", []) if r.get("name") == name and int(r.get("n", 0)) == n), None)
    return None if run is None else run.get("ncu")


L2_READ = "lts__t_sectors_srcunit_tex_op_read.sum"
L2_WRITE = "lts__t_sectors_srcunit_tex_op_write.sum"
TRAFFIC_KERNELS = (("copy_restrict", "copy"), ("transpose_naive", "naive"), ("transpose_naive_colread", "colread"))
# short row labels: ten columns of 8-digit counts leave the label column little room on a Quarto page
TRAFFIC_LABELS = {"copy_restrict": "copy", "transpose_naive": t("Harris 的写法", "naive"),
                  "transpose_naive_colread": t("读跨步的写法", "strided read")}


def traffic_table(n: int = 8192, path: str | Path | None = None) -> Table:
    """Where the sectors go, per memory level: L1 sectors (labsim and the H200), L2 sectors and DRAM bytes
    (the H200, Nsight Compute) and the kernel time, for copy and the two naive transposes at n×n."""
    details = load_details(path)
    rows = []
    names = TRAFFIC_LABELS
    for name, sim in TRAFFIC_KERNELS:
        m = min(n, COUNT_N)
        stats = kit.or_pending(lambda: _counted(sim, m))
        scale = (n // m) ** 2                    # same requests per element at every multiple of 32
        ld, st = (stats, stats) if stats is kit.PENDING else (stats.gld_sectors * scale, stats.gst_sectors * scale)
        h = _ncu(details, name, n) if details else None
        if h is None:
            rows.append([names[name], ld, st, t("（未记录）", "(not recorded)"), "", "", "", "", "", ""])
            continue
        rows.append([names[name], ld, st, int(h[LD_SECTORS]), int(h[ST_SECTORS]), int(h[L2_READ]), int(h[L2_WRITE]),
                     round(h["dram__bytes_read.sum"] / 2**20), round(h["dram__bytes_write.sum"] / 2**20),
                     round(h["gpu__time_duration.sum"] / 1000)])
    notes = [t(f"H200：measurements/h200/bandwidth/details.json（Nsight Compute {details.get('meta', {}).get('ncu', '')}，"
               f"--clock-control none，一次启动）；labsim 在 {COUNT_N}² 上计数，按元素数放大。",
               f"H200: bandwidth/details.json (one ncu launch); labsim counted at {COUNT_N}², scaled.")] if details else \
        [t("本机没有 H200 记录（measurements/h200/bandwidth/details.json）。", "not recorded here")]
    return Table([t("内核", "kernel"), t("L1 读 sector（labsim）", "L1 load sectors (labsim)"),
                  t("L1 写 sector（labsim）", "L1 store sectors (labsim)"), t("L1 读 sector（H200）", "L1 load (H200)"),
                  t("L1 写 sector（H200）", "L1 store (H200)"), t("L2 读 sector（H200）", "L2 read (H200)"),
                  t("L2 写 sector（H200）", "L2 write (H200)"), t("DRAM 读 MiB", "DRAM read MiB"),
                  t("DRAM 写 MiB", "DRAM write MiB"), t("时间 µs（ncu）", "time µs (ncu)")], rows,
                 caption=t(f"{n}×{n} float32：每一层内存的流量；copy 的指针和两个转置一样带 const __restrict__",
                           f"{n}×{n}: traffic at each memory level"), notes=notes)


def colread_text(bandwidth: str | Path | None = None, details: str | Path | None = None, n: int = 8192) -> Prose:
    """What the H200 shows about strided read vs strided write, from the recordings: speed and L2 sectors."""
    data, det = load_bandwidth(bandwidth), load_details(details)
    recs = {k: _record(data, k, n) if data else None for k in ("copy_restrict", "transpose_naive", "transpose_naive_colread")}
    ncu = {k: _ncu(det, k, n) if det else None for k in recs}
    if any(v is None for v in recs.values()) or any(v is None for v in ncu.values()):
        return Prose(t("H200 上两种朴素转置的带宽与 L2 计数尚未记录：先按上面的计数写下你的预测，记录之后本段由数据生成。",
                 "Not recorded on the H200 yet."))
    g = {k: float(r["gbps_median"]) for k, r in recs.items()}
    c, w, r = ncu["copy_restrict"], ncu["transpose_naive"], ncu["transpose_naive_colread"]
    same_l1 = w[LD_SECTORS] + w[ST_SECTORS] == r[LD_SECTORS] + r[ST_SECTORS]
    if r[L2_READ] == c[L2_READ]:
        l2_read = "却和 copy 一样多"
    elif abs(r[L2_READ] / c[L2_READ] - 1) < 0.005:
        l2_read = f"却和 copy 几乎一样多（只多 {r[L2_READ] - c[L2_READ]} 个）"
    else:
        l2_read = f"只有 copy 的 {_times(r[L2_READ] / c[L2_READ])}"
    return Prose(t(
        f"H200 实测（{n}²）：读跨步、写合并的版本达到 {round(g['transpose_naive_colread'])} GB/s，"
        f"约为 Harris 的写法（读合并、写跨步，{round(g['transpose_naive'])} GB/s）的 "
        f"{_times(g['transpose_naive_colread'] / g['transpose_naive'])}；copy 是 {round(g['copy_restrict'])} GB/s。"
        + ("两种写法在 L1 上的 sector 总数相同，差别出在 L2：" if same_l1 else "")
        + f"Harris 的写法送到 L2 的写 sector 是 copy 的 {_times(w[L2_WRITE] / c[L2_WRITE])}"
        + ("，L1 上的写 sector 全部到了 L2" if w[L2_WRITE] == w[ST_SECTORS] else "")
        + f"；读跨步的版本在 L1 上读的 sector 是 copy 的 {_times(r[LD_SECTORS] / c[LD_SECTORS])}，"
        f"送到 L2 的读 sector {l2_read}，其余都在 L1 命中了。",
        f"H200 ({n}²): strided read {round(g['transpose_naive_colread'])} GB/s vs strided write "
        f"{round(g['transpose_naive'])} GB/s."))


def harris_table() -> Table:
    """Harris's published figures (external) next to labsim's estimate with the same GPU preset."""
    rows, harris = [], kit.harris()
    for gpu in harris["gpus"]:
        for name, label in (BANDWIDTH_KERNELS[0], BANDWIDTH_KERNELS[2]):
            est, reported = kit.or_pending(lambda: labsim_estimate(name, 1024, gpu)), kit.harris_gbps(name, gpu)
            rows.append([gpu, label, reported, *((est, "") if est is kit.PENDING else
                                                 (round(est), _ratio(est / reported)))])
    return Table([t("GPU", "GPU"), t("内核", "kernel"), t("Harris 报告（GB/s，外部）", "Harris (GB/s, external)"),
                  t("labsim 估计（GB/s）", "labsim estimate"), t("估计 / 报告", "estimate / reported")], rows,
                 caption=t("1024×1024 float32；Harris 的数字来自 NVIDIA 技术博客（外部资料），labsim 用同名 GPU 预设估计",
                           "1024² float32: Harris's blog (external) and labsim's estimate"),
                 notes=[t(f"来源：{harris['url']}", f"source: {harris['url']}")])


# ---- round 3: every memory level at 8192² (measurements/h200/round3, issue 27) ---------------------------------

LEVEL_N = 8192        # round 3 measured the level table's kernels at 8192²


def _round3():
    return recordings.load("round3_transpose8")


def _r3(data, name: str, block=(32, 8), part: str = "ncu") -> dict | None:
    return next((r for r in data[part] if r["name"] == name and tuple(r["block"]) == tuple(block)), None)


LEVEL_KERNELS = (("copy_restrict", t("copy（const __restrict__）", "copy (const __restrict__)")),
                 ("transpose_naive", t("Harris 的朴素转置：读合并、写跨步", "naive: coalesced read, strided write")),
                 ("transpose_naive_colread", t("朴素转置：读跨步、写合并", "naive: strided read, coalesced write")))


def level_counters(name: str, block=(32, 8)) -> dict | None:
    """One round-3 kernel at 8192²: GB/s (median) and what each memory level saw, from the recording."""
    data = _round3()
    if data is None:
        return None
    m, tm = _r3(data, name, block), _r3(data, name, block, "timing")
    if m is None or tm is None:
        return None
    x = m["metrics"]
    ns = x["gpu__time_duration.sum"]
    ld = x["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]
    return {"gbps": tm["gbps_median"], "us": tm["median_ms"] * 1000,
            "l1_ld": ld, "l1_hit_pct": 100.0 * x["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] / ld
            if ld else 0.0, "l1_st": x["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"],
            "l2_rd": x["lts__t_sectors_srcunit_tex_op_read.sum"], "l2_wr": x["lts__t_sectors_srcunit_tex_op_write.sum"],
            "l2_wr_gbps": 32 * x["lts__t_sectors_srcunit_tex_op_write.sum"] / ns,
            "l2_pct": x["lts__throughput.avg.pct_of_peak_sustained_elapsed"],
            "dram_rd_mib": x["dram__bytes_read.sum"] / 2**20, "dram_wr_mib": x["dram__bytes_write.sum"] / 2**20}


def level_table() -> Table:
    """Round 3 at 8192²: copy and the two naive transposes, level by level (H200, Nsight Compute)."""
    rows = []
    for name, label in LEVEL_KERNELS:
        c = level_counters(name)
        if c is None:
            rows.append([label] + [t("未记录", "not recorded")]
                        + [""] * 8)
            continue
        rows.append([label, round(c["gbps"]), f"{c['l1_hit_pct']:.1f}%", c["l1_st"], c["l2_rd"], c["l2_wr"],
                     round(c["l2_wr_gbps"]), f"{c['l2_pct']:.1f}%", round(c["dram_rd_mib"]), round(c["dram_wr_mib"])])
    meta = (_round3() or {}).get("meta", {})
    return Table([t("内核（8192²，block 32×8）", "kernel"), "GB/s", t("L1 读命中", "L1 ld hit"),
                  t("L1 写 sector", "L1 st sectors"), t("L2 读 sector", "L2 rd sectors"),
                  t("L2 写 sector", "L2 wr sectors"), t("L2 写 GB/s", "L2 wr GB/s"), t("L2 吞吐（占峰值）", "L2 % peak"),
                  t("DRAM 读 MiB", "DRAM rd MiB"), t("DRAM 写 MiB", "DRAM wr MiB")], rows,
                 caption=t(f"H200 实测（{meta.get('gpu', 'H200')}，Nsight Compute {meta.get('ncu', '')}，"
                           "measurements/h200/round3）：GB/s 是 30 次计时的中位数；L1 读命中 = "
                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum ÷ L1 读 sector；L2 读/写 sector = "
                           "lts__t_sectors_srcunit_tex_op_read/write.sum；L2 写 GB/s = 32 字节 × L2 写 sector ÷ "
                           "gpu__time_duration.sum；L2 吞吐 = lts__throughput.avg.pct_of_peak_sustained_elapsed",
                           "H200, Nsight Compute, measurements/h200/round3"))


def level_text() -> Prose:
    """The sentences the lesson draws from :func:`level_table`, computed from the recording; each comparison is
    stated only as the numbers bear it out."""
    cp, nv, cr = (level_counters(n) for n, _ in LEVEL_KERNELS)
    if None in (cp, nv, cr):
        return Prose(t("（没有第三轮测量的记录：measurements/h200/round3/results.json 不在这里。）", "(round 3 not recorded)"))
    input_mib = LEVEL_N * LEVEL_N * 4 / 2**20
    l1 = ("，和它在 L1 上的写 sector 一样多" if nv["l2_wr"] == nv["l1_st"] else
          f"，是它在 L1 上的写 sector 的 {_times(nv['l2_wr'] / nv['l1_st'])}")
    l2_read = ("与 copy 相同" if cr["l2_rd"] == cp["l2_rd"] else f"是 copy 的 {_times(cr['l2_rd'] / cp['l2_rd'])}")
    also = "也" if f"{nv['l2_pct']:.0f}" == f"{cp['l2_pct']:.0f}" else ""
    exact = "，正好是输入的大小" if round(cp["dram_rd_mib"]) == input_mib else ""
    return Prose(t(
        f"Harris 的朴素转置送到 L2 的写 sector 是 copy 的 {_times(nv['l2_wr'] / cp['l2_wr'])}"
        f"（{_wan(nv['l2_wr'])}个，copy 是 {_wan(cp['l2_wr'])}个）{l1}。按每个 sector 32 字节折算，L2 每秒接收 "
        f"{nv['l2_wr_gbps']:.0f} GB/s 的写，"
        f"L2 吞吐达到峰值的 {nv['l2_pct']:.0f}%（copy {also}是 {cp['l2_pct']:.0f}%），这个内核的有效带宽却只有 "
        f"{nv['gbps']:.0f} GB/s，"
        f"而 copy 是 {cp['gbps']:.0f} GB/s。Harris 的写法从 DRAM 读了 {nv['dram_rd_mib']:.0f} MiB、写了 {nv['dram_wr_mib']:.0f} MiB；"
        f"copy 读了 {cp['dram_rd_mib']:.0f} MiB{exact}，写了 {cp['dram_wr_mib']:.0f} MiB。读跨步的版本 L1 读命中率是 "
        f"{cr['l1_hit_pct']:.1f}%，送到 L2 的读 sector {l2_read}，有效带宽 {cr['gbps']:.0f} GB/s。",
        f"naive: {nv['l2_wr'] / cp['l2_wr']:.0f}x copy's L2 write sectors at {nv['l2_wr_gbps']:.0f} GB/s, "
        f"{nv['l2_pct']:.0f}% of L2 peak, {nv['gbps']:.0f} GB/s; colread {cr['l1_hit_pct']:.1f}% L1 hits."))


def h200_block_gbps(bx: int, by: int) -> float | None:
    """Round 3: median GB/s of the one-element-per-thread naive transpose with block (bx, by) at 8192²."""
    data = _round3()
    r = _r3(data, "transpose_naive_1e", (bx, by), "timing") if data else None
    return None if r is None else r["gbps_median"]


Q3_KERNELS = (("fill_row", (32, 8), t("清零：warp 写一行", "fill along a row")),
              ("fill_col", (32, 8), t("清零：warp 写一列", "fill down a column")),
              ("colsum_coalesced", (256, 1), t("列求和：一个线程一列（warp 读一行）", "column sums, a thread a column")),
              ("colsum_strided_block", (32, 8), t("列求和：warp 读一列，block 的 8 个 warp 读相邻 8 列",
                                                   "column sums, a warp a column, adjacent columns in one block")),
              ("colsum_strided_spread", (32, 8), t("列求和：warp 读一列，相邻的列在不同的 block",
                                                    "column sums, adjacent columns on different blocks")))


def q3_table() -> Table:
    """Q3's kernels at 8192² on the H200 (round 3): time and each level's traffic."""
    rows = []
    for name, block, label in Q3_KERNELS:
        c = level_counters(name, block)
        if c is None:
            rows.append([label, t("未记录", "not recorded")] + [""] * 6)
            continue
        rows.append([label, f"{c['us']:.0f}", c["l1_st"], f"{c['l1_hit_pct']:.1f}%" if c["l1_ld"] else "—",
                     c["l2_rd"], c["l2_wr"], round(c["dram_rd_mib"]), round(c["dram_wr_mib"])])
    return Table([t("内核（8192²）", "kernel"), "µs", t("L1 写 sector", "L1 st"), t("L1 读命中", "L1 ld hit"),
                  t("L2 读 sector", "L2 rd"), t("L2 写 sector", "L2 wr"), t("DRAM 读 MiB", "DRAM rd MiB"),
                  t("DRAM 写 MiB", "DRAM wr MiB")], rows,
                 caption=t("H200 实测（measurements/h200/round3，Nsight Compute；µs 是 30 次计时的中位数）：列求和每列把和写进"
                           "一个 float", "H200, round 3"))
