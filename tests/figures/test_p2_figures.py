"""figures.p2 against independent references: brute-force sector counts per lane, numpy, the recorded H200."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from figref import brute_sectors

from figures import p2

LANES = np.arange(32)


@settings(max_examples=60, deadline=None)
@given(stride=st.integers(0, 40), offset=st.integers(0, 40), size=st.sampled_from([2, 4, 8, 16]),
       mask=st.lists(st.booleans(), min_size=32, max_size=32))
def test_one_warp_matches_brute_force(stride, offset, size, mask):
    act = np.array(mask)
    wa = p2.one_warp(offset + stride * LANES, size, act)
    addr = (offset + stride * LANES) * size                 # the array is 256-byte aligned: offsets are exact
    expected = brute_sectors(addr, act, size)
    assert (wa.sectors if act.any() else 0) == expected
    assert p2.requested_bytes(wa) == size * int(act.sum())
    assert p2.moved_bytes(wa) == 32 * expected


def test_explorer_values_cover_the_grid_and_match_brute_force():
    vals = p2.explorer_values(strides=(0, 1, 3), offsets=(0, 1), sizes=(2, 16), masks=("all", "edge13", "lane0"))
    assert len(vals["records"]) == 3 * 2 * 2 * 3
    json.dumps(vals)                                          # embeddable as it is
    for r in vals["records"].values():
        act = p2.MASKS[r["mask"]][1](LANES)
        addr = (r["offset"] + r["stride"] * LANES) * r["itemsize"]
        assert r["sectors"] == brute_sectors(addr, act, r["itemsize"])
        assert r["moved"] == 32 * r["sectors"] and r["requested"] == r["itemsize"] * int(act.sum())
        ids = np.array(r["lane_sector"])
        assert (ids[~act] == -1).all() and len(set(ids[act])) == r["sectors"]


def test_pattern_table_matches_brute_force_and_h200():
    recorded = json.loads((p2.measurements_dir() / "results.json").read_text())
    recorded = recorded.get("results", recorded)
    tab = p2.pattern_table()
    for (key, _, size, index, kernel), row in zip(p2.SEED_PATTERNS, tab.data):
        addr = np.asarray(index(LANES)) * size
        sec = brute_sectors(addr, [True] * 32, size)
        assert row[1] == size and row[2] == sec and row[3] == 32 * size and row[4] == 32 * sec
        m = recorded[kernel]
        assert row[6] == m[p2.SECTORS_LD] / m[p2.REQUESTS_LD]
        assert row[7] in ("一致", "same")                      # the model agrees with the H200 on all ten
        assert "." not in str(row[3]) + str(row[4])            # bytes are whole numbers


def test_rand_table_is_microbench_lcg():
    import importlib.util
    spec = importlib.util.spec_from_file_location("_h200_expected", p2.measurements_dir() / "expected.py")
    mod = importlib.util.module_from_spec(spec)
    import sys
    sys.modules["_h200_expected"] = mod          # its dataclasses look their module up
    spec.loader.exec_module(mod)
    assert p2.rand_table(512) == mod.rand_table(512)


def test_missing_recordings_say_not_recorded(tmp_path):
    tab = p2.pattern_table(tmp_path / "none.json")
    assert all(r[6] in ("（未记录）", "(not recorded)") for r in tab.data)
    sw = p2.sweep_table(tmp_path / "none.json")
    assert all(r[3] in ("（未记录）", "(not recorded)") for r in sw.data) and [r[1] for r in sw.data][:2] == [4, 5]


def test_aos_soa_and_row_col_tables():
    vals = p2.aos_soa_table(1024).data
    # AoS field of a 12-byte struct: lane k reads byte 12k (+4f); SoA: contiguous; a 16-byte struct as float4
    for f in range(3):
        assert vals[1 + f][1] == brute_sectors(12 * LANES + 4 * f, [True] * 32, 4) == 12
    assert vals[0][1] == 12 and vals[0][4] == "33.3%"
    assert [r[1] for r in vals[4:7]] == [brute_sectors(4 * LANES, [True] * 32, 4)] * 3 == [4] * 3
    assert vals[7][1] == brute_sectors(16 * LANES, [True] * 32, 16) == 16 and vals[7][4] == "100%"
    recorded = json.loads((p2.measurements_dir() / "p2" / "results.json").read_text())["kernels"]
    per = {k: v[p2.SECTORS_LD] / v[p2.REQUESTS_LD] for k, v in recorded.items() if v.get(p2.REQUESTS_LD)}
    assert [r[5] for r in vals] == [per["p2_aos3_x"]] + [per["p2_aos3_xyz"]] * 3 + [per["p2_soa3_xyz"]] * 3 + \
        [per["p2_f32x4_contig"]]
    rc = p2.row_col_table(256, 256).data
    assert [r[1] for r in rc] == [4, brute_sectors(4 * 256 * LANES, [True] * 32, 4), 4, 4]
    assert rc[0][5] == per["p2_2d_row"] == 4 and rc[1][5] == per["p2_2d_col"] == 32


def test_script_launch_matches_h200():
    rows = p2.script_launch_table().data
    assert len(rows) == 10 and all(r[5] in ("一致", "same") for r in rows)


def test_transpose_counts_split_loads_and_stores():
    rows = p2.transpose_counts_table(64).data
    copy, naive, t32, t33 = rows
    assert naive[1] == 4 and naive[2] == "100%" and naive[3] == 32 and naive[4] == "12.5%"
    assert t32[5] == 1 and t32[6] == 32 and t33[6] == 1
    assert all(r[7] in ("对", "right") for r in rows)


def test_sector_maps_draw():
    fig = p2.pattern_sector_maps(["contig", "offset1"], ncols=2)
    assert len([a for a in fig.axes if a.get_visible()]) >= 2


def test_static_explorer_states_are_labsim_and_brute_force():
    ex = p2.static_coalescing_explorer(key="p2-test")
    for stride, offset, size, mask in ((1, 1, 4, "all"), (3, 2, 2, "odd"), (8, 0, 16, "edge13"), (0, 4, 8, "lane0")):
        view = ex.view_at(stride=stride, offset=offset, itemsize=size, mask=mask)
        act = p2.MASKS[mask][1](LANES)
        addr = (offset + stride * LANES) * size
        sec = brute_sectors(addr, act, size)
        assert view["sectors"] == sec and view["moved"] == 32 * sec and view["requested"] == size * int(act.sum())
        cells = np.array(view["map"]["cells"]).reshape(-1, 3)
        assert set(cells[:, 0]) == set(np.nonzero(act)[0])            # one row per active lane, none else
        assert (cells[:, 2] == size).all() and len(set(cells[:, 1])) == sec
        _, used = p2.lane_bytes(p2.explorer_access(stride, offset, size, mask))
        assert len(used) == sec and sum(used) == len(set(int(a) + b for a in addr[act] for b in range(size)))


def test_sector_map_of_nothing_is_a_note(capsys):
    from figures.sectors import draw_sector_map
    assert draw_sector_map(None) is None
    out = capsys.readouterr().out
    assert "检查没有运行" in out or "did not run" in out


def test_mapping_explorer_matches_brute_force():
    """Issue 26 item 11: the 2-D explorer's counts are the brute-force sectors of the warp it describes."""
    for N in p2.MAP_WIDTHS:
        for width in p2.MAP_SHAPES:
            for col0 in p2.MAP_COLS:
                for row0 in (0, 3):
                    k = np.arange(32)
                    row, col = row0 + k // width, col0 + k % width
                    act = col < N
                    addr = [int((r * N + c) * 4) for r, c in zip(row, col)]
                    st = p2.mapping_state(N, width, col0, row0)
                    assert st["sectors"] == brute_sectors(addr, list(act), 4), (N, width, col0, row0)
                    assert st["active"] == int(act.sum())
                    assert st["lines"] == len({a // 128 for a, on in zip(addr, act) if on})
    ex = p2.static_mapping_explorer()
    assert [c.name for c in ex.controls] == ["N", "width", "col0", "row0"]
