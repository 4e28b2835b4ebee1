"""The kernels tools/bench.py times across sizes (and tests/labsim/test_scale.py counts): copy, naive and tiled
transposes (Harris's 32x8 mapping, TILE_DIM 32, +1 padding) and a 16x16 tiled GEMM, each written once for the
Python API and once in CUDA C for labsim.cuda; the tiled transpose and the GEMM also for Numba's CUDA simulator
(``numba_run``, for the side-by-side ratio; numba is the optional ``bench`` extra, never needed by labsim).
"""
from __future__ import annotations

import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

GEMM_TILE = 16

CUDA_SRC = r"""
#define TILE_DIM 32
#define BLOCK_ROWS 8
#define GT 16

__global__ void copy_kernel(const float* A, float* B, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        B[(y + j) * N + x] = A[(y + j) * N + x];
}

__global__ void naive_kernel(const float* A, float* B, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        B[x * N + (y + j)] = A[(y + j) * N + x];
}

__global__ void tiled_kernel(const float* A, float* B, int N) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = A[(y + j) * N + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        B[(y + j) * N + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void gemm_kernel(const float* A, const float* B, float* C, int N) {
    __shared__ float As[GT][GT];
    __shared__ float Bs[GT][GT];
    int row = blockIdx.y * GT + threadIdx.y;
    int col = blockIdx.x * GT + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < N / GT; ++t) {
        As[threadIdx.y][threadIdx.x] = A[row * N + t * GT + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(t * GT + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < GT; ++k)
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
"""


def _prelude():
    sys.path.insert(0, os.path.join(ROOT, "lessons", "prelude"))
    return __import__("02_memory_coalescing")


def gemm_tiled(blk, A, B, C, N):
    """C = A @ B with 16x16 tiles in shared memory (N a multiple of 16)."""
    T = GEMM_TILE
    As = blk.shared(T * T, np.float32, name="As")
    Bs = blk.shared(T * T, np.float32, name="Bs")
    row = blk.by * T + blk.ty
    col = blk.bx * T + blk.tx
    acc = np.zeros(row.shape, np.float32)
    for t in range(N // T):
        blk.sstore(As, blk.ty * T + blk.tx, blk.load(A, row * N + t * T + blk.tx))
        blk.sstore(Bs, blk.ty * T + blk.tx, blk.load(B, (t * T + blk.ty) * N + col))
        blk.sync()
        for k in range(T):
            acc = acc + blk.sload(As, blk.ty * T + k) * blk.sload(Bs, k * T + blk.tx)
        blk.sync()
    blk.store(C, row * N + col, acc)


KERNELS = ("copy", "naive", "tiled", "gemm")


def elements(kernel: str, n: int) -> int:
    """Simulated work: matrix elements moved (transposes) or multiply-adds (GEMM, n^3)."""
    return n ** 3 if kernel == "gemm" else n * n


def _output(n: int) -> np.ndarray:
    """A zeroed n x n output whose memory is already in place, as a device buffer is before a launch: np.zeros
    maps fresh zero pages that the first write faults in, so the timed launch paid them (measured on the copy
    kernel, ns per element with a fresh np.zeros output / one written before: 2048² 17-24 / 14, 4096² 17 / 14,
    8192² 15.5-16.5 / 14.7, with 500-1000 minor faults and up to 0.15 s of system time in the launch; a 256²
    output reuses heap pages and paid nothing, so the faults made the larger sizes look slower per element)."""
    out = np.empty((n, n), np.float32)
    out.fill(0)
    return out


def setup(kernel: str, n: int):
    """(inputs, output, expected output) for an n x n problem."""
    rng = np.random.default_rng(0)
    if kernel == "gemm":
        a = rng.integers(-4, 5, (n, n)).astype(np.float32)   # small integers: float sums are exact
        b = rng.integers(-4, 5, (n, n)).astype(np.float32)
        return (a, b), _output(n), a @ b
    a = rng.random((n, n), dtype=np.float32)
    return (a,), _output(n), (a if kernel == "copy" else a.T)


def run(kernel: str, api: str, n: int, program=None, times: dict | None = None, **opts):
    """Run one kernel at size n through the Python API ("python") or labsim.cuda ("cuda"): (Stats, ok).
    ``times`` receives the launch's wall and CPU seconds ("wall", "cpu")."""
    import time

    from labsim import launch
    ins, out, want = setup(kernel, n)
    if kernel == "gemm":
        grid, block = (n // GEMM_TILE, n // GEMM_TILE), (GEMM_TILE, GEMM_TILE)
    else:
        grid, block = (n // 32, n // 32), (32, 8)
    if api == "cuda" and program is None:
        from labsim import cuda
        program = cuda.compile(CUDA_SRC, "bench_kernels.cu")
    p = _prelude()
    fn = {"copy": p.copy_kernel, "naive": p.transpose_naive, "gemm": gemm_tiled}.get(kernel)
    if kernel == "tiled":
        def fn(blk, A, B, N):
            p.transpose_tiled(blk, A, B, N, pad=1)
    wall, cpu = time.perf_counter(), time.process_time()
    if api == "cuda":
        st = program.launch(f"{kernel}_kernel", grid, block, (*ins, out, n), **opts)
    else:
        st = launch(fn, grid, block, (*ins, out, n), name=kernel, **opts)
    if times is not None:
        times.update(wall=time.perf_counter() - wall, cpu=time.process_time() - cpu)
    return st, bool(np.array_equal(out, want))


def numba_run(kernel: str, n: int) -> tuple[float, bool]:
    """(CPU seconds, result correct) of one launch of ``kernel`` ("tiled" or "gemm") at size ``n`` in Numba's CUDA
    simulator, the same algorithm, block shape and tiles as the labsim versions above. Call it in a process
    that set NUMBA_ENABLE_CUDASIM=1 before importing numba (tools/bench.py runs it in a child process)."""
    import time

    # module globals, as the simulator swaps its fake `cuda` into the kernel's globals (not into closures)
    global cuda, float32
    from numba import cuda, float32
    ins, out, want = setup(kernel, n)
    if kernel == "tiled":
        @cuda.jit
        def tiled(A, B, N):
            tile = cuda.shared.array((32, 33), float32)
            x = cuda.blockIdx.x * 32 + cuda.threadIdx.x
            y = cuda.blockIdx.y * 32 + cuda.threadIdx.y
            for j in range(0, 32, 8):
                tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = A[(y + j) * N + x]
            cuda.syncthreads()
            x = cuda.blockIdx.y * 32 + cuda.threadIdx.x
            y = cuda.blockIdx.x * 32 + cuda.threadIdx.y
            for j in range(0, 32, 8):
                B[(y + j) * N + x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]
        fn, grid, block = tiled, (n // 32, n // 32), (32, 8)
    elif kernel == "gemm":
        T = GEMM_TILE

        @cuda.jit
        def gemm(A, B, C, N):
            As = cuda.shared.array((T, T), float32)
            Bs = cuda.shared.array((T, T), float32)
            tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
            row = cuda.blockIdx.y * T + ty
            col = cuda.blockIdx.x * T + tx
            acc = float32(0.0)
            for t in range(N // T):
                As[ty, tx] = A[row * N + t * T + tx]
                Bs[ty, tx] = B[(t * T + ty) * N + col]
                cuda.syncthreads()
                for k in range(T):
                    acc += As[ty, k] * Bs[k, tx]
                cuda.syncthreads()
            C[row * N + col] = acc
        fn, grid, block = gemm, (n // T, n // T), (T, T)
    else:
        raise ValueError(f"no Numba version of {kernel!r}")
    flat = [a.reshape(-1) for a in ins]
    res = out.reshape(-1)
    cpu = time.process_time()
    fn[grid, block](*flat, res, n)
    cpu = time.process_time() - cpu
    return cpu, bool(np.array_equal(out, want))
