#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace {

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;
constexpr int PAD = 0;

// Baseline: lesson 9's tiled transpose written for __half with the float layout, tile[32][32]. A row of
// the tile is 64 bytes (16 banks): the column read tile[tx][c] puts lanes tx and tx + 2 on one bank, 16-way.
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
    transpose_half_kernel<<<grid, block, 0, stream>>>(input, output, M, N);
}
