"""Every metric labsim reports is one Nsight Compute knows: checked against the recorded ``ncu --query-metrics``
output of the H200 (measurements/h200/raw/query_metrics.txt), not against a list written here."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import labsim.cuda as lc
from labsim.stats import METRIC_NAMES, REQUIRED_METRICS

QUERY = Path(__file__).resolve().parents[2] / "measurements" / "h200" / "raw" / "query_metrics.txt"
SUFFIXES = (".sum", ".avg", ".max", ".min")


def _known() -> set[str]:
    if not QUERY.is_file():
        pytest.skip("no recorded ncu --query-metrics output")
    names = set()
    for ln in QUERY.read_text(encoding="utf-8").splitlines():
        parts = ln.split()
        if len(parts) >= 2 and parts[1] in ("Counter", "Ratio", "Throughput"):
            names.add(parts[0])
    assert len(names) > 1000, "query_metrics.txt did not parse"
    return names


def _base(metric: str) -> str:
    for suf in SUFFIXES:
        if metric.endswith(suf):
            return metric[: -len(suf)]
    raise AssertionError(f"{metric}: no rollup suffix")


@pytest.mark.parametrize("metric", REQUIRED_METRICS)
def test_every_reported_metric_is_a_real_ncu_metric(metric):
    assert _base(metric) in _known(), metric


def test_the_check_rejects_a_name_ncu_does_not_know():
    # the name labsim used for ATOMG before issue 17: ncu 2025.3.1 has no such metric
    assert "smsp__inst_executed_op_global_atom" not in _known()
    assert "smsp__sass_inst_executed_op_global_atom" in _known()


def test_a_launch_reports_only_known_names():
    src = """
__global__ void k(float* a, int* c) {
    __shared__ float s[32];
    s[threadIdx.x] = a[threadIdx.x];
    __syncthreads();
    a[threadIdx.x] = s[31 - threadIdx.x];
    c[threadIdx.x] = atomicAdd(&c[0], 1);
}
"""
    st = lc.compile(src, "k.cu").launch("k", 1, 32, (np.zeros(32, np.float32), np.zeros(32, np.int32))).stats
    known = _known()
    assert st.metrics and all(_base(m) in known for m in st.metrics)
    assert st.metrics[METRIC_NAMES["global", "atom", "executed"]] == 1
