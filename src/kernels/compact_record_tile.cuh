// optimized, first pass of a refined record sort: a tile of 64-bit record words (a 4-byte key's
// word high, its value or position low: record_io.cuh) sorted as 32-bit words where they allow.
// After the refinement (sample_refine.cuh) a tile holds one sub-bucket, ~2^-14 of the keys at
// 2^27, so its keys' words span a narrow range [lo, hi]. Where hi - lo < 2^(32 - tile_log2), the
// word (key - lo) << tile_log2 | slot (slot: the record's place in the tile as loaded) orders the
// records by key, and the 4-byte network on a 32-bit register tile replaces the 8-byte one, which
// moves and compares two registers a word: that sort ran compute-bound, 4.05 of argsort's 8.4 ms at
// 2^27 on an H200 (docs/PERFORMANCE.md log 84). The values wait in shared memory meanwhile, and the
// store takes each record's value by its slot. Equal keys come out in slot order, where the 64-bit
// words order them by value. That serves where no merge follows in an unstable sort (the tile is
// its sub-bucket's last pass: equal keys may end in any order; log 89), and where the values are
// the records' positions in a stable one: the split and the refinement scatter stably
// (sample_split::scatter_tile), so a sub-bucket's records lie in the order of their positions.
// Otherwise each key of a run of equal keys ranks its values among the run's and goes to that
// place, and a tile with a run of more than tuning::compact_record_tile::max_run keys sorts the
// 64-bit way (the caller's path), as does a tile whose keys span more, having cost one extra read
// of the tile.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "bitonic/order.hpp"
#include "kernels/record_io.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/tuning.hpp"

namespace bitonic::kernels::compact_record_tile {

//! Whether a first pass of Tile64 (64-bit words) under Less with IO can take this way: the words
//! of 4-byte-key records (record_io), in the library's ascending order of words.
template <class Tile64, class Less, class IO>
inline constexpr bool applies =
    std::conjunction_v<std::is_same<IO, record_io>, std::is_same<Less, ascending_less>,
                       std::is_same<typename Tile64::W, std::uint64_t>>;

//! The 32-bit tile with Tile64's threads and registers.
template <class Tile64>
using tile32 = register_tile<std::uint32_t, Tile64::tile_log2, Tile64::R>;

//! Sorts the tile_n records of `words` (a whole tile where Full) as 32-bit words and calls
//! store(i, word) for the record of sorted place i, every i < tile_n; or returns false having
//! stored nothing (the keys' range too wide, or a run of equal keys too long). `ties_by_slot`:
//! equal keys may end in slot order, with no ranking: the values ascend with the slots
//! (positions, stably scattered), or the tile is the last pass of an unstable sort's sub-bucket,
//! whose equal keys may end in any order. sort32(tile) runs
//! the whole network (all tile_log2 stages, pads included) on a tile32 loaded in the mid layout
//! and leaves it there. The whole block calls it; it uses Tile64's dynamic shared memory
//! (`smem_bytes`) and synchronises before it returns true, so that the next tile may reuse it.
//! Not inlined: in the 64-bit sort's kernel its registers made that sort spill 4x as much.
template <class Tile64, bool Full, class Sort32, class Store>
__device__ __noinline__ bool sort(const std::uint64_t* words, unsigned tile_n, bool ties_by_slot,
                                  unsigned char* smem_bytes, Sort32 sort32, Store store) {
  using T32 = tile32<Tile64>;
  constexpr unsigned slot_bits = T32::tile_log2, slot_mask = (1u << slot_bits) - 1;
  constexpr unsigned threads = T32::threads, warps = threads / 32;
  constexpr unsigned max_run = tuning::compact_record_tile::max_run;
  static_assert(T32::threads == Tile64::threads && T32::K == Tile64::K,
                "the 32-bit tile runs on the 64-bit tile's block");
  static_assert(T32::smem_bytes % 16 == 0 &&
                    T32::smem_bytes + sizeof(std::uint32_t) * T32::keys <= Tile64::smem_bytes,
                "the 32-bit tile's exchanges and the values fit the 64-bit tile's shared memory");
  static_assert(slot_bits < 32 && max_run < T32::keys, "a slot and a key offset share a word");
  __shared__ std::uint32_t bounds[2][warps];
  T32 tile;
  tile.smem = reinterpret_cast<std::uint32_t*>(smem_bytes);
  std::uint32_t* const values = reinterpret_cast<std::uint32_t*>(smem_bytes + T32::smem_bytes);
  __syncthreads();  // the block's previous tile is done with the shared memory
  tile.refresh_thread();
  std::uint32_t lo = ~0u, hi = 0;
#pragma unroll
  for (unsigned k = 0; k < T32::K; ++k) {
    const unsigned slot = threadIdx.x + k * threads;
    if (Full || slot < tile_n) {
      const std::uint64_t w = words[slot];
      const auto key = std::uint32_t(w >> 32);
      values[slot] = std::uint32_t(w);
      tile.r[k] = key;
      lo = key < lo ? key : lo;
      hi = key > hi ? key : hi;
    }
  }
#pragma unroll
  for (unsigned d = 16; d != 0; d /= 2) {
    const std::uint32_t other_lo = __shfl_xor_sync(~0u, lo, d),
                        other_hi = __shfl_xor_sync(~0u, hi, d);
    lo = other_lo < lo ? other_lo : lo;
    hi = other_hi > hi ? other_hi : hi;
  }
  if (threadIdx.x % 32 == 0) {
    bounds[0][threadIdx.x / 32] = lo;
    bounds[1][threadIdx.x / 32] = hi;
  }
  __syncthreads();
#pragma unroll
  for (unsigned w = 0; w < warps; ++w) {
    lo = bounds[0][w] < lo ? bounds[0][w] : lo;
    hi = bounds[1][w] > hi ? bounds[1][w] : hi;
  }
  if (hi - lo >= (1u << (32 - slot_bits))) return false;  // the same for the whole block
#pragma unroll
  for (unsigned k = 0; k < T32::K; ++k) {
    const unsigned slot = threadIdx.x + k * threads;
    // Pads sort last: a key's word is below ~0 but where its slot is keys - 1 (Full: no pads).
    tile.r[k] = Full || slot < tile_n ? (tile.r[k] - lo) << slot_bits | slot : ~0u;
  }
  sort32(tile);
  __syncthreads();  // the exchanges are done: the tile's shared memory takes the sorted words
  std::uint32_t* const sorted = tile.smem;
  tile.template store_each<layout::registers_mid, Full>(
      tile_n, [&](unsigned i, std::uint32_t c) { sorted[i] = c; });
  __syncthreads();
  if (ties_by_slot) {
    for (unsigned i = threadIdx.x; i < tile_n; i += threads) {
      const std::uint32_t c = sorted[i];
      store(i, std::uint64_t{lo + (c >> slot_bits)} << 32 | values[c & slot_mask]);
    }
    __syncthreads();  // done reading the shared memory
    return true;
  }
  const auto key_at = [&](unsigned i) { return sorted[i] >> slot_bits; };
  bool long_run = false;
  for (unsigned i = threadIdx.x; i + max_run < tile_n; i += threads)
    long_run = long_run || key_at(i) == key_at(i + max_run);
  if (__syncthreads_or(long_run)) return false;
  // A warp stores 32 consecutive places at a time. A run of equal keys inside them ranks its
  // values by shuffles; one that reaches past them (rare) scans shared memory.
  const unsigned lane = threadIdx.x % 32;
  for (unsigned window = threadIdx.x - lane; window < tile_n; window += threads) {
    const unsigned i = window + lane;
    const bool valid = i < tile_n;
    const std::uint32_t c = valid ? sorted[i] : 0;
    // Past the keys, a different word a lane that no key offset (below 2^(32 - slot_bits)) is.
    const std::uint32_t key = valid ? c >> slot_bits : (1u << (32 - slot_bits)) + lane;
    const std::uint32_t value = valid ? values[c & slot_mask] : 0;
    std::uint32_t previous = __shfl_up_sync(~0u, key, 1), next = __shfl_down_sync(~0u, key, 1);
    if (lane == 0) previous = i > 0 ? key_at(i - 1) : ~0u;
    if (lane == 31) next = valid && i + 1 < tile_n ? key_at(i + 1) : ~0u;
    const unsigned starts = __ballot_sync(~0u, previous != key),
                   ends = __ballot_sync(~0u, next != key);
    unsigned place = i;
    if ((starts & ends) != ~0u) {  // some lanes hold equal keys
      const unsigned starts_here = starts & ((2u << lane) - 1), ends_here = ends >> lane << lane;
      const bool reaches_out = starts_here == 0 || ends_here == 0;
      const unsigned first = reaches_out ? lane : 31 - unsigned(__clz(starts_here));
      const unsigned last = reaches_out ? lane : unsigned(__ffs(int(ends_here))) - 1;
      unsigned longest = last - first + 1;
#pragma unroll
      for (unsigned d = 16; d != 0; d /= 2) {
        const unsigned other = __shfl_xor_sync(~0u, longest, d);
        longest = other > longest ? other : longest;
      }
      // This record's place in its run is its value's rank there (equal values by place), as
      // the 64-bit words would order them.
      place = window + first;
      for (unsigned d = 0; d < longest; ++d) {
        const std::uint32_t other = __shfl_sync(~0u, value, (first + d) % 32);
        if (first + d <= last) place += other < value || (other == value && first + d < lane);
      }
      if (reaches_out && valid) {
        unsigned begin = i, end = i + 1;
        while (begin > 0 && key_at(begin - 1) == key)
          --begin;
        while (end < tile_n && key_at(end) == key)
          ++end;
        place = begin;
        for (unsigned j = begin; j < end; ++j) {
          const std::uint32_t other = values[sorted[j] & slot_mask];
          place += other < value || (other == value && j < i) ? 1u : 0u;
        }
      }
    }
    if (valid) store(place, std::uint64_t{lo + key} << 32 | value);
  }
  __syncthreads();  // done reading the shared memory
  return true;
}

}  // namespace bitonic::kernels::compact_record_tile
