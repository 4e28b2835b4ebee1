#include <cuda_runtime.h>

namespace {

// 挑战：把 AoS（n 个 12 字节的结构体，像 float3）转成 SoA，读和写都要合并（coalesced）。
// aos: 第 i 个结构体是 aos[3i], aos[3i+1], aos[3i+2]，即它的 x, y, z
// 要求：x[i] = aos[3i], y[i] = aos[3i+1], z[i] = aos[3i+2]，i = 0 .. n-1
// block 大小、每个线程做几个元素、要不要用 shared memory，都由你决定；可以在这里加 constexpr 常量。
// 评分：任意 n（包括不是 block 大小倍数的）都要正确、不越界；再看每个元素读 + 写碰几个 global sector。
__global__ void aos_to_soa_kernel(const float* __restrict__ aos, float* __restrict__ x, float* __restrict__ y,
                                  float* __restrict__ z, int n) {
    // 在这里写你的 kernel
}

} // namespace

void launch_aos_to_soa(const float* aos, float* x, float* y, float* z, int n, cudaStream_t stream) {
    // 在这里写启动配置，再启动 aos_to_soa_kernel
}
