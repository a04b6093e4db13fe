// Throwaway A/B: the cluster sort kernel alone (event time incl. launch), int32 and float, checked.
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>
#include "kernels/optimized_cluster_sort.cuh"

template <class K>
void run(const char* name, std::size_t n, unsigned stages) {
  std::vector<K> h(n);
  std::mt19937 gen(7);
  for (auto& x : h) {
    unsigned u = gen();
    if constexpr (std::is_same_v<K, float>)
      x = float(int(u)) / 3.0f;
    else
      x = K(u);
  }
  if (n > 10) {
    if constexpr (std::is_same_v<K, float>) {
      h[3] = -0.0f;
      h[5] = 0.0f;
    }
    h[7] = h[9];
  }
  K *d, *w;
  cudaMalloc(&d, n * sizeof(K));
  cudaMalloc(&w, n * sizeof(K));
  cudaMemcpy(d, h.data(), n * sizeof(K), cudaMemcpyHostToDevice);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<double> v;
  std::vector<K> ref = h, out(n);
  std::sort(ref.begin(), ref.end(), [](K x, K y) { return bitonic::ascending_less{}(x, y); });
  bool ok = true;
  for (int r = 0; r < (getenv("AB_RUNS") ? atoi(getenv("AB_RUNS")) : 31); ++r) {
    cudaMemcpyAsync(w, d, n * sizeof(K), cudaMemcpyDeviceToDevice, s);
    cudaEventRecord(a, s);
    bitonic::kernels::optimized_cluster_sort::launch(w, bitonic::network::index_t{n}, stages,
                                                     bitonic::ascending_less{}, s);
    cudaEventRecord(b, s);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    if (r) v.push_back(ms * 1000);
    if (r == 1) {
      cudaMemcpy(out.data(), w, n * sizeof(K), cudaMemcpyDeviceToHost);
      ok = std::equal(out.begin(), out.end(), ref.begin(),
                      [](K x, K y) { return std::memcmp(&x, &y, sizeof(K)) == 0; });
    }
  }
  std::sort(v.begin(), v.end());
  std::printf("%-6s n=%7zu stages=%u: median %.2f us (min %.2f) %s %s\n", name, n, stages,
              v[v.size() / 2], v[0], ok ? "ok" : "WRONG", cudaGetErrorString(cudaGetLastError()));
  cudaFree(d);
  cudaFree(w);
}
int main(int argc, char**) {
  if (argc > 1) {
    run<int>("i32", 1 << 16, 16);
    run<int>("i32", 20000, 15);
    return 0;
  }
  for (int rep = 0; rep < 2; ++rep) {
    run<int>("i32", 1 << 16, 16);
    run<float>("f32", 1 << 16, 16);
    run<int>("i32", 1 << 15, 15);
    run<int>("i32", 1 << 14, 14);
  }
  run<int>("i32", 50001, 16);
  run<float>("f32", 65535, 16);
  run<int>("i32", 20000, 15);
  run<unsigned>("u32", 16385, 15);
}
