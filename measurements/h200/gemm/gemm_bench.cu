// Lesson 10's GEMM kernels on the H200: correctness, one launch each for ncu, timing (GFLOP/s) and cuBLAS SGEMM.
// Build: nvcc -arch=sm_90 -O3 -lineinfo [-DHAVE_CUBLAS -lcublas] -o gemm_bench measurements/h200/gemm/gemm_bench.cu
// Usage: gemm_bench check M N K          every kernel once on random data, checked against a float64 host GEMM
//        gemm_bench time M N K [RUNS]    median time of RUNS launches after warm-up; JSON line per kernel
//        gemm_bench race KERNEL M N K    one launch of a kernel (the barrier-less ones too), outputs checked
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#ifdef HAVE_CUBLAS
#include <cublas_v2.h>
#endif

#include "gemm_naive.cuh"

#define TILE 16
#define KNAME gemm_tiled16
#include "gemm_tiled.cuh"
#define TILE 16
#define PAD 1
#define KNAME gemm_tiled16_pad
#include "gemm_tiled.cuh"
#define TILE 16
#define BT 1
#define KNAME gemm_tiled16_bt
#include "gemm_tiled.cuh"
#define TILE 16
#define BT 1
#define PAD 1
#define KNAME gemm_tiled16_bt_pad
#include "gemm_tiled.cuh"
#define TILE 32
#define KNAME gemm_tiled32
#include "gemm_tiled.cuh"
#define TILE 32
#define PAD 1
#define KNAME gemm_tiled32_pad
#include "gemm_tiled.cuh"
#define TILE 32
#define BT 1
#define KNAME gemm_tiled32_bt
#include "gemm_tiled.cuh"
#define TILE 32
#define BT 1
#define PAD 1
#define KNAME gemm_tiled32_bt_pad
#include "gemm_tiled.cuh"
#define TILE 16
#define SYNC1 0
#define KNAME gemm_tiled16_nosync1
#include "gemm_tiled.cuh"
#define TILE 16
#define SYNC2 0
#define KNAME gemm_tiled16_nosync2
#include "gemm_tiled.cuh"

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)

typedef void (*Kernel)(const float*, const float*, float*, int, int, int);
struct Named {
    const char* name;
    Kernel fn;
    int tile;      // block (tile, tile)
    bool racy;     // barrier removed: not part of check/time
};
static const Named KERNELS[] = {
    {"gemm_naive", gemm_naive, 16, false},
    {"gemm_tiled16", gemm_tiled16, 16, false},
    {"gemm_tiled16_pad", gemm_tiled16_pad, 16, false},
    {"gemm_tiled16_bt", gemm_tiled16_bt, 16, false},
    {"gemm_tiled16_bt_pad", gemm_tiled16_bt_pad, 16, false},
    {"gemm_tiled32", gemm_tiled32, 32, false},
    {"gemm_tiled32_pad", gemm_tiled32_pad, 32, false},
    {"gemm_tiled32_bt", gemm_tiled32_bt, 32, false},
    {"gemm_tiled32_bt_pad", gemm_tiled32_bt_pad, 32, false},
    {"gemm_tiled16_nosync1", gemm_tiled16_nosync1, 16, true},
    {"gemm_tiled16_nosync2", gemm_tiled16_nosync2, 16, true},
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

// ||got - ref|| / ||ref|| and the count of elements off by more than 1e-3 relative to the largest |ref|.
static void compare(const std::vector<float>& got, const std::vector<double>& ref, double* rel, long* bad) {
    double num = 0, den = 0, mx = 0;
    for (double r : ref) mx = std::max(mx, std::fabs(r));
    *bad = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        double d = (double)got[i] - ref[i];
        if (!(std::fabs(d) <= 1e-3 * mx)) ++*bad;   // NaN (unwritten) counts as bad
        num += d * d;
        den += ref[i] * ref[i];
    }
    *rel = std::sqrt(num / (den > 0 ? den : 1));
}

int main(int argc, char** argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: gemm_bench check|time M N K [RUNS] | gemm_bench race KERNEL M N K\n");
        return 1;
    }
    const bool race = !strcmp(argv[1], "race"), timing = !strcmp(argv[1], "time");
    const int o = race ? 3 : 2;
    if (argc < o + 3) {
        fprintf(stderr, "missing M N K\n");
        return 1;
    }
    const int M = atoi(argv[o]), N = atoi(argv[o + 1]), K = atoi(argv[o + 2]);
    if (M <= 0 || N <= 0 || K <= 0) {
        fprintf(stderr, "M, N, K must be positive\n");
        return 1;
    }
    std::vector<float> hA((size_t)M * K), hB((size_t)K * N), hC((size_t)M * N);
    fill(hA, 1u);
    fill(hB, 2u);
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, hA.size() * 4));
    CHECK(cudaMalloc(&B, hB.size() * 4));
    CHECK(cudaMalloc(&C, hC.size() * 4));
    CHECK(cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice));

    std::vector<double> ref;
    if (!timing) {   // float64 host reference (small shapes only)
        ref.assign((size_t)M * N, 0.0);
        for (int i = 0; i < M; ++i)
            for (int k = 0; k < K; ++k) {
                double a = hA[(size_t)i * K + k];
                for (int j = 0; j < N; ++j) ref[(size_t)i * N + j] += a * hB[(size_t)k * N + j];
            }
    }

    if (!timing) {
        for (const Named& k : KERNELS) {
            if (race ? strcmp(k.name, argv[2]) : k.racy) continue;
            CHECK(cudaMemset(C, 0xff, hC.size() * 4));   // NaN poison
            launch(k, A, B, C, M, N, K);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
            double rel;
            long bad;
            compare(hC, ref, &rel, &bad);
            printf("{\"mode\": \"%s\", \"name\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, \"rel_err\": %.3e, "
                   "\"wrong\": %ld}\n", argv[1], k.name, M, N, K, rel, bad);
        }
        return 0;
    }

    const int runs = argc > 5 ? atoi(argv[5]) : 20;
    const double flop = 2.0 * M * N * K;
    cudaEvent_t ev0, ev1;
    CHECK(cudaEventCreate(&ev0));
    CHECK(cudaEventCreate(&ev1));
    std::vector<float> hRef((size_t)M * N);
    bool have_ref = false;
#ifdef HAVE_CUBLAS
    {
        cublasHandle_t h;
        if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
            fprintf(stderr, "cublasCreate failed\n");
        } else {
            cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH);   // plain FP32 FMA, no TF32 tensor cores
            const float one = 1.0f, zero = 0.0f;
            // Row-major C = A B is column-major C^T = B^T A^T.
            auto run = [&]() {
                return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, B, N, A, K, &zero, C, N);
            };
            cublasStatus_t st = run();
            for (int w = 0; w < 3; ++w) run();
            CHECK(cudaDeviceSynchronize());
            std::vector<float> ms(runs);
            for (int r = 0; r < runs; ++r) {
                CHECK(cudaEventRecord(ev0));
                run();
                CHECK(cudaEventRecord(ev1));
                CHECK(cudaEventSynchronize(ev1));
                CHECK(cudaEventElapsedTime(&ms[r], ev0, ev1));
            }
            CHECK(cudaMemcpy(hRef.data(), C, hRef.size() * 4, cudaMemcpyDeviceToHost));
            have_ref = st == CUBLAS_STATUS_SUCCESS;
            printf("{\"name\": \"cublas_sgemm\", \"M\": %d, \"N\": %d, \"K\": %d, \"flop\": %.0f, \"status\": %d, "
                   "\"math_mode\": \"CUBLAS_PEDANTIC_MATH\", \"ms\": [", M, N, K, flop, (int)st);
            for (int r = 0; r < runs; ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
            printf("]}\n");
            fflush(stdout);
            cublasDestroy(h);
        }
    }
#endif
    for (const Named& k : KERNELS) {
        if (k.racy) continue;
        CHECK(cudaMemset(C, 0xff, hC.size() * 4));
        launch(k, A, B, C, M, N, K);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
        double num = 0, den = 0;
        long nan = 0;
        for (size_t i = 0; i < hC.size(); ++i) {
            if (std::isnan(hC[i])) ++nan;
            if (have_ref) {
                double d = (double)hC[i] - hRef[i];
                num += d * d;
                den += (double)hRef[i] * hRef[i];
            }
        }
        const int warm = 2;
        for (int w = 0; w < warm; ++w) launch(k, A, B, C, M, N, K);
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms(runs);
        for (int r = 0; r < runs; ++r) {
            CHECK(cudaEventRecord(ev0));
            launch(k, A, B, C, M, N, K);
            CHECK(cudaEventRecord(ev1));
            CHECK(cudaEventSynchronize(ev1));
            CHECK(cudaEventElapsedTime(&ms[r], ev0, ev1));
        }
        CHECK(cudaGetLastError());
        printf("{\"name\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, \"flop\": %.0f, \"nan\": %ld, "
               "\"rel_err_vs_cublas\": ", k.name, M, N, K, flop, nan);
        if (have_ref) printf("%.3e", std::sqrt(num / (den > 0 ? den : 1)));
        else printf("null");
        printf(", \"ms\": [");
        for (int r = 0; r < runs; ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
        printf("]}\n");
        fflush(stdout);
    }
    return 0;
}
