#include <cuda_runtime.h>

namespace {

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

// Naive Transpose:
// input:  [M, N] row-major，第 r 行第 c 列在 input[r * N + c]
// output: [N, M] row-major，output 的第 c 行第 r 列 = input 的第 r 行第 c 列
//
// 线程到数据的映射：
// 一个 block 是 32x8=256 个线程，负责 input 的一块 32x32。
// threadIdx.x 选列（col），threadIdx.y + j 选行（row）；
// 同一个 warp 的 32 个线程 threadIdx.y 相同、threadIdx.x 连续：同一行上相邻的 32 列。
__global__ void transpose_noshared_kernel(
    const float* __restrict__ input,
    float* __restrict__ output,
    int M,
    int N
) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

    // 每个线程用 j 循环搬 4 个元素（行 y, y+8, y+16, y+24），整个 block 覆盖 32x32。
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int row = y + j;
        int col = x;
        if (row < M && col < N) {
            float v = input[row * N + col];  // 读 input 的第 row 行第 col 列
            output[col * M + row] = v;  // 写 output 的第 col 行第 row 列：一个 warp 的 32 个写相隔 M 个元素
        }
    }
}

} // namespace

void launch_transpose(
    const float* input,
    float* output,
    int M,
    int N,
    cudaStream_t stream
) {
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((N + TILE_DIM - 1) / TILE_DIM, (M + TILE_DIM - 1) / TILE_DIM);
    transpose_noshared_kernel<<<grid, block, 0, stream>>>(input, output, M, N);
}
