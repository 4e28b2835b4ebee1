#include <cuda_runtime.h>

namespace {

constexpr int BLOCK = 128;

// y = a * x: one thread per element, consecutive threads on consecutive elements.
__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, float a, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i];
    }
}

} // namespace

void launch_scale(const float* x, float* y, float a, int n, cudaStream_t stream) {
    dim3 block(64);  // TODO: threads per block
    dim3 grid((n + BLOCK - 1) / BLOCK);
    scale_kernel<<<grid, block, 0, stream>>>(x, y, a, n);
}
