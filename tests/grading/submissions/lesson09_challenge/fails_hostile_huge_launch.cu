#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace {

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;
constexpr int PAD = 2;

// Hostile: a launch of 2^28 blocks.
// Reference: tile[32][34] of __half. A row is 68 bytes = 17 words (odd), so the column read
// tile[tx][c] falls on word 17 tx + c / 2: 32 different banks, one wavefront per request.
// input: [M, N] row-major; output: [N, M] row-major; block (32, 8), each thread moves 4 elements each way.
__global__ void transpose_half_kernel(const __half* __restrict__ input, __half* __restrict__ output, int M, int N) {
    __shared__ __half tile[TILE_DIM][TILE_DIM + PAD];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (y + j < M && x < N) {
            tile[threadIdx.y + j][threadIdx.x] = input[(y + j) * N + x];
        }
    }

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        if (y + j < N && x < M) {
            output[(y + j) * M + x] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

} // namespace

void launch_transpose_half(const __half* input, __half* output, int M, int N, cudaStream_t stream) {
    dim3 block(TILE_DIM, BLOCK_ROWS);
    dim3 grid((N + TILE_DIM - 1) / TILE_DIM, (M + TILE_DIM - 1) / TILE_DIM);
    transpose_half_kernel<<<dim3(1 << 28), dim3(1024), 0, stream>>>(input, output, M, N);
}
