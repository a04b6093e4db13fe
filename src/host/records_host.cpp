// bitonic::sort_pairs_host and bitonic::argsort_host: records in host memory. With a GPU, when the
// records and the device form's scratch fit the device budget (and n <= 2^32), they go up through
// the staging ring, the device form sorts them, and they come back. Otherwise the CPU sorts the
// positions by key with std::stable_sort and gathers: stable whatever opt.stable says, and the
// record sorts' only road for data larger than the device (no out-of-core merge of records yet).
// Every key type, 1- and 2-byte keys included.
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
#include "bitonic/bitonic.hpp"
#include "host/host_array.hpp"
#include "host/staging.hpp"
#include "host/transfer.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {
namespace host {
namespace {

constexpr std::size_t max_device_records = std::size_t{1} << 32;

//! The stable sorted order of h_keys[0, n) in opt.direction, on the CPU.
template <class Key>
std::unique_ptr<std::size_t[]> stable_order_on_cpu(const Key* h_keys, std::size_t n,
                                                   const options& opt, const char* caller) {
  std::unique_ptr<std::size_t[]> order = host_array<std::size_t>(n, caller);
  std::iota(order.get(), order.get() + n, std::size_t{0});
  api::with_order(opt.direction, [&](auto less) {
    std::stable_sort(order.get(), order.get() + n,
                     [&](std::size_t a, std::size_t b) { return less(h_keys[a], h_keys[b]); });
  });
  return order;
}

//! data[i] = data[order[i]] for every i, through a copy.
template <class T>
void gather_on_cpu(T* data, const std::size_t* order, std::size_t n, const char* caller) {
  const std::unique_ptr<T[]> copy = host_array<T>(n, caller);
  std::copy(data, data + n, copy.get());
  for (std::size_t i = 0; i < n; ++i)
    data[i] = copy[order[i]];
}

//! Sorts through the device: h_keys and (when `second_in`) h_second go up, device_sort(d_keys,
//! d_second, options on a workspace of workspace_bytes) sorts them, and h_second and (when
//! keys_back is not null) the keys come back into keys_back.
template <class Key, class Second, class DeviceSort>
void through_device(const Key* h_keys, Key* keys_back, Second* h_second, bool second_in,
                    std::size_t n, std::size_t workspace_bytes, const options& opt,
                    const char* caller, DeviceSort device_sort) {
  runtime::stream_buffer<Key> keys;
  keys.allocate(n, opt.stream, caller);
  runtime::stream_buffer<Second> second;
  second.allocate(n, opt.stream, caller);
  runtime::stream_buffer<std::byte> scratch;
  const options on_device = with_workspace(opt, scratch, workspace_bytes, caller);
  staging_lease ring;
  transfer<Key> key_moves(*ring, opt.stream);
  transfer<Second> second_moves(*ring, opt.stream);
  key_moves.upload(keys.get(), h_keys, n);
  if (second_in) second_moves.upload(second.get(), h_second, n);
  device_sort(keys.get(), second.get(), on_device);
  if (keys_back != nullptr) key_moves.download(keys_back, keys.get(), n);
  second_moves.download(h_second, second.get(), n);
}

//! The checks of a host record form's two arrays of n elements: the keys as sort_host checks
//! them, the second array not null, the two apart.
template <class Key, class Second>
void require_host_records(const Key* h_keys, const Second* h_second, std::size_t n,
                          const char* caller, const char* second) {
  api::require_host_keys(h_keys, n, caller);
  if (n > 0 && h_second == nullptr) {
    throw error(std::string(caller) + ": " + second + " is null but n = " + std::to_string(n));
  }
  api::require_apart(h_keys, n * sizeof(Key), h_second, n * sizeof(Second), caller,
                     (std::string("h_keys and ") + second).c_str());
}

//! Whether the device form runs: a GPU, n within its limit, and `bytes` within the budget.
bool fits_device(std::size_t n, std::size_t bytes, const options& opt) {
  return gpu_available() && n <= max_device_records && bytes <= device_budget(opt);
}

}  // namespace
}  // namespace host

template <class Key, class Value>
void sort_pairs_host(Key* h_keys, Value* h_values, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort_pairs_host";
  api::validate(opt, caller);
  host::require_host_records(h_keys, h_values, n, caller, "h_values");
  if (n < 2) return;
  const std::size_t workspace = gpu_available() && n <= host::max_device_records
                                    ? pairs_workspace_bytes<Key, Value>(n, opt)
                                    : 0;
  if (host::fits_device(n, n * (sizeof(Key) + sizeof(Value)) + workspace, opt)) {
    host::through_device(h_keys, h_keys, h_values, true, n, workspace, opt, caller,
                         [n](Key* keys, Value* values, const options& on_device) {
                           sort_pairs(keys, values, n, on_device);
                         });
    return;
  }
  const std::unique_ptr<std::size_t[]> order = host::stable_order_on_cpu(h_keys, n, opt, caller);
  host::gather_on_cpu(h_keys, order.get(), n, caller);
  host::gather_on_cpu(h_values, order.get(), n, caller);
}

template <class Key, class Index>
void argsort_host(const Key* h_keys, Index* h_indices, std::size_t n, const options& opt) {
  static_assert(std::is_same_v<Index, std::uint32_t> || std::is_same_v<Index, std::uint64_t>,
                "indices of 4 or 8 bytes, unsigned");
  constexpr const char* caller = "bitonic::argsort_host";
  api::validate(opt, caller);
  host::require_host_records(h_keys, h_indices, n, caller, "h_indices");
  if (std::is_same_v<Index, std::uint32_t> && n > host::max_device_records) {
    throw error(std::string(caller) + ": n = " + std::to_string(n) +
                " keys have positions past uint32_t indices");
  }
  if (n == 1) h_indices[0] = 0;
  if (n < 2) return;
  const std::size_t workspace = gpu_available() && n <= host::max_device_records
                                    ? argsort_workspace_bytes<Key, Index>(n, opt)
                                    : 0;
  if (host::fits_device(n, n * (sizeof(Key) + sizeof(Index)) + workspace, opt)) {
    host::through_device(h_keys, static_cast<Key*>(nullptr), h_indices, false, n, workspace, opt,
                         caller, [n](Key* keys, Index* indices, const options& on_device) {
                           argsort(static_cast<const Key*>(keys), indices, n, on_device);
                         });
    return;
  }
  const std::unique_ptr<std::size_t[]> order = host::stable_order_on_cpu(h_keys, n, opt, caller);
  for (std::size_t i = 0; i < n; ++i)
    h_indices[i] = Index(order[i]);
}

#define BITONIC_INSTANTIATE_PAIR(Key, Value) \
  template void sort_pairs_host<Key, Value>(Key*, Value*, std::size_t, const options&);
#define BITONIC_INSTANTIATE_INDEX(Key, Index) \
  template void argsort_host<Key, Index>(const Key*, Index*, std::size_t, const options&);
#define BITONIC_INSTANTIATE_RECORDS(Key) \
  BITONIC_FOR_EACH_RECORD(BITONIC_INSTANTIATE_PAIR, BITONIC_INSTANTIATE_INDEX, Key)
BITONIC_FOR_EACH_KEY(BITONIC_INSTANTIATE_RECORDS)
BITONIC_FOR_EACH_SMALL_KEY(BITONIC_INSTANTIATE_RECORDS)

}  // namespace bitonic
