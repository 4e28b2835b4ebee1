"""The H200's recorded bandwidth (measurements/h200/bandwidth/) beside labsim's two estimates, for the lessons.

``bandwidth_comparison()`` gives one row per recorded kernel and size: the H200's median effective bandwidth
(and the range of its timed runs), ``labsim.estimate_time`` (every L1 sector at the datasheet DRAM peak) and
``labsim.estimate_traffic`` (DRAM bytes each array moves once, partial-sector L2 writes, L1 lines, shared
wavefronts), each
as a bandwidth and as its error against the H200 (estimate / measured − 1, in bandwidth). The kernels are the
course's (block 32×8, TILE_DIM 32); labsim simulates them on a 128×128 matrix (16 identical blocks) and scales
the counts to n×n, which is exact for these kernels: their per-block counts do not depend on n.

Where the recording is absent, ``bandwidth_comparison()`` returns None: callers say "not recorded".
"""
from __future__ import annotations


import numpy as np

from labsim import estimate_time, estimate_traffic, launch

from . import recordings
from .lesson09_kernels import BLOCK_ROWS, TILE_DIM, copy_kernel, transpose_naive, transpose_tiled

SIM_N = 128


def transpose_naive_colread(blk, inp, out, M, N):
    """The other naive transpose: reads down a column of ``input`` (stride N floats), writes a row of ``output``."""
    x = blk.bx * TILE_DIM + blk.tx
    y = blk.by * TILE_DIM + blk.ty
    for j in range(0, TILE_DIM, BLOCK_ROWS):
        with blk.where((y + j < N) & (x < M)):
            v = blk.load(inp, x * N + (y + j), name="input")
            blk.store(out, (y + j) * M + x, v, name="output")


def _tiled(**options):
    def kernel(blk, inp, out, M, N):
        transpose_tiled(blk, inp, out, M, N, **options)
    return kernel


KERNELS = {
    "copy": copy_kernel,
    "copy_restrict": copy_kernel,          # the same accesses; the H200 reads it through the read-only path
    "transpose_naive": transpose_naive,
    "transpose_naive_colread": transpose_naive_colread,
    "transpose_tiled_pad0": _tiled(pad=0),
    "transpose_tiled_pad1": _tiled(pad=1),
    "transpose_tiled_swizzle": _tiled(pad=0, swizzle=True),
}


def simulate(name: str, n: int = SIM_N):
    """labsim's Stats for one recorded kernel on an n×n float32 matrix (n a multiple of 32)."""
    if name not in KERNELS:
        raise ValueError(f"no labsim kernel for {name!r}; known: {', '.join(KERNELS)}")
    if n <= 0 or n % TILE_DIM:
        raise ValueError(f"n must be a positive multiple of {TILE_DIM}, got {n}")
    a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
    return launch(KERNELS[name], grid=(n // TILE_DIM, n // TILE_DIM), block=(TILE_DIM, BLOCK_ROWS),
                  args=(a, np.zeros_like(a), n, n), name=name)


def load_recording() -> dict | None:
    """bandwidth/results.json through figures.recordings (the repo's measurements/ or the kit's bundle)."""
    return recordings.load("bandwidth")


def bandwidth_comparison() -> list[dict] | None:
    """Rows {name, n, h200_gbps, h200_min, h200_max, first_order_gbps, first_order_error, traffic_gbps,
    traffic_error, traffic_bound} (bandwidths in GB/s, errors as fractions), or None when not recorded."""
    data = load_recording()
    if data is None:
        return None
    rows, cache = [], {}
    for r in data["records"]:
        name, n = r["name"], r["n"]
        if name not in cache:
            cache[name] = simulate(name)
        stats, scale = cache[name], (n / SIM_N) ** 2
        useful = 2 * n * n * 4
        first = estimate_time(stats)["t_est"] * scale
        traffic = estimate_traffic(stats, footprint={"input": n * n * 4, "output": n * n * 4}, scale=scale)
        bound = max(("t_dram", "t_l2", "t_l1", "t_shared"), key=lambda k: traffic[k])
        g_first, g_traffic = useful / first / 1e9, useful / traffic["t_est"] / 1e9
        rows.append({"name": name, "n": n, "h200_gbps": r["gbps_median"], "h200_min": r["gbps_min"],
                     "h200_max": r["gbps_max"], "first_order_gbps": g_first,
                     "first_order_error": g_first / r["gbps_median"] - 1, "traffic_gbps": g_traffic,
                     "traffic_error": g_traffic / r["gbps_median"] - 1, "traffic_bound": bound[2:]})
    return rows


def markdown() -> str:
    rows = bandwidth_comparison()
    if rows is None:
        return "H200 bandwidth: not recorded"
    out = ["| kernel | n | H200 GB/s (median [min, max]) | estimate_time GB/s (error) | "
           "estimate_traffic GB/s (error, bound by) |", "|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| `{r['name']}` | {r['n']} | {r['h200_gbps']:.0f} [{r['h200_min']:.0f}, {r['h200_max']:.0f}] | "
                   f"{r['first_order_gbps']:.0f} ({100 * r['first_order_error']:+.0f}%) | {r['traffic_gbps']:.0f} "
                   f"({100 * r['traffic_error']:+.0f}%, {r['traffic_bound']}) |")
    return "\n".join(out)


if __name__ == "__main__":
    print(markdown())
