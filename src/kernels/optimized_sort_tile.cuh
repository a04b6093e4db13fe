// optimized, first pass: sorts every tile of 2^tile_log2 keys (stages 1..tile_log2) in one
// launch, 32 keys a thread in registers (register_tile.cuh). It runs the network's classic form
// (step (s, j) pairs i with i ^ 2^j, descending where bit s of i is set), which sorts a tile just
// as the flip form does and lets every step act on one index bit: each step is 16 register
// compare-exchanges in the layout that holds its bit, 24 layout exchanges for the 105 steps of a
// 2^14 tile (16 of them inside a warp). The first tile kernel ran 35 of those steps as warp
// shuffles and 10 as shared-memory round trips, 2.5x the instructions. Directions cost nothing
// per comparator: the registers hold each key XORed with all ones where its block of the current
// stage is descending (~w reverses the order of words), so every comparator is ascending, and a
// change of stage is one XOR per key. For 8-byte keys the stages run as a loop, each layout's
// steps compiled once: unrolled, they overflowed the instruction cache (PERFORMANCE.md log 32).
// A partial tile is padded with the greatest word and runs only the stages of the smallest power
// of two that holds its keys (warps of pads only sit out the warp-local ones). A split's equality
// bucket (one word) is not sorted: moved or decoded where it must be, else left as it lies. It may
// read keys from one buffer and write them, or their words for the merges that follow, to another
// (plans that merge out of place start so when their merges are odd in number, so that the last one
// lands in the caller's keys). In plans for few tiles (plan::device_shape) the first pass runs as
// two parts: stages 1..w on every warp's 2^w keys (w = warp_stages: 10, or 9 for 8-byte keys, 16 a
// thread), in blocks of two warps spread over the SMs, each 2^w-key block sorted ascending; then
// stages w+1..tile_log2 on tiles of as many keys a thread (smaller tiles when n is), loading every
// odd 2^w block back to front, which gives the classic form's state after stage w. A refined
// record sort's tile tries compact_record_tile.cuh first: 32-bit words where its keys allow.
#pragma once

#include <cuda_runtime.h>

#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "kernels/compact_record_tile.cuh"
#include "kernels/launch.cuh"
#include "kernels/record_io.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::optimized_sort_tile {

using network::index_t;

//! In stage S a key sits XORed with this for register m in layout L: all ones where stage S
//! sorts descending (blocks of 2^S keys with bit S of the tile index set), except in the last
//! stage, which sorts ascending. `last` is a constant in the sort's kernels and a run-time value
//! in sort_rows (sort_rows.cuh), whose rows end after fewer stages than a tile has.
template <unsigned S, layout L = layout::registers_low, class Tile>
__device__ typename Tile::W stage_code(const Tile& tile, unsigned m, unsigned last) {
  return S < last ? tile.template bit_mask<L>(m, S) : typename Tile::W(0);
}

//! The keys' change of code (stage_code) from stage s < last to stage s + 1, in the low
//! layout, for a stage known only at run time: bits R and up of the tile index are the thread's
//! (one mask for all its registers), bits 0..R-1 the register's (stages 1..R-1, each compiled
//! apart).
template <class Tile>
__device__ void next_stage_code(Tile& tile, unsigned s, unsigned last) {
  using W = typename Tile::W;
  if (s >= Tile::R) {
    const unsigned thread_bits = (tile.warp << Tile::warp_log2) + (tile.lane << Tile::R);
    const unsigned flips = (thread_bits >> s) ^ (s + 1 < last ? thread_bits >> (s + 1) : 0u);
    const W flip = (flips & 1u) ? W(~W(0)) : W(0);
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.r[m] ^= flip;
    return;
  }
  const auto recode = [&](auto stage) {
    constexpr unsigned S = decltype(stage)::value;
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.r[m] ^= stage_code<S>(tile, m, last) ^ stage_code<S + 1>(tile, m, last);
  };
  switch (s) {
    case 1:
      recode(std::integral_constant<unsigned, 1>{});
      break;
    case 2:
      recode(std::integral_constant<unsigned, 2>{});
      break;
    case 3:
      recode(std::integral_constant<unsigned, 3>{});
      break;
    default:
      if constexpr (Tile::R > 4) recode(std::integral_constant<unsigned, 4>{});
  }
}

//! Stages First..Last on registers in the low layout (or the high one when FromHigh), coded for
//! stage First (stage_code); ends in the low layout. For 8-byte words a loop, not unrolled: each
//! layout's steps are compiled once and entered at the stage's top bit: unrolled, the 91 steps
//! of an 8-byte tile overflowed the instruction cache. 4-byte words unroll the same loop (the
//! compiler folds each stage's switches and codes), which was a little faster for them
//! (docs/PERFORMANCE.md log 32). `stop` (at most Last; a run-time value only in sort_rows) ends
//! the stages early, its blocks ascending: the tile's rows of 2^stop keys are then each sorted.
template <unsigned First, unsigned Last, bool FromHigh = false, class Tile, class Less>
__device__ void stages(Tile& tile, Less less, unsigned stop = Last) {
  using lay = layout;
  constexpr unsigned high = Tile::template base<lay::registers_high>, R = Tile::R;
  constexpr unsigned warp_log2 = Tile::warp_log2;
  static_assert(!FromHigh || First > warp_log2,
                "the high layout holds no bits of a warp's keys but the threads'");
  static_assert(Last <= high + R, "the tile holds the stages' blocks");
  constexpr unsigned unrolled = sizeof(typename Tile::W) >= 8 ? 1 : Last - First + 1;
#pragma unroll unrolled
  for (unsigned s = First; s <= Last; ++s) {
    if (s > stop) break;
    if (s > warp_log2) {  // bits warp_log2 and up are warp bits in the low and mid layouts
      if (!FromHigh || s != First)
        tile.template exchange<lay::registers_low, lay::registers_high>();
      tile.template steps_from_register_bit<lay::registers_high>(s - 1 - high, less);
      tile.template exchange<lay::registers_high, lay::registers_mid>();
    } else if (s > 5) {  // bits 5..warp_log2-1 are lane bits in the low layout
      tile.template exchange<lay::registers_low, lay::registers_mid>();
    }
    if (s > 5) {
      tile.template steps_from_register_bit<lay::registers_mid>((s > warp_log2 ? high : s) - 6,
                                                                less);
      tile.template exchange<lay::registers_mid, lay::registers_low>();
    }
    if (s > R) tile.template lane_steps<4, int(R)>(less);  // R = 4: bit 4, a lane bit in both
    tile.template steps_from_register_bit<lay::registers_low>((s < R ? s : R) - 1, less);
    if (s < stop) next_stage_code(tile, s, stop);
  }
}

//! Stages 1..Last (through `stop`, see `stages`) on a tile loaded in the mid layout, where it ends.
template <unsigned Last, class Tile, class Less>
__device__ void sort_mid_tile(Tile& tile, Less less, unsigned stop = Last) {
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    tile.r[m] ^= stage_code<1, layout::registers_mid>(tile, m, stop);
  tile.template exchange<layout::registers_mid, layout::registers_low>();
  stages<1, Last>(tile, less, stop);
  tile.template exchange<layout::registers_low, layout::registers_mid>();
}

//! Which part of the first pass a launch runs: stages First..Last on tiles of 2^TileLog2 keys
//! held by blocks of 2^(TileLog2 - RegisterBits) threads.
template <class Key, unsigned TileLog2, unsigned First, unsigned Last, unsigned MinBlocks,
          unsigned RegisterBits = 5>
struct part {
  using T = tuning::optimized<sizeof(Key)>;
  static_assert(First == 1 || First == T::warp_stages + 1,
                "a first pass starts at stage 1, the second half of a split one after the warps'");
  static_assert(First <= Last && Last <= TileLog2, "a tile holds the stages' blocks");
  using tile_type = register_tile<Key, TileLog2, RegisterBits>;
  static constexpr unsigned first = First, last = Last, min_blocks = MinBlocks;
};

template <class Key>
using tune = tuning::optimized<sizeof(Key)>;
//! The whole first pass: stages 1..tile_log2 on tiles.
template <class Key>
using whole = part<Key, tune<Key>::tile_log2, 1, tune<Key>::tile_log2, tune<Key>::tile_min_blocks,
                   tune<Key>::tile_register_bits>;
//! The split first pass: stages 1..warp_stages on every warp's keys, then the rest on tiles of
//! 2^TileLog2 keys: a whole tile, or less when n is (a small n on a padded full tile wastes its
//! steps on pads).
template <class Key>
using warps = part<Key, tune<Key>::warp_block_log2, 1, tune<Key>::warp_stages,
                   tune<Key>::warp_block_min_blocks, tune<Key>::warp_register_bits>;
template <class Key, unsigned TileLog2>
using rest =
    part<Key, TileLog2, tune<Key>::warp_stages + 1, TileLog2,
         tuning::register_tile_min_blocks(sizeof(Key), TileLog2, tune<Key>::warp_register_bits),
         tune<Key>::warp_register_bits>;

//! The stages that sort a partial tile of tile_n keys (>= 1): those of the smallest power of two
//! that holds them, at most `last`.
__device__ inline unsigned partial_tile_stages(unsigned tile_n, unsigned last) {
  const unsigned stages = tile_n <= 2 ? 1u : 32u - unsigned(__clz(tile_n - 1));
  return stages < last ? stages : last;
}

//! Stores a split's bucket's tile (words in the mid layout) after its first pass: in place where
//! its merges are odd in number, else to `keys`; as keys where it takes no merge (its last pass).
template <class Key, bool Full, class Tile, class In, class Out>
__device__ void store_tile(Tile& tile, const In* in, Out* keys, index_t base, unsigned tile_n,
                           const key_rows::bucket_step& step) {
  Out* const out = step.to_destination ? keys : reinterpret_cast<Out*>(const_cast<In*>(in));
  if (step.last) {
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.r[m] = key_bits<Key>(tile.r[m]);
  }
  tile.template store<layout::registers_mid, Full>(out + base, tile_n);
}

template <class Key, class In, class Out, class Part, class Less, class IO>
__global__ void __launch_bounds__(Part::tile_type::threads, Part::min_blocks)
    sort_tiles_kernel(const In* in, Out* keys, index_t n, key_rows rows, Less less, IO io) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using lay = layout;
  typename Part::tile_type tile;
  tile.smem = reinterpret_cast<typename Part::tile_type::W*>(smem_bytes);
  wait_for_previous_pass();
  // Where the keys may be a split's buckets (key_rows::bucket_step): words in and out.
  constexpr bool buckets =
      sizeof(In) == sizeof(Out) && std::is_same_v<Out, typename ordered_word<Key>::type>;
  for_each_row_tile<Part::tile_type::keys>(
      n, rows, [&](index_t base, unsigned tile_n, auto full, const key_rows::span& row) {
        constexpr bool Full = decltype(full)::value;
        if constexpr (buckets && Part::first == 1 && !is_record_io_v<IO>) {
          if (row.equal) {  // one word: sorted as it lies, to be moved or decoded at most
            const key_rows::bucket_step step = rows.step_of(row);
            // In place, keys that are their own words: nothing to do.
            if (!step.to_destination && std::is_same_v<Key, Out>) return;
            tile.template load<lay::registers_mid, Full>(in + base, tile_n, less);
            store_tile<Key, Full>(tile, in, keys, base, tile_n, step);
            return;
          }
        }
        if constexpr (buckets && Part::first == 1 && Part::last == Part::tile_type::tile_log2 &&
                      std::is_same_v<In, std::uint64_t> &&
                      compact_record_tile::applies<typename Part::tile_type, Less, IO>) {
          // A sub-bucket: its keys' words likely span a narrow range.
          if (rows.refined_first_pass()) {
            const key_rows::bucket_step step = rows.step_of(row);
            Out* const out = step.to_destination ? keys : const_cast<Out*>(in);
            const bool sorted = compact_record_tile::sort<typename Part::tile_type, Full>(
                in + base, tile_n, stable_split(io) || (step.last && !io.by_class), smem_bytes,
                [less](auto& t32) { sort_mid_tile<Part::last>(t32, less); },
                [=](unsigned i, std::uint64_t w) {
                  if (step.last) {
                    io.put(base + i, w);
                  } else {
                    out[base + i] = w;
                  }
                });
            if (sorted) return;
          }
        }
        if constexpr (Part::first == 1) {
          // A partial tile's keys fit its first 2^stop positions, which stages 1..stop sort (the
          // rest hold pads); through stage warp_log2 each warp sorts its own keys, so warps of
          // pads only (in rows with missing keys, most of a row's last tile) have nothing to do.
          constexpr unsigned warp_log2 = Part::tile_type::warp_log2;
          const unsigned stop = Full ? Part::last : partial_tile_stages(tile_n, Part::last);
          if (!Full && stop <= warp_log2 && (threadIdx.x / 32) << warp_log2 >= tile_n) return;
          tile.template load<lay::registers_mid, Full>(in + base, tile_n, less);
          sort_mid_tile<Part::last>(tile, less, stop);
        } else {
          constexpr unsigned sorted_log2 = Part::first - 1;
          tile.template load_high_mirrored<sorted_log2, Full>(in + base, tile_n, less);
#pragma unroll
          for (unsigned m = 0; m < tile.K; ++m)
            tile.r[m] ^= stage_code<Part::first, lay::registers_high>(tile, m, Part::last);
          stages<Part::first, Part::last, true>(tile, less);
          tile.template exchange<lay::registers_low, lay::registers_mid>();
        }
        if constexpr (buckets) {
          // A split's bucket (key_rows::bucket_step): a record sort's last pass writes the keys
          // and values apart (record_io).
          const key_rows::bucket_step step = rows.step_of(row);
          if constexpr (is_record_io_v<IO>) {
            if (step.last) {
              tile.template store_each<lay::registers_mid, Full>(
                  tile_n, [&](unsigned i, const auto& w) { io.put(base + i, w); });
              return;
            }
          }
          store_tile<Key, Full>(tile, in, keys, base, tile_n, step);
        } else {
          tile.template store<lay::registers_mid, Full>(keys + base, tile_n);
        }
      });
}

//! Calls run(Part{}) with the part of the first pass that runs the pass first..last on n keys and
//! returns true, or returns false if none does. Stages 1..S (or warp_stages+1..S) with S short of
//! a part's last stage are that part when n fits 2^S keys: sorting all of them as one padded tile
//! is the same. Stages warp_stages+1..S get the smallest rest tile from 2^RestLog2 up that fits.
template <class Key, unsigned RestLog2 = tune<Key>::warp_block_log2 + 1, class Run>
bool with_part(network::step first, network::step last, index_t n, Run run) {
  const auto ends = [&](unsigned part_last) {
    return last.distance_log2 == 0 &&
           (last.stage == part_last || (last.stage < part_last && n <= (index_t{1} << last.stage)));
  };
  if constexpr (sizeof(Key) == 16) {  // record words: split plans, whole tiles only
    if (first != network::step{1, 0} || !ends(whole<Key>::last)) return false;
    run(whole<Key>{});
    return true;
  } else {
    constexpr unsigned rest_first = tune<Key>::warp_stages + 1;
    if (first == network::step{rest_first, rest_first - 1}) {  // the smallest tile that fits
      if (last.stage < rest_first) return false;
      if (ends(RestLog2)) {
        run(rest<Key, RestLog2>{});
        return true;
      }
      if constexpr (RestLog2 < tune<Key>::tile_log2) {
        return with_part<Key, RestLog2 + 1>(first, last, n, run);
      }
      return false;
    }
    if (first == network::step{1, 0} && ends(warps<Key>::last)) {
      run(warps<Key>{});
    } else if (first == network::step{1, 0} && ends(whole<Key>::last)) {
      run(whole<Key>{});
    } else {
      return false;
    }
    return true;
  }
}

//! Whether the pass first..last on n keys is a first pass or a part of one (see with_part).
template <class Key>
bool runs(network::step first, network::step last, index_t n) {
  return with_part<Key>(first, last, n, [](auto) {});
}

//! Runs the pass first..last (see `runs`) on the n positions of `rows` (launch.cuh) in `in`
//! under `less`: every tile (the last of a row may be partial) gets the pass's stages and goes to
//! the same place in `keys`, which may be `in`. In and Out are Key or its word
//! (register_tile::load and store): a plan may store words for the passes after this one. With a
//! record_io, the buckets that end here go to its arrays instead.
template <class Key, class In, class Out, class Less, class IO = keys_only>
void launch(const In* in, Out* keys, index_t n, key_rows rows, network::step first,
            network::step last, Less less, cudaStream_t stream, IO io = {}) {
  const bool known = with_part<Key>(first, last, n, [&](auto part) {
    using Part = decltype(part);
    launch_on_tiles<typename Part::tile_type, sort_tiles_kernel<Key, In, Out, Part, Less, IO>>(
        n, stream, "cudaFuncSetAttribute(optimized sort_tiles_kernel shared memory)",
        "optimized sort_tiles_kernel launch", in, keys, n, rows, less, io);
  });
  if (!known) throw error("bitonic: internal error: not a first pass nor a part of one");
}

}  // namespace bitonic::kernels::optimized_sort_tile
