// H200 ground truth for labsim: one small kernel per access pattern, profiled with Nsight Compute.
//
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o microbench measurements/h200/microbench.cu
// Run:   bash measurements/h200/run.sh   (profiles every launch below with ncu; see README.md)
//
// Rules every kernel follows, so that its counters are exact and a simulator can replay it one to one:
//  * one memory instruction per warp for the pattern being measured (checked in the SASS table of README.md);
//  * the loaded value is consumed by one float32 store sink[tid] (contiguous, 4 sectors per full warp), so the
//    compiler must keep the load; store-pattern kernels store computed values and load nothing from global;
//  * shared-memory kernels first fill their tile with contiguous 32-bit stores over the flat tile
//    (ceil(words/blockDim) STS per thread, all conflict-free), then __syncthreads(), then the pattern;
//  * every device buffer comes from cudaMalloc (base alignment printed at start: must be 0 mod 256).
// Kernel names carry the launch shape: _w1 = <<<1, 32>>>, _2x256 = <<<2, 256>>>, _b256 = <<<1, 256>>>.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// extern "C": kernel names reach ncu, cuobjdump and the results unmangled.
#define KERNEL extern "C" __global__

#define CK(x)                                                                                    \
    do {                                                                                         \
        cudaError_t err_ = (x);                                                                  \
        if (err_ != cudaSuccess) {                                                               \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #x,                    \
                    cudaGetErrorString(err_));                                                   \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

// Random index table for gld_f32_random_*: c_rand[t] for t < 512, values in [0, 1024).
// Filled by the host with the LCG in make_rand_table() so a simulator can rebuild it.
__constant__ int c_rand[512];

__device__ __forceinline__ float to_f(float v) { return v; }
__device__ __forceinline__ float to_f(double v) { return static_cast<float>(v); }
__device__ __forceinline__ float to_f(float2 v) { return v.x + v.y; }
__device__ __forceinline__ float to_f(float4 v) { return (v.x + v.y) + (v.z + v.w); }
__device__ __forceinline__ float to_f(__half v) { return __half2float(v); }

__device__ __forceinline__ int gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }

// ---------------------------------------------------------------------------------------------------------------
// Global loads. Each case is one device body and two launch shapes (1 warp; 2 blocks x 256 threads).
// ---------------------------------------------------------------------------------------------------------------
#define GLD_CASE(NAME, T, IDX)                                                                    \
    __device__ __forceinline__ void NAME##_body(const T* in, float* sink) {                     \
        const int tid = gtid();                                                                  \
        const int lane = threadIdx.x & 31;                                                       \
        (void)lane;                                                                              \
        sink[tid] = to_f(in[IDX]);                                                               \
    }                                                                                            \
    KERNEL void NAME##_w1(const T* in, float* sink) { NAME##_body(in, sink); }              \
    KERNEL void NAME##_2x256(const T* in, float* sink) { NAME##_body(in, sink); }

GLD_CASE(gld_f32_contig, float, tid)
GLD_CASE(gld_f32_offset1, float, tid + 1)
GLD_CASE(gld_f32_stride2, float, tid * 2)
GLD_CASE(gld_f32_stride4, float, tid * 4)
GLD_CASE(gld_f32_stride8, float, tid * 8)
GLD_CASE(gld_f32_stride32, float, tid * 32)
GLD_CASE(gld_f32_broadcast, float, 0)
GLD_CASE(gld_f32_random, float, c_rand[tid])
GLD_CASE(gld_f64_contig, double, tid)
GLD_CASE(gld_f32x4_contig, float4, tid)
GLD_CASE(gld_f32x2_contig, float2, tid)
GLD_CASE(gld_f16_contig, __half, tid)

// Half the lanes of every warp active: the whole body sits under the if (load and sink store).
__device__ __forceinline__ void gld_f32_halfwarp_body(const float* in, float* sink) {
    const int tid = gtid();
    if ((threadIdx.x & 31) < 16) sink[tid] = in[tid];
}
KERNEL void gld_f32_halfwarp_w1(const float* in, float* sink) { gld_f32_halfwarp_body(in, sink); }
KERNEL void gld_f32_halfwarp_2x256(const float* in, float* sink) { gld_f32_halfwarp_body(in, sink); }

// Warps with no active lane. Two forms, whose SASS differs (see the SASS table):
//  _if:    one guarded load (threadIdx.x >= 64): ptxas branches (@!P0 EXIT), so warps 0-1 skip the LDG;
//  _pred2: two loads under different guards (>= 64, >= 128): ptxas predicates them (@P0 LDG, @P1 LDG), so
//          all 8 warps issue both LDGs, predicated off where no lane is active.
KERNEL void gld_f32_pred_if_2x256(const float* in, float* sink) {
    const int tid = gtid();
    if (threadIdx.x >= 64) sink[tid] = in[tid];
}
KERNEL void gld_f32_pred2_2x256(const float* in, float* sink) {
    const int tid = gtid();
    float a = 0.0f, b = 0.0f;
    if (threadIdx.x >= 64) a = in[tid];
    if (threadIdx.x >= 128) b = in[tid + 512];
    sink[tid] = a + b;
}

// Read-only path (const __restrict__ + __ldg), as the seed's transpose kernel gets: LDG.E.CONSTANT.
KERNEL void gld_f32_contig_nc_w1(const float* __restrict__ in, float* __restrict__ sink) {
    sink[gtid()] = __ldg(in + gtid());
}
KERNEL void gld_f32_contig_nc_2x256(const float* __restrict__ in, float* __restrict__ sink) {
    sink[gtid()] = __ldg(in + gtid());
}

// ---------------------------------------------------------------------------------------------------------------
// Global stores (no global loads).
// ---------------------------------------------------------------------------------------------------------------
#define GST_CASE(NAME, IDX)                                                                       \
    __device__ __forceinline__ void NAME##_body(float* out) {                                    \
        const int tid = gtid();                                                                  \
        out[IDX] = static_cast<float>(tid);                                                      \
    }                                                                                            \
    KERNEL void NAME##_w1(float* out) { NAME##_body(out); }                                  \
    KERNEL void NAME##_2x256(float* out) { NAME##_body(out); }

GST_CASE(gst_f32_contig, tid)
GST_CASE(gst_f32_offset1, tid + 1)
GST_CASE(gst_f32_stride32, tid * 32)

// ---------------------------------------------------------------------------------------------------------------
// Global atomics: ATOM (old value used: op_atom) and RED (old value unused: op_red).
// ---------------------------------------------------------------------------------------------------------------
KERNEL void gatom_f32_contig_w1(float* acc, float* sink) { sink[gtid()] = atomicAdd(acc + gtid(), 1.0f); }
KERNEL void gred_f32_contig_w1(float* acc) { atomicAdd(acc + gtid(), 1.0f); }
KERNEL void gred_f32_same_w1(float* acc) { atomicAdd(acc, 1.0f); }

// ---------------------------------------------------------------------------------------------------------------
// Shared memory. fill_words writes the tile as flat 32-bit words, contiguous per warp (conflict-free).
// ---------------------------------------------------------------------------------------------------------------
__device__ __forceinline__ void fill_words(void* base, int nwords) {
    unsigned* w = static_cast<unsigned*>(base);
    for (int i = threadIdx.x; i < nwords; i += blockDim.x) w[i] = 2654435761u * static_cast<unsigned>(i);
}

// DECL declares `tile`; EXPR reads it (uses `lane`); the value goes to sink[tid].
#define SLD_CASE(NAME, DECL, T, EXPR)                                                             \
    KERNEL void NAME(float* sink) {                                                          \
        __shared__ __align__(16) DECL;                                                           \
        fill_words(tile, sizeof(tile) / 4);                                                      \
        __syncthreads();                                                                         \
        const int lane = threadIdx.x & 31;                                                       \
        (void)lane;                                                                              \
        const T v = EXPR;                                                                        \
        sink[gtid()] = to_f(v);                                                                  \
    }

// float32 tiles: transposed (column) reads and friends.
SLD_CASE(sld_f32_row_w1, float tile[32][32], float, tile[3][lane])
SLD_CASE(sld_f32_col_pad0_w1, float tile[32][32], float, tile[lane][7])
SLD_CASE(sld_f32_col_pad1_w1, float tile[32][33], float, tile[lane][7])
SLD_CASE(sld_f32_col_pad2_w1, float tile[32][34], float, tile[lane][7])
SLD_CASE(sld_f32_col_xor_w1, float tile[32][32], float, tile[lane][7 ^ lane])
SLD_CASE(sld_f32_broadcast_w1, float tile[32][32], float, tile[2][5])
// lanes 0 and 1 read the same word (word 0); the others read distinct words of distinct banks.
SLD_CASE(sld_f32_two_same_w1, float tile[32][32], float, tile[0][lane == 1 ? 0 : lane])
// lane 1 reads word 32 (bank 0, like lane 0's word 0): a 2-way conflict on bank 0.
SLD_CASE(sld_f32_two_conflict_w1, float tile[32][32], float, tile[lane == 1 ? 1 : 0][lane == 1 ? 0 : lane])
// __half tiles read down a column.
SLD_CASE(sld_f16_row_w1, __half tile[32][32], __half, tile[3][lane])
SLD_CASE(sld_f16_col_pad0_w1, __half tile[32][32], __half, tile[lane][7])
SLD_CASE(sld_f16_col_pad1_w1, __half tile[32][33], __half, tile[lane][7])
SLD_CASE(sld_f16_col_pad2_w1, __half tile[32][34], __half, tile[lane][7])
// double tiles (8-byte accesses).
SLD_CASE(sld_f64_contig_w1, double tile[32][32], double, tile[3][lane])
SLD_CASE(sld_f64_stride2_w1, double tile[32][64], double, tile[3][2 * lane])
SLD_CASE(sld_f64_col_pad0_w1, double tile[32][32], double, tile[lane][7])
SLD_CASE(sld_f64_col_pad1_w1, double tile[32][33], double, tile[lane][7])
// float4 (16-byte) and float2 (8-byte) accesses.
SLD_CASE(sld_f32x4_contig_w1, float4 tile[4][64], float4, tile[1][lane])
SLD_CASE(sld_f32x4_stride2_w1, float4 tile[4][64], float4, tile[1][2 * lane])
SLD_CASE(sld_f32x4_col_w1, float4 tile[32][8], float4, tile[lane][1])
SLD_CASE(sld_f32x4_broadcast_w1, float4 tile[4][64], float4, tile[1][5])
SLD_CASE(sld_f32x2_contig_w1, float2 tile[4][64], float2, tile[1][lane])
SLD_CASE(sld_f32x2_stride2_w1, float2 tile[4][64], float2, tile[1][2 * lane])

// Half-warp active on shared loads (body under the if, sink store included).
#define SLD_HALF_CASE(NAME, DECL, EXPR)                                                           \
    KERNEL void NAME(float* sink) {                                                          \
        __shared__ __align__(16) DECL;                                                           \
        fill_words(tile, sizeof(tile) / 4);                                                      \
        __syncthreads();                                                                         \
        const int lane = threadIdx.x & 31;                                                       \
        if (lane < 16) sink[gtid()] = EXPR;                                                      \
    }
SLD_HALF_CASE(sld_f32_halfwarp_row_w1, float tile[32][32], tile[3][lane])
SLD_HALF_CASE(sld_f32_halfwarp_col_pad0_w1, float tile[32][32], tile[lane][7])

// Warps with no active lane on shared row reads (tile[warp][lane], conflict-free), as for global:
// _if (one guarded load, branch) and _pred2 (two loads under different guards, predicated).
KERNEL void sld_f32_pred_if_b256(float* sink) {
    __shared__ __align__(16) float tile[8][32];
    fill_words(tile, sizeof(tile) / 4);
    __syncthreads();
    if (threadIdx.x >= 64) sink[gtid()] = tile[threadIdx.x >> 5][threadIdx.x & 31];
}
KERNEL void sld_f32_pred2_b256(float* sink) {
    __shared__ __align__(16) float tile[8][32];
    fill_words(tile, sizeof(tile) / 4);
    __syncthreads();
    float a = 0.0f, b = 0.0f;
    if (threadIdx.x >= 64) a = tile[threadIdx.x >> 5][threadIdx.x & 31];
    if (threadIdx.x >= 128) b = tile[7 - (threadIdx.x >> 5)][threadIdx.x & 31];
    sink[gtid()] = a + b;
}

// Shared stores: the pattern store, a barrier, then one conflict-free row read (tile word `lane`) to the sink
// so the stores are observable.
#define SST_CASE(NAME, DECL, LVALUE, VALUE)                                                       \
    KERNEL void NAME(float* sink) {                                                          \
        __shared__ __align__(16) DECL;                                                           \
        const int lane = threadIdx.x & 31;                                                       \
        LVALUE = VALUE;                                                                          \
        __syncthreads();                                                                         \
        sink[gtid()] = reinterpret_cast<const float*>(tile)[lane];                               \
    }

SST_CASE(sst_f32_row_w1, float tile[32][32], tile[3][lane], static_cast<float>(lane))
SST_CASE(sst_f32_col_pad0_w1, float tile[32][32], tile[lane][7], static_cast<float>(lane))
SST_CASE(sst_f32_col_pad1_w1, float tile[32][33], tile[lane][7], static_cast<float>(lane))
SST_CASE(sst_f32_col_pad2_w1, float tile[32][34], tile[lane][7], static_cast<float>(lane))
SST_CASE(sst_f32_col_xor_w1, float tile[32][32], tile[lane][7 ^ lane], static_cast<float>(lane))
SST_CASE(sst_f32_broadcast_w1, float tile[32][32], tile[2][5], static_cast<float>(lane))
SST_CASE(sst_f16_col_pad0_w1, __half tile[32][32], tile[lane][7], __int2half_rn(lane))
SST_CASE(sst_f64_contig_w1, double tile[32][32], tile[3][lane], static_cast<double>(lane))
SST_CASE(sst_f64_col_pad1_w1, double tile[32][33], tile[lane][7], static_cast<double>(lane))
SST_CASE(sst_f32x4_contig_w1, float4 tile[4][64], tile[1][lane], make_float4(lane, 1.0f, 2.0f, 3.0f))
SST_CASE(sst_f32x2_contig_w1, float2 tile[4][64], tile[1][lane], make_float2(lane, 1.0f))

KERNEL void sst_f32_halfwarp_col_pad0_w1(float* sink) {
    __shared__ __align__(16) float tile[32][32];
    const int lane = threadIdx.x & 31;
    if (lane < 16) tile[lane][7] = static_cast<float>(lane);
    __syncthreads();
    sink[gtid()] = reinterpret_cast<const float*>(tile)[lane];
}

// Shared atomics (ATOMS.ADD on unsigned; a float atomicAdd on shared is a CAS loop on sm_90, whose trip count
// depends on contention): distinct words, and all lanes on one word. ptxas warp-aggregates the second one
// (VOTE + POPC, one lane issues ATOMS), also when written as PTX atom.shared, so it measures what real code gets.
KERNEL void satom_u32_contig_w1(float* sink) {
    __shared__ __align__(16) unsigned tile[32];
    tile[threadIdx.x] = 0u;
    __syncthreads();
    sink[gtid()] = static_cast<float>(atomicAdd(&tile[threadIdx.x], 1u));
}
KERNEL void satom_u32_same_w1(float* sink) {
    __shared__ __align__(16) unsigned tile[32];
    tile[threadIdx.x] = 0u;
    __syncthreads();
    sink[gtid()] = static_cast<float>(atomicAdd(&tile[0], 1u));
}

// ---------------------------------------------------------------------------------------------------------------
// Lesson 9: the seed's tiled transpose (TILE_DIM 32, BLOCK_ROWS 8, block (32, 8)), padding as a template
// parameter, plus Harris's naive transpose and copy with the same loop. input [M, N] row-major, output [N, M].
// ---------------------------------------------------------------------------------------------------------------
constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

template <int PAD>
__device__ __forceinline__ void transpose_tiled_body(const float* __restrict__ input, float* __restrict__ output,
                                                     int M, int N) {
    __shared__ float tile[TILE_DIM][TILE_DIM + PAD];

    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int row = y + j;
        int col = x;
        if (row < M && col < N) {
            tile[threadIdx.y + j][threadIdx.x] = input[row * N + col];
        }
    }

    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        int row = y + j;
        int col = x;
        if (row < N && col < M) {
            output[row * M + col] = tile[threadIdx.x][threadIdx.y + j];
        }
    }
}

#define TRANSPOSE_CASE(NAME, PAD)                                                                 \
    KERNEL void NAME(const float* __restrict__ in, float* __restrict__ out, int M, int N) {  \
        transpose_tiled_body<PAD>(in, out, M, N);                                                \
    }
TRANSPOSE_CASE(transpose_tiled_pad0_64x64, 0)
TRANSPOSE_CASE(transpose_tiled_pad1_64x64, 1)
TRANSPOSE_CASE(transpose_tiled_pad2_64x64, 2)
TRANSPOSE_CASE(transpose_tiled_pad0_33x45, 0)
TRANSPOSE_CASE(transpose_tiled_pad1_33x45, 1)
TRANSPOSE_CASE(transpose_tiled_pad2_33x45, 2)

KERNEL void transpose_naive_64x64(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    const int x = blockIdx.x * TILE_DIM + threadIdx.x;
    const int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        const int row = y + j;
        if (row < M && x < N) output[x * M + row] = input[row * N + x];
    }
}

KERNEL void copy_64x64(const float* __restrict__ input, float* __restrict__ output, int M, int N) {
    const int x = blockIdx.x * TILE_DIM + threadIdx.x;
    const int y = blockIdx.y * TILE_DIM + threadIdx.y;
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) {
        const int row = y + j;
        if (row < M && x < N) output[row * N + x] = input[row * N + x];
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Host
// ---------------------------------------------------------------------------------------------------------------
// The random index table: 32-bit LCG (Numerical Recipes constants), seed 12345, index = (x >> 8) % 1024.
static void make_rand_table(int* t, int n) {
    uint32_t x = 12345u;
    for (int i = 0; i < n; ++i) {
        x = 1664525u * x + 1013904223u;
        t[i] = static_cast<int>((x >> 8) % 1024u);
    }
}

static int g_launches = 0;

static void launched(const char* name, dim3 grid, dim3 block) {
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    printf("launch %3d  %-32s grid (%u,%u,%u) block (%u,%u,%u)\n", g_launches++, name, grid.x, grid.y, grid.z,
           block.x, block.y, block.z);
}

#define LAUNCH(KERNEL, GRID, BLOCK, ...)                                                          \
    do {                                                                                         \
        KERNEL<<<(GRID), (BLOCK)>>>(__VA_ARGS__);                                                \
        launched(#KERNEL, dim3(GRID), dim3(BLOCK));                                              \
    } while (0)

#define LAUNCH_GLD(NAME, BUF)                                                                     \
    do {                                                                                         \
        LAUNCH(NAME##_w1, 1, 32, BUF, sink);                                                     \
        LAUNCH(NAME##_2x256, 2, 256, BUF, sink);                                                 \
    } while (0)

static void check_align(const char* what, const void* p) {
    const unsigned long long a = reinterpret_cast<uintptr_t>(p);
    printf("buffer %-8s at 0x%llx, mod 256 = %llu\n", what, a, a % 256ull);
    if (a % 256ull != 0) {
        fprintf(stderr, "buffer %s is not 256-byte aligned\n", what);
        exit(1);
    }
}

// Returns the number of mismatches of out [N, M] against the transpose of in [M, N].
static int check_transpose(const std::vector<float>& in, const float* d_out, int M, int N, bool transposed) {
    std::vector<float> out(static_cast<size_t>(M) * N);
    CK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            const float want = in[r * N + c];
            const float got = transposed ? out[c * M + r] : out[r * N + c];
            bad += (want != got);
        }
    return bad;
}

int main() {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("device: %s (sm_%d%d)\n", prop.name, prop.major, prop.minor);

    const size_t in_floats = 1 << 16;  // 256 KiB: covers stride 32 over 512 threads
    std::vector<float> h_in(in_floats);
    for (size_t i = 0; i < in_floats; ++i) h_in[i] = static_cast<float>(i % 4093);

    float *in = nullptr, *sink = nullptr, *acc = nullptr, *gout = nullptr;
    CK(cudaMalloc(&in, in_floats * sizeof(float)));
    CK(cudaMalloc(&sink, in_floats * sizeof(float)));
    CK(cudaMalloc(&acc, 1024 * sizeof(float)));
    CK(cudaMalloc(&gout, in_floats * sizeof(float)));
    check_align("in", in);
    check_align("sink", sink);
    check_align("acc", acc);
    check_align("gout", gout);
    CK(cudaMemcpy(in, h_in.data(), in_floats * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(sink, 0, in_floats * sizeof(float)));
    CK(cudaMemset(acc, 0, 1024 * sizeof(float)));

    int rand_table[512];
    make_rand_table(rand_table, 512);
    CK(cudaMemcpyToSymbol(c_rand, rand_table, sizeof(rand_table)));
    printf("c_rand[0:32] =");
    for (int i = 0; i < 32; ++i) printf(" %d", rand_table[i]);
    printf("\n");

    const double* in64 = reinterpret_cast<const double*>(in);
    const float4* in4 = reinterpret_cast<const float4*>(in);
    const float2* in2 = reinterpret_cast<const float2*>(in);
    const __half* in16 = reinterpret_cast<const __half*>(in);

    // Global loads.
    LAUNCH_GLD(gld_f32_contig, in);
    LAUNCH_GLD(gld_f32_offset1, in);
    LAUNCH_GLD(gld_f32_stride2, in);
    LAUNCH_GLD(gld_f32_stride4, in);
    LAUNCH_GLD(gld_f32_stride8, in);
    LAUNCH_GLD(gld_f32_stride32, in);
    LAUNCH_GLD(gld_f32_broadcast, in);
    LAUNCH_GLD(gld_f32_random, in);
    LAUNCH_GLD(gld_f64_contig, in64);
    LAUNCH_GLD(gld_f32x4_contig, in4);
    LAUNCH_GLD(gld_f32x2_contig, in2);
    LAUNCH_GLD(gld_f16_contig, in16);
    LAUNCH_GLD(gld_f32_halfwarp, in);
    LAUNCH_GLD(gld_f32_contig_nc, in);
    LAUNCH(gld_f32_pred_if_2x256, 2, 256, in, sink);
    LAUNCH(gld_f32_pred2_2x256, 2, 256, in, sink);

    // Global stores.
    LAUNCH(gst_f32_contig_w1, 1, 32, gout);
    LAUNCH(gst_f32_contig_2x256, 2, 256, gout);
    LAUNCH(gst_f32_offset1_w1, 1, 32, gout);
    LAUNCH(gst_f32_offset1_2x256, 2, 256, gout);
    LAUNCH(gst_f32_stride32_w1, 1, 32, gout);
    LAUNCH(gst_f32_stride32_2x256, 2, 256, gout);

    // Global atomics.
    LAUNCH(gatom_f32_contig_w1, 1, 32, acc, sink);
    LAUNCH(gred_f32_contig_w1, 1, 32, acc);
    LAUNCH(gred_f32_same_w1, 1, 32, acc);

    // Shared loads (one warp each unless the name says _b256).
    LAUNCH(sld_f32_row_w1, 1, 32, sink);
    LAUNCH(sld_f32_col_pad0_w1, 1, 32, sink);
    LAUNCH(sld_f32_col_pad1_w1, 1, 32, sink);
    LAUNCH(sld_f32_col_pad2_w1, 1, 32, sink);
    LAUNCH(sld_f32_col_xor_w1, 1, 32, sink);
    LAUNCH(sld_f32_broadcast_w1, 1, 32, sink);
    LAUNCH(sld_f32_two_same_w1, 1, 32, sink);
    LAUNCH(sld_f32_two_conflict_w1, 1, 32, sink);
    LAUNCH(sld_f16_row_w1, 1, 32, sink);
    LAUNCH(sld_f16_col_pad0_w1, 1, 32, sink);
    LAUNCH(sld_f16_col_pad1_w1, 1, 32, sink);
    LAUNCH(sld_f16_col_pad2_w1, 1, 32, sink);
    LAUNCH(sld_f64_contig_w1, 1, 32, sink);
    LAUNCH(sld_f64_stride2_w1, 1, 32, sink);
    LAUNCH(sld_f64_col_pad0_w1, 1, 32, sink);
    LAUNCH(sld_f64_col_pad1_w1, 1, 32, sink);
    LAUNCH(sld_f32x4_contig_w1, 1, 32, sink);
    LAUNCH(sld_f32x4_stride2_w1, 1, 32, sink);
    LAUNCH(sld_f32x4_col_w1, 1, 32, sink);
    LAUNCH(sld_f32x4_broadcast_w1, 1, 32, sink);
    LAUNCH(sld_f32x2_contig_w1, 1, 32, sink);
    LAUNCH(sld_f32x2_stride2_w1, 1, 32, sink);
    LAUNCH(sld_f32_halfwarp_row_w1, 1, 32, sink);
    LAUNCH(sld_f32_halfwarp_col_pad0_w1, 1, 32, sink);
    LAUNCH(sld_f32_pred_if_b256, 1, 256, sink);
    LAUNCH(sld_f32_pred2_b256, 1, 256, sink);

    // Shared stores.
    LAUNCH(sst_f32_row_w1, 1, 32, sink);
    LAUNCH(sst_f32_col_pad0_w1, 1, 32, sink);
    LAUNCH(sst_f32_col_pad1_w1, 1, 32, sink);
    LAUNCH(sst_f32_col_pad2_w1, 1, 32, sink);
    LAUNCH(sst_f32_col_xor_w1, 1, 32, sink);
    LAUNCH(sst_f32_broadcast_w1, 1, 32, sink);
    LAUNCH(sst_f16_col_pad0_w1, 1, 32, sink);
    LAUNCH(sst_f64_contig_w1, 1, 32, sink);
    LAUNCH(sst_f64_col_pad1_w1, 1, 32, sink);
    LAUNCH(sst_f32x4_contig_w1, 1, 32, sink);
    LAUNCH(sst_f32x2_contig_w1, 1, 32, sink);
    LAUNCH(sst_f32_halfwarp_col_pad0_w1, 1, 32, sink);

    // Shared atomics.
    LAUNCH(satom_u32_contig_w1, 1, 32, sink);
    LAUNCH(satom_u32_same_w1, 1, 32, sink);

    // Lesson 9 transposes; outputs checked against the host transpose.
    struct Shape { int M, N; };
    const Shape s64 = {64, 64}, s33 = {33, 45};
    const dim3 tblock(TILE_DIM, BLOCK_ROWS);
    auto tgrid = [](Shape s) { return dim3((s.N + TILE_DIM - 1) / TILE_DIM, (s.M + TILE_DIM - 1) / TILE_DIM); };
    int failures = 0;
    auto verify = [&](const char* name, Shape s, bool transposed) {
        const int bad = check_transpose(h_in, gout, s.M, s.N, transposed);
        printf("check %-28s %dx%d: %s (%d mismatches)\n", name, s.M, s.N, bad ? "FAIL" : "OK", bad);
        failures += (bad != 0);
        CK(cudaMemset(gout, 0, in_floats * sizeof(float)));
    };
    CK(cudaMemset(gout, 0, in_floats * sizeof(float)));
#define RUN_T(KERNEL, SHAPE, TRANSPOSED)                                                          \
    do {                                                                                         \
        LAUNCH(KERNEL, tgrid(SHAPE), tblock, in, gout, (SHAPE).M, (SHAPE).N);                    \
        verify(#KERNEL, SHAPE, TRANSPOSED);                                                      \
    } while (0)
    RUN_T(transpose_tiled_pad0_64x64, s64, true);
    RUN_T(transpose_tiled_pad1_64x64, s64, true);
    RUN_T(transpose_tiled_pad2_64x64, s64, true);
    RUN_T(transpose_tiled_pad0_33x45, s33, true);
    RUN_T(transpose_tiled_pad1_33x45, s33, true);
    RUN_T(transpose_tiled_pad2_33x45, s33, true);
    RUN_T(transpose_naive_64x64, s64, true);
    RUN_T(copy_64x64, s64, false);

    CK(cudaFree(in));
    CK(cudaFree(sink));
    CK(cudaFree(acc));
    CK(cudaFree(gout));
    printf("%d launches, %d transpose check failures\n", g_launches, failures);
    return failures ? 2 : 0;
}
