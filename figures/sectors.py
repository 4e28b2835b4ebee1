"""Sector maps: which 32-byte sectors the lanes of one warp's global load or store touch.

Columns are the distinct sectors the warp touched (numbered from the lowest one), so a coalesced access
shows a narrow block and a strided one a staircase as wide as the warp. A strip under the map gives how
many bytes of each sector the lanes asked for; the title carries labsim's sector count and efficiency.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure

from ._fonts import t

PAGE_WIDTH_IN = 7.6     # the page's content column (778 CSS px in Quarto at a 1280 px window) at figure.dpi 100
MIN_FONT_PT = 7         # 7 pt at 100 dpi = 9.7 px: the smallest text a figure may show at the page's width
LANE_COLOR = "#3182bd"
INACTIVE_COLOR = "#d9d9d9"


def _check_global_access(wa: object, what: str) -> None:
    needed = ("space", "itemsize", "active", "addr", "sectors")
    missing = [n for n in needed if not hasattr(wa, n)]
    if missing:
        raise TypeError(f"{what} needs a labsim WarpAccess (one warp's global-memory access); got "
                        f"{type(wa).__name__}, which lacks {', '.join(missing)}")
    if wa.space != "global":
        raise ValueError(f"{what} draws global-memory accesses; this WarpAccess is a {wa.space} access "
                         f"({wa!r}); use figures.heatmap.draw_bank_heatmap for shared memory")


def sector_matrix(warp_access) -> tuple[np.ndarray, np.ndarray]:
    """(lanes × touched sectors bytes matrix, sector numbers relative to the lowest touched one).

    Entry [lane, j] is how many bytes of sector ``sectors[j]`` the lane accesses (0 if none).
    """
    _check_global_access(warp_access, "sector_matrix")
    wa = warp_access
    sb = int(getattr(wa, "sector_bytes", 32))
    active = np.asarray(wa.active, dtype=bool)
    addr = np.asarray(wa.addr, dtype=np.int64)
    size = int(wa.itemsize)
    if not active.any():
        return np.zeros((32, 0), dtype=np.int64), np.zeros(0, dtype=np.int64)
    first, last = addr // sb, (addr + size - 1) // sb
    base = first[active].min()
    touched = np.unique(np.concatenate([first[active], last[active]]))
    col = {int(s): j for j, s in enumerate(touched)}
    m = np.zeros((32, touched.size), dtype=np.int64)
    for lane in np.nonzero(active)[0]:
        for s in range(int(first[lane]), int(last[lane]) + 1):
            lo, hi = max(addr[lane], s * sb), min(addr[lane] + size, (s + 1) * sb)
            m[lane, col[s]] = hi - lo
    return m, touched - base


def _used_bytes(warp_access, touched_rel: np.ndarray) -> np.ndarray:
    """Distinct bytes of each touched sector that some active lane accesses (broadcasts count once)."""
    wa = warp_access
    sb = int(getattr(wa, "sector_bytes", 32))
    active = np.asarray(wa.active, dtype=bool)
    addr = np.asarray(wa.addr, dtype=np.int64)[active]
    if addr.size == 0:
        return np.zeros(0, dtype=np.int64)
    byte = np.unique((addr[:, None] + np.arange(int(wa.itemsize))).ravel())
    base = (addr // sb).min()
    return np.array([np.count_nonzero(byte // sb - base == s) for s in touched_rel], dtype=np.int64)


def sector_caption(warp_access) -> str:
    """'N 个 sector，效率 e%（搬 N×32 B，线程要 R B）' from labsim's count for this access."""
    wa = warp_access
    n = int(wa.sectors)
    sb = int(getattr(wa, "sector_bytes", 32))
    req = int(np.count_nonzero(wa.active)) * int(wa.itemsize)
    eff = 100.0 * req / (n * sb) if n else 0.0
    eff_s = f"{eff:.1f}".rstrip("0").rstrip(".")
    return t(f"{n} 个 sector，效率 {eff_s}%\n（搬 {n * sb} B，线程要 {req} B）",
             f"{n} sectors, {eff_s}% efficient\n(moves {n * sb} B for {req} B requested)")


def draw_sector_map(warp_access, ax: Axes | None = None, title: str | None = None) -> Figure | None:
    """Draw one warp instruction's lanes × sectors map; returns the Figure.

    ``None`` (no access to show, e.g. a lesson's check could not run the kernel) prints a short note and returns
    None instead of failing, like :func:`figures.heatmap.draw_bank_heatmap`.
    """
    if warp_access is None:
        print(t("（没有可画的全局内存访问：检查没有运行到你的内核。）",
                "(no global-memory access to draw: the check did not run your kernel)"))
        return None
    _check_global_access(warp_access, "draw_sector_map")
    wa = warp_access
    m, rel = sector_matrix(wa)
    ncols = max(m.shape[1], 1)
    if ax is None:
        fig = Figure(figsize=(max(3.0, 0.18 * ncols + 2.2), 5.4), layout="constrained")
        ax = fig.subplots()
    fig = ax.figure
    active = np.asarray(wa.active, dtype=bool)
    extent = (-0.5, ncols - 0.5, 31.5, -0.5)
    inactive = np.broadcast_to(np.where(active[:, None], np.nan, 1.0), (32, ncols))
    ax.imshow(inactive, cmap=ListedColormap([INACTIVE_COLOR]), vmin=0, vmax=1, aspect="auto",
              extent=extent, interpolation="nearest")
    im = ax.imshow(np.ma.masked_equal(m if m.size else np.zeros((32, 1)), 0), cmap=ListedColormap([LANE_COLOR]),
                   vmin=0, vmax=1, aspect="auto", extent=extent, interpolation="nearest")
    im.set_gid("lane-sectors")
    ax.set_ylabel(t("lane（warp 内线程号）", "lane"))
    ax.set_yticks(range(0, 32, 4))
    step = 1 if ncols <= 8 else 4
    ax.set_xticks(range(0, m.shape[1], step))
    ax.set_xticklabels([str(int(s)) for s in rel[::step]], fontsize=MIN_FONT_PT)
    gaps = np.unique(np.diff(rel)) if rel.size > 1 else np.zeros(0, dtype=np.int64)
    sb = int(getattr(wa, "sector_bytes", 32))
    if gaps.size == 1 and gaps[0] > 1:   # a staircase: say how far apart the columns really are
        apart = int(gaps[0]) * sb
        dist = f"{apart // 1024} KB" if apart % 1024 == 0 else f"{apart} B"
        ax.set_xlabel(t(f"sector（相对编号）\n相邻两列相隔 {gaps[0]} 个 sector = {dist}",
                        f"sector (relative)\nadjacent columns {gaps[0]} sectors = {dist} apart"), fontsize=8)
    else:
        ax.set_xlabel(t("sector（相对编号）", "sector (relative)"))
    # cell borders as plain lines: minor ticks would cost a text layout per tick at every save
    ax.vlines(np.arange(-0.5, ncols, 1), -0.5, 31.5, colors="white", linewidth=0.4)
    ax.hlines(np.arange(-0.5, 32, 1), -0.5, ncols - 0.5, colors="white", linewidth=0.4)

    if m.size:
        used = _used_bytes(wa, rel)
        sb = int(getattr(wa, "sector_bytes", 32))
        strip = ax.inset_axes((0.0, 1.02, 1.0, 0.045), transform=ax.transAxes)
        strip.imshow(used[None, :] / sb, cmap="Blues", vmin=0, vmax=1, aspect="auto",
                     extent=(-0.5, ncols - 0.5, 0.5, -0.5), interpolation="nearest")
        panel_px = ax.get_position().width * fig.figure.get_figwidth() * fig.figure.dpi   # subfigures too
        label_px = 5 * 0.62 * MIN_FONT_PT * fig.figure.dpi / 72          # "32/32" at the smallest legible size
        if ncols <= 16 and panel_px / ncols >= label_px:
            for j, u in enumerate(used):
                strip.text(j, 0, f"{u}/{sb}", ha="center", va="center", fontsize=MIN_FONT_PT,
                           color="white" if u > sb / 2 else "black")
        else:   # too narrow to label each sector: one label with the scale instead
            lo, hi = int(used.min()), int(used.max())
            what = f"{lo}/{sb}" if lo == hi else f"{lo}–{hi}/{sb}"
            long = panel_px >= 40 * 0.62 * MIN_FONT_PT * fig.figure.dpi / 72
            strip.text((ncols - 1) / 2, 0, t(f"每个 sector 用了 {what} 字节（颜色越深用得越多，满 = {sb}）" if long
                                             else f"每个 sector 用 {what} B",
                                             f"{what} bytes used per sector (darker = more, full = {sb})" if long
                                             else f"{what} B per sector"),
                       ha="center", va="center", fontsize=MIN_FONT_PT, color="black")
        strip.set_xticks([])
        strip.set_yticks([0])
        strip.set_yticklabels([t("有用字节", "used B")], fontsize=MIN_FONT_PT)
        strip.set_gid("sector-strip")
    head = title if title is not None else f"{wa.array} ({'load' if wa.op in ('ld', 'load') else 'store'})"
    ax.set_title(f"{head}\n{sector_caption(wa)}", fontsize=9, pad=18)
    return fig


def draw_sector_maps(accesses: Sequence, titles: Sequence[str] | None = None,
                     suptitle: str | None = None) -> Figure:
    """Several sector maps, each as wide as the sectors it touches, in rows that fit the page's width (so no
    text is shrunk below :data:`MIN_FONT_PT` when the page scales the figure down); returns the Figure."""
    n = len(accesses)
    if n == 0:
        raise ValueError("draw_sector_maps needs at least one WarpAccess")
    if titles is not None and len(titles) != n:
        raise ValueError(f"draw_sector_maps: {n} accesses but {len(titles)} titles")
    widths = [max(sector_matrix(wa)[0].shape[1], 1) + 9 for wa in accesses]
    rows: list[list[int]] = [[]]
    for i, w in enumerate(widths):                  # greedy rows of panels, 0.2 in per column + margins
        if rows[-1] and 0.6 + 0.2 * (sum(widths[j] for j in rows[-1]) + w) > PAGE_WIDTH_IN:
            rows.append([])
        rows[-1].append(i)
    width = min(PAGE_WIDTH_IN, max(0.6 + 0.2 * sum(widths[j] for j in r) for r in rows))
    fig = Figure(figsize=(width, 5.8 * len(rows)), layout="constrained")
    subs = fig.subfigures(len(rows), 1, squeeze=False)[:, 0] if len(rows) > 1 else [fig]
    for sub, row in zip(subs, rows):
        ratios = [widths[j] for j in row]
        spare = (width - 0.6) / 0.2 - sum(ratios)      # a short row keeps its panels' widths: pad it, not them
        if spare > 2:
            ratios.append(spare)
        axes = sub.subplots(1, len(ratios), squeeze=False, gridspec_kw={"width_ratios": ratios})
        for ax in axes[0][len(row):]:
            ax.set_visible(False)
        for ax, i in zip(axes[0], row):
            draw_sector_map(accesses[i], ax=ax, title=None if titles is None else titles[i])
    if suptitle:
        fig.suptitle(suptitle)
    return fig
