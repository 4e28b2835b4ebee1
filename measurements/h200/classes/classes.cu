// Issue 17's kernel classes on the H200: what the compiler does to the source (vectorised shared loads, 128-bit
// shared accesses by half-warp, warp-aggregated atomics, branch vs predication, 1-/2-byte and struct types).
// Every kernel is launched once (ncu profiles each launch); suffix = launch shape: _w1 <<<1, 32>>>,
// _2x256 <<<2, 256>>>, _4x256 <<<4, 256>>>. Loaded values go to a contiguous float32 sink store (4 sectors per
// full warp), as in microbench.cu.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o classes measurements/h200/classes/classes.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define KERNEL extern "C" __global__ void
#define CHECK(call)                                                                                     \
    do {                                                                                                \
        cudaError_t e_ = (call);                                                                        \
        if (e_ != cudaSuccess) {                                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(2);                                                                                    \
        }                                                                                               \
    } while (0)

struct P3 { float x, y, z; };        // 12-byte array-of-structs element
struct P4 { float x, y, z, w; };     // 16-byte element (aligned 4, not 16: scalar loads)

__device__ __forceinline__ int gtid() { return blockIdx.x * blockDim.x + threadIdx.x; }

// Fill a float tile of `words` 32-bit words, one conflict-free STS per warp-iteration, then sync.
__device__ __forceinline__ void fill(float* t, int words) {
    for (int i = threadIdx.x; i < words; i += blockDim.x) t[i] = (float)i;
    __syncthreads();
}

// ---- 1. vectorised shared loads: four consecutive scalar reads of a 16-byte-aligned row -> one LDS.128 ----
KERNEL vlds_row4_w1(float* sink) {            // lane reads tile[lane][0..3]: stride 128 B
    __shared__ float tile[32][32];
    fill(&tile[0][0], 32 * 32);
    int l = threadIdx.x;
    sink[l] = tile[l][0] + tile[l][1] + tile[l][2] + tile[l][3];
}
KERNEL vlds_row4_pad1_w1(float* sink) {       // tile[32][33]: rows not 16-byte aligned, stays scalar
    __shared__ float tile[32][33];
    fill(&tile[0][0], 32 * 33);
    int l = threadIdx.x;
    sink[l] = tile[l][0] + tile[l][1] + tile[l][2] + tile[l][3];
}
KERNEL vlds_bcast4_w1(float* sink) {          // every lane reads tile[0][0..3]
    __shared__ float tile[32][32];
    fill(&tile[0][0], 32 * 32);
    int l = threadIdx.x;
    sink[l] = tile[0][0] + tile[0][1] + tile[0][2] + tile[0][3];
}
KERNEL vlds_rowsum16_w1(float* sink) {        // lane reads tile[lane / 2][0..15] (the GEMM's As[ty][k] shape)
    __shared__ float tile[16][16];
    fill(&tile[0][0], 16 * 16);
    int l = threadIdx.x;
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 16; ++k) s += tile[l / 16][k];
    sink[l] = s;
}
KERNEL vlds_rowsum16_unroll1_w1(float* sink) { // same, `#pragma unroll 1`: scalar LDS in a loop
    __shared__ float tile[16][16];
    fill(&tile[0][0], 16 * 16);
    int l = threadIdx.x;
    float s = 0.0f;
#pragma unroll 1
    for (int k = 0; k < 16; ++k) s += tile[l / 16][k];
    sink[l] = s;
}

// ---- 2. 128-bit shared loads: one float4 per lane, index chosen per lane ----
#define F4(NAME, IDX)                                                    \
    KERNEL NAME(float* sink) {                                           \
        __shared__ float4 t4[64];                                        \
        fill(reinterpret_cast<float*>(t4), 64 * 4);                      \
        int l = threadIdx.x;                                             \
        float4 v = t4[(IDX)];                                            \
        sink[l] = v.x + v.y + v.z + v.w;                                 \
    }
F4(f4_bcast_all_w1, 0)                        // one element for the warp
F4(f4_bcast_halves_w1, l < 16 ? 0 : 1)        // one element per half-warp, different banks
F4(f4_bcast_halves_samebank_w1, l < 16 ? 0 : 8)   // one per half-warp, same banks (8 * 16 B = 128 B apart)
F4(f4_bcast_quarters_w1, l / 8)               // one element per quarter-warp
F4(f4_bcast_quarters_samebank_w1, (l / 8) * 8)    // one per quarter, all in banks 0-3
F4(f4_pairs_w1, l / 2)                        // two lanes per element
F4(f4_interleaved2_w1, l & 1)                 // two elements, alternating lanes
F4(f4_contig_w1, l)

// ---- 3. atomics: warp aggregation of uniform-address integer atomics ----
KERNEL gatom_i32_same_one_2x256(int* c, float* sink) { atomicAdd(&c[0], 1); }
KERNEL gatom_i32_same_one_ret_2x256(int* c, float* sink) { sink[gtid()] = (float)atomicAdd(&c[0], 1); }
KERNEL gatom_i32_same_lane_2x256(int* c, float* sink) { atomicAdd(&c[0], (int)threadIdx.x); }
KERNEL gatom_u32_same_one_2x256(unsigned* c, float* sink) { atomicAdd(&c[0], 1u); }
KERNEL gatom_f32_same_one_2x256(float* c, float* sink) { atomicAdd(&c[0], 1.0f); }
KERNEL gatom_i32_contig_2x256(int* c, float* sink) { atomicAdd(&c[gtid()], 1); }
KERNEL gatom_i32_hist8_2x256(int* c, float* sink) { atomicAdd(&c[gtid() & 7], 1); }
KERNEL gatom_i32_same_one_w1(int* c, float* sink) { atomicAdd(&c[0], 1); }
KERNEL gatom_f32_same_one_w1(float* c, float* sink) { atomicAdd(&c[0], 1.0f); }
KERNEL satom_i32_same_one_2x256(int* c, float* sink) {
    __shared__ int s[32];
    if (threadIdx.x < 32) s[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&s[0], 1);
    __syncthreads();
    if (threadIdx.x < 32) sink[blockIdx.x * 32 + threadIdx.x] = (float)s[threadIdx.x];
}
KERNEL satom_f32_same_one_2x256(int* c, float* sink) {
    __shared__ float s[32];
    if (threadIdx.x < 32) s[threadIdx.x] = 0.0f;
    __syncthreads();
    atomicAdd(&s[0], 1.0f);
    __syncthreads();
    if (threadIdx.x < 32) sink[blockIdx.x * 32 + threadIdx.x] = s[threadIdx.x];
}
KERNEL satom_i32_hist8_2x256(int* c, float* sink) {
    __shared__ int s[32];
    if (threadIdx.x < 32) s[threadIdx.x] = 0;
    __syncthreads();
    atomicAdd(&s[threadIdx.x & 7], 1);
    __syncthreads();
    if (threadIdx.x < 32) sink[blockIdx.x * 32 + threadIdx.x] = (float)s[threadIdx.x];
}

// ---- 4. branch vs predication: a shared-memory tree reduction and a 1-D stencil with halo ----
KERNEL reduce_shared_4x256(const float* __restrict__ in, float* __restrict__ out) {
    __shared__ float s[256];
    int tid = threadIdx.x;
    s[tid] = in[blockIdx.x * 256 + tid];
    __syncthreads();
    for (int stride = 128; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
#define R 3
KERNEL stencil1d_r3_4x256(const float* __restrict__ in, float* __restrict__ out, int n) {
    __shared__ float s[256 + 2 * R];
    int g = blockIdx.x * 256 + threadIdx.x;    // in has R guard elements on each side: in[-R .. n + R)
    s[threadIdx.x + R] = in[g];
    if (threadIdx.x < R) {
        s[threadIdx.x] = in[g - R];
        s[threadIdx.x + 256 + R] = in[g + 256];
    }
    __syncthreads();
    float acc = 0.0f;
    for (int k = -R; k <= R; ++k) acc += s[threadIdx.x + R + k];
    if (g < n) out[g] = acc;
}

// ---- 5. 1-/2-byte and struct types ----
KERNEL gld_u8_contig_2x256(const unsigned char* __restrict__ p, float* sink) { sink[gtid()] = (float)p[gtid()]; }
KERNEL gld_i8_contig_w1(const signed char* __restrict__ p, float* sink) { sink[gtid()] = (float)p[gtid()]; }
KERNEL gld_u8_stride4_2x256(const unsigned char* __restrict__ p, float* sink) { sink[gtid()] = (float)p[4 * gtid()]; }
KERNEL gld_i16_contig_2x256(const short* __restrict__ p, float* sink) { sink[gtid()] = (float)p[gtid()]; }
KERNEL gld_i16_stride2_2x256(const short* __restrict__ p, float* sink) { sink[gtid()] = (float)p[2 * gtid()]; }
KERNEL gst_u8_contig_2x256(unsigned char* p) { p[gtid()] = (unsigned char)threadIdx.x; }
KERNEL gst_i16_contig_2x256(short* p) { p[gtid()] = (short)threadIdx.x; }
KERNEL gld_aos3_x_2x256(const P3* __restrict__ p, float* sink) { sink[gtid()] = p[gtid()].x; }
KERNEL gld_aos3_xyz_2x256(const P3* __restrict__ p, float* sink) {
    P3 v = p[gtid()];
    sink[gtid()] = v.x + v.y + v.z;
}
KERNEL gst_aos3_x_2x256(P3* p) { p[gtid()].x = 1.0f; }
KERNEL gld_aos4_x_2x256(const P4* __restrict__ p, float* sink) { sink[gtid()] = p[gtid()].x; }
KERNEL gld_soa_x_2x256(const float* __restrict__ x, float* sink) { sink[gtid()] = x[gtid()]; }
KERNEL sld_u8_contig_w1(float* sink) {
    __shared__ unsigned char t[128];
    for (int i = threadIdx.x; i < 128; i += 32) t[i] = (unsigned char)i;
    __syncthreads();
    sink[threadIdx.x] = (float)t[threadIdx.x];
}
KERNEL sld_i16_col_w1(float* sink) {           // short tile[32][32], column: 16 wavefronts like __half
    __shared__ short t[32][32];
    for (int i = threadIdx.x; i < 32 * 32; i += 32) (&t[0][0])[i] = (short)i;
    __syncthreads();
    sink[threadIdx.x] = (float)t[threadIdx.x][7];
}

int main() {
    int* ci;
    float *cf, *sink, *in, *out;
    unsigned char* bytes;
    CHECK(cudaMalloc(&ci, 4096 * 4));
    CHECK(cudaMalloc(&cf, 4096 * 4));
    CHECK(cudaMalloc(&sink, 1 << 20));
    CHECK(cudaMalloc(&in, (4096 + 64) * 4));
    CHECK(cudaMalloc(&out, 4096 * 4));
    CHECK(cudaMalloc(&bytes, 1 << 20));
    CHECK(cudaMemset(ci, 0, 4096 * 4));
    CHECK(cudaMemset(cf, 0, 4096 * 4));
    CHECK(cudaMemset(in, 0, (4096 + 64) * 4));
    CHECK(cudaMemset(bytes, 1, 1 << 20));
    int launches = 0;
#define L(K, G, B, ...)                                       \
    do {                                                      \
        K<<<G, B>>>(__VA_ARGS__);                             \
        CHECK(cudaGetLastError());                            \
        CHECK(cudaDeviceSynchronize());                       \
        printf("launch %s <<<%d, %d>>>\n", #K, G, B);         \
        ++launches;                                           \
    } while (0)
    L(vlds_row4_w1, 1, 32, sink);
    L(vlds_row4_pad1_w1, 1, 32, sink);
    L(vlds_bcast4_w1, 1, 32, sink);
    L(vlds_rowsum16_w1, 1, 32, sink);
    L(vlds_rowsum16_unroll1_w1, 1, 32, sink);
    L(f4_bcast_all_w1, 1, 32, sink);
    L(f4_bcast_halves_w1, 1, 32, sink);
    L(f4_bcast_halves_samebank_w1, 1, 32, sink);
    L(f4_bcast_quarters_w1, 1, 32, sink);
    L(f4_bcast_quarters_samebank_w1, 1, 32, sink);
    L(f4_pairs_w1, 1, 32, sink);
    L(f4_interleaved2_w1, 1, 32, sink);
    L(f4_contig_w1, 1, 32, sink);
    L(gatom_i32_same_one_2x256, 2, 256, ci, sink);
    L(gatom_i32_same_one_ret_2x256, 2, 256, ci, sink);
    L(gatom_i32_same_lane_2x256, 2, 256, ci, sink);
    L(gatom_u32_same_one_2x256, 2, 256, (unsigned*)ci, sink);
    L(gatom_f32_same_one_2x256, 2, 256, cf, sink);
    L(gatom_i32_contig_2x256, 2, 256, ci, sink);
    L(gatom_i32_hist8_2x256, 2, 256, ci, sink);
    L(gatom_i32_same_one_w1, 1, 32, ci, sink);
    L(gatom_f32_same_one_w1, 1, 32, cf, sink);
    L(satom_i32_same_one_2x256, 2, 256, ci, sink);
    L(satom_f32_same_one_2x256, 2, 256, ci, sink);
    L(satom_i32_hist8_2x256, 2, 256, ci, sink);
    L(reduce_shared_4x256, 4, 256, in, out);
    L(stencil1d_r3_4x256, 4, 256, in + 32, out, 1024);   // 32 guard floats before: in[g - R] stays inside
    L(gld_u8_contig_2x256, 2, 256, bytes, sink);
    L(gld_i8_contig_w1, 1, 32, (const signed char*)bytes, sink);
    L(gld_u8_stride4_2x256, 2, 256, bytes, sink);
    L(gld_i16_contig_2x256, 2, 256, (const short*)bytes, sink);
    L(gld_i16_stride2_2x256, 2, 256, (const short*)bytes, sink);
    L(gst_u8_contig_2x256, 2, 256, bytes);
    L(gst_i16_contig_2x256, 2, 256, (short*)bytes);
    L(gld_aos3_x_2x256, 2, 256, (const P3*)bytes, sink);
    L(gld_aos3_xyz_2x256, 2, 256, (const P3*)bytes, sink);
    L(gst_aos3_x_2x256, 2, 256, (P3*)bytes);
    L(gld_aos4_x_2x256, 2, 256, (const P4*)bytes, sink);
    L(gld_soa_x_2x256, 2, 256, (const float*)bytes, sink);
    L(sld_u8_contig_w1, 1, 32, sink);
    L(sld_i16_col_w1, 1, 32, sink);
    int h;
    CHECK(cudaMemcpy(&h, ci, 4, cudaMemcpyDeviceToHost));
    printf("%d launches; counter ci[0] = %d\n", launches, h);
    return 0;
}
