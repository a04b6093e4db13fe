// Throwaway: event-timed cost of launching an empty kernel after a D2D copy (cluster or not, shared
// memory), and which SMs a cluster of 16 lands on.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <vector>
__global__ void empty_kernel(int* p) {
  extern __shared__ int s[];
  if (p && threadIdx.x == 0) p[blockIdx.x] = s[0];
}
__global__ void smid_kernel(int* p) {
  extern __shared__ int s[];
  unsigned smid;
  asm("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0) p[blockIdx.x] = smid;
}
int main() {
  const size_t bytes = 1 << 18;
  int *a, *b;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
  cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaFuncSetAttribute(smid_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
  cudaFuncSetAttribute(smid_kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  auto launch = [&](auto kernel, unsigned cluster, size_t smem, int* arg) {
    cudaLaunchConfig_t c{};
    cudaLaunchAttribute at[1]{};
    c.gridDim = dim3(16);
    c.blockDim = dim3(128);
    c.dynamicSmemBytes = smem;
    c.stream = s;
    if (cluster) {
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim = {cluster, 1, 1};
      c.attrs = at;
      c.numAttrs = 1;
    }
    if (cudaLaunchKernelEx(&c, kernel, arg) != cudaSuccess) std::printf("launch failed\n");
  };
  for (int copy = 1; copy >= 0; --copy)
    for (unsigned cluster : {0u, 16u})
      for (size_t smem : {size_t(0), size_t(54 * 1024), size_t(115 * 1024)})
        for (int twice = 0; twice < 2; ++twice) {
          std::vector<float> v;
          for (int r = 0; r < 61; ++r) {
            if (copy) cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, s);
            cudaEventRecord(e0, s);
            launch(empty_kernel, cluster, smem, nullptr);
            if (twice) launch(empty_kernel, cluster, smem, nullptr);
            cudaEventRecord(e1, s);
            cudaEventSynchronize(e1);
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            if (r) v.push_back(ms * 1000);
          }
          std::sort(v.begin(), v.end());
          std::printf("copy=%d cluster=%2u smem=%3zuK kernels=%d: median %.2f us (min %.2f)\n",
                      copy, cluster, smem / 1024, twice + 1, v[v.size() / 2], v[0]);
        }
  for (size_t smem : {size_t(0), size_t(54 * 1024), size_t(115 * 1024)}) {
    launch(smid_kernel, 16, smem, a);
    int h[16];
    cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("cluster 16 smem %zuK: SMs", smem / 1024);
    for (int i = 0; i < 16; ++i)
      std::printf(" %d", h[i]);
    std::printf(" (%s)\n", cudaGetErrorString(cudaGetLastError()));
  }
}
