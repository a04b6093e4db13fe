// Throwaway measurement, built here and run on an H100 80GB HBM3 on 2026-11-21 (22:45 UTC):
//   nvcc -O3 -std=c++20 -arch=sm_90 lanes.cu -o lanes && ./lanes
//
// Bare passes (load, add one, store back; 512 threads x 32 keys a block, as l2.cu of the chunk
// experiment) over L2-resident blocks: one launch per block, a persistent grid, smaller blocks,
// and two or four blocks at once on their own streams; read-only and write-only passes.
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
__global__ void __launch_bounds__(512, 2) persistent(int* keys, int tiles) {
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    int* at = keys + (size_t(t) << 14) + threadIdx.x;
    int r[32];
#pragma unroll
    for (int m = 0; m < 32; ++m)
      r[m] = at[m * 512];
#pragma unroll
    for (int m = 0; m < 32; ++m)
      at[m * 512] = r[m] + 1;
  }
}
__global__ void __launch_bounds__(512, 2) readonly(const int* keys, int* out) {
  const int* at = keys + (size_t(blockIdx.x) << 14) + threadIdx.x;
  int s = 0;
#pragma unroll
  for (int m = 0; m < 32; ++m)
    s += at[m * 512];
  if (s == 12345) out[0] = s;
}
__global__ void __launch_bounds__(512, 2) writeonly(int* keys) {
  int* at = keys + (size_t(blockIdx.x) << 14) + threadIdx.x;
#pragma unroll
  for (int m = 0; m < 32; ++m)
    at[m * 512] = m;
}
int main() {
  int* d;
  cudaMalloc(&d, size_t{4} << 27);
  cudaMemset(d, 0, size_t{4} << 27);
  cudaStream_t s[4];
  for (auto& x : s)
    cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  int sms;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  auto time = [&](const char* what, double keys_per_rep, auto body) {
    for (int w = 0; w < 3; ++w)
      body();
    cudaDeviceSynchronize();
    const int reps = 40;
    cudaEventRecord(a, s[0]);
    for (int i = 0; i < reps; ++i)
      body();
    for (int k = 1; k < 4; ++k) {
      cudaEvent_t e;
      cudaEventCreate(&e);
      cudaEventRecord(e, s[k]);
      cudaStreamWaitEvent(s[0], e, 0);
    }
    cudaEventRecord(b, s[0]);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    ms /= reps;
    printf("%-58s %8.1f us per 2^23 keys, %.2f TB/s\n", what,
           ms * 1e3 * double(1 << 23) / keys_per_rep, 2.0 * keys_per_rep * 4 / ms / 1e9);
  };
  const double n23 = 1 << 23;
  time("2^23 block, one stream", n23, [&] { narrow<<<512, 512, 0, s[0]>>>(d); });
  time("2^23 block, persistent 2/SM", n23, [&] { persistent<<<2 * sms, 512, 0, s[0]>>>(d, 512); });
  time("2^22 block, one stream", n23 / 2, [&] { narrow<<<256, 512, 0, s[0]>>>(d); });
  time("2^21 block, one stream", n23 / 4, [&] { narrow<<<128, 512, 0, s[0]>>>(d); });
  time("2x 2^22 blocks, two streams", n23, [&] {
    narrow<<<256, 512, 0, s[0]>>>(d);
    narrow<<<256, 512, 0, s[1]>>>(d + (1 << 22));
  });
  time("4x 2^21 blocks, four streams", n23, [&] {
    for (int k = 0; k < 4; ++k)
      narrow<<<128, 512, 0, s[k]>>>(d + (size_t(k) << 21));
  });
  time("2x 2^23 blocks, two streams (64 MB)", 2 * n23, [&] {
    narrow<<<512, 512, 0, s[0]>>>(d);
    narrow<<<512, 512, 0, s[1]>>>(d + (1 << 23));
  });
  time("2x 2^21 blocks, two streams", n23 / 2, [&] {
    narrow<<<128, 512, 0, s[0]>>>(d);
    narrow<<<128, 512, 0, s[1]>>>(d + (1 << 21));
  });
  time("2^23 block read only", n23 / 2, [&] { readonly<<<512, 512, 0, s[0]>>>(d, d + (1 << 26)); });
  time("2^23 block write only", n23 / 2, [&] { writeonly<<<512, 512, 0, s[0]>>>(d); });
  time("2^27 DRAM one stream", 16 * n23, [&] { narrow<<<8192, 512, 0, s[0]>>>(d); });
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
