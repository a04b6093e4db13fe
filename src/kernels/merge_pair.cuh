// Merge of two sorted device arrays into a third, one thread per key: a key's place is its index
// in its own array plus the number of keys of the other array that go before it
// (merge::keys_before). sort_host uses it to merge runs that were sorted separately because
// together they do not fit the device.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/cuda_helpers.hpp"
#include "kernels/launch.cuh"
#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::kernels {

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::block_merge::block_threads)
    merge_pair_kernel(const Key* a, network::index_t a_count, const Key* b,
                      network::index_t b_count, Key* out, Less less) {
  const network::index_t stride = network::index_t{gridDim.x} * blockDim.x;
  for (network::index_t i = network::index_t{blockIdx.x} * blockDim.x + threadIdx.x;
       i < a_count + b_count; i += stride) {
    if (i < a_count) {
      out[i + merge::keys_before(b, b_count, a[i], true, less)] = a[i];
    } else {
      const network::index_t j = i - a_count;
      out[j + merge::keys_before(a, a_count, b[j], false, less)] = b[j];
    }
  }
}

template <class Key, class Less>
void launch_merge_pair(const Key* a, network::index_t a_count, const Key* b,
                       network::index_t b_count, Key* out, Less less, cudaStream_t stream) {
  constexpr unsigned threads = tuning::block_merge::block_threads;
  launch_plain(merge_pair_kernel<Key, Less>, grid_blocks(a_count + b_count, threads), threads,
               stream, "merge_pair_kernel launch", a, a_count, b, b_count, out, less);
}

}  // namespace bitonic::kernels
