// Top-k, first form: the k first records of each array after a stable batched argsort. The argsort
// (records.cuh) leaves, per array, record words sorted by key and then position; this kernel reads
// the first k of each array's words and writes the keys they point to (gathered as bits, so the
// caller gets its keys back exactly) and their positions within the array. It touches only the k
// outputs of each array, so the cost of top-k is the argsort's; a select network that sorts only
// what can still reach the top k is the next step (issue 21).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/launch.cuh"
#include "kernels/records.cuh"
#include "network/network.hpp"

namespace bitonic::kernels::topk {

using network::index_t;

//! Threads of a block (grid-stride loop, one output a thread a round).
inline constexpr unsigned block_threads = 256;

//! For output i = r * k + j (array r, rank j < k): p = the position (counted over all arrays, from
//! `keys`) of the record word at r * n + j after the sort; out_keys[i] = keys[p] and
//! out_indices[i] = p - r * n, each unless its array is null.
template <class Bits, class Index>
__global__ void __launch_bounds__(block_threads)
    take_first_kernel(const std::uint64_t* words, const std::uint32_t* through, const Bits* keys,
                      Bits* out_keys, Index* out_indices, index_t arrays, index_t n, index_t k) {
  const index_t outputs = arrays * k;
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < outputs;
       i += index_t{gridDim.x} * block_threads) {
    const index_t array = i / k;
    const index_t array_begin = array * n;
    const index_t p = records::sorted_position(words, through, array_begin + (i - array * k));
    if (out_keys != nullptr) out_keys[i] = keys[p];
    if (out_indices != nullptr) out_indices[i] = Index(p - array_begin);
  }
}

//! Enqueues take_first_kernel on `stream` (only loads it under a load_only_scope).
template <class Bits, class Index>
void launch_take_first(const std::uint64_t* words, const std::uint32_t* through, const Bits* keys,
                       Bits* out_keys, Index* out_indices, index_t arrays, index_t n, index_t k,
                       cudaStream_t stream) {
  launch_plain(take_first_kernel<Bits, Index>, grid_blocks(arrays * k, block_threads),
               block_threads, stream, "topk take_first_kernel launch", words, through, keys,
               out_keys, out_indices, arrays, n, k);
}

}  // namespace bitonic::kernels::topk
