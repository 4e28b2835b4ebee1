// Lesson 9's tiled transpose (TILE_DIM 32, BLOCK_ROWS 8, tile[32][33]) with the __syncthreads() removed:
// a shared-memory race between the warps that write a tile row and those that read it as a column.
// Run under `compute-sanitizer --tool racecheck` to record its hazard report (see run.sh); a plain run
// prints how many output elements came out wrong on the hardware.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o race measurements/h200/race.cu
// Usage: race [M N]   (input [M, N], default 64 64)
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

extern "C" __global__ void transpose_tiled_nosync(const float* __restrict__ input, float* __restrict__ output,
                                                  int M, int N) {
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int row = y + j;
        int col = x;
        if (row < M && col < N) {
            tile[threadIdx.y + j][threadIdx.x] = input[row * N + col];
        }
    }

    // __syncthreads();  removed on purpose: this is the race.

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int row = y + j;
        int col = x;
        if (row < N && col < M) {
            output[row * M + col] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

int main(int argc, char** argv) {
    const int M = argc > 2 ? atoi(argv[1]) : 64;
    const int N = argc > 2 ? atoi(argv[2]) : 64;
    if (M <= 0 || N <= 0) {
        fprintf(stderr, "usage: race [M N] with M, N > 0\n");
        return 1;
    }
    const size_t n = static_cast<size_t>(M) * N;
    std::vector<float> h_in(n), h_out(n);
    for (size_t i = 0; i < n; ++i) h_in[i] = static_cast<float>(i + 1);
    float *in = nullptr, *out = nullptr;
    if (cudaMalloc(&in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    cudaMemcpy(in, h_in.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemset(out, 0, n * sizeof(float));
    const dim3 block(TILE_DIM, BLOCK_ROWS);
    const dim3 grid((N + TILE_DIM - 1) / TILE_DIM, (M + TILE_DIM - 1) / TILE_DIM);
    transpose_tiled_nosync<<<grid, block>>>(in, out, M, N);
    const cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        fprintf(stderr, "kernel failed: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaMemcpy(h_out.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
    long bad = 0;
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) bad += (h_out[static_cast<size_t>(c) * M + r] != h_in[static_cast<size_t>(r) * N + c]);
    printf("transpose_tiled_nosync %dx%d: %ld of %zu outputs wrong\n", M, N, bad, n);
    cudaFree(in);
    cudaFree(out);
    return 0;
}
