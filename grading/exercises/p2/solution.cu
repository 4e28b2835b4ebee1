#include <cuda_runtime.h>

namespace {

constexpr int TILE = 32;                            // 每个 block 负责矩阵里一块 TILE×TILE 的元素
constexpr int THREADS = 256;                        // 每个 block 的线程数（一维 block）
constexpr int PER_THREAD = TILE * TILE / THREADS;   // 每个线程搬 4 个元素

// 把矩阵乘以 alpha：out = alpha * in。
// in、out：[M, N]，行主序（第 r 行第 c 列的元素下标是 r * N + c）。
//
// 一个 block 的 256 个线程分工搬一块 32×32：块里的元素按行编号 e = 0..1023，
// e / TILE 是它在块里的行，e % TILE 是它在块里的列。
// 一维 block 里，一个 warp 是 threadIdx.x 连续的 32 个线程。
__global__ void scale_kernel(
    const float* __restrict__ in,
    float* __restrict__ out,
    int M,
    int N,
    float alpha
) {
    int t = threadIdx.x;

    for (int j = 0; j < PER_THREAD; ++j) {
        int e = j * THREADS + t;  // 同一个 j 时 warp 的编号连续：同一行、相邻 32 列
        int row = blockIdx.y * TILE + e / TILE;
        int col = blockIdx.x * TILE + e % TILE;

        // 最右一列块和最下一行块可能伸出矩阵：伸出去的元素不读也不写
        if (row < M && col < N) {
            float v = in[row * N + col];
            out[row * N + col] = alpha * v;
        }
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
    dim3 block(THREADS);
    dim3 grid((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    scale_kernel<<<grid, block, 0, stream>>>(in, out, M, N, alpha);
}
