#include <cuda_runtime.h>

namespace {

constexpr int B = 128;          // threads a block, structs a tile
constexpr int MAX_GRID = 8;     // few blocks: each walks many tiles

__device__ void stage(const float* src, float* s, int floats) {
    for (int i = threadIdx.x; i < floats; i += B) {
        s[i] = src[i];          // lanes read consecutive floats: 4 sectors a request
    }
}

// Racy: the second barrier removed, the next tile's loads overwrite s while slower warps still read it.
// A grid-stride loop over tiles of 128 structs (384 floats), staged through shared memory. The second barrier
// keeps the next tile's loads from overwriting s while slower warps still read the current one.
__global__ void aos_to_soa_kernel(const float* __restrict__ aos, float* __restrict__ x, float* __restrict__ y,
                                  float* __restrict__ z, int n) {
    __shared__ float s[3 * B];
    for (int base = blockIdx.x * B; base < n; base += gridDim.x * B) {
        int count = min(B, n - base);
        stage(aos + 3 * base, s, 3 * count);
        __syncthreads();
        int t = threadIdx.x;
        if (t < count) {
            x[base + t] = s[3 * t];
            y[base + t] = s[3 * t + 1];
            z[base + t] = s[3 * t + 2];
        }
    }
}

} // namespace

void launch_aos_to_soa(const float* aos, float* x, float* y, float* z, int n, cudaStream_t stream) {
    int blocks = (n + B - 1) / B;
    aos_to_soa_kernel<<<blocks < MAX_GRID ? blocks : MAX_GRID, B, 0, stream>>>(aos, x, y, z, n);
}
