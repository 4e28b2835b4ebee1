#include <cuda_runtime.h>
#include <cuda_fp16.h>

namespace {

constexpr int T = 32;

// No padding: an XOR swizzle. Element (r, c) of the tile lives at column c ^ (r & 30). A column read of column
// c touches word 16 r + ((c >> 1) ^ (r >> 1)): bank 16 (r & 1) + ((c >> 1) ^ (r >> 1)), 32 different banks.
// Block (32, 32): one element a thread each way.
__device__ __forceinline__ int swz(int r, int c) { return c ^ (r & 30); }

__global__ void transpose_half_kernel(const __half* __restrict__ input, __half* __restrict__ output, int M, int N) {
    __shared__ __half tile[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * T + tx;
    int row = blockIdx.y * T + ty;
    if (row < M && col < N) {
        tile[ty][swz(ty, tx)] = input[row * N + col];
    }
    __syncthreads();
    int ocol = blockIdx.y * T + tx;     // output column = input row
    int orow = blockIdx.x * T + ty;     // output row = input column
    if (orow < N && ocol < M) {
        output[orow * M + ocol] = tile[tx][swz(tx, ty)];
    }
}

} // namespace

void launch_transpose_half(const __half* input, __half* output, int M, int N, cudaStream_t stream) {
    dim3 block(T, T);
    dim3 grid((N + T - 1) / T, (M + T - 1) / T);
    transpose_half_kernel<<<grid, block, 0, stream>>>(input, output, M, N);
}
