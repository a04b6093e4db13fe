// sort_host for 1- and 2-byte keys: uploaded whole, sorted by the device sort (through 32-bit
// words, api/small_keys.cu) and downloaded when the keys and its scratch fit the device memory the
// call may use; otherwise, or without a GPU, sort_on_cpu. No out-of-core path: its merges would
// need kernels for these key types.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace host {
namespace {

constexpr const char* small_caller = "bitonic::sort_host";
constexpr const char* small_allocation_failed =
    "bitonic::sort_host: cudaMallocAsync of the device buffer";

//! Device bytes the call may use: opt.max_device_bytes, at most what is free now less a margin.
std::size_t small_device_budget(const options& opt) {
  std::size_t free_bytes = 0, total_bytes = 0;
  BITONIC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t margin = std::max<std::size_t>(std::size_t{256} << 20, free_bytes / 32);
  const std::size_t usable = free_bytes > margin ? free_bytes - margin : 0;
  return opt.max_device_bytes != 0 ? std::min(opt.max_device_bytes, usable) : usable;
}

//! Sorts h_keys[0, n) on the device when they and the sort's scratch fit the budget; false,
//! having done nothing, when they do not.
template <class Key>
bool sort_small_host_on_gpu(Key* h_keys, std::size_t n, const options& opt) {
  options on_device{.direction = opt.direction, .algo = opt.algo, .stream = opt.stream};
  on_device.stable = opt.stable;
  if (is_half_float_v<Key> && opt.stable && n > (std::size_t{1} << 32)) return false;
  const std::size_t scratch_bytes = workspace_bytes<Key>(n, on_device);
  if (n * sizeof(Key) + scratch_bytes > small_device_budget(opt)) return false;
  runtime::stream_buffer<Key> device;
  device.allocate(n, opt.stream, small_allocation_failed);
  runtime::stream_buffer<std::byte> scratch;
  scratch.allocate(scratch_bytes, opt.stream, small_allocation_failed);
  on_device.workspace = scratch.get();
  on_device.workspace_bytes = scratch_bytes;
  BITONIC_CUDA_CHECK(
      cudaMemcpyAsync(device.get(), h_keys, n * sizeof(Key), cudaMemcpyHostToDevice, opt.stream));
  bitonic::sort(device.get(), n, on_device);
  BITONIC_CUDA_CHECK(
      cudaMemcpyAsync(h_keys, device.get(), n * sizeof(Key), cudaMemcpyDeviceToHost, opt.stream));
  BITONIC_CUDA_CHECK(cudaStreamSynchronize(opt.stream));
  return true;
}

template <class Key>
void sort_small_host(Key* h_keys, std::size_t n, const options& opt) {
  api::validate(opt, small_caller);
  api::require_host_keys(h_keys, n, small_caller);
  if (n < 2) return;
  if (!gpu_available() || !sort_small_host_on_gpu(h_keys, n, opt)) sort_on_cpu(h_keys, n, opt);
}

}  // namespace
}  // namespace host

#define BITONIC_SPECIALIZE(Key)                                          \
  template <>                                                            \
  void sort_host<Key>(Key * h_keys, std::size_t n, const options& opt) { \
    host::sort_small_host(h_keys, n, opt);                               \
  }
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_SPECIALIZE)
#undef BITONIC_SPECIALIZE

}  // namespace bitonic
