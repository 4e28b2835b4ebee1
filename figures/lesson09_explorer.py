"""The bank-conflict explorer: padding, element type, row or column access, XOR swizzle, column → heatmap.

``bank_explorer()`` is the ipywidgets version in Jupyter; every change runs a one-warp labsim kernel
(:func:`figures.lesson09_kernels.tile_access`) and redraws. During the site build it returns the static explorer
instead (:func:`static_bank_explorer`: the same views precomputed by labsim over the whole control grid, see
:mod:`figures.static_explorer`). ``variant_grid()`` draws a fixed set of views as one figure. Both show
labsim's output, never a drawing made by hand.

The column control matters: a read of ``__half tile[32][33]`` is conflict-free at even columns and costs two
wavefronts at odd ones, so the readout gives the chosen column's count and the worst and average over all 32.
"""
from __future__ import annotations

import functools
from typing import Sequence

import numpy as np
from matplotlib.figure import Figure

from ._fonts import t
from . import static_explorer as se
from .lessonkit import pure_figure
from .heatmap import (DEGREE_BOUNDS, DEGREE_COLORS, DEGREE_LABELS, bank_degrees, draw_bank_heatmap,
                      draw_bank_heatmaps, min_wavefronts, wavefront_caption)
from .lesson09_kernels import CTYPES, DTYPES, TILE_DIM, tile_access

PADDINGS = range(0, 5)
INDICES = range(0, TILE_DIM)
ACCESSES = ("column", "row")


def describe(pad: int, dtype: str, access: str, swizzle: bool, index: int = 0) -> str:
    """The C declaration and access the view shows, e.g. '__half tile[32][33]，按列读 tile[k][7]'."""
    decl = f"{CTYPES[dtype]} tile[{TILE_DIM}][{TILE_DIM + pad}]"
    how = t(f"按列读 tile[k][{index}]", f"column read tile[k][{index}]") if access == "column" else \
        t(f"按行读 tile[{index}][k]", f"row read tile[{index}][k]")
    return decl + (t(" + XOR 混洗", " + XOR swizzle") if swizzle else "") + t("，", ", ") + how


def explorer_view(pad: int = 0, dtype: str = "float32", access: str = "column", swizzle: bool = False,
                  index: int = 0, ax=None) -> Figure:
    """One explorer view: run the tiny labsim kernel and draw its heatmap."""
    wa = tile_access(pad, dtype, access, swizzle, index=index)
    return draw_bank_heatmap(wa, ax=ax, title=describe(pad, dtype, access, swizzle, index))


@functools.lru_cache(maxsize=4096)
def _access(pad: int, dtype: str, access: str, swizzle: bool, index: int):
    return tile_access(pad, dtype, access, swizzle, index=index)


@functools.lru_cache(maxsize=256)
def per_index_wavefronts(pad: int, dtype: str, access: str, swizzle: bool) -> tuple[int, ...]:
    """labsim's wavefront count of the access at each of the 32 columns (rows for ``access="row"``); once per
    setting (the static explorer asks it again for each of the 32 indices)."""
    return tuple(int(_access(pad, dtype, access, swizzle, i).wavefronts) for i in INDICES)


def readout(pad: int, dtype: str, access: str, swizzle: bool, index: int) -> dict:
    """The numbers the explorer shows: this column's wavefronts, the worst and average over all columns."""
    counts = per_index_wavefronts(pad, dtype, access, swizzle)
    worst = max(counts)
    return {"wavefronts": counts[index], "ideal": min_wavefronts(int(np.dtype(DTYPES[dtype]).itemsize)),
            "worst": worst, "worst_index": counts.index(worst), "average": round(sum(counts) / len(counts), 3),
            "per_index": counts}


def readout_text(r: dict, access: str) -> str:
    what = t("列", "column") if access == "column" else t("行", "row")
    return t(f"本{what}：{r['wavefronts']} 个 wavefront（无冲突最少 {r['ideal']} 个）；32 {what}中最坏 {r['worst']} 个"
             f"（第 {r['worst_index']} {what}），平均 {r['average']:g} 个",
             f"this {what}: {r['wavefronts']} wavefronts (conflict-free minimum {r['ideal']}); over the 32 "
             f"{what}s: worst {r['worst']} ({what} {r['worst_index']}), average {r['average']:g}")


@pure_figure
def variant_grid(variants: Sequence[tuple] | None = None, ncols: int = 4) -> Figure:
    """Pre-rendered explorer views: (pad, dtype, access, swizzle[, column]) each; default three element types ×
    unpadded, +1 at column 0, +1 at column 7 (where ``__half tile[32][33]`` conflicts) and swizzled."""
    if variants is None:
        variants = [(pad, dt, "column", sw, col) for dt in DTYPES
                    for pad, sw, col in ((0, False, 0), (1, False, 0), (1, False, 7), (0, True, 0))]
    full = [tuple(v) + (0,) * (5 - len(v)) for v in variants]
    accesses = [tile_access(p, d, a, s, index=i) for p, d, a, s, i in full]
    titles = [describe(p, d, a, s, i) for p, d, a, s, i in full]
    return draw_bank_heatmaps(accesses, titles, ncols=ncols, panel_size=3.6)


def _static_view(pad: int, dtype: str, access: str, swizzle: bool, index: int) -> dict:
    wa = _access(pad, dtype, access, swizzle, index)
    deg = bank_degrees(wa)
    r = readout(pad, dtype, access, swizzle, index)
    lanes, banks = np.nonzero(deg)
    what = t("列", "column") if access == "column" else t("行", "row")
    return {
        "heatmap": {"title": describe(pad, dtype, access, swizzle, index),
                    "cells": np.stack([lanes, banks, deg[lanes, banks]], axis=1).ravel().tolist()},
        "columns": {"values": list(r["per_index"]),
                    "title": t(f"每{what}的 wavefront 数（橙色：当前{what}）", f"wavefronts per {what} (orange: this one)")},
        "wavefronts": r["wavefronts"],
        "ideal": r["ideal"], "worst": r["worst"], "worst_index": r["worst_index"], "average": r["average"],
        "caption": wavefront_caption(wa),
    }


def static_bank_explorer(key: str = "lesson09-bank-explorer") -> se.StaticExplorer:
    """The static-site explorer: every (padding, type, access, swizzle, column) view precomputed by labsim."""
    c_half_odd = {"pad": 1, "dtype": "float16", "access": "column", "swizzle": False, "index": 7}
    parts = [
        se.Number("wavefronts", t("本列/行的 wavefront", "wavefronts here")),
        se.Number("ideal", t("无冲突最少", "conflict-free minimum")),
        se.Number("worst", t("32 列/行中最坏", "worst of 32")),
        se.Number("worst_index", t("最坏的列/行号", "worst at index")),
        se.Number("average", t("32 列/行平均", "average of 32")),
        se.Text("caption"),
        se.Heatmap("heatmap", rows=32, cols=32, bounds=DEGREE_BOUNDS, colors=DEGREE_COLORS, legend=DEGREE_LABELS,
                   xlabel="bank", ylabel="lane", label=t("冲突路数", "conflict degree")),
        se.Bars("columns", xlabel=t("列/行号", "index"), ylabel="wavefront", highlight="index"),
    ]
    controls = [
        se.Slider("pad", t("填充（元素）", "padding"), PADDINGS),
        se.Select("dtype", t("元素类型", "element"), [(d, f"{CTYPES[d]} ({d})") for d in DTYPES]),
        se.Radio("access", t("访问", "access"), [("column", t("按列 tile[k][c]", "column tile[k][c]")),
                                                 ("row", t("按行 tile[c][k]", "row tile[c][k]"))]),
        se.Checkbox("swizzle", t("XOR 混洗", "XOR swizzle")),
        se.Slider("index", t("列/行号 c", "index c"), INDICES),
    ]
    presets = [(t("__half +1 填充，第 7 列", "__half +1 pad, column 7"), c_half_odd),
               (t("__half +1 填充，第 6 列", "__half +1 pad, column 6"), dict(c_half_odd, index=6)),
               (t("__half XOR 混洗，第 7 列", "__half XOR swizzle, column 7"), dict(c_half_odd, pad=0, swizzle=True))]
    return se.StaticExplorer(controls, parts, _static_view,
                             title=t("bank 冲突探索器（labsim 预先算好的全部组合）", "bank-conflict explorer (precomputed by labsim)"),
                             presets=presets, key=key)


def bank_explorer():
    """An ipywidgets panel: padding 0–4, element type, row/column, swizzle, column 0–31 → heatmap and counts.

    In Jupyter (a live kernel) every change reruns labsim. While ``python -m coursebuild`` builds the static
    site it returns :func:`static_bank_explorer` instead (no kernel on a web page): ``se.choose``, as every
    lesson's explorer does.
    """
    return se.choose(static_bank_explorer, _widget_explorer)


def _widget_explorer():
    import ipywidgets as w
    from IPython.display import display

    pad = w.IntSlider(value=0, min=min(PADDINGS), max=max(PADDINGS), description=t("填充", "padding"),
                      continuous_update=False)
    dtype = w.Dropdown(options=[(f"{CTYPES[d]} ({d})", d) for d in DTYPES], value="float32",
                       description=t("元素类型", "element"))
    access = w.ToggleButtons(options=[(t("按列", "column"), "column"), (t("按行", "row"), "row")],
                             value="column", description=t("访问", "access"))
    swizzle = w.Checkbox(value=False, description=t("XOR 混洗", "XOR swizzle"))
    index = w.IntSlider(value=0, min=min(INDICES), max=max(INDICES), description=t("列/行号", "index"),
                        continuous_update=False)
    status = w.HTML()
    out = w.Output()

    def redraw(**kw) -> None:
        wa = tile_access(kw["pad"], kw["dtype"], kw["access"], kw["swizzle"], index=kw["index"])
        r = readout(**kw)
        status.value = f"<b>labsim</b>：{wavefront_caption(wa)}<br>{readout_text(r, kw['access'])}"
        with out:
            out.clear_output(wait=True)
            display(draw_bank_heatmap(wa, title=describe(**kw)))

    controls = w.VBox([pad, dtype, access, swizzle, index, status])
    w.interactive_output(redraw, {"pad": pad, "dtype": dtype, "access": access, "swizzle": swizzle,
                                  "index": index})
    return w.HBox([controls, out])
