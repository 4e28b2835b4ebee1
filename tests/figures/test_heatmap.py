"""The warp-to-bank heatmap against a brute-force bank count, on hand-made and random warp accesses."""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from matplotlib.figure import Figure

from figref import brute_bank_degrees, make_global_access, make_shared_access

from figures import heatmap
from figures.heatmap import bank_degrees, draw_bank_heatmap, draw_bank_heatmaps

LANES = np.arange(32)


def degree_image(ax):
    """The lanes × banks degree matrix the heatmap shows (0 where the cell is empty)."""
    im = next(i for i in ax.get_images() if i.get_gid() == "bank-degrees")
    return np.ma.filled(im.get_array(), 0).astype(int)


def title_number(ax) -> int:
    """The wavefront count the title states (the number before 'wavefront')."""
    m = re.search(r"(\d+)\s*(?:个\s*)?wavefront", ax.get_title())
    assert m, ax.get_title()
    return int(m.group(1))


def test_unpadded_column_read_puts_every_lane_in_one_bank():
    wa = make_shared_access(LANES * 32 * 4)          # float tile[32][32], lane k reads tile[k][0]
    fig = draw_bank_heatmap(wa)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    img = degree_image(ax)
    assert img.shape == (32, 32)
    touched_banks = np.nonzero(img.any(axis=0))[0]
    assert touched_banks.tolist() == [0]             # one bank column
    assert (img[:, 0] == 32).all()                   # every lane sees a 32-way conflict
    assert title_number(ax) == 32


def test_padded_column_read_is_a_diagonal():
    wa = make_shared_access(LANES * 33 * 4)          # float tile[32][33]
    ax = draw_bank_heatmap(wa, title="tile[32][33]").axes[0]
    img = degree_image(ax)
    assert (img == np.eye(32, dtype=int)).all()
    assert title_number(ax) == 1
    assert ax.get_title().startswith("tile[32][33]")


def test_broadcast_is_one_word_not_a_conflict():
    wa = make_shared_access(np.full(32, 20))         # every lane reads word 5
    img = degree_image(draw_bank_heatmap(wa).axes[0])
    assert (img[:, 5] == 1).all() and img.sum() == 32
    assert wa.wavefronts == 1


def test_inactive_lanes_are_blank():
    act = LANES < 10
    wa = make_shared_access(LANES * 32 * 4, active=act)
    img = degree_image(draw_bank_heatmap(wa).axes[0])
    assert not img[10:].any()
    assert (img[:10, 0] == 10).all()


@settings(max_examples=30, deadline=None)
@given(itemsize=st.sampled_from([2, 4, 8, 16]),
       words=st.lists(st.integers(0, 2047), min_size=32, max_size=32),
       active=st.lists(st.booleans(), min_size=32, max_size=32))
def test_degrees_and_title_match_brute_force(itemsize, words, active):
    addr = np.array(words, dtype=np.int64) * 4 // itemsize * itemsize   # aligned to the element size
    if itemsize == 2:
        addr = np.array(words, dtype=np.int64) * 2                       # any 2-byte aligned offset
    wa = make_shared_access(addr, itemsize=itemsize, active=active)
    want_deg, want_wf = brute_bank_degrees(addr, active, itemsize)
    assert (bank_degrees(wa) == want_deg).all()
    assert wa.wavefronts == want_wf         # the reference, which agrees with the H200's one-warp patterns
    if any(active):
        fig = Figure()
        ax = fig.subplots()
        draw_bank_heatmap(wa, ax=ax, colorbar=False)
        assert title_number(ax) == wa.wavefronts      # the title is labsim's number


def test_wide_accesses_mark_their_phases():
    wa = make_shared_access(LANES * 33 * 8, itemsize=8)   # double tile[32][33]
    ax = draw_bank_heatmap(wa).axes[0]
    # one separator line between the two half-warp phases
    assert len([ln for ln in ax.get_lines() if ln.get_ydata()[0] == 15.5]) == 1
    assert title_number(ax) == 2
    assert heatmap.min_wavefronts(8) == 2 and heatmap.min_wavefronts(16) == 4


def test_none_prints_a_note_and_returns_none(capsys):
    assert draw_bank_heatmap(None) is None
    assert capsys.readouterr().out.strip()


def test_bad_inputs_name_the_problem():
    with pytest.raises(TypeError, match="WarpAccess"):
        draw_bank_heatmap(np.zeros((32, 32)))
    with pytest.raises(ValueError, match="global"):
        draw_bank_heatmap(make_global_access(LANES * 4))
    with pytest.raises(ValueError, match="at least one"):
        draw_bank_heatmaps([])
    with pytest.raises(ValueError, match="titles"):
        draw_bank_heatmaps([make_shared_access(LANES * 4)], ["a", "b"])


def test_grid_has_one_panel_per_access():
    accs = [make_shared_access(LANES * s * 4) for s in (32, 33, 34, 35)]
    fig = draw_bank_heatmaps(accs, ["a", "b", "c", "d"], ncols=3)
    panels = [ax for ax in fig.axes if any(i.get_gid() == "bank-degrees" for i in ax.get_images())]
    assert len(panels) == 4
    assert [title_number(ax) for ax in panels] == [32, 1, 2, 1]
