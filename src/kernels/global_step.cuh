// V0 (seeds 000 and 003): one kernel launch per network step, one comparator per thread, straight
// from global memory. Every step reads and writes all keys once, so a sort of 2^k keys makes
// k(k+1)/2 passes over memory; it is the baseline the other variants are measured against, and
// the long-distance steps of V1 and V2 use it too.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/cuda_helpers.hpp"
#include "kernels/launch.cuh"
#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::kernels {

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::global_step::block_threads)
    global_step_kernel(Key* keys, network::index_t n, network::step st,
                       network::index_t comparators, Less less) {
  const network::index_t stride = network::index_t{gridDim.x} * blockDim.x;
  for (network::index_t c = network::index_t{blockIdx.x} * blockDim.x + threadIdx.x;
       c < comparators; c += stride) {
    const network::index_t lo = st.lower_index(c), hi = st.upper_index(lo);
    if (hi < n) network::compare_exchange(keys[lo], keys[hi], less);
  }
}

template <class Key, class Less>
void launch_global_step(Key* keys, network::index_t n, network::step st, Less less,
                        cudaStream_t stream) {
  constexpr unsigned threads = tuning::global_step::block_threads;
  const network::index_t comparators = st.comparators_below(n);
  launch_plain(global_step_kernel<Key, Less>, grid_blocks(comparators, threads), threads, stream,
               "global_step_kernel launch", keys, n, st, comparators, less);
}

}  // namespace bitonic::kernels
