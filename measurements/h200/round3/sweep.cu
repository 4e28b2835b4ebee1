// Issue 26 item 9: offset and stride sweeps of a float32 copy kernel on the H200 (NVIDIA's "How to Access Global
// Memory Efficiently" experiment), at sizes far past the 50 MB L2.
//   offset: out[i + s] = in[i + s], i < N_OFF = 64 Mi elements (256 MiB per array), s = 0..32
//   stride: out[i * s] = in[i * s], i < N_STR = 32 Mi threads (128 MiB touched at s = 1, arrays 4 GiB)
// Block 256, one element per thread. Effective bandwidth = 2 * 4 bytes * threads / time (bytes the threads use).
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o sweep measurements/h200/round3/sweep.cu
// Usage: sweep time [RUNS]                      -> one JSON line per point (every run's ms)
//        sweep once offset|stride S1,S2,...     -> one launch per point, for ncu
#include <cuda_runtime.h>

#include <algorithm>
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

static const long N_OFF = 64L << 20;
static const long N_STR = 32L << 20;
static const int MAX_S = 32;

extern "C" __global__ void copy_offset(const float* __restrict__ in, float* __restrict__ out, int s) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x + s;
    out[i] = in[i];
}
extern "C" __global__ void copy_stride(const float* __restrict__ in, float* __restrict__ out, int s) {
    long i = ((long)blockIdx.x * blockDim.x + threadIdx.x) * s;
    out[i] = in[i];
}
extern "C" __global__ void fill_lcg(float* p, long n) {   // deterministic, non-zero data
    for (long i = (long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
        unsigned x = 1664525u * (unsigned)i + 1013904223u;
        p[i] = (float)(x >> 8) / 16777216.0f - 0.5f;
    }
}

static void launch(bool stride, const float* in, float* out, int s) {
    long threads = stride ? N_STR : N_OFF;
    int grid = (int)(threads / 256);
    if (stride) copy_stride<<<grid, 256>>>(in, out, s);
    else copy_offset<<<grid, 256>>>(in, out, s);
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: sweep time [RUNS] | sweep once offset|stride S1,S2,...\n");
        return 1;
    }
    const bool once = !strcmp(argv[1], "once");
    if (once && argc < 4) return 1;
    long elems = std::max(N_OFF + MAX_S, N_STR * MAX_S);   // 1 Gi floats = 4 GiB per array
    if (once) {   // only what the listed points touch (ncu saves and restores device memory between passes)
        std::vector<char> list(argv[3], argv[3] + strlen(argv[3]) + 1);
        int smax = 0;
        for (char* t = strtok(list.data(), ","); t; t = strtok(nullptr, ",")) smax = std::max(smax, atoi(t));
        elems = !strcmp(argv[2], "stride") ? N_STR * std::max(smax, 1) : N_OFF + MAX_S;
    }
    float *in, *out;
    CHECK(cudaMalloc(&in, elems * 4));
    CHECK(cudaMalloc(&out, elems * 4));
    fill_lcg<<<1024, 256>>>(in, elems);
    CHECK(cudaMemset(out, 0, elems * 4));
    CHECK(cudaDeviceSynchronize());

    if (once) {
        bool stride = !strcmp(argv[2], "stride");
        for (char* t = strtok(argv[3], ","); t; t = strtok(nullptr, ",")) {
            int s = atoi(t);
            launch(stride, in, out, s);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            printf("once %s %d ok\n", stride ? "stride" : "offset", s);
        }
        return 0;
    }
    const int runs = argc > 2 ? atoi(argv[2]) : 20;
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    std::vector<float> hin(64), hout(64);
    for (int kind = 0; kind < 2; ++kind) {
        bool stride = kind == 1;
        for (int s = stride ? 1 : 0; s <= MAX_S; ++s) {
            // correctness: poison a few touched elements, run, compare with the input
            long probe[3] = {stride ? 0L : (long)s, stride ? (N_STR - 1) * s : N_OFF - 1 + s, stride ? 12345L * s : 12345L + s};
            for (long p : probe) CHECK(cudaMemset(out + p, 0xff, 4));
            launch(stride, in, out, s);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            int wrong = 0;
            for (long p : probe) {
                float x, y;
                CHECK(cudaMemcpy(&x, in + p, 4, cudaMemcpyDeviceToHost));
                CHECK(cudaMemcpy(&y, out + p, 4, cudaMemcpyDeviceToHost));
                wrong += x != y;
            }
            for (int w = 0; w < 3; ++w) launch(stride, in, out, s);
            CHECK(cudaDeviceSynchronize());
            std::vector<float> ms(runs);
            for (int r = 0; r < runs; ++r) {
                CHECK(cudaEventRecord(a));
                launch(stride, in, out, s);
                CHECK(cudaEventRecord(b));
                CHECK(cudaEventSynchronize(b));
                CHECK(cudaEventElapsedTime(&ms[r], a, b));
            }
            long threads = stride ? N_STR : N_OFF;
            printf("{\"sweep\": \"%s\", \"s\": %d, \"threads\": %ld, \"bytes_used\": %ld, \"wrong\": %d, \"ms\": [",
                   stride ? "stride" : "offset", s, threads, threads * 8, wrong);
            for (int r = 0; r < runs; ++r) printf("%s%.6f", r ? ", " : "", ms[r]);
            printf("]}\n");
            fflush(stdout);
        }
    }
    return 0;
}
