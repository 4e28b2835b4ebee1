// Deliberate fault: a float4 (16-byte) shared read from row 1 of `float tile[32][33]`.
// Row 1 starts at byte 132, which is not 16-byte aligned, so LDS.128 faults ("misaligned address").
// Run under compute-sanitizer (memcheck) to record its error text: see run.sh.
// Build: nvcc -arch=sm_90 -O3 -lineinfo -o misaligned measurements/h200/misaligned.cu
#include <cuda_runtime.h>

#include <cstdio>

extern "C" __global__ void misaligned_f32x4_shared_read(float* out, int row) {
    __shared__ __align__(16) float tile[32][33];
    for (int i = threadIdx.x; i < 32 * 33; i += blockDim.x) (&tile[0][0])[i] = static_cast<float>(i);
    __syncthreads();
    // row comes from the host (1) so the compiler cannot prove the address misaligned and split the access.
    const float4 v = reinterpret_cast<const float4*>(&tile[row][0])[threadIdx.x % 8];
    out[threadIdx.x] = (v.x + v.y) + (v.z + v.w);
}

int main() {
    float* out = nullptr;
    if (cudaMalloc(&out, 32 * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "cudaMalloc failed\n");
        return 1;
    }
    misaligned_f32x4_shared_read<<<1, 32>>>(out, 1);
    const cudaError_t launch = cudaGetLastError();
    const cudaError_t sync = cudaDeviceSynchronize();
    printf("launch: %s\nsync: %s (%s)\n", cudaGetErrorString(launch), cudaGetErrorName(sync),
           cudaGetErrorString(sync));
    return sync == cudaSuccess ? 0 : 3;
}
