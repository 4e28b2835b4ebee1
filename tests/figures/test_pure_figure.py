"""figures.lessonkit.pure_figure: the course build renders a pure figure once and shows the stored bundle on the
other branch. What IPython shows for the stored bundle must be what it shows for a freshly drawn Figure, byte for
byte; a figure that reads the branch or a fill must fail loudly; tests and students get real Figures."""
from __future__ import annotations

import base64
import json
from types import SimpleNamespace

import IPython
import matplotlib
import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter
from IPython.core.pylabtools import select_figure_formats
from matplotlib.figure import Figure
from matplotlib_inline.backend_inline import InlineBackend

from figures import lesson08, lesson09, lesson09_explorer, p2
from figures import lessonkit as kit

PNG = b"\x89PNG\r\n\x1a\n"


def _shell(*formats: str, **kwargs) -> SimpleNamespace:
    """What a kernel's IPython has for figures after figures.setup_lesson(): matplotlib_inline's
    set_matplotlib_formats, i.e. IPython's select_figure_formats with the inline backend's print_figure_kwargs."""
    shell = SimpleNamespace(display_formatter=DisplayFormatter())
    select_figure_formats(shell, set(formats or ("png",)), **{**InlineBackend.instance().print_figure_kwargs, **kwargs})
    return shell


@pytest.fixture
def kernel(monkeypatch, tmp_path):
    """A lesson kernel's figure settings (figures.setup_lesson: CJK font, dpi, tight bbox; IPython's display
    formatter showing figures as PNG) and the build's cache folder set."""
    import figures
    with matplotlib.rc_context(), np.printoptions():
        figures.setup_lesson()          # before get_ipython is patched: it sets the font and rcParams only
        shell = _shell()
        monkeypatch.setattr(IPython, "get_ipython", lambda: shell)
        monkeypatch.setenv(kit.FIGURE_CACHE_ENV, str(tmp_path / "figure-cache"))
        yield shell


def _cached(folder) -> list:
    return sorted(folder.glob("*.json"))


def test_cached_bundle_is_what_ipython_shows_for_a_fresh_figure(kernel, tmp_path, monkeypatch):
    """Lesson 9's tile heatmap: the first call (renders and stores) and the second (reads the file) display the
    same bundle as the real Figure does through IPython's inline formatter: the same PNG bytes and text/plain."""
    first = lesson09.tile_heatmaps(fixes=False)
    files = _cached(tmp_path / "figure-cache")
    assert len(files) == 1 and files[0].name.startswith("tile_heatmaps-")
    second = lesson09.tile_heatmaps(fixes=False)
    assert not isinstance(first, Figure) and not isinstance(second, Figure)

    monkeypatch.delenv(kit.FIGURE_CACHE_ENV)
    fresh = lesson09.tile_heatmaps(fixes=False)
    assert isinstance(fresh, Figure)
    want_data, want_md = kernel.display_formatter.format(fresh)
    png = base64.b64decode(want_data["image/png"])
    assert png.startswith(PNG) and want_data["text/plain"].startswith("<Figure size")
    for shown in (first, second):
        data, md = kernel.display_formatter.format(shown)
        assert data == want_data and md == want_md
        assert base64.b64decode(data["image/png"]) == png
    stored = json.loads(files[0].read_text(encoding="utf-8"))
    assert stored["function"] == "figures.lesson09.tile_heatmaps" and stored["data"] == want_data


def test_a_hit_does_not_call_the_function(kernel, tmp_path, monkeypatch):
    """The second call reads the stored bundle: the figure is neither computed nor drawn again."""
    calls = []

    @kit.pure_figure
    def dots(n: int = 3) -> Figure:
        calls.append(n)
        fig = Figure(figsize=(2, 1))
        fig.add_subplot().plot(range(n))
        return fig

    a, b = dots(), dots(3)
    assert calls == [3]
    assert kernel.display_formatter.format(a) == kernel.display_formatter.format(b)


def test_without_the_build_a_pure_figure_is_a_real_figure(monkeypatch, tmp_path):
    """Tests and students (no COURSEBUILD_FIGURE_CACHE, or no IPython) get the Figure itself."""
    monkeypatch.delenv(kit.FIGURE_CACHE_ENV, raising=False)
    assert isinstance(p2.row_col_sector_maps(), Figure)
    monkeypatch.setenv(kit.FIGURE_CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(IPython, "get_ipython", lambda: None)
    assert isinstance(p2.row_col_sector_maps(), Figure)
    assert not list(tmp_path.iterdir())


def test_arguments_that_repr_cannot_describe_are_not_cached(kernel, tmp_path):
    @kit.pure_figure
    def line(ys) -> Figure:
        fig = Figure(figsize=(2, 1))
        fig.add_subplot().plot(ys)
        return fig

    assert isinstance(line(np.arange(2000)), Figure)        # an array's repr elides its middle
    assert not (tmp_path / "figure-cache").exists()


def test_key_changes_with_arguments_rcparams_formats_and_function():
    shell = _shell()
    display = kit._display_state(shell)
    fn = lesson09.tile_heatmaps
    base = kit._figure_key(fn, {"fixes": True}, display)
    assert kit._figure_key(fn, {"fixes": True}, display) == base
    assert kit._figure_key(fn, {"fixes": False}, display) != base
    assert kit._figure_key(lesson09.tile_bank_map, {"fixes": True}, display) != base
    with matplotlib.rc_context({"savefig.dpi": 200}):
        assert kit._figure_key(fn, {"fixes": True}, display) != base
    with matplotlib.rc_context({"font.size": 11}):
        assert kit._figure_key(fn, {"fixes": True}, display) != base
    for other in (_shell("retina"), _shell("png", "svg"), _shell("png", dpi=300)):
        assert kit._figure_key(fn, {"fixes": True}, kit._display_state(other)) != base


def test_different_arguments_are_stored_apart(kernel, tmp_path):
    a = kernel.display_formatter.format(p2.row_col_sector_maps(N=256))[0]
    b = kernel.display_formatter.format(p2.row_col_sector_maps(N=64))[0]
    assert len(_cached(tmp_path / "figure-cache")) == 2
    assert a["image/png"] != b["image/png"]             # the title says N


@pytest.mark.parametrize("reads", [lambda: kit.branch(), lambda: kit.demo_fill("lesson08"),
                                   lambda: kit.student_fill("lesson08"), lambda: kit.reference_fill("lesson08")])
@pytest.mark.parametrize("cached", [False, True])
def test_a_pure_figure_that_reads_the_branch_or_a_fill_fails(reads, cached, monkeypatch, tmp_path):
    if cached:
        monkeypatch.setattr(IPython, "get_ipython", lambda: _shell())
        monkeypatch.setenv(kit.FIGURE_CACHE_ENV, str(tmp_path))
    else:
        monkeypatch.delenv(kit.FIGURE_CACHE_ENV, raising=False)

    @kit.pure_figure
    def wrongly_declared() -> Figure:
        reads()
        return Figure()

    with pytest.raises(kit.ImpureFigure, match=r"wrongly_declared is declared @pure_figure but calls lessonkit\."):
        wrongly_declared()
    kit.branch()                                        # outside the figure the guard is off again
    assert not list(tmp_path.glob("*.json"))


def test_the_guard_is_not_a_needs_fill():
    """after_exercise turns NeedsFill into a note: the guard's error must pass through it."""
    assert not issubclass(kit.ImpureFigure, kit.NeedsFill)


def test_output_printed_or_warned_is_not_cached(kernel, tmp_path, capsys):
    """The other branch would not see what the first call printed or warned, so such a call is not stored."""
    import warnings

    @kit.pure_figure
    def chatty() -> Figure:
        print("drawing")
        warnings.warn("something to say")
        fig = Figure(figsize=(2, 1))
        fig.add_subplot()
        return fig

    with pytest.warns(UserWarning, match="something to say"):
        assert isinstance(chatty(), Figure)
    assert capsys.readouterr().out == "drawing\n"
    assert not (tmp_path / "figure-cache").exists()


MARKED = (p2.pattern_sector_maps, p2.row_col_sector_maps, p2.sweep_figure, lesson08.naive_sector_maps,
          lesson09.transpose_sector_maps, lesson09.tile_heatmaps, lesson09.tile_bank_map,
          lesson09_explorer.variant_grid)


@pytest.mark.parametrize("fn", MARKED, ids=lambda f: f.__qualname__)
def test_the_marked_lesson_figures_are_declared_pure(fn):
    """The lesson figures the build renders once (the site test checks both branches show the same PNG)."""
    assert getattr(fn, "pure_figure", False) or getattr(getattr(fn, "__wrapped__", None), "pure_figure", False)
