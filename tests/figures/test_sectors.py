"""Sector maps against a brute-force sector count."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from figref import brute_sectors, make_global_access, make_shared_access

from figures.sectors import draw_sector_map, draw_sector_maps, sector_matrix

LANES = np.arange(32)
BASE = 1 << 20   # a 256-byte aligned device address


def lane_image(ax):
    im = next(i for i in ax.get_images() if i.get_gid() == "lane-sectors")
    return np.ma.filled(im.get_array(), 0)


def title_sectors(ax) -> int:
    m = re.search(r"(\d+)\s*(?:个\s*)?sector", ax.get_title())
    assert m, ax.get_title()
    return int(m.group(1))


def test_coalesced_and_strided_maps():
    fig = draw_sector_maps([make_global_access(BASE + LANES * 4), make_global_access(BASE + LANES * 4096)],
                           ["coalesced", "strided"])
    ax1, ax2 = [ax for ax in fig.axes if any(i.get_gid() == "lane-sectors" for i in ax.get_images())]
    assert lane_image(ax1).shape == (32, 4) and title_sectors(ax1) == 4
    assert lane_image(ax2).shape == (32, 32) and title_sectors(ax2) == 32
    assert "12.5%" in ax2.get_title() and "100%" in ax1.get_title()
    # the strided map is a staircase: lane k alone in column k
    assert (np.asarray(lane_image(ax2)) > 0).astype(int).tolist() == np.eye(32, dtype=int).tolist()


@settings(max_examples=30, deadline=None)
@given(itemsize=st.sampled_from([2, 4, 8, 16]),
       elems=st.lists(st.integers(0, 4000), min_size=32, max_size=32),
       active=st.lists(st.booleans(), min_size=32, max_size=32).filter(any))
def test_matrix_matches_brute_force(itemsize, elems, active):
    addr = BASE + np.array(elems, dtype=np.int64) * itemsize
    wa = make_global_access(addr, itemsize=itemsize, active=active)
    m, rel = sector_matrix(wa)
    want = brute_sectors(addr, active, itemsize)
    assert m.shape == (32, want) and wa.sectors == want
    assert m.sum() == itemsize * sum(active)          # every requested byte lands in exactly one cell
    for lane in range(32):
        if active[lane]:
            col = int(np.nonzero(m[lane])[0][0])
            assert rel[col] == addr[lane] // 32 - min(addr[i] // 32 for i in range(32) if active[i])
        else:
            assert not m[lane].any()
    ax = draw_sector_map(wa).axes[0]
    assert title_sectors(ax) == want


def test_bad_inputs():
    with pytest.raises(ValueError, match="shared"):
        draw_sector_map(make_shared_access(LANES * 4))
    with pytest.raises(TypeError, match="WarpAccess"):
        draw_sector_map("not an access")
