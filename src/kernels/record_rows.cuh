// Record rows (sort_batched_pairs, argsort_batched and the argsorts that also write the sorted
// keys, for 4-byte keys): each row of records sorted in one pass by sort_rows' kernel, on the
// 8-byte record words of records.cuh made as the tile loads and taken apart as it stores. The high
// half is the key's word (its class word where equal keys must keep their order), the low half
// the value, or the key's column in its row for an argsort (so equal words keep their columns'
// order: a stable argsort). Why it is fast: records.cu's general path makes the words in one pass,
// sorts them, and unpacks or gathers them in others; rows of up to a tile of words need one read
// and one write of the records, the time of an 8-byte key sort of the same rows; rows just past a
// power of two take sort_row_tails.cuh's head and tail, as keys do.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/sort_row_tails.cuh"
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
  bool keys_gathered;  //!< keys_out of zeros and NaNs from keys_in through the columns (their
                       //!< class words do not decode; keys_in apart from keys_out)
  rows::word_codec<std::uint32_t> codec;

  //! The record word of a key's bits and its low half.
  __device__ std::uint64_t word_of(std::uint32_t bits, std::uint32_t low) const {
    const std::uint32_t word = by_class ? codec.encode_class(bits) : codec.encode(bits);
    return (std::uint64_t{word} << 32) | low;
  }

  __device__ std::uint64_t load(index_t at, index_t column) const {
    return word_of(keys_in[at], values_in != nullptr ? values_in[at] : std::uint32_t(column));
  }

  __device__ void store(index_t at, index_t row_start, std::uint64_t word) const {
    const std::uint32_t low = std::uint32_t(word);
    if (keys_out != nullptr) {
      // A class word decodes to its key but for the zeros' and NaNs' (several bit patterns):
      // those are read at their columns.
      const std::uint32_t high = std::uint32_t(word >> 32);
      keys_out[at] = keys_gathered && codec.class_of_several(high) ? keys_in[row_start + low]
                                                                   : codec.decode(high);
    }
    if (wide_second) {
      static_cast<std::uint64_t*>(second_out)[at] = low;
    } else {
      static_cast<std::uint32_t*>(second_out)[at] = low;
    }
  }
};

//! A tail's records again, as sort_row_tails' tails pass stored them (sorted, in the outputs):
//! the same words as record_rows::load made of them. The key is the stored key, or for an argsort
//! without one the key at its column (the keys are not written then).
struct sorted_tails {
  record_rows rows;

  __device__ std::uint64_t load(index_t at, index_t column) const {
    const std::uint32_t low =
        rows.wide_second ? std::uint32_t(static_cast<const std::uint64_t*>(rows.second_out)[at])
                         : static_cast<const std::uint32_t*>(rows.second_out)[at];
    return rows.word_of(
        rows.keys_out != nullptr ? rows.keys_out[at] : rows.keys_in[at - column + low], low);
  }
};

//! Sorts each of `count` rows of `length` records (2 <= length <= a tile of 8-byte words) that
//! `rows` describes, on `stream` (only loads the kernels under a load_only_scope): rows just past
//! a power of two as a head and a tail (sort_row_tails.cuh), the others on the register tile.
inline void launch(const record_rows& rows, index_t count, index_t length, cudaStream_t stream) {
  if (sort_row_tails::takes_records(length)) {
    sort_row_tails::launch<std::uint64_t>(rows, sorted_tails{rows}, count, length, stream);
  } else {
    sort_rows::launch_tile<std::uint64_t>(rows, count, length, stream);
  }
}

}  // namespace bitonic::kernels::record_rows
