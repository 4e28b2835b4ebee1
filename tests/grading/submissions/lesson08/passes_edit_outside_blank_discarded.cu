#include <cuda_runtime.h>

namespace {

constexpr int TILE_DIM = 32;     // 一个 block 负责 input 的一块 32×32
constexpr int BLOCK_ROWS = 8;    // block 是 32×8 = 256 个线程，每个线程搬 4 个元素

// 朴素转置：output 是 input 的转置。
// input:  [M, N] 行主序，第 r 行第 c 列在 input[r * N + c]
// output: [N, M] 行主序，第 c 行第 r 列在 output[c * M + r]
//
// 块里的 1024 个元素按 input 的行编号：编号 e 在块内第 e / TILE_DIM 行、第 e % TILE_DIM 列。
// 一个 warp 是 ty 相同、tx = 0..31 的 32 个线程。
__global__ void transpose_naive_kernel(
    const float* __restrict__ input,
    float* __restrict__ output,
    int M,
    int N
) {
    int tx = threadIdx.x;   // 0..31
    int ty = threadIdx.y;   // 0..7

    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int e = tx * TILE_DIM + ty + j;
        int row = blockIdx.y * TILE_DIM + e / TILE_DIM;   // input 的行
        int col = blockIdx.x * TILE_DIM + e % TILE_DIM;   // input 的列
        if (row < M && col < N) {
            float v = input[row * N + col];
            output[col * N + row] = v;
        }
    }
}

} // namespace

void launch_transpose_naive(
    const float* input,
    float* output,
    int M,
    int N,
    cudaStream_t stream
) {
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((N + TILE_DIM - 1) / TILE_DIM, (M + TILE_DIM - 1) / TILE_DIM);
    transpose_naive_kernel<<<grid, block, 0, stream>>>(input, output, M, N);
}
