// Partial tiles under a caller's order (bitonic.cuh). The optimized kernels pad a partial tile
// with the greatest word, which sorts behind every key; a caller's order has no such key. So a
// partial tile is padded with the greatest key X it holds: the pads then sort among the keys
// equivalent to X, behind all others, and which of those land in the tile's first tile_n
// positions would be arbitrary. The tile's own keys equivalent to X are therefore written straight
// to its last positions (in any order: the sort is not stable, and a stable one breaks every tie),
// and the sorted tile stores only the positions before them. Costs a block reduction and one pass
// over the registers, on one tile a launch.
#pragma once

#include <cuda_runtime.h>

#include <cstring>

#include "kernels/register_tile.cuh"
#include "network/key_order.hpp"

namespace bitonic::kernels {

//! Pads the registers (layout L) of the tile whose index fails `holds` with the greatest key the
//! tile holds, writes the tile's keys equivalent to it to out[tile_n - c, tile_n), and returns c:
//! the caller sorts the tile and stores its first tile_n - c keys. Every thread of the block calls
//! it after loading the tile and before any store (it synchronises the block before writing, so
//! `out` may be where the tile was loaded from); tile_n >= 1.
template <class Key, layout L, class Tile, class Holds, class Out, class Less>
__device__ unsigned pad_with_greatest(Tile& tile, Holds holds, Out* out, unsigned tile_n,
                                      Less less) {
  using W = typename Tile::W;
  constexpr unsigned warps = Tile::threads / 32;
  // Raw bytes: a caller's key may have a default constructor, which __shared__ variables cannot.
  __shared__ alignas(W) unsigned char greatest_bytes[warps * sizeof(W)];
  W* const warp_greatest = reinterpret_cast<W*>(greatest_bytes);
  __shared__ bool warp_holds[warps];
  __shared__ unsigned equivalents;
  bool any = false;
  W greatest = tile.r[0];
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    if (holds(tile.template index<L>(m))) {
      if (!any || less(greatest, tile.r[m])) greatest = tile.r[m];
      any = true;
    }
  }
#pragma unroll
  for (unsigned lanes = 16; lanes != 0; lanes /= 2) {
    const W other = shuffle_xor(greatest, lanes);
    const bool other_any = __shfl_xor_sync(~0u, any, lanes) != 0;
    if (other_any && (!any || less(greatest, other))) greatest = other;
    any = any || other_any;
  }
  if (tile.lane == 0) {
    warp_greatest[tile.warp] = greatest;
    warp_holds[tile.warp] = any;
  }
  if (threadIdx.x == 0) equivalents = 0;
  __syncthreads();
  any = false;
  for (unsigned w = 0; w < warps; ++w) {
    if (warp_holds[w] && (!any || less(greatest, warp_greatest[w]))) greatest = warp_greatest[w];
    any = any || warp_holds[w];
  }
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    if (!holds(tile.template index<L>(m))) {
      tile.r[m] = greatest;
    } else if (!less(tile.r[m], greatest)) {
      out[tile_n - 1 - atomicAdd(&equivalents, 1u)] = stored_of<Key, Out>(tile.r[m]);
    }
  }
  __syncthreads();
  return equivalents;
}

}  // namespace bitonic::kernels
