"""The bank explorer: its views run labsim kernels whose counts match a brute-force model."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from figref import brute_column_wavefronts

from figures import lesson09_explorer as explorer
from figures.lesson09_kernels import DTYPES, float4_access, tile_access

ITEMSIZE = {"float32": 4, "float16": 2, "float64": 8}


@settings(max_examples=40, deadline=None)
@given(pad=st.integers(0, 4), dtype=st.sampled_from(sorted(DTYPES)), access=st.sampled_from(["column", "row"]),
       swizzle=st.booleans(), index=st.integers(0, 31))
def test_tile_access_matches_brute_force(pad, dtype, access, swizzle, index):
    wa = tile_access(pad, dtype, access, swizzle, index=index)
    want = brute_column_wavefronts(32 + pad, ITEMSIZE[dtype], col=index, swizzle=swizzle,
                                   row_access=access == "row", index=index)
    assert wa.wavefronts == want
    assert wa.itemsize == ITEMSIZE[dtype] and wa.space == "shared" and wa.active.all()


def test_float4_alignment_follows_the_row_stride():
    from labsim.errors import MisalignedAddressError
    for pad in range(0, 9):
        for pattern in ("rows", "column"):
            if pad % 4 == 0:
                assert float4_access(pad, pattern).wavefronts >= 4      # quarter-warp phases
            else:   # rows start (32 + pad) * 4 bytes apart: not a multiple of 16
                with pytest.raises(MisalignedAddressError, match="misaligned"):
                    float4_access(pad, pattern)


def test_view_and_grid():
    fig = explorer.explorer_view(1, "float16", "column", False)
    assert "__half tile[32][33]" in fig.axes[0].get_title()
    grid = explorer.variant_grid()
    titles = [ax.get_title() for ax in grid.axes if ax.get_images() and ax.get_title()]
    assert len(titles) == 12
    assert any(t.startswith("double tile[32][32]") for t in titles)
    # column 7 of __half tile[32][33], where the +1 padding does not help (issue 28 item 14)
    (half7,) = [t for t in titles if t.startswith("__half tile[32][33]") and "[k][7]" in t]
    assert half7.split("\n")[1].startswith("2 个 wavefront")


def _find(widget, cls):
    out = []
    for child in getattr(widget, "children", ()):
        if isinstance(child, cls):
            out.append(child)
        out.extend(_find(child, cls))
    return out


def test_widget_controls_drive_labsim():
    ipw = pytest.importorskip("ipywidgets")
    panel = explorer.bank_explorer()
    pad, index = _find(panel, ipw.IntSlider)
    (dtype,) = _find(panel, ipw.Dropdown)
    (access,) = _find(panel, ipw.ToggleButtons)
    (swz,) = _find(panel, ipw.Checkbox)
    (status,) = _find(panel, ipw.HTML)
    assert (pad.min, pad.max) == (0, 4) and (index.min, index.max) == (0, 31)
    assert sorted(v for _, v in dtype.options) == sorted(DTYPES)
    assert sorted(v for _, v in access.options) == ["column", "row"]

    def shown() -> int:
        return int(re.search(r"(\d+)\s*(?:个\s*)?wavefront", status.value).group(1))

    assert shown() == brute_column_wavefronts(32, 4)
    for p, d, s in [(1, "float32", False), (0, "float16", False), (1, "float64", False), (0, "float32", True)]:
        pad.value, dtype.value, swz.value = p, d, s
        assert shown() == brute_column_wavefronts(32 + p, ITEMSIZE[d], swizzle=s)
    access.value = "row"
    assert shown() == brute_column_wavefronts(32, 4, swizzle=True, row_access=True)
    # the column control: __half tile[32][33] is free at even columns, two wavefronts at odd ones
    access.value, pad.value, dtype.value, swz.value = "column", 1, "float16", False
    for col in (6, 7):
        index.value = col
        assert shown() == brute_column_wavefronts(33, 2, col=col, index=col) == 1 + col % 2
    assert re.search(r"最坏 2 个|worst 2", status.value) and re.search(r"平均 1.5|average 1.5", status.value)


def test_static_form_during_the_site_build(monkeypatch):
    monkeypatch.setenv("COURSEBUILD_STATIC", "1")
    ex = explorer.bank_explorer()
    assert isinstance(ex, explorer.se.StaticExplorer) and ex.key == "lesson09-bank-explorer"
