"""labsim's racecheck-style hazard report (labsim.racecheck) against brute force and the recorded H200 racecheck.

Brute force: a one-block kernel where thread t writes s[t] then, with no barrier, reads s[f(t)]. Under the
lockstep schedule every write precedes every read, so racecheck's rule (per element, the first read by another
thread after the write) gives one RAW per element that some other thread reads, severity from the warps of the
writer and of the first such reader (the lowest thread id), weighted by 4 bytes.
H200: measurements/h200/racecheck/results.json (compute-sanitizer 2025.3.1, both report modes).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labsim.cuda as lc
from labsim import launch, racecheck

ROOT = Path(__file__).resolve().parents[2]
H200 = ROOT / "measurements" / "h200"
RECORDED = H200 / "racecheck" / "results.json"


def _brute(f: list[int]) -> tuple[int, int]:
    errors = warnings = 0
    for e in range(len(f)):
        readers = [t for t in range(len(f)) if f[t] == e and t != e]
        if not readers:
            continue
        if min(readers) // 32 == e // 32:
            warnings += 4
        else:
            errors += 4
    return errors, warnings


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_racecheck_tally_matches_brute_force(data):
    n = data.draw(st.sampled_from([32, 64, 96, 128]))
    f = data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    idx = np.array(f)

    def kernel(blk):
        s = blk.shared(n, np.float32, name="s")
        blk.sstore(s, blk.tx, 1.0, name="s", line=1)
        blk.sload(s, idx[blk.tx], name="s", line=2)

    st_ = launch(kernel, grid=1, block=n)
    rep = racecheck.report(st_)
    assert (rep["errors"], rep["warnings"]) == _brute(f)
    assert all((g["kind"], g["first_line"], g["second_line"]) == ("RAW", 1, 2) for g in rep["groups"])


def _recorded() -> dict:
    if not RECORDED.is_file():
        pytest.skip("no recorded racecheck run")
    return json.loads(RECORDED.read_text(encoding="utf-8"))


def _transpose_program():
    src = (H200 / "race.cu").read_text(encoding="utf-8")
    return lc.compile(src[:src.index("int main(")], "race.cu")


@pytest.mark.parametrize("shape", ["32x32", "64x64", "33x45"])
@pytest.mark.parametrize("schedule", ["lockstep", "adversarial"])
def test_transpose_without_barrier_equals_racecheck(shape, schedule):
    """One writer and one reader per element: errors and warnings equal racecheck's, on race.cu's lines."""
    cases = {(c["mode"], c["shape"]): c for c in _recorded()["cases"] if c["kernel"] == "transpose_tiled_nosync"}
    M, N = map(int, shape.split("x"))
    a = np.arange(M * N, dtype=np.float32).reshape(M, N)
    res = _transpose_program().launch("transpose_tiled_nosync", (-(-N // 32), -(-M // 32)), (32, 8),
                                      (a, np.zeros((N, M), np.float32), M, N), schedule=schedule)
    rep = racecheck.report(res.stats)
    hz = cases[("hazard", shape)]["summary"]
    assert (rep["errors"], rep["warnings"]) == (hz["errors"], hz["warnings"])
    pairs = cases[("analysis", shape)]["pairs"]
    assert rep["errors"] + rep["warnings"] == sum(p["hazards"] for p in pairs)
    recorded_lines = {frozenset((p["first"]["line"], p["second"]["line"])) for p in pairs}
    assert {frozenset((g["first_line"], g["second_line"])) for g in rep["groups"]} == recorded_lines


def _gemm(variant: str):
    src = (H200 / "gemm" / "gemm_tiled.cuh").read_text(encoding="utf-8")
    return lc.compile(src.replace(f"#define {variant} 1", f"#define {variant} 0"), "gemm_tiled.cuh")


@pytest.mark.parametrize("kernel, variant", [("gemm_tiled16_nosync1", "SYNC1"), ("gemm_tiled16_nosync2", "SYNC2")])
def test_gemm_without_a_barrier_matches_racecheck_lines_and_bounds(kernel, variant):
    """Several readers per element: the same (severity, lines) groups as racecheck, and racecheck's total (which
    varies between runs of one launch) between labsim's and twice labsim's."""
    cases = [c for c in _recorded()["cases"] if c["kernel"] == kernel]
    prog = _gemm(variant)
    rng = np.random.default_rng(1)
    for case in cases:
        M, N, K = map(int, case["shape"].split("x"))
        a, b = rng.random((M, K), dtype=np.float32), rng.random((K, N), dtype=np.float32)
        stats = prog.launch("gemm_tiled", (-(-N // 16), -(-M // 16)), (16, 16),
                            (a, b, np.zeros((M, N), np.float32), M, N, K)).stats
        rep = racecheck.report(stats)
        s = case["summary"]
        lab_total = rep["errors"] + rep["warnings"]
        if case["mode"] == "analysis":
            # the analysis report groups per instruction pair, one severity per group: compare totals and lines
            total = sum(p["hazards"] for p in case["pairs"])
            rec_lines = {frozenset((p["first"]["line"], p["second"]["line"])) for p in case["pairs"]}
            assert rec_lines == {frozenset((g["first_line"], g["second_line"])) for g in rep["groups"]}
            assert lab_total <= total <= 2 * lab_total, case["file"]
            continue
        if case["complete"]:
            lab = {(g["severity"], frozenset((g["first_line"], g["second_line"]))) for g in rep["groups"]}
            rec = {(g["severity"], frozenset((g["first"]["line"], g["second"]["line"]))) for g in case["groups"]}
            assert rec == lab
        assert lab_total <= s["errors"] + s["warnings"] <= 2 * lab_total, case["file"]
        assert (rep["errors"] > 0, rep["warnings"] > 0) == (s["errors"] > 0, s["warnings"] > 0)
