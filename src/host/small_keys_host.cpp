// sort_host for 1- and 2-byte keys: uploaded whole through the staging ring, sorted by the device
// sort (through 32-bit words, api/small_keys.cpp) and downloaded when the keys and its scratch fit
// the device memory the call may use; otherwise, or without a GPU, sort_on_cpu. No out-of-core
// path: its merges would need merge kernels for these key types.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "host/transfer.hpp"

namespace bitonic {
namespace host {
namespace {

template <class Key>
void sort_small_host(Key* h_keys, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort_host";
  api::validate(opt, caller);
  api::require_host_keys(h_keys, n, caller);
  if (n < 2) return;
  // A stable sort of 2-byte floats on the device takes at most 2^32 keys.
  const bool fits_device_sort = !(is_half_float_v<Key> && opt.stable && n > (std::size_t{1} << 32));
  if (gpu_available() && fits_device_sort &&
      sort_whole_on_device(h_keys, n, opt,
                           "bitonic::sort_host: cudaMallocAsync of a device buffer")) {
    return;
  }
  sort_on_cpu(h_keys, n, opt);
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
