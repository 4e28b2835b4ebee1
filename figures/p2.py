"""Prelude P2 (memory coalescing): every number, table and sector map the lesson shows, computed on labsim.

A lesson cell calls one of these functions and shows the result (a :class:`figures.table.Table` or a matplotlib
Figure); measurements come from ``measurements/h200/`` and say "not recorded" where a file is missing.
The explorer's values over its whole control grid come from :func:`explorer_values` (labsim, one warp per
setting), so the static page and the Jupyter widget show the same counts.
"""
from __future__ import annotations

import itertools
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from matplotlib.figure import Figure

from labsim import launch
from labsim.launch_records import WarpAccess
from labsim.memory import FLOAT4

from . import lessonkit as kit
from . import recordings
from .recordings import measurements_dir  # noqa: F401  (tests read the raw files beside the recordings)
from ._fonts import t
from ._resources import exercise_template
from .lesson09_kernels import BLOCK_ROWS, TILE_DIM, instr, run_transpose
from .sectors import PAGE_WIDTH_IN, draw_sector_map, sector_matrix
from .table import Table

SECTOR = 32
WARP = 32
ELEMENTS = {2: ("__half", np.dtype(np.float16)), 4: ("float", np.dtype(np.float32)),
            8: ("double", np.dtype(np.float64)), 16: ("float4", FLOAT4)}


def _recorded(name: str, path: str | Path | None = None) -> dict:
    """An H200 recording (figures.recordings: the repo's measurements/h200/ or the kit's bundle), {} if absent."""
    return recordings.read(name, path) or {}


# ---------------------------------------------------------------------------------------------------------
# one warp, one load: the unit everything else is built from
# ---------------------------------------------------------------------------------------------------------
def one_warp(offsets: Sequence[int], itemsize: int = 4, active: Sequence[bool] | None = None,
             op: str = "ld") -> WarpAccess:
    """Run one warp on labsim: lane k loads (or stores) the ``itemsize``-byte element at element index
    ``offsets[k]`` of a 256-byte aligned array (as cudaMalloc's are); returns the warp's WarpAccess."""
    if itemsize not in ELEMENTS:
        raise ValueError(f"itemsize must be one of {sorted(ELEMENTS)} bytes, got {itemsize}")
    offs = np.asarray(offsets, dtype=np.int64)
    if offs.shape != (WARP,):
        raise ValueError(f"offsets must give one element index per lane (32), got shape {offs.shape}")
    if (offs < 0).any():
        raise ValueError(f"offsets must be non-negative element indices, got {offs.min()}")
    act = np.ones(WARP, bool) if active is None else np.asarray(active, dtype=bool)
    if act.shape != (WARP,):
        raise ValueError(f"active must give one flag per lane (32), got shape {act.shape}")
    dtype = ELEMENTS[itemsize][1]
    buf = np.zeros((int(offs.max()) + 1) * itemsize // 4 + 4, dtype=np.float32)

    def kernel(blk, data, offs, act):
        with blk.where(act[blk.lane]):
            if op == "ld":
                blk.load(data, offs[blk.lane] * itemsize, view=dtype, name="data", line=1)
            else:
                blk.store(data, offs[blk.lane] * itemsize, np.zeros(WARP, dtype), view=dtype, name="data", line=1)

    stats = launch(kernel, grid=1, block=WARP, args=(buf, offs, act), name="one_warp")
    if not stats.instructions or stats.instructions[0].sample is None:   # no active lane: no request
        return WarpAccess("global", op, 1, "data", itemsize, (0, 0, 0), 0, act, offs * itemsize)
    return stats.instructions[0].sample


def moved_bytes(wa: WarpAccess) -> int:
    """Bytes the warp's sectors carry between L1/L2: sectors x 32."""
    return int(wa.sectors) * int(wa.sector_bytes)


def requested_bytes(wa: WarpAccess) -> int:
    """Bytes the active lanes asked for (a broadcast counts every lane's copy, as Nsight Compute does)."""
    return int(np.count_nonzero(wa.active)) * int(wa.itemsize)


def efficiency(wa: WarpAccess) -> float:
    """Requested / moved bytes, in percent (above 100 only when lanes share bytes, e.g. a broadcast)."""
    moved = moved_bytes(wa)
    return 100.0 * requested_bytes(wa) / moved if moved else 0.0


def rand_table(n: int = WARP) -> list[int]:
    """The random indices measurements/h200/microbench.cu used (LCG 1664525, 1013904223, seed 12345,
    index (x >> 8) % 1024), so labsim sees the addresses the H200 saw."""
    x, out = 12345, []
    for _ in range(n):
        x = (1664525 * x + 1013904223) & 0xFFFFFFFF
        out.append((x >> 8) % 1024)
    return out


# (key, label, element bytes, element index of lane k, H200 kernel in measurements/h200/results.json)
SEED_PATTERNS: tuple[tuple[str, str, int, Callable[[np.ndarray], np.ndarray], str], ...] = (
    ("contig", t("连续：lane k 读第 k 个 float", "contiguous float"), 4, lambda k: k, "gld_f32_contig_w1"),
    ("offset1", t("错位 1 个元素：读第 k+1 个", "offset by one"), 4, lambda k: k + 1, "gld_f32_offset1_w1"),
    ("stride2", t("跨 2 个元素", "stride 2"), 4, lambda k: 2 * k, "gld_f32_stride2_w1"),
    ("stride4", t("跨 4 个元素", "stride 4"), 4, lambda k: 4 * k, "gld_f32_stride4_w1"),
    ("stride8", t("跨 8 个元素（32 B）", "stride 8 (32 B)"), 4, lambda k: 8 * k, "gld_f32_stride8_w1"),
    ("stride32", t("跨 32 个元素（128 B）", "stride 32 (128 B)"), 4, lambda k: 32 * k, "gld_f32_stride32_w1"),
    ("broadcast", t("广播：全部读第 0 个", "broadcast"), 4, lambda k: 0 * k, "gld_f32_broadcast_w1"),
    ("random", t("随机下标（4 KiB 内）", "random (within 4 KiB)"), 4,
     lambda k: np.asarray(rand_table(), dtype=np.int64)[k], "gld_f32_random_w1"),
    ("f64", t("连续读 double（8 B）", "contiguous double"), 8, lambda k: k, "gld_f64_contig_w1"),
    ("f32x4", t("连续读 float4（16 B）", "contiguous float4"), 16, lambda k: k, "gld_f32x4_contig_w1"),
)
_PATTERNS = {p[0]: p for p in SEED_PATTERNS}

SECTORS_LD = kit.metric("global", "ld", "cost")
REQUESTS_LD = kit.metric("global", "ld", "requests")


def pattern_access(key: str) -> WarpAccess:
    """One warp of one of the seed's ten access patterns, on labsim."""
    if key not in _PATTERNS:
        raise ValueError(f"unknown pattern {key!r}; choose one of {', '.join(_PATTERNS)}")
    _, _, size, index, _ = _PATTERNS[key]
    return one_warp(index(np.arange(WARP)), size)


def h200_pattern_sectors(path: str | Path | None = None) -> dict[str, float | None]:
    """Recorded H200 sectors per request of each seed pattern (None where not recorded)."""
    rec = _recorded("round1", path)
    rec = rec.get("results", rec)
    out = {}
    for key, *_, kernel in SEED_PATTERNS:
        m = rec.get(kernel) or {}
        sec, req = m.get(SECTORS_LD), m.get(REQUESTS_LD)
        out[key] = sec / req if isinstance(sec, (int, float)) and req else None
    return out


def _pct(x: float) -> str:
    return f"{x:.1f}".rstrip("0").rstrip(".") + "%"


def pattern_table(path: str | Path | None = None) -> Table:
    """The seed's ten patterns, one warp each: sectors per request, bytes asked and moved, efficiency, and the
    H200's recorded sectors per request for the same addresses."""
    h200 = h200_pattern_sectors(path)
    rows = []
    for key, label, size, _, kernel in SEED_PATTERNS:
        wa = pattern_access(key)
        meas = h200[key]
        rows.append([label, size, int(wa.sectors), requested_bytes(wa), moved_bytes(wa), _pct(efficiency(wa)),
                     NOT_RECORDED if meas is None else meas,
                     "" if meas is None else (t("一致", "same") if meas == wa.sectors else t("不同", "differs"))])
    recorded = any(v is not None for v in h200.values())
    notes = [t("H200 一列：measurements/h200/results.json（Nsight Compute 2025.3，每个模式一个 warp 的内核 "
               "gld_*_w1，sector 数 ÷ 请求数）。", "H200: measurements/h200/results.json (gld_*_w1 kernels).")
             if recorded else t("本机没有 H200 记录（measurements/h200/results.json），只显示 labsim。",
                                "no H200 recording here; labsim only.")]
    return Table([t("访问模式（一个 warp 的一条 load）", "pattern (one warp, one load)"), t("元素字节", "bytes/elem"),
                  t("labsim：sector/请求", "labsim sectors/req"), t("线程要的字节", "bytes asked"),
                  t("搬的字节（sector × 32）", "bytes moved"), t("效率", "efficiency"),
                  t("H200 实测", "H200"), t("对照", "check")], rows,
                 caption=t("labsim：一个 warp 读 32 个元素，碰到几个 32 字节 sector（H200 实测也是 sector/请求）", "labsim: one warp's load"),
                 notes=notes)


def sector_map_grid(accesses: Sequence[WarpAccess], titles: Sequence[str], ncols: int = 3) -> Figure:
    """Several sector maps in a grid (rows of ``ncols``, as many as fit the page's width); each panel is labsim's
    count for its access. A panel too narrow to label each sector's used bytes labels the strip once."""
    n = len(accesses)
    if n == 0 or len(titles) != n:
        raise ValueError(f"sector_map_grid needs as many titles as accesses, got {n} and {len(titles)}")
    panel = 2.3
    ncols = max(1, min(ncols, n, int((PAGE_WIDTH_IN - 0.6) // panel)))
    nrows = -(-n // ncols)
    width, height = panel * ncols + 0.6, 5.6 * nrows
    # fixed margins instead of constrained layout: measuring every tick label of 10 panels doubles the build time
    fig = Figure(figsize=(width, height))
    fig.subplots_adjust(left=0.7 / width, right=1 - 0.1 / width, bottom=0.75 / height,
                        top=1 - 1.3 / height, wspace=0.5, hspace=2.2 / 5.6)
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for i, ax in enumerate(axes.flat):
        if i < n:
            draw_sector_map(accesses[i], ax=ax, title=titles[i])
        else:
            ax.set_visible(False)
    return fig


@kit.pure_figure
def pattern_sector_maps(keys: Sequence[str] | None = None, ncols: int = 3) -> Figure:
    """Sector maps of the seed's patterns (default all ten), drawn from labsim's WarpAccess."""
    keys = list(keys) if keys is not None else [p[0] for p in SEED_PATTERNS]
    return sector_map_grid([pattern_access(k) for k in keys], [_PATTERNS[k][1] for k in keys], ncols=ncols)


# ---------------------------------------------------------------------------------------------------------
# the explorer: stride, offset, element size, active lanes -> sector map, sectors, efficiency
# ---------------------------------------------------------------------------------------------------------
STRIDES = (0, 1, 2, 3, 4, 8, 16, 32)
OFFSETS = (0, 1, 2, 3, 4, 8)
SIZES = (2, 4, 8, 16)
MASKS: dict[str, tuple[str, Callable[[np.ndarray], np.ndarray]]] = {
    "all": (t("全部 32 个 lane", "all 32 lanes"), lambda k: np.ones_like(k, bool)),
    "lower16": (t("前 16 个 lane", "lanes 0-15"), lambda k: k < 16),
    "upper16": (t("后 16 个 lane", "lanes 16-31"), lambda k: k >= 16),
    "odd": (t("奇数 lane", "odd lanes"), lambda k: k % 2 == 1),
    "edge13": (t("前 13 个 lane（N = 45 的右边缘）", "lanes 0-12 (right edge, N = 45)"), lambda k: k < 13),
    "lane0": (t("只有 lane 0（N = 33 的右边缘）", "lane 0 only (right edge, N = 33)"), lambda k: k == 0),
}


def explorer_access(stride: int = 1, offset: int = 0, itemsize: int = 4, mask: str = "all") -> WarpAccess:
    """One explorer setting on labsim: lane k reads element ``offset + stride * k`` of ``itemsize`` bytes."""
    if mask not in MASKS:
        raise ValueError(f"unknown lane mask {mask!r}; choose one of {', '.join(MASKS)}")
    if stride < 0 or offset < 0:
        raise ValueError(f"stride and offset must be non-negative, got stride={stride}, offset={offset}")
    k = np.arange(WARP)
    return one_warp(offset + stride * k, itemsize, MASKS[mask][1](k))


def describe_setting(stride: int, offset: int, itemsize: int, mask: str, sep: str = "，") -> str:
    """The C expression and lanes a setting stands for, e.g. 'float：lane k 读 a[1 + 2·k]，全部 32 个 lane'."""
    ctype = ELEMENTS[itemsize][0]
    step = "k" if stride == 1 else f"{stride}·k"
    expr = f"{offset}" if stride == 0 else f"{offset} + {step}" if offset else step
    return t(f"{ctype}：lane k 读 a[{expr}]{sep}{MASKS[mask][0]}", f"{ctype}: lane k reads a[{expr}]{sep}{MASKS[mask][0]}")


def explorer_record(stride: int, offset: int, itemsize: int, mask: str) -> dict:
    """What the explorer shows for one setting (plain JSON values): labsim's sectors per request, bytes
    asked and moved, efficiency, and each lane's sector relative to the lowest one (-1: inactive lane)."""
    wa = explorer_access(stride, offset, itemsize, mask)
    return {"stride": stride, "offset": offset, "itemsize": itemsize, "mask": mask,
            "sectors": int(wa.sectors), "requested": requested_bytes(wa), "moved": moved_bytes(wa),
            "efficiency": round(efficiency(wa), 1), "lane_sector": [int(s) for s in wa.sector_ids()],
            "label": describe_setting(stride, offset, itemsize, mask)}


def explorer_values(strides: Sequence[int] = STRIDES, offsets: Sequence[int] = OFFSETS,
                    sizes: Sequence[int] = SIZES, masks: Sequence[str] = tuple(MASKS)) -> dict:
    """labsim's values over the explorer's whole control grid, ready to embed as JSON in the static page:
    ``{"controls": {...}, "records": {"stride,offset,itemsize,mask": record}}``."""
    records = {}
    for s, o, z, m in itertools.product(strides, offsets, sizes, masks):
        records[f"{s},{o},{z},{m}"] = explorer_record(s, o, z, m)
    return {"controls": {"stride": list(strides), "offset": list(offsets), "itemsize": list(sizes),
                         "mask": {m: MASKS[m][0] for m in masks}},
            "records": records}


def explorer_view(stride: int = 1, offset: int = 0, itemsize: int = 4, mask: str = "all") -> Figure:
    """One explorer setting drawn as a sector map (labsim)."""
    wa = explorer_access(stride, offset, itemsize, mask)
    return sector_map_grid([wa], [describe_setting(stride, offset, itemsize, mask, sep="\n")], ncols=1)


EXPLORER_PRESETS = ((1, 0, 4, "all"), (1, 1, 4, "all"), (2, 0, 4, "all"), (1, 0, 2, "all"), (1, 0, 16, "all"),
                    (1, 0, 4, "edge13"), (1, 1, 4, "upper16"), (8, 0, 4, "odd"), (1, 0, 8, "lane0"),
                    (3, 0, 4, "all"))


def explorer_presets_figure(presets: Sequence[tuple[int, int, int, str]] = EXPLORER_PRESETS) -> Figure:
    """Pre-rendered explorer settings (labsim) for pages without a live kernel."""
    return sector_map_grid([explorer_access(*p) for p in presets], [describe_setting(*p, sep="\n") for p in presets])


def explorer_table(presets: Sequence[tuple[int, int, int, str]] = EXPLORER_PRESETS) -> Table:
    """The explorer's numbers for the preset settings, as a table."""
    rows = []
    for p in presets:
        r = explorer_record(*p)
        rows.append([r["label"], r["sectors"], r["requested"], r["moved"], _pct(r["efficiency"])])
    return Table([t("设置", "setting"), t("sector/请求", "sectors/req"), t("要的字节", "asked"),
                  t("搬的字节", "moved"), t("效率", "efficiency")], rows,
                 caption=t("labsim：探索器的几个设置", "labsim: explorer settings"))


def lane_bytes(wa: WarpAccess) -> tuple[np.ndarray, np.ndarray]:
    """(lanes × touched-sector bytes matrix, used bytes per touched sector) of one warp's access."""
    m, rel = sector_matrix(wa)
    used = np.zeros(m.shape[1], dtype=np.int64)
    act = np.asarray(wa.active, bool)
    if m.shape[1]:
        sb = int(wa.sector_bytes)
        byte = np.unique((wa.addr[act][:, None] + np.arange(int(wa.itemsize))).ravel())
        base = int((wa.addr[act] // sb).min())
        used = np.array([np.count_nonzero(byte // sb - base == r) for r in rel], dtype=np.int64)
    return m, used


BYTE_BOUNDS = (0.5, 2.5, 4.5, 8.5, 16.5)
BYTE_COLORS = ("#c6dbef", "#6baed6", "#3182bd", "#08519c")


def explorer_state(stride: int, offset: int, itemsize: int, mask: str) -> dict:
    """One state of the static explorer (plain JSON): labsim's counts, the lane × sector map, used bytes."""
    wa = explorer_access(stride, offset, itemsize, mask)
    m, _ = lane_bytes(wa)
    lanes, cols = np.nonzero(m)
    return {
        "sectors": int(wa.sectors), "requested": requested_bytes(wa), "moved": moved_bytes(wa),
        "efficiency": _pct(efficiency(wa)), "label": describe_setting(stride, offset, itemsize, mask),
        "map": {"title": t("lane × sector：lane 在该 sector 里要的字节", "lane × sector: bytes the lane reads"),
                "cells": np.stack([lanes, cols, m[lanes, cols]], axis=1).ravel().tolist()},
    }


def static_coalescing_explorer(key: str = "p2-coalescing-explorer") -> "object":
    """The static-site explorer: every (stride, offset, element size, lane mask) precomputed by labsim."""
    from . import static_explorer as se
    parts = [
        se.Number("sectors", "sector"),
        se.Number("requested", t("要的 B", "asked B")),
        se.Number("moved", t("搬的 B", "moved B")),
        se.Number("efficiency", t("效率", "efficiency")),
        se.Text("label"),
        se.Heatmap("map", rows=WARP, cols=WARP, bounds=BYTE_BOUNDS, colors=BYTE_COLORS,
                   legend=["2 B", "4 B", "8 B", "16 B"], xlabel=t("sector（相对编号）", "sector"),
                   ylabel="lane", label=t("lane 要的字节", "bytes per lane")),
    ]
    controls = [
        se.Slider("stride", t("跨度（元素）", "stride"), list(STRIDES), value=1),
        se.Slider("offset", t("偏移（元素）", "offset"), list(OFFSETS), value=0),
        se.Radio("itemsize", t("元素", "element"), [(z, f"{ELEMENTS[z][0]} ({z} B)") for z in SIZES], value=4),
        se.Select("mask", t("活跃 lane", "active lanes"), [(m, label) for m, (label, _) in MASKS.items()], value="all"),
    ]
    presets = [(describe_setting(*p), dict(zip(("stride", "offset", "itemsize", "mask"), p)))
               for p in ((1, 1, 4, "all"), (1, 0, 4, "edge13"), (1, 1, 8, "all"), (8, 0, 4, "odd"))]
    return se.StaticExplorer(controls, parts, explorer_state,
                             title=t("合并访存探索器（labsim 预先算好的全部组合）", "coalescing explorer (precomputed by labsim)"),
                             presets=presets, key=key)


def coalescing_explorer():
    """The explorer: stride, offset, element size, active lanes -> sector map and labsim's counts.

    In Jupyter an ipywidgets panel reruns the one-warp labsim kernel (:func:`explorer_access`) on every change;
    while ``python -m coursebuild`` builds the static site it is :func:`static_coalescing_explorer` instead.
    """
    from . import static_explorer as se
    return se.choose(static_coalescing_explorer, widgets=_widget_explorer)


def _widget_explorer():
    import ipywidgets as w
    from IPython.display import display

    stride = w.SelectionSlider(options=list(STRIDES), value=1, description=t("跨度（元素）", "stride"),
                               continuous_update=False)
    offset = w.SelectionSlider(options=list(OFFSETS), value=0, description=t("偏移（元素）", "offset"),
                               continuous_update=False)
    size = w.ToggleButtons(options=[(f"{ELEMENTS[z][0]} ({z} B)", z) for z in SIZES], value=4,
                           description=t("元素", "element"))
    mask = w.Dropdown(options=[(label, m) for m, (label, _) in MASKS.items()], value="all",
                      description=t("活跃 lane", "active lanes"))
    status = w.HTML()
    out = w.Output()

    def redraw(stride, offset, itemsize, mask) -> None:
        r = explorer_record(stride, offset, itemsize, mask)
        status.value = t(f"<b>labsim</b>：{r['sectors']} 个 sector/请求，要 {r['requested']} B，搬 {r['moved']} B，"
                         f"效率 {_pct(r['efficiency'])}",
                         f"<b>labsim</b>: {r['sectors']} sectors, {r['requested']} B asked, {r['moved']} B moved")
        with out:
            out.clear_output(wait=True)
            display(explorer_view(stride, offset, itemsize, mask))

    w.interactive_output(redraw, {"stride": stride, "offset": offset, "itemsize": size, "mask": mask})
    return w.HBox([w.VBox([stride, offset, size, mask, status]), out])


# ---------------------------------------------------------------------------------------------------------
# the 2-D mapping explorer: row width, the warp's shape in the matrix, where the warp sits
# ---------------------------------------------------------------------------------------------------------
MAP_WIDTHS = (32, 33, 40, 45, 46, 48, 64, 96)      # N: the matrix's row width in floats
MAP_SHAPES = (32, 16, 8, 4, 2, 1)                  # W: a warp covers 32 / W rows × W adjacent columns
MAP_COLS = (0, 32)                                 # the column the warp starts at (32: the second block column)
MAP_ROWS = (0, 1, 2, 3)                            # the row the warp starts at
# buttons on the page; none of them is a question's setting (tests/lessons/test_p2_questions_first.py)
MAPPING_PRESETS = ({"N": 64, "width": 32, "col0": 0, "row0": 0}, {"N": 64, "width": 1, "col0": 0, "row0": 0},
                   {"N": 45, "width": 32, "col0": 32, "row0": 1}, {"N": 33, "width": 32, "col0": 32, "row0": 0})


def mapping_access(N: int = 64, width: int = 32, col0: int = 0, row0: int = 0) -> WarpAccess:
    """One warp of a float matrix with rows of ``N`` elements, on labsim: lane k reads element (row0 + k // width,
    col0 + k % width); lanes whose column is not < N are inactive (the kernel's bounds check)."""
    if width not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"width must divide 32 (1, 2, 4, 8, 16 or 32), got {width}")
    if N < 1 or col0 < 0 or row0 < 0:
        raise ValueError(f"N must be positive and col0, row0 non-negative, got N={N}, col0={col0}, row0={row0}")
    k = np.arange(WARP)
    row, col = row0 + k // width, col0 + k % width
    act = col < N
    return one_warp(np.where(act, row * N + col, 0), 4, act)


def describe_mapping(N: int, width: int, col0: int, row0: int) -> str:
    rows = WARP // width
    return t(f"N = {N}：warp 从 ({row0}, {col0}) 起，覆盖 {rows} 行 × {width} 列",
             f"N = {N}: warp from ({row0}, {col0}), {rows} rows × {width} columns")


def mapping_state(N: int, width: int, col0: int, row0: int) -> dict:
    """One state of the mapping explorer (plain JSON): labsim's counts, 128-byte lines, the lane × sector map."""
    wa = mapping_access(N, width, col0, row0)
    act = np.asarray(wa.active, bool)
    lines = int(np.unique(np.asarray(wa.addr, dtype=np.int64)[act] // 128).size) if act.any() else 0
    m, _ = lane_bytes(wa)
    lanes, cols = np.nonzero(m)
    return {"sectors": int(wa.sectors), "lines": lines, "active": int(act.sum()), "requested": requested_bytes(wa),
            "moved": moved_bytes(wa), "efficiency": _pct(efficiency(wa)), "label": describe_mapping(N, width, col0, row0),
            "map": {"title": t("lane × sector：lane 在该 sector 里要的字节", "lane × sector: bytes the lane reads"),
                    "cells": np.stack([lanes, cols, m[lanes, cols]], axis=1).ravel().tolist()}}


def static_mapping_explorer(key: str = "p2-mapping-explorer") -> "object":
    """The static-site mapping explorer: every (N, warp shape, start column, start row) precomputed by labsim."""
    from . import static_explorer as se
    parts = [se.Number("sectors", "sector"), se.Number("lines", t("128 字节 line", "128-B lines")),
             se.Number("active", t("活跃 lane", "active lanes")), se.Number("efficiency", t("效率", "efficiency")),
             se.Text("label"),
             se.Heatmap("map", rows=WARP, cols=WARP, bounds=BYTE_BOUNDS, colors=BYTE_COLORS,
                        legend=["2 B", "4 B", "8 B", "16 B"], xlabel=t("sector（相对编号）", "sector"),
                        ylabel="lane", label=t("lane 要的字节", "bytes per lane"))]
    controls = [
        se.Select("N", t("行宽 N（float）", "row width N"), [(n, str(n)) for n in MAP_WIDTHS], value=64),
        se.Select("width", t("warp 的形状（行 × 列）", "warp shape"),
                  [(w, f"{WARP // w} × {w}") for w in MAP_SHAPES], value=32),
        se.Radio("col0", t("起始列", "first column"), [(c, str(c)) for c in MAP_COLS], value=0),
        se.Radio("row0", t("起始行", "first row"), [(r, str(r)) for r in MAP_ROWS], value=0),
    ]
    presets = [(describe_mapping(**p), dict(p)) for p in MAPPING_PRESETS]
    return se.StaticExplorer(controls, parts, mapping_state,
                             title=t("二维映射探索器（labsim 预先算好的全部组合）", "2-D mapping explorer (precomputed by labsim)"),
                             presets=presets, key=key)


def mapping_explorer():
    """The 2-D mapping explorer: a warp of ``32 / W`` rows × ``W`` columns of a float matrix with rows of N
    elements, starting at (row0, col0), lanes past column N inactive -> sectors, 128-byte lines, efficiency.
    Jupyter: ipywidgets rerunning :func:`mapping_access` on labsim; the site build: :func:`static_mapping_explorer`."""
    from . import static_explorer as se
    return se.choose(static_mapping_explorer, widgets=_widget_mapping_explorer)


def _widget_mapping_explorer():
    import ipywidgets as w
    from IPython.display import display

    n = w.Dropdown(options=list(MAP_WIDTHS), value=64, description=t("行宽 N", "row width N"))
    shape = w.Dropdown(options=[(f"{WARP // x} × {x}", x) for x in MAP_SHAPES], value=32,
                       description=t("warp 形状", "warp shape"))
    col0 = w.ToggleButtons(options=list(MAP_COLS), value=0, description=t("起始列", "first column"))
    row0 = w.ToggleButtons(options=list(MAP_ROWS), value=0, description=t("起始行", "first row"))
    status, out = w.HTML(), w.Output()

    def redraw(N, width, col0, row0) -> None:
        r = mapping_state(N, width, col0, row0)
        status.value = t(f"<b>labsim</b>：{r['active']} 个活跃 lane，{r['sectors']} 个 sector/请求，{r['lines']} 条 128 字节 line，"
                         f"效率 {r['efficiency']}", f"<b>labsim</b>: {r['sectors']} sectors, {r['lines']} lines")
        with out:
            out.clear_output(wait=True)
            display(sector_map_grid([mapping_access(N, width, col0, row0)],
                                    [describe_mapping(N, width, col0, row0)], ncols=1))

    w.interactive_output(redraw, {"N": n, "width": shape, "col0": col0, "row0": row0})
    return w.HBox([w.VBox([n, shape, col0, row0, status]), out])


# ---------------------------------------------------------------------------------------------------------
# array of structs vs struct of arrays; 2-D row vs column
# ---------------------------------------------------------------------------------------------------------
def h200_p2(kernel: str, path: str | Path | None = None) -> float | None:
    """Recorded H200 load sectors per request of one kernel of measurements/h200/p2/ (None: not recorded)."""
    m = _recorded("p2", path).get("kernels", {}).get(kernel) or {}
    sec, req = m.get(SECTORS_LD), m.get(REQUESTS_LD)
    return sec / req if isinstance(sec, (int, float)) and req else None


NOT_RECORDED = kit.NOT_RECORDED     # the recording is absent (the lessons' marker)
NOT_RUN = kit.NOT_RUN               # recorded, but the H200 did not run this case


def _line_rows(stats, labels: dict[int, tuple[str, float | None]]) -> list[list]:
    rows = []
    for s in sorted((s for s in stats.instructions if s.space == "global"), key=lambda s: s.line):
        label, h200 = labels[s.line]
        moved = s.cost * SECTOR
        rows.append([label, s.cost / s.requests, s.bytes_requested // s.requests, moved // s.requests,
                     _pct(100.0 * s.bytes_requested / moved), NOT_RECORDED if h200 is None else h200])
    return rows


_LINE_HEADERS = [t("每请求要的字节", "bytes asked/req"), t("每请求搬的字节", "bytes moved/req"), t("效率", "efficiency"),
                 t("H200 实测：sector/请求", "H200 sectors/req")]


def aos_soa_table(n: int = 64 * 256, path: str | Path | None = None) -> Table:
    """Points {float x, y, z} (12 bytes) as an array of structs or a struct of arrays, and a 16-byte struct read
    as one float4 (labsim; the H200 column: measurements/h200/p2/, the same kernels and launch)."""
    aos = np.zeros(3 * n, np.float32)                 # struct {float x, y, z;} p[n]
    xs, ys, zs = (np.zeros(n, np.float32) for _ in range(3))
    aos4 = np.zeros(4 * n, np.float32)                # struct {float x, y, z, w;} q[n]

    def aos_x(blk, p):
        i = blk.bx * blk.bdx + blk.tx
        blk.load(p, 3 * i, name="p", line=1)                        # p[i].x only

    def aos_xyz(blk, p):
        i = blk.bx * blk.bdx + blk.tx
        for f in range(3):
            blk.load(p, 3 * i + f, name="p", line=2 + f)            # p[i].x, .y, .z: three loads

    def soa_xyz(blk, x, y, z):
        i = blk.bx * blk.bdx + blk.tx
        for f, arr in enumerate((x, y, z)):
            blk.load(arr, i, name="xyz"[f], line=5 + f)

    def aos_vec(blk, q):
        i = blk.bx * blk.bdx + blk.tx
        blk.load(q, 16 * i, view=FLOAT4, name="q", line=8)          # the whole 16-byte struct as one float4

    xyz = h200_p2("p2_aos3_xyz", path)
    runs = [
        (aos_x, (aos,), {1: (t("AoS：只读 p[i].x", "AoS: p[i].x only"), h200_p2("p2_aos3_x", path))}),
        (aos_xyz, (aos,), {2 + f: (t(f"AoS：读 p[i].{c}（三个字段各一条 load）", f"AoS: p[i].{c}"), xyz)
                           for f, c in enumerate("xyz")}),
        (soa_xyz, (xs, ys, zs), {5 + f: (t(f"SoA：读 {c}[i]", f"SoA: {c}[i]"), h200_p2("p2_soa3_xyz", path))
                                 for f, c in enumerate("xyz")}),
        (aos_vec, (aos4,), {8: (t("16 字节的结构体 {x, y, z, w} 一次读成 float4", "16-byte struct as float4"),
                                h200_p2("p2_f32x4_contig", path))}),
    ]
    rows = []
    for kern, args, labels in runs:
        rows += _line_rows(launch(kern, grid=n // 256, block=256, args=args), labels)
    return Table([t("布局与访问（一个 warp 的一条 load）", "layout and access"), t("sector/请求", "sectors/req"),
                  *_LINE_HEADERS], rows,
                 caption=t(f"labsim：{n} 个点，每个 {{float x, y, z}} 12 字节；block 256 个线程，线程 i 处理点 i",
                           f"labsim: {n} points of three floats"),
                 notes=[t("H200 一列：measurements/h200/p2/results.json（同样的内核和启动；三个字段的那一行是三条 load 的平均）。",
                          "H200: measurements/h200/p2/results.json")])


def row_col_table(M: int = 256, N: int = 256, path: str | Path | None = None) -> Table:
    """A row-major M×N float matrix read by 2-D blocks: which thread index runs along a warp decides the stride."""
    a = np.zeros(M * N, np.float32)
    square = M == N == 256                            # the size measurements/h200/p2/ ran
    cases = [
        ((32, 8), "x_col", t("block(32, 8)，col = threadIdx.x：warp 沿一行读", "block(32,8), col from threadIdx.x"),
         h200_p2("p2_2d_row", path) if square else NOT_RUN),
        ((32, 8), "x_row", t("block(32, 8)，row = threadIdx.x：warp 沿一列读", "block(32,8), row from threadIdx.x"),
         h200_p2("p2_2d_col", path) if square else NOT_RUN),
        ((16, 16), "x_col", t("block(16, 16)，col = threadIdx.x：warp 读两行各 16 个", "block(16,16), col from x"), NOT_RUN),
        ((8, 32), "x_col", t("block(8, 32)，col = threadIdx.x：warp 读四行各 8 个", "block(8,32), col from x"), NOT_RUN),
    ]
    rows = []
    for block, how, label, h200 in cases:
        def kernel(blk, a, M, N, how=how):
            fast = blk.bx * blk.bdx + blk.tx
            slow = blk.by * blk.bdy + blk.ty
            row, col = (slow, fast) if how == "x_col" else (fast, slow)
            with blk.where((row < M) & (col < N)):
                blk.load(a, row * N + col, name="a", line=1)
        st = launch(kernel, grid=(-(-N // block[0]), -(-M // block[1])), block=block, args=(a, M, N))
        rows += _line_rows(st, {1: (label, h200)})
    return Table([t("线程到元素的映射", "thread-to-element mapping"), t("sector/请求", "sectors/req"), *_LINE_HEADERS],
                 rows, caption=t(f"labsim：读一个 {M}×{N} 的行主序 float 矩阵的元素 a[row][col]",
                                 f"labsim: reading a {M}×{N} row-major float matrix"),
                 notes=[t("H200 一列：measurements/h200/p2/results.json（p2_2d_row、p2_2d_col，256×256）；"
                          "—：H200 上没有运行这种映射或尺寸。", "H200: measurements/h200/p2/results.json; —: not run there")])


SCRIPT_KERNELS = ("p2_contig", "p2_offset1", "p2_stride2", "p2_stride4", "p2_stride8", "p2_stride32", "p2_broadcast",
                  "p2_random", "p2_f64_contig", "p2_f32x4_contig")


SCRIPT = "lessons/prelude/02_memory_coalescing.py"     # the P2 script, in the repo
SCRIPT_DATA = "_kitdata/02_memory_coalescing.py"      # its copy in the student kit's figures/ (package data)


def script_module():
    """The P2 script as a module (its demo 1: ``access_patterns``, ``gather_kernel``): the student kit's copy
    (package data, written by the kit's build), else the repo's lessons/prelude/ script."""
    import importlib.resources
    import importlib.util
    import sys as _sys
    res = importlib.resources.files(__package__).joinpath(SCRIPT_DATA)
    with importlib.resources.as_file(res) as packaged:
        script = packaged if packaged.is_file() else Path(__file__).resolve().parents[1] / SCRIPT
        if not script.is_file():
            raise FileNotFoundError(f"the P2 script is neither package data ({SCRIPT_DATA}) nor at {script}")
        spec = importlib.util.spec_from_file_location("_p2_script", script)
        mod = importlib.util.module_from_spec(spec)
        argv, _sys.argv = _sys.argv, [str(script)]      # the script reads --quick from argv at import
        try:
            spec.loader.exec_module(mod)
        finally:
            _sys.argv = argv
    return mod


def script_launch_table(path: str | Path | None = None) -> Table:
    """The P2 script's demo 1 as the script launches it (64 blocks × 256 threads, its own random indices):
    labsim's sectors and requests next to the H200's (measurements/h200/p2/)."""
    mod = script_module()
    rec = _recorded("p2", path).get("kernels", {})
    n_blocks, threads = 64, 256
    rows = []
    for (name, arr, index_of), kernel in zip(mod.access_patterns(n_blocks * threads), SCRIPT_KERNELS):
        st = launch(mod.gather_kernel, grid=(n_blocks,), block=(threads,), args=(arr, index_of))
        m = rec.get(kernel) or {}
        h_sec, h_req = m.get(SECTORS_LD), m.get(REQUESTS_LD)
        rows.append([name, st.gld_instr, st.gld_sectors, NOT_RECORDED if h_req is None else h_req,
                     NOT_RECORDED if h_sec is None else h_sec,
                     "" if h_sec is None else (t("一致", "same") if (h_sec, h_req) == (st.gld_sectors, st.gld_instr)
                                               else t("不同", "differs"))])
    return Table([t("模式（脚本的演示 1）", "pattern (script demo 1)"), t("labsim：请求", "labsim requests"),
                  t("labsim：sector", "labsim sectors"), t("H200：请求", "H200 requests"), t("H200：sector", "H200 sectors"),
                  t("对照", "check")], rows,
                 caption=t(f"脚本的启动：{n_blocks} 个 block × {threads} 个线程", "the script's launch"),
                 notes=[t("H200：measurements/h200/p2/results.json（p2.cu 用脚本自己的随机下标）。", "H200: p2/results.json")])


@kit.pure_figure
def row_col_sector_maps(M: int = 256, N: int = 256) -> Figure:
    """Sector maps of one warp reading along a row and along a column of a row-major matrix (labsim)."""
    along_row = one_warp(np.arange(WARP), 4)
    along_col = one_warp(np.arange(WARP) * N, 4)
    return sector_map_grid([along_row, along_col],
                           [t("沿一行：a[row * N + k]", "along a row"), t(f"沿一列：a[k * N + col]，N = {N}", "along a column")],
                           ncols=2)


# ---------------------------------------------------------------------------------------------------------
# the transpose: counts, and time estimates next to measurements
# ---------------------------------------------------------------------------------------------------------
TRANSPOSES = (
    ("copy", "copy", {}, t("copy（基线，不转置）", "copy (baseline)")),
    ("naive", "transpose_naive", {}, t("朴素转置（读行、写列）", "naive transpose")),
    ("tiled", "transpose_tiled_pad0", {"pad": 0}, t("分块，tile[32][32]", "tiled, tile[32][32]")),
    ("tiled", "transpose_tiled_pad1", {"pad": 1}, t("分块，tile[32][33]", "tiled, tile[32][33]")),
)


def _eff(s) -> float:
    return 100.0 * s.bytes_requested / (s.cost * SECTOR) if s.cost else 0.0


def transpose_counts_table(n: int = 256) -> Table:
    """Copy, naive and tiled transposes: loads and stores counted apart (sectors per request and efficiency
    of the global load and store; wavefronts per request of the shared store and load)."""
    rows = []
    for kind, _, opts, label in TRANSPOSES:
        st, a, b = run_transpose(kind, n, n, **opts)
        gl, gs = instr(st, "global", "ld"), instr(st, "global", "st")
        sh = {s.op: s for s in st.instructions if s.space == "shared"}
        ok = np.array_equal(b, a if kind == "copy" else a.T)
        rows.append([label, gl.cost / gl.requests, _pct(_eff(gl)), gs.cost / gs.requests, _pct(_eff(gs)),
                     sh["st"].cost / sh["st"].requests if "st" in sh else "—",
                     sh["ld"].cost / sh["ld"].requests if "ld" in sh else "—",
                     t("对", "right") if ok else t("错", "wrong")])
    return Table([t("内核", "kernel"), t("全局读：sector/请求", "load sectors/req"), t("读效率", "load eff."),
                  t("全局写：sector/请求", "store sectors/req"), t("写效率", "store eff."),
                  t("写 tile：wavefront/请求", "tile store wf/req"), t("读 tile：wavefront/请求", "tile load wf/req"),
                  t("结果", "result")], rows,
                 caption=t(f"labsim：{n}×{n} float 矩阵，block 32×{BLOCK_ROWS}，每个 block 搬一块 {TILE_DIM}×{TILE_DIM}",
                           f"labsim: {n}×{n} float, block 32×{BLOCK_ROWS}"))


# ---------------------------------------------------------------------------------------------------------
# the worked demo, predictions, and the exercise's kernel run on labsim.cuda
# ---------------------------------------------------------------------------------------------------------
def lane_sector_table(key: str = "offset1", lanes: Sequence[int] | None = None) -> Table:
    """Lane by lane for one seed pattern: element, byte address, sector number (address // 32)."""
    wa = pattern_access(key)
    elem = np.asarray(_PATTERNS[key][3](np.arange(WARP)), dtype=np.int64)
    base = int(wa.addr[0]) - int(elem[0]) * wa.itemsize      # the array's device address (256-byte aligned)
    rel = wa.addr - base
    lanes = list(range(WARP)) if lanes is None else list(lanes)
    rows = [[k, int(elem[k]), int(rel[k]), int(rel[k]) // SECTOR] for k in lanes]
    rows.append([t("合计", "total"), "", "", t(f"{int(wa.sectors)} 个不同的 sector", f"{int(wa.sectors)} sectors")])
    return Table([t("lane", "lane"), t("元素下标", "element"), t("字节地址（相对数组起点）", "byte address"),
                  t("sector = 地址 ÷ 32（取整）", "sector = addr // 32")], rows,
                 caption=t(f"labsim：{_PATTERNS[key][1]}，数组起点按 256 字节对齐", f"labsim: {key}"))


PREDICTIONS = ((3, 0, 4, "all"), (1, 1, 8, "all"), (2, 0, 2, "all"), (1, 0, 4, "edge13"), (32, 0, 4, "lower16"))


def prediction_table(show_answers: bool = False,
                     settings: Sequence[tuple[int, int, int, str]] = PREDICTIONS) -> Table:
    """Settings to predict before looking; with ``show_answers``, labsim's sectors and efficiency."""
    rows = []
    for s in settings:
        r = explorer_record(*s)
        rows.append([r["label"], r["sectors"] if show_answers else "?",
                     _pct(r["efficiency"]) if show_answers else "?"])
    return Table([t("设置", "setting"), t("sector/请求", "sectors/req"), t("效率", "efficiency")], rows,
                 caption=t("先预测，再用探索器或下面的答案核对（labsim）", "predict, then check (labsim)"))


EXERCISE_SHAPE = (32, 256)       # the template's (TILE, THREADS)


def exercise_source(blank: str, tile: int | None = None, threads: int | None = None) -> str:
    """The P2 exercise's CUDA source (grading's template) with the blank filled and, optionally, another block
    width TILE or block size THREADS; line numbers never shift."""
    path = exercise_template("p2")
    src = path.read_text(encoding="utf-8")
    if src.count("______") != 1:
        raise ValueError(f"{path}: expected exactly one blank ______")
    src = src.replace("______", blank)
    for name, v in (("TILE", tile), ("THREADS", threads)):
        if v is None:
            continue
        old = next(ln for ln in src.splitlines() if ln.startswith(f"constexpr int {name} ="))
        head, _, comment = old.partition(";")
        src = src.replace(old, f"constexpr int {name} = {int(v)};{comment}")
    return src


def run_exercise(M: int, N: int, blank: str, tile: int | None = None, threads: int | None = None,
                 seed: int = 0, alpha: float = 2.0):
    """Compile the exercise kernel with labsim.cuda and run its host launcher on a random M×N matrix;
    returns (result, input, output); elements never written stay NaN."""
    from labsim.cuda import compile as compile_cuda
    prog = compile_cuda(exercise_source(blank, tile, threads), "p2_scale.cu")
    a = np.random.default_rng(seed).standard_normal((M, N)).astype(np.float32)
    b = np.full_like(a, np.nan)
    res = prog.call("launch_scale", a, b, M, N, np.float32(alpha), 0)
    return res, a, b


def _global(res, op: str):
    return next(s for s in res.instructions if s.space == "global" and s.op == op)


def _lines_of_sample(s) -> int:
    """128-byte lines (4 sectors each) one recorded warp of instruction ``s`` touched."""
    wa = s.sample
    act = np.asarray(wa.active, bool)
    return int(np.unique(np.asarray(wa.addr, dtype=np.int64)[act] // 128).size)


def exercise_table(blanks: Sequence[str], M: int = 64, N: int = 96,
                   shapes: Sequence[tuple[int, int]] = (EXERCISE_SHAPE,)) -> Table:
    """The exercise kernel on labsim for several fills and (TILE, THREADS): result, load and store sectors per
    request and efficiency, and the 128-byte lines one warp's load touches."""
    rows = []
    for blank in blanks:
        for tile, threads in shapes:
            res, a, b = run_exercise(M, N, blank, tile, threads)
            ld, st = _global(res, "ld"), _global(res, "st")
            rows.append([f"e = {blank}", f"TILE {tile}，THREADS {threads}",
                         t("对", "right") if np.array_equal(b, np.float32(2.0) * a) else t("错", "wrong"),
                         ld.requests, round(ld.cost / ld.requests, 2), _pct(_eff(ld)), _lines_of_sample(ld),
                         round(st.cost / st.requests, 2), _pct(_eff(st))])
    return Table([t("填空", "blank"), t("块", "block"), t("结果", "result"), t("读 in：请求数", "load requests"),
                  t("读 in：sector/请求", "load sectors/req"), t("读效率", "load eff."),
                  t("一个 warp 读 in 碰到的 128 字节 line", "128-B lines (one warp)"),
                  t("写 out：sector/请求", "store sectors/req"), t("写效率", "store eff.")], rows,
                 caption=t(f"labsim.cuda：练习的内核，{M}×{N} 矩阵", f"labsim.cuda: the exercise kernel, {M}×{N}"))


def edge_table(N: int = 46, rows_: Sequence[int] = (0, 1, 2, 3)) -> Table:
    """The right-edge warp of the exercise (block column 1, N not a multiple of 32): active lanes and sectors
    of its load, row by row, run on labsim."""
    out = []
    lanes = np.arange(WARP)
    for r in rows_:
        col = 32 + lanes
        act = col < N
        wa = one_warp(np.where(act, r * N + col, 0), 4, act)
        first, last = (r * N + 32) * 4, (r * N + N) * 4 - 1
        out.append([r, int(act.sum()), f"{first}–{last}", int(wa.sectors), requested_bytes(wa), moved_bytes(wa),
                    _pct(efficiency(wa))])
    return Table([t("row", "row"), t("活跃 lane", "active lanes"), t("读的字节地址", "bytes read"),
                  t("sector/请求", "sectors/req"), t("要的字节", "asked"), t("搬的字节", "moved"), t("效率", "efficiency")],
                 out, caption=t(f"labsim：N = {N} 时 blockIdx.x = 1 的 warp（col = 32..{N - 1} 活跃）读 in",
                                f"labsim: right-edge warp, N = {N}"))


# ---------------------------------------------------------------------------------------------------------
# the offset and stride sweep: efficiency per request next to the H200's time and traffic
# ---------------------------------------------------------------------------------------------------------
def sweep_warp(sweep: str, s: int) -> WarpAccess:
    """One warp of the sweep's copy on labsim: lane k loads element ``s + k`` ("offset") or ``s * k``
    ("stride"). Every warp of the launch has this pattern shifted by a multiple of 128 bytes (32 lanes × 4 B, or
    × s), so warp 0 stands for all of them."""
    if sweep not in ("offset", "stride"):
        raise ValueError(f"sweep must be 'offset' or 'stride', got {sweep!r}")
    k = np.arange(WARP)
    return one_warp(s + k if sweep == "offset" else s * k, 4)


def h200_sweep(path: str | Path | None = None) -> dict:
    """measurements/h200/round3's sweep ({} when not recorded): {"points": {(sweep, s): timing},
    "ncu": {(sweep, s): counters}, "what", "source", "meta"}."""
    data = _recorded("round3_sweep", path)
    if not data:
        return {}
    points = {(p["sweep"], int(p["s"])): p for p in data.get("points", [])}
    ncu = {(sw, int(s)): m for sw, by in data.get("ncu", {}).items() for s, m in by.items()}
    return {"points": points, "ncu": ncu, "what": data.get("what", ""), "source": data.get("source", ""),
            "meta": data.get("meta", {})}


def sweep_table(path: str | Path | None = None) -> Table:
    """The copy's offset and stride sweep at the points Nsight Compute counted: labsim's sectors per request and
    efficiency per request, beside the H200's bandwidth, L1 hits, L2 read sectors and DRAM read bytes."""
    rec = h200_sweep(path)
    keys = sorted(rec.get("ncu", {}), key=lambda k: (k[0] != "offset", k[1])) or \
        [("offset", s) for s in (0, 1, 2, 4, 8, 16, 32)] + [("stride", s) for s in (1, 2, 4, 8, 16, 32)]
    base = {"offset": ("offset", 0), "stride": ("stride", 1)}
    rows = []
    for sweep, s in keys:
        wa = sweep_warp(sweep, s)
        label = t(f"错位：out[i + {s}] = in[i + {s}]", f"offset {s}") if sweep == "offset" else \
            t(f"跨步：out[{s}·i] = in[{s}·i]", f"stride {s}")
        p, m = rec.get("points", {}).get((sweep, s)), rec.get("ncu", {}).get((sweep, s))
        b = rec.get("ncu", {}).get(base[sweep])
        if p and m and b:
            hit = m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"]
            l1 = m[SECTORS_LD]
            l2 = m["lts__t_sectors_srcunit_tex_op_read.sum"]
            rows.append([label, int(wa.sectors), _pct(efficiency(wa)), round(l1 / m[REQUESTS_LD], 2),
                         round(p["gbps_median"]), _pct(100.0 * hit / l1),
                         f"{l2 / b['lts__t_sectors_srcunit_tex_op_read.sum']:.2f}×",
                         round(m["dram__bytes_read.sum"] / 2**20)])
        else:
            rows.append([label, int(wa.sectors), _pct(efficiency(wa)), NOT_RECORDED, "", "", "", ""])
    meta = rec.get("meta", {})
    notes = [t("本机没有 measurements/h200/round3 的记录：H200 各列未记录。", "not recorded")]
    if rec:
        pts = rec["points"]
        runs = {p["runs"] for p in pts.values()}
        threads = {sw: next(p["threads"] for (s, _), p in pts.items() if s == sw) for sw in ("offset", "stride")}
        per = {p["bytes_used"] // p["threads"] for p in pts.values()}
        notes = [t(f"H200：{rec['source']}，{meta.get('date', '?')}，nvcc {meta.get('nvcc', '?')}（{meta.get('nvcc_flags', '')}），"
                   f"Nsight Compute {meta.get('ncu', '?')}。错位一组 {threads['offset'] // 2**20} Mi 个线程、"
                   f"跨步一组 {threads['stride'] // 2**20} Mi 个线程；GB/s = 每个线程 {'、'.join(str(b) for b in sorted(per))} 字节（读一个 float、写一个 float）÷ 中位时间，"
                   f"每点计时 {'、'.join(str(r) for r in sorted(runs))} 次（CUDA events，先预热）。",
                   "H200: measurements/h200/round3")]
    if rec:
        notes.append(t("L2 读 sector 以每组第一行（错位 0、跨 1）为 1；DRAM 读取的字节包括写入时从显存补齐部分 sector "
                       "的读（measurements/h200/round3/README.md 的推断）。", "L2 sectors relative to the first row of each sweep"))
    return Table([t("访问（256 线程的 block，每个线程复制一个 float）", "access"), t("labsim：sector/请求", "labsim sectors/req"),
                  t("每请求效率", "efficiency per request"), t("H200：L1 读 sector/请求", "H200 L1 ld sectors/req"),
                  t("H200：GB/s（中位数）", "H200 GB/s"), t("L1 命中的读 sector", "L1 hit sectors"),
                  t("L2 读 sector（相对）", "L2 read sectors (rel.)"), t("DRAM 读（MiB）", "DRAM read MiB")], rows,
                 caption=t("错位和跨步的 copy：每请求的效率（labsim）与 H200 上的时间和流量",
                           "offset and stride copy: efficiency per request vs the H200's time and traffic"),
                 notes=notes)


@kit.pure_figure
def sweep_figure(path: str | Path | None = None) -> Figure:
    """H200 bandwidth of every recorded sweep point next to labsim's efficiency per request (two panels)."""
    rec = h200_sweep(path)
    fig = Figure(figsize=(min(PAGE_WIDTH_IN, 9.0), 3.4), layout="constrained")
    axes = fig.subplots(1, 2)
    for ax, sweep, xs in ((axes[0], "offset", range(0, 33)), (axes[1], "stride", range(1, 33))):
        eff = [efficiency(sweep_warp(sweep, s)) for s in xs]
        gb = [rec["points"][(sweep, s)]["gbps_median"] if rec and (sweep, s) in rec["points"] else np.nan for s in xs]
        base = gb[0]
        ax.plot(list(xs), eff, "o-", ms=3, color="#3182bd", label=t("每请求效率（labsim）", "efficiency per request"))
        ax.plot(list(xs), [100.0 * g / base for g in gb], "s-", ms=3, color="#d95f02",
                label=t("H200 带宽（相对第一个点）", "H200 bandwidth (rel.)"))
        ax.set_ylim(0, 110)
        ax.set_xlabel(t("错位（元素）", "offset (elements)") if sweep == "offset" else t("跨度（元素）", "stride (elements)"))
        ax.set_ylabel("%")
        ax.set_title(t("错位 0–32", "offset 0-32") if sweep == "offset" else t("跨步 1–32", "stride 1-32"))
        ax.grid(alpha=0.3)
    axes[0].legend(loc="lower left", fontsize=8)
    return fig
