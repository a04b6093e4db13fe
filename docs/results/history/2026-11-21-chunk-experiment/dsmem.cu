// Throwaway measurement, built and run on an H100 80GB HBM3 on 2026-11-21:
//   nvcc -O3 -std=c++20 -arch=sm_90 dsmem.cu -o dsmem && ./dsmem
//
// Throwaway measurement: what one all-to-all exchange through distributed shared memory costs
// inside a pass. A cluster of 8 blocks (512 threads x 32 keys each, 2^17 keys) loads its keys,
// every block writes its registers to its shared memory, and after a cluster barrier each thread
// reads 32 keys back: from the 8 blocks of the cluster ("cluster"), or from its own block with the
// same pattern ("local"), or no exchange at all ("none"); then stores. Over a 2^23-key block
// held in the L2 and over 2^27 keys in DRAM.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>

namespace cg = cooperative_groups;

template <int Mode>  // 0 none, 1 local, 2 cluster
__global__ void __cluster_dims__(8, 1, 1) __launch_bounds__(512, 2) pass(int* keys) {
  extern __shared__ int smem[];
  cg::cluster_group cluster = cg::this_cluster();
  const unsigned t = threadIdx.x, b = cluster.block_rank();
  int* tile = keys + (size_t(blockIdx.x) << 14);
  int r[32];
#pragma unroll
  for (int m = 0; m < 32; ++m)
    r[m] = tile[m * 512 + t];
  if (Mode != 0) {
#pragma unroll
    for (int m = 0; m < 32; ++m)
      smem[m * 512 + t] = r[m];
    if (Mode == 2)
      cluster.sync();
    else
      __syncthreads();
#pragma unroll
    for (int m = 0; m < 32; ++m) {
      // register m: source block m & 7, local bits 9..10 from m >> 3, bits 11..13 = this block
      const unsigned from = Mode == 2 ? (m & 7) : b;
      const int* src = Mode == 2 ? cluster.map_shared_rank(smem, from) : smem;
      r[m] = src[(b << 11) | ((m >> 3) << 9) | t];
    }
    if (Mode == 2)
      cluster.sync();
    else
      __syncthreads();
  }
#pragma unroll
  for (int m = 0; m < 32; ++m)
    tile[m * 512 + t] = r[m] + 1;
}

int main() {
  int* d;
  cudaMalloc(&d, size_t{4} << 27);
  cudaMemset(d, 0, size_t{4} << 27);
  const int smem = 64 * 1024;
  cudaFuncSetAttribute(pass<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(pass<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaFuncSetAttribute(pass<2>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  cudaEvent_t a, e;
  cudaEventCreate(&a);
  cudaEventCreate(&e);
  const char* names[] = {"none", "local", "cluster"};
  for (unsigned k : {23u, 27u}) {
    const size_t n = size_t{1} << k;
    for (int v = 0; v < 3; ++v) {
      auto run = [&] {
        if (v == 0) pass<0> < <<n>> 14, 512, smem >>> (d);
        if (v == 1) pass<1> < <<n>> 14, 512, smem >>> (d);
        if (v == 2) pass<2> < <<n>> 14, 512, smem >>> (d);
      };
      for (int w = 0; w < 3; ++w)
        run();
      const int reps = 20;
      cudaEventRecord(a);
      for (int i = 0; i < reps; ++i)
        run();
      cudaEventRecord(e);
      cudaEventSynchronize(e);
      float ms;
      cudaEventElapsedTime(&ms, a, e);
      ms /= reps;
      printf("2^%u keys, exchange %-8s %8.1f us a pass, %.2f TB/s (read+write)\n", k, names[v],
             ms * 1e3, 2.0 * n * 4 / ms / 1e9);
    }
  }
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
