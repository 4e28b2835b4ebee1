// Issue 27 items 5-8: lesson 8's transposes on the H200 at 8192 x 8192 float32, with the memory-level counters
// (L1 hits of global loads, L2 write sectors and throughput, DRAM bytes), a block-shape sweep of the naive
// transpose (one element per thread), the strided-read variant, and Q3's write-only / read-only kernels.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o transpose8 measurements/h200/round3/transpose8.cu
// Usage: transpose8 time N [RUNS]     -> one JSON line per (kernel, block): every run's ms, output checked
//        transpose8 once N            -> every (kernel, block) launched once, for ncu
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

// Harris's copy and lesson 8's naive transpose: block (32, 8), a 32 x 32 tile per block, 4 rows per thread.
extern "C" __global__ void copy(const float* input, float* output, int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < M && x < N) output[(y + j) * N + x] = input[(y + j) * N + x];
}
extern "C" __global__ void copy_restrict(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < M && x < N) output[(y + j) * N + x] = input[(y + j) * N + x];
}
extern "C" __global__ void transpose_naive(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < M && x < N) output[x * M + (y + j)] = input[(y + j) * N + x];
}
extern "C" __global__ void transpose_naive_colread(const float* __restrict__ input, float* __restrict__ output,
                                                   int M, int N) {
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
        if (y + j < N && x < M) output[(y + j) * M + x] = input[x * N + (y + j)];
}
// One element per thread, any block shape: thread (x, y) reads input[y][x] (row read), writes output[x][y].
extern "C" __global__ void transpose_naive_1e(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < M && x < N) output[x * M + y] = input[y * N + x];
}
// One element per thread, strided read: thread (x, y) writes output[y][x] (row write), reads input[x][y].
extern "C" __global__ void transpose_colread_1e(const float* __restrict__ input, float* __restrict__ output, int M,
                                                int N) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < N && x < M) output[y * M + x] = input[x * N + y];
}
// Q3, write only: set a matrix to a constant, a warp along a row (coalesced) or down a column (stride N).
extern "C" __global__ void fill_row(float* __restrict__ output, int M, int N) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < M && x < N) output[y * N + x] = 1.0f;
}
extern "C" __global__ void fill_col(float* __restrict__ output, int M, int N) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;   // x walks rows: lanes write down a column
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < M && y < N) output[x * N + y] = 1.0f;
}
// Q3, read only: column sums, one float stored per column (so -O3 keeps the loads).
// coalesced: thread c sums column c; a warp reads 32 adjacent columns of one row per step.
extern "C" __global__ void colsum_coalesced(const float* __restrict__ input, float* __restrict__ sums, int M, int N) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= N) return;
    float s = 0.0f;
    for (int r = 0; r < M; ++r) s += input[r * N + c];
    sums[c] = s;
}
// strided, adjacent columns in one block: block (32, 8), warp ty sums column blockIdx.x*8 + ty; lane l reads rows
// l, l + 32, ...: each load a column segment (32 sectors), the block's 8 warps touch 8 adjacent columns.
extern "C" __global__ void colsum_strided_block(const float* __restrict__ input, float* __restrict__ sums, int M, int N) {
    int c = blockIdx.x * blockDim.y + threadIdx.y, lane = threadIdx.x;
    if (c >= N) return;
    float s = 0.0f;
    for (int r = lane; r < M; r += 32) s += input[r * N + c];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) sums[c] = s;
}
// strided, adjacent columns on different blocks: warp ty of block b sums column ty * gridDim.x + b.
extern "C" __global__ void colsum_strided_spread(const float* __restrict__ input, float* __restrict__ sums, int M, int N) {
    int c = threadIdx.y * gridDim.x + blockIdx.x, lane = threadIdx.x;
    if (c >= N) return;
    float s = 0.0f;
    for (int r = lane; r < M; r += 32) s += input[r * N + c];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) sums[c] = s;
}

typedef void (*Kernel)(const float*, float*, int, int);
enum Kind { COPY, TRANSPOSE, FILL, COLSUM };
struct Case {
    const char* name;
    Kernel fn;
    Kind kind;
    int bx, by;
    int rows_per_thread;   // 4 for the tiled (32, 8) kernels: grid covers 32 x 32 per block
};
static std::vector<Case> cases() {
    std::vector<Case> v = {
        {"copy", copy, COPY, 32, 8, 4},
        {"copy_restrict", copy_restrict, COPY, 32, 8, 4},
        {"transpose_naive", transpose_naive, TRANSPOSE, 32, 8, 4},
        {"transpose_naive_colread", transpose_naive_colread, TRANSPOSE, 32, 8, 4},
    };
    const int shapes[][2] = {{32, 8},  {32, 16}, {32, 32}, {16, 16}, {16, 32}, {16, 64}, {8, 32},  {8, 64},
                             {8, 128}, {4, 64},  {4, 256}, {2, 128}, {1, 256}, {64, 4},  {64, 16}, {128, 2},
                             {256, 1}, {8, 8}};
    for (auto& s : shapes) v.push_back({"transpose_naive_1e", transpose_naive_1e, TRANSPOSE, s[0], s[1], 1});
    const int cshapes[][2] = {{32, 8}, {32, 32}, {8, 32}, {16, 16}};
    for (auto& s : cshapes) v.push_back({"transpose_colread_1e", transpose_colread_1e, TRANSPOSE, s[0], s[1], 1});
    v.push_back({"fill_row", nullptr, FILL, 32, 8, 1});
    v.push_back({"fill_col", nullptr, FILL, 32, 8, 1});
    v.push_back({"colsum_coalesced", colsum_coalesced, COLSUM, 256, 1, 1});
    v.push_back({"colsum_strided_block", colsum_strided_block, COLSUM, 32, 8, 1});
    v.push_back({"colsum_strided_spread", colsum_strided_spread, COLSUM, 32, 8, 1});
    return v;
}

static void launch(const Case& c, const float* in, float* out, int n) {
    dim3 block(c.bx, c.by);
    if (c.kind == COLSUM) {
        int grid = !strcmp(c.name, "colsum_coalesced") ? (n + 255) / 256 : (n + 7) / 8;
        c.fn<<<grid, block>>>(in, out, n, n);
        return;
    }
    int per = c.rows_per_thread == 4 ? TILE_DIM : 0;
    dim3 grid = per ? dim3((n + 31) / 32, (n + 31) / 32) : dim3((n + c.bx - 1) / c.bx, (n + c.by - 1) / c.by);
    if (c.kind == FILL) {
        if (!strcmp(c.name, "fill_row")) fill_row<<<grid, block>>>(out, n, n);
        else fill_col<<<grid, block>>>(out, n, n);
        return;
    }
    c.fn<<<grid, block>>>(in, out, n, n);
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: transpose8 time N [RUNS] | transpose8 once N\n");
        return 1;
    }
    const bool once = !strcmp(argv[1], "once");
    const int n = atoi(argv[2]);
    const size_t elems = (size_t)n * n, bytes = elems * 4;
    std::vector<float> h_in(elems), h_out(elems);
    unsigned s = 12345u;
    for (size_t i = 0; i < elems; ++i) {
        s = 1664525u * s + 1013904223u;
        h_in[i] = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
    std::vector<double> colsum(n, 0.0);
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) colsum[c] += h_in[(size_t)r * n + c];
    float *in, *out;
    CHECK(cudaMalloc(&in, bytes));
    CHECK(cudaMalloc(&out, bytes));
    CHECK(cudaMemcpy(in, h_in.data(), bytes, cudaMemcpyHostToDevice));
    const int runs = argc > 3 ? atoi(argv[3]) : 30;
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (const Case& c : cases()) {
        CHECK(cudaMemset(out, 0xff, bytes));   // NaN poison
        launch(c, in, out, n);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        if (once) {
            printf("once %s block=(%d,%d) n=%d ok\n", c.name, c.bx, c.by, n);
            continue;
        }
        long bad = 0;
        if (c.kind == COLSUM) {
            CHECK(cudaMemcpy(h_out.data(), out, n * 4, cudaMemcpyDeviceToHost));
            for (int j = 0; j < n; ++j) bad += !(std::fabs(h_out[j] - colsum[j]) <= 1e-3 * (1 + std::fabs(colsum[j])));
        } else {
            CHECK(cudaMemcpy(h_out.data(), out, bytes, cudaMemcpyDeviceToHost));
            for (int r = 0; r < n; ++r)
                for (int q = 0; q < n; ++q) {
                    float want = c.kind == FILL ? 1.0f : h_in[(size_t)r * n + q];
                    float got = c.kind == TRANSPOSE ? h_out[(size_t)q * n + r] : h_out[(size_t)r * n + q];
                    bad += got != want;
                }
        }
        for (int w = 0; w < 5; ++w) launch(c, in, out, n);
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms(runs);
        for (int r = 0; r < runs; ++r) {
            CHECK(cudaEventRecord(a));
            launch(c, in, out, n);
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            CHECK(cudaEventElapsedTime(&ms[r], a, b));
        }
        CHECK(cudaGetLastError());
        printf("{\"name\": \"%s\", \"block\": [%d, %d], \"n\": %d, \"wrong\": %ld, \"ms\": [", c.name, c.bx, c.by, n, bad);
        for (int r = 0; r < runs; ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
        printf("]}\n");
        fflush(stdout);
    }
    return 0;
}
