// optimized, the tail of a long stage: its steps j = tile_log2-1..0 (no flip), on each tile of
// 2^tile_log2 consecutive keys, in one pass. Every step runs on registers: a thread holds
// 2^exchange_keys_log2 keys whose tile indices differ only in a field of that many bits, so a step
// on a bit of the field is a register compare-exchange. The field starts at the top bits (the
// tile is loaded straight from global memory, lanes reading consecutive keys) and moves down
// through shared memory: three exchanges for the fourteen steps of a 4-byte tile, where the
// first-pass tile kernel pays a shared-memory round trip per long step and shuffles for the rest.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_network.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_tail {

using network::index_t;

template <class Key>
using tune = tuning::optimized<sizeof(Key)>;

//! The register field of the round that starts with step `Top`: its top bit is Top.
template <unsigned Top, unsigned Log2K>
constexpr unsigned field_base = Top + 1 >= Log2K ? Top + 1 - Log2K : 0;

//! One tile's keys in registers, as ordered words, and what the rounds need to move them.
template <bool Full, class Key>
struct tile_registers {
  using T = tune<Key>;
  using word_type = typename ordered_word<Key>::type;
  static constexpr unsigned log_k = T::exchange_keys_log2, K = 1u << log_k;

  word_type r[K];
  word_type* smem;
  unsigned t;
  unsigned tile_n;  //!< keys of this tile below n (tile_keys when Full)

  //! Tile index of register m: a per-thread part plus a constant (the two have no common bit).
  template <unsigned Base>
  __device__ unsigned local(unsigned m) const {
    return spread_index<log_k, Base>(t, 0) + (m << Base);
  }
  template <unsigned Base>
  __device__ unsigned valid() const {
    if constexpr (Full) return all_valid;
    return valid_registers<log_k>(tile_n, [&](unsigned m) { return local<Base>(m); });
  }
  //! Moves the keys from register field From to field To through shared memory.
  template <unsigned From, unsigned To>
  __device__ void exchange() {
    // padded() of a sum of numbers without common bits is the sum of their padded()s, so each
    // access is one base register plus a constant offset.
    word_type* from = smem + T::padded(local<From>(0));
    word_type* to = smem + T::padded(local<To>(0));
    __syncthreads();  // every thread has read the previous exchange (or tile)
#pragma unroll
    for (unsigned m = 0; m < K; ++m)
      from[T::padded(m << From)] = r[m];
    __syncthreads();
#pragma unroll
    for (unsigned m = 0; m < K; ++m)
      r[m] = to[T::padded(m << To)];
  }

  //! Steps Top..0, the registers holding field From on entry; returns with field 0 or higher.
  template <unsigned Top, unsigned From, class Less>
  __device__ void rounds(Less less) {
    constexpr unsigned base = field_base<Top, log_k>;
    if constexpr (base != From) exchange<From, base>();
    register_steps_down<int(Top - base), 0>(r, valid<base>(), less);
    if constexpr (base > 0) {
      rounds<base - 1, base>(less);
    } else {
      exchange<base, T::tile_log2 - log_k>();
    }
  }
};

template <bool Full, class Key, class Less>
__device__ void run_tile(Key* keys, typename ordered_word<Key>::type* smem, index_t tile_base,
                         index_t n, Less less) {
  using word = ordered_word<Key>;
  using T = tune<Key>;
  constexpr unsigned io_base = T::tile_log2 - T::exchange_keys_log2;  // lanes on consecutive keys
  tile_registers<Full, Key> tile{
      {}, smem, opaque(threadIdx.x), Full ? T::tile_keys : unsigned(n - tile_base)};
  Key* tile_keys = keys + tile_base;
  unsigned valid = tile.template valid<io_base>();
#pragma unroll
  for (unsigned m = 0; m < tile.K; ++m) {
    if ((valid >> m) & 1u) tile.r[m] = word::encode(tile_keys[tile.template local<io_base>(m)]);
  }
  tile.template rounds<T::tile_log2 - 1, io_base>(less);
  tile.t = opaque(tile.t);  // recompute the store addresses instead of keeping the loads'
  valid = tile.template valid<io_base>();
#pragma unroll
  for (unsigned m = 0; m < tile.K; ++m) {
    if ((valid >> m) & 1u) tile_keys[tile.template local<io_base>(m)] = word::decode(tile.r[m]);
  }
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
