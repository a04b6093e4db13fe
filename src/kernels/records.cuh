// Records: the small kernels around the 8-byte key sort that make it an argsort, and through it
// sort_pairs and stable sorts. A key's word goes in the high half of a 64-bit word and its
// position in the low half; sorting those words ascending orders the keys and, among equal words,
// their positions: a stable argsort from an unstable network, at the price of 8 bytes a key. The
// word is the key's class word (key_order.hpp: one per class of equivalent keys) when equivalent
// keys must keep their order, else its unsigned_word, from which the key decodes bit for bit; for
// an unstable sort of 4-byte keys with 4-byte values the value takes the position's place, and
// the sorted words are the records themselves. Words are complemented when descending.
// 8-byte keys do not fit beside a position, so (below tuning::wide_records' counts, from which they
// sort as 16-byte words: record_io.cuh) they take two sorts, least significant half first:
// the second sort's positions are those of the first's output, which keeps the first's order among
// equal high halves. After the sort the low halves are the permutation; gathers through it move
// keys and values as bits (kernels per element size, not per type).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/launch.cuh"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::records {

using network::index_t;

//! Threads of a block of every kernel here (grid-stride loops, one element a thread a round).
inline constexpr unsigned block_threads = 256;

//! Which half of an 8-byte key's word a sort orders by.
enum class half { whole, low, high };

//! How the high half of a record word is made from a key (see the top of this file).
struct word_spec {
  bool by_class = true;     //!< class_word (equivalent keys equal), else unsigned_word
  bool descending = false;  //!< complemented
  half part = half::whole;
};

//! words[i] = word of keys[from[i]] (from: null for i) or its half, as `spec` says, in the high 32
//! bits; low[i] (low: null for i) in the low 32 bits.
template <class Key>
__global__ void __launch_bounds__(block_threads)
    record_words_kernel(const Key* keys, const std::uint32_t* from, const std::uint32_t* low,
                        std::uint64_t* words, index_t n, word_spec spec) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    const Key k = keys[from != nullptr ? from[i] : i];
    auto w = spec.by_class ? class_word(k) : unsigned_word(k);
    if (spec.descending) w = ~w;
    std::uint32_t digit = std::uint32_t(w);
    if constexpr (sizeof(w) == 8) {
      if (spec.part == half::high) digit = std::uint32_t(w >> 32);
    }
    words[i] = (std::uint64_t{digit} << 32) | (low != nullptr ? low[i] : std::uint32_t(i));
  }
}

//! keys[i] = the 4-byte key whose unsigned_word (complemented when `descending`) is the high half
//! of words[i]; low[i] = its low half unless low is null.
template <class Key>
__global__ void __launch_bounds__(block_threads)
    unpack_kernel(const std::uint64_t* words, Key* keys, std::uint32_t* low, index_t n,
                  bool descending) {
  static_assert(sizeof(Key) == 4, "only 4-byte keys fit a record word whole");
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    const std::uint64_t word = words[i];
    std::uint32_t w = std::uint32_t(word >> 32);
    if (descending) w = ~w;
    keys[i] = from_unsigned_word<Key>(w);
    if (low != nullptr) low[i] = std::uint32_t(word);
  }
}

//! The position word i holds after the sort, through `through` when it is not null.
__device__ inline std::uint32_t sorted_position(const std::uint64_t* words,
                                                const std::uint32_t* through, index_t i) {
  const std::uint32_t p = std::uint32_t(words[i]);
  return through != nullptr ? through[p] : p;
}

//! out[i] = sorted_position(i), as Index; modulo `array_size` where that is not 0 (a batched
//! argsort's indices count from the start of each array).
template <class Index>
__global__ void __launch_bounds__(block_threads)
    positions_kernel(const std::uint64_t* words, const std::uint32_t* through, Index* out,
                     index_t n, index_t array_size) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    const index_t position = sorted_position(words, through, i);
    out[i] = Index(array_size != 0 ? position % array_size : position);
  }
}

//! out[i] = in[sorted_position(i)]: keys or values moved as Bits.
template <class Bits>
__global__ void __launch_bounds__(block_threads)
    gather_kernel(const std::uint64_t* words, const std::uint32_t* through, const Bits* in,
                  Bits* out, index_t n) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    out[i] = in[sorted_position(words, through, i)];
  }
}

//! out[i] = in[indices[i]]: keys or values moved as Bits through positions or an argsort's indices
//! (records sorted through record_io leave no words to read the positions from).
template <class Bits, class Index>
__global__ void __launch_bounds__(block_threads)
    gather_by_index_kernel(const Bits* in, const Index* indices, Bits* out, index_t n) {
  for (index_t i = index_t{blockIdx.x} * block_threads + threadIdx.x; i < n;
       i += index_t{gridDim.x} * block_threads) {
    out[i] = in[indices[i]];
  }
}

//! Enqueues record_words_kernel on `stream` (only loads it under a load_only_scope).
template <class Key>
void launch_record_words(const Key* keys, const std::uint32_t* from, const std::uint32_t* low,
                         std::uint64_t* words, index_t n, word_spec spec, cudaStream_t stream) {
  launch_plain(record_words_kernel<Key>, grid_blocks(n, block_threads), block_threads, stream,
               "records record_words_kernel launch", keys, from, low, words, n, spec);
}

//! Enqueues unpack_kernel on `stream` (only loads it under a load_only_scope).
template <class Key>
void launch_unpack(const std::uint64_t* words, Key* keys, std::uint32_t* low, index_t n,
                   bool descending, cudaStream_t stream) {
  launch_plain(unpack_kernel<Key>, grid_blocks(n, block_threads), block_threads, stream,
               "records unpack_kernel launch", words, keys, low, n, descending);
}

//! Enqueues positions_kernel on `stream` (only loads it under a load_only_scope).
template <class Index>
void launch_positions(const std::uint64_t* words, const std::uint32_t* through, Index* out,
                      index_t n, cudaStream_t stream, index_t array_size = 0) {
  launch_plain(positions_kernel<Index>, grid_blocks(n, block_threads), block_threads, stream,
               "records positions_kernel launch", words, through, out, n, array_size);
}

//! Enqueues gather_kernel on `stream` (only loads it under a load_only_scope).
template <class Bits>
void launch_gather(const std::uint64_t* words, const std::uint32_t* through, const Bits* in,
                   Bits* out, index_t n, cudaStream_t stream) {
  launch_plain(gather_kernel<Bits>, grid_blocks(n, block_threads), block_threads, stream,
               "records gather_kernel launch", words, through, in, out, n);
}

//! Enqueues gather_by_index_kernel on `stream` (only loads it under a load_only_scope).
template <class Bits, class Index>
void launch_gather_by_index(const Bits* in, const Index* indices, Bits* out, index_t n,
                            cudaStream_t stream) {
  launch_plain(gather_by_index_kernel<Bits, Index>, grid_blocks(n, block_threads), block_threads,
               stream, "records gather_by_index_kernel launch", in, indices, out, n);
}

}  // namespace bitonic::kernels::records
