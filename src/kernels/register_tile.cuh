// A tile of 2^tile_log2 consecutive keys (tuning::optimized) held in registers, K = 2^R a thread
// (R = 5, or 4 where few tiles want more warps), for the optimized path's first-pass and tail
// kernels. The K keys of a thread differ in R bits of their tile index: the low ones (layout
// registers_low: lanes on bits R..R+4), bits 5..R+4 (registers_mid: lanes on bits 0-4) or the
// top ones (registers_high: the thread index below them). A network step on a register bit is K/2
// register compare-exchanges; with R = 4, bit 4 is a lane bit in both warp layouts and its steps
// run as shuffles (lane_steps). Keys change layout through shared memory, padded by one word per
// K so that every layout's accesses are free of bank conflicts; low <-> mid stays inside each warp
// (bits R+5 and up are warp bits in both), so it needs __syncwarp only, the high layout needs the
// block. The mid and high layouts load and store coalesced: a warp's lanes touch consecutive keys.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>

#include "bitonic/cuda_helpers.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_network.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels {

//! Which R bits of the tile index a thread's register number holds.
enum class layout { registers_low, registers_mid, registers_high };

template <class Key, unsigned TileLog2 = tuning::optimized<sizeof(Key)>::tile_log2,
          unsigned RegisterBits = tuning::optimized<sizeof(Key)>::tile_register_bits>
struct register_tile {
  using W = typename ordered_word<Key>::type;
  static constexpr unsigned R = RegisterBits, K = 1u << R, tile_log2 = TileLog2;
  static constexpr unsigned warp_log2 = R + 5;  //!< a warp's keys; bits from here are warp bits
  static constexpr unsigned threads = 1u << (tile_log2 - R), keys = 1u << tile_log2;
  static_assert(R == 5 || R == 4, "32 or 16 keys a thread");
  static_assert(tile_log2 > warp_log2 && tile_log2 <= 2 * R + 5,
                "whole warps, and bits 5..tile_log2-R-1 held by the mid layout's registers");

  //! Where tile index i is in shared memory: one word of padding per K.
  __host__ __device__ static constexpr unsigned padded(unsigned i) {
    return tuning::register_tile_padded(i, R);
  }
  //! Dynamic shared memory a block needs for its exchanges.
  static constexpr std::size_t smem_bytes = std::size_t{padded(keys)} * sizeof(W);

  //! Lowest tile-index bit held by the register number in layout L.
  template <layout L>
  static constexpr unsigned base = L == layout::registers_low   ? 0
                                   : L == layout::registers_mid ? 5
                                                                : tile_log2 - R;

  W r[K];
  W* smem;
  unsigned thread, lane, warp;

  //! Tile index of register m: low = warp|lane|m, mid = warp|m|lane, high = m|thread (sums of
  //! parts without common bits, so that m's part is a constant offset of a memory access).
  template <layout L>
  __device__ unsigned index(unsigned m) const {
    if constexpr (L == layout::registers_low) return (warp << warp_log2) + (lane << R) + m;
    if constexpr (L == layout::registers_mid) return (warp << warp_log2) + lane + (m << 5);
    return thread + (m << base<layout::registers_high>);
  }

  //! Bit b of register m's tile index in layout L, as all ones or zero.
  template <layout L>
  __device__ W bit_mask(unsigned m, unsigned b) const {
    return ((index<L>(m) >> b) & 1u) ? W(~W(0)) : W(0);
  }

  //! Takes the thread index again through `opaque`, so that the compiler recomputes addresses
  //! from it instead of keeping 32 of them live (or hoisting them out of the tile loop).
  __device__ void refresh_thread() {
    thread = opaque(unsigned(threadIdx.x));
    lane = thread % 32;
    warp = thread / 32;
  }

  //! The greatest word under `less`: pads of a partial tile sort behind every key and, in a plain
  //! step, stay where they are, as the network's missing keys do.
  template <class Less>
  __device__ static W pad(Less less) {
    if constexpr (std::is_class_v<W>) {  // word128: unsigned
      return less(W(0), ~W(0)) ? ~W(0) : W(0);
    } else {
      using U = std::make_unsigned_t<W>;
      constexpr W highest = W(U(~U(0)) >> (std::is_signed_v<W> ? 1 : 0)), lowest = W(~highest);
      return less(lowest, highest) ? highest : lowest;
    }
  }

  //! Loads tile[0, tile_n) in layout L (mid or high: coalesced) as words, pads beyond tile_n
  //! (under a caller's order, which has no greatest word, leaves them to pad_with_greatest).
  //! Stored is Key or W: memory holds keys, or words that an earlier pass left there.
  template <layout L, bool Full, class Stored, class Less>
  __device__ void load(const Stored* tile, unsigned tile_n, Less less) {
    refresh_thread();
    const Stored* at = tile + index<L>(0);  // the thread's part; each register's is a constant
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      if constexpr (is_caller_order_v<Less>) {
        if (Full || index<L>(m) < tile_n) r[m] = word_of<Key>(at[m << base<L>]);
      } else {
        r[m] = (Full || index<L>(m) < tile_n) ? word_of<Key>(at[m << base<L>]) : pad(less);
      }
    }
  }

  //! As load<high>, but every odd block of 2^MirrorLog2 keys (those with bit MirrorLog2 of the
  //! index set) read back to front: sorted ascending blocks become the ascending/descending pairs
  //! the classic form's stage MirrorLog2 + 1 starts from. A block's parity is a register bit.
  template <unsigned MirrorLog2, bool Full, class Stored, class Less>
  __device__ void load_high_mirrored(const Stored* tile, unsigned tile_n, Less less) {
    constexpr unsigned base_high = base<layout::registers_high>;
    static_assert(MirrorLog2 >= base_high && MirrorLog2 < tile_log2,
                  "the block parity must be a register bit of the high layout");
    constexpr unsigned parity = 1u << (MirrorLog2 - base_high), rows = parity - 1;
    refresh_thread();
    const unsigned mirrored = (1u << base_high) - 1 - thread;  // thread ^ all its bits
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      const unsigned from =
          (m & parity) ? mirrored + ((m ^ rows) << base_high) : thread + (m << base_high);
      r[m] = (Full || from < tile_n) ? word_of<Key>(tile[from]) : pad(less);
    }
  }

  //! Stores tile[0, tile_n) from layout L, as keys or (Stored = W) as words for a later pass.
  template <layout L, bool Full, class Stored>
  __device__ void store(Stored* tile, unsigned tile_n) {
    refresh_thread();
    Stored* at = tile + index<L>(0);
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      if (Full || index<L>(m) < tile_n) at[m << base<L>] = stored_of<Key, Stored>(r[m]);
    }
  }

  //! Calls put(i, word) for tile index i of every key below tile_n, from layout L (a record
  //! sort's last pass writes keys and values apart: record_io::put).
  template <layout L, bool Full, class Put>
  __device__ void store_each(unsigned tile_n, Put put) {
    refresh_thread();
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      if (Full || index<L>(m) < tile_n) put(index<L>(m), r[m]);
    }
  }

  //! Moves the keys from layout From to layout To. padded() of a sum of numbers without common
  //! bits is the sum of their padded()s, so every access is a base register plus a constant.
  template <layout From, layout To>
  __device__ void exchange() {
    constexpr bool in_warp = From != layout::registers_high && To != layout::registers_high;
    W* const from = smem + padded(index<From>(0));
    W* const to = smem + padded(index<To>(0));
    sync<in_warp>();  // the previous exchange's reads are done
#pragma unroll
    for (unsigned m = 0; m < K; ++m)
      from[padded(m << base<From>)] = r[m];
    sync<in_warp>();
#pragma unroll
    for (unsigned m = 0; m < K; ++m)
      r[m] = to[padded(m << base<To>)];
  }

  //! As exchange<From, To>, but the upper half of every block of 2^(half_log2 + 1) keys arrives
  //! back to front: two ascending runs become the ascending/descending pair that a stage's steps
  //! half_log2..0 merge, which is what the flip form's first step of that stage does.
  template <layout From, layout To>
  __device__ void exchange_mirrored(unsigned half_log2) {
    // Inside a warp where the exchange is (blocks of up to a warp's keys stay in its keys).
    constexpr bool in_warp = From != layout::registers_high && To != layout::registers_high;
    W* const from = smem + padded(index<From>(0));
    const unsigned half_mask = (1u << half_log2) - 1;
    sync<in_warp>();  // the previous exchange's reads are done
#pragma unroll
    for (unsigned m = 0; m < K; ++m)
      from[padded(m << base<From>)] = r[m];
    sync<in_warp>();
#pragma unroll
    for (unsigned m = 0; m < K; ++m) {
      const unsigned i = index<To>(m);
      r[m] = smem[padded(((i >> half_log2) & 1u) != 0 ? i ^ half_mask : i)];
    }
  }

  //! Ascending steps on tile-index bits Hi, Hi-1, ..., Lo, all held by the registers in layout L.
  template <layout L, int Hi, int Lo, class Less>
  __device__ void steps(Less less) {
    if constexpr (Hi >= Lo) {
      constexpr unsigned bit = unsigned(Hi) - base<L>;
      static_assert(bit < R, "the step's bit must be a register bit of the layout");
#pragma unroll
      for (unsigned m = 0; m < K; ++m) {
        if ((m & (1u << bit)) == 0) network::compare_exchange(r[m], r[m | (1u << bit)], less);
      }
      steps<L, Hi - 1, Lo>(less);
    }
  }

  //! Ascending steps on the low layout's lane bits Hi..Lo (tile-index bits R..4, so only where
  //! R = 4) as shuffles: the lower lane of a pair keeps the smaller key, the upper the larger.
  template <int Hi, int Lo, class Less>
  __device__ void lane_steps(Less less) {
    if constexpr (Hi >= Lo) {
      static_assert(Lo >= int(R) && Hi <= 4, "lane bits of a warp's keys in the low layout");
      constexpr unsigned lane_bit = 1u << (unsigned(Hi) - R);
      const bool upper = (lane & lane_bit) != 0;
#pragma unroll
      for (unsigned m = 0; m < K; ++m) {
        const W other = shuffle_xor(r[m], lane_bit);
        if (upper ? less(r[m], other) : less(other, r[m])) r[m] = other;
      }
      lane_steps<Hi - 1, Lo>(less);
    }
  }

  //! Ascending steps on register bits top, top - 1, ..., 0 of layout L (tile-index bits
  //! base<L> + top down to base<L>) for a top known only at run time: one copy of each step's
  //! code, entered at `top`, so that a loop over stages shares it (top >= R counts as R - 1).
  template <layout L, class Less>
  __device__ void steps_from_register_bit(unsigned top, Less less) {
    constexpr int b = int(base<L>);
    switch (top) {
      default:
        if constexpr (R == 5) steps<L, b + 4, b + 4>(less);
        [[fallthrough]];
      case 3:
        steps<L, b + 3, b + 3>(less);
        [[fallthrough]];
      case 2:
        steps<L, b + 2, b + 2>(less);
        [[fallthrough]];
      case 1:
        steps<L, b + 1, b + 1>(less);
        [[fallthrough]];
      case 0:
        steps<L, b, b>(less);
    }
  }

  //! Steps on bits Hi..0 of a warp's keys, from the mid layout (bits Hi..5) to the low one
  //! (bits 4..0), where they end.
  template <int Hi, class Less>
  __device__ void steps_in_warp(Less less) {
    static_assert(Hi >= 5 && Hi < int(warp_log2), "bits of a warp's keys, from the mid layout's");
    steps<layout::registers_mid, Hi, 5>(less);
    exchange<layout::registers_mid, layout::registers_low>();
    lane_steps<4, int(R)>(less);
    steps<layout::registers_low, int(R) - 1, 0>(less);
  }

  //! Steps on bits Hi..0 in three register rounds, starting in the high layout (Hi >= warp_log2)
  //! and ending in the low one.
  template <int Hi, class Less>
  __device__ void steps_from_high(Less less) {
    static_assert(Hi >= int(warp_log2), "bits from warp_log2 up are held only by the high layout");
    steps<layout::registers_high, Hi, int(base<layout::registers_high>)>(less);
    exchange<layout::registers_high, layout::registers_mid>();
    steps_in_warp<int(base<layout::registers_high>) - 1>(less);
  }

 private:
  template <bool InWarp>
  __device__ static void sync() {
    if constexpr (InWarp) {
      __syncwarp();
    } else {
      __syncthreads();
    }
  }
};

//! launch_on_tiles with at most `most_blocks` blocks (0: no cap): a launch that likely has
//! nothing to do (its blocks return at once) takes less time with fewer of them.
template <class Tile, auto Kernel, class... Args>
void launch_on_tiles_at_most(network::index_t n, unsigned most_blocks, cudaStream_t stream,
                             const char* smem_what, const char* launch_what, Args... args) {
  allow_dynamic_shared_memory<Kernel>(Tile::smem_bytes, smem_what);
  const unsigned blocks = grid_blocks(n, Tile::keys);
  launch_chained(Kernel, most_blocks != 0 && blocks > most_blocks ? most_blocks : blocks,
                 Tile::threads, Tile::smem_bytes, stream, launch_what, args...);
}

//! Launches Kernel(args...) on `stream`, chained, with a block of Tile's threads and shared memory
//! per tile of n keys (grid-stride past grid_blocks' cap). `smem_what` and `launch_what` name the
//! two calls in errors.
template <class Tile, auto Kernel, class... Args>
void launch_on_tiles(network::index_t n, cudaStream_t stream, const char* smem_what,
                     const char* launch_what, Args... args) {
  launch_on_tiles_at_most<Tile, Kernel>(n, 0, stream, smem_what, launch_what, args...);
}

}  // namespace bitonic::kernels
