"""Course figures drawn from labsim results with matplotlib (heatmaps, sector maps, the bank explorer).

Lessons start with ``figures.setup_lesson()`` (a hidden cell) and then call one to three functions per cell,
e.g. ``figures.lesson09.tile_heatmaps()`` or ``figures.heatmap.draw_bank_heatmap(report.heatmap)``. Generic drawing
lives in ``heatmap``, ``sectors``, ``table`` and ``static_explorer``; what the lesson modules share (the exercise
through grading's API, the fill the demos run, line numbers, recordings, external figures) in ``lessonkit``; each
lesson's own tables in its module (``p2``, ``lesson08``, ``lesson09`` with ``lesson09_kernels`` and
``lesson09_explorer``, ``lesson10``).
"""
from __future__ import annotations

import matplotlib
import numpy as np

from . import heatmap, lessonkit, sectors
from ._fonts import cjk_family, has_cjk, use_cjk_font

__all__ = ["setup_lesson", "cjk_family", "has_cjk", "use_cjk_font", "heatmap", "lessonkit", "sectors"]


def setup_lesson(seed: int = 0) -> None:
    """Hidden first cell of every lesson: CJK font, figure defaults, numpy printing, a fixed random seed."""
    use_cjk_font()
    matplotlib.rcParams.update({
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "savefig.bbox": "tight",
        "font.size": 10,
        "axes.titlesize": 10,
    })
    np.set_printoptions(linewidth=110, precision=4, suppress=True)
    np.random.seed(seed)
    try:
        from IPython import get_ipython
    except ImportError:
        return
    if get_ipython() is not None:  # figures are returned (not drawn through pyplot): show them as PNG
        from matplotlib_inline.backend_inline import set_matplotlib_formats
        set_matplotlib_formats("png")
