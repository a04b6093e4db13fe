// bitonic::sort on the GPU: check the arguments, plan, allocate scratch if the plan needs it, and
// enqueue the passes. Instantiated once per key type (sort_<type>.cu) to spread compile time.
#pragma once

#include "api/options.hpp"
#include "bitonic/bitonic.hpp"
#include "dispatch/run_plan.cuh"
#include "host/device.hpp"
#include "plan/plan.hpp"

namespace bitonic {

template <class Key>
void sort(Key* d_keys, std::size_t n, const options& opt) {
  constexpr const char* caller = "bitonic::sort";
  api::validate(opt, caller);
  host::require_device_range(d_keys, n, sizeof(Key), alignof(Key), caller);
  if (n < 2) return;
  const plan::plan p =
      plan::make_plan(api::concrete_algorithm(opt, n, sizeof(Key)), n, sizeof(Key));
  dispatch::stream_buffer<Key> scratch;
  if (p.needs_scratch) {
    if (const cudaError_t status = scratch.allocate(n, opt.stream); status != cudaSuccess) {
      cudaGetLastError();  // an allocation failure is not sticky; clear it
      host::throw_cuda_error(status, "bitonic::sort: block_merge scratch cudaMallocAsync");
    }
  }
  api::with_order(opt.direction, [&](auto less) {
    dispatch::run_plan(p, d_keys, scratch.get(), less, opt.stream);
  });
}

}  // namespace bitonic

#define BITONIC_INSTANTIATE_SORT(Key) \
  template void bitonic::sort<Key>(Key*, std::size_t, const bitonic::options&);
