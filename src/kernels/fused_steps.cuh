// V1 (seeds 000 and 003): every run of consecutive steps whose comparators stay inside blocks of
// 2 * block_threads keys runs in one launch, each thread one comparator per step and a
// __syncthreads() between steps. The keys stay in global memory (the L1 cache catches part of the
// re-reads); what it saves over V0 is launches and, for the short steps, passes over DRAM.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/cuda_helpers.hpp"
#include "kernels/launch.cuh"
#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::kernels {

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::fused_steps::block_threads)
    fused_steps_kernel(Key* keys, network::index_t n, network::step first, network::step last,
                       Less less) {
  constexpr unsigned threads = tuning::fused_steps::block_threads;
  const network::index_t blocks = (n + (2 * threads) - 1) / (2 * threads);
  for (network::index_t block = blockIdx.x; block < blocks; block += gridDim.x) {
    // Comparator numbers of one block stay inside the block's keys for steps of span <= 2*threads.
    const network::index_t c = block * threads + threadIdx.x;
    for (network::step st = first;; st = st.next()) {
      const network::index_t lo = st.lower_index(c), hi = st.upper_index(lo);
      if (hi < n) network::compare_exchange(keys[lo], keys[hi], less);
      __syncthreads();
      if (st == last) break;
    }
  }
}

template <class Key, class Less>
void launch_fused_steps(Key* keys, network::index_t n, network::step first, network::step last,
                        Less less, cudaStream_t stream) {
  constexpr unsigned threads = tuning::fused_steps::block_threads;
  launch_plain(fused_steps_kernel<Key, Less>, grid_blocks(n, 2 * threads), threads, stream,
               "fused_steps_kernel launch", keys, n, first, last, less);
}

}  // namespace bitonic::kernels
