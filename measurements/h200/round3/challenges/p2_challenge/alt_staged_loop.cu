#include <cuda_runtime.h>

namespace {

constexpr int BLOCK = 256;

// Variant (measured in raw3/ as p2_challenge/solution): AoS -> SoA through shared memory, with the staging loop
// over a runtime count: ptxas keeps it a loop, so each thread waits for one load before issuing the next and
// the kernel ran slower than the baseline at n = 2^26 (README, round 3).
// The block's 256 structs are 768 consecutive floats: the block reads them as flat floats, lane after lane
// (coalesced: 4 sectors per request), into shared memory; then thread t reads its struct s[3t..3t+2]
// (word stride 3, odd: no bank conflict) and stores x, y, z coalesced. The last block may be partial.
__global__ void aos_to_soa_staged(const float* __restrict__ aos, float* __restrict__ x, float* __restrict__ y,
                                  float* __restrict__ z, int n) {
    __shared__ float s[3 * BLOCK];
    int base = blockIdx.x * BLOCK;
    int count = n - base < BLOCK ? n - base : BLOCK;   // structs in this block
    for (int t = threadIdx.x; t < 3 * count; t += BLOCK) {
        s[t] = aos[3 * base + t];
    }
    __syncthreads();
    int t = threadIdx.x;
    if (t < count) {
        x[base + t] = s[3 * t];
        y[base + t] = s[3 * t + 1];
        z[base + t] = s[3 * t + 2];
    }
}

} // namespace

void launch_aos_to_soa(const float* aos, float* x, float* y, float* z, int n, cudaStream_t stream) {
    int grid = (n + BLOCK - 1) / BLOCK;
    aos_to_soa_staged<<<grid, BLOCK, 0, stream>>>(aos, x, y, z, n);
}
