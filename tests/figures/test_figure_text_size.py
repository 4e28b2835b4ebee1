"""Issue 24 item 9: every lesson figure is legible at the page's width. A figure is shown as a PNG at
figure.dpi (what setup_lesson sets; IPython's inline backend saves at fig.dpi with a tight bounding box) and
scaled down to the content column when wider; each text must then be at least 9 px tall. The column is 778 CSS px
in Quarto's page at a 1280 px window (measured in Chromium on the built site; the fallback's is wider)."""
from __future__ import annotations

import io

import pytest
from matplotlib.text import Text
from PIL import Image

import figures
from figures import lesson08, lesson09, lesson09_explorer, lesson10, p2

CONTENT_PX = 778       # Quarto's content column at a 1280 px window (Chromium, the built site)
MIN_PX = 9.0

FIGURES = {
    "p2.pattern_sector_maps": lambda: p2.pattern_sector_maps(),
    "p2.row_col_sector_maps": lambda: p2.row_col_sector_maps(),
    "lesson08.naive_sector_maps": lambda: lesson08.naive_sector_maps(),
    "lesson09.transpose_sector_maps": lambda: lesson09.transpose_sector_maps(),
    "lesson09.tile_heatmaps": lambda: lesson09.tile_heatmaps(),
    "lesson09.tile_bank_map": lambda: lesson09.tile_bank_map(),
    "lesson09_explorer.variant_grid": lambda: lesson09_explorer.variant_grid(),
    "lesson10.race_figure": lambda: lesson10.race_figure(),
    "lesson10.inner_loop_heatmaps": lambda: lesson10.inner_loop_heatmaps(),
    "lesson10.roofline_figure": lambda: lesson10.roofline_figure(),
    "p2.sweep_figure": lambda: p2.sweep_figure(),
}


def rendered_text_px(fig) -> tuple[int, list[tuple[float, str]]]:
    """(PNG width, [(text height in CSS px at 100% zoom on the page, text)]) for every visible text. The width is
    the one savefig(bbox_inches="tight") gives (the tight box, padded, at fig.dpi), found by a layout pass
    without rasterising or encoding the PNG (test_the_width_is_the_pngs checks they agree)."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    canvas = FigureCanvasAgg(fig)           # the canvas savefig(format="png") renders with
    fig.draw_without_rendering()            # runs the layout engine, as savefig's first pass does
    box = fig.get_tightbbox(canvas.get_renderer())
    width = int((box.width + 2 * matplotlib.rcParams["savefig.pad_inches"]) * fig.dpi)   # as Agg sizes it
    scale = min(1.0, CONTENT_PX / width)
    return width, [(t.get_fontsize() * fig.dpi / 72 * scale, t.get_text()) for t in fig.findobj(Text)
                   if t.get_visible() and t.get_text().strip()]


def png_width(fig) -> int:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=fig.dpi, bbox_inches="tight")
    return Image.open(io.BytesIO(buf.getvalue())).size[0]


@pytest.fixture(scope="module", autouse=True)
def lesson_defaults():
    figures.setup_lesson()


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_text_is_legible_at_the_page_width(name, monkeypatch):
    monkeypatch.setenv("COURSEBUILD_BRANCH", "answer")
    fig = FIGURES[name]()
    width, texts = rendered_text_px(fig)
    assert texts, name
    small = sorted(t for t in texts if t[0] < MIN_PX)
    assert not small, f"{name}: {len(small)} texts under {MIN_PX} px at {width} px wide, e.g. {small[:3]}"


def test_the_measure_fails_on_a_wide_figure():
    """The check can fail: the old five-across P2 grid (15 in wide) shrinks 7 pt text to ~6 px."""
    from matplotlib.figure import Figure
    figures.setup_lesson()
    fig = Figure(figsize=(15, 3))
    fig.text(0.5, 0.5, "32/32", fontsize=7)
    fig.text(0.01, 0.01, "x")
    fig.text(0.99, 0.99, "y")
    _, texts = rendered_text_px(fig)
    assert min(px for px, _ in texts) < MIN_PX


@pytest.mark.parametrize("name", ["lesson09.tile_bank_map", "p2.sweep_figure"])
def test_the_width_is_the_pngs(name, monkeypatch):
    """The layout pass's width is the PNG's (to a pixel), on a one-panel and a many-panel figure."""
    monkeypatch.setenv("COURSEBUILD_BRANCH", "answer")
    fig = FIGURES[name]()
    width, _ = rendered_text_px(fig)
    assert abs(width - png_width(FIGURES[name]())) <= 1, name
