// bitonic::topk_host: top-k of arrays in host memory. With a GPU, when the keys, the outputs and
// topk's scratch fit the device budget, the keys go up through the staging ring, topk runs and the
// outputs come back. Otherwise the CPU selects each array's positions with std::partial_sort under
// the same order (key, then position), so both roads give the same result bit for bit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "api/topk_args.hpp"
#include "bitonic/bitonic.hpp"
#include "host/host_array.hpp"
#include "host/staging.hpp"
#include "host/transfer.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace host {
namespace {

//! topk on the CPU: for each array, its positions ordered by (key in opt.direction, position),
//! the first k of them selected with std::partial_sort.
template <class Key, class Index>
void topk_on_cpu(const Key* h_keys, std::size_t batch, std::size_t n, std::size_t k,
                 Key* h_out_keys, Index* h_out_indices, const options& opt, const char* caller) {
  const std::unique_ptr<std::size_t[]> order = host_array<std::size_t>(n, caller);
  api::with_order(opt.direction, [&](auto less) {
    for (std::size_t r = 0; r < batch; ++r) {
      const Key* keys = h_keys + r * n;
      std::iota(order.get(), order.get() + n, std::size_t{0});
      std::partial_sort(order.get(), order.get() + k, order.get() + n,
                        [&](std::size_t a, std::size_t b) {
                          if (less(keys[a], keys[b])) return true;
                          return !less(keys[b], keys[a]) && a < b;
                        });
      for (std::size_t j = 0; j < k; ++j) {
        if (h_out_keys != nullptr) h_out_keys[r * k + j] = keys[order[j]];
        if (h_out_indices != nullptr) h_out_indices[r * k + j] = Index(order[j]);
      }
    }
  });
}

//! topk through the device, when the keys, the outputs and the scratch fit device_budget(opt).
//! False, having done nothing, when they do not.
template <class Key, class Index>
bool topk_on_device(const Key* h_keys, std::size_t batch, std::size_t n, std::size_t k,
                    Key* h_out_keys, Index* h_out_indices, const options& opt, const char* caller) {
  const std::size_t scratch_bytes = topk_workspace_bytes<Key, Index>(
      batch, n, k, {.direction = opt.direction, .algo = opt.algo, .stream = opt.stream});
  const std::size_t outputs = batch * k;
  const std::size_t bytes = batch * n * sizeof(Key) + outputs * (sizeof(Key) + sizeof(Index));
  if (bytes + scratch_bytes > device_budget(opt)) return false;
  runtime::stream_buffer<Key> keys;
  keys.allocate(batch * n, opt.stream, caller);
  runtime::stream_buffer<Key> out_keys;
  if (h_out_keys != nullptr) out_keys.allocate(outputs, opt.stream, caller);
  runtime::stream_buffer<Index> out_indices;
  if (h_out_indices != nullptr) out_indices.allocate(outputs, opt.stream, caller);
  runtime::stream_buffer<std::byte> scratch;
  const options on_device = with_workspace(opt, scratch, scratch_bytes, caller);
  staging_lease ring;
  transfer<Key> key_moves(*ring, opt.stream);
  transfer<Index> index_moves(*ring, opt.stream);
  key_moves.upload(keys.get(), h_keys, batch * n);
  topk(keys.get(), batch, n, k, out_keys.get(), out_indices.get(), on_device);
  if (h_out_keys != nullptr) key_moves.download(h_out_keys, out_keys.get(), outputs);
  if (h_out_indices != nullptr) index_moves.download(h_out_indices, out_indices.get(), outputs);
  return true;
}

}  // namespace
}  // namespace host

template <class Key, class Index>
void topk_host(const Key* h_keys, std::size_t batch, std::size_t n, std::size_t k, Key* h_out_keys,
               Index* h_out_indices, const options& opt) {
  static_assert(std::is_same_v<Index, std::uint32_t> || std::is_same_v<Index, std::uint64_t>,
                "indices of 4 or 8 bytes, unsigned");
  constexpr const char* caller = "bitonic::topk_host";
  const std::size_t keys =
      api::topk_keys(batch, n, k, opt, h_out_keys != nullptr || h_out_indices != nullptr, caller);
  const std::size_t outputs = batch * k;
  api::require_host_keys(h_keys, keys, caller);
  api::require_topk_arrays_apart(h_keys, keys, h_out_keys, h_out_indices, outputs, false, caller);
  if (outputs == 0) return;
  if (std::is_same_v<Index, std::uint32_t> && n > (std::size_t{1} << 32)) {
    throw error(std::string(caller) + ": n = " + std::to_string(n) +
                " keys have positions past uint32_t indices");
  }
  if (gpu_available() && n <= (std::size_t{1} << 32) &&
      host::topk_on_device(h_keys, batch, n, k, h_out_keys, h_out_indices, opt, caller)) {
    return;
  }
  host::topk_on_cpu(h_keys, batch, n, k, h_out_keys, h_out_indices, opt, caller);
}

#define BITONIC_INSTANTIATE_NO_PAIR(Key, Value)
#define BITONIC_INSTANTIATE_TOPK(Key, Index)                                                   \
  template void topk_host<Key, Index>(const Key*, std::size_t, std::size_t, std::size_t, Key*, \
                                      Index*, const options&);
#define BITONIC_INSTANTIATE_KEY_TOPK(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_INSTANTIATE_NO_PAIR, BITONIC_INSTANTIATE_TOPK, Key)
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE_KEY_TOPK)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_INSTANTIATE_KEY_TOPK)

}  // namespace bitonic
