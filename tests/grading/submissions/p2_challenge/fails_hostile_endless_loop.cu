#include <cuda_runtime.h>

namespace {

__global__ void aos_to_soa_kernel(const float* __restrict__ aos, float* __restrict__ x, float* __restrict__ y,
                                  float* __restrict__ z, int n) {
    int i = 0;
    while (true) {      // never ends: the grader must give a result, not hang
        i = i + 1;
    }
}

} // namespace

void launch_aos_to_soa(const float* aos, float* x, float* y, float* z, int n, cudaStream_t stream) {
    aos_to_soa_kernel<<<1, 32, 0, stream>>>(aos, x, y, z, n);
}
