// bitonic::sort on the GPU: check the arguments, plan, allocate scratch if the plan needs it, and
// enqueue the passes. Instantiated once per key type (sort_<type>.cu) to spread compile time.
#pragma once

#include <algorithm>
#include <string>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "dispatch/device_merge.hpp"
#include "dispatch/run_plan.cuh"
#include "host/device.hpp"
#include "host/stream_buffer.hpp"
#include "kernels/merge_pair.cuh"
#include "plan/plan.hpp"
#include "plan/tuning.hpp"

namespace bitonic {

template <class Key>
void sort(Key* d_keys, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort";
  api::validate(opt, caller);
  host::require_device_range(d_keys, n, sizeof(Key), alignof(Key), caller);
  if (n < 2) return;
  algorithm algo = api::concrete_algorithm(opt, n, sizeof(Key));
  if (algo == algorithm::optimized) {  // its tiles need opt-in shared memory (sm_75 has too little)
    using tune = tuning::optimized<sizeof(Key)>;
    constexpr std::size_t needed = std::max(tune::tile_smem_bytes, tune::gather_smem_bytes);
    if (const std::size_t offered = host::shared_memory_per_block_optin(); offered < needed) {
      if (opt.algo != algorithm::automatic) {
        throw error(std::string(caller) + ": optimized needs " + std::to_string(needed) +
                    " bytes of shared memory per block; this device offers " +
                    std::to_string(offered));
      }
      algo = algorithm::shared_tiles;
    }
  }
  const plan::plan p = plan::make_plan(algo, n, sizeof(Key));
  host::stream_buffer<Key> scratch;
  if (p.needs_scratch) {
    scratch.allocate(n, opt.stream, "bitonic::sort: block_merge scratch cudaMallocAsync");
  }
  api::with_order(opt.direction, [&](auto less) {
    dispatch::run_plan(p, d_keys, scratch.get(), less, opt.stream);
  });
}

template <class Key>
void dispatch::merge_on_device(const Key* d_a, std::size_t a_count, const Key* d_b,
                               std::size_t b_count, Key* d_out, order direction,
                               cudaStream_t stream) {
  api::with_order(direction, [&](auto less) {
    kernels::launch_merge_pair(d_a, a_count, d_b, b_count, d_out, less, stream);
  });
}

}  // namespace bitonic

#define BITONIC_INSTANTIATE_SORT(Key)                                           \
  template void bitonic::sort<Key>(Key*, std::size_t, const bitonic::options&); \
  template void bitonic::dispatch::merge_on_device<Key>(                        \
      const Key*, std::size_t, const Key*, std::size_t, Key*, bitonic::order, cudaStream_t);
