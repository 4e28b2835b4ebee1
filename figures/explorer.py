"""The bank-conflict explorer: padding, element type, row or column access, XOR swizzle → heatmap.

``bank_explorer()`` is the ipywidgets version for Jupyter; every change runs a one-warp labsim kernel
(:func:`figures.kernels.tile_access`) and redraws. ``variant_grid()`` draws a fixed set of the same views for
pages without a live kernel (the static site), so both show labsim's output, never a drawing made by hand.
"""
from __future__ import annotations

from typing import Sequence

from matplotlib.figure import Figure

from ._fonts import t
from .heatmap import draw_bank_heatmap, draw_bank_heatmaps, wavefront_caption
from .kernels import CTYPES, DTYPES, TILE_DIM, tile_access

PADDINGS = range(0, 5)


def describe(pad: int, dtype: str, access: str, swizzle: bool) -> str:
    """The C declaration and access the view shows, e.g. '__half tile[32][33]，按列读'."""
    decl = f"{CTYPES[dtype]} tile[{TILE_DIM}][{TILE_DIM + pad}]"
    how = t("按列读 tile[k][0]", "column read tile[k][0]") if access == "column" else \
        t("按行读 tile[0][k]", "row read tile[0][k]")
    return decl + (t(" + XOR 混洗", " + XOR swizzle") if swizzle else "") + t("，", ", ") + how


def explorer_view(pad: int = 0, dtype: str = "float32", access: str = "column", swizzle: bool = False,
                  ax=None) -> Figure:
    """One explorer view: run the tiny labsim kernel and draw its heatmap."""
    wa = tile_access(pad, dtype, access, swizzle)
    return draw_bank_heatmap(wa, ax=ax, title=describe(pad, dtype, access, swizzle))


def variant_grid(variants: Sequence[tuple[int, str, str, bool]] | None = None, ncols: int = 3) -> Figure:
    """Pre-rendered explorer views (default: three element types × unpadded, +1 and swizzled, column reads)."""
    if variants is None:
        variants = [(pad, dt, "column", sw) for dt in DTYPES for pad, sw in ((0, False), (1, False), (0, True))]
    accesses = [tile_access(p, d, a, s) for p, d, a, s in variants]
    titles = [describe(p, d, a, s) for p, d, a, s in variants]
    return draw_bank_heatmaps(accesses, titles, ncols=ncols, panel_size=3.6)


def bank_explorer():
    """An ipywidgets panel: padding 0–4, element type, row/column, swizzle → heatmap and wavefront count.

    Needs a Jupyter frontend with widgets; the static site shows :func:`variant_grid` instead.
    """
    import ipywidgets as w
    from IPython.display import display

    pad = w.IntSlider(value=0, min=min(PADDINGS), max=max(PADDINGS), description=t("填充", "padding"),
                      continuous_update=False)
    dtype = w.Dropdown(options=[(f"{CTYPES[d]} ({d})", d) for d in DTYPES], value="float32",
                       description=t("元素类型", "element"))
    access = w.ToggleButtons(options=[(t("按列", "column"), "column"), (t("按行", "row"), "row")],
                             value="column", description=t("访问", "access"))
    swizzle = w.Checkbox(value=False, description=t("XOR 混洗", "XOR swizzle"))
    status = w.HTML()
    out = w.Output()

    def redraw(**kw) -> None:
        wa = tile_access(kw["pad"], kw["dtype"], kw["access"], kw["swizzle"])
        status.value = f"<b>labsim</b>：{wavefront_caption(wa)}"
        with out:
            out.clear_output(wait=True)
            display(draw_bank_heatmap(wa, title=describe(**kw)))

    controls = w.VBox([pad, dtype, access, swizzle, status])
    w.interactive_output(redraw, {"pad": pad, "dtype": dtype, "access": access, "swizzle": swizzle})
    return w.HBox([controls, out])
