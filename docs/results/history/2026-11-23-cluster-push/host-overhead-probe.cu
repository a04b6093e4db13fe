// Throwaway: where the host-side time of a 2^16 sort goes (event time vs kernel time).
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>
#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "host/device.hpp"
#include "plan/plan.hpp"

__global__ void empty_kernel() {}
__global__ void __cluster_dims__(16, 1, 1) empty_cluster_static() {}
__global__ void empty_cluster_dynamic() {}
static void launch_ex(cudaStream_t s, bool pdl) {
  cudaLaunchAttribute at[2]{};
  at[0].id = cudaLaunchAttributeClusterDimension;
  at[0].val.clusterDim = {16, 1, 1};
  at[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t c{};
  c.gridDim = dim3(16);
  c.blockDim = dim3(128);
  c.stream = s;
  c.attrs = at;
  c.numAttrs = pdl ? 2 : 1;
  cudaLaunchKernelEx(&c, empty_cluster_dynamic);
}
__global__ void spin(long long cycles) {
  long long t = clock64();
  while (clock64() - t < cycles) {
  }
}

static double med(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
using clk = std::chrono::steady_clock;
static double us(clk::time_point a, clk::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

int main() {
  const std::size_t n = 1 << 16;
  std::vector<int> h(n);
  std::mt19937 gen(1);
  for (auto& x : h)
    x = int(gen());
  int *d, *work;
  cudaMalloc(&d, n * 4);
  cudaMalloc(&work, n * 4);
  cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  bitonic::options opt;
  opt.stream = s;
  auto ev = [&](auto f) {
    std::vector<double> v;
    for (int r = 0; r < 41; ++r) {
      cudaMemcpyAsync(work, d, n * 4, cudaMemcpyDeviceToDevice, s);
      cudaEventRecord(a, s);
      f();
      cudaEventRecord(b, s);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (r) v.push_back(ms * 1000);
    }
    return med(v);
  };
  auto host = [&](auto f) {  // host time of f with the GPU busy (spin) so launches never wait
    std::vector<double> v;
    for (int r = 0; r < 41; ++r) {
      cudaMemcpyAsync(work, d, n * 4, cudaMemcpyDeviceToDevice, s);
      spin<<<1, 1, 0, s>>>(200000);
      auto t0 = clk::now();
      f();
      auto t1 = clk::now();
      cudaStreamSynchronize(s);
      if (r) v.push_back(us(t0, t1));
    }
    return med(v);
  };
  bitonic::sort(work, n, opt);
  cudaDeviceSynchronize();
  std::printf("event us: empty kernel %.2f, sort 2^16 %.2f, two empty kernels %.2f\n",
              ev([&] { empty_kernel<<<1, 32, 0, s>>>(); }),
              ev([&] { bitonic::sort(work, n, opt); }), ev([&] {
                empty_kernel<<<1, 32, 0, s>>>();
                empty_kernel<<<1, 32, 0, s>>>();
              }));
  std::printf(
      "host us: sort %.2f, empty launch %.2f, require_device_range %.2f, device_shape %.2f, "
      "make_plan %.2f, pointer attrs %.2f\n",
      host([&] { bitonic::sort(work, n, opt); }), host([&] { empty_kernel<<<1, 32, 0, s>>>(); }),
      host([&] { bitonic::host::require_device_range(work, n, 4, 4, "x"); }),
      host([&] { (void)bitonic::api::current_device_shape(4); }), host([&] {
        auto dv = bitonic::api::current_device_shape(4);
        (void)bitonic::plan::make_plan(bitonic::algorithm::optimized, n, 4, dv,
                                       bitonic::plan::scratch_use::allowed);
      }),
      host([&] {
        cudaPointerAttributes at{};
        cudaPointerGetAttributes(&at, work);
      }));
  cudaFuncSetAttribute(empty_cluster_dynamic, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaFuncSetAttribute(empty_cluster_static, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  std::printf(
      "clusters event us: static <<<>>> %.2f, Ex cluster %.2f, Ex cluster+pdl %.2f; host us: %.2f, "
      "%.2f, %.2f (%s)\n",
      ev([&] { empty_cluster_static<<<16, 128, 0, s>>>(); }), ev([&] { launch_ex(s, false); }),
      ev([&] { launch_ex(s, true); }), host([&] { empty_cluster_static<<<16, 128, 0, s>>>(); }),
      host([&] { launch_ex(s, false); }), host([&] { launch_ex(s, true); }),
      cudaGetErrorString(cudaGetLastError()));
  std::vector<int> out(n);
  cudaMemcpy(out.data(), work, n * 4, cudaMemcpyDeviceToHost);
  std::sort(h.begin(), h.end());
  std::printf("check %s\n", out == h ? "ok" : "WRONG");
}
