// 1- and 2-byte keys: the small kernels around the 4-byte key sort (and, for a stable sort of
// __half or __nv_bfloat16, the 8-byte one) that the network needs no copy of its kernels for. widen
// writes each key's word (network/small_key_order.hpp) into the scratch, narrow writes the sorted
// words' keys back over the keys. One kernel of each per key type and word size. Their record
// sorts (api/small_records.cu) widen to class words and gather by the indices of an argsort.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/launch.cuh"
#include "network/network.hpp"
#include "network/small_key_order.hpp"

namespace bitonic::kernels::small_keys {

using network::index_t;

//! Threads of a block of every kernel here (grid-stride loops, one key a thread a round).
inline constexpr unsigned block_threads = 256;

//! words[i] = the word of keys[i]: small_word (small_class_word where `by_class`) for 32-bit
//! words, stable_half_word (position i, complemented class when `descending`) for 64-bit words.
template <class Key, class Word>
__global__ void __launch_bounds__(block_threads)
    widen_kernel(const Key* keys, Word* words, index_t n, bool descending, bool by_class) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    if constexpr (std::is_same_v<Word, std::uint32_t>) {
      words[i] = by_class ? small_class_word(keys[i]) : small_word(keys[i]);
    } else {
      words[i] = stable_half_word(keys[i], i, descending);
    }
  }
}

//! keys[i] = the key of words[i], the inverse of widen_kernel's map.
template <class Key, class Word>
__global__ void __launch_bounds__(block_threads)
    narrow_kernel(const Word* words, Key* keys, index_t n) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    if constexpr (std::is_same_v<Word, std::uint32_t>) {
      keys[i] = from_small_word<Key>(words[i]);
    } else {
      keys[i] = from_stable_half_word<Key>(words[i]);
    }
  }
}

//! out[i] = in[order[i]]: keys or values moved as Bits through an argsort's indices.
template <class Bits, class Index>
__global__ void __launch_bounds__(block_threads)
    gather_kernel(const Index* order, const Bits* in, Bits* out, index_t n) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    out[i] = in[order[i]];
  }
}

//! Enqueues widen_kernel on `stream` (only loads it under a load_only_scope).
template <class Key, class Word>
void launch_widen(const Key* keys, Word* words, index_t n, bool descending, cudaStream_t stream,
                  bool by_class = false) {
  launch_plain(widen_kernel<Key, Word>, grid_blocks(n, block_threads), block_threads, stream,
               "small keys widen_kernel launch", keys, words, n, descending, by_class);
}

//! Enqueues gather_kernel on `stream` (only loads it under a load_only_scope).
template <class Bits, class Index>
void launch_gather(const Index* order, const Bits* in, Bits* out, index_t n, cudaStream_t stream) {
  launch_plain(gather_kernel<Bits, Index>, grid_blocks(n, block_threads), block_threads, stream,
               "small keys gather_kernel launch", order, in, out, n);
}

//! Enqueues narrow_kernel on `stream` (only loads it under a load_only_scope).
template <class Key, class Word>
void launch_narrow(const Word* words, Key* keys, index_t n, cudaStream_t stream) {
  launch_plain(narrow_kernel<Key, Word>, grid_blocks(n, block_threads), block_threads, stream,
               "small keys narrow_kernel launch", words, keys, n);
}

}  // namespace bitonic::kernels::small_keys
