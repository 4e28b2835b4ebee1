#include <cuda_runtime.h>

namespace {

constexpr int TILE = 32;   // the block computes a 32 x 32 tile of C
constexpr int HALF = 16;   // block (16, 16): each thread computes 2 x 2 elements of C

// Reference: register-tiled GEMM, C[M, N] = A[M, K] * B[K, N], float32, row-major.
// Thread (tx, ty) computes C[row][col], C[row][col + 16], C[row + 16][col], C[row + 16][col + 16] with
// row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx. Per k it reads 2 values of A and 2 of B from shared
// memory for 4 FFMAs (one output per thread: 2 reads per FFMA). The tiles are zero-filled outside the matrices.
__global__ void gemm_challenge_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                   int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    float c00 = 0.0f, c01 = 0.0f, c10 = 0.0f, c11 = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = A[row * K + t + tx];
        As[ty][tx + HALF] = (row < M && t + tx + HALF < K) ? A[row * K + t + tx + HALF] : 0.0f;
        As[ty + HALF][tx] = (row + HALF < M && t + tx < K) ? A[(row + HALF) * K + t + tx] : 0.0f;
        As[ty + HALF][tx + HALF] = (row + HALF < M && t + tx + HALF < K) ? A[(row + HALF) * K + t + tx + HALF] : 0.0f;
        Bs[ty][tx] = B[(t + ty) * N + col];
        Bs[ty][tx + HALF] = (t + ty < K && col + HALF < N) ? B[(t + ty) * N + col + HALF] : 0.0f;
        Bs[ty + HALF][tx] = (t + ty + HALF < K && col < N) ? B[(t + ty + HALF) * N + col] : 0.0f;
        Bs[ty + HALF][tx + HALF] = (t + ty + HALF < K && col + HALF < N) ? B[(t + ty + HALF) * N + col + HALF] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float a0 = As[ty][k];
            float a1 = As[ty + HALF][k];
            float b0 = Bs[k][tx];
            float b1 = Bs[k][tx + HALF];
            c00 += a0 * b0;
            c01 += a0 * b1;
            c10 += a1 * b0;
            c11 += a1 * b1;
        }
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = c00;
    if (row < M && col + HALF < N) C[row * N + col + HALF] = c01;
    if (row + HALF < M && col < N) C[(row + HALF) * N + col] = c10;
    if (row + HALF < M && col + HALF < N) C[(row + HALF) * N + col + HALF] = c11;
}

} // namespace

void launch_gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(HALF, HALF);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    gemm_challenge_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
