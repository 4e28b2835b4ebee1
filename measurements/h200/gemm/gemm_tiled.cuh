// Lesson 10's shared-memory tiled GEMM: C[M, N] = A[M, K] * B[K, N], float32, row-major.
// Block (TILE, TILE), grid (ceil(N / TILE), ceil(M / TILE)); one thread per element of C.
// Variants are chosen with macros (gemm_bench.cu includes this file once per variant):
//   TILE   tile edge (16 or 32)
//   PAD    extra columns per shared row (0, or 1 to break bank conflicts)
//   BT     1: keep the B tile transposed, Bs[col][k], so the inner loop reads a column of the tile
//   SYNC1  0: drop the barrier after the tile loads (a read-after-write race)
//   SYNC2  0: drop the barrier after the inner loop (a write-after-read race with the next tile's loads)
//   KNAME  the kernel's name
#ifndef TILE
#define TILE 16
#endif
#ifndef PAD
#define PAD 0
#endif
#ifndef BT
#define BT 0
#endif
#ifndef SYNC1
#define SYNC1 1
#endif
#ifndef SYNC2
#define SYNC2 1
#endif
#ifndef KNAME
#define KNAME gemm_tiled
#endif

extern "C" __global__ void KNAME(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                 int M, int N, int K) {
    __shared__ float As[TILE][TILE + PAD];
    __shared__ float Bs[TILE][TILE + PAD];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        // Zero-fill outside the matrices, so partial tiles add nothing.
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
#if BT
        Bs[tx][ty] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
#else
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
#endif
#if SYNC1
        __syncthreads();
#endif
        for (int k = 0; k < TILE; ++k) {
#if BT
            acc += As[ty][k] * Bs[tx][k];
#else
            acc += As[ty][k] * Bs[k][tx];
#endif
        }
#if SYNC2
        __syncthreads();
#endif
    }
    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

#undef TILE
#undef PAD
#undef BT
#undef SYNC1
#undef SYNC2
#undef KNAME
