// Throwaway measurement, built and run on an H100 80GB HBM3 on 2026-11-21:
//   nvcc -O3 -std=c++20 -arch=sm_90 l2.cu -o l2 && ./l2
//
// Throwaway: an in-place load-add-store pass over a 2^23-key int32 block (32 MB, L2-resident when
// repeated) and over 2^27 keys (DRAM), 512 threads x 32 keys a block, with 4-byte accesses (one
// key a lane, as main's kernels) or 16-byte accesses (four keys a lane).
#include <cuda_runtime.h>
#include <cstdio>

__global__ void __launch_bounds__(512, 2) narrow(int* keys) {
  int* at = keys + (size_t(blockIdx.x) << 14) + threadIdx.x;
  int r[32];
#pragma unroll
  for (int m = 0; m < 32; ++m)
    r[m] = at[m * 512];
#pragma unroll
  for (int m = 0; m < 32; ++m)
    at[m * 512] = r[m] + 1;
}

__global__ void __launch_bounds__(512, 2) wide(int4* keys) {
  int4* at = keys + (size_t(blockIdx.x) << 12) + threadIdx.x;
  int4 r[8];
#pragma unroll
  for (int m = 0; m < 8; ++m)
    r[m] = at[m * 512];
#pragma unroll
  for (int m = 0; m < 8; ++m)
    at[m * 512] = make_int4(r[m].x + 1, r[m].y + 1, r[m].z + 1, r[m].w + 1);
}

int main() {
  int* d;
  cudaMalloc(&d, size_t{4} << 27);
  cudaMemset(d, 0, size_t{4} << 27);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  for (unsigned k : {23u, 27u}) {
    const size_t n = size_t{1} << k;
    for (int v = 0; v < 2; ++v) {
      const int reps = 20;
      for (int w = 0; w < 3; ++w)
        v ? wide < <<n>> 14, 512 >>> (reinterpret_cast<int4*>(d)) : narrow < <<n>> 14, 512 >>> (d);
      cudaEventRecord(a);
      for (int i = 0; i < reps; ++i)
        v ? wide < <<n>> 14, 512 >>> (reinterpret_cast<int4*>(d)) : narrow < <<n>> 14, 512 >>> (d);
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      ms /= reps;
      printf("2^%u keys, %s: %.1f us a pass, %.2f TB/s (read+write)\n", k,
             v ? "16-byte accesses" : "4-byte accesses", ms * 1e3, 2.0 * n * 4 / ms / 1e9);
    }
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
