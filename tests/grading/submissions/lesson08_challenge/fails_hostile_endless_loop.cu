#include <cuda_runtime.h>

namespace {

__global__ void transpose_noshared_kernel(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    int i = 0;
    while (true) {      // never ends: the grader must give a result, not hang
        i = i + 1;
    }
}

} // namespace

void launch_transpose(const float* input, float* output, int M, int N, cudaStream_t stream) {
    transpose_noshared_kernel<<<1, 32, 0, stream>>>(input, output, M, N);
}
