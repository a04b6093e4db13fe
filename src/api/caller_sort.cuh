// The implementation of bitonic.cuh's sorts under a caller's comparator (templates compiled in the
// caller's .cu file): argument checks, the plan (plan::make_comparator_plan), scratch from the
// caller's workspace or the library's pool, then dispatch::run_plan on the keys as caller_key
// under caller_order, or on 4-byte positions compared through the keys, then gathers.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "api/options.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "dispatch/run_plan.cuh"
#include "kernels/caller_records.cuh"
#include "kernels/register_tile.cuh"
#include "network/key_order.hpp"
#include "plan/plan.hpp"
#include "runtime/device.hpp"
#include "runtime/stream_buffer.hpp"

namespace bitonic {

namespace api {

using caller_position = kernels::caller_records::position;

//! How a sort under a caller's order runs and what scratch it takes: the key sort on the keys
//! themselves (4- and 8-byte keys, not stable, no values), else on positions, with a staging
//! buffer for the gathers. Value is void for keys only.
template <class Key, class Value>
struct caller_sort {
  //! Keys the key sort holds in registers itself (when not stable and without values).
  static constexpr bool direct_size = sizeof(Key) == 4 || sizeof(Key) == 8;
  static constexpr std::size_t value_size = [] {
    if constexpr (std::is_void_v<Value>) {
      return std::size_t{0};
    } else {
      return sizeof(Value);
    }
  }();
  //! Keys and values pass one after the other through a staging buffer this large an element.
  static constexpr std::size_t staged_element = std::max(sizeof(Key), value_size);
  static bool sorts_positions(const options& opt) {
    return value_size != 0 || opt.stable || !direct_size;
  }

  bool positions;
  plan::plan p;  //!< for the keys (caller_key<Key>) or for the positions
  std::size_t sort_scratch = 0, positions_bytes = 0, staging = 0;

  caller_sort(std::size_t n, const options& opt)
      : positions(sorts_positions(opt)),
        p(plan::make_comparator_plan(n, positions ? sizeof(caller_position) : sizeof(Key),
                                     !positions)) {
    sort_scratch = p.scratch_keys * (positions ? sizeof(caller_position) : sizeof(Key));
    if (positions) {
      positions_bytes = n * sizeof(caller_position);
      staging = n * staged_element;
    }
  }
  //! Bytes of workspace, alignment slack included (0: none needed).
  std::size_t bytes() const {
    if (sort_scratch + positions_bytes + staging == 0) return 0;
    return align_up(sort_scratch) + align_up(positions_bytes) + staging + workspace_alignment;
  }
};

//! Argument checks of the sorts below, before anything touches the caller's data.
template <class Key, class Value>
void check_caller_sort(const Key* d_keys, const Value* d_values, std::size_t n, const options& opt,
                       const char* caller) {
  static_assert(std::is_trivially_copyable_v<Key>, "keys are moved as bits: trivially copyable");
  validate(opt, caller);
  if (opt.algo != algorithm::automatic && opt.algo != algorithm::optimized) {
    throw error(std::string(caller) +
                ": a sort under a comparator runs the optimized kernels "
                "only (options.algo automatic or optimized)");
  }
  // The key sort loads a 4- or 8-byte key at once (caller_key); cudaMalloc'd arrays are aligned.
  constexpr std::size_t key_alignment =
      caller_sort<Key, Value>::direct_size ? sizeof(Key) : alignof(Key);
  runtime::require_device_range(d_keys, n, sizeof(Key), key_alignment, caller);
  if constexpr (!std::is_void_v<Value>) {
    static_assert(std::is_trivially_copyable_v<Value>, "values are moved as bits");
    runtime::require_device_range(d_values, n, sizeof(Value), alignof(Value), caller, "d_values");
    require_apart(d_keys, n * sizeof(Key), d_values, n * sizeof(Value), caller,
                  "d_keys and d_values");
  }
  if (n < 2) return;
  if (caller_sort<Key, Value>::sorts_positions(opt) &&
      n - 1 > std::numeric_limits<caller_position>::max()) {
    throw error(std::string(caller) + ": n = " + std::to_string(n) +
                " is more than 2^32 keys, the most a sort of positions (stable, pairs, keys of " +
                "other than 4 or 8 bytes) takes");
  }
  constexpr std::size_t tile_smem =
      std::max(kernels::register_tile<caller_key<std::uint32_t>>::smem_bytes,
               kernels::register_tile<caller_key<std::uint64_t>>::smem_bytes);
  if (const std::size_t offered = runtime::shared_memory_per_block_optin(); offered < tile_smem) {
    throw error(std::string(caller) + ": a sort under a comparator needs " +
                std::to_string(tile_smem) +
                " bytes of shared memory per block; this device offers " + std::to_string(offered));
  }
}

//! Runs p on keys under `less` (Reversed: descending; Splits: p may split, caller_order): its
//! kernels loaded first, so that one CUDA cannot load fails the call before any key has moved.
template <bool Reversed, bool Splits, class Key, class Less>
void run_caller_plan(const plan::plan& p, caller_key<Key>* keys, caller_key<Key>* scratch,
                     Less less, cudaStream_t stream) {
  const caller_order<Less, Reversed, Splits> order{less};
  {
    const kernels::load_only_scope loading;
    dispatch::run_plan(p, keys, scratch, order, stream);
  }
  dispatch::run_plan(p, keys, scratch, order, stream);
}

template <class Key, class Value, class Less>
void sort_under(Key* d_keys, Value* d_values, std::size_t n, Less less, const options& opt,
                const char* caller, const char* sizing) {
  check_caller_sort(d_keys, d_values, n, opt, caller);
  if (n < 2) return;
  const caller_sort<Key, Value> parts(n, opt);
  runtime::stream_buffer<std::byte> owned;
  std::size_t values_bytes = 0;
  if constexpr (!std::is_void_v<Value>) values_bytes = n * sizeof(Value);
  std::byte* const scratch = parts.bytes() == 0
                                 ? nullptr
                                 : workspace_or_pool(opt, parts.bytes(),
                                                     {{d_keys, n * sizeof(Key), "the keys"},
                                                      {d_values, values_bytes, "d_values"}},
                                                     owned, caller, sizing);
  if constexpr (caller_sort<Key, Value>::direct_size && std::is_void_v<Value>) {
    if (!parts.positions) {
      auto* const keys = reinterpret_cast<caller_key<Key>*>(d_keys);
      auto* const sort_scratch = reinterpret_cast<caller_key<Key>*>(scratch);
      if (opt.direction == order::descending) {
        run_caller_plan<true, true>(parts.p, keys, sort_scratch, less, opt.stream);
      } else {
        run_caller_plan<false, true>(parts.p, keys, sort_scratch, less, opt.stream);
      }
      return;
    }
  }
  namespace records = kernels::caller_records;
  auto* const positions =
      reinterpret_cast<caller_position*>(scratch + align_up(parts.sort_scratch));
  std::byte* const staging =
      scratch + align_up(parts.sort_scratch) + align_up(parts.positions_bytes);
  records::launch_positions(positions, n, opt.stream);
  const records::by_position<Key, Less> by_key{d_keys, less, opt.direction == order::descending,
                                               opt.stable};
  run_caller_plan<false, false>(parts.p, reinterpret_cast<caller_key<caller_position>*>(positions),
                                reinterpret_cast<caller_key<caller_position>*>(scratch), by_key,
                                opt.stream);
  records::permute(d_keys, positions, reinterpret_cast<Key*>(staging), n, opt.stream);
  if constexpr (!std::is_void_v<Value>) {
    records::permute(d_values, positions, reinterpret_cast<Value*>(staging), n, opt.stream);
  }
}

template <class Key, class Value>
std::size_t caller_workspace_bytes(std::size_t n, const options& opt, const char* caller) {
  validate(opt, caller);
  if (n < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  return caller_sort<Key, Value>(n, opt).bytes();
}

}  // namespace api

}  // namespace bitonic
