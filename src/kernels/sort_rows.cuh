// sort_rows (sort_batched): many independent rows of at most a tile each, every row sorted in one
// launch. A register tile (register_tile.cuh) holds 2^(tile_log2 - row_log2) rows, each padded to
// 2^row_log2 keys with the greatest word, and runs the first pass's stages
// (optimized_sort_tile::stages) only up to stage row_log2, whose blocks, the rows, all end
// ascending. Why it is fast: each key is read and written once, the network runs in registers with
// the first pass's code, and short rows pay only for their own few stages (rows of 32: stages 1..5,
// all on register bits). Keys are sorted as unsigned words of their size (key_order.hpp's
// unsigned_word, complemented when descending), so there is one kernel per key size, not one per
// key type and order.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
#include "kernels/optimized_sort_tile.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/rows.hpp"
#include "kernels/tuning.hpp"
#include "kernels/word_codec.cuh"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::sort_rows {

using network::index_t;
using rows::word_codec;

//! count x length elements as words of W's size, row r at elements [r * stride + offset, r *
//! stride + offset + length) (stride = length, offset 0: rows one after the other; else a part of
//! longer rows, sort_row_tails.cuh): one tile sorts tile_keys >> row_log2 consecutive rows, padded
//! to 2^row_log2 = the smallest power of two that holds a row.
struct row_shape {
  index_t count, length;
  unsigned row_log2;
  index_t stride, offset;

  __device__ index_t start(index_t row) const { return row * stride + offset; }
  //! Where the whole row that holds `row`'s elements starts (its elements' columns count from
  //! there: offset + their column in this part).
  __device__ index_t whole_start(index_t row) const { return row * stride; }
  //! The tiles of 2^tile_log2 positions that hold the rows, 2^(tile_log2 - row_log2) a tile.
  __host__ __device__ index_t tiles(unsigned tile_log2) const {
    return ((count - 1) >> (tile_log2 - row_log2)) + 1;
  }
};

//! Keys as the rows' words, in place: loaded encoded by the codec, stored decoded. Another Rows
//! type (record_rows.cuh) makes its words from several arrays; every one has load(at, column) and
//! store(at, row_start, word) for the element at `at`, `column` of its (whole) row, the row
//! starting at `row_start`.
template <class W>
struct key_rows {
  W* keys;
  word_codec<W> codec;

  __device__ W load(index_t at, index_t) const { return codec.encode(keys[at]); }
  __device__ void store(index_t at, index_t, W word) const { keys[at] = codec.decode(word); }
};

template <class W>
using tile_of = register_tile<W, tuning::optimized<sizeof(W)>::tile_log2>;

//! Loads the tile of rows from `first_row` on (each padded to 2^row_log2 with the greatest word,
//! the rows past the last all pads) and sorts each row ascending, on the register tile; ends in
//! the mid layout, every register's word at its tile index (row i >> row_log2, its column the
//! low bits), after refresh_thread.
template <class Tile, class Rows>
__device__ void load_sorted_rows(Tile& tile, const row_shape& in, const Rows& rows,
                                 index_t first_row) {
  using W = typename Tile::W;
  using lay = layout;
  const unsigned row_log2 = in.row_log2;
  tile.refresh_thread();
  // Mid layout: a warp's lanes read consecutive keys of a row.
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    const unsigned i = tile.template index<lay::registers_mid>(m);
    const index_t row = first_row + (i >> row_log2), column = i & ((1u << row_log2) - 1);
    tile.r[m] = row < in.count && column < in.length
                    ? rows.load(in.start(row) + column, in.offset + column)
                    : W(~W(0));  // pads: the greatest word, behind every key of the row
  }
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    tile.r[m] ^= optimized_sort_tile::stage_code<1, lay::registers_mid>(tile, m, row_log2);
  tile.template exchange<lay::registers_mid, lay::registers_low>();
  optimized_sort_tile::stages<1, Tile::tile_log2>(tile, ascending_less{}, row_log2);
  tile.template exchange<lay::registers_low, lay::registers_mid>();
  tile.refresh_thread();
}

template <class W, class Rows>
__global__ void __launch_bounds__(tile_of<W>::threads,
                                  tuning::optimized<sizeof(W)>::tile_min_blocks)
    sort_rows_kernel(row_shape in, Rows rows) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using Tile = tile_of<W>;
  using lay = layout;
  Tile tile;
  tile.smem = reinterpret_cast<W*>(smem_bytes);
  const unsigned row_log2 = in.row_log2, rows_log2 = Tile::tile_log2 - row_log2;
  const index_t tiles = in.tiles(Tile::tile_log2);
  wait_for_previous_pass();
  for (index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const index_t first_row = t << rows_log2;
    load_sorted_rows(tile, in, rows, first_row);
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m) {
      const unsigned i = tile.template index<lay::registers_mid>(m);
      const index_t row = first_row + (i >> row_log2), column = i & ((1u << row_log2) - 1);
      if (row < in.count && column < in.length) {
        rows.store(in.start(row) + column, in.whole_start(row), tile.r[m]);
      }
    }
  }
}

//! Sorts each of `count` rows of `length` elements (2 <= length <= a tile of W) that `rows` loads
//! and stores as words of W on the register tile, on `stream` (only loads the kernel under a
//! load_only_scope); row r's elements start at r * stride + offset (stride 0: `length`).
template <class W, class Rows>
void launch_tile(const Rows& rows, index_t count, index_t length, cudaStream_t stream,
                 index_t stride = 0, index_t offset = 0) {
  using Tile = tile_of<W>;
  const unsigned row_log2 = network::ceil_log2(length);
  if (count == 0 || row_log2 == 0 || row_log2 > Tile::tile_log2) {
    throw error(
        "bitonic: internal error: sort_rows of no rows, or rows longer than a tile or "
        "shorter than 2");
  }
  constexpr auto kernel = sort_rows_kernel<W, Rows>;
  allow_dynamic_shared_memory<kernel>(Tile::smem_bytes,
                                      "cudaFuncSetAttribute(sort_rows_kernel shared memory)");
  const row_shape shape{count, length, row_log2, stride == 0 ? length : stride, offset};
  launch_chained(kernel, grid_blocks(shape.tiles(Tile::tile_log2), 1), Tile::threads,
                 Tile::smem_bytes, stream, "sort_rows_kernel launch", shape, rows);
}

}  // namespace bitonic::kernels::sort_rows
