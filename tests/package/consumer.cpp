// Sorts a few keys through the installed library: on the GPU when there is one, otherwise with
// the CPU reference executor. Exits non-zero unless the keys come out sorted.
#include <bitonic/bitonic.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
  std::vector<int> keys = {5, -1, 9, 3, 3, 0, 7};
  if (bitonic::gpu_available()) {
    int* d_keys = nullptr;
    const std::size_t bytes = keys.size() * sizeof(int);
    if (cudaMalloc(reinterpret_cast<void**>(&d_keys), bytes) != cudaSuccess) return 1;
    cudaMemcpy(d_keys, keys.data(), bytes, cudaMemcpyHostToDevice);
    bitonic::sort(d_keys, keys.size());
    cudaMemcpy(keys.data(), d_keys, bytes, cudaMemcpyDeviceToHost);  // synchronises
    cudaFree(d_keys);
  } else {
    bitonic::sort_on_cpu(keys.data(), keys.size());
  }
  const bool ok =
      std::is_sorted(keys.begin(), keys.end()) && keys.front() == -1 && keys.back() == 9;
  std::printf("consumer: %s\n", ok ? "sorted" : "NOT SORTED");
  return ok ? 0 : 1;
}
