// The batched plans' kernels (sort_rows.cuh, record_rows.cuh) as plain functions of
// the key size: compiled once, in rows.cu, instead of in every key type's sort, because they only
// move bits.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "bitonic/bitonic.hpp"

namespace bitonic::kernels::rows {

//! How a key's bits become its unsigned word (key_order.hpp's unsigned_word) and back, known at run
//! time so that keys of one size share a kernel: integers as they are or with the sign bit flipped,
//! floats by ordered_word's map.
enum class word_map : unsigned char { unsigned_bits, signed_bits, float_bits };

template <class Key>
constexpr word_map word_map_of() {
  if constexpr (std::is_floating_point_v<Key>) return word_map::float_bits;
  if constexpr (std::is_signed_v<Key>) return word_map::signed_bits;
  return word_map::unsigned_bits;
}

//! Sorts each of `count` rows of `length` keys of `key_bytes` bytes (4 or 8) at `keys`, in
//! `direction` (sort_rows.cuh; 2 <= length <= a tile), on `stream`.
void sort_rows(void* keys, std::size_t key_bytes, std::uint64_t count, std::uint64_t length,
               word_map map, order direction, cudaStream_t stream);

//! The arrays of a sort of rows of records with 4-byte keys (record_rows.cuh): the keys' bits with
//! 4-byte values beside them (values_in, sorted into second_out) or, where values_in is null, with
//! their columns (written to second_out as indices of second_bytes, 4 or 8). keys_out (null: none)
//! gets the sorted keys; by_class makes equal keys keep their columns' order (values_in null),
//! and keys_gathered reads the zeros' and NaNs' sorted keys from keys_in through the columns
//! (floats' class words of several bit patterns, which do not decode; keys_in apart from
//! keys_out).
struct record_arrays {
  const void* keys_in = nullptr;
  void* keys_out = nullptr;
  const void* values_in = nullptr;
  void* second_out = nullptr;
  std::size_t second_bytes = 4;
  bool by_class = false;
  bool keys_gathered = false;
};

//! Sorts each of `count` rows of `length` records (2 <= length <= a tile of 8-byte words) of `a`,
//! keys mapped by `map`, in `direction`, in one pass (record_rows.cuh), on `stream`.
void sort_record_rows(const record_arrays& a, std::uint64_t count, std::uint64_t length,
                      word_map map, order direction, cudaStream_t stream);

}  // namespace bitonic::kernels::rows
