// optimized, the tail of a long stage: its steps j = tile_log2-1..0 (no flip), on each tile of
// 2^tile_log2 consecutive keys, in one pass. Every step runs on registers (tile_registers.cuh):
// three exchanges through shared memory for the fourteen steps of a 4-byte tile, where a V2-style
// tile pays a shared-memory round trip and a barrier per step.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "kernels/launch.cuh"
#include "kernels/tile_registers.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_tail {

using network::index_t;

template <class Key>
using tune = tuning::optimized<sizeof(Key)>;

template <bool Full, class Key, class Less>
__device__ void run_tile(Key* keys, typename ordered_word<Key>::type* smem, index_t tile_base,
                         index_t n, Less less) {
  using T = tune<Key>;
  using tile_type = tile_registers<Full, Key>;
  tile_type tile{{}, smem, opaque(threadIdx.x), Full ? T::tile_keys : unsigned(n - tile_base)};
  tile.load(keys + tile_base);
  tile.template rounds<T::tile_log2 - 1, tile_type::io_base>(less);
  tile.template exchange<0, tile_type::io_base>();
  tile.store(keys + tile_base);
  __syncthreads();  // the next tile reuses the shared memory
}

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::optimized<sizeof(Key)>::exchange_threads,
                                  tuning::optimized<sizeof(Key)>::exchange_min_blocks)
    tail_kernel(Key* keys, index_t n, Less less) {
  using T = tune<Key>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  auto* smem = reinterpret_cast<typename ordered_word<Key>::type*>(smem_bytes);
  const index_t tiles = (n + T::tile_keys - 1) / T::tile_keys;
  for (index_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
    const index_t tile_base = tile * T::tile_keys;
    if (tile_base + T::tile_keys <= n) {
      run_tile<true>(keys, smem, tile_base, n, less);
    } else {
      run_tile<false>(keys, smem, tile_base, n, less);
    }
  }
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
  tail_kernel<<<grid_blocks(n, T::tile_keys), T::exchange_threads, T::tile_smem_bytes, stream>>>(
      keys, n, less);
  host::check_launch("optimized tail_kernel launch");
}

}  // namespace bitonic::kernels::optimized_tail
