// bitonic::sort on the GPU: check the arguments, plan, allocate scratch if the plan needs it, and
// enqueue the passes. Instantiated once per key type (sort_<type>.cu) to spread compile time.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "api/device_ops.hpp"
#include "api/options.hpp"
#include "api/plan_cache.hpp"
#include "api/records.hpp"
#include "api/workspace.hpp"
#include "bitonic/bitonic.hpp"
#include "dispatch/run_plan.cuh"
#include "kernels/tuning.hpp"
#include "plan/plan.hpp"
#include "runtime/device.hpp"
#include "runtime/stream_buffer.hpp"

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
    if (const std::size_t offered = runtime::shared_memory_per_block_optin(); offered < needed) {
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
//! the plan needs it; with a `source` the keys are read from there (dispatch::run_plan). Loads
//! every kernel of the plan first, so that a kernel CUDA cannot load (lazy loading, device memory
//! full) fails the call before any key has moved; with `loaded` (a cached plan's flags: null for
//! a plan of this call's own) only where that plan has not loaded them for this run before.
template <class Key>
void run(const plan::plan& p, Key* d_keys, Key* scratch, const options& opt,
         std::type_identity_t<const Key*> source = nullptr,
         std::atomic<unsigned>* loaded = nullptr) {
  const unsigned walk = load_walk(opt.direction, source != nullptr);
  with_order(opt.direction, [&](auto less) {
    if (loaded == nullptr || (loaded->load(std::memory_order_acquire) & walk) == 0) {
      {
        const kernels::load_only_scope loading;
        dispatch::run_plan(p, d_keys, scratch, less, opt.stream, source);
      }
      if (loaded != nullptr) loaded->fetch_or(walk, std::memory_order_release);
    }
    dispatch::run_plan(p, d_keys, scratch, less, opt.stream, source);
  });
}

//! Bytes of workspace that running p needs: its scratch keys and room to align them.
template <class Key>
std::size_t workspace_bytes(const plan::plan& p) {
  return p.needs_scratch() ? p.scratch_keys * sizeof(Key) + workspace_alignment : 0;
}

//! The plan sort() runs for n keys with opt on the current device, scratch allowed: made on the
//! first call for (device, opt.algo, n), cached after (plan_cache).
template <class Key>
std::shared_ptr<cached_plan> sort_plan(std::size_t n, const options& opt, const char* caller) {
  static plan_cache plans;  // one a key type: its loaded flags are this type's kernels
  int device = 0;
  BITONIC_CUDA_CHECK(cudaGetDevice(&device));
  return plans.get(device, opt.algo, n, [&] {
    return plan::make_plan(algorithm_for_device<Key>(opt, n, caller), n, sizeof(Key),
                           current_device_shape(sizeof(Key)), plan::scratch_use::allowed);
  });
}

//! `planned`'s loaded flags for running it with `scratch` (api::run), or null where
//! provide_scratch found no memory for its scratch and replaced it by the in-place plan.
inline std::atomic<unsigned>* loaded_flags(cached_plan& planned, const void* scratch) {
  return planned.plan.needs_scratch() && scratch == nullptr ? nullptr : &planned.loaded;
}

//! The scratch for p: the caller's workspace when opt has one (checked: large enough, device
//! memory, apart from the keys), else an allocation from the library's pool held by `owned` (a
//! graph allocation while the stream is captured). Where the device has no memory for it, an
//! optimized plan (one array's or a batched one) is replaced by the in-place one; other plans
//! throw. Null when p needs none.
//! `d_in`, when not null, is a second array of the caller's (sort out of place) that the
//! workspace must not overlap either.
template <class Key>
Key* provide_scratch(plan::plan& p, const Key* d_keys, const options& opt,
                     runtime::stream_buffer<std::byte>& owned, const char* caller,
                     const Key* d_in = nullptr) {
  if (!p.needs_scratch()) return nullptr;
  if (has_workspace(opt)) {
    const std::size_t bytes = p.stored_keys() * sizeof(Key);
    return reinterpret_cast<Key*>(caller_workspace(
        opt, workspace_bytes<Key>(p),
        {{d_keys, bytes, "the keys"}, {d_in, d_in != nullptr ? bytes : 0, "d_in"}}, caller,
        p.rows.count != 0 ? "bitonic::batched_workspace_bytes" : "bitonic::workspace_bytes"));
  }
  if (allocate_scratch(owned, p.scratch_keys * sizeof(Key), opt.stream,
                       "bitonic::sort: scratch cudaMallocFromPoolAsync")) {
    return reinterpret_cast<Key*>(owned.get());
  }
  if (p.algo != algorithm::optimized) {
    throw error(std::string(caller) + ": out of memory for " + std::string(to_string(p.algo)) +
                "'s scratch buffer of " + std::to_string(p.n) + " keys");
  }
  const plan::device_shape device = current_device_shape(sizeof(Key));
  p = p.rows.count != 0 ? plan::make_rows_plan(p.rows, sizeof(Key), device.block_log2)  // in place
                        : plan::make_plan(p.algo, p.n, sizeof(Key), device);
  return nullptr;
}

}  // namespace api

template <class Key>
void sort(Key* d_keys, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort";
  api::validate(opt, caller);
  runtime::require_device_range(d_keys, n, sizeof(Key), alignof(Key), caller);
  if (n < 2) return;
  if constexpr (std::is_floating_point_v<Key>) {
    if (opt.stable) return api::stable_sort_keys(d_keys, n, opt);
  }
  const auto planned = api::sort_plan<Key>(n, opt, caller);
  plan::plan p = planned->plan;
  runtime::stream_buffer<std::byte> owned;
  Key* const scratch = api::provide_scratch(p, d_keys, opt, owned, caller);
  api::run(p, d_keys, scratch, opt, nullptr, api::loaded_flags(*planned, scratch));
}

template <class Key>
void sort(const Key* d_in, Key* d_out, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort";
  api::validate(opt, caller);
  runtime::require_device_range(d_in, n, sizeof(Key), alignof(Key), caller, "d_in");
  runtime::require_device_range(d_out, n, sizeof(Key), alignof(Key), caller, "d_out");
  if (d_in == d_out) return sort(d_out, n, opt);
  api::require_apart(d_in, n * sizeof(Key), d_out, n * sizeof(Key), caller, "d_in and d_out");
  if (n == 0) return;
  bool stable_float = false;
  if constexpr (std::is_floating_point_v<Key>) stable_float = opt.stable;
  if (n < 2 || stable_float) {  // a copy, then the sort in place (which checks the workspace)
    if (stable_float && api::has_workspace(opt)) {
      api::caller_workspace(opt, workspace_bytes<Key>(n, opt),
                            {{d_in, n * sizeof(Key), "d_in"}, {d_out, n * sizeof(Key), "d_out"}},
                            caller, "bitonic::workspace_bytes");
    }
    BITONIC_CUDA_CHECK(
        cudaMemcpyAsync(d_out, d_in, n * sizeof(Key), cudaMemcpyDeviceToDevice, opt.stream));
    return sort(d_out, n, opt);
  }
  const auto planned = api::sort_plan<Key>(n, opt, caller);
  plan::plan p = planned->plan;
  runtime::stream_buffer<std::byte> owned;
  Key* const scratch = api::provide_scratch(p, d_out, opt, owned, caller, d_in);
  api::run(p, d_out, scratch, opt, d_in, api::loaded_flags(*planned, scratch));
}

template <class Key>
std::size_t workspace_bytes(std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::workspace_bytes";
  api::validate(opt, caller);
  if (n < 2) return 0;
  if (!gpu_available()) throw error(std::string(caller) + ": no CUDA device");
  if constexpr (std::is_floating_point_v<Key>) {
    if (opt.stable) return api::stable_sort_workspace_bytes<Key>(n, opt);
  }
  return api::workspace_bytes<Key>(api::sort_plan<Key>(n, opt, caller)->plan);
}

namespace api {

//! The batched plan for num_arrays arrays of array_size keys, after the checks sort_batched makes
//! of opt (an algorithm with a batched form, a device whose blocks hold the tiles).
template <class Key>
plan::plan batched_plan(std::size_t num_arrays, std::size_t array_size, const options& opt,
                        const std::string& caller) {
  require_batched_algorithm(opt, caller.c_str());
  options optimized = opt;
  optimized.algo = algorithm::optimized;
  algorithm_for_device<Key>(optimized, 2, caller.c_str());  // throws where its tiles do not fit
  return plan::make_rows_plan({num_arrays, array_size}, sizeof(Key),
                              current_device_shape(sizeof(Key)).block_log2,
                              plan::scratch_use::allowed);
}

}  // namespace api

template <class Key>
void sort_batched(Key* d_keys, std::size_t num_arrays, std::size_t array_size, const options& opt) {
  const std::string caller = "bitonic::sort_batched";
  api::validate(opt, caller.c_str());
  const std::size_t n = api::batch_keys(num_arrays, array_size, caller.c_str());
  runtime::require_device_range(d_keys, n, sizeof(Key), alignof(Key), caller.c_str());
  if (num_arrays == 0 || array_size < 2) return;
  plan::plan p = api::batched_plan<Key>(num_arrays, array_size, opt, caller);
  if constexpr (std::is_floating_point_v<Key>) {
    if (opt.stable) return api::stable_sort_keys(d_keys, n, opt, array_size);
  }
  runtime::stream_buffer<std::byte> owned;
  Key* const scratch = api::provide_scratch(p, d_keys, opt, owned, caller.c_str());
  api::run(p, d_keys, scratch, opt);
}

template <class Key>
std::size_t batched_workspace_bytes(std::size_t num_arrays, std::size_t array_size,
                                    const options& opt) {
  const std::string caller = "bitonic::batched_workspace_bytes";
  api::validate(opt, caller.c_str());
  api::batch_keys(num_arrays, array_size, caller.c_str());
  if (!gpu_available()) throw error(caller + ": no CUDA device");
  if (num_arrays == 0 || array_size < 2) return 0;
  const plan::plan p = api::batched_plan<Key>(num_arrays, array_size, opt, caller);
  if constexpr (std::is_floating_point_v<Key>) {
    if (opt.stable) {
      return api::stable_sort_workspace_bytes<Key>(num_arrays * array_size, opt, array_size);
    }
  }
  return api::workspace_bytes<Key>(p);
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
void dispatch::merge_on_device(const Key* d_runs, std::size_t a_count, std::size_t n, Key* d_out,
                               void* d_splits, order direction, cudaStream_t stream) {
  namespace merge = kernels::optimized_merge;
  if (a_count > n) throw error("bitonic: internal error: a merge's first run is past its end");
  if (reinterpret_cast<std::uintptr_t>(d_splits) % alignof(network::index_t) != 0) {
    throw error("bitonic: internal error: a merge's splits are not 8-byte aligned");
  }
  api::with_order(direction, [&](auto less) {
    merge::launch_merge<Key>(d_runs, d_out, n, kernels::key_rows{n}, merge::run_pairs::one(a_count),
                             static_cast<network::index_t*>(d_splits), less, stream);
  });
}

template <class Key>
Key* dispatch::merge_sorted_runs(Key* d_keys, Key* d_scratch, void* d_splits, std::size_t n,
                                 unsigned sorted_log2, order direction, cudaStream_t stream) {
  namespace merge = kernels::optimized_merge;
  if (reinterpret_cast<std::uintptr_t>(d_splits) % alignof(network::index_t) != 0) {
    throw error("bitonic: internal error: a merge's splits are not 8-byte aligned");
  }
  Key* in = d_keys;
  Key* out = d_scratch;
  api::with_order(direction, [&](auto less) {
    for (unsigned s = sorted_log2 + 1; s <= network::ceil_log2(n); ++s) {  // as merge_on_device
      merge::launch_merge<Key>(static_cast<const Key*>(in), out, n, kernels::key_rows{n},
                               merge::run_pairs::stage(s), static_cast<network::index_t*>(d_splits),
                               less, stream);
      std::swap(in, out);
    }
  });
  return in;
}

template <class Key>
std::size_t dispatch::merge_split_bytes(std::size_t n) {
  return kernels::optimized_merge::split_count<Key>(n) * sizeof(network::index_t);
}

}  // namespace bitonic

#define BITONIC_INSTANTIATE_SORT(Key)                                                              \
  template void bitonic::sort<Key>(Key*, std::size_t, const bitonic::options&);                    \
  template void bitonic::sort<Key>(const Key*, Key*, std::size_t, const bitonic::options&);        \
  template std::size_t bitonic::workspace_bytes<Key>(std::size_t, const bitonic::options&);        \
  template void bitonic::sort_batched<Key>(Key*, std::size_t, std::size_t,                         \
                                           const bitonic::options&);                               \
  template std::size_t bitonic::batched_workspace_bytes<Key>(std::size_t, std::size_t,             \
                                                             const bitonic::options&);             \
  template void bitonic::dispatch::merge_on_device<Key>(                                           \
      const Key*, std::size_t, std::size_t, Key*, void*, bitonic::order, cudaStream_t);            \
  template std::size_t bitonic::dispatch::merge_split_bytes<Key>(std::size_t);                     \
  template Key* bitonic::dispatch::merge_sorted_runs<Key>(Key*, Key*, void*, std::size_t,          \
                                                          unsigned, bitonic::order, cudaStream_t); \
  template void bitonic::dispatch::sort_sorted_blocks<Key>(Key*, std::size_t, unsigned,            \
                                                           const bitonic::options&);
