"""Issue 23 items 2-4: function templates (integer and type parameters, instantiated per use), CUDA's vector types
up to 16 bytes (char4 ... float3, double2, make_*), and __constant__ memory with cudaMemcpyToSymbol. Values are
checked against numpy; counters against what the H200 does (a float3 element is three 4-byte accesses; LDC is
not a global load)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import labsim
import labsim.cuda as lc

GLD_REQ, GLD_SEC = "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"
GLD_EXEC = "smsp__inst_executed_op_global_ld.sum"

# ---- templates --------------------------------------------------------------------------------------------------
RED = r'''
template <typename T> __device__ T sq(T v) { return v * v; }
template <typename T> __device__ T add(T a, T b) { return a + b; }
template <int BLOCK, typename T = float>
__global__ void red(const T* x, T* out) {
    __shared__ T s[BLOCK];
    int t = threadIdx.x;
    s[t] = sq(x[blockIdx.x * BLOCK + t]);
    __syncthreads();
    for (int k = BLOCK / 2; k > 0; k >>= 1) {
        if (t < k) s[t] = add<T>(s[t], s[t + k]);
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
void run(const float* x, float* o, const double* xd, double* od, int n) {
    red<128><<<n / 128, 128>>>(x, o);
    red<64, double><<<n / 64, 64>>>(xd, od);
}
'''


def _tree(v: np.ndarray) -> np.ndarray:
    """The kernel's pairwise tree, in v's precision."""
    v = v.copy()
    while v.shape[1] > 1:
        h = v.shape[1] // 2
        v = v[:, :h] + v[:, h:]
    return v[:, 0]


def test_template_kernels_instantiated_per_use():
    prog = lc.compile(RED, "red.cu")
    rng = np.random.default_rng(1)
    x = rng.random(512).astype(np.float32)
    xd = x.astype(np.float64)
    o, od = np.zeros(4, np.float32), np.zeros(8)
    res = prog.call("run", x, o, xd, od, 512)
    assert [r.kernel for r in res] == ["red<128, float>", "red<64, double>"]
    assert np.array_equal(o, _tree((x * x).reshape(4, 128)))
    assert np.array_equal(od, _tree((xd * xd).reshape(8, 64)))
    # the instance's shared array has BLOCK elements of T: 64 doubles are 2 wavefronts per full-warp access
    st_ = res[1].stats.metrics
    assert st_["smsp__inst_executed_op_shared_st.sum"] > 0
    # launched by name from Python, also an instance the host code never made
    o2 = np.zeros(1, np.float32)
    r = prog.launch("red<512>", 1, 512, (x, o2))
    assert r.kernel == "red<512, float>" and np.array_equal(o2, _tree((x * x).reshape(1, 512)))
    with pytest.raises(lc.CudaArgumentError, match="no __global__ function named 'blue<4>'"):
        prog.launch("blue<4>", 1, 32, (x, o2))
    with pytest.raises(lc.CudaCompileError, match="must be an integer constant"):
        prog.launch("red<float>", 1, 32, (x, o2))


@pytest.mark.parametrize("src,what", [
    ("template <typename T> struct P { T x; };", "class, struct or variable templates"),
    ("template <typename T> __device__ T f(T a) { return a; }\n__global__ void k(float* x) { x[0] = f<int, int>(1); }",
     "too many template arguments"),
    ("template <typename T> __device__ T f(int a) { return a; }\n__global__ void k(float* x) { x[0] = f(1); }",
     "cannot deduce template argument 'T'"),
])
def test_template_errors_are_named(src, what):
    with pytest.raises(lc.CudaError, match=what):
        lc.compile(src, "t.cu")


# ---- vector types -----------------------------------------------------------------------------------------------
VEC_TYPES = {  # name: (numpy component type, components)
    "char2": (np.int8, 2), "char4": (np.int8, 4), "uchar4": (np.uint8, 4), "short2": (np.int16, 2),
    "ushort4": (np.uint16, 4), "int2": (np.int32, 2), "int3": (np.int32, 3), "int4": (np.int32, 4),
    "uint3": (np.uint32, 3), "float2": (np.float32, 2), "float3": (np.float32, 3), "float4": (np.float32, 4),
    "double2": (np.float64, 2), "longlong2": (np.int64, 2), "char3": (np.int8, 3), "float1": (np.float32, 1),
}
VEC = r'''
__global__ void k(const {T}* a, const {T}* b, {T}* c, {S}* d) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    {T} u = a[i], v = b[i];
    c[i] = make_{T}({make});
    d[i] = {dot};
}}
'''


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(VEC_TYPES)), seed=st.integers(0, 2**31))
def test_vector_arithmetic_matches_numpy(name, seed):
    """c = (u.x * v.y + 1, ...) and d = sum of u's components, per C's promotions and the component's wrap."""
    comp, n = VEC_TYPES[name]
    f = "xyzw"[:n]
    S = {np.float32: "float", np.float64: "double"}.get(comp, "long long")
    make = ", ".join(f"u.{f[j]} * v.{f[(j + 1) % n]} + 1" for j in range(n))
    dot = " + ".join(f"({S})u.{c}" for c in f)
    rng = np.random.default_rng(seed)
    m = 64
    if np.issubdtype(comp, np.integer):
        info = np.iinfo(comp)
        a = rng.integers(info.min, info.max, (m, n), endpoint=True, dtype=comp)
        b = rng.integers(info.min, info.max, (m, n), endpoint=True, dtype=comp)
    else:
        a, b = rng.standard_normal((m, n)).astype(comp), rng.standard_normal((m, n)).astype(comp)
    c = np.zeros((m, n), comp)
    d = np.zeros(m, {"float": np.float32, "double": np.float64}.get(S, np.int64))
    lc.compile(VEC.format(T=name, S=S, make=make, dot=dot), "v.cu").launch("k", 2, 32, (a, b, c, d))
    if np.issubdtype(comp, np.integer):     # C: promote to int (or the wider type), then wrap to the component
        wide = np.int64 if comp().itemsize < 8 else comp
        want = (a.astype(wide) * np.roll(b, -1, axis=1).astype(wide) + 1).astype(comp)
        dsum = a.astype(np.int64).sum(axis=1)
    else:
        want = a * np.roll(b, -1, axis=1) + comp(1)
        dsum = a[:, 0].copy()
        for j in range(1, n):
            dsum = dsum + a[:, j]
    assert np.array_equal(c, want)
    assert np.array_equal(d, dsum.astype(d.dtype))


def test_vector_sizes_and_accesses():
    """sizeof as CUDA's vector_types.h; a char4 element is one 4-byte access, a double2 one 16-byte access, a
    float3 three 4-byte accesses (as the H200 executes an AoS float3: gld_aos3_xyz in classes/)."""
    src = r'''
    __global__ void k(const char4* a, const double2* b, const float3* c, float* o) {
        int i = threadIdx.x;
        char4 p = a[i];
        double2 q = b[i];
        float3 r = c[i];
        o[i] = p.x + q.y + r.z + sizeof(char4) * 1000 + sizeof(float3) * 100 + sizeof(double2) + sizeof(short2) * 0.5f;
    }
    '''
    prog = lc.compile(src, "s.cu")
    a = np.zeros((32, 4), np.int8)
    b = np.zeros((32, 2))
    c = np.zeros((32, 3), np.float32)
    o = np.zeros(32, np.float32)
    res = prog.launch("k", 1, 32, (a, b, c, o))
    assert o[0] == 4000 + 1200 + 16 + 2
    by = {s.array: s for s in res.stats.instructions if s.space == "global" and s.op == "ld"}
    assert (by["a"].itemsize, by["a"].requests, by["a"].cost) == (4, 1, 4)
    assert (by["b"].itemsize, by["b"].requests, by["b"].cost) == (16, 1, 16)
    assert (by["c"].itemsize, by["c"].requests, by["c"].cost) == (4, 3, 36)


def test_float3_in_shared_memory_and_uint3_threadidx():
    src = r'''
    __global__ void k(const float3* x, float* y) {
        __shared__ float3 s[64];
        uint3 t = threadIdx;
        s[t.x] = x[t.x];
        __syncthreads();
        float3 v = s[63 - t.x];
        y[t.x] = v.x - v.z;
    }
    '''
    x = np.random.default_rng(0).random((64, 3)).astype(np.float32)
    y = np.zeros(64, np.float32)
    res = lc.compile(src, "s.cu").launch("k", 1, 64, (x, y))
    assert np.array_equal(y, x[::-1, 0] - x[::-1, 2])
    m = res.stats.metrics
    assert m["smsp__inst_executed_op_shared_st.sum"] == 6 and m["smsp__inst_executed_op_shared_ld.sum"] == 6


def test_wide_vector_types_are_refused_by_name():
    with pytest.raises(lc.CudaUnsupportedError, match="vector type double4 is not supported"):
        lc.compile("__global__ void k(double4* a) { }", "w.cu")


# ---- __constant__ memory ----------------------------------------------------------------------------------------
CONV = r'''
#define R 3
__constant__ float w[2 * R + 1];
__constant__ int scale = 2;
__global__ void conv(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= R && i < n - R) {
        float s = 0.0f;
        for (int k = -R; k <= R; ++k) s += w[k + R] * x[i + k];
        y[i] = s * scale;
    }
}
__global__ void plain(const float* x, const float* wg, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= R && i < n - R) {
        float s = 0.0f;
        for (int k = -R; k <= R; ++k) s += wg[k + R] * x[i + k];
        y[i] = s * 2;
    }
}
void run(const float* hw, const float* x, float* y, int n) {
    cudaMemcpyToSymbol(w, hw, (2 * R + 1) * sizeof(float));
    conv<<<(n + 127) / 128, 128>>>(x, y, n);
}
void back(float* hw) { cudaMemcpyFromSymbol(hw, w, 7 * sizeof(float)); }
'''


def test_constant_memory_is_read_but_not_counted_as_global():
    prog = lc.compile(CONV, "c.cu")
    hw = np.arange(7, dtype=np.float32) - 3
    x = np.random.default_rng(0).random(256).astype(np.float32)
    y, y2 = np.zeros(256, np.float32), np.zeros(256, np.float32)
    res = prog.call("run", hw, x, y, 256)
    assert np.array_equal(prog.constant("w"), hw) and int(prog.constant("scale")) == 2
    plain = prog.launch("plain", 2, 128, (x, hw, y2, 256))
    assert np.array_equal(y, y2)
    m, p = res.stats.metrics, plain.stats.metrics
    # the same kernel reading the weights from global memory has 7 more load instructions per warp (the LDG of
    # wg); the __constant__ one only the loads of x
    assert p[GLD_REQ] - m[GLD_REQ] == 7 * 8 and m[GLD_REQ] == 7 * 8
    back = np.zeros(7, np.float32)
    prog.call("back", back)
    assert np.array_equal(back, hw)
    prog.set_constant("w", np.ones(7, np.float32))
    prog.launch("conv", 2, 128, (x, y, 256))
    assert np.allclose(y[3:253], 2 * np.convolve(x, np.ones(7), "valid").astype(np.float32), rtol=1e-5)


@pytest.mark.parametrize("body,what,cls", [
    ("w[0] = 1.0f;", "const-qualified", lc.CudaCompileError),
    ("x[0] = w[threadIdx.x + 5];", "out-of-bounds access to __constant__ w[5]", labsim.OutOfBoundsError),
])
def test_constant_memory_errors(body, what, cls):
    src = "__constant__ float w[4];\n__global__ void k(float* x) { " + body + " }\n"
    with pytest.raises(cls, match=what.replace("[", r"\[")):
        lc.compile(src, "c.cu").launch("k", 1, 4, (np.zeros(4, np.float32),))
    with pytest.raises(lc.CudaRuntimeError, match="do not fit 'w'"):
        lc.compile("__constant__ float w[4];\nvoid h(const float* a) { cudaMemcpyToSymbol(w, a, 32); }\n",
                   "c.cu").call("h", np.zeros(8, np.float32))
