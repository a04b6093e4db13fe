// optimized, first pass for 4-byte keys: sorts every tile of 2^14 keys (stages 1..14) in one
// launch. It runs the network's classic form (step (s, j) pairs i with i ^ 2^j, descending where
// bit s of i is set), which gives the same sorted tile as the flip form and lets every step act on
// one index bit. A thread holds 32 keys whose tile indices differ in 5 bits; those bits are the
// low ones (layout registers_low), the middle ones (registers_mid) or the high ones
// (registers_high), and a step on a register bit is 16 register compare-exchanges. Keys move
// between layouts through padded shared memory (conflict-free): low <-> mid stays inside a warp
// (__syncwarp only), the high layout needs the block. 24 exchanges for the 105 steps, where the
// first optimized tile kernel ran 35 steps as shuffles and 10 as shared-memory round trips.
// Directions cost nothing per comparator: the registers hold each key XORed with all ones where
// its block of the current stage is descending (~w reverses the order of words), so every
// comparator is ascending, and a stage change is one XOR per key. A partial tile is padded with
// the greatest word; only the tile's own keys are stored.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_network.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_sort_tile {

using network::index_t;
using T = tuning::optimized<4>;

static_assert(T::tile_log2 == 14 && T::keys_per_thread_log2 == 5 && T::tile_threads == 512,
              "the layouts below split a 14-bit tile index into 5 register, 5 lane, 4 warp bits");

//! Which five bits of the tile index a thread's register number m holds.
enum class layout { registers_low, registers_mid, registers_high };

//! Lowest tile-index bit held by the register number.
template <layout L>
constexpr unsigned register_base = L == layout::registers_low ? 0 : L == layout::registers_mid ? 5 : 9;

template <class Word, class Less>
struct tile_sorter {
  static constexpr unsigned K = T::keys_per_thread;
  Word r[K];
  Word* smem;
  unsigned thread, lane, warp;

  //! Tile index of register m: low = warp|lane|m, mid = warp|m|lane, high = m|thread (sums of
  //! parts without common bits, so that m's part is a constant offset of a memory access).
  template <layout L>
  __device__ unsigned index(unsigned m) const {
    if constexpr (L == layout::registers_low) return (warp << 10) + (lane << 5) + m;
    if constexpr (L == layout::registers_mid) return (warp << 10) + lane + (m << 5);
    return thread + (m << 9);
  }

  //! Takes the thread index again through `opaque`, so that the compiler recomputes addresses
  //! from it instead of keeping 32 of them live (or hoisting them out of the tile loop).
  __device__ void refresh_thread() {
    thread = opaque(unsigned(threadIdx.x));
    lane = thread % 32;
    warp = thread / 32;
  }

  //! Bit b of register m's tile index, as all ones or zero.
  template <layout L>
  __device__ Word bit_mask(unsigned m, unsigned b) const {
    return ((index<L>(m) >> b) & 1u) ? Word(~Word(0)) : Word(0);
  }

  template <bool InWarp>
  __device__ static void sync() {
    if constexpr (InWarp) {
      __syncwarp();
    } else {
      __syncthreads();
    }
  }

  //! Moves the keys from layout From to layout To. padded() of a sum of numbers without common
  //! bits is the sum of their padded()s, so every access is a base register plus a constant.
  template <layout From, layout To>
  __device__ void exchange() {
    constexpr bool in_warp = From != layout::registers_high && To != layout::registers_high;
    Word* const from = smem + T::padded(index<From>(0));
    Word* const to = smem + T::padded(index<To>(0));
    sync<in_warp>();  // the previous exchange's reads are done
#pragma unroll
    for (unsigned m = 0; m < K; ++m)
      from[T::padded(m << register_base<From>)] = r[m];
    sync<in_warp>();
#pragma unroll
    for (unsigned m = 0; m < K; ++m)
      r[m] = to[T::padded(m << register_base<To>)];
  }

  //! Steps on tile-index bits Hi, Hi-1, ..., Lo, all held by the registers in layout L.
  template <layout L, int Hi, int Lo>
  __device__ void steps(Less less) {
    if constexpr (Hi >= Lo) {
      constexpr unsigned bit = unsigned(Hi) - register_base<L>;
      static_assert(bit < 5, "the step's bit must be a register bit of the layout");
#pragma unroll
      for (unsigned m = 0; m < K; ++m) {
        if ((m & (1u << bit)) == 0) network::compare_exchange(r[m], r[m | (1u << bit)], less);
      }
      steps<L, Hi - 1, Lo>(less);
    }
  }

  //! Stages S..14; the registers hold layout registers_low, coded for stage S.
  template <unsigned S>
  __device__ void stages(Less less) {
    if constexpr (S > 10) {  // bits 13..10 are warp bits in the other layouts
      exchange<layout::registers_low, layout::registers_high>();
      steps<layout::registers_high, int(S) - 1, 9>(less);
      exchange<layout::registers_high, layout::registers_mid>();
      steps<layout::registers_mid, 8, 5>(less);
      exchange<layout::registers_mid, layout::registers_low>();
    } else if constexpr (S > 5) {  // bits 9..5 are lane bits in the low layout
      exchange<layout::registers_low, layout::registers_mid>();
      steps<layout::registers_mid, int(S) - 1, 5>(less);
      exchange<layout::registers_mid, layout::registers_low>();
    }
    steps<layout::registers_low, (S < 5 ? int(S) : 5) - 1, 0>(less);
    if constexpr (S < T::tile_log2) {
      // From stage S's coding to stage S+1's: XOR with bit S ^ bit S+1 of the index.
#pragma unroll
      for (unsigned m = 0; m < K; ++m) {
        r[m] ^= bit_mask<layout::registers_low>(m, S) ^ bit_mask<layout::registers_low>(m, S + 1);
      }
      stages<S + 1>(less);
    }
  }
};

template <bool Full, class Key, class Less>
__device__ void sort_tile(Key* tile, unsigned tile_n, typename ordered_word<Key>::type* smem,
                          Less less) {
  using word = ordered_word<Key>;
  using W = typename word::type;
  using U = std::make_unsigned_t<W>;
  constexpr W highest = W(U(~U(0)) >> (std::is_signed_v<W> ? 1 : 0)), lowest = W(~highest);
  // Pads of a partial tile: the greatest word under `less`, so they sort behind every key.
  const W pad = less(lowest, highest) ? highest : lowest;
  tile_sorter<W, Less> s;
  s.smem = smem;
  s.refresh_thread();
  // Loads and stores in the mid layout: the lanes of a warp touch 32 consecutive keys.
  // The thread's part of the address apart, so that each register's is a constant offset.
  const Key* load_at = tile + s.template index<layout::registers_mid>(0);
#pragma unroll
  for (unsigned m = 0; m < s.K; ++m) {
    const bool present = Full || s.template index<layout::registers_mid>(m) < tile_n;
    s.r[m] = present ? word::encode(load_at[m << 5]) : pad;
    s.r[m] ^= s.template bit_mask<layout::registers_mid>(m, 1);  // coded for stage 1
  }
  s.template exchange<layout::registers_mid, layout::registers_low>();
  s.template stages<1>(less);
  s.template exchange<layout::registers_low, layout::registers_mid>();
  s.refresh_thread();
  Key* store_at = tile + s.template index<layout::registers_mid>(0);
#pragma unroll
  for (unsigned m = 0; m < s.K; ++m) {
    if (Full || s.template index<layout::registers_mid>(m) < tile_n) {
      store_at[m << 5] = word::decode(s.r[m]);
    }
  }
}

template <class Key, class Less>
__global__ void __launch_bounds__(T::tile_threads, T::tile_min_blocks)
    sort_tiles_kernel(Key* keys, index_t n, Less less) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  auto* smem = reinterpret_cast<typename ordered_word<Key>::type*>(smem_bytes);
  const index_t tiles = (n + T::tile_keys - 1) / T::tile_keys;
  for (index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const index_t base = t * T::tile_keys;
    if (base + T::tile_keys <= n) {
      sort_tile<true>(keys + base, T::tile_keys, smem, less);
    } else {
      sort_tile<false>(keys + base, unsigned(n - base), smem, less);
    }
  }
}

//! Whether the pass first..last on n keys is this kernel's: 4-byte keys, and stages 1..14 (or
//! fewer when n fits their blocks, so that sorting whole tiles is the same).
template <class Key>
bool runs(network::step first, network::step last, index_t n) {
  return sizeof(Key) == 4 && first == network::step{1, 0} && last.distance_log2 == 0 &&
         (last.stage == T::tile_log2 || (last.stage < T::tile_log2 && n <= (index_t{1} << last.stage)));
}

//! Sorts every tile of 2^14 keys of keys[0, n) (the last one may be partial) under `less`.
template <class Key, class Less>
void launch(Key* keys, index_t n, Less less, cudaStream_t stream) {
  static_assert(sizeof(Key) == 4, "the layouts are built for 32 four-byte keys a thread");
  allow_dynamic_shared_memory<sort_tiles_kernel<Key, Less>>(
      T::tile_smem_bytes, "cudaFuncSetAttribute(optimized sort_tiles_kernel shared memory)");
  sort_tiles_kernel<<<grid_blocks(n, T::tile_keys), T::tile_threads, T::tile_smem_bytes, stream>>>(
      keys, n, less);
  host::check_launch("optimized sort_tiles_kernel launch");
}

}  // namespace bitonic::kernels::optimized_sort_tile
