"""The interpreted subset, feature by feature, each against a numpy reference."""
from __future__ import annotations

import numpy as np
import pytest

import labsim
import labsim.cuda as lc


def run(src: str, kernel: str, grid, block, *args, **opts):
    return lc.compile(src, "t.cu").launch(kernel, grid, block, args, **opts)


def test_divergent_loops_break_continue_and_early_return():
    src = r"""
__global__ void k(const int* lim, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int acc = 0, k = 0;
    while (true) {
        ++k;
        if (k > lim[i]) break;
        if (k % 3 == 0) continue;
        acc += k;
    }
    do { acc *= 2; } while (acc < 0);
    for (int j = i; j > 0; j /= 2) {
        if (j == 5) { acc -= 1000; break; }
    }
    out[i] = acc;
}"""
    n = 100
    lim = np.random.default_rng(0).integers(0, 40, n).astype(np.int32)
    out = np.zeros(n, np.int32)
    run(src, "k", 2, 64, lim, out, n)
    ref = []
    for i, m in enumerate(lim):
        acc = 2 * sum(k for k in range(1, m + 1) if k % 3)
        j = i
        while j > 0:
            if j == 5:
                acc -= 1000
                break
            j //= 2
        ref.append(acc)
    assert np.array_equal(out, ref)


def test_exited_threads_do_not_block_a_later_barrier():
    src = r"""
__global__ void k(float* a, int n) {
    __shared__ float s[64];
    int i = threadIdx.x;
    if (i >= n) return;
    s[i] = a[i];
    __syncthreads();
    a[i] = s[n - 1 - i];
}"""
    a = np.arange(64, dtype=np.float32)
    run(src, "k", 1, 64, a, 40)
    assert np.array_equal(a[:40], np.arange(40)[::-1]) and np.array_equal(a[40:], np.arange(40, 64))


def test_device_functions_inlined_with_returns_and_pointer_params():
    src = r"""
__device__ int first_neg(const int* row, int n) {
    for (int j = 0; j < n; ++j) {
        if (row[j] < 0) return j;
    }
    return -1;
}
__device__ void put(float* p, int j, float v) { p[j] = v; }
__device__ __forceinline__ float sq(float x) { return x * x; }
__global__ void k(const int* a, int* o, float* f, int n) {
    int t = threadIdx.x;
    o[t] = first_neg(a + t * n, n);
    put(f, t, sq((float)t) + sq(0.5f));
}"""
    a = np.random.default_rng(1).integers(-3, 12, (32, 16)).astype(np.int32)
    o, f = np.zeros(32, np.int32), np.zeros(32, np.float32)
    run(src, "k", 1, 32, a, o, f, 16)
    ref = [int(np.argmax(r < 0)) if (r < 0).any() else -1 for r in a]
    assert np.array_equal(o, ref)
    assert np.array_equal(f, np.arange(32, dtype=np.float32) ** 2 + np.float32(0.25))


def test_per_thread_arrays_and_their_bounds():
    src = r"""
__global__ void k(int* out) {
    int t = threadIdx.x;
    int h[8] = {0};
    for (int j = 0; j < 20; ++j) h[(t * 7 + j) % 8] += j;
    int m[2][3];
    m[t % 2][t % 3] = t;
    out[t] = h[t % 8] * 1000 + m[t % 2][t % 3];
}
__global__ void bad(int* out) {
    int h[4];
    h[threadIdx.x] = 1;
    out[0] = h[0];
}"""
    out = np.zeros(32, np.int32)
    prog = lc.compile(src, "t.cu")
    prog.launch("k", 1, 32, (out,))
    ref = []
    for t in range(32):
        h = [0] * 8
        for j in range(20):
            h[(t * 7 + j) % 8] += j
        ref.append(h[t % 8] * 1000 + t)
    assert np.array_equal(out, ref)
    with pytest.raises(labsim.OutOfBoundsError) as ei:
        prog.launch("bad", 1, 32, (out,))
    assert ei.value.where["array"] == "h" and ei.value.where["index"] == 4 and ei.value.where["line"] == 12


def test_vector_types_whole_and_member_accesses():
    src = r"""
__global__ void k(const float4* in, float4* out, float2* half_out, int4* iv, float* xs) {
    int i = threadIdx.x;
    float4 v = in[i];
    v.x += 1.0f;
    v.w = v.y * 2.0f;
    out[i] = v;
    half_out[i] = make_float2(v.z, v.x);
    iv[i].y = i;
    xs[i] = in[i].z;
}"""
    n = 32
    fin = np.random.default_rng(2).standard_normal(4 * n).astype(np.float32)
    fout, f2, iv, xs = (np.zeros(4 * n, np.float32), np.zeros(2 * n, np.float32), np.zeros(4 * n, np.int32),
                        np.zeros(n, np.float32))
    res = run(src, "k", 1, n, fin, fout, f2, iv, xs)
    V = fin.reshape(n, 4)
    E = V.copy()
    E[:, 0] += 1
    E[:, 3] = V[:, 1] * 2
    assert np.array_equal(fout.reshape(n, 4), E)
    assert np.array_equal(f2.reshape(n, 2), np.stack([V[:, 2], E[:, 0]], 1))
    assert np.array_equal(iv.reshape(n, 4)[:, 1], np.arange(n)) and not iv.reshape(n, 4)[:, [0, 2, 3]].any()
    assert np.array_equal(xs, V[:, 2])
    prog = res.program
    whole = res.instruction(prog.line_of("float4 v = in[i];"))
    member = res.instruction(prog.line_of("iv[i].y = i;"))
    assert (whole.itemsize, whole.cost) == (16, 16)      # 512 bytes: 16 sectors per request
    assert (member.itemsize, member.cost) == (4, 16)     # 4-byte stores 16 bytes apart: 16 sectors


def test_vectorized_copy_through_reinterpret_cast_and_misalignment():
    src = r"""
__global__ void copy4(const float* in, float* out, int n4) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
}
__global__ void padded(float* out) {
    __shared__ float tile[32][33];
    int r = threadIdx.x;
    for (int c = 0; c < 33; ++c) tile[r][c] = r * 100 + c;
    __syncthreads();
    float4 v = *reinterpret_cast<float4*>(&tile[r][0]);
    out[r] = v.x;
}
__global__ void shifted(const float* in, float* out) {
    const float4* p = reinterpret_cast<const float4*>(in + 1);
    float4 v = p[threadIdx.x];          // a 16-byte load 4 bytes past a 256-byte aligned base
    out[threadIdx.x] = v.x + p[threadIdx.x].y;
}
__global__ void member_only(const float* in, float* out) {
    const float4* p = reinterpret_cast<const float4*>(in + 1);
    out[threadIdx.x] = p[threadIdx.x].y;   // only 4 bytes are loaded: aligned, no fault
}"""
    prog = lc.compile(src, "vec.cu")
    x = np.random.default_rng(3).standard_normal(1024).astype(np.float32)
    y = np.zeros_like(x)
    res = prog.launch("copy4", 1, 256, (x, y, 256))
    assert np.array_equal(x, y)
    assert res.gld_sectors / res.gld_instr == 16 and res.gst_sectors / res.gst_instr == 16
    with pytest.raises(labsim.MisalignedAddressError) as ei:
        prog.launch("padded", 1, 32, (np.zeros(32, np.float32),))
    e = ei.value
    assert e.where["array"] == "tile" and e.where["line"] == prog.line_of("float4 v = *reinterpret_cast")
    assert e.where["thread"] == (1, 0, 0) and "misaligned" in str(e)
    with pytest.raises(labsim.MisalignedAddressError):
        prog.launch("shifted", 1, 32, (x, y))
    prog.launch("member_only", 1, 32, (x, y))
    assert np.array_equal(y[:32], x[2:128:4])


def test_half_precision():
    src = r"""
#include <cuda_fp16.h>
__global__ void k(const __half* h, float* o, __half* h2) {
    int i = threadIdx.x;
    __half a = h[i];
    __half b = __float2half(0.5f);
    o[i] = __half2float(a * b + a);
    h2[i] = __float2half(__half2float(a) * 3.0f);
}"""
    h = (np.random.default_rng(4).standard_normal(32) * 10).astype(np.float16)
    o, h2 = np.zeros(32, np.float32), np.zeros(32, np.float16)
    res = run(src, "k", 1, 32, h, o, h2)
    ref = ((h * np.float16(0.5)).astype(np.float16) + h).astype(np.float16).astype(np.float32)
    assert np.array_equal(o, ref)
    assert np.array_equal(h2, (h.astype(np.float32) * np.float32(3)).astype(np.float16))
    assert res.instruction(res.program.line_of("__half a = h[i];")).cost == 2   # 64 bytes: 2 sectors


def test_atomics_global_and_shared_histogram():
    src = r"""
__global__ void hist(const int* v, int* bins, int* total, int n) {
    __shared__ int local[16];
    int t = threadIdx.x;
    if (t < 16) local[t] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + t;
    if (i < n) atomicAdd(&local[v[i] % 16], 1);
    __syncthreads();
    if (t < 16) atomicAdd(bins + t, local[t]);
    if (i < n) {
        int old = atomicAdd(total, 1);
        (void)old;
    }
}"""
    n = 1000
    v = np.random.default_rng(5).integers(0, 1000, n).astype(np.int32)
    bins, total = np.zeros(16, np.int32), np.zeros(1, np.int32)
    res = run(src, "hist", 4, 256, v, bins, total, n)
    assert np.array_equal(bins, np.bincount(v % 16, minlength=16)) and total[0] == n
    assert res.race_count == 0


def test_dynamic_shared_memory_from_launch_and_host():
    src = r"""
__global__ void rev(float* a, int n) {
    extern __shared__ float s[];
    int t = threadIdx.x;
    if (t < n) s[t] = a[t];
    __syncthreads();
    if (t < n) a[t] = s[n - 1 - t];
}
void launch_rev(float* a, int n) {
    rev<<<1, 128, n * sizeof(float)>>>(a, n);
}"""
    prog = lc.compile(src, "dyn.cu")
    a = np.arange(100, dtype=np.float32)
    prog.launch("rev", 1, 128, (a, 100), dynamic_smem=400)
    assert np.array_equal(a, np.arange(100)[::-1])
    prog.call("launch_rev", a, 100)
    assert np.array_equal(a, np.arange(100))
    with pytest.raises(labsim.LaunchError):
        prog.launch("rev", 1, 128, (a, 100))   # no dynamic shared memory given


def test_host_launcher_arithmetic_loops_and_several_launches():
    src = r"""
#define TILE 32
namespace util { constexpr int div_up(int a, int b) { return (a + b - 1) / b; } }
__global__ void fill(float* a, int n, float v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] += v;
}
int blocks_for(int n) { return (n + TILE - 1) / TILE; }
void run_all(float* a, int n, int reps, cudaStream_t stream) {
    dim3 block(TILE);
    dim3 grid(blocks_for(n));
    for (int r = 0; r < reps; ++r) {
        if (r % 2 == 0) fill<<<grid, block, 0, stream>>>(a, n, 1.0f);
        else fill<<<grid, block>>>(a, n, 10.0f);
    }
    cudaDeviceSynchronize();
}"""
    prog = lc.compile(src.replace("namespace util { constexpr int div_up(int a, int b) { return (a + b - 1) / b; } }",
                                  ""), "host.cu")
    a = np.zeros(70, np.float32)
    res = prog.call("run_all", a, 70, 3, None)
    assert np.all(a == 12.0) and len(res) == 3
    assert all(r.grid == (3, 1, 1) and r.block == (32, 1, 1) for r in res)
    with pytest.raises(AttributeError, match="3 kernel launches"):
        res.metrics   # noqa: B018
    single = prog.call("run_all", a, 70, 1, 0)
    assert single.gst_instr == 3 and single.metrics == single[0].metrics


def test_preprocessor_macros_and_conditionals():
    src = r"""
#include <cuda_runtime.h>
#define N_ELEMS 64
#define IDX(r, c) ((r) * N_ELEMS + (c))
#ifdef NOT_DEFINED
#error this must not trigger
#elif N_ELEMS > 32
#define SCALE 2
#else
#define SCALE 3
#endif
__global__ void k(int* a) {
    int t = threadIdx.x;
    a[IDX(1, t)] = SCALE * t;
}"""
    a = np.zeros(2 * 64, np.int32)
    res = run(src, "k", 1, 64, a)
    assert np.array_equal(a[64:], 2 * np.arange(64)) and not a[:64].any()
    assert set(res.by_line) == {14}


def test_c_semantics_unsigned_thread_index_and_gpu_conversions():
    src = r"""
__global__ void k(int* o, float* f) {
    int t = threadIdx.x;
    o[0] = (threadIdx.x - 1 < 0) ? 1 : 2;         // unsigned: never below zero
    o[1] = (int)1e10f;                              // cvt.rzi saturates (C leaves this undefined)
    o[2] = (int)-1e10f;
    o[3] = (int)(0.0f / 0.0f);                      // NaN -> 0
    o[4] = (int)(unsigned)-5.0f;                    // negative -> 0 when converted to unsigned
    o[5] = 1 << 40;                                 // shift counts clamp to the width
    o[6] = -8 >> 40;
    o[7] = (t - 7) / 2 + (t - 7) % 2 * 100;         // truncation toward zero
    o[8] = sizeof(double) + sizeof(float4);
    f[0] = 16777217;                                // int -> float rounds to nearest even
    f[1] = 1.0f / 3.0f;
    f[2] = 1.0 / 3.0;
}"""
    o, f = np.zeros(9, np.int32), np.zeros(3, np.float32)
    run(src, "k", 1, 1, o, f)
    assert o.tolist() == [2, 2**31 - 1, -2**31, 0, 0, 0, -1, -3 - 100, 24]
    assert f.tolist() == [16777216.0, float(np.float32(1) / np.float32(3)), float(np.float32(1.0 / 3.0))]


def test_argument_binding():
    src = "__global__ void k(const float4* v, float* o, int n) { o[threadIdx.x] = v[threadIdx.x].x + n; }"
    prog = lc.compile(src, "args.cu")
    with pytest.raises(lc.CudaArgumentError, match="takes 3 argument"):
        prog.launch("k", 1, 32, (np.zeros(128, np.float32),))
    with pytest.raises(lc.CudaArgumentError, match="not a whole number of float4"):
        prog.launch("k", 1, 32, (np.zeros(127, np.float32), np.zeros(32, np.float32), 1))
    with pytest.raises(lc.CudaArgumentError, match="C-contiguous"):
        prog.launch("k", 1, 32, (np.zeros((32, 4), np.float32).T, np.zeros(32, np.float32), 1))
    with pytest.raises(lc.CudaArgumentError, match="needs an integer"):
        prog.launch("k", 1, 32, (np.zeros(128, np.float32), np.zeros(32, np.float32), 1.5))
    with pytest.raises(lc.CudaArgumentError, match="does not fit"):
        prog.launch("k", 1, 32, (np.zeros(128, np.float32), np.zeros(32, np.float32), 2**40))
    with pytest.raises(lc.CudaArgumentError, match="no __global__ function named 'kk'"):
        prog.launch("kk", 1, 32, ())
    with pytest.warns(UserWarning, match="float64"):
        prog.launch("k", 1, 32, (np.zeros(64, np.float64), np.zeros(32, np.float32), 1))
    o = np.zeros(32, np.float32)
    v = np.arange(128, dtype=np.float32)
    prog.launch("k", 1, 32, (v.view(labsim.FLOAT4), o, 1))   # a structured float4 array works too
    assert np.array_equal(o, v[::4] + 1)


def test_block_and_shared_limits_from_the_gpu_preset():
    src = "__global__ void k(float* a) { __shared__ float s[13000]; s[threadIdx.x] = 1; a[threadIdx.x] = s[0]; }"
    prog = lc.compile(src, "lim.cu")
    with pytest.raises(labsim.LaunchError, match="shared memory"):
        prog.launch("k", 1, 32, (np.zeros(32, np.float32),))
    ok = lc.compile(src.replace("13000", "32"), "lim.cu")
    with pytest.raises(labsim.LaunchError, match="1025 threads"):
        ok.launch("k", 1, 1025, (np.zeros(2048, np.float32),))


def test_pointers_into_shared_rows_and_pointer_arithmetic():
    src = r"""
__global__ void k(const float* in, float* out, int ld) {
    __shared__ float s[4][8];
    int t = threadIdx.x;
    s[t / 8][t % 8] = in[t];
    __syncthreads();
    float* row = s[t / 8];
    const float* src = in + (t / 8) * ld;
    out[t] = row[7 - t % 8] + *(src + 1);
}"""
    x = np.arange(32, dtype=np.float32)
    o = np.zeros(32, np.float32)
    run(src, "k", 1, 32, x, o, 8)
    t = np.arange(32)
    assert np.array_equal(o, x[(t // 8) * 8 + 7 - t % 8] + x[(t // 8) * 8 + 1])


def test_host_code_cannot_touch_device_memory():
    src = "__global__ void k(float* a) { a[0] = 1; }\nvoid host(float* a) { a[0] = 2; k<<<1, 1>>>(a); }\n"
    with pytest.raises(lc.CudaCompileError, match="host code cannot read or write device memory"):
        lc.compile(src, "h.cu")
    src = "__global__ void k(float* a) { a[0] = 1; }\nvoid host(float* a) { k(a); }\n"
    with pytest.raises(lc.CudaCompileError, match="must be launched with <<<"):
        lc.compile(src, "h.cu")


def test_expressions_tree_sitter_reads_as_casts_or_templates():
    """Without a symbol table `(a * (b)) + 0` parses as a cast to `a (*)(b)` and `a < b > (c)` as a template
    call; labsim sees that a and b are variables and parses again, keeping lines and columns."""
    src = r"""
__global__ void k(int* o, int a, int b) {
    o[0] = ((a * (b)) + 0);
    o[1] = (0 + ((a * (a && b)) - 7));
    o[2] = a < b > (0);
    o[3] = (int)(a * (b));
}"""
    o = np.zeros(4, np.int32)
    run(src, "k", 1, 1, o, 3, 5)
    assert o.tolist() == [15, 3 * 1 - 7, 1, 15]
    bad = src.replace("o[3] = (int)(a * (b));", "o[3] = ((a * (b)) + missing);")
    with pytest.raises(lc.CudaCompileError) as ei:
        lc.compile(bad, "amb.cu")
    line = bad.split("\n")[5]
    assert (ei.value.where["line"], ei.value.where["col"]) == (6, line.index("missing") + 1)


def test_empty_kernel_and_host_bodies_run_and_do_nothing():
    """An empty body (or one holding only a __shared__ declaration) compiles to no statements: launching it, or a
    host function with an empty body, runs and counts nothing (it was an internal error)."""
    src = ("__global__ void k(float* A) { }\n"
           "__global__ void s(float* A) { __shared__ float t[4]; }\n"
           "void h(float* A) { }\n"
           "void h2(float* A) { s<<<2, 32>>>(A); }\n")
    p = lc.compile(src, "empty.cu")
    a = np.arange(4, dtype=np.float32)
    for name in ("k", "s"):
        r = p.launch(name, 2, 64, (a,))
        assert not any(r.metrics.values()) and r.race_count == 0
    assert len(p.call("h", a)) == 0
    (r,) = p.call("h2", a)
    assert r.kernel == "s" and not any(r.metrics.values())
    assert a.tolist() == [0, 1, 2, 3]
