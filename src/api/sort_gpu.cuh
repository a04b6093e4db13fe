// bitonic::sort on the GPU: check the arguments, plan, allocate scratch if the plan needs it, and
// enqueue the passes. Instantiated once per key type (sort_<type>.cu) to spread compile time.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "dispatch/device_ops.hpp"
#include "dispatch/run_plan.cuh"
#include "host/device.hpp"
#include "host/stream_buffer.hpp"
#include "kernels/merge_pair.cuh"
#include "plan/plan.hpp"
#include "plan/tuning.hpp"

namespace bitonic {

namespace api {

//! The concrete algorithm sort() runs for opt: automatic resolved, and optimized replaced by
//! shared_tiles under automatic where the device cannot give its tiles enough shared memory.
template <class Key>
algorithm algorithm_for_device(const options& opt, std::size_t n, const char* caller) {
  algorithm algo = concrete_algorithm(opt, n, sizeof(Key));
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
  return algo;
}

//! Enqueues the passes of p (on opt's stream and order); `scratch` holds p.scratch_keys keys when
//! the plan needs it.
template <class Key>
void run(const plan::plan& p, Key* d_keys, Key* scratch, const options& opt) {
  with_order(opt.direction,
             [&](auto less) { dispatch::run_plan(p, d_keys, scratch, less, opt.stream); });
}

}  // namespace api

template <class Key>
void sort(Key* d_keys, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort";
  api::validate(opt, caller);
  host::require_device_range(d_keys, n, sizeof(Key), alignof(Key), caller);
  if (n < 2) return;
  const algorithm algo = api::algorithm_for_device<Key>(opt, n, caller);
  const plan::device_shape device = api::current_device_shape(sizeof(Key));
  plan::plan p = plan::make_plan(algo, n, sizeof(Key), device, plan::scratch_use::allowed);
  host::stream_buffer<Key> scratch;
  if (p.needs_scratch() &&
      !scratch.try_allocate(p.scratch_keys, opt.stream, "bitonic::sort: scratch cudaMallocAsync")) {
    if (algo != algorithm::optimized) {
      throw error(std::string(caller) + ": out of memory for " + std::string(to_string(algo)) +
                  "'s scratch buffer of " + std::to_string(n) + " keys");
    }
    p = plan::make_plan(algo, n, sizeof(Key), device);  // optimized in place instead
  }
  api::run(p, d_keys, scratch.get(), opt);
}

template <class Key>
void dispatch::sort_sorted_blocks(Key* d_keys, std::size_t n, unsigned sorted_log2,
                                  const options& opt) {
  plan::plan p =
      plan::make_plan(api::algorithm_for_device<Key>(opt, n, "bitonic::sort_host"), n, sizeof(Key));
  if (p.needs_scratch()) throw error("bitonic: internal error: sort_sorted_blocks of a merge plan");
  std::erase_if(p.passes, [&](const plan::pass& ps) { return ps.last.stage <= sorted_log2; });
  if (!p.passes.empty() && p.passes.front().first.stage <= sorted_log2) {
    throw error("bitonic: internal error: a pass straddles the sorted blocks");
  }
  api::run(p, d_keys, static_cast<Key*>(nullptr), opt);
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

#define BITONIC_INSTANTIATE_SORT(Key)                                                        \
  template void bitonic::sort<Key>(Key*, std::size_t, const bitonic::options&);              \
  template void bitonic::dispatch::merge_on_device<Key>(                                     \
      const Key*, std::size_t, const Key*, std::size_t, Key*, bitonic::order, cudaStream_t); \
  template void bitonic::dispatch::sort_sorted_blocks<Key>(Key*, std::size_t, unsigned,      \
                                                           const bitonic::options&);
