// Sorts a few keys through the installed library: on the GPU when there is one, in a
// bitonic::device_buffer (so that the installed cuda_helpers.hpp is proved too), otherwise with
// the CPU reference executor; and a few __half keys (a 2-byte type, from a file g++ compiles) with
// sort_host. Exits non-zero unless the keys come out sorted.
#include <cuda_fp16.h>
#include <bitonic/bitonic.hpp>
#include <bitonic/cuda_helpers.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <vector>

int main() try {
  std::vector<int> keys = {5, -1, 9, 3, 3, 0, 7};
  if (bitonic::gpu_available()) {
    const bitonic::device_buffer<int> d_keys(keys.size());
    const std::size_t bytes = keys.size() * sizeof(int);
    BITONIC_CUDA_CHECK(cudaMemcpy(d_keys.get(), keys.data(), bytes, cudaMemcpyHostToDevice));
    bitonic::sort(d_keys.get(), keys.size());
    // cudaMemcpy to pageable memory waits for the sort on the legacy default stream.
    BITONIC_CUDA_CHECK(cudaMemcpy(keys.data(), d_keys.get(), bytes, cudaMemcpyDeviceToHost));
  } else {
    bitonic::sort_on_cpu(keys.data(), keys.size());
  }
  std::vector<__half> halves = {__half(2.5f), __half(-1.0f), __half(0.0f), __half(-3.0f)};
  bitonic::sort_host(halves.data(), halves.size(), {.direction = bitonic::order::descending});
  const bool ok = std::is_sorted(keys.begin(), keys.end()) && keys.front() == -1 &&
                  keys.back() == 9 && float(halves.front()) == 2.5f &&
                  float(halves.back()) == -3.0f;
  std::printf("consumer: %s\n", ok ? "sorted" : "NOT SORTED");
  return ok ? 0 : 1;
} catch (const std::exception& e) {  // bitonic::error: a CUDA call failed
  std::fprintf(stderr, "consumer: %s\n", e.what());
  return 1;
}
