"""Lesson 8's exercise, as code: how the host function is called and checked (``call``), the coalesced store a
mapping can reach on a shape (``coalesced_store``), what a submission's mapping did (``mapping_probe``) and the
guard veto (only a guard edit that lets the submitted kernel go out of bounds).

Shipped to students with the public checks: nothing here is secret, and nothing here states the blank's fill.
"""
from __future__ import annotations

import numpy as np

from grading.results import Veto
from grading.sim import Call, Case, Output

TILE, ROWS = 32, 8              # the template's TILE_DIM and BLOCK_ROWS (a region edits may not touch)
STEPS = TILE // ROWS
FOCUS = ("load", "store")
LABELS = {"load": "读 input", "store": "写 output"}


def shape(id: str, kind: str, m: int, n: int, seed: int = 0) -> Case:
    """A case: an M×N float32 matrix of random values drawn from ``seed``."""
    return Case(id, kind, {"M": m, "N": n}, seed)


def call(case: Case) -> Call:
    """``launch_transpose_naive(input, output, M, N, 0)``; the output must equal numpy's transpose."""
    a = case.rng().standard_normal((case.M, case.N)).astype(np.float32)
    out = np.full((case.N, case.M), np.nan, dtype=np.float32)   # NaN marks elements never written
    return Call((a.reshape(-1), out.reshape(-1), case.M, case.N, 0), [Output("output", out, a.T)])


def coalesced_store(M: int, N: int) -> tuple[int, int]:
    """(requests, sectors) of the store when every warp writes 32 neighbouring elements of one row of output
    (block-row r = 0..31 of one block column; the guard's inactive lanes dropped), counted with labsim's sector
    rule on those addresses (arrays start 256-byte aligned): the fewest sectors a store of this kernel can touch.
    A request is one warp's instruction with at least one active lane."""
    from labsim.model import sectors_per_warp
    gx, gy = -(-N // TILE), -(-M // TILE)
    bx, by, c, r = np.meshgrid(np.arange(gx), np.arange(gy), np.arange(TILE), np.arange(TILE), indexing="ij")
    row, col = (by * TILE + r).reshape(-1, 32), (bx * TILE + c).reshape(-1, 32)
    active = (row < M) & (col < N)
    addr = (col * M + row).astype(np.int64) * 4
    keep = active.any(axis=1)
    return int(keep.sum()), int(sectors_per_warp(addr[keep], active[keep], 4).sum())


PROBE = """\
constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;
__global__ void mapping_probe(int* es, int M, int N) {
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int e = %s;
        es[(ty * TILE_DIM + tx) * (TILE_DIM / BLOCK_ROWS) + j / BLOCK_ROWS] = e;
    }
}
void launch_probe(int* es, int M, int N) { mapping_probe<<<1, dim3(TILE_DIM, BLOCK_ROWS)>>>(es, M, N); }
"""


def mapping_probe(blank: str, M: int, N: int) -> np.ndarray | None:
    """``e[ty, tx, step]``: the block number each thread of one block computes with the submitted blank (already
    accepted by the conformance gate, so it is one expression), run on labsim; None when it cannot run."""
    from grading.sim import compile_source
    try:
        prog = compile_source(PROBE % blank, "mapping_probe.cu")
        es = np.full(TILE * ROWS * STEPS, -1, dtype=np.int32)
        prog.call("launch_probe", es, M, N)
    except Exception:            # the probe only illustrates; the graded runs say what went wrong
        return None
    return es.reshape(ROWS, TILE, STEPS)


def probe_text(blank: str, M: int, N: int) -> str:
    """What the mapping did, in one block: the numbers warp 0 moves at step j = 0, and how many block numbers
    0..1023 nobody moves, are moved more than once, or lie outside the block. Only true statements about it."""
    e = mapping_probe(blank, M, N)
    if e is None:
        return ""
    first = e[0, :, 0]
    shown = "、".join(str(int(v)) for v in first[:6]) + "……" + str(int(first[-1]))
    pos = "、".join(f"第 {int(v) // TILE} 行第 {int(v) % TILE} 列" for v in first[:3] if 0 <= v < TILE * TILE)
    flat = e.reshape(-1)
    inside = flat[(flat >= 0) & (flat < TILE * TILE)]
    counts = np.bincount(inside, minlength=TILE * TILE)
    bits = []
    if (counts == 0).any():
        bits.append(f"{int((counts == 0).sum())} 个编号没有线程搬")
    if (counts > 1).any():
        bits.append(f"{int((counts > 1).sum())} 个编号被搬了不止一次")
    if inside.size < flat.size:
        bits.append(f"有 {flat.size - inside.size} 次算出的编号超出了 0..1023")
    msg = (f"按你的填空，warp 0（ty = 0，tx = 0..31）在 j = 0 时搬的块内编号是 {shown}"
           + (f"，即块内{pos}……" if pos else ""))
    if bits:
        msg += "；一个 block 的 256 个线程走完 4 步，" + "，".join(bits)
    return msg


def guard_weakened(st) -> Veto | None:
    """A guard edit is vetoed only when the kernel as submitted (its own guard) reads or writes outside the arrays
    on a shape that is not a multiple of 32; a harmless edit (``&& row >= 0``) stays an unscored edit."""
    conf = st.conformance
    if conf is None or conf.problem or not any("bounds_check" in e.regions for e in conf.edits):
        return None
    from grading import sim
    ex = st.exercise
    try:
        prog = sim.compile_source(st.submission.numbering.source(st.submission.source), ex.target_name)
    except Exception:
        return None                      # the edited file does not compile: nothing ran out of bounds
    shapes = []
    for m, n in ((33, 47), (47, 33), (1, 5), (5, 1), (65, 45)):
        rec = sim.run_case(prog, ex.config["host_function"], call(shape("guard", "guard", m, n)),
                           shape("guard", "guard", m, n))
        if rec.error_kind == "oob":
            shapes.append(f"{m}×{n}")
    if not shapes:
        return None
    text = ex.config.get("vetoes", {}).get("deleted_bounds_check", {})
    what = "；".join(e.describe(ex.region_labels) for e in conf.edits if "bounds_check" in e.regions)
    return Veto("deleted_bounds_check", text.get("title", "删除边界检查"),
                text.get("reason", "{edits}").format(edits=what, shapes="、".join(shapes)))


VETOES = [guard_weakened]
