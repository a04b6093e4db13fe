// bitonic::sort_segments_host: segmented sorts of keys in host memory. The offsets are checked on
// the host first. With a GPU, when the keys of the segments, their offsets and sort_segments'
// scratch fit the device budget, the keys go up through the staging ring with the offsets rebased
// to 0, sort_segments runs and the keys come back. Otherwise the CPU sorts each segment with
// std::sort (std::stable_sort when asked) under the same order.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "host/host_array.hpp"
#include "host/staging.hpp"
#include "host/transfer.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace host {
namespace {

//! Throws bitonic::error naming `caller` and the first segment whose end is before its begin.
template <class Offset>
void require_non_decreasing(const Offset* h_offsets, std::size_t num_segments,
                            const std::string& caller) {
  for (std::size_t i = 0; i < num_segments; ++i) {
    if (h_offsets[i + 1] < h_offsets[i]) {
      throw error(caller + ": the offsets decrease at segment " + std::to_string(i) +
                  " (h_offsets[" + std::to_string(i + 1) +
                  "] = " + std::to_string(h_offsets[i + 1]) + " < h_offsets[" + std::to_string(i) +
                  "] = " + std::to_string(h_offsets[i]) + ")");
    }
  }
}

template <class Key, class Offset>
void sort_segments_on_cpu(Key* h_keys, const Offset* h_offsets, std::size_t num_segments,
                          const options& opt) {
  api::with_order(opt.direction, [&](auto less) {
    for (std::size_t i = 0; i < num_segments; ++i) {
      Key* const begin = h_keys + h_offsets[i];
      Key* const end = h_keys + h_offsets[i + 1];
      if (opt.stable) {
        std::stable_sort(begin, end, less);
      } else {
        std::sort(begin, end, less);
      }
    }
  });
}

//! sort_segments through the device when the keys, the offsets and the scratch fit
//! device_budget(opt). False, having done nothing, when they do not.
template <class Key, class Offset>
bool sort_segments_on_device(Key* h_keys, const Offset* h_offsets, std::size_t num_segments,
                             const options& opt, const char* caller) {
  const std::size_t first = h_offsets[0], n = h_offsets[num_segments] - first;
  const std::size_t scratch_bytes = segments_workspace_bytes<Key>(n, num_segments, opt);
  const std::size_t bytes = n * sizeof(Key) + (num_segments + 1) * sizeof(Offset);
  if (bytes + scratch_bytes > device_budget(opt)) return false;
  // The offsets rebased to the first segment's begin, so that only the segments' keys go up.
  const std::unique_ptr<Offset[]> rebased = host_array<Offset>(num_segments + 1, caller);
  std::transform(h_offsets, h_offsets + num_segments + 1, rebased.get(),
                 [&](Offset o) { return Offset(o - first); });
  runtime::stream_buffer<Key> keys;
  keys.allocate(n, opt.stream, caller);
  runtime::stream_buffer<Offset> offsets;
  offsets.allocate(num_segments + 1, opt.stream, caller);
  runtime::stream_buffer<std::byte> scratch;
  const options on_device = with_workspace(opt, scratch, scratch_bytes, caller);
  staging_lease ring;
  transfer<Key> key_moves(*ring, opt.stream);
  transfer<Offset> offset_moves(*ring, opt.stream);
  offset_moves.upload(offsets.get(), rebased.get(), num_segments + 1);
  key_moves.upload(keys.get(), h_keys + first, n);
  sort_segments(keys.get(), offsets.get(), num_segments, on_device);
  key_moves.download(h_keys + first, keys.get(), n);
  return true;
}

}  // namespace
}  // namespace host

template <class Key, class Offset>
void sort_segments_host(Key* h_keys, const Offset* h_offsets, std::size_t num_segments,
                        const options& opt) {
  const std::string caller = "bitonic::sort_segments_host";
  api::validate(opt, caller.c_str());
  api::require_batched_algorithm(opt, caller.c_str());
  if (num_segments == 0) return;
  if (h_offsets == nullptr) throw error(caller + ": h_offsets is null");
  host::require_non_decreasing(h_offsets, num_segments, caller);
  const std::size_t last = h_offsets[num_segments];
  api::require_host_keys(h_keys, last, caller.c_str());
  api::require_apart(h_keys, last * sizeof(Key), h_offsets, (num_segments + 1) * sizeof(Offset),
                     caller.c_str(), "h_keys and h_offsets");
  if (last == h_offsets[0]) return;
  if (gpu_available() &&
      host::sort_segments_on_device(h_keys, h_offsets, num_segments, opt, caller.c_str())) {
    return;
  }
  host::sort_segments_on_cpu(h_keys, h_offsets, num_segments, opt);
}

#define BITONIC_INSTANTIATE_SEGMENTS_HOST(Key)                                                  \
  template void sort_segments_host<Key, std::uint32_t>(Key*, const std::uint32_t*, std::size_t, \
                                                       const options&);                         \
  template void sort_segments_host<Key, std::uint64_t>(Key*, const std::uint64_t*, std::size_t, \
                                                       const options&);
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE_SEGMENTS_HOST)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_INSTANTIATE_SEGMENTS_HOST)

}  // namespace bitonic
