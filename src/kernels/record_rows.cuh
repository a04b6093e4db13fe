// Record rows (sort_batched_pairs, argsort_batched and the argsorts that also write the sorted
// keys, for 4-byte keys): each row of records sorted in one pass by sort_rows' kernel, on the
// 8-byte record words of records.cuh made as the tile loads and taken apart as it stores. The high
// half is the key's word (its class word where equal keys must keep their order), the low half
// the value, or the key's column in its row for an argsort (so equal words keep their columns'
// order: a stable argsort). Why it is fast: records.cu's general path makes the words in one pass,
// sorts them, and unpacks or gathers them in others; rows of up to a tile of words need one read
// and one write of the records, the time of an 8-byte key sort of the same rows.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sort_rows.cuh"
#include "kernels/word_codec.cuh"
#include "network/network.hpp"

namespace bitonic::kernels::record_rows {

using network::index_t;

//! The arrays of one record-row sort and how its words are made (sort_rows.cuh's Rows).
struct record_rows {
  const std::uint32_t* keys_in;    //!< the keys' bits
  std::uint32_t* keys_out;         //!< the sorted keys (may be keys_in); null: none
  const std::uint32_t* values_in;  //!< values beside the keys; null: each key's column
  void* second_out;                //!< the values (4 bytes, may be values_in) or the columns
  bool wide_second;                //!< columns written as 8-byte indices
  bool by_class;                   //!< class words: equal keys keep their columns' order
  bool keys_gathered;  //!< keys_out from keys_in through the columns (class words of floats do
                       //!< not decode; keys_in apart from keys_out)
  rows::word_codec<std::uint32_t> codec;

  __device__ std::uint64_t load(index_t at, index_t column) const {
    const std::uint32_t bits = keys_in[at];
    const std::uint32_t word = by_class ? codec.encode_class(bits) : codec.encode(bits);
    const std::uint32_t low = values_in != nullptr ? values_in[at] : std::uint32_t(column);
    return (std::uint64_t{word} << 32) | low;
  }

  __device__ void store(index_t at, index_t row_start, std::uint64_t word) const {
    const std::uint32_t low = std::uint32_t(word);
    if (keys_out != nullptr) {
      keys_out[at] =
          keys_gathered ? keys_in[row_start + low] : codec.decode(std::uint32_t(word >> 32));
    }
    if (wide_second) {
      static_cast<std::uint64_t*>(second_out)[at] = low;
    } else {
      static_cast<std::uint32_t*>(second_out)[at] = low;
    }
  }
};

//! Sorts each of `count` rows of `length` records (2 <= length <= a tile of 8-byte words) that
//! `rows` describes, on `stream` (only loads the kernel under a load_only_scope).
inline void launch(const record_rows& rows, index_t count, index_t length, cudaStream_t stream) {
  sort_rows::launch_tile<std::uint64_t>(rows, count, length, stream);
}

}  // namespace bitonic::kernels::record_rows
