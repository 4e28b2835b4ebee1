"""The static-site explorer mechanism and lesson 9's explorer built on it (the browser side: test_*_browser)."""
from __future__ import annotations

import json
import re

import pytest

from figref import brute_column_wavefronts

from figures import lesson09_explorer as explorer
from figures import static_explorer as se

ITEMSIZE = {"float32": 4, "float16": 2, "float64": 8}


def _small(compute=None, **kw):
    controls = [se.Slider("n", "n", range(3)), se.Checkbox("neg", "negate")]
    parts = [se.Number("value", "value"), se.Bars("bars", highlight="n"), se.Text("note")]
    compute = compute or (lambda n, neg: {"value": -n if neg else n, "bars": {"values": [n, n + 1]},
                                          "note": f"n={n}"})
    return se.StaticExplorer(controls, parts, compute, **kw)


def test_every_state_is_computed_once_and_found_by_its_indices():
    calls = []

    def compute(n, neg):
        calls.append((n, neg))
        return {"value": -n if neg else n, "bars": {"values": [1, 2]}, "note": "same"}

    ex = _small(compute)
    spec = ex.spec()
    assert sorted(calls) == sorted((n, neg) for n in range(3) for neg in (False, True))
    assert set(spec["states"]) == {f"{i},{j}" for i in range(3) for j in range(2)}
    assert len(spec["pools"]["note"]) == 1 and len(spec["pools"]["bars"]) == 1   # shared values stored once
    for n in range(3):
        for neg in (False, True):
            assert ex.view_at(n=n, neg=neg)["value"] == (-n if neg else n)
    ex.spec()
    assert len(calls) == 6   # cached on the object


def test_html_is_self_contained():
    page = _small(key="demo-1").html()
    assert 'id="demo-1"' in page and "window.CourseExplorer" in page
    assert not re.search(r"(src|href)\s*=\s*[\"']?https?:", page), "no CDN or network resource"
    data = re.search(r'<script type="application/json" class="course-explorer-data">(.*?)</script>', page, re.S)
    assert json.loads(data.group(1))["id"] == "demo-1"


def test_script_cannot_be_closed_by_data():
    ex = _small(lambda n, neg: {"value": 0, "bars": {"values": []}, "note": "</script><b>x</b>"})
    assert "</script><b>" not in ex.html()


@pytest.mark.parametrize("build, message", [
    (lambda: se.StaticExplorer([se.Slider("a", "a", [1]), se.Slider("a", "b", [2])], [], dict), "repeat"),
    (lambda: se.Select("d", "d", [("x", "X")], value="y"), "initial value 'y'"),
    (lambda: _small(presets=[("p", {"m": 1})]), "unknown controls"),
    (lambda: _small(presets=[("p", {"n": 7})]), "n=7 is not one of"),
    (lambda: _small(key="bad key"), "element id"),
    (lambda: se.StaticExplorer([se.Slider("a", "a", range(100))], [se.Image("img")], dict), "too heavy"),
    (lambda: se.StaticExplorer([se.Slider("a", "a", [1])], [se.Bars("b", highlight="zz")], dict), "highlight"),
    (lambda: se.StaticExplorer([se.Slider("a", "a", [1])], [se.Part("b", "pie")], dict), "unknown kind"),
])
def test_bad_definitions_name_the_problem(build, message):
    with pytest.raises(se.ExplorerSpecError, match=message):
        build()


def test_compute_errors_name_the_state():
    def compute(n, neg):
        if n == 2 and neg:
            raise ZeroDivisionError("boom")
        return {"value": n, "bars": {"values": []}, "note": ""}
    with pytest.raises(se.ExplorerSpecError, match=r"compute\(n=2, neg=True\) failed: ZeroDivisionError: boom"):
        _small(compute).spec()
    with pytest.raises(se.ExplorerSpecError, match="no value for parts"):
        _small(lambda n, neg: {"value": 1}).spec()
    with pytest.raises(se.ExplorerSpecError, match="not a finite number"):
        _small(lambda n, neg: {"value": float("nan"), "bars": {"values": []}, "note": ""}).spec()


def test_build_cache_is_reused_only_with_a_stable_key(tmp_path, monkeypatch):
    monkeypatch.setenv("COURSEBUILD_EXPLORER_CACHE", str(tmp_path))
    first = _small(key="cached").spec()
    assert (tmp_path / "cached.json").is_file()
    calls = []
    again = _small(lambda n, neg: calls.append(1) or {"value": 0, "bars": {"values": []}, "note": ""}, key="cached")
    assert again.spec() == first and not calls
    _small().spec()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cached.json"]


def test_choose_follows_the_build_flag(monkeypatch):
    monkeypatch.delenv("COURSEBUILD_STATIC", raising=False)
    assert se.choose(lambda: "static", lambda: "widgets") == "widgets"
    monkeypatch.setenv("COURSEBUILD_STATIC", "1")
    assert se.choose(lambda: "static", lambda: "widgets") == "static"


@pytest.fixture(scope="module")
def bank(bank_explorer):
    return bank_explorer          # shared with test_static_explorer_browser.py (conftest.py)


def test_bank_explorer_numbers_equal_an_independent_count_over_the_whole_grid(bank):
    spec = bank.spec()
    n = 1
    for c in spec["controls"]:
        n *= len(c["values"])
    assert len(spec["states"]) == n == 5 * 3 * 2 * 2 * 32
    for _, v in bank.states():
        if v["index"] != 0:
            continue
        counts = [brute_column_wavefronts(32 + v["pad"], ITEMSIZE[v["dtype"]], col=i, swizzle=v["swizzle"],
                                          row_access=v["access"] == "row", index=i) for i in range(32)]
        for i in range(32):
            view = bank.view_at(**dict(v, index=i))
            assert view["wavefronts"] == counts[i], (v, i)
            assert view["worst"] == max(counts) and view["average"] == pytest.approx(sum(counts) / 32, abs=1e-3)
            assert view["columns"]["values"] == counts


def test_bank_explorer_shows_the_half_column_effect(bank):
    even = bank.view_at(pad=1, dtype="float16", access="column", swizzle=False, index=6)
    odd = bank.view_at(pad=1, dtype="float16", access="column", swizzle=False, index=7)
    assert (even["wavefronts"], odd["wavefronts"]) == (1, 2)   # Q3: odd columns of __half tile[32][33] cost 2
    assert odd["worst"] == 2 and odd["average"] == 1.5
    # the heatmap cells are the lane -> bank map: 32 lanes, each on the bank of its word
    cells = odd["heatmap"]["cells"]
    lanes = {cells[i] for i in range(0, len(cells), 3)}
    assert lanes == set(range(32))
    assert "tile[32][33]" in odd["heatmap"]["title"] and "tile[k][7]" in odd["heatmap"]["title"]


def test_swizzle_differs_from_padding_somewhere(bank):
    diff = [(d, i) for d in ITEMSIZE for i in range(32)
            if bank.view_at(pad=0, dtype=d, swizzle=True, index=i)["wavefronts"]
            != bank.view_at(pad=1, dtype=d, swizzle=False, index=i)["wavefronts"]]
    assert diff, "the explorer must be able to show a column where the swizzle and +1 padding differ"
