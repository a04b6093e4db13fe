// optimized, the stages past the tile while a stage's runs fit the tiles the device holds at once:
// each stage in ONE pass over the keys, where the network spends two (its steps wider than a tile
// as gathers, then its tail). Stage s turns neighbouring sorted runs of 2^(s-1) keys into sorted
// runs of 2^s. Its steps wider than a tile only decide which keys of the two runs end up in which
// tile, and a tile of the merged run holds a prefix-to-prefix slice of each run, so a binary
// search (merge path: a warp's 32 probes a round, both ends of the tile at once) finds them. Each
// block owns one tile of output positions, loads the first run's slice ascending and the second's
// descending (a bitonic sequence, greatest words between them) and sorts it with the tail's steps
// 2^(tile_log2-1)..1 in registers (register_tile.cuh). The keys end where the network puts them:
// sorted. In place, a tile's stores overwrite keys that other tiles still have to load, so every
// tile of a merged run is resident at once (a cooperative launch, one block a tile) and grid
// barriers separate a stage's loads from its stores, and its stores from the next stage's
// searches. Blocks of 2^last_stage keys run one after the other, all stages each, while the L2
// holds them.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_tile.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_merge {

using network::index_t;

template <class Key>
using tile_type = register_tile<Key>;

//! Keys of run a among the first d keys of the merge of sorted runs a and b under `less` (a's
//! keys before equal keys of b): merge path, searched by one warp, 32 probes a round; every lane
//! returns it. Ties between equal words need no rule: they are the same bits.
template <class Key, class Less>
__device__ index_t merge_path(const Key* a, index_t a_n, const Key* b, index_t b_n, index_t d,
                              Less less) {
  using word = ordered_word<Key>;
  const unsigned lane = threadIdx.x % 32;
  // a[i] goes before b[d - 1 - i] exactly for the i below the answer, which is in [lo, hi].
  index_t lo = d > b_n ? d - b_n : 0, hi = d < a_n ? d : a_n;
  while (lo < hi) {
    const index_t span = hi - lo, probe = lo + span * lane / 32;  // ascending over the lanes
    const bool before = !less(word::encode(b[d - 1 - probe]), word::encode(a[probe]));
    const unsigned below = __popc(__ballot_sync(~0u, before));  // the lanes below it hold
    const index_t next_lo = below == 0 ? lo : lo + span * (below - 1) / 32 + 1;
    hi = below == 32 ? hi : lo + span * below / 32;
    lo = next_lo;
  }
  return lo;
}

//! Loads a[0, a_n) ascending from the tile's first position and b[0, b_n) descending up to its
//! last, the greatest word between them: a bitonic sequence, in the high layout. Two rounds, the
//! first run's keys (or pads) and then the second's over them, each register's address a
//! constant offset of one pointer, so that the loads of a round are in flight at once.
template <class Key, class Less>
__device__ void load_bitonic(tile_type<Key>& tile, const Key* a, unsigned a_n, const Key* b,
                             unsigned b_n, Less less) {
  using Tile = tile_type<Key>;
  using word = ordered_word<Key>;
  constexpr unsigned row = 1u << Tile::template base<layout::registers_high>;
  tile.refresh_thread();
  const Key* const a_at = a + tile.thread;                     // register m: a_at[m * row]
  const Key* const b_at = b + (Tile::keys - 1 - tile.thread);  // register m: b_at[-m * row]
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    tile.r[m] = tile.thread + m * row < a_n ? word::encode(a_at[m * row]) : Tile::pad(less);
  }
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    if (Tile::keys - 1 - tile.thread - m * row < b_n) {
      tile.r[m] = word::encode(b_at[-std::ptrdiff_t(m * row)]);
    }
  }
}

template <class Key, class Less>
__global__ void __launch_bounds__(tile_type<Key>::threads,
                                  tuning::optimized<sizeof(Key)>::tile_min_blocks)
    merge_kernel(Key* keys, index_t n, unsigned first_stage, unsigned last_stage, Less less) {
  using Tile = tile_type<Key>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  __shared__ index_t slice[2];  // keys of the first run before the tile's first and past its last
  Tile tile;
  tile.smem = reinterpret_cast<typename Tile::W*>(smem_bytes);
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const unsigned warp = threadIdx.x / 32;
  for (index_t block = 0; block < n; block += index_t{1} << last_stage) {
    const index_t tile_begin = block + index_t{blockIdx.x} * Tile::keys;
    for (unsigned s = first_stage; s <= last_stage; ++s) {
      if (s != first_stage) grid.sync();  // the previous stage's stores before these searches
      const index_t run = index_t{1} << (s - 1);
      const index_t a_begin = tile_begin & ~(2 * run - 1), b_begin = a_begin + run;
      const bool merges = tile_begin < n && b_begin < n;  // a tile of keys, two runs
      index_t first = 0, tile_n = 0;
      if (merges) {
        const index_t a_n = run, b_n = n - b_begin < run ? n - b_begin : run;
        first = tile_begin - a_begin;
        tile_n = a_n + b_n - first < Tile::keys ? a_n + b_n - first : Tile::keys;
        if (warp < 2) {
          const index_t at = merge_path(keys + a_begin, a_n, keys + b_begin, b_n,
                                        first + (warp == 0 ? 0 : tile_n), less);
          if (threadIdx.x % 32 == 0) slice[warp] = at;
        }
        __syncthreads();
        const index_t a_n_here = slice[1] - slice[0];
        load_bitonic(tile, keys + a_begin + slice[0], unsigned(a_n_here),
                     keys + b_begin + (first - slice[0]), unsigned(tile_n - a_n_here), less);
      }
      grid.sync();  // every load of the stage before any store
      if (merges) {
        tile.template steps_from_high<int(Tile::tile_log2) - 1>(less);
        tile.template exchange<layout::registers_low, layout::registers_mid>();
        if (tile_n == Tile::keys) {
          tile.template store<layout::registers_mid, true>(keys + tile_begin, Tile::keys);
        } else {
          tile.template store<layout::registers_mid, false>(keys + tile_begin, unsigned(tile_n));
        }
      }
    }
  }
}

//! Whether the pass first..last is what this kernel runs: whole stages past a tile, from a
//! stage's first step to the last stage's last.
template <class Key>
bool runs(network::step first, network::step last) {
  return first.stage > tile_type<Key>::tile_log2 && first.distance_log2 + 1 == first.stage &&
         last.distance_log2 == 0 && last.stage >= first.stage;
}

//! Runs the stages first..last (see `runs`) on keys[0, n), whose runs of 2^(first.stage - 1)
//! keys are sorted, with one block per tile of 2^last.stage keys (all resident at once: the plan
//! keeps last.stage within plan::device_shape::resident_tiles).
template <class Key, class Less>
void launch(Key* keys, index_t n, network::step first, network::step last, Less less,
            cudaStream_t stream) {
  using Tile = tile_type<Key>;
  if (!runs<Key>(first, last)) throw error("bitonic: internal error: not a run of whole stages");
  constexpr auto kernel = merge_kernel<Key, Less>;
  allow_dynamic_shared_memory<kernel>(Tile::smem_bytes,
                                      "cudaFuncSetAttribute(optimized merge_kernel shared memory)");
  const index_t tiles =
      std::min(index_t{1} << (last.stage - Tile::tile_log2), (n + Tile::keys - 1) / Tile::keys);
  launch_cooperative(kernel, unsigned(tiles), Tile::threads, Tile::smem_bytes, stream,
                     "optimized merge_kernel cooperative launch", keys, n, first.stage, last.stage,
                     less);
}

}  // namespace bitonic::kernels::optimized_merge
