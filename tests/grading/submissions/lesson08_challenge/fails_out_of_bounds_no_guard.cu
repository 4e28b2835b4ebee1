#include <cuda_runtime.h>

namespace {

constexpr int BX = 8;
constexpr int BY = 32;

// Reference: transpose without shared memory, block (8, 32), one element per thread.
// input: [M, N] row-major; output: [N, M] row-major.
// A warp is 8 columns x 4 rows of the input: the read covers 4 rows x 32 bytes = 4 sectors, and the write
// covers 8 rows of the output x 4 consecutive floats (16 bytes) = 8 sectors: 12 sectors per 32 elements,
// against 4 + 32 for lesson 8's block (32, 8).
__global__ void transpose_noshared_kernel(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    int col = blockIdx.x * BX + threadIdx.x;
    int row = blockIdx.y * BY + threadIdx.y;
    {   // no bounds check
        output[col * M + row] = input[row * N + col];
    }
}

} // namespace

void launch_transpose(const float* input, float* output, int M, int N, cudaStream_t stream) {
    dim3 block(BX, BY);
    dim3 grid((N + BX - 1) / BX, (M + BY - 1) / BY);
    transpose_noshared_kernel<<<grid, block, 0, stream>>>(input, output, M, N);
}
