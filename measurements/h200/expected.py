"""What DESIGN.md's counting model predicts for every kernel of microbench.cu, by brute force per lane.

Usage (repo root):
    python measurements/h200/expected.py                     # model vs results.json, mismatches marked
    python measurements/h200/expected.py --markdown          # the same as the README's table
    python measurements/h200/expected.py --model-only        # model alone (no measurements needed)

The model (DESIGN.md, "labsim"): a global request per issued warp instruction with an active lane; sectors =
distinct 32-byte segments of the active lanes; shared wavefronts = per group of lanes (the warp for 1-4 byte
accesses, each half-warp for 8-byte, each quarter-warp for 16-byte), the most distinct 4-byte words one bank
must serve, summed over groups with an active lane; bank conflicts = wavefronts - that number of groups.
`smsp__inst_executed_*` counts an instruction once per warp that issues it, active lanes or not.

Which warps issue an instruction (predicated: all; behind a branch or EXIT: only warps with an active lane) is
read off the SASS table in README.md and written into each kernel below. Stdlib only; this file is a reference
for labsim's tests, written without labsim.

Limitations: global atomics/reductions and shared atomics are modelled only as far as the contract metrics go
(not in ld/st counters); no model of L1 hits, since ncu's request/sector counters do not depend on them.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
WARP = 32
CONTRACT = (
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "smsp__inst_executed_op_global_ld.sum",
    "smsp__inst_executed_op_global_st.sum",
    "smsp__inst_executed_op_shared_ld.sum",
    "smsp__inst_executed_op_shared_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
)
SHORT = {
    CONTRACT[0]: "ld_req", CONTRACT[1]: "ld_sec", CONTRACT[2]: "st_req", CONTRACT[3]: "st_sec",
    CONTRACT[4]: "gld_inst", CONTRACT[5]: "gst_inst", CONTRACT[6]: "lds_inst", CONTRACT[7]: "sts_inst",
    CONTRACT[8]: "lds_wf", CONTRACT[9]: "sts_wf", CONTRACT[10]: "lds_bc", CONTRACT[11]: "sts_bc",
}

Addrs = list  # 32 entries: a byte offset for an active lane, None for an inactive one


@dataclass
class WarpOp:
    """One warp-level memory instruction: space ('g'/'s'), op ('ld'/'st'), access size, lane addresses."""

    space: str
    op: str
    itemsize: int
    addrs: Addrs
    issued: bool = True

    def __repr__(self) -> str:
        n = sum(a is not None for a in self.addrs)
        return f"WarpOp({self.space}{self.op}{self.itemsize * 8}, {n} active, issued={self.issued})"


def sectors(addrs: Addrs, itemsize: int) -> int:
    """Distinct 32-byte segments touched by the active lanes."""
    segs = {s for a in addrs if a is not None for s in range(a // 32, (a + itemsize - 1) // 32 + 1)}
    return len(segs)


def wavefronts(addrs: Addrs, itemsize: int) -> tuple[int, int]:
    """(wavefronts, groups with an active lane) under DESIGN's shared-memory model."""
    group = WARP if itemsize <= 4 else (16 if itemsize == 8 else 8)
    total = groups = 0
    for g in range(0, WARP, group):
        banks: dict[int, set[int]] = {}
        for a in addrs[g : g + group]:
            if a is None:
                continue
            for w in range(a // 4, (a + itemsize - 1) // 4 + 1):
                banks.setdefault(w % 32, set()).add(w)
        if banks:
            groups += 1
            total += max(len(words) for words in banks.values())
    return total, groups


@dataclass
class Counters:
    """Contract metrics accumulated over warp instructions."""

    values: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CONTRACT, 0))

    def __repr__(self) -> str:
        return "Counters(" + ", ".join(f"{SHORT[k]}={v}" for k, v in self.values.items() if v) + ")"

    def add(self, op: WarpOp) -> None:
        if not op.issued:
            return
        v = self.values
        active = any(a is not None for a in op.addrs)
        if op.space == "g":
            kind = "ld" if op.op == "ld" else "st"
            v[f"smsp__inst_executed_op_global_{kind}.sum"] += 1
            if active:
                v[f"l1tex__t_requests_pipe_lsu_mem_global_op_{kind}.sum"] += 1
                v[f"l1tex__t_sectors_pipe_lsu_mem_global_op_{kind}.sum"] += sectors(op.addrs, op.itemsize)
        else:
            kind = op.op
            v[f"smsp__inst_executed_op_shared_{kind}.sum"] += 1
            wf, groups = wavefronts(op.addrs, op.itemsize)
            v[f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{kind}.sum"] += wf
            v[f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{kind}.sum"] += wf - groups


# ------------------------------------------------------------------------------------------------ launch shapes
@dataclass
class Warp:
    """Coordinates of the 32 lanes of one warp (blocks are 1-D, or (32, 8) for the transposes)."""

    bx: int
    by: int
    warp: int
    tx: list[int]
    ty: list[int]
    tid: list[int]  # blockIdx.x * blockDim.x + threadIdx.x (1-D launches)

    def __repr__(self) -> str:
        return f"Warp(block=({self.bx},{self.by}), warp={self.warp})"


def warps_1d(blocks: int, threads: int) -> Iterator[Warp]:
    for b in range(blocks):
        for w in range(threads // WARP):
            tx = [w * WARP + lane for lane in range(WARP)]
            yield Warp(b, 0, w, tx, [0] * WARP, [b * threads + t for t in tx])


def warps_2d(gx: int, gy: int) -> Iterator[Warp]:
    """Block (32, 8): warp w is the row threadIdx.y == w."""
    for by in range(gy):
        for bx in range(gx):
            for w in range(8):
                yield Warp(bx, by, w, list(range(WARP)), [w] * WARP, [0] * WARP)


SHAPES = {"w1": (1, 32), "2x256": (2, 256), "b256": (1, 256)}


def lanes(pred: Callable[[int], bool], addr: Callable[[int], int]) -> Addrs:
    return [addr(i) if pred(i) else None for i in range(WARP)]


def rand_table(n: int = 512) -> list[int]:
    """microbench.cu's make_rand_table: LCG 1664525, 1013904223, seed 12345, (x >> 8) % 1024."""
    x, out = 12345, []
    for _ in range(n):
        x = (1664525 * x + 1013904223) & 0xFFFFFFFF
        out.append((x >> 8) % 1024)
    return out


# ------------------------------------------------------------------------------------------------ kernels
def _gld(itemsize: int, index: Callable[[int], int]) -> Callable[[Warp], list[WarpOp]]:
    def ops(w: Warp) -> list[WarpOp]:
        return [WarpOp("g", "ld", itemsize, [index(t) * itemsize for t in w.tid]),
                WarpOp("g", "st", 4, [t * 4 for t in w.tid])]
    return ops


def _gst(index: Callable[[int], int]) -> Callable[[Warp], list[WarpOp]]:
    return lambda w: [WarpOp("g", "st", 4, [index(t) * 4 for t in w.tid])]


def _fill(w: Warp, nwords: int, threads: int) -> list[WarpOp]:
    """fill_words: for (i = threadIdx.x; i < nwords; i += blockDim.x), STS per iteration with an active lane."""
    ops = []
    for k in range(-(-nwords // threads)):
        a = lanes(lambda i: w.tx[i] + k * threads < nwords, lambda i: (w.tx[i] + k * threads) * 4)
        if any(x is not None for x in a):
            ops.append(WarpOp("s", "st", 4, a))
    return ops


def _sld(rows: int, cols: int, itemsize: int, cell: Callable[[int], tuple[int, int]],
         active: Callable[[int], bool] = lambda lane: True) -> Callable[[Warp], list[WarpOp]]:
    """Fill tile[rows][cols], read tile[cell(lane)], store the value to sink (both under `active`)."""
    def ops(w: Warp) -> list[WarpOp]:
        out = _fill(w, rows * cols * itemsize // 4, WARP)
        off = lambda i: (cell(i)[0] * cols + cell(i)[1]) * itemsize  # noqa: E731
        out.append(WarpOp("s", "ld", itemsize, lanes(active, off)))
        out.append(WarpOp("g", "st", 4, lanes(active, lambda i: w.tid[i] * 4)))
        return out
    return ops


def _sst(cols: int, itemsize: int, cell: Callable[[int], tuple[int, int]],
         active: Callable[[int], bool] = lambda lane: True) -> Callable[[Warp], list[WarpOp]]:
    """Store tile[cell(lane)], then read word `lane` and store it to sink."""
    def ops(w: Warp) -> list[WarpOp]:
        off = lambda i: (cell(i)[0] * cols + cell(i)[1]) * itemsize  # noqa: E731
        return [WarpOp("s", "st", itemsize, lanes(active, off)),
                WarpOp("s", "ld", 4, [i * 4 for i in range(WARP)]),
                WarpOp("g", "st", 4, [t * 4 for t in w.tid])]
    return ops


def _transpose(pad: int, M: int, N: int, kind: str) -> Callable[[Warp], list[WarpOp]]:
    """Seed kernel (kind 'tiled'), Harris's naive transpose and copy; loop iterations j = 0, 8, 16, 24.
    SASS: every load/store of the first loop is predicated (issued by all warps); in the second loop (and in
    naive/copy's only loop) iterations 0-2 are predicated and iteration 3 follows a guarded EXIT."""
    C = 32 + pad

    def ops(w: Warp) -> list[WarpOp]:
        out: list[WarpOp] = []
        last = lambda j, a: j < 24 or any(x is not None for x in a)  # noqa: E731
        if kind != "tiled":
            for j in range(0, 32, 8):
                row = w.by * 32 + w.warp + j
                ok = lambda i: row < M and w.bx * 32 + i < N  # noqa: E731
                ld = lanes(ok, lambda i: (row * N + w.bx * 32 + i) * 4)
                st_idx = (lambda i: (w.bx * 32 + i) * M + row) if kind == "naive" else \
                    (lambda i: row * N + w.bx * 32 + i)
                st = lanes(ok, lambda i: st_idx(i) * 4)
                out += [WarpOp("g", "ld", 4, ld, last(j, ld)), WarpOp("g", "st", 4, st, last(j, st))]
            return out
        for j in range(0, 32, 8):
            row, base = w.by * 32 + w.warp + j, w.bx * 32
            ok = lambda i: row < M and base + i < N  # noqa: E731
            out.append(WarpOp("g", "ld", 4, lanes(ok, lambda i: (row * N + base + i) * 4)))
            out.append(WarpOp("s", "st", 4, lanes(ok, lambda i: ((w.warp + j) * C + i) * 4)))
        for j in range(0, 32, 8):
            row, x0 = w.bx * 32 + w.warp + j, w.by * 32
            ok = lambda i: row < N and x0 + i < M  # noqa: E731
            lds = lanes(ok, lambda i: (i * C + w.warp + j) * 4)
            stg = lanes(ok, lambda i: (row * M + x0 + i) * 4)
            out += [WarpOp("s", "ld", 4, lds, last(j, lds)), WarpOp("g", "st", 4, stg, last(j, stg))]
        return out
    return ops


def _pred_if_g(w: Warp) -> list[WarpOp]:
    on = w.tx[0] >= 64  # @!P0 EXIT: warps 0-1 leave before the load
    return [WarpOp("g", "ld", 4, [t * 4 for t in w.tid], on), WarpOp("g", "st", 4, [t * 4 for t in w.tid], on)]


def _pred2_g(w: Warp) -> list[WarpOp]:
    return [WarpOp("g", "ld", 4, lanes(lambda i: w.tx[i] >= 64, lambda i: w.tid[i] * 4)),
            WarpOp("g", "ld", 4, lanes(lambda i: w.tx[i] >= 128, lambda i: (w.tid[i] + 512) * 4)),
            WarpOp("g", "st", 4, [t * 4 for t in w.tid])]


def _pred_if_s(w: Warp) -> list[WarpOp]:
    on = w.warp >= 2
    return _fill(w, 256, 256) + [WarpOp("s", "ld", 4, [t * 4 for t in w.tx], on),
                                 WarpOp("g", "st", 4, [t * 4 for t in w.tid], on)]


def _pred2_s(w: Warp) -> list[WarpOp]:
    # SASS: first LDS predicated (@P0, all warps issue it), second behind a branch (warps 4-7 only).
    return _fill(w, 256, 256) + [
        WarpOp("s", "ld", 4, lanes(lambda i: w.tx[i] >= 64, lambda i: w.tx[i] * 4)),
        WarpOp("s", "ld", 4, [((7 - w.warp) * 32 + i) * 4 for i in range(WARP)], w.warp >= 4),
        WarpOp("g", "st", 4, [t * 4 for t in w.tid])]


def kernels() -> dict[str, tuple[Callable[[Warp], list[WarpOp]], Iterator[Warp] | Callable[[], Iterator[Warp]]]]:
    """kernel name -> (per-warp instruction list, warp iterator factory)."""
    rt = rand_table()
    half = lambda i: i < 16  # noqa: E731
    gld = {
        "gld_f32_contig": _gld(4, lambda t: t), "gld_f32_offset1": _gld(4, lambda t: t + 1),
        "gld_f32_stride2": _gld(4, lambda t: 2 * t), "gld_f32_stride4": _gld(4, lambda t: 4 * t),
        "gld_f32_stride8": _gld(4, lambda t: 8 * t), "gld_f32_stride32": _gld(4, lambda t: 32 * t),
        "gld_f32_broadcast": _gld(4, lambda t: 0), "gld_f32_random": _gld(4, lambda t: rt[t]),
        "gld_f64_contig": _gld(8, lambda t: t), "gld_f32x4_contig": _gld(16, lambda t: t),
        "gld_f32x2_contig": _gld(8, lambda t: t), "gld_f16_contig": _gld(2, lambda t: t),
        "gld_f32_contig_nc": _gld(4, lambda t: t),
        "gld_f32_halfwarp": lambda w: [WarpOp("g", "ld", 4, lanes(half, lambda i: w.tid[i] * 4)),
                                       WarpOp("g", "st", 4, lanes(half, lambda i: w.tid[i] * 4))],
        "gst_f32_contig": _gst(lambda t: t), "gst_f32_offset1": _gst(lambda t: t + 1),
        "gst_f32_stride32": _gst(lambda t: 32 * t),
    }
    out: dict = {}
    for name, fn in gld.items():
        for shape in ("w1", "2x256"):
            out[f"{name}_{shape}"] = (fn, lambda s=shape: warps_1d(*SHAPES[s]))
    w1 = lambda: warps_1d(1, 32)  # noqa: E731
    b256 = lambda: warps_1d(1, 256)  # noqa: E731
    out["gld_f32_pred_if_2x256"] = (_pred_if_g, lambda: warps_1d(2, 256))
    out["gld_f32_pred2_2x256"] = (_pred2_g, lambda: warps_1d(2, 256))
    # atomics: only their sink store shows in the contract metrics
    out["gatom_f32_contig_w1"] = (lambda w: [WarpOp("g", "st", 4, [t * 4 for t in w.tid])], w1)
    out["gred_f32_contig_w1"] = (lambda w: [], w1)
    out["gred_f32_same_w1"] = (lambda w: [], w1)
    lane_ = lambda i: i  # noqa: E731
    sld = {
        "sld_f32_row_w1": _sld(32, 32, 4, lambda i: (3, i)),
        "sld_f32_col_pad0_w1": _sld(32, 32, 4, lambda i: (i, 7)),
        "sld_f32_col_pad1_w1": _sld(32, 33, 4, lambda i: (i, 7)),
        "sld_f32_col_pad2_w1": _sld(32, 34, 4, lambda i: (i, 7)),
        "sld_f32_col_xor_w1": _sld(32, 32, 4, lambda i: (i, 7 ^ i)),
        "sld_f32_broadcast_w1": _sld(32, 32, 4, lambda i: (2, 5)),
        "sld_f32_two_same_w1": _sld(32, 32, 4, lambda i: (0, 0 if i == 1 else i)),
        "sld_f32_two_conflict_w1": _sld(32, 32, 4, lambda i: (1, 0) if i == 1 else (0, i)),
        "sld_f16_row_w1": _sld(32, 32, 2, lambda i: (3, i)),
        "sld_f16_col_pad0_w1": _sld(32, 32, 2, lambda i: (i, 7)),
        "sld_f16_col_pad1_w1": _sld(32, 33, 2, lambda i: (i, 7)),
        "sld_f16_col_pad2_w1": _sld(32, 34, 2, lambda i: (i, 7)),
        "sld_f64_contig_w1": _sld(32, 32, 8, lambda i: (3, i)),
        "sld_f64_stride2_w1": _sld(32, 64, 8, lambda i: (3, 2 * i)),
        "sld_f64_col_pad0_w1": _sld(32, 32, 8, lambda i: (i, 7)),
        "sld_f64_col_pad1_w1": _sld(32, 33, 8, lambda i: (i, 7)),
        "sld_f32x4_contig_w1": _sld(4, 64, 16, lambda i: (1, i)),
        "sld_f32x4_stride2_w1": _sld(4, 64, 16, lambda i: (1, 2 * i)),
        "sld_f32x4_col_w1": _sld(32, 8, 16, lambda i: (i, 1)),
        "sld_f32x4_broadcast_w1": _sld(4, 64, 16, lambda i: (1, 5)),
        "sld_f32x2_contig_w1": _sld(4, 64, 8, lambda i: (1, i)),
        "sld_f32x2_stride2_w1": _sld(4, 64, 8, lambda i: (1, 2 * i)),
        "sld_f32_halfwarp_row_w1": _sld(32, 32, 4, lambda i: (3, i), half),
        "sld_f32_halfwarp_col_pad0_w1": _sld(32, 32, 4, lambda i: (i, 7), half),
        "sst_f32_row_w1": _sst(32, 4, lambda i: (3, i)),
        "sst_f32_col_pad0_w1": _sst(32, 4, lambda i: (i, 7)),
        "sst_f32_col_pad1_w1": _sst(33, 4, lambda i: (i, 7)),
        "sst_f32_col_pad2_w1": _sst(34, 4, lambda i: (i, 7)),
        "sst_f32_col_xor_w1": _sst(32, 4, lambda i: (i, 7 ^ i)),
        "sst_f32_broadcast_w1": _sst(32, 4, lambda i: (2, 5)),
        "sst_f16_col_pad0_w1": _sst(32, 2, lambda i: (i, 7)),
        "sst_f64_contig_w1": _sst(32, 8, lambda i: (3, i)),
        "sst_f64_col_pad1_w1": _sst(33, 8, lambda i: (i, 7)),
        "sst_f32x4_contig_w1": _sst(64, 16, lambda i: (1, i)),
        "sst_f32x2_contig_w1": _sst(64, 8, lambda i: (1, i)),
        "sst_f32_halfwarp_col_pad0_w1": _sst(32, 4, lambda i: (i, 7), half),
    }
    del lane_
    for name, fn in sld.items():
        out[name] = (fn, w1)
    out["sld_f32_pred_if_b256"] = (_pred_if_s, b256)
    out["sld_f32_pred2_b256"] = (_pred2_s, b256)
    # shared atomics: the zeroing STS and the sink store (ATOMS is op_atom, not ld/st)
    for name in ("satom_u32_contig_w1", "satom_u32_same_w1"):
        out[name] = (lambda w: [WarpOp("s", "st", 4, [t * 4 for t in w.tx]),
                                WarpOp("g", "st", 4, [t * 4 for t in w.tid])], w1)
    for pad in (0, 1, 2):
        out[f"transpose_tiled_pad{pad}_64x64"] = (_transpose(pad, 64, 64, "tiled"), lambda: warps_2d(2, 2))
        out[f"transpose_tiled_pad{pad}_33x45"] = (_transpose(pad, 33, 45, "tiled"), lambda: warps_2d(2, 2))
    out["transpose_naive_64x64"] = (_transpose(0, 64, 64, "naive"), lambda: warps_2d(2, 2))
    out["copy_64x64"] = (_transpose(0, 64, 64, "copy"), lambda: warps_2d(2, 2))
    return out


def model() -> dict[str, dict[str, int]]:
    """Contract metrics the model predicts, per kernel."""
    result = {}
    for name, (ops, warps) in kernels().items():
        c = Counters()
        for w in warps():
            for op in ops(w):
                c.add(op)
        result[name] = c.values
    return result


def compare(measured: dict, predicted: dict[str, dict[str, int]]) -> list[tuple[str, str, int, object]]:
    """(kernel, metric, model, measured) for every contract metric where they differ or one is missing."""
    diffs = []
    for name, values in predicted.items():
        got = measured.get(name)
        for metric, want in values.items():
            have = None if got is None else got.get(metric)
            if have != want:
                diffs.append((name, metric, want, have))
    return diffs


def _table(predicted: dict, measured: dict | None, markdown: bool) -> str:
    cols = list(CONTRACT)
    head = ["kernel"] + [SHORT[c] for c in cols]
    lines = []
    if markdown:
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    else:
        lines.append(f"{head[0]:32s}" + "".join(f"{h:>9s}" for h in head[1:]))
    for name, values in predicted.items():
        cells = []
        for c in cols:
            want = values[c]
            have = None if measured is None else measured.get(name, {}).get(c)
            if measured is None or have == want:
                cells.append(str(want))
            else:
                cells.append(f"**{have}** (model {want})" if markdown else f"{have}!={want}")
        if markdown:
            lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
        else:
            lines.append(f"{name:32s}" + "".join(f"{x:>9s}" for x in cells))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=HERE / "results.json")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--model-only", action="store_true")
    args = ap.parse_args(argv)
    predicted = model()
    measured = None
    if not args.model_only:
        try:
            measured = json.loads(args.results.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            print(f"expected.py: cannot read {args.results}: {exc}", file=sys.stderr)
            return 2
    print(_table(predicted, measured, args.markdown))
    if measured is not None:
        diffs = compare(measured, predicted)
        kernels_off = sorted({d[0] for d in diffs})
        print(f"\n{len(diffs)} metric values differ from the model, in {len(kernels_off)} kernels: "
              + ", ".join(kernels_off))
    return 0


if __name__ == "__main__":
    sys.exit(main())
