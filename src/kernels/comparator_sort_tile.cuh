// First pass under a caller's order (bitonic.cuh): sorts every tile of 2^tile_log2 keys, 32 a
// thread in registers (register_tile.cuh), as optimized_sort_tile does for the library's own key
// types, but in the network's flip form, where every comparator is ascending: the word path's
// direction codes (a key XORed with all ones where its block descends) mean nothing for a
// caller's keys. Stages 1..5 lie in each thread's registers (the flip is a register step). From
// stage 6 on, the stage's flip is folded into the exchange that brings its top bit into the
// registers: it reads the upper half of every block of 2^s keys back to front
// (register_tile::exchange_mirrored), after which the stage is the plain steps s-1..0 of a bitonic
// merge. That is as many exchanges as the word path's first pass. The stages run as a loop, each
// layout's steps compiled once (unrolled, 8-byte first passes overflowed the instruction cache,
// docs/PERFORMANCE.md log 32). A partial tile is padded with its greatest key (greatest_pad.cuh).
// On a split's buckets (key_rows) it sorts each bucket's tiles as the word path's first pass does,
// and moves an equality bucket's (equivalent keys) without sorting them.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/greatest_pad.cuh"
#include "kernels/launch.cuh"
#include "kernels/register_network.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::comparator_sort_tile {

using network::index_t;

template <class Key>
using tile_type = register_tile<Key>;

//! Sorts the tile held in the low layout, ascending; ends in the low layout.
template <class Tile, class Less>
__device__ void sort_tile(Tile& tile, Less less) {
  using lay = layout;
  constexpr unsigned high = Tile::template base<lay::registers_high>;
  static_assert(high >= 5 && high <= 10, "the mid layout holds the bits between low and high");
  register_stages<5>(tile.r, less);  // tile-index bits 0..4 are register bits in the low layout
#pragma unroll 1
  for (unsigned s = 6; s <= Tile::tile_log2; ++s) {
    if (s > 10) {  // bits 10 and up are warp bits in the low and mid layouts
      tile.template exchange_mirrored<lay::registers_low, lay::registers_high>(s - 1);
      tile.template steps_from_register_bit<lay::registers_high>(s - 1 - high, less);
      tile.template exchange<lay::registers_high, lay::registers_mid>();
      tile.template steps_from_register_bit<lay::registers_mid>(high - 1 - 5, less);
    } else {
      tile.template exchange_mirrored<lay::registers_low, lay::registers_mid>(s - 1);
      tile.template steps_from_register_bit<lay::registers_mid>(s - 1 - 5, less);
    }
    tile.template exchange<lay::registers_mid, lay::registers_low>();
    tile.template steps_from_register_bit<lay::registers_low>(4, less);
  }
}

template <class Key, class In, class Out, class Less>
__global__ void __launch_bounds__(tile_type<Key>::threads,
                                  tuning::optimized<sizeof(Key)>::tile_min_blocks)
    sort_tiles_kernel(const In* in, Out* keys, index_t n, key_rows rows, Less less) {
  static_assert(is_caller_order_v<Less>, "the library's own orders take optimized_sort_tile");
  static_assert(std::is_same_v<Key, typename ordered_word<Key>::type>,
                "a caller's key (caller_key) is its own word: nothing to encode or decode");
  using Tile = tile_type<Key>;
  using lay = layout;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  Tile tile;
  tile.smem = reinterpret_cast<typename Tile::W*>(smem_bytes);
  wait_for_previous_pass();
  for_each_row_tile<Tile::keys>(
      n, rows, [&](index_t base, unsigned tile_n, auto full, const key_rows::span& row) {
        constexpr bool Full = decltype(full)::value;
        // A split's bucket (key_rows::bucket_step) is sorted in place where its merges are odd
        // in number.
        Out* const out =
            rows.step_of(row).to_destination ? keys : reinterpret_cast<Out*>(const_cast<In*>(in));
        if (row.equal) {  // equivalent keys: sorted as they lie, moved at most
          if (out == in) return;
          tile.template load<lay::registers_mid, Full>(in + base, tile_n, less);
          tile.template store<lay::registers_mid, Full>(out + base, tile_n);
          return;
        }
        tile.template load<lay::registers_mid, Full>(in + base, tile_n, less);
        unsigned stored = tile_n;
        if constexpr (!Full) {
          stored -= pad_with_greatest<Key, lay::registers_mid>(
              tile, [&](unsigned i) { return i < tile_n; }, out + base, tile_n, less);
        }
        tile.template exchange<lay::registers_mid, lay::registers_low>();
        sort_tile(tile, less);
        tile.template exchange<lay::registers_low, lay::registers_mid>();
        tile.template store<lay::registers_mid, Full>(out + base, stored);
      });
}

//! Sorts every tile of the n positions of `rows` (launch.cuh; key_rows{n}: in[0, n), the last
//! tile of a row may be partial) under `less`, a caller_order, into the same place of `keys`,
//! which may be `in`; a split's bucket in place where its bucket_step says so.
template <class Key, class In, class Out, class Less>
void launch(const In* in, Out* keys, index_t n, key_rows rows, Less less, cudaStream_t stream) {
  launch_on_tiles<tile_type<Key>, sort_tiles_kernel<Key, In, Out, Less>>(
      n, stream, "cudaFuncSetAttribute(comparator sort_tiles_kernel shared memory)",
      "comparator sort_tiles_kernel launch", in, keys, n, rows, less);
}

}  // namespace bitonic::kernels::comparator_sort_tile
