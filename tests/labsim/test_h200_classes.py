"""labsim against the H200 on issue 17's kernel classes (measurements/h200/classes/) and the recorded GEMMs:
cell for cell, in both counting modes, with no compiler needed.

Vectorised shared loads (LDS.128 from ``t[i][0..3]`` and unrolled loops), 128-bit shared loads by half-warp,
warp-aggregated integer atomics, branch vs predication (a shared-memory reduction, a stencil with halo) and
1-/2-byte and struct types are exact both ways labsim decides what the compiler did: by its source rules (the
default) and from the kernel's SASS, here the ``nvdisasm`` output recorded in tests/fixtures/sass/ (compare.py
``--write-sass-fixtures`` writes it where nvcc is installed). The default count does not depend on whether nvcc
is on the PATH. Not compared: a shared float ``atomicAdd`` (a CAS loop whose retries depend on timing).
"""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from labsim.cuda import sass

H = Path(__file__).resolve().parents[2] / "measurements" / "h200" / "classes"
_spec = importlib.util.spec_from_file_location("h200_classes_compare", H / "compare.py")
compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare)

RECORDED = json.loads((H / "results.json").read_text(encoding="utf-8"))["kernels"]
GEMM = compare.recorded()[1]
NOT_COMPARED = {"satom_f32_same_one_2x256": "CAS loop: retries depend on timing"}
NAMES = [n for n in compare.kernel_names() if n not in NOT_COMPARED]
GEMMS = [n for n, _, _ in compare.GEMMS]


def _gemm(name: str, mode: str | None) -> dict:
    cache = _gemm.__dict__.setdefault("cache", {})
    if mode not in cache:
        cache[mode] = compare.run_gemm(mode)
    return cache[mode][name]


def _check(got: dict, h: dict, mode: str, name: str) -> None:
    assert "refused" not in got, got
    assert got["counting"] == mode
    diff = {m: (h[m], got[m]) for m in compare.METRICS if m in h and h[m] != got[m]}
    assert not diff, f"{name} (H200, labsim): {diff}"


@pytest.fixture
def no_nvcc(monkeypatch):
    """The default count may not even look for nvcc: every way labsim.cuda.sass finds or runs a tool fails the
    test, so the counters these tests compare with the H200 cannot depend on the PATH."""
    def never(*a, **k):
        pytest.fail("the default count looked for nvcc or compiled the kernel")
    for name in ("_tool", "available", "analyse", "disassemble"):
        monkeypatch.setattr(sass, name, never)
    monkeypatch.delenv("LABSIM_COUNTING", raising=False)


def test_every_launch_of_classes_cu_is_recorded():
    assert set(compare.kernel_names()) == set(RECORDED)
    assert len(NAMES) == len(RECORDED) - len(NOT_COMPARED) == 40


def test_every_compared_kernel_has_recorded_sass():
    missing = [f"{g}/{n}" for g, ns in (("classes", NAMES), ("gemm", GEMMS)) for n in ns
               if not compare.fixture_path(g, n).is_file()]
    assert not missing, f"no recorded SASS (run compare.py --write-sass-fixtures): {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_source_rules_equal_the_h200_without_nvcc(name, no_nvcc):
    _check(compare.run_one(name), RECORDED[name], "source-rules", name)


@pytest.mark.parametrize("name", NAMES)
def test_recorded_sass_equals_the_h200(name):
    _check(compare.run_one(name, "sass"), RECORDED[name], "sass", name)


@pytest.mark.parametrize("name", GEMMS)
def test_gemm_both_modes_equal_the_h200(name, no_nvcc):
    _check(_gemm(name, None), GEMM[name], "source-rules", name)
    _check(_gemm(name, "sass"), GEMM[name], "sass", name)


def test_the_default_count_does_not_depend_on_the_path(monkeypatch):
    """The same counters for every recorded kernel whether nvcc is on the PATH or not (hidden here by making
    the tool lookup find nothing): the default mode never looks for a compiler."""
    names = NAMES[::5] + ["satom_f32_same_one_2x256"]
    with_tools = {n: compare.run_one(n) for n in names}
    monkeypatch.setattr(sass, "_tool", lambda name: None)
    without = {n: compare.run_one(n) for n in names}
    assert with_tools == without
    assert {r["counting"] for r in without.values()} == {"source-rules"}


def test_sass_mode_is_an_explicit_opt_in(monkeypatch):
    monkeypatch.setattr(sass, "_tool", lambda name: None)
    monkeypatch.setenv("LABSIM_COUNTING", "sass")
    got = compare.run_one(NAMES[0])
    assert "refused" in got and "needs nvcc and nvdisasm" in got["refused"]
    monkeypatch.setenv("LABSIM_COUNTING", "ptx")
    assert "LABSIM_COUNTING" in compare.run_one(NAMES[0])["refused"]


def test_the_comparison_can_fail(monkeypatch):
    """Counting model 1 (no compiler rewrites) differs from the H200 on the classes the issue names, and
    counting the accesses as written ("source") differs from the H200 where ptxas merged loads."""
    before = json.loads((H / "labsim_before.json").read_text(encoding="utf-8"))
    wf = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    assert before["gemm_tiled16"][wf] == 16384 != GEMM["gemm_tiled16"][wf] == 12288
    sec = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"
    assert before["gatom_i32_same_one_w1"][sec] == 32 != RECORDED["gatom_i32_same_one_w1"][sec] == 1
    written = compare.run_one("vlds_row4_w1", "source")
    assert written["smsp__inst_executed_op_shared_ld.sum"] == 4 != RECORDED["vlds_row4_w1"][
        "smsp__inst_executed_op_shared_ld.sum"]


# ---- round 3: issue 23 item 7's classes (measurements/h200/round3/classes3.cu) ---------------------------------
R3 = compare.recorded3()
NAMES3 = list(compare.classes3_launches())
# Where labsim still differs from the H200, and why (COMPARISON.md lists every counter).
KNOWN3 = {
    "scan_blelloch_b256": "ptxas unrolls the sweeps (a loop over d >>= 1) and, with offset known in each copy, "
                          "merges the first step's temp[2t], temp[2t+1] into LDS.64: no rule follows constants "
                          "through a shift-bound loop",
    "scan_blelloch_padded_b256": "as scan_blelloch_b256 (the unrolled sweeps: fewer executed shared instructions)",
}


def _check3(name: str, mode: str | None, want_mode: str) -> None:
    got = compare.run3_one(name, mode)
    assert "refused" not in got, got
    assert got["counting"] == want_mode
    h = R3[name]
    skip = compare.DATA_DEPENDENT.get(name, {})
    diff = {m: (h[m], got[m]) for m in compare.METRICS if m in h and m not in skip and h[m] != got[m]}
    assert not diff, f"{name} (H200, labsim): {diff}"


def _known3(name):
    return pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN3[name])) if name in KNOWN3 \
        else name


def test_every_launch_of_classes3_is_recorded_with_its_sass():
    assert set(NAMES3) == set(R3) and len(NAMES3) == 64
    assert compare.fixture_path("classes3", "classes3").is_file()
    assert set(compare.DATA_DEPENDENT) <= set(R3)


@pytest.mark.parametrize("name", [_known3(n) for n in NAMES3])
def test_classes3_source_rules_equal_the_h200(name, no_nvcc):
    _check3(name, None, "source-rules")


@pytest.mark.parametrize("name", [_known3(n) for n in NAMES3])
def test_classes3_recorded_sass_equals_the_h200(name):
    _check3(name, "sass", "sass")


def test_classes3_scans_race_where_racecheck_found_hazards():
    """compute-sanitizer racecheck on the H200 (round3 results.json, sanitizer.classes3_scan): hazards only in the
    in-place Hillis-Steele scan, all on its update line; labsim's race detector agrees, kernel by kernel."""
    rec = json.loads((compare.R3 / "results.json").read_text(encoding="utf-8"))["sanitizer"]["classes3_scan"]
    racy = set(rec["kernels"])
    lines = {p[k]["line"] for p in rec["pairs"] for k in ("first", "second")}
    prog = compare.classes3_program()
    for name in ("scan_hillis_steele_b256", "scan_hillis_steele_inplace_racy_b256", "scan_blelloch_b256",
                 "scan_blelloch_padded_b256"):
        grid, block, args = compare.classes3_launches()[name]
        bufs, _ = compare.classes3_buffers()
        st_ = prog.launch(name, grid, block, [compare._arg3(a, bufs) for a in args]).stats
        assert (st_.race_count > 0) == (name in racy), name
        if name in racy:
            assert {ln for r in st_.races for ln in (r.first_line, r.second_line)} == lines == {329}


# ---- round 3: issue 29's challenge kernels (the lessons' next exercises) at labsim's small shapes -------------
CHAL = compare.recorded_challenges()
KNOWN_CHAL: dict = {}        # every recorded challenge kernel is equal now (COMPARISON.md)


@pytest.mark.parametrize("key,shape", [
    pytest.param(k, s, marks=pytest.mark.xfail(strict=True, reason=KNOWN_CHAL[k])) if k in KNOWN_CHAL else (k, s)
    for k, shapes in CHAL.items() for s in shapes])
def test_challenge_kernels_source_rules_equal_the_h200(key, shape, no_nvcc):
    got = compare.run_challenge(key, shape)
    assert "refused" not in got, got
    h = CHAL[key][shape]
    diff = {m: (h[m], got[m]) for m in compare.METRICS if m in h and h[m] != got[m]}
    assert not diff, f"{key} {shape} (H200, labsim): {diff}"
