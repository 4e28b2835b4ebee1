"""labsim against the H200 on issue 17's kernel classes (measurements/h200/classes/): cell for cell.

Vectorised shared loads (LDS.128 from ``t[i][0..3]`` and unrolled loops), 128-bit shared loads by half-warp,
warp-aggregated integer atomics, branch vs predication (a shared-memory reduction, a stencil with halo) and
1-/2-byte and struct types are exact both ways labsim decides what the compiler did: from the kernel's SASS
(nvcc available) and from its source rules (``LABSIM_SASS=0``). Not compared: a shared float ``atomicAdd`` (a
CAS loop whose retries depend on timing).
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
NOT_COMPARED = {"satom_f32_same_one_2x256": "CAS loop: retries depend on timing"}
NAMES = [n for n in compare.kernel_names() if n not in NOT_COMPARED]


@pytest.fixture(autouse=True)
def _private_sass_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("LABSIM_SASS_CACHE", str(tmp_path_factory.getbasetemp() / "sass-cache"))


def _check(name: str, mode: str) -> None:
    got = compare.run_one(name)
    assert "refused" not in got, got
    assert got["counting"] == mode
    h = RECORDED[name]
    diff = {m: (h[m], got[m]) for m in compare.METRICS if m in h and h[m] != got[m]}
    assert not diff, f"{name} (H200, labsim): {diff}"


def test_every_launch_of_classes_cu_is_recorded():
    assert set(compare.kernel_names()) == set(RECORDED)
    assert len(NAMES) == len(RECORDED) - len(NOT_COMPARED) == 40


@pytest.mark.parametrize("name", NAMES)
def test_source_rules_equal_the_h200(name, monkeypatch):
    monkeypatch.setenv("LABSIM_SASS", "0")
    _check(name, "source-rules")


@pytest.mark.skipif(not sass.available(), reason="nvcc or nvdisasm not installed: no SASS")
@pytest.mark.parametrize("name", NAMES)
def test_sass_equals_the_h200(name):
    _check(name, "sass")


def test_the_comparison_can_fail(monkeypatch):
    """Counting model 1 (no compiler rewrites) differs from the H200 on the classes the issue names."""
    before = json.loads((H / "labsim_before.json").read_text(encoding="utf-8"))
    wf = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
    assert before["gemm_tiled16"][wf] == 16384 != RECORDED.get("gemm_tiled16", {wf: 12288})[wf]
    sec = "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum"
    assert before["gatom_i32_same_one_w1"][sec] == 32 != RECORDED["gatom_i32_same_one_w1"][sec] == 1
