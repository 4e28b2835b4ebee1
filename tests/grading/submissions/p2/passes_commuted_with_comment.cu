#include <cuda_runtime.h>

namespace {

constexpr int BLOCK_X = 32;
constexpr int BLOCK_Y = 8;

// Scale a matrix: out = alpha * in.
// in, out: [M, N] row-major.
//
// block(32, 8): the 32 threads of one warp share threadIdx.y and have
// threadIdx.x = 0..31, so col runs 0..31 across a warp while row stays fixed.
// Whether one warp's 32 loads fall into 4 sectors or 32 depends on the index below.
__global__ void scale_kernel(
    const float* __restrict__ in,
    float* __restrict__ out,
    int M,
    int N,
    float alpha
) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    // the last block column and row may stick out of the matrix: those threads do nothing
    if (row < M && col < N) {
        int idx = col + N * row;  // same element, operands swapped
        float v = in[idx];
        out[idx] = alpha * v;
    }
}

} // namespace

void launch_scale(
    const float* in,
    float* out,
    int M,
    int N,
    float alpha,
    cudaStream_t stream
) {
    dim3 block(BLOCK_X, BLOCK_Y);
    dim3 grid((N + BLOCK_X - 1) / BLOCK_X, (M + BLOCK_Y - 1) / BLOCK_Y);
    scale_kernel<<<grid, block, 0, stream>>>(in, out, M, N, alpha);
}
