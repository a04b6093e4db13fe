// 1- and 2-byte keys: the small kernels around the 4-byte key sort (and, for a stable sort of
// __half or __nv_bfloat16, the 8-byte one) that the network needs no copy of its kernels for. widen
// writes each key's word (network/small_key_order.hpp) into the scratch, narrow writes the sorted
// words' keys back over the keys. One kernel of each per key type and word size. Their record
// sorts (api/small_records.cpp) widen to class words and gather by the indices of an argsort.
// Included only by kernels/small_keys.cu, which compiles them once (kernels/small_keys.hpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/launch.cuh"
#include "kernels/small_keys.hpp"
#include "network/network.hpp"
#include "network/small_key_order.hpp"

namespace bitonic::kernels::small_keys {

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

//! out[i] = in[(i / out_row) * in_row + order[i]] (out_row 0: one row): kernels/small_keys.hpp.
template <class Bits, class Index>
__global__ void __launch_bounds__(block_threads)
    gather_kernel(const Index* order, const Bits* in, Bits* out, index_t n, index_t out_row,
                  index_t in_row) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    const index_t row_start = out_row == 0 ? 0 : i / out_row * in_row;
    out[i] = in[row_start + order[i]];
  }
}

template <class Key, class Word>
void widen(const Key* keys, Word* words, index_t n, bool descending, bool by_class,
           cudaStream_t stream) {
  launch_plain(widen_kernel<Key, Word>, grid_blocks(n, block_threads), block_threads, stream,
               "small keys widen_kernel launch", keys, words, n, descending, by_class);
}

template <class Key, class Word>
void narrow(const Word* words, Key* keys, index_t n, cudaStream_t stream) {
  launch_plain(narrow_kernel<Key, Word>, grid_blocks(n, block_threads), block_threads, stream,
               "small keys narrow_kernel launch", words, keys, n);
}

template <class Bits, class Index>
void gather(const Index* order, const Bits* in, Bits* out, index_t n, index_t out_row,
            index_t in_row, cudaStream_t stream) {
  launch_plain(gather_kernel<Bits, Index>, grid_blocks(n, block_threads), block_threads, stream,
               "small keys gather_kernel launch", order, in, out, n, out_row, in_row);
}

template <class Key, class Word>
void load_words() {
  const load_only_scope loading;
  widen<Key, Word>(nullptr, nullptr, 0, false, false, nullptr);
  narrow<Key, Word>(nullptr, nullptr, 0, nullptr);
}

template <class Bits, class Index>
void load_gather() {
  const load_only_scope loading;
  gather<Bits, Index>(nullptr, nullptr, nullptr, 0, 0, 0, nullptr);
}

}  // namespace bitonic::kernels::small_keys
