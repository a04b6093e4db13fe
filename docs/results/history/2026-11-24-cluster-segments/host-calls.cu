// Throwaway: host cost of the CUDA calls on bitonic::sort's path, each in a tight loop of 1000.
#include <cuda.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
using clk = std::chrono::steady_clock;
template <class F>
double per_call_ns(F f) {
  std::vector<double> v;
  for (int r = 0; r < 15; ++r) {
    auto t0 = clk::now();
    for (int i = 0; i < 1000; ++i)
      f();
    v.push_back(std::chrono::duration<double, std::nano>(clk::now() - t0).count() / 1000);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main() {
  int* d;
  cudaMalloc(&d, 1 << 20);
  int dev;
  std::printf("cudaGetDevice %.0f ns\n", per_call_ns([&] { cudaGetDevice(&dev); }));
  std::printf("cudaGetDeviceCount %.0f ns\n", per_call_ns([&] { cudaGetDeviceCount(&dev); }));
  std::printf("cudaPointerGetAttributes %.0f ns\n", per_call_ns([&] {
                cudaPointerAttributes a;
                cudaPointerGetAttributes(&a, d + 5);
              }));
  std::printf("cuMemGetAddressRange %.0f ns\n", per_call_ns([&] {
                CUdeviceptr b;
                size_t s;
                cuMemGetAddressRange(&b, &s, CUdeviceptr(d + 5));
              }));
  CUpointer_attribute at[4] = {
      CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
      CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  unsigned type;
  int ordinal;
  CUdeviceptr start;
  size_t size;
  void* data[4] = {&type, &ordinal, &start, &size};
  std::printf("cuPointerGetAttributes(4) %.0f ns (type %u dev %d size %zu)\n",
              per_call_ns([&] { cuPointerGetAttributes(4, at, data, CUdeviceptr(d + 5)); }), type,
              ordinal, size);
  CUcontext ctx;
  std::printf("cuCtxGetCurrent %.0f ns\n", per_call_ns([&] { cuCtxGetCurrent(&ctx); }));
  int v;
  std::printf("cudaDeviceGetAttribute %.0f ns\n",
              per_call_ns([&] { cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0); }));
}
