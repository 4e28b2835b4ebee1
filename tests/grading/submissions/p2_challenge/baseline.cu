#include <cuda_runtime.h>

namespace {

// Baseline: AoS -> SoA, one struct per thread.
// aos: n structs of 3 floats (x, y, z), 12 bytes each: struct i is aos[3i], aos[3i+1], aos[3i+2].
// Each of the three loads of a warp strides 12 bytes across its lanes: 384 bytes, 12 sectors per request,
// 36 sectors per warp for 12 sectors of data. The three stores are coalesced (4 sectors each).
__global__ void aos_to_soa_kernel(const float* __restrict__ aos, float* __restrict__ x, float* __restrict__ y,
                                 float* __restrict__ z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = aos[3 * i];
        y[i] = aos[3 * i + 1];
        z[i] = aos[3 * i + 2];
    }
}

} // namespace

void launch_aos_to_soa(const float* aos, float* x, float* y, float* z, int n, cudaStream_t stream) {
    int block = 256;
    int grid = (n + block - 1) / block;
    aos_to_soa_kernel<<<grid, block, 0, stream>>>(aos, x, y, z, n);
}
