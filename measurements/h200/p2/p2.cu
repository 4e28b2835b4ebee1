// Prelude P2's access patterns on the H200, launched exactly as the P2 script launches them on labsim
// (lessons/prelude/02_memory_coalescing.py, demo 1): 64 blocks of 256 threads, thread i = global thread index
// reads one element of a large array; plus array-of-structs vs structure-of-arrays and 2-D row vs column reads.
// The loaded value feeds a store that never happens (v == a value the data never holds), so the load counters
// hold the pattern's load alone. Arrays come from cudaMalloc (256-byte aligned), filled with ones.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o p2 measurements/h200/p2/p2.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "p2_random_idx.h"

#define KERNEL extern "C" __global__ void
#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)
#define NEVER -12345.0f   // the data is all 1.0f: the sink store is never taken

struct P3 { float x, y, z; };

#define GATHER(NAME, T, EXPR)                                                     \
    KERNEL NAME(const T* __restrict__ A, float* sink) {                           \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                            \
        float v = (float)(EXPR);                                                  \
        if (v == NEVER) sink[i] = v;                                              \
    }
GATHER(p2_contig, float, A[i])
GATHER(p2_offset1, float, A[i + 1])
GATHER(p2_stride2, float, A[2 * i])
GATHER(p2_stride4, float, A[4 * i])
GATHER(p2_stride8, float, A[8 * i])
GATHER(p2_stride32, float, A[32 * i])
GATHER(p2_broadcast, float, A[0])
GATHER(p2_random, float, A[c_p2_random[i]])
GATHER(p2_f64_contig, double, A[i])
KERNEL p2_f32x4_contig(const float4* __restrict__ A, float* sink) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 q = A[i];
    float v = q.x + q.y + q.z + q.w;
    if (v == NEVER) sink[i] = v;
}
// Array of structs {x, y, z} (12 bytes) read .x; all three fields; structure of arrays x[i] is p2_contig.
GATHER(p2_aos3_x, P3, A[i].x)
KERNEL p2_aos3_xyz(const P3* __restrict__ A, float* sink) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    P3 p = A[i];
    float v = p.x + p.y + p.z;
    if (v == NEVER) sink[i] = v;
}
KERNEL p2_soa3_xyz(const float* __restrict__ X, const float* __restrict__ Y, const float* __restrict__ Z, float* sink) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = X[i] + Y[i] + Z[i];
    if (v == NEVER) sink[i] = v;
}
// 2-D: a W x W row-major float matrix, block (32, 8), grid (W / 32, W / 8); row read A[y][x], column read A[x][y].
KERNEL p2_2d_row(const float* __restrict__ A, float* sink, int W) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    float v = A[y * W + x];
    if (v == NEVER) sink[y * W + x] = v;
}
KERNEL p2_2d_col(const float* __restrict__ A, float* sink, int W) {
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 8 + threadIdx.y;
    float v = A[x * W + y];
    if (v == NEVER) sink[y * W + x] = v;
}

__global__ void ones(float* p, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = 1.0f;
}

int main() {
    const int blocks = 64, threads = 256, n = blocks * threads;
    const size_t big = 64 * (size_t)n + 64;   // as the script: every pattern stays inside
    float* f;       // big float32s, also used as big/2 doubles and big/4 float4s... sized for the widest
    float* sink;
    const size_t floats = 4 * big;            // float4 array of `big` elements
    CHECK(cudaMalloc(&f, floats * sizeof(float)));
    CHECK(cudaMalloc(&sink, (size_t)n * sizeof(float) * 64));
    ones<<<1024, 256>>>(f, floats);
    CHECK(cudaDeviceSynchronize());
    printf("base %p (mod 256 = %d)\n", (void*)f, (int)((size_t)f % 256));
    int launches = 0;
#define L(K, G, B, ...)                                                    \
    do {                                                                   \
        K<<<G, B>>>(__VA_ARGS__);                                          \
        CHECK(cudaGetLastError());                                         \
        CHECK(cudaDeviceSynchronize());                                    \
        printf("launch %s\n", #K);                                         \
        ++launches;                                                        \
    } while (0)
    L(p2_contig, blocks, threads, f, sink);
    L(p2_offset1, blocks, threads, f, sink);
    L(p2_stride2, blocks, threads, f, sink);
    L(p2_stride4, blocks, threads, f, sink);
    L(p2_stride8, blocks, threads, f, sink);
    L(p2_stride32, blocks, threads, f, sink);
    L(p2_broadcast, blocks, threads, f, sink);
    L(p2_random, blocks, threads, f, sink);
    L(p2_f64_contig, blocks, threads, (const double*)f, sink);
    L(p2_f32x4_contig, blocks, threads, (const float4*)f, sink);
    L(p2_aos3_x, blocks, threads, (const P3*)f, sink);
    L(p2_aos3_xyz, blocks, threads, (const P3*)f, sink);
    L(p2_soa3_xyz, blocks, threads, f, f + big, f + 2 * big, sink);
    const int W = 256;
    L(p2_2d_row, dim3(W / 32, W / 8), dim3(32, 8), f, sink, W);
    L(p2_2d_col, dim3(W / 32, W / 8), dim3(32, 8), f, sink, W);
    printf("%d launches\n", launches);
    return 0;
}
