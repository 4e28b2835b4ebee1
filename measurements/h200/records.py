"""Loader for the H200 recordings in this folder: what each file holds, and None where nothing is recorded.

Code that shows H200 numbers (lessons, figures) should read them through these functions, so that a missing
file reads as "not recorded" instead of a guess. Standard library only; no file is written.

    import importlib.util, pathlib
    spec = importlib.util.spec_from_file_location("h200_records", pathlib.Path("measurements/h200/records.py"))
    ...  # or sys.path.insert(0, "measurements/h200"); import records

Every file has a ``meta`` block (GPU, driver, nvcc, ncu, date, the exact command). README.md describes the
kernels, the commands and what the numbers show.
"""
from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

FILES = {
    "round1": "results.json",                 # microbench.cu: 87 one-warp/small kernels, 12 contract counters
    "patterns": "patterns/results.json",      # 471 table-driven one-warp patterns (shared ld/st, global ld)
    "bandwidth": "bandwidth/results.json",    # Harris's experiment: records name, n, runs, median_ms, gbps_*, dram_bytes_*
    "bandwidth_details": "bandwidth/details.json",  # every timed run and each kernel's ncu counters
    "gemm": "gemm/results.json",              # lesson 10's GEMMs: check, counters {shape: {kernel: metrics}}, timing
    "classes": "classes/results.json",        # issue 17's kernel classes: kernels {name: metrics + grid/block}
    "p2": "p2/results.json",                  # P2 demo-1 patterns as the P2 script launches them: kernels {...}
    "racecheck": "racecheck/results.json",    # racecheck cases (analysis pairs / hazard groups), plain runs
    "n8192": "n8192/results.json",            # shared wavefronts vs N, occupancy, no-load variants, source counters
}


def load(name: str) -> dict | None:
    """The parsed file ``name`` (a key of FILES), or None when it is not recorded here."""
    if name not in FILES:
        raise KeyError(f"unknown H200 recording {name!r}; known: {', '.join(FILES)}")
    path = HERE / FILES[name]
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def bandwidth_record(name: str, n: int) -> dict | None:
    """One record of bandwidth/results.json (e.g. ``bandwidth_record("transpose_naive", 8192)``), or None."""
    data = load("bandwidth")
    if data is None:
        return None
    return next((r for r in data["records"] if r["name"] == name and r["n"] == n), None)


def gemm_counters(kernel: str, shape: str = "64x64x64") -> dict | None:
    """ncu counters of one GEMM kernel at ``shape`` ("64x64x64" or "70x45x33"), or None."""
    data = load("gemm")
    return None if data is None else data["counters"].get(shape, {}).get(kernel)


def gemm_gflops(name: str) -> float | None:
    """Median GFLOP/s at 4096³ of a GEMM kernel, "cublas_sgemm" or "torch_matmul_fp32_no_tf32", or None."""
    data = load("gemm")
    if data is None:
        return None
    return next((t["gflops_median"] for t in data["timing"] if t["name"] == name), None)


def kernel_counters(recording: str, kernel: str) -> dict | None:
    """Counters of one kernel of the "classes" or "p2" recording, or None."""
    data = load(recording)
    return None if data is None else data["kernels"].get(kernel)
