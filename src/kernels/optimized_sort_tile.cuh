// optimized, first pass: sorts every tile of 2^tile_log2 keys (stages 1..tile_log2) in one
// launch, 32 keys a thread in registers (register_tile.cuh). It runs the network's classic form
// (step (s, j) pairs i with i ^ 2^j, descending where bit s of i is set), which sorts a tile just
// as the flip form does and lets every step act on one index bit: each step is 16 register
// compare-exchanges in the layout that holds its bit, 24 layout exchanges for the 105 steps of a
// 2^14 tile (16 of them inside a warp). The first tile kernel ran 35 of those steps as warp
// shuffles and 10 as shared-memory round trips, 2.5x the instructions. Directions cost nothing
// per comparator: the registers hold each key XORed with all ones where its block of the current
// stage is descending (~w reverses the order of words), so every comparator is ascending, and a
// change of stage is one XOR per key. A partial tile is padded with the greatest word.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_tile.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_sort_tile {

using network::index_t;

//! Stages S..tile_log2 on registers in the low layout, coded for stage S.
template <unsigned S, class Key, class Less>
__device__ void stages(register_tile<Key>& tile, Less less) {
  using lay = layout;
  if constexpr (S > 10) {  // bits 10 and up are warp bits in the low and mid layouts
    tile.template exchange<lay::registers_low, lay::registers_high>();
    tile.template steps_from_high<int(S) - 1>(less);
  } else {
    if constexpr (S > 5) {  // bits 5..9 are lane bits in the low layout
      tile.template exchange<lay::registers_low, lay::registers_mid>();
      tile.template steps<lay::registers_mid, int(S) - 1, 5>(less);
      tile.template exchange<lay::registers_mid, lay::registers_low>();
    }
    tile.template steps<lay::registers_low, (S < 5 ? int(S) : 5) - 1, 0>(less);
  }
  if constexpr (S < register_tile<Key>::tile_log2) {
    // From stage S's coding to stage S+1's: XOR with bit S ^ bit S+1 of the index.
#pragma unroll
    for (unsigned m = 0; m < register_tile<Key>::K; ++m) {
      tile.r[m] ^= tile.template bit_mask<lay::registers_low>(m, S) ^
                   tile.template bit_mask<lay::registers_low>(m, S + 1);
    }
    stages<S + 1>(tile, less);
  }
}

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::optimized<sizeof(Key)>::tile_threads,
                                  tuning::optimized<sizeof(Key)>::tile_min_blocks)
    sort_tiles_kernel(Key* keys, index_t n, Less less) {
  using T = tuning::optimized<sizeof(Key)>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  register_tile<Key> tile;
  tile.smem = reinterpret_cast<typename register_tile<Key>::W*>(smem_bytes);
  for_each_tile<T::tile_keys>(n, [&](index_t base, unsigned tile_n, auto full) {
    constexpr bool Full = decltype(full)::value;
    using lay = layout;
    tile.template load<lay::registers_mid, Full>(keys + base, tile_n, less);
#pragma unroll
    for (unsigned m = 0; m < tile.K; ++m)  // coded for stage 1
      tile.r[m] ^= tile.template bit_mask<lay::registers_mid>(m, 1);
    tile.template exchange<lay::registers_mid, lay::registers_low>();
    stages<1>(tile, less);
    tile.template exchange<lay::registers_low, lay::registers_mid>();
    tile.template store<lay::registers_mid, Full>(keys + base, tile_n);
  });
}

//! Whether the pass first..last on n keys is this kernel's: stages 1..tile_log2, or fewer when
//! n fits their blocks, so that sorting whole tiles is the same.
template <class Key>
bool runs(network::step first, network::step last, index_t n) {
  constexpr unsigned tile_log2 = tuning::optimized<sizeof(Key)>::tile_log2;
  return first == network::step{1, 0} && last.distance_log2 == 0 &&
         (last.stage == tile_log2 || (last.stage < tile_log2 && n <= (index_t{1} << last.stage)));
}

//! Sorts every tile of keys[0, n) (the last one may be partial) under `less`.
template <class Key, class Less>
void launch(Key* keys, index_t n, Less less, cudaStream_t stream) {
  using T = tuning::optimized<sizeof(Key)>;
  allow_dynamic_shared_memory<sort_tiles_kernel<Key, Less>>(
      T::tile_smem_bytes, "cudaFuncSetAttribute(optimized sort_tiles_kernel shared memory)");
  sort_tiles_kernel<<<grid_blocks(n, T::tile_keys), T::tile_threads, T::tile_smem_bytes, stream>>>(
      keys, n, less);
  host::check_launch("optimized sort_tiles_kernel launch");
}

}  // namespace bitonic::kernels::optimized_sort_tile
