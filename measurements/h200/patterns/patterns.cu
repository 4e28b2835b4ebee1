// One warp, one memory instruction per launch; lane byte offsets and active lanes come from patterns.txt.
// Inline PTX fixes the access width (ld/st .b16, .f32, .v2.f32, .v4.f32) so the compiler cannot split or merge.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

constexpr int SMEM = 32768;

template <int S> __device__ __forceinline__ float lds(unsigned a);
template <> __device__ __forceinline__ float lds<2>(unsigned a) {
    unsigned short v; asm volatile("ld.shared.b16 %0, [%1];" : "=h"(v) : "r"(a)); return (float)v; }
template <> __device__ __forceinline__ float lds<4>(unsigned a) {
    float v; asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(a)); return v; }
template <> __device__ __forceinline__ float lds<8>(unsigned a) {
    float x, y; asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "r"(a)); return x + y; }
template <> __device__ __forceinline__ float lds<16>(unsigned a) {
    float x, y, z, w;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "r"(a));
    return x + y + z + w; }

template <int S> __device__ __forceinline__ void sts(unsigned a, float v);
template <> __device__ __forceinline__ void sts<2>(unsigned a, float v) {
    unsigned short h = (unsigned short)v; asm volatile("st.shared.b16 [%0], %1;" :: "r"(a), "h"(h) : "memory"); }
template <> __device__ __forceinline__ void sts<4>(unsigned a, float v) {
    asm volatile("st.shared.f32 [%0], %1;" :: "r"(a), "f"(v) : "memory"); }
template <> __device__ __forceinline__ void sts<8>(unsigned a, float v) {
    asm volatile("st.shared.v2.f32 [%0], {%1, %1};" :: "r"(a), "f"(v) : "memory"); }
template <> __device__ __forceinline__ void sts<16>(unsigned a, float v) {
    asm volatile("st.shared.v4.f32 [%0], {%1, %1, %1, %1};" :: "r"(a), "f"(v) : "memory"); }

template <int S> __device__ __forceinline__ float ldg(const char* p);
template <> __device__ __forceinline__ float ldg<2>(const char* p) {
    unsigned short v; asm volatile("ld.global.b16 %0, [%1];" : "=h"(v) : "l"(p)); return (float)v; }
template <> __device__ __forceinline__ float ldg<4>(const char* p) {
    float v; asm volatile("ld.global.f32 %0, [%1];" : "=f"(v) : "l"(p)); return v; }
template <> __device__ __forceinline__ float ldg<8>(const char* p) {
    float x, y; asm volatile("ld.global.v2.f32 {%0, %1}, [%2];" : "=f"(x), "=f"(y) : "l"(p)); return x + y; }
template <> __device__ __forceinline__ float ldg<16>(const char* p) {
    float x, y, z, w;
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(x), "=f"(y), "=f"(z), "=f"(w) : "l"(p));
    return x + y + z + w; }

template <int S> __global__ void shared_ld(const int* off, const int* act, float* out) {
    __shared__ __align__(128) unsigned char smem[SMEM];
    unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    int lane = threadIdx.x;
    float v = 0.f;
    if (act[lane]) v = lds<S>(base + off[lane]);
    out[lane] = v;
}

template <int S> __global__ void shared_st(const int* off, const int* act, float* out) {
    __shared__ __align__(128) unsigned char smem[SMEM];
    unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    int lane = threadIdx.x;
    if (act[lane]) sts<S>(base + off[lane], (float)lane);
    __syncthreads();
    out[lane] = (float)smem[lane];
}

template <int S> __global__ void global_ld(const char* buf, const int* off, const int* act, float* out) {
    int lane = threadIdx.x;
    float v = 0.f;
    if (act[lane]) v = ldg<S>(buf + off[lane]);
    out[lane] = v;
}

int main(int argc, char** argv) {
    std::ifstream f(argc > 1 ? argv[1] : "patterns.txt");
    std::string line;
    int *d_off, *d_act; float* d_out; char* d_buf;
    CK(cudaMalloc(&d_off, 32 * sizeof(int))); CK(cudaMalloc(&d_act, 32 * sizeof(int)));
    CK(cudaMalloc(&d_out, 32 * sizeof(float))); CK(cudaMalloc(&d_buf, 65536));
    CK(cudaMemset(d_buf, 0, 65536));
    int n = 0;
    while (std::getline(f, line)) {
        if (line.empty()) continue;
        std::istringstream ss(line);
        std::string space, name; int s; int off[32], act[32];
        ss >> space >> name >> s;
        for (int i = 0; i < 32; ++i) ss >> off[i];
        for (int i = 0; i < 32; ++i) ss >> act[i];
        CK(cudaMemcpy(d_off, off, sizeof off, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(d_act, act, sizeof act, cudaMemcpyHostToDevice));
#define DISPATCH(K, ...) switch (s) { case 2: K<2><<<1, 32>>>(__VA_ARGS__); break; \
    case 4: K<4><<<1, 32>>>(__VA_ARGS__); break; case 8: K<8><<<1, 32>>>(__VA_ARGS__); break; \
    case 16: K<16><<<1, 32>>>(__VA_ARGS__); break; default: fprintf(stderr, "bad size %d\n", s); exit(1); }
        if (space == "shared_ld") { DISPATCH(shared_ld, d_off, d_act, d_out) }
        else if (space == "shared_st") { DISPATCH(shared_st, d_off, d_act, d_out) }
        else if (space == "global_ld") { DISPATCH(global_ld, d_buf, d_off, d_act, d_out) }
        else { fprintf(stderr, "bad space %s\n", space.c_str()); exit(1); }
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        ++n;
    }
    printf("%d launches\n", n);
    return 0;
}
