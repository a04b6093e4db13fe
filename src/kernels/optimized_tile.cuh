// optimized, tile part: the steps whose comparators stay inside a tile of 2^14 four-byte (2^13
// eight-byte) keys, in one launch. Each thread holds keys_per_thread consecutive keys in
// registers, so a stage's last steps (distance < keys_per_thread) need no memory at all, the
// next five (partner in the same warp) are register shuffles, and only the longer ones go through
// shared memory, with one barrier per step. V2 instead pays a shared-memory round trip and a
// barrier for every step. The tile is loaded and stored coalesced through padded shared memory,
// and float keys are sorted as ordered integer words (min/max instead of NaN checks).
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "kernels/launch.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_tile {

using network::index_t;

template <class Key>
using tune = tuning::optimized<sizeof(Key)>;

//! Step within each thread's registers: distance 2^J, or the flip of a 2^(J+1) block.
template <unsigned J, bool Flip, bool Full, class Word, class Less>
__device__ __forceinline__ void register_step(Word (&r)[tune<Word>::keys_per_thread], index_t first,
                                              index_t n, Less less) {
  constexpr unsigned mask = Flip ? (2u << J) - 1 : 1u << J;
#pragma unroll
  for (unsigned m = 0; m < tune<Word>::keys_per_thread; ++m) {
    if ((m & (1u << J)) == 0 && (Full || first + (m ^ mask) < n)) {
      network::compare_exchange(r[m], r[m ^ mask], less);
    }
  }
}

//! Dispatches a runtime step to the register_step instantiation for its distance.
template <bool Full, class Word, class Less, unsigned... J>
__device__ __forceinline__ void register_step_for(network::step st,
                                                  Word (&r)[tune<Word>::keys_per_thread],
                                                  index_t first, index_t n, Less less,
                                                  std::integer_sequence<unsigned, J...>) {
  const bool flip = st.is_flip();
  ((st.distance_log2 == J ? (flip ? register_step<J, true, Full>(r, first, n, less)
                                  : register_step<J, false, Full>(r, first, n, less))
                          : void()),
   ...);
}

//! Step whose partner lives in another lane of the same warp: exchange by shuffles. The lower
//! lane of a pair keeps the smaller key; `upper_index` < n decides whether the pair is live.
template <bool Full, class Word, class Less>
__device__ __forceinline__ void shuffle_step(network::step st,
                                             Word (&r)[tune<Word>::keys_per_thread], unsigned lane,
                                             index_t first, index_t n, Less less) {
  constexpr unsigned K = tune<Word>::keys_per_thread, log_k = tune<Word>::keys_per_thread_log2;
  const auto keep = [&](Word own, Word other, bool lower, index_t upper_index) {
    if (lower) {
      return (Full || upper_index < n) && less(other, own) ? other : own;
    }
    return less(own, other) ? other : own;  // the upper slot: beyond n it is never stored
  };
  if (st.is_flip()) {
    // Lane l pairs with l ^ lane_mask, key m with key K-1-m: the mirror of the 2^stage block.
    const unsigned lane_mask = (1u << (st.stage - log_k)) - 1;
    const bool lower = (lane & (1u << (st.stage - log_k - 1))) == 0;
    const index_t partner_first = first - index_t{lane} * K + index_t{lane ^ lane_mask} * K;
#pragma unroll
    for (unsigned m = 0; m < K / 2; ++m) {
      const Word from_mirror_of_m = __shfl_xor_sync(0xffffffffu, r[K - 1 - m], lane_mask);
      const Word from_mirror_of_last = __shfl_xor_sync(0xffffffffu, r[m], lane_mask);
      const index_t upper_m = lower ? partner_first + (K - 1 - m) : 0;
      const index_t upper_last = lower ? partner_first + m : 0;
      r[m] = keep(r[m], from_mirror_of_m, lower, upper_m);
      r[K - 1 - m] = keep(r[K - 1 - m], from_mirror_of_last, lower, upper_last);
    }
  } else {
    const unsigned lane_mask = 1u << (st.distance_log2 - log_k);
    const bool lower = (lane & lane_mask) == 0;
    const index_t partner_first = first + index_t{lane_mask} * K;
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      const Word other = __shfl_xor_sync(0xffffffffu, r[m], lane_mask);
      r[m] = keep(r[m], other, lower, partner_first + m);
    }
  }
}

//! Runs steps first..last (all with span <= tile_log2) on one tile. Registers and shared memory
//! hold ordered words (integers for float keys), converted once on load and once on store.
template <bool Full, class Key, class Less>
__device__ void run_tile(Key* keys, typename ordered_word<Key>::type* smem, index_t base, index_t n,
                         network::step first, network::step last, Less less) {
  using word = ordered_word<Key>;
  using T = tune<Key>;
  constexpr unsigned K = T::keys_per_thread;
  const unsigned tid = threadIdx.x, lane = tid % 32;
  const index_t tile_n = Full ? T::tile_keys : n - base;
  for (unsigned i = tid; i < T::tile_keys; i += T::tile_threads) {
    if (Full || i < tile_n) smem[T::padded(i)] = word::encode(keys[base + i]);
  }
  __syncthreads();
  typename word::type r[K];
#pragma unroll
  for (unsigned m = 0; m < K; ++m)
    r[m] = smem[T::padded(tid * K + m)];
  // Index math below is relative to the tile: `n` is the tile's key count.
  const index_t first_key = index_t{tid} * K;
  for (network::step st = first;; st = st.next()) {
    const unsigned span = st.span_log2();
    if (span <= T::keys_per_thread_log2) {
      register_step_for<Full>(st, r, first_key, tile_n, less,
                              std::make_integer_sequence<unsigned, T::keys_per_thread_log2>{});
    } else if (span <= T::warp_span_log2) {
      shuffle_step<Full>(st, r, lane, first_key, tile_n, less);
    } else {
      __syncthreads();  // every thread has read its registers' keys from the previous round
#pragma unroll
      for (unsigned m = 0; m < K; ++m)
        smem[T::padded(tid * K + m)] = r[m];
      __syncthreads();
      for (;; st = st.next()) {  // the run of steps too wide for a warp, in shared memory
        const auto mask = unsigned(st.partner_mask());
        for (unsigned c = tid; c < T::tile_keys / 2; c += T::tile_threads) {
          const unsigned lo = st.lower_index(c), hi = lo ^ mask;
          if (Full || hi < tile_n) {
            network::compare_exchange(smem[T::padded(lo)], smem[T::padded(hi)], less);
          }
        }
        __syncthreads();
        if (st == last || st.next().span_log2() <= T::warp_span_log2) break;
      }
#pragma unroll
      for (unsigned m = 0; m < K; ++m)
        r[m] = smem[T::padded(tid * K + m)];
    }
    if (st == last) break;
  }
  __syncthreads();
#pragma unroll
  for (unsigned m = 0; m < K; ++m)
    smem[T::padded(tid * K + m)] = r[m];
  __syncthreads();
  for (unsigned i = tid; i < T::tile_keys; i += T::tile_threads) {
    if (Full || i < tile_n) keys[base + i] = word::decode(smem[T::padded(i)]);
  }
  __syncthreads();  // the next tile reuses the shared memory
}

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::optimized<sizeof(Key)>::tile_threads,
                                  tuning::optimized<sizeof(Key)>::tile_min_blocks)
    tile_kernel(Key* keys, index_t n, network::step first, network::step last, Less less) {
  using T = tune<Key>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  auto* smem = reinterpret_cast<typename ordered_word<Key>::type*>(smem_bytes);
  const index_t tiles = (n + T::tile_keys - 1) / T::tile_keys;
  for (index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const index_t base = t * T::tile_keys;
    if (base + T::tile_keys <= n) {
      run_tile<true>(keys, smem, base, n, first, last, less);
    } else {
      run_tile<false>(keys, smem, base, n, first, last, less);
    }
  }
}

template <class Key, class Less>
void launch(Key* keys, index_t n, network::step first, network::step last, Less less,
            cudaStream_t stream) {
  using T = tune<Key>;
  allow_dynamic_shared_memory<tile_kernel<Key, Less>>(
      T::tile_smem_bytes, "cudaFuncSetAttribute(optimized tile_kernel shared memory)");
  tile_kernel<<<grid_blocks(n, T::tile_keys), T::tile_threads, T::tile_smem_bytes, stream>>>(
      keys, n, first, last, less);
  host::check_launch("optimized tile_kernel launch");
}

}  // namespace bitonic::kernels::optimized_tile
