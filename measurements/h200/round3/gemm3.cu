// Issue 28 items 1 and 3: lesson 10's GEMMs at 4096^3 on the H200 with +1 and +4 padding, row layout (Bs[k][tx])
// and column layout (Bs[tx][k]), TILE 16 and 32; and the H200's FP32 peak (a pure-FFMA kernel) and properties.
// The kernels are measurements/h200/gemm/gemm_tiled.cuh and gemm_naive.cuh, included once per variant.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o gemm3 measurements/h200/round3/gemm3.cu
// Usage: gemm3 check M N K            every kernel once on random data, checked against a float64 host GEMM
//        gemm3 time M N K [RUNS]      JSON line per kernel: every run's ms (2 warm-up launches first)
//        gemm3 once M N K [K1,K2..]   one launch of each (listed) kernel, for ncu
//        gemm3 peak [RUNS]            FFMA throughput kernel: JSON line with every run's ms and the FLOP count
//        gemm3 props                  cudaGetDeviceProperties / cudaDeviceGetAttribute, JSON
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../gemm/gemm_naive.cuh"

#define TILE 16
#define KNAME gemm_tiled16
#include "../gemm/gemm_tiled.cuh"
#define TILE 16
#define PAD 1
#define KNAME gemm_tiled16_pad
#include "../gemm/gemm_tiled.cuh"
#define TILE 16
#define PAD 4
#define KNAME gemm_tiled16_pad4
#include "../gemm/gemm_tiled.cuh"
#define TILE 16
#define BT 1
#define KNAME gemm_tiled16_bt
#include "../gemm/gemm_tiled.cuh"
#define TILE 16
#define BT 1
#define PAD 1
#define KNAME gemm_tiled16_bt_pad
#include "../gemm/gemm_tiled.cuh"
#define TILE 16
#define BT 1
#define PAD 4
#define KNAME gemm_tiled16_bt_pad4
#include "../gemm/gemm_tiled.cuh"
#define TILE 32
#define KNAME gemm_tiled32
#include "../gemm/gemm_tiled.cuh"
#define TILE 32
#define PAD 1
#define KNAME gemm_tiled32_pad
#include "../gemm/gemm_tiled.cuh"
#define TILE 32
#define PAD 4
#define KNAME gemm_tiled32_pad4
#include "../gemm/gemm_tiled.cuh"
#define TILE 32
#define BT 1
#define KNAME gemm_tiled32_bt
#include "../gemm/gemm_tiled.cuh"
#define TILE 32
#define BT 1
#define PAD 1
#define KNAME gemm_tiled32_bt_pad
#include "../gemm/gemm_tiled.cuh"
#define TILE 32
#define BT 1
#define PAD 4
#define KNAME gemm_tiled32_bt_pad4
#include "../gemm/gemm_tiled.cuh"

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)

// FP32 peak: 8 independent FFMA chains per thread, ITER iterations; 2 FLOP per FFMA.
constexpr int PEAK_CHAINS = 8;
extern "C" __global__ void ffma_peak(float* out, int iters, float a, float b) {
    float x0 = threadIdx.x * 1e-3f, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6,
          x7 = x0 + 7;
#pragma unroll 16
    for (int i = 0; i < iters; ++i) {
        x0 = fmaf(x0, a, b);
        x1 = fmaf(x1, a, b);
        x2 = fmaf(x2, a, b);
        x3 = fmaf(x3, a, b);
        x4 = fmaf(x4, a, b);
        x5 = fmaf(x5, a, b);
        x6 = fmaf(x6, a, b);
        x7 = fmaf(x7, a, b);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

typedef void (*Kernel)(const float*, const float*, float*, int, int, int);
struct Named {
    const char* name;
    Kernel fn;
    int tile;
};
static const Named KERNELS[] = {
    {"gemm_naive", gemm_naive, 16},
    {"gemm_tiled16", gemm_tiled16, 16},
    {"gemm_tiled16_pad", gemm_tiled16_pad, 16},
    {"gemm_tiled16_pad4", gemm_tiled16_pad4, 16},
    {"gemm_tiled16_bt", gemm_tiled16_bt, 16},
    {"gemm_tiled16_bt_pad", gemm_tiled16_bt_pad, 16},
    {"gemm_tiled16_bt_pad4", gemm_tiled16_bt_pad4, 16},
    {"gemm_tiled32", gemm_tiled32, 32},
    {"gemm_tiled32_pad", gemm_tiled32_pad, 32},
    {"gemm_tiled32_pad4", gemm_tiled32_pad4, 32},
    {"gemm_tiled32_bt", gemm_tiled32_bt, 32},
    {"gemm_tiled32_bt_pad", gemm_tiled32_bt_pad, 32},
    {"gemm_tiled32_bt_pad4", gemm_tiled32_bt_pad4, 32},
};

static void launch(const Named& k, const float* A, const float* B, float* C, int M, int N, int K) {
    dim3 block(k.tile, k.tile), grid((N + k.tile - 1) / k.tile, (M + k.tile - 1) / k.tile);
    k.fn<<<grid, block>>>(A, B, C, M, N, K);
}

static void fill(std::vector<float>& v, unsigned seed) {
    unsigned s = seed;
    for (float& x : v) {
        s = 1664525u * s + 1013904223u;
        x = (float)(s >> 8) / 16777216.0f - 0.5f;
    }
}

static int props() {
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int clock_khz = 0, mem_khz = 0, bus = 0, fp32_per_sm = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
    cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, 0);
    fp32_per_sm = 128;   // Hopper: 128 FP32 lanes per SM (4 SMSPs x 32)
    printf("{\"name\": \"%s\", \"cc\": \"%d.%d\", \"sm_count\": %d, \"clock_khz\": %d, \"mem_clock_khz\": %d, "
           "\"bus_width_bits\": %d, \"l2_bytes\": %d, \"smem_per_sm\": %zu, \"smem_per_block_optin\": %zu, "
           "\"regs_per_sm\": %d, \"max_threads_per_sm\": %d, \"global_mem_bytes\": %zu, \"fp32_lanes_per_sm\": %d, "
           "\"fp32_peak_gflops_at_clock\": %.1f}\n",
           p.name, p.major, p.minor, p.multiProcessorCount, clock_khz, mem_khz, bus, p.l2CacheSize,
           p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin, p.regsPerMultiprocessor,
           p.maxThreadsPerMultiProcessor, p.totalGlobalMem, fp32_per_sm,
           2.0 * fp32_per_sm * p.multiProcessorCount * clock_khz * 1e3 / 1e9);
    return 0;
}

static int peak(int runs) {
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int block = 256, grid = sms * 8, iters = 1 << 16;   // 2048 threads per SM
    float* out;
    CHECK(cudaMalloc(&out, (size_t)grid * block * 4));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (int w = 0; w < 3; ++w) ffma_peak<<<grid, block>>>(out, iters, 0.999f, 0.001f);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> ms(runs);
    for (int r = 0; r < runs; ++r) {
        CHECK(cudaEventRecord(a));
        ffma_peak<<<grid, block>>>(out, iters, 0.999f, 0.001f);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        CHECK(cudaEventElapsedTime(&ms[r], a, b));
    }
    double flop = 2.0 * PEAK_CHAINS * (double)iters * grid * block;
    printf("{\"name\": \"ffma_peak\", \"grid\": %d, \"block\": %d, \"iters\": %d, \"chains\": %d, \"flop\": %.0f, \"ms\": [",
           grid, block, iters, PEAK_CHAINS, flop);
    for (int r = 0; r < runs; ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
    printf("]}\n");
    return 0;
}

int main(int argc, char** argv) {
    if (argc >= 2 && !strcmp(argv[1], "props")) return props();
    if (argc >= 2 && !strcmp(argv[1], "peak")) return peak(argc > 2 ? atoi(argv[2]) : 20);
    if (argc < 5) {
        fprintf(stderr, "usage: gemm3 check|time|once M N K [RUNS|K1,K2] | gemm3 peak [RUNS] | gemm3 props\n");
        return 1;
    }
    const char* mode = argv[1];
    const int M = atoi(argv[2]), N = atoi(argv[3]), K = atoi(argv[4]);
    if (M <= 0 || N <= 0 || K <= 0) return 1;
    std::vector<float> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N);
    fill(hA, 1u);
    fill(hB, 2u);
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, hA.size() * 4));
    CHECK(cudaMalloc(&B, hB.size() * 4));
    CHECK(cudaMalloc(&C, hC.size() * 4));
    CHECK(cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice));
    if (!strcmp(mode, "once")) {
        const char* list = argc > 5 ? argv[5] : "";
        for (const Named& k : KERNELS) {
            if (*list && !strstr(list, k.name)) continue;
            launch(k, A, B, C, M, N, K);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            printf("once %s %dx%dx%d ok\n", k.name, M, N, K);
        }
        return 0;
    }
    if (!strcmp(mode, "check")) {
        std::vector<double> ref((size_t)M * N, 0.0);
        for (int i = 0; i < M; ++i)
            for (int k = 0; k < K; ++k) {
                double a = hA[(size_t)i * K + k];
                for (int j = 0; j < N; ++j) ref[(size_t)i * N + j] += a * hB[(size_t)k * N + j];
            }
        for (const Named& k : KERNELS) {
            CHECK(cudaMemset(C, 0xff, hC.size() * 4));
            launch(k, A, B, C, M, N, K);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
            double num = 0, den = 0;
            long bad = 0;
            for (size_t i = 0; i < ref.size(); ++i) {
                double d = hC[i] - ref[i];
                if (!(std::fabs(d) <= 1e-3 * (1 + std::fabs(ref[i])))) ++bad;
                num += d * d;
                den += ref[i] * ref[i];
            }
            printf("{\"mode\": \"check\", \"name\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, \"rel_err\": %.3e, "
                   "\"wrong\": %ld}\n", k.name, M, N, K, std::sqrt(num / (den > 0 ? den : 1)), bad);
        }
        return 0;
    }
    const int runs = argc > 5 ? atoi(argv[5]) : 20;
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    for (const Named& k : KERNELS) {
        CHECK(cudaMemset(C, 0xff, hC.size() * 4));
        launch(k, A, B, C, M, N, K);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
        long nan = 0;
        for (float x : hC) nan += std::isnan(x);
        for (int w = 0; w < 2; ++w) launch(k, A, B, C, M, N, K);
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms(runs);
        for (int r = 0; r < runs; ++r) {
            CHECK(cudaEventRecord(a));
            launch(k, A, B, C, M, N, K);
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            CHECK(cudaEventElapsedTime(&ms[r], a, b));
        }
        printf("{\"name\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, \"flop\": %.0f, \"nan\": %ld, \"ms\": [", k.name, M,
               N, K, 2.0 * M * N * K, nan);
        for (int r = 0; r < runs; ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
        printf("]}\n");
        fflush(stdout);
    }
    return 0;
}
