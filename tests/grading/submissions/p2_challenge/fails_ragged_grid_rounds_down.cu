#include <cuda_runtime.h>

namespace {

constexpr int BLOCK = 256;

// Reference: AoS -> SoA through shared memory.
// The block's 256 structs are 768 consecutive floats. A full block reads them as flat floats, lane after lane
// (coalesced: 4 sectors per request), three independent loads per thread, all in flight together; the last,
// partial block loops. Then thread t reads its struct s[3t..3t+2] (word stride 3, odd: no bank conflict) and
// stores x, y, z coalesced.
__global__ void aos_to_soa_kernel(const float* __restrict__ aos, float* __restrict__ x, float* __restrict__ y,
                                   float* __restrict__ z, int n) {
    __shared__ float s[3 * BLOCK];
    int t = threadIdx.x;
    int base = blockIdx.x * BLOCK;
    int count = n - base < BLOCK ? n - base : BLOCK;   // structs in this block
    const float* src = aos + 3 * base;
    if (count == BLOCK) {
        float a = src[t];
        float b = src[t + BLOCK];
        float c = src[t + 2 * BLOCK];
        s[t] = a;
        s[t + BLOCK] = b;
        s[t + 2 * BLOCK] = c;
    } else {
        for (int i = t; i < 3 * count; i += BLOCK) {
            s[i] = src[i];
        }
    }
    __syncthreads();
    if (t < count) {
        x[base + t] = s[3 * t];
        y[base + t] = s[3 * t + 1];
        z[base + t] = s[3 * t + 2];
    }
}

} // namespace

void launch_aos_to_soa(const float* aos, float* x, float* y, float* z, int n, cudaStream_t stream) {
    int grid = n / BLOCK;   // rounds down: the partial block is dropped
    aos_to_soa_kernel<<<grid, BLOCK, 0, stream>>>(aos, x, y, z, n);
}
