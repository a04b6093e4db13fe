// block_merge (seed 001): tiles are sorted in shared memory by the V2 tile kernel, then sorted runs
// are merged pairwise, one thread per key: a key's place in the merged run is its rank in its own
// run plus a binary search in the partner run (merge::destination). Each merge pass reads and
// writes every key once and ping-pongs between the keys and a scratch buffer of n keys, so a sort
// of 2^k keys takes one tile pass plus k - tile_log2 merge passes instead of the network's
// quadratic number of global steps, at the price of O(n) extra memory.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/cuda_helpers.hpp"
#include "kernels/launch.cuh"
#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::kernels {

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::block_merge::block_threads)
    merge_runs_kernel(const Key* in, Key* out, network::index_t n, unsigned run_log2, Less less) {
  const network::index_t stride = network::index_t{gridDim.x} * blockDim.x;
  for (network::index_t i = network::index_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[merge::destination(in, n, i, run_log2, less)] = in[i];
  }
}

template <class Key, class Less>
void launch_merge_runs(const Key* in, Key* out, network::index_t n, unsigned run_log2, Less less,
                       cudaStream_t stream) {
  constexpr unsigned threads = tuning::block_merge::block_threads;
  launch_plain(merge_runs_kernel<Key, Less>, grid_blocks(n, threads), threads, stream,
               "merge_runs_kernel launch", in, out, n, run_log2, less);
}

}  // namespace bitonic::kernels
