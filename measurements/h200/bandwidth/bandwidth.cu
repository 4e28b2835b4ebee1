// Harris's transpose experiment ("An Efficient Matrix Transpose in CUDA C/C++", 2013) on the H200, with the
// course's kernels: block (32, 8), TILE_DIM 32, four rows per thread, float32, bounds guards as in lesson 9.
// Effective bandwidth = 2 * n * n * 4 bytes / kernel time (Harris's definition: one read and one write).
//
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o bandwidth measurements/h200/bandwidth/bandwidth.cu
// Usage: bandwidth time N [RUNS]          -> one JSON line per kernel (all runs' times in ms)
//        bandwidth once K1,K2,... N [EXTRA_SMEM_BYTES] -> one launch each, for ncu (EXTRA_SMEM: dynamic
//                                                        shared memory per block, to limit blocks per SM)
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)

// Copy without __restrict__: plain LDG.E (Harris's copy kernel).
extern "C" __global__ void copy(const float* input, float* output, int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < M && x < N) output[(y + j) * N + x] = input[(y + j) * N + x];
}

// Copy with const __restrict__: the read-only path (LDG.E.CONSTANT), as the lesson's transposes get.
extern "C" __global__ void copy_restrict(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < M && x < N) output[(y + j) * N + x] = input[(y + j) * N + x];
}

// Lesson 8's naive transpose: coalesced row read, write down a column (stride M floats).
extern "C" __global__ void transpose_naive(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < M && x < N) output[x * M + (y + j)] = input[(y + j) * N + x];
}

// The other naive transpose: read down a column (stride N floats), write a row coalesced.
extern "C" __global__ void transpose_naive_colread(const float* __restrict__ input, float* __restrict__ output,
                                                   int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;   // column of the output = row of the input
    int y = blockIdx.y * TILE_DIM + threadIdx.y;   // row of the output = column of the input
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < N && x < M) output[(y + j) * M + x] = input[x * N + (y + j)];
}

// Lesson 9's tiled transpose; PAD = 0 (32-way conflicts on the column read) or 1.
#define TILED_TRANSPOSE(NAME, PAD)                                                                          \
    extern "C" __global__ void NAME(const float* __restrict__ input, float* __restrict__ output, int M, int N) { \
        __shared__ float tile[TILE_DIM][TILE_DIM + PAD];                                                    \
        int x = blockIdx.x * TILE_DIM + threadIdx.x;                                                        \
        int y = blockIdx.y * TILE_DIM + threadIdx.y;                                                        \
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)                                                      \
            if (y + j < M && x < N) tile[threadIdx.y + j][threadIdx.x] = input[(y + j) * N + x];            \
        __syncthreads();                                                                                    \
        x = blockIdx.y * TILE_DIM + threadIdx.x;                                                            \
        y = blockIdx.x * TILE_DIM + threadIdx.y;                                                            \
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)                                                      \
            if (y + j < N && x < M) output[(y + j) * M + x] = tile[threadIdx.x][threadIdx.y + j];           \
    }
TILED_TRANSPOSE(transpose_tiled_pad0, 0)
TILED_TRANSPOSE(transpose_tiled_pad1, 1)

// XOR swizzle: element (r, c) of the tile lives at tile[r][c ^ r]; no padding, no conflicts.
extern "C" __global__ void transpose_tiled_swizzle(const float* __restrict__ input, float* __restrict__ output,
                                                   int M, int N) {
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int r = threadIdx.y + j;
        if (y + j < M && x < N) tile[r][threadIdx.x ^ r] = input[(y + j) * N + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int r = threadIdx.x, c = threadIdx.y + j;
        if (y + j < N && x < M) output[(y + j) * M + x] = tile[r][c ^ r];
    }
}

// N = 8192 study: the tiled transposes with the global load replaced by a value computed in registers
// (no LDG traffic through L1), to see whether shared-memory wavefronts depend on concurrent global loads.
#define TILED_NOLOAD(NAME, PAD)                                                                             \
    extern "C" __global__ void NAME(const float* __restrict__ input, float* __restrict__ output, int M, int N) { \
        __shared__ float tile[TILE_DIM][TILE_DIM + PAD];                                                    \
        int x = blockIdx.x * TILE_DIM + threadIdx.x;                                                        \
        int y = blockIdx.y * TILE_DIM + threadIdx.y;                                                        \
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)                                                      \
            if (y + j < M && x < N) tile[threadIdx.y + j][threadIdx.x] = (float)((y + j) * N + x);          \
        __syncthreads();                                                                                    \
        x = blockIdx.y * TILE_DIM + threadIdx.x;                                                            \
        y = blockIdx.x * TILE_DIM + threadIdx.y;                                                            \
        for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)                                                      \
            if (y + j < N && x < M) output[(y + j) * M + x] = tile[threadIdx.x][threadIdx.y + j];           \
    }
TILED_NOLOAD(transpose_tiled_pad0_noload, 0)
TILED_NOLOAD(transpose_tiled_pad1_noload, 1)

typedef void (*Kernel)(const float*, float*, int, int);
struct Named {
    const char* name;
    Kernel fn;
    bool transposed;
};
static const Named KERNELS[] = {
    {"copy", copy, false},
    {"copy_restrict", copy_restrict, false},
    {"transpose_naive", transpose_naive, true},
    {"transpose_naive_colread", transpose_naive_colread, true},
    {"transpose_tiled_pad0", transpose_tiled_pad0, true},
    {"transpose_tiled_pad1", transpose_tiled_pad1, true},
    {"transpose_tiled_swizzle", transpose_tiled_swizzle, true},
    {"transpose_tiled_pad0_noload", transpose_tiled_pad0_noload, true},
    {"transpose_tiled_pad1_noload", transpose_tiled_pad1_noload, true},
};
static const int N_TIMED = 7;   // the first seven are Harris's experiment; the noload ones are for ncu only

static const Named* find(const char* name) {
    for (const Named& k : KERNELS)
        if (!strcmp(k.name, name)) return &k;
    return nullptr;
}

static void launch(const Named& k, const float* in, float* out, int n, size_t smem) {
    dim3 block(TILE_DIM, BLOCK_ROWS), grid(n / TILE_DIM, n / TILE_DIM);
    k.fn<<<grid, block, smem>>>(in, out, n, n);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bandwidth time N [RUNS] | bandwidth once KERNEL N [EXTRA_SMEM_BYTES]\n");
        return 1;
    }
    const bool once = !strcmp(argv[1], "once");
    const int n = atoi(argv[once ? 3 : 2]);
    if (n <= 0 || n % TILE_DIM) {
        fprintf(stderr, "N must be a positive multiple of %d\n", TILE_DIM);
        return 1;
    }
    const size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    std::vector<float> h_in(elems), h_out(elems);
    unsigned s = 12345u;
    for (size_t i = 0; i < elems; ++i) {
        s = 1664525u * s + 1013904223u;
        h_in[i] = (float)(s >> 8) / 16777216.0f - 0.5f;   // random, never all zeros (METHOD.md)
    }
    float *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemcpy(in, h_in.data(), bytes, cudaMemcpyHostToDevice));

    if (once) {   // a comma-separated list of kernels, each launched once
        size_t smem = argc > 4 ? (size_t)atol(argv[4]) : 0;
        char* list = argv[2];
        for (char* name = strtok(list, ","); name; name = strtok(nullptr, ",")) {
            const Named* k = find(name);
            if (!k) {
                fprintf(stderr, "unknown kernel %s\n", name);
                return 1;
            }
            if (smem) CHECK(cudaFuncSetAttribute(k->fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
            launch(*k, in, out, n, smem);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            printf("once %s n=%d extra_smem=%zu ok\n", k->name, n, smem);
        }
        return 0;
    }

    const int runs = argc > 3 ? atoi(argv[3]) : 30;
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int ki = 0; ki < N_TIMED; ++ki) {
        const Named& k = KERNELS[ki];
        CHECK(cudaMemset(out, 0xff, bytes));   // poison: NaN everywhere, so an unwritten element fails the check
        launch(k, in, out, n, 0);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(h_out.data(), out, bytes, cudaMemcpyDeviceToHost));
        long bad = 0;
        for (int r = 0; r < n; ++r)
            for (int c = 0; c < n; ++c) {
                float want = h_in[(size_t)r * n + c];
                float got = k.transposed ? h_out[(size_t)c * n + r] : h_out[(size_t)r * n + c];
                bad += (got != want);
            }
        for (int w = 0; w < 5; ++w) launch(k, in, out, n, 0);   // warm-up
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms(runs);
        for (int r = 0; r < runs; ++r) {
            CHECK(cudaEventRecord(a));
            launch(k, in, out, n, 0);
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            CHECK(cudaEventElapsedTime(&ms[r], a, b));
        }
        CHECK(cudaGetLastError());
        printf("{\"name\": \"%s\", \"n\": %d, \"wrong\": %ld, \"ms\": [", k.name, n, bad);
        for (int r = 0; r < runs; ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
        printf("]}\n");
        fflush(stdout);
    }
    return 0;
}
