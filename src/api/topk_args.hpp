// The argument checks that topk (device arrays, api/topk.cu and, for 1- and 2-byte keys,
// api/small_topk.cpp) and topk_host (host arrays) share.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "api/options.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "runtime/device.hpp"

namespace bitonic::api {

//! Throws bitonic::error naming `caller` and the two arrays when the keys (`keys` keys) overlap
//! an output that is not null, or the two outputs (`outputs` elements each) overlap. `device`:
//! the arrays are named d_keys, d_out_keys, d_out_indices (else h_...), as in the API.
template <class Key, class Index>
void require_topk_arrays_apart(const Key* keys, std::size_t key_count, const Key* out_keys,
                               const Index* out_indices, std::size_t outputs, bool device,
                               const char* caller) {
  const std::size_t key_bytes = key_count * sizeof(Key);
  const std::size_t out_key_bytes = out_keys != nullptr ? outputs * sizeof(Key) : 0;
  if (out_keys != nullptr) {
    require_apart(keys, key_bytes, out_keys, out_key_bytes, caller,
                  device ? "d_keys and d_out_keys" : "h_keys and h_out_keys");
  }
  if (out_indices != nullptr) {
    const std::size_t index_bytes = outputs * sizeof(Index);
    require_apart(keys, key_bytes, out_indices, index_bytes, caller,
                  device ? "d_keys and d_out_indices" : "h_keys and h_out_indices");
    require_apart(out_keys, out_key_bytes, out_indices, index_bytes, caller,
                  device ? "d_out_keys and d_out_indices" : "h_out_keys and h_out_indices");
  }
}

//! Positions are 32 bits in the record words: an array holds at most 2^32 keys.
inline constexpr std::size_t max_topk_array_keys = std::size_t{1} << 32;

//! topk_keys' checks, and n within the record words' positions. Returns batch * n.
inline std::size_t checked_topk_keys(std::size_t batch, std::size_t n, std::size_t k,
                                     const options& opt, bool any_output, const char* caller) {
  const std::size_t keys = topk_keys(batch, n, k, opt, any_output, caller);
  if (n > max_topk_array_keys) {
    throw error(std::string(caller) + ": n = " + std::to_string(n) +
                " is more than the 2^32 keys an array may have");
  }
  return keys;
}

//! Whether topk sorts anything (else it at most copies or writes zeros).
inline bool topk_sorts(std::size_t batch, std::size_t n, std::size_t k) {
  return batch != 0 && k != 0 && n >= 2;
}

//! A checked topk call's sizes.
struct topk_sizes {
  std::size_t keys = 0;     //!< batch * n
  std::size_t outputs = 0;  //!< batch * k
  bool done = false;        //!< nothing to sort: no outputs, or arrays of one key (answered)
};

//! The checks of topk's device arrays and sizes; where nothing is to be sorted, the answer too
//! (arrays of one key: each one's key at index 0), enqueued on opt.stream. Throws bitonic::error
//! as topk does.
template <class Key, class Index>
topk_sizes check_topk(const Key* d_keys, std::size_t batch, std::size_t n, std::size_t k,
                      Key* d_out_keys, Index* d_out_indices, const options& opt,
                      const char* caller) {
  topk_sizes s;
  s.keys = checked_topk_keys(batch, n, k, opt, d_out_keys != nullptr || d_out_indices != nullptr,
                             caller);
  s.outputs = batch * k;  // <= keys
  runtime::require_device_range(d_keys, s.keys, sizeof(Key), alignof(Key), caller, "d_keys");
  if (d_out_keys != nullptr) {
    runtime::require_device_range(d_out_keys, s.outputs, sizeof(Key), alignof(Key), caller,
                                  "d_out_keys");
  }
  if (d_out_indices != nullptr) {
    runtime::require_device_range(d_out_indices, s.outputs, sizeof(Index), alignof(Index), caller,
                                  "d_out_indices");
  }
  require_topk_arrays_apart(d_keys, s.keys, d_out_keys, d_out_indices, s.outputs, true, caller);
  s.done = s.outputs == 0 || n == 1;
  if (s.outputs != 0 && n == 1) {  // k == 1: each array's only key, at index 0
    if (d_out_keys != nullptr) {
      BITONIC_CUDA_CHECK(cudaMemcpyAsync(d_out_keys, d_keys, batch * sizeof(Key),
                                         cudaMemcpyDeviceToDevice, opt.stream));
    }
    if (d_out_indices != nullptr) {
      BITONIC_CUDA_CHECK(cudaMemsetAsync(d_out_indices, 0, batch * sizeof(Index), opt.stream));
    }
  }
  return s;
}

}  // namespace bitonic::api
