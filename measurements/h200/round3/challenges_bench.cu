// Issue 29's ground truth: the reference solution and the baseline of each challenge (challenges/<name>/*.cu),
// checked on small and ragged shapes, launched once at small shapes for ncu, and timed at the H200's size.
// Each .cu is included inside its own namespace, so the launch functions keep their names in the files.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o challenges_bench measurements/h200/round3/challenges_bench.cu
// Usage: challenges_bench check          every variant on every check shape against a host reference (JSON lines)
//        challenges_bench once           every variant once at the small (labsim) shapes, for ncu and racecheck
//        challenges_bench time [RUNS]    every variant at the H200's size: RUNS timed launches after 3 warm-ups
//                                        (RUNS = 0: one launch each, for ncu at the H200's size)
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace p2_baseline {
#include "challenges/p2_challenge/baseline.cu"
}
namespace p2_solution {
#include "challenges/p2_challenge/solution.cu"
}
namespace p2_alt_staged_loop {
#include "challenges/p2_challenge/alt_staged_loop.cu"
}
namespace l08_baseline {
#include "challenges/lesson08_challenge/baseline.cu"
}
namespace l08_solution {
#include "challenges/lesson08_challenge/solution.cu"
}
namespace l08_alt_colread_8x32 {
#include "challenges/lesson08_challenge/alt_colread_8x32.cu"
}
namespace l09_baseline {
#include "challenges/lesson09_challenge/baseline.cu"
}
namespace l09_alt_pad1 {
#include "challenges/lesson09_challenge/alt_pad1.cu"
}
namespace l09_solution {
#include "challenges/lesson09_challenge/solution.cu"
}
namespace l10_baseline {
#include "challenges/lesson10_challenge/baseline.cu"
}
namespace l10_solution {
#include "challenges/lesson10_challenge/solution.cu"
}
namespace l10_alt_4x4 {
#include "challenges/lesson10_challenge/alt_4x4.cu"
}

#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)

typedef void (*AosFn)(const float*, float*, float*, float*, int, cudaStream_t);
typedef void (*TrFn)(const float*, float*, int, int, cudaStream_t);
typedef void (*TrHFn)(const __half*, __half*, int, int, cudaStream_t);
typedef void (*GemmFn)(const float*, const float*, float*, int, int, int, cudaStream_t);
struct AosV { const char* name; AosFn fn; };
struct TrV { const char* name; TrFn fn; };
struct TrHV { const char* name; TrHFn fn; };
struct GemmV { const char* name; GemmFn fn; };
static const AosV AOS[] = {{"p2_challenge/baseline", p2_baseline::launch_aos_to_soa},
                           {"p2_challenge/solution", p2_solution::launch_aos_to_soa},
                           {"p2_challenge/alt_staged_loop", p2_alt_staged_loop::launch_aos_to_soa}};
static const TrV TR[] = {{"lesson08_challenge/baseline", l08_baseline::launch_transpose},
                         {"lesson08_challenge/solution", l08_solution::launch_transpose},
                         {"lesson08_challenge/alt_colread_8x32", l08_alt_colread_8x32::launch_transpose}};
static const TrHV TRH[] = {{"lesson09_challenge/baseline", l09_baseline::launch_transpose_half},
                           {"lesson09_challenge/alt_pad1", l09_alt_pad1::launch_transpose_half},
                           {"lesson09_challenge/solution", l09_solution::launch_transpose_half}};
static const GemmV GEMM[] = {{"lesson10_challenge/baseline", l10_baseline::launch_gemm},
                             {"lesson10_challenge/solution", l10_solution::launch_gemm},
                             {"lesson10_challenge/alt_4x4", l10_alt_4x4::launch_gemm}};

static unsigned g_seed = 1u;
static float frand() {
    g_seed = 1664525u * g_seed + 1013904223u;
    return (float)(g_seed >> 8) / 16777216.0f - 0.5f;
}
static std::vector<float> randv(size_t n, unsigned seed) {
    g_seed = seed;
    std::vector<float> v(n);
    for (float& x : v) x = frand();
    return v;
}

struct Timer {
    cudaEvent_t a, b;
    Timer() { CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b)); }
    template <class F> std::vector<float> run(F f, int runs) {
        for (int w = 0; w < (runs ? 3 : 0); ++w) f();   // runs = 0: the checked launch only (for ncu)
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        std::vector<float> ms(runs);
        for (int r = 0; r < runs; ++r) {
            CHECK(cudaEventRecord(a));
            f();
            CHECK(cudaEventRecord(b));
            CHECK(cudaEventSynchronize(b));
            CHECK(cudaEventElapsedTime(&ms[r], a, b));
        }
        return ms;
    }
};
static void print_ms(const std::vector<float>& ms) {
    printf("\"ms\": [");
    for (size_t r = 0; r < ms.size(); ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
    printf("]}\n");
    fflush(stdout);
}

// ---------------------------------------------------------------------------------------------- p2
static long aos_case(const AosV& v, int n, bool timed, int runs, Timer* tm) {
    std::vector<float> h = randv((size_t)3 * n, 7u);
    float *aos, *x, *y, *z;
    CHECK(cudaMalloc(&aos, (size_t)3 * n * 4));
    CHECK(cudaMalloc(&x, (size_t)n * 4));
    CHECK(cudaMalloc(&y, (size_t)n * 4));
    CHECK(cudaMalloc(&z, (size_t)n * 4));
    CHECK(cudaMemcpy(aos, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    for (float* p : {x, y, z}) CHECK(cudaMemset(p, 0xff, (size_t)n * 4));
    v.fn(aos, x, y, z, n, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> hx(n), hy(n), hz(n);
    CHECK(cudaMemcpy(hx.data(), x, (size_t)n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hy.data(), y, (size_t)n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hz.data(), z, (size_t)n * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int i = 0; i < n; ++i) bad += hx[i] != h[3 * i] || hy[i] != h[3 * i + 1] || hz[i] != h[3 * i + 2];
    if (timed) {
        auto ms = tm->run([&] { v.fn(aos, x, y, z, n, 0); }, runs);
        printf("{\"challenge\": \"p2_challenge\", \"variant\": \"%s\", \"n\": %d, \"bytes\": %.0f, \"wrong\": %ld, ",
               v.name, n, 24.0 * n, bad);
        print_ms(ms);
    } else {
        printf("{\"mode\": \"check\", \"variant\": \"%s\", \"n\": %d, \"wrong\": %ld}\n", v.name, n, bad);
    }
    for (float* p : {aos, x, y, z}) CHECK(cudaFree(p));
    return bad;
}

// ---------------------------------------------------------------------------------------------- transposes
template <class T, class V, class Conv>
static long tr_case(const V& v, int M, int N, bool timed, int runs, Timer* tm, const char* challenge, Conv conv) {
    std::vector<float> hf = randv((size_t)M * N, 11u);
    std::vector<T> h((size_t)M * N), out((size_t)M * N);
    for (size_t i = 0; i < h.size(); ++i) h[i] = conv(hf[i]);
    T *in, *o;
    CHECK(cudaMalloc(&in, h.size() * sizeof(T)));
    CHECK(cudaMalloc(&o, h.size() * sizeof(T)));
    CHECK(cudaMemcpy(in, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(o, 0xff, h.size() * sizeof(T)));
    v.fn(in, o, M, N, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(out.data(), o, h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    long bad = 0;
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c)
            bad += memcmp(&out[(size_t)c * M + r], &h[(size_t)r * N + c], sizeof(T)) != 0;
    if (timed) {
        auto ms = tm->run([&] { v.fn(in, o, M, N, 0); }, runs);
        printf("{\"challenge\": \"%s\", \"variant\": \"%s\", \"M\": %d, \"N\": %d, \"bytes\": %.0f, \"wrong\": %ld, ",
               challenge, v.name, M, N, 2.0 * M * N * sizeof(T), bad);
        print_ms(ms);
    } else {
        printf("{\"mode\": \"check\", \"variant\": \"%s\", \"M\": %d, \"N\": %d, \"wrong\": %ld}\n", v.name, M, N, bad);
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(o));
    return bad;
}
static float f_id(float x) { return x; }
static __half f_half(float x) { return __float2half(x); }

// ---------------------------------------------------------------------------------------------- GEMM
static long gemm_case(const GemmV& v, int M, int N, int K, bool timed, int runs, Timer* tm,
                      std::vector<float>* ref_out) {
    std::vector<float> hA = randv((size_t)M * K, 1u), hB = randv((size_t)K * N, 2u), hC((size_t)M * N);
    float *A, *B, *C;
    CHECK(cudaMalloc(&A, hA.size() * 4));
    CHECK(cudaMalloc(&B, hB.size() * 4));
    CHECK(cudaMalloc(&C, hC.size() * 4));
    CHECK(cudaMemcpy(A, hA.data(), hA.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(B, hB.data(), hB.size() * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(C, 0xff, hC.size() * 4));
    v.fn(A, B, C, M, N, K, 0);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
    long bad = 0;
    double num = 0, den = 0;
    if (!timed) {   // float64 host reference
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j) {
                double s = 0;
                for (int k = 0; k < K; ++k) s += (double)hA[(size_t)i * K + k] * hB[(size_t)k * N + j];
                double d = hC[(size_t)i * N + j] - s;
                bad += !(std::fabs(d) <= 1e-3 * (1 + std::fabs(s)));
                num += d * d;
                den += s * s;
            }
        printf("{\"mode\": \"check\", \"variant\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, \"rel_err\": %.3e, "
               "\"wrong\": %ld}\n", v.name, M, N, K, std::sqrt(num / (den > 0 ? den : 1)), bad);
    } else {
        if (ref_out->empty()) *ref_out = hC;   // the baseline's output is the reference at 4096^3
        for (size_t i = 0; i < hC.size(); ++i) {
            double d = (double)hC[i] - (*ref_out)[i];
            bad += std::isnan(hC[i]);
            num += d * d;
            den += (double)(*ref_out)[i] * (*ref_out)[i];
        }
        auto ms = tm->run([&] { v.fn(A, B, C, M, N, K, 0); }, runs);
        printf("{\"challenge\": \"lesson10_challenge\", \"variant\": \"%s\", \"M\": %d, \"N\": %d, \"K\": %d, "
               "\"flop\": %.0f, \"nan\": %ld, \"rel_err_vs_baseline\": %.3e, ", v.name, M, N, K, 2.0 * M * N * K, bad,
               std::sqrt(num / (den > 0 ? den : 1)));
        print_ms(ms);
    }
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(C));
    return bad;
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "check";
    Timer tm;
    long bad = 0;
    if (!strcmp(mode, "check")) {
        for (const AosV& v : AOS)
            for (int n : {1, 255, 256, 1000, 4096, 100003}) bad += aos_case(v, n, false, 0, nullptr);
        const int shapes[][2] = {{64, 64}, {33, 45}, {45, 33}, {1, 100}, {100, 1}, {96, 160}, {257, 129}};
        for (const TrV& v : TR)
            for (auto& s : shapes) bad += tr_case<float>(v, s[0], s[1], false, 0, nullptr, "", f_id);
        for (const TrHV& v : TRH)
            for (auto& s : shapes) bad += tr_case<__half>(v, s[0], s[1], false, 0, nullptr, "", f_half);
        const int g[][3] = {{64, 64, 64}, {70, 45, 33}, {1, 1, 1}, {33, 17, 65}, {128, 96, 80}, {100, 130, 31}};
        for (const GemmV& v : GEMM)
            for (auto& s : g) bad += gemm_case(v, s[0], s[1], s[2], false, 0, nullptr, nullptr);
        printf("check: %ld wrong elements in all\n", bad);
        return bad ? 3 : 0;
    }
    if (!strcmp(mode, "once")) {   // small shapes for ncu / racecheck (also checked)
        for (const AosV& v : AOS)
            for (int n : {1000, 4096}) bad += aos_case(v, n, false, 0, nullptr);
        const int shapes[][2] = {{64, 64}, {33, 45}};
        for (const TrV& v : TR)
            for (auto& s : shapes) bad += tr_case<float>(v, s[0], s[1], false, 0, nullptr, "", f_id);
        for (const TrHV& v : TRH)
            for (auto& s : shapes) bad += tr_case<__half>(v, s[0], s[1], false, 0, nullptr, "", f_half);
        const int g[][3] = {{64, 64, 64}, {70, 45, 33}};
        for (const GemmV& v : GEMM)
            for (auto& s : g) bad += gemm_case(v, s[0], s[1], s[2], false, 0, nullptr, nullptr);
        printf("once: %ld wrong elements in all\n", bad);
        return bad ? 3 : 0;
    }
    const int runs = argc > 2 ? atoi(argv[2]) : 20;
    if (strcmp(mode, "time")) {
        fprintf(stderr, "usage: challenges_bench check|once|time [RUNS]\n");
        return 1;
    }
    for (const AosV& v : AOS) aos_case(v, 1 << 26, true, runs, &tm);
    for (const TrV& v : TR) tr_case<float>(v, 8192, 8192, true, runs, &tm, "lesson08_challenge", f_id);
    for (const TrHV& v : TRH) tr_case<__half>(v, 8192, 8192, true, runs, &tm, "lesson09_challenge", f_half);
    std::vector<float> ref;
    for (const GemmV& v : GEMM) gemm_case(v, 4096, 4096, 4096, true, runs, &tm, &ref);
    return 0;
}
