#include <cuda_runtime.h>

namespace {

constexpr int TILE = 16;

// Tiled GEMM: C[M, N] = A[M, K] * B[K, N]，float32，全部 row-major。
// 一个 block 有 TILE x TILE 个线程，每个线程算 C 的一个元素。
//
// naive GEMM 的问题：
// 每个线程自己从 global memory 读一整行 A 和一整列 B，
// 同一个 A、B 元素被很多线程各读一遍，片上没有复用。
//
// 优化思路：
// 1. 沿 K 方向一段一段走：每一步 block 把 A 的一个 TILE x TILE tile 和 B 的一个 tile 合并读进 shared memory。
// 2. __syncthreads() 之后，每个线程在片上用这两个 tile 做 TILE 次乘加。
// 3. 越出矩阵的位置填 0，让不满的 tile 什么也不加。
__global__ void gemm_challenge_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                  int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        // Zero-fill outside the matrices, so partial tiles add nothing.
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            acc += As[ty][k] * Bs[k][tx];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        C[row * N + col] = acc;
    }
}

} // namespace

void launch_gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    gemm_challenge_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
