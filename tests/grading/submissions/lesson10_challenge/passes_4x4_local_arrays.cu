#include <cuda_runtime.h>

namespace {

constexpr int BM = 64;   // the block computes a 64 x 64 tile of C
constexpr int BN = 64;
constexpr int BK = 16;   // depth of one step along K
constexpr int TM = 4;    // block (16, 16): each thread computes 4 x 4 elements of C
constexpr int TN = 4;

// Variant: register-tiled GEMM with 4 x 4 outputs per thread (local arrays, fully unrolled).
// Thread (tx, ty) computes rows blockIdx.y * 64 + ty * 4 + i and columns blockIdx.x * 64 + tx * 4 + j.
// Inner loop: As[ty*4+i][k..k+3] and Bs[k][tx*4..tx*4+3] are 16-byte-aligned runs (LDS.128 candidates).
__global__ void gemm_challenge_kernel(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                   int M, int N, int K) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * 16 + tx;
    int row0 = blockIdx.y * BM;
    int col0 = blockIdx.x * BN;
    float acc[TM][TN] = {};
    for (int t = 0; t < K; t += BK) {
        for (int e = tid; e < BM * BK; e += 256) {
            int r = e / BK, c = e % BK;
            As[r][c] = (row0 + r < M && t + c < K) ? A[(row0 + r) * K + t + c] : 0.0f;
        }
        for (int e = tid; e < BK * BN; e += 256) {
            int r = e / BN, c = e % BN;
            Bs[r][c] = (t + r < K && col0 + c < N) ? B[(t + r) * N + col0 + c] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float a[TM], b[TN];
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = As[ty * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = Bs[k][tx * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
            if (r < M && c < N) C[r * N + c] = acc[i][j];
        }
}

} // namespace

void launch_gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
    dim3 block(16, 16);
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    gemm_challenge_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
