#include <cstdint>

#include "kernels/record_rows.cuh"
#include "kernels/rows.hpp"
#include "kernels/sort_row_tails.cuh"
#include "kernels/sort_rows.cuh"
#include "kernels/sort_short_rows.cuh"
#include "kernels/sort_staged_rows.cuh"

namespace bitonic::kernels::rows {

namespace {

//! Sorts each of `count` rows of `length` keys (2 <= length <= a tile) of W's size at `keys`,
//! their bits mapped by `map`, in `direction`, on `stream` (only loads the kernels under a
//! load_only_scope): short rows in registers, of 16-128 bytes, a power of two of keys, aligned
//! (sort_short_rows.cuh), else through shared memory where sort_staged_rows::takes them (3 keys
//! to 128 bytes, odd lengths to 256, and 8-byte keys' even lengths but powers of two); rows just
//! past a power of two as a head and a tail (sort_row_tails.cuh); the rest on the register tile.
template <class W>
void sort_words(W* keys, network::index_t count, network::index_t length, word_map map,
                order direction, cudaStream_t stream) {
  const word_codec<W> codec{map, direction == order::descending ? W(~W(0)) : W(0)};
  const kernels::sort_rows::key_rows<W> rows{keys, codec};
  if (length >= 2 && sort_short_rows::takes(keys, length)) {
    sort_short_rows::launch(keys, count, length, codec, stream);
  } else if (sort_staged_rows::takes<W>(length)) {
    sort_staged_rows::launch(keys, count, length, codec, stream);
  } else if (sort_row_tails::takes<W>(length)) {
    sort_row_tails::launch<W>(rows, rows, count, length, stream);
  } else {
    kernels::sort_rows::launch_tile<W>(rows, count, length, stream);
  }
}

}  // namespace

void sort_rows(void* keys, std::size_t key_bytes, std::uint64_t count, std::uint64_t length,
               word_map map, order direction, cudaStream_t stream) {
  if (key_bytes == 4) {
    sort_words(static_cast<std::uint32_t*>(keys), count, length, map, direction, stream);
  } else {
    sort_words(static_cast<std::uint64_t*>(keys), count, length, map, direction, stream);
  }
}

void sort_record_rows(const record_arrays& a, std::uint64_t count, std::uint64_t length,
                      word_map map, order direction, cudaStream_t stream) {
  const record_rows::record_rows rows{
      static_cast<const std::uint32_t*>(a.keys_in),
      static_cast<std::uint32_t*>(a.keys_out),
      static_cast<const std::uint32_t*>(a.values_in),
      a.second_out,
      a.second_bytes == 8,
      a.by_class,
      a.keys_gathered,
      {map, direction == order::descending ? ~std::uint32_t{0} : std::uint32_t{0}}};
  record_rows::launch(rows, count, length, stream);
}

}  // namespace bitonic::kernels::rows
