"""figures.recordings: one reader of the H200 recordings for the repo (measurements/h200/) and the student kit
(its gzipped bundle, package data)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from figures import lesson08, lesson09, lesson10, p2, recordings

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "measurements" / "h200"
NONE = ("（未记录）", "(not recorded)", "未记录", "not recorded")


@pytest.fixture
def kit_only(tmp_path, monkeypatch):
    """This package as the student kit has it: the bundle written by the kit's build, no measurements/."""
    pkg = tmp_path / "figures"
    path = recordings.write_bundle(pkg, H200)
    monkeypatch.setattr(recordings, "measurements_dir", lambda: tmp_path / "no-measurements")
    import gzip
    bundle = json.loads(gzip.decompress(path.read_bytes()))
    monkeypatch.setattr(recordings, "_bundle", lambda: bundle)
    return bundle


@pytest.fixture
def nothing_recorded(tmp_path, monkeypatch):
    monkeypatch.setattr(recordings, "measurements_dir", lambda: tmp_path / "no-measurements")
    monkeypatch.setattr(recordings, "_bundle", lambda: None)


def test_repo_reads_the_files_themselves():
    assert recordings.source() == "measurements/h200"
    assert recordings.load("gemm") == json.loads((H200 / "gemm" / "results.json").read_text(encoding="utf-8"))
    assert recordings.load("gemm_tiled_source") == (H200 / "gemm" / "gemm_tiled.cuh").read_text(encoding="utf-8")
    with pytest.raises(KeyError, match="unknown H200 recording 'nope'"):
        recordings.load("nope")


def test_parsers_against_the_raw_files():
    # registers: the csv module straight on the file (the header row names the column)
    rows = list(csv.DictReader((H200 / "raw2" / "gemm" / "ncu_gemm_64.csv").read_text(encoding="utf-8").splitlines()))
    regs = {r["Kernel Name"]: int(r["launch__registers_per_thread"]) for r in rows
            if r["launch__registers_per_thread"].isdigit()}
    assert regs and recordings.load("gemm_registers") == regs
    # SASS: count the LDS/STS mnemonics of one function by hand
    text = (H200 / "raw2" / "sass_gemm_bench.txt").read_text(encoding="utf-8")
    body = text.split("Function : gemm_tiled16\n", 1)[1].split("Function : ", 1)[0]
    lds = sum(1 for ln in body.splitlines() if " LDS " in ln.replace("@P0 ", "").replace("@!P0 ", ""))
    assert lds > 0 and recordings.load("gemm_sass")["gemm_tiled16"].get("LDS", 0) == lds
    # sanitizer: every "outputs wrong" line of the plain runs is kept
    san = recordings.load("sanitizer")
    raw = (H200 / "raw" / "sanitizer.txt").read_text(encoding="utf-8")
    for shape, (wrong, total) in san["wrong_outputs"]["plain"].items():
        assert f"transpose_tiled_nosync {shape}: {wrong} of {total} outputs wrong" in raw
    assert san["misaligned"]["plain"] in raw and san["hazards"]["errors"] > 0


def test_read_with_a_path_parses_that_file(tmp_path):
    p = tmp_path / "bw.json"
    p.write_text('{"meta": {}, "records": [{"name": "copy", "n": 1}]}', encoding="utf-8")
    assert recordings.read("bandwidth", p)["records"][0]["name"] == "copy"
    assert recordings.read("bandwidth", tmp_path / "absent.json") is None


def test_load_hands_out_copies():
    recordings.load("gemm")["counters"].clear()
    assert recordings.load("gemm")["counters"]


def test_the_kit_shows_the_h200_columns_from_its_bundle(kit_only):
    """Without measurements/, the lessons' H200 tables read the bundle: the same numbers, no 'not recorded'."""
    assert recordings.source() == "kit bundle"
    assert sorted(kit_only) == sorted(recordings.KIT)
    assert recordings.gemm_counters("gemm_tiled16")["smsp__inst_executed_op_shared_ld.sum"] == 10240
    cells = [c for row in p2.pattern_table().data for c in row]
    cells += [c for row in lesson08.ncu_table().data for c in row]
    cells += [c for row in lesson09.misaligned_table().data for c in row]
    cells += [c for row in lesson09.bandwidth_table().data for c in row]
    # cases the H200 never ran read "—", so "not recorded" means what it says: the recording is missing
    race = lesson09.h200_race_table().data
    cells += [c for row in race for c in row] + [c for row in p2.row_col_table().data for c in row]
    assert not [c for c in cells if c in NONE]
    assert "—" in [row[1] for row in race] and "—" in [row[-1] for row in p2.row_col_table().data]
    assert lesson09.recorded_wrong_outputs()["plain"][(64, 64)][1] == 4096
    assert lesson10.recorded_registers() == recordings.parse_file("gemm_registers",
                                                                  H200 / "raw2" / "gemm" / "ncu_gemm_64.csv")


def test_nothing_recorded_says_so(nothing_recorded):
    assert recordings.source() == "nothing recorded" and recordings.load("gemm") is None
    assert all(row[6] in NONE for row in p2.pattern_table().data)
    assert all(row[1] in NONE and row[2] in NONE for row in lesson09.h200_race_table().data)
    assert lesson10.recorded_registers() == {} and lesson10.sass_counts() == {}


def test_write_bundle_refuses_an_empty_kit(tmp_path):
    with pytest.raises(FileNotFoundError, match="no H200 recording"):
        recordings.write_bundle(tmp_path / "figures", tmp_path / "nowhere")
