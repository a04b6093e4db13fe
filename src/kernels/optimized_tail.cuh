// optimized, the tail of a long stage: its steps j = tile_log2-1..0 (no flip), on each tile of
// 2^tile_log2 consecutive keys, in one pass. Every step runs on registers (register_tile.cuh):
// loaded in the high layout, the steps in three register rounds (high, mid, low), stored from the
// mid layout; one block-wide and two in-warp exchanges through shared memory, where a V2-style
// tile pays a shared-memory round trip and a barrier per step. Partial tiles are padded with the
// greatest word, which no plain step moves: the network's rule for missing keys.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_tile.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_tail {

using network::index_t;

template <class Key>
using tune = tuning::optimized<sizeof(Key)>;

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::optimized<sizeof(Key)>::tile_threads,
                                  tuning::optimized<sizeof(Key)>::tile_min_blocks)
    tail_kernel(Key* keys, index_t n, Less less) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  register_tile<Key> tile;
  tile.smem = reinterpret_cast<typename register_tile<Key>::W*>(smem_bytes);
  for_each_tile<tune<Key>::tile_keys>(n, [&](index_t base, unsigned tile_n, auto full) {
    constexpr bool Full = decltype(full)::value;
    using lay = layout;
    tile.template load<lay::registers_high, Full>(keys + base, tile_n, less);
    tile.template steps_from_high<int(tune<Key>::tile_log2) - 1>(less);
    tile.template exchange<lay::registers_low, lay::registers_mid>();
    tile.template store<lay::registers_mid, Full>(keys + base, tile_n);
  });
}

//! Whether the pass first..last is what this kernel runs: the steps of one stage (not its flip)
//! from the tile's widest distance down to distance 1.
template <class Key>
bool runs(network::step first, network::step last) {
  return first.stage == last.stage && !first.is_flip() && last.distance_log2 == 0 &&
         first.distance_log2 + 1 == tune<Key>::tile_log2;
}

//! Runs the tail steps first..last (see `runs`) on every tile.
template <class Key, class Less>
void launch(Key* keys, index_t n, network::step first, network::step last, Less less,
            cudaStream_t stream) {
  using T = tune<Key>;
  if (!runs<Key>(first, last)) throw error("bitonic: internal error: not a stage's tail");
  allow_dynamic_shared_memory<tail_kernel<Key, Less>>(
      T::tile_smem_bytes, "cudaFuncSetAttribute(optimized tail_kernel shared memory)");
  tail_kernel<<<grid_blocks(n, T::tile_keys), T::tile_threads, T::tile_smem_bytes, stream>>>(
      keys, n, less);
  host::check_launch("optimized tail_kernel launch");
}

}  // namespace bitonic::kernels::optimized_tail
