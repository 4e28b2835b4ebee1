"""CUDA C versions of the H200 microbenchmarks (measurements/h200/microbench.cu) against Nsight Compute.

Each kernel below is the measured kernel's body written in labsim's subset (the original uses macros with
## and overloads, which labsim does not take); the launch shapes are the measured ones. Compared: every
request, sector, wavefront and bank-conflict counter. Not compared: smsp__inst_executed_*, where ptxas chose
between a branch and predication (the engine's model counts predicated-off warps, see DESIGN).
"""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

import labsim
import labsim.cuda as lc

RESULTS = os.path.join(os.path.dirname(__file__), "..", "..", "measurements", "h200", "results.json")
COST = [k for k in labsim.REQUIRED_METRICS if "inst_executed" not in k]

PRELUDE = r"""
#include <cuda_fp16.h>
__device__ __forceinline__ int gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ void fill_words(void* base, int nwords) {
    unsigned* w = static_cast<unsigned*>(base);
    for (int i = threadIdx.x; i < nwords; i += blockDim.x) w[i] = 2654435761u * static_cast<unsigned>(i);
}
"""
TO_F = {"float": "{v}", "double": "static_cast<float>({v})", "float2": "{v}.x + {v}.y",
        "float4": "({v}.x + {v}.y) + ({v}.z + {v}.w)", "__half": "__half2float({v})"}

GLD = {  # name: (element type, index)
    "gld_f32_contig": ("float", "tid"), "gld_f32_offset1": ("float", "tid + 1"),
    "gld_f32_stride2": ("float", "tid * 2"), "gld_f32_stride4": ("float", "tid * 4"),
    "gld_f32_stride8": ("float", "tid * 8"), "gld_f32_stride32": ("float", "tid * 32"),
    "gld_f32_broadcast": ("float", "0"), "gld_f64_contig": ("double", "tid"),
    "gld_f32x4_contig": ("float4", "tid"), "gld_f32x2_contig": ("float2", "tid"),
    "gld_f16_contig": ("__half", "tid"),
}
GST = {"gst_f32_contig": "tid", "gst_f32_offset1": "tid + 1", "gst_f32_stride32": "tid * 32"}
SLD = {  # name: (declaration, element type, expression)
    "sld_f32_row_w1": ("float tile[32][32]", "float", "tile[3][lane]"),
    "sld_f32_col_pad0_w1": ("float tile[32][32]", "float", "tile[lane][7]"),
    "sld_f32_col_pad1_w1": ("float tile[32][33]", "float", "tile[lane][7]"),
    "sld_f32_col_pad2_w1": ("float tile[32][34]", "float", "tile[lane][7]"),
    "sld_f32_col_xor_w1": ("float tile[32][32]", "float", "tile[lane][7 ^ lane]"),
    "sld_f32_broadcast_w1": ("float tile[32][32]", "float", "tile[2][5]"),
    "sld_f32_two_same_w1": ("float tile[32][32]", "float", "tile[0][lane == 1 ? 0 : lane]"),
    "sld_f32_two_conflict_w1": ("float tile[32][32]", "float", "tile[lane == 1 ? 1 : 0][lane == 1 ? 0 : lane]"),
    "sld_f16_row_w1": ("__half tile[32][32]", "__half", "tile[3][lane]"),
    "sld_f16_col_pad0_w1": ("__half tile[32][32]", "__half", "tile[lane][7]"),
    "sld_f16_col_pad1_w1": ("__half tile[32][33]", "__half", "tile[lane][7]"),
    "sld_f16_col_pad2_w1": ("__half tile[32][34]", "__half", "tile[lane][7]"),
    "sld_f64_contig_w1": ("double tile[32][32]", "double", "tile[3][lane]"),
    "sld_f64_stride2_w1": ("double tile[32][64]", "double", "tile[3][2 * lane]"),
    "sld_f64_col_pad0_w1": ("double tile[32][32]", "double", "tile[lane][7]"),
    "sld_f64_col_pad1_w1": ("double tile[32][33]", "double", "tile[lane][7]"),
    "sld_f32x4_contig_w1": ("float4 tile[4][64]", "float4", "tile[1][lane]"),
    "sld_f32x4_stride2_w1": ("float4 tile[4][64]", "float4", "tile[1][2 * lane]"),
    "sld_f32x4_col_w1": ("float4 tile[32][8]", "float4", "tile[lane][1]"),
    "sld_f32x4_broadcast_w1": ("float4 tile[4][64]", "float4", "tile[1][5]"),
    "sld_f32x2_contig_w1": ("float2 tile[4][64]", "float2", "tile[1][lane]"),
    "sld_f32x2_stride2_w1": ("float2 tile[4][64]", "float2", "tile[1][2 * lane]"),
}
SST = {  # name: (declaration, lvalue, value)
    "sst_f32_row_w1": ("float tile[32][32]", "tile[3][lane]", "static_cast<float>(lane)"),
    "sst_f32_col_pad0_w1": ("float tile[32][32]", "tile[lane][7]", "static_cast<float>(lane)"),
    "sst_f32_col_pad1_w1": ("float tile[32][33]", "tile[lane][7]", "static_cast<float>(lane)"),
    "sst_f32_col_pad2_w1": ("float tile[32][34]", "tile[lane][7]", "static_cast<float>(lane)"),
    "sst_f32_col_xor_w1": ("float tile[32][32]", "tile[lane][7 ^ lane]", "static_cast<float>(lane)"),
    "sst_f32_broadcast_w1": ("float tile[32][32]", "tile[2][5]", "static_cast<float>(lane)"),
    "sst_f16_col_pad0_w1": ("__half tile[32][32]", "tile[lane][7]", "__int2half_rn(lane)"),
    "sst_f64_contig_w1": ("double tile[32][32]", "tile[3][lane]", "static_cast<double>(lane)"),
    "sst_f64_col_pad1_w1": ("double tile[32][33]", "tile[lane][7]", "static_cast<double>(lane)"),
    "sst_f32x4_contig_w1": ("float4 tile[4][64]", "tile[1][lane]", "make_float4(lane, 1.0f, 2.0f, 3.0f)"),
    "sst_f32x2_contig_w1": ("float2 tile[4][64]", "tile[1][lane]", "make_float2(lane, 1.0f)"),
}


def source() -> tuple[str, dict]:
    """Kernels and their launches: {kernel name: (grid, block, input element type or None)}."""
    parts, launches = [PRELUDE], {}
    for name, (t, idx) in GLD.items():
        for suffix, grid, block in (("_w1", 1, 32), ("_2x256", 2, 256)):
            parts.append(f"__global__ void {name}{suffix}(const {t}* in, float* sink) {{\n"
                         f"    const int tid = gtid();\n    const {t} v = in[{idx}];\n"
                         f"    sink[tid] = {TO_F[t].format(v='v')};\n}}")
            launches[name + suffix] = (grid, block, t)
    for name, idx in GST.items():
        for suffix, grid, block in (("_w1", 1, 32), ("_2x256", 2, 256)):
            parts.append(f"__global__ void {name}{suffix}(float* out) {{\n    const int tid = gtid();\n"
                         f"    out[{idx}] = static_cast<float>(tid);\n}}")
            launches[name + suffix] = (grid, block, None)
    parts.append("""
__global__ void gld_f32_halfwarp_w1(const float* in, float* sink) {
    const int tid = gtid();
    if ((threadIdx.x & 31) < 16) sink[tid] = in[tid];
}
__global__ void gld_f32_pred2_2x256(const float* in, float* sink) {
    const int tid = gtid();
    float a = 0.0f, b = 0.0f;
    if (threadIdx.x >= 64) a = in[tid];
    if (threadIdx.x >= 128) b = in[tid + 512];
    sink[tid] = a + b;
}
__global__ void gld_f32_contig_nc_2x256(const float* __restrict__ in, float* __restrict__ sink) {
    sink[gtid()] = __ldg(in + gtid());
}
__global__ void gatom_f32_contig_w1(float* acc, float* sink) { sink[gtid()] = atomicAdd(acc + gtid(), 1.0f); }
__global__ void satom_u32_contig_w1(float* sink) {
    __shared__ __align__(16) unsigned tile[32];
    tile[threadIdx.x] = 0u;
    __syncthreads();
    sink[gtid()] = static_cast<float>(atomicAdd(&tile[threadIdx.x], 1u));
}
__global__ void sld_f32_halfwarp_col_pad0_w1(float* sink) {
    __shared__ __align__(16) float tile[32][32];
    fill_words(tile, sizeof(tile) / 4);
    __syncthreads();
    const int lane = threadIdx.x & 31;
    if (lane < 16) sink[gtid()] = tile[lane][7];
}
__global__ void sld_f32_pred2_b256(float* sink) {
    __shared__ __align__(16) float tile[8][32];
    fill_words(tile, sizeof(tile) / 4);
    __syncthreads();
    float a = 0.0f, b = 0.0f;
    if (threadIdx.x >= 64) a = tile[threadIdx.x >> 5][threadIdx.x & 31];
    if (threadIdx.x >= 128) b = tile[7 - (threadIdx.x >> 5)][threadIdx.x & 31];
    sink[gtid()] = a + b;
}
__global__ void sst_f32_halfwarp_col_pad0_w1(float* sink) {
    __shared__ __align__(16) float tile[32][32];
    const int lane = threadIdx.x & 31;
    if (lane < 16) tile[lane][7] = static_cast<float>(lane);
    __syncthreads();
    sink[gtid()] = reinterpret_cast<const float*>(tile)[lane];
}""")
    launches.update({"gld_f32_halfwarp_w1": (1, 32, "float"), "gld_f32_pred2_2x256": (2, 256, "float"),
                     "gld_f32_contig_nc_2x256": (2, 256, "float"), "gatom_f32_contig_w1": (1, 32, "acc"),
                     "satom_u32_contig_w1": (1, 32, None), "sld_f32_halfwarp_col_pad0_w1": (1, 32, None),
                     "sld_f32_pred2_b256": (1, 256, None), "sst_f32_halfwarp_col_pad0_w1": (1, 32, None)})
    for name, (decl, t, expr) in SLD.items():
        parts.append(f"__global__ void {name}(float* sink) {{\n    __shared__ __align__(16) {decl};\n"
                     "    fill_words(tile, sizeof(tile) / 4);\n    __syncthreads();\n"
                     f"    const int lane = threadIdx.x & 31;\n    const {t} v = {expr};\n"
                     f"    sink[gtid()] = {TO_F[t].format(v='v')};\n}}")
        launches[name] = (1, 32, None)
    for name, (decl, lv, value) in SST.items():
        parts.append(f"__global__ void {name}(float* sink) {{\n    __shared__ __align__(16) {decl};\n"
                     f"    const int lane = threadIdx.x & 31;\n    {lv} = {value};\n    __syncthreads();\n"
                     "    sink[gtid()] = reinterpret_cast<const float*>(tile)[lane];\n}")
        launches[name] = (1, 32, None)
    return "\n".join(parts), launches


SRC, LAUNCHES = source()


@pytest.fixture(scope="module")
def prog():
    return lc.compile(SRC, "microbench_subset.cu")


@pytest.fixture(scope="module")
def hw():
    with open(RESULTS, encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.filterwarnings("ignore:.*device memory is untyped")
@pytest.mark.parametrize("name", sorted(LAUNCHES))
def test_counters_equal_h200(prog, hw, name):
    grid, block, t = LAUNCHES[name]
    sink = np.zeros(1 << 16, np.float32)
    if t is None:
        args = (sink,)
    elif t == "acc":
        args = (np.zeros(1024, np.float32), sink)
    else:
        args = (np.arange(1 << 16, dtype=np.float32) % 4093, sink)   # the measured input, viewed as each type
    res = prog.launch(name, grid, block, args)
    ref = hw[name]
    assert {k: res.metrics[k] for k in COST} == {k: ref.get(k, 0) for k in COST}
