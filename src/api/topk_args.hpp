// The argument check that topk (device arrays) and topk_host (host arrays) share: their three
// arrays must not overlap.
#pragma once

#include <cstddef>

#include "api/options.hpp"

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

}  // namespace bitonic::api
