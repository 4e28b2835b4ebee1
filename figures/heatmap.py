"""Warp-to-bank heatmaps: which of the 32 shared-memory banks each lane of one warp instruction touches.

A cell (lane, bank) is coloured by the *conflict degree* of that bank: how many distinct 4-byte words the
bank must deliver, one after another, in the phase the lane belongs to (lanes reading the same word share it:
a broadcast). The title carries the instruction's wavefront count as labsim computed it. The figure only
reads a :class:`labsim.launch_records.WarpAccess`; the cost model itself stays in labsim.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import BoundaryNorm, ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ._fonts import t

# Conflict degree bins: 1 (free), 2, 3-4, 5-8, 9-16, 17-32.
DEGREE_BOUNDS = (0.5, 1.5, 2.5, 4.5, 8.5, 16.5, 32.5)
DEGREE_LABELS = ("1", "2", "3–4", "5–8", "9–16", "17–32")
DEGREE_COLORS = ("#74c476", "#fee391", "#fec44f", "#fe9929", "#d95f0e", "#7f2704")
_CMAP = ListedColormap(DEGREE_COLORS)
_NORM = BoundaryNorm(DEGREE_BOUNDS, _CMAP.N)
INACTIVE_COLOR = "#d9d9d9"


def _phase_lanes(itemsize: int) -> int:
    from labsim.launch_records import phase_lanes  # the model's phase rule, not a copy of it
    return phase_lanes(itemsize)


def _check_shared_access(wa: object, what: str) -> None:
    needed = ("space", "itemsize", "active", "addr", "words", "wavefronts", "bank_matrix")
    # the class first: hasattr on the instance would compute a property (wavefronts counts the access)
    missing = [n for n in needed if not (hasattr(type(wa), n) or hasattr(wa, n))]
    if missing:
        raise TypeError(f"{what} needs a labsim WarpAccess (one warp's shared-memory access); got "
                        f"{type(wa).__name__}, which lacks {', '.join(missing)}")
    if wa.space != "shared":
        raise ValueError(f"{what} draws shared-memory accesses; this WarpAccess is a {wa.space} access "
                         f"({wa!r}); use figures.sectors.draw_sector_map for global memory")


def bank_degrees(warp_access) -> np.ndarray:
    """Lanes × banks int matrix: the conflict degree of each bank a lane touches (0 where it touches none).

    The degree is the number of distinct words that bank serves within the lane's group (the whole warp
    for accesses up to 4 bytes, half-warps for 8 bytes, quarter-warps for 16 bytes).

    Limitations: the picture shows each group on its own; labsim's count (the title) also lets two adjacent
    groups of a load share wavefronts when their banks are disjoint, as measured on the H200.
    """
    _check_shared_access(warp_access, "bank_degrees")
    wa = warp_access
    nbanks = int(getattr(wa, "banks_n", 32))
    per_phase = _phase_lanes(int(wa.itemsize))
    k = max(1, int(wa.itemsize) // int(getattr(wa, "bank_bytes", 4)))   # words per lane
    words = np.asarray(wa.words, dtype=np.int64)[:, None] + np.arange(k)  # (32, k)
    active = np.asarray(wa.active, dtype=bool)
    out = np.zeros((32, nbanks), dtype=np.int64)
    for start in range(0, 32, per_phase):
        lanes = np.arange(start, start + per_phase)
        lanes = lanes[active[lanes]]
        if lanes.size == 0:
            continue
        distinct = np.unique(words[lanes].ravel())
        degree = np.bincount(distinct % nbanks, minlength=nbanks)
        banks = (words[lanes] % nbanks).ravel()           # each lane's banks (a repeated one writes the same)
        out[np.repeat(lanes, k), banks] = degree[banks]
    return out


def min_wavefronts(itemsize: int) -> int:
    """Wavefronts of a conflict-free full-warp access of this element size (1, 2 or 4), per labsim."""
    from labsim.launch_records import min_wavefronts as _mw
    return int(_mw(int(itemsize)))


def _auto_title(wa) -> str:
    op = t("读", "load") if wa.op in ("ld", "load", "read") else t("写", "store")
    line = f" {t('第', 'line ')}{wa.line}{t(' 行', '')}" if wa.line is not None else ""
    return f"{wa.array}{line} {t('的共享内存', 'shared ')}{op}"


def bank_conflicts(warp_access) -> int:
    """Nsight Compute's bank-conflict count for this one warp access, as labsim's model gives it."""
    from labsim.launch_records import wavefronts_per_warp
    wa = warp_access
    _, conflicts = wavefronts_per_warp(
        np.asarray(wa.addr, dtype=np.int64).reshape(1, 32), np.asarray(wa.active, dtype=bool).reshape(1, 32),
        int(wa.itemsize), int(getattr(wa, "banks_n", 32)), int(getattr(wa, "bank_bytes", 4)),
        op="st" if wa.op == "st" else "ld", return_conflicts=True)
    return int(conflicts[0])


def wavefront_caption(warp_access) -> str:
    """'W 个 wavefront，其中 C 个是 bank conflict' as labsim counts them for this access."""
    w, c = int(warp_access.wavefronts), bank_conflicts(warp_access)
    if c == 0:
        return t(f"{w} 个 wavefront，无 bank conflict", f"{w} wavefronts, no bank conflict")
    return t(f"{w} 个 wavefront，其中 {c} 个是 bank conflict", f"{w} wavefronts, {c} of them bank conflicts")


def draw_bank_heatmap(warp_access, ax: Axes | None = None, title: str | None = None,
                      colorbar: bool = True) -> Figure | None:
    """Draw one warp instruction's lanes × banks heatmap; returns the Figure.

    ``warp_access`` is a labsim ``WarpAccess`` of a shared-memory access (e.g. ``report.heatmap`` from the
    lesson's check, or ``stats.instructions[i].sample``). ``None`` (no access to show, e.g. the check could
    not run the kernel) prints a short note and returns None instead of failing.
    """
    if warp_access is None:
        print(t("（没有可画的共享内存访问：检查没有运行到你的内核。）",
                "(no shared-memory access to draw: the check did not run your kernel)"))
        return None
    _check_shared_access(warp_access, "draw_bank_heatmap")
    wa = warp_access
    deg = bank_degrees(wa)
    nbanks = deg.shape[1]
    if ax is None:
        fig = Figure(figsize=(6.2, 6.0), layout="constrained")
        ax = fig.subplots()
    fig = ax.figure

    active = np.asarray(wa.active, dtype=bool)
    inactive = np.broadcast_to(np.where(active[:, None], np.nan, 1.0), deg.shape)
    ax.imshow(inactive, cmap=ListedColormap([INACTIVE_COLOR]), vmin=0, vmax=1, aspect="equal",
              extent=(-0.5, nbanks - 0.5, 31.5, -0.5), interpolation="nearest")
    shown = np.ma.masked_equal(deg, 0)
    im = ax.imshow(shown, cmap=_CMAP, norm=_NORM, aspect="equal", interpolation="nearest",
                   extent=(-0.5, nbanks - 0.5, 31.5, -0.5))
    im.set_gid("bank-degrees")
    ax.set_xlabel("bank")
    ax.set_ylabel(t("lane（warp 内线程号）", "lane"))
    ax.set_xticks(range(0, nbanks, 4))
    ax.set_yticks(range(0, 32, 4))
    # cell borders as plain lines: minor ticks would cost a text layout per tick at every save
    ax.vlines(np.arange(-0.5, nbanks, 1), -0.5, 31.5, colors="white", linewidth=0.4)
    ax.hlines(np.arange(-0.5, 32, 1), -0.5, nbanks - 0.5, colors="white", linewidth=0.4)
    per_phase = _phase_lanes(int(wa.itemsize))
    for start in range(per_phase, 32, per_phase):
        ax.axhline(start - 0.5, color="black", linewidth=1.2)
    if per_phase < 32:
        for p, start in enumerate(range(0, 32, per_phase)):
            ax.text(nbanks - 1, start + per_phase - 1, t(f"第 {p + 1} 组", f"group {p + 1}"), ha="right",
                    va="bottom", fontsize=7, bbox=dict(facecolor="white", alpha=0.8, linewidth=0, pad=1))

    # per-bank strip: the worst degree of each bank over the phases
    strip = ax.inset_axes((0.0, -0.15, 1.0, 1.6 / 32), transform=ax.transAxes)
    worst = deg.max(axis=0)
    strip.imshow(np.ma.masked_equal(worst[None, :], 0), cmap=_CMAP, norm=_NORM, aspect="auto",
                 interpolation="nearest", extent=(-0.5, nbanks - 0.5, 0.5, -0.5))
    for b in np.nonzero(worst)[0]:   # the worst degree of each bank, large enough to read
        strip.text(b, 0, str(worst[b]), ha="center", va="center", fontsize=7,
                   fontweight="bold", color="white" if worst[b] > 4 else "black")
    strip.set_xlim(-0.5, nbanks - 0.5)
    strip.set_xticks([])
    strip.set_yticks([0])
    strip.set_yticklabels([t("最坏", "worst")], fontsize=7)
    if worst.any():   # the worst of all banks, outside the strip where it always fits
        strip.text(1.01, 0.5, t(f"最大 {worst.max()}", f"max {worst.max()}"), transform=strip.transAxes,
                   ha="left", va="center", fontsize=8, fontweight="bold")
    strip.set_gid("bank-strip")
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()

    head = title if title is not None else _auto_title(wa)
    ax.set_title(f"{head}\n{wavefront_caption(wa)}", fontsize=10)
    if colorbar:
        cb = fig.colorbar(im, ax=ax, shrink=0.75, ticks=[1, 2, 3.5, 6.5, 12.5, 24.5])
        cb.ax.set_yticklabels(DEGREE_LABELS)
        cb.set_label(t("该 bank 要逐个送出的不同字数（冲突路数）", "distinct words this bank serves (conflict degree)"))
    return fig


def draw_bank_heatmaps(accesses: Sequence, titles: Sequence[str] | None = None, ncols: int = 3,
                       suptitle: str | None = None, panel_size: float = 3.9) -> Figure:
    """Several heatmaps side by side (one colour scale for all); returns the Figure."""
    n = len(accesses)
    if n == 0:
        raise ValueError("draw_bank_heatmaps needs at least one WarpAccess")
    if titles is not None and len(titles) != n:
        raise ValueError(f"draw_bank_heatmaps: {n} accesses but {len(titles)} titles")
    from .sectors import PAGE_WIDTH_IN
    ncols = max(1, min(ncols, n, 2))          # two 32×32 maps per row fit the page without shrinking the text
    panel_size = min(panel_size, (PAGE_WIDTH_IN - 1.0) / ncols)
    nrows = -(-n // ncols)
    fig = Figure(figsize=(panel_size * ncols + 1.0, (panel_size + 0.6) * nrows),
                 layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    for i, wa in enumerate(accesses):
        draw_bank_heatmap(wa, ax=axes.flat[i], title=None if titles is None else titles[i], colorbar=False)
        axes.flat[i].title.set_fontsize(9)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    im = axes.flat[0].get_images()[-1]
    cb = fig.colorbar(im, ax=axes, shrink=0.6, ticks=[1, 2, 3.5, 6.5, 12.5, 24.5])
    cb.ax.set_yticklabels(DEGREE_LABELS)
    cb.set_label(t("冲突路数", "conflict degree"))
    if suptitle:
        fig.suptitle(suptitle)
    return fig


def draw_tile_banks(row_accesses: Sequence, highlight, ld: int | None = None, ax: Axes | None = None,
                    title: str | None = None) -> Figure:
    """The classic picture: a 2-D shared tile, each element coloured (and labelled) by its bank, with the
    elements one warp instruction reads outlined.

    ``row_accesses``: one labsim ``WarpAccess`` per tile row (lane k touching element k of that row), whose
    ``banks`` give the colours; ``highlight``: the ``WarpAccess`` whose elements to outline (its lanes'
    ``words``); ``ld``: the declared row length (columns past the row accesses are drawn as padding).
    """
    rows = len(row_accesses)
    if rows == 0:
        raise ValueError("draw_tile_banks needs one WarpAccess per tile row")
    for wa in list(row_accesses) + [highlight]:
        _check_shared_access(wa, "draw_tile_banks")
    width = len(row_accesses[0].banks)
    ld = width if ld is None else int(ld)
    if ld < width:
        raise ValueError(f"draw_tile_banks: ld={ld} is shorter than the {width} elements each row access touches")
    nbanks = int(getattr(row_accesses[0], "banks_n", 32))
    banks = np.full((rows, ld), -1, dtype=np.int64)
    for r, wa in enumerate(row_accesses):
        banks[r, :width] = np.asarray(wa.banks)
    if ax is None:
        fig = Figure(figsize=(0.2 * ld + 1.2, 0.2 * rows + 1.3), layout="constrained")
        ax = fig.subplots()
    fig = ax.figure
    palette = ListedColormap([matplotlib_hsv(i / nbanks) for i in range(nbanks)])
    ax.imshow(np.ma.masked_less(banks, 0), cmap=palette, vmin=-0.5, vmax=nbanks - 0.5, aspect="equal",
              interpolation="nearest", extent=(-0.5, ld - 0.5, rows - 0.5, -0.5))
    pad = np.where(banks < 0, 1.0, np.nan)
    ax.imshow(pad, cmap=ListedColormap([INACTIVE_COLOR]), vmin=0, vmax=1, aspect="equal",
              interpolation="nearest", extent=(-0.5, ld - 0.5, rows - 0.5, -0.5))
    active = np.asarray(highlight.active, dtype=bool)
    elem = np.asarray(highlight.addr, dtype=np.int64)[active] // int(highlight.itemsize)
    # bank numbers on the first row and on the outlined elements (a thousand labels would be slow and unreadable;
    # the colour carries the bank everywhere else)
    labelled = {(0, c) for c in range(width)} | {divmod(int(e), ld) for e in elem}
    for r, c in sorted(labelled):
        if c < width:
            ax.text(c, r, str(banks[r, c]), ha="center", va="center", fontsize=7, color="black")
    for e in elem:
        r, c = divmod(int(e), ld)
        ax.add_patch(Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="black", linewidth=1.6))
    ax.set_xticks(range(0, ld, 4))
    ax.set_yticks(range(0, rows, 4))
    ax.set_xlabel(t("列 c", "column c"))
    ax.set_ylabel(t("行 r", "row r"))
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    hl = len(np.unique(np.asarray(highlight.banks)[active]))
    head = title if title is not None else f"tile[{rows}][{ld}]"
    ax.set_title(t(f"{head}\n颜色 = bank（第 0 行和黑框里标出了 bank 号）；黑框：一个 warp 读的 {int(active.sum())} 个元素，"
                   f"落在 {hl} 个不同 bank",
                   f"{head}\ncolour = bank (numbered on row 0 and in the outline); outlined: one warp's read, "
                   f"{hl} distinct banks"), fontsize=9)
    return fig


def matplotlib_hsv(x: float):
    """A cyclic colour for bank x (0..1): neighbouring banks get distinguishable hues."""
    from matplotlib import colormaps
    r, g, b, _ = colormaps["hsv"](x * 0.92)
    return (0.45 + 0.55 * r, 0.45 + 0.55 * g, 0.45 + 0.55 * b, 1.0)   # pale, so the bank numbers stay legible
