// V2 (seeds 000, 002, 003 and 004): like V1, but a block first copies its tile of keys into shared
// memory, runs all its steps there and writes the tile back once. Steps that span more than a tile
// run as V0 global steps. Each thread handles several comparators per step, so a tile can be
// larger than twice the block (32 KiB of keys). Seed 000 found its V2 slower than V1 with 2048-key
// tiles; larger tiles cut the global passes that dominate.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/cuda_helpers.hpp"
#include "kernels/launch.cuh"
#include "kernels/tuning.hpp"
#include "network/network.hpp"

namespace bitonic::kernels {

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::shared_tiles<sizeof(Key)>::block_threads)
    tile_steps_kernel(Key* keys, network::index_t n, network::step first, network::step last,
                      Less less) {
  using tune = tuning::shared_tiles<sizeof(Key)>;
  __shared__ Key tile[tune::tile_keys];
  const network::index_t tiles = (n + tune::tile_keys - 1) / tune::tile_keys;
  for (network::index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const network::index_t base = t * tune::tile_keys;
    const unsigned valid = n - base < tune::tile_keys ? unsigned(n - base) : tune::tile_keys;
    for (unsigned i = threadIdx.x; i < valid; i += tune::block_threads)
      tile[i] = keys[base + i];
    __syncthreads();
    // Tiles are aligned to their size, so local indices follow the same network math; slots past
    // `valid` are never read because their comparators are skipped.
    for (network::step st = first;; st = st.next()) {
      for (unsigned c = threadIdx.x; c < tune::tile_keys / 2; c += tune::block_threads) {
        const auto lo = unsigned(st.lower_index(c)), hi = unsigned(st.upper_index(lo));
        if (hi < valid) network::compare_exchange(tile[lo], tile[hi], less);
      }
      __syncthreads();
      if (st == last) break;
    }
    for (unsigned i = threadIdx.x; i < valid; i += tune::block_threads)
      keys[base + i] = tile[i];
    __syncthreads();  // the next tile overwrites `tile`
  }
}

template <class Key, class Less>
void launch_tile_steps(Key* keys, network::index_t n, network::step first, network::step last,
                       Less less, cudaStream_t stream) {
  using tune = tuning::shared_tiles<sizeof(Key)>;
  launch_plain(tile_steps_kernel<Key, Less>, grid_blocks(n, tune::tile_keys), tune::block_threads,
               stream, "tile_steps_kernel launch", keys, n, first, last, less);
}

}  // namespace bitonic::kernels
