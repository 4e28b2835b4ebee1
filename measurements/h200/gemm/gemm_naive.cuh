// Lesson 10's naive GEMM: C[M, N] = A[M, K] * B[K, N], float32, row-major, one thread per element of C,
// every operand read from global memory. Block (16, 16), grid (ceil(N / 16), ceil(M / 16)).
extern "C" __global__ void gemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                      int M, int N, int K) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = acc;
    }
}
