"""The course's P2 script: its table values against independent references.

Expected sectors per request are the H200 measurements quoted in the design card (contiguous 4, offset 5,
stride 2/4/8/32 -> 8/16/32/32, broadcast 1, float64 8, 16-byte 16) and, independently, a brute-force count of
the same index patterns.
"""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

from labsim_reference import global_counts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "lessons", "prelude", "02_memory_coalescing.py")


@pytest.fixture(scope="module")
def p2():
    spec = importlib.util.spec_from_file_location("p2_script", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


H200_SECTORS = {0: 4, 1: 5, 2: 8, 3: 16, 4: 32, 5: 32, 6: 1, 8: 8, 9: 16}


def test_demo1_patterns_match_h200_and_brute_force(p2, capsys):
    rows = p2.demo1_patterns(n_blocks=4, threads=256)
    cases = p2.access_patterns(4 * 256)
    for k, row in enumerate(rows):
        name, arr, index_of = cases[k]
        idx = index_of(np.arange(4 * 256))
        req, sec, _ = global_counts(idx * arr.dtype.itemsize, np.ones(idx.size, bool), (4,), (256,),
                                    arr.dtype.itemsize)
        assert row["sectors_per_request"] == pytest.approx(sec / req), name
        if k in H200_SECTORS:
            assert row["sectors_per_request"] == H200_SECTORS[k], name
    assert "合并效率" in capsys.readouterr().out


def test_demo2_transpose_table(p2):
    out = {r["case"]: r for r in p2.demo2_transpose(128)}
    copy, naive, tiled, padded, nosync, adv = out.values()
    assert naive["stats"].gst_sectors == 8 * copy["stats"].gst_sectors
    assert naive["stats"].gld_sectors == copy["stats"].gld_sectors
    assert tiled["stats"].bank_conflict_factor() == pytest.approx(16.5)
    assert padded["stats"].bank_conflict_factor() == pytest.approx(1.0)
    assert nosync["stats"].race_count > 0 and adv["stats"].race_count > 0
    assert not adv["correct"]
    assert all(r["correct"] for r in (copy, naive, tiled, padded, nosync))


@pytest.fixture(scope="module")
def quick_run():
    """The script's ``--quick`` run as a user starts it (its own Python), once for the tests that read it."""
    return subprocess.run([sys.executable, SCRIPT, "--quick"], capture_output=True, text=True, timeout=600)


def test_script_runs_quick(quick_run):
    r = quick_run
    assert r.returncode == 0, r.stderr
    assert "演示 1" in r.stdout and "演示 2" in r.stdout and "16.5" in r.stdout


def test_transpose_bandwidth_table_shows_the_recorded_h200_values(p2):
    import json
    rec = json.load(open(os.path.join(ROOT, "measurements", "h200", "bandwidth", "results.json"), encoding="utf-8"))
    median = {(r["name"], r["n"]): r["gbps_median"] for r in rec["records"]}
    # copy is compared as copy with __restrict__, like the transposes (issue 26 item 7)
    cases = [("copy_kernel", {}, "copy_restrict"), ("transpose_naive", {}, "transpose_naive"),
             ("transpose_tiled", {"pad": 0}, "transpose_tiled_pad0"), ("transpose_tiled", {"pad": 1}, "transpose_tiled_pad1")]
    for kernel, kw, name in cases:
        for n in (1024, 8192):
            assert p2.h200_gbps(kernel, kw, n) == f"{median[(name, n)]:.0f}"
    assert p2.h200_gbps("transpose_tiled", {"pad": 7}, 1024) == "未记录"


def test_script_prints_the_h200_columns(quick_run):
    r = quick_run
    assert "H200 实测 8192²" in r.stdout and "H200 实测 1024²" in r.stdout


def test_script_text_agrees_with_its_output(p2, quick_run):
    """Issue 26 item 8: the script said its estimate over-estimates the naive transpose's cost; its own table
    shows the opposite. The observation is now computed: it must say what the recorded numbers say."""
    r = quick_run
    assert "高估" not in r.stdout and "HBM 时间" not in r.stdout
    import json
    rec = json.load(open(os.path.join(ROOT, "measurements", "h200", "bandwidth", "results.json"), encoding="utf-8"))
    naive = next(x for x in rec["records"] if x["name"] == "transpose_naive" and x["n"] == 8192)
    line = next(ln for ln in r.stdout.splitlines() if "朴素转置估计" in ln)
    est = int(line.split("朴素转置估计 ")[1].split(" GB/s")[0])
    assert f"实测 {naive['gbps_median']:.0f} GB/s" in line
    assert est > naive["gbps_median"] and "估计偏乐观" in line     # estimated faster than measured: optimistic
