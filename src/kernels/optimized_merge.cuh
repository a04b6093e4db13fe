// optimized, the stages past the tile: each stage in ONE pass over the keys, where the network
// spends two (its steps wider than a tile as gathers, then its tail). Stage s turns neighbouring
// sorted runs of 2^(s-1) keys into sorted runs of 2^s. Its steps wider than a tile only decide
// which keys of the two runs end up in which tile, and a tile of the merged run holds a
// prefix-to-prefix slice of each run, so a search (merge path: a group of lanes probing at once,
// a warp in place, 8 lanes a tile out of place past partition_narrow_min_tiles) finds them. Each
// block owns one tile of output positions, loads the first run's slice ascending and the second's
// descending (a bitonic sequence, greatest words between them) and sorts it with the tail's steps
// 2^(tile_log2-1)..1 in registers (register_tile.cuh). The keys end where the network puts them:
// sorted. Out of place it also runs on rows (kernels::key_rows: a batched plan's rows, each its
// own array): a tile lies in one row, whose keys are the array its runs and pairs are counted in.
// Two ways to run it:
// - merge_stage_kernel, out of place: one stage from one buffer into another (the plan's
//   scratch), every block on its own, so it streams like any pass: one pass a stage, n keys of
//   extra memory. The searches run before it, in partition_kernel: in the merge kernel a
//   block's 14 other warps waited on the two searching warps' chains of dependent DRAM loads
//   (docs/PERFORMANCE.md log 30).
// - merge_kernel, in place: a tile's stores overwrite keys that other tiles still have to load,
//   so every tile of a merged run is resident at once (a cooperative launch, one block a tile)
//   and grid barriers separate a stage's loads from its stores, and its stores from the next
//   stage's searches. Blocks of 2^last_stage keys run one after the other, all stages each,
//   while the L2 holds them. The phases run in lockstep (docs/PERFORMANCE.md log 29).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "kernels/greatest_pad.cuh"
#include "kernels/launch.cuh"
#include "kernels/record_io.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::optimized_merge {

using network::index_t;

template <class Key>
using tile_type = register_tile<Key>;

//! Keys of run a among the first d keys of the merge of sorted runs a and b (a's keys before
//! equal keys of b), searched by an aligned group of Lanes lanes of a warp (merge::path_split).
//! Stored: Key, or its word where an earlier pass left words (as in the rest of this file).
template <class Key, unsigned Lanes = 32, class Stored, class Less>
__device__ index_t merge_path(const Stored* a, index_t a_n, const Stored* b, index_t b_n, index_t d,
                              Less less) {
  return merge::path_split<Lanes>(a, a_n, b, b_n, d, word_less<Key, Less>{less});
}

//! Loads a[0, a_n) ascending from the tile's first position and b[0, b_n) descending up to its
//! last, the greatest word between them: a bitonic sequence, in the high layout. Two rounds, the
//! first run's keys (or pads) and then the second's over them, each register's address a
//! constant offset of one pointer, so that the loads of a round are in flight at once.
template <class Key, class Stored, class Less>
__device__ void load_bitonic(tile_type<Key>& tile, const Stored* a, unsigned a_n, const Stored* b,
                             unsigned b_n, Less less) {
  using Tile = tile_type<Key>;
  constexpr unsigned row = 1u << Tile::template base<layout::registers_high>;
  tile.refresh_thread();
  const Stored* const a_at = a + tile.thread;                     // register m: a_at[m * row]
  const Stored* const b_at = b + (Tile::keys - 1 - tile.thread);  // register m: b_at[-m * row]
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    if constexpr (is_caller_order_v<Less>) {  // no greatest word: pad_with_greatest pads
      if (tile.thread + m * row < a_n) tile.r[m] = word_of<Key>(a_at[m * row]);
    } else {
      tile.r[m] = tile.thread + m * row < a_n ? word_of<Key>(a_at[m * row]) : Tile::pad(less);
    }
  }
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    if (Tile::keys - 1 - tile.thread - m * row < b_n) {
      tile.r[m] = word_of<Key>(b_at[-std::ptrdiff_t(m * row)]);
    }
  }
}

//! Which runs a merge pairs: from every multiple of 2^span_log2, a first run of first_keys keys
//! and a second of at most second_keys (cut at n). A stage pairs neighbouring runs of
//! 2^(stage - 1); a merge of two arrays laid end to end is one pair over all n keys. Output tiles
//! never straddle two pairs: a span is a multiple of the tile, or all n keys.
struct run_pairs {
  index_t first_keys = 0, second_keys = 0;
  unsigned span_log2 = 64;  //!< 64: a single pair

  __host__ __device__ static constexpr run_pairs stage(unsigned s) {
    return {index_t{1} << (s - 1), index_t{1} << (s - 1), s};
  }
  __host__ __device__ static constexpr run_pairs one(index_t first_keys) {
    return {first_keys, ~index_t{0}, 64};
  }
};

//! Where the tile of output positions from tile_begin takes its keys: its run pair, and how far
//! into it the tile starts.
struct merge_tile {
  index_t a_begin = 0, b_begin = 0, a_n = 0, b_n = 0;
  index_t first = 0;  //!< output positions of the pair before the tile
  index_t keys = 0;   //!< the tile's keys; 0 where it does not merge (past n, or no second run)
  bool last = false;  //!< the last tile of its pair: it ends where the pair does

  template <unsigned TileKeys>
  __device__ static merge_tile locate(index_t n, run_pairs pairs, index_t tile_begin) {
    merge_tile m;
    const index_t within_span =
        pairs.span_log2 >= 64 ? ~index_t{0} : (index_t{1} << pairs.span_log2) - 1;
    m.a_begin = tile_begin & ~within_span;
    m.b_begin = m.a_begin + pairs.first_keys;
    if (tile_begin >= n || m.b_begin >= n) return m;
    m.a_n = pairs.first_keys;
    m.b_n = n - m.b_begin < pairs.second_keys ? n - m.b_begin : pairs.second_keys;
    m.first = tile_begin - m.a_begin;
    m.last = m.a_n + m.b_n - m.first <= TileKeys;
    m.keys = m.last ? m.a_n + m.b_n - m.first : TileKeys;
    return m;
  }
};

//! A tile of positions of key_rows: where its row's keys start in memory, how many there are, how
//! far into them the tile starts, and what the pass does to a split's bucket (key_rows::
//! bucket_step); no keys (length 0) for a tile of missing keys.
struct row_tile {
  index_t base = 0, length = 0, begin = 0;
  key_rows::bucket_step step{};

  __device__ static row_tile locate(key_rows rows, index_t position) {
    const key_rows::span row = rows.row_of(position);
    row_tile r;
    if (position >= row.end) return r;
    const index_t row_begin = row.end - row.length;
    r.base = row_begin + row.shift;
    r.length = row.length;
    r.begin = position - row_begin;
    r.step = rows.step_of(row);
    return r;
  }
};

//! Whether a merge from In to Out may run a split's buckets (key_rows::bucket_step): words in and
//! out, so that a bucket's pass may read the destination and write the source, and decode alone.
template <class Key, class In, class Out>
inline constexpr bool runs_buckets =
    std::is_same_v<In, Out>&& std::is_same_v<Out, typename ordered_word<Key>::type>;

//! Loads the tile's keys, the first run's a[a_lo, a_hi) and the second run's keys after its first
//! (first - a_lo) ones, as one bitonic sequence.
template <class Key, class Stored, class Less>
__device__ void load_merge_slices(tile_type<Key>& tile, const Stored* in, const merge_tile& m,
                                  index_t a_lo, index_t a_hi, Less less) {
  load_bitonic(tile, in + m.a_begin + a_lo, unsigned(a_hi - a_lo),
               in + m.b_begin + (m.first - a_lo), unsigned(m.keys - (a_hi - a_lo)), less);
}

//! Sorts the bitonic sequence load_merge_slices loaded and stores its tile_n keys at `out`, as
//! the keys' bits where `decode` (memory of words that a split's bucket's last pass fills), or
//! there as a record sort's keys and values (record_io, `out` at place `at` of its arrays).
template <class Key, class Stored, class Less, class IO = keys_only>
__device__ void merge_and_store(tile_type<Key>& tile, Stored* out, index_t tile_n, Less less,
                                bool decode = false, const IO& io = {}, index_t at = 0) {
  using Tile = tile_type<Key>;
  tile.template steps_from_high<int(Tile::tile_log2) - 1>(less);
  tile.template exchange<layout::registers_low, layout::registers_mid>();
  if constexpr (is_record_io_v<IO>) {
    if (decode) {
      const auto put = [&](unsigned i, const auto& w) { io.put(at + i, w); };
      if (tile_n == Tile::keys) {
        tile.template store_each<layout::registers_mid, true>(Tile::keys, put);
      } else {
        tile.template store_each<layout::registers_mid, false>(unsigned(tile_n), put);
      }
      return;
    }
  }
  if (decode) {
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.r[m] = key_bits<Key>(tile.r[m]);
  }
  if (tile_n == Tile::keys) {
    tile.template store<layout::registers_mid, true>(out, Tile::keys);
  } else {
    tile.template store<layout::registers_mid, false>(out, unsigned(tile_n));
  }
}

template <class Key, class Less>
__global__ void __launch_bounds__(tile_type<Key>::threads,
                                  tuning::optimized<sizeof(Key)>::tile_min_blocks)
    merge_kernel(Key* keys, index_t n, unsigned first_stage, unsigned last_stage, Less less) {
  using Tile = tile_type<Key>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  __shared__ index_t slice[2];  // keys of the first run before the tile's first and past its last
  Tile tile;
  tile.smem = reinterpret_cast<typename Tile::W*>(smem_bytes);
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  for (index_t block = 0; block < n; block += index_t{1} << last_stage) {
    const index_t tile_begin = block + index_t{blockIdx.x} * Tile::keys;
    for (unsigned s = first_stage; s <= last_stage; ++s) {
      if (s != first_stage) grid.sync();  // the previous stage's stores before these searches
      const merge_tile m = merge_tile::locate<Tile::keys>(n, run_pairs::stage(s), tile_begin);
      if (m.keys != 0) {
        if (const unsigned warp = threadIdx.x / 32; warp < 2) {  // one warp a tile end
          const index_t at = merge_path<Key>(keys + m.a_begin, m.a_n, keys + m.b_begin, m.b_n,
                                             m.first + (warp == 0 ? 0 : m.keys), less);
          if (threadIdx.x % 32 == 0) slice[warp] = at;
        }
        __syncthreads();
        load_merge_slices(tile, keys, m, slice[0], slice[1], less);
      }
      grid.sync();  // every load of the stage before any store
      if (m.keys != 0) merge_and_store(tile, keys + tile_begin, m.keys, less);
    }
  }
}

//! Threads of a block of partition_kernel.
inline constexpr unsigned partition_threads = 256;
//! From this many tiles on, partition_kernel searches with 8 lanes a tile instead of a warp:
//! its probes are scattered 32-byte reads, and with many tiles 32 a round made it bound by them,
//! where 8 take more rounds but a third of the reads (docs/PERFORMANCE.md log 32).
inline constexpr index_t partition_narrow_min_tiles = 2048;

//! For one merge out of place: splits[t] = keys of the first run before tile t's first output
//! position, for every tile t of the n positions of `rows` that merges (each row's pairs on their
//! own), by merge path (Lanes lanes a tile). Its own launch, so that the merge kernel's blocks do
//! not wait on these dependent loads from DRAM.
template <class Key, unsigned Lanes, class In, class Less>
__global__ void __launch_bounds__(partition_threads)
    partition_kernel(const In* in, const In* other, index_t n, key_rows rows, run_pairs pairs,
                     index_t* splits, Less less) {
  constexpr unsigned tile_keys = tile_type<Key>::keys;
  wait_for_previous_pass();
  if (rows.none_runs()) return;
  const index_t tiles = (n + tile_keys - 1) / tile_keys;
  const index_t groups = index_t{gridDim.x} * (partition_threads / Lanes);
  for (index_t t = (index_t{blockIdx.x} * partition_threads + threadIdx.x) / Lanes; t < tiles;
       t += groups) {
    const row_tile r = row_tile::locate(rows, t * tile_keys);
    const merge_tile m = merge_tile::locate<tile_keys>(r.length, pairs, r.begin);
    if (m.keys == 0 || !r.step.runs) continue;
    const In* const row = (r.step.to_destination ? in : other) + r.base;
    const index_t at =
        merge_path<Key, Lanes>(row + m.a_begin, m.a_n, row + m.b_begin, m.b_n, m.first, less);
    if (threadIdx.x % Lanes == 0) splits[t] = at;
  }
}

//! One merge out of place: every tile of `out` gets its slices of the two runs in `in` (where
//! partition_kernel's splits say), merged; a tile whose run has no partner is copied. No block
//! waits for another, so blocks' loads, steps and stores overlap as in any pass. The n positions
//! of `rows`: each row merges its own pairs. In and Out: Key or its word (a plan keeps words
//! between its merges). With a record_io, a bucket's last merge writes to its arrays instead.
template <class Key, class In, class Out, class Less, class IO>
__global__ void __launch_bounds__(tile_type<Key>::threads,
                                  tuning::optimized<sizeof(Key)>::tile_min_blocks)
    merge_stage_kernel(const In* in, Out* out, index_t n, key_rows rows, run_pairs pairs,
                       const index_t* splits, Less less, IO io) {
  using Tile = tile_type<Key>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  Tile tile;
  tile.smem = reinterpret_cast<typename Tile::W*>(smem_bytes);
  wait_for_previous_pass();
  if (rows.none_runs()) return;
  for (index_t t = blockIdx.x; t * Tile::keys < n; t += gridDim.x) {
    const row_tile r = row_tile::locate(rows, t * Tile::keys);
    if (r.length == 0 || !r.step.runs) continue;  // missing keys, or a bucket already sorted
    const In* row_in = in + r.base;
    Out* row_out = out + r.base;
    bool decode = false;
    if constexpr (runs_buckets<Key, In, Out>) {
      if (!r.step.to_destination) {
        row_in = out + r.base;
        row_out = const_cast<Out*>(in) + r.base;
      }
      decode = r.step.last;
    }
    const index_t tile_begin = r.begin;
    if (const merge_tile m = merge_tile::locate<Tile::keys>(r.length, pairs, tile_begin);
        m.keys != 0) {
      const index_t a_lo = splits[t], a_hi = m.last ? m.a_n : splits[t + 1];
      load_merge_slices(tile, row_in, m, a_lo, a_hi, less);
      index_t stored = m.keys;
      if constexpr (is_caller_order_v<Less>) {
        if (m.keys < Tile::keys) {  // a partial tile: no greatest word to pad with
          const auto a_n = unsigned(a_hi - a_lo), b_from = unsigned(Tile::keys - (m.keys - a_n));
          stored -= pad_with_greatest<Key, layout::registers_high>(
              tile, [&](unsigned i) { return i < a_n || i >= b_from; }, row_out + tile_begin,
              unsigned(m.keys), less);
        }
      }
      merge_and_store(tile, row_out + tile_begin, stored, less, decode, io, r.base + tile_begin);
    } else {
      const index_t end = r.length - tile_begin < Tile::keys ? r.length : tile_begin + Tile::keys;
      for (index_t i = tile_begin + threadIdx.x; i < end; i += Tile::threads) {
        const auto word = word_of<Key>(row_in[i]);
        if constexpr (is_record_io_v<IO>) {
          if (decode) {
            io.put(r.base + i, word);
            continue;
          }
        }
        if constexpr (runs_buckets<Key, In, Out>) {
          row_out[i] = decode ? key_bits<Key>(word) : word;
        } else {
          row_out[i] = stored_of<Key, Out>(word);
        }
      }
    }
  }
}

//! Whether the pass first..last is what this kernel runs: whole stages past a tile, from a
//! stage's first step to the last stage's last.
template <class Key>
bool runs(network::step first, network::step last) {
  return first.stage > tile_type<Key>::tile_log2 && first.distance_log2 + 1 == first.stage &&
         last.distance_log2 == 0 && last.stage >= first.stage;
}

//! Runs the stages first..last (see `runs`) in place on keys[0, n), whose runs of 2^(first.stage -
//! 1) keys are sorted, with one block per tile of 2^last.stage keys (all resident at once: the plan
//! keeps last.stage within plan::device_shape::resident_tiles).
template <class Key, class Less>
void launch(Key* keys, index_t n, network::step first, network::step last, Less less,
            cudaStream_t stream) {
  using Tile = tile_type<Key>;
  if (!runs<Key>(first, last)) throw error("bitonic: internal error: not a run of whole stages");
  constexpr auto kernel = merge_kernel<Key, Less>;
  allow_dynamic_shared_memory<kernel>(Tile::smem_bytes,
                                      "cudaFuncSetAttribute(optimized merge_kernel shared memory)");
  const index_t tiles =
      std::min(index_t{1} << (last.stage - Tile::tile_log2), (n + Tile::keys - 1) / Tile::keys);
  launch_cooperative(kernel, unsigned(tiles), Tile::threads, Tile::smem_bytes, stream,
                     "optimized merge_kernel cooperative launch", keys, n, first.stage, last.stage,
                     less);
}

//! index_t entries of the `splits` array that launch_stage needs for n keys of type Key.
template <class Key>
constexpr index_t split_count(index_t n) {
  return (n + tile_type<Key>::keys - 1) / tile_type<Key>::keys;
}

//! partition_kernel for `pairs` of the n positions of `rows` in `in`, Lanes lanes a tile, chained
//! on `stream`.
template <class Key, unsigned Lanes, class In, class Less>
void launch_partition(const In* in, const In* other, index_t n, key_rows rows, run_pairs pairs,
                      index_t* splits, Less less, cudaStream_t stream) {
  launch_chained(partition_kernel<Key, Lanes, In, Less>,
                 grid_blocks(split_count<Key>(n), partition_threads / Lanes), partition_threads, 0,
                 stream, "optimized partition_kernel launch", in, other, n, rows, pairs, splits,
                 less);
}

//! Merges the run pairs of the n positions of `rows` (key_rows{n}: in[0, n)) into out (another
//! buffer), one block a tile; `splits` holds split_count<Key>(n) entries. In and Out: Key or its
//! word. With a record_io, the buckets whose last merge this is go to its arrays instead.
template <class Key, class In, class Out, class Less, class IO = keys_only>
void launch_merge(const In* in, Out* out, index_t n, key_rows rows, run_pairs pairs,
                  index_t* splits, Less less, cudaStream_t stream, unsigned most_blocks = 0,
                  IO io = {}) {
  static_assert(!is_record_io_v<IO> || runs_buckets<Key, In, Out>,
                "records go to their arrays from a split's buckets only");
  using Tile = tile_type<Key>;
  const In* other = nullptr;  // where a bucket's merge reads when not from `in`
  if constexpr (runs_buckets<Key, In, Out>) other = out;
  if (split_count<Key>(n) >= partition_narrow_min_tiles) {
    launch_partition<Key, 8>(in, other, n, rows, pairs, splits, less, stream);
  } else {
    launch_partition<Key, 32>(in, other, n, rows, pairs, splits, less, stream);
  }
  launch_on_tiles_at_most<Tile, merge_stage_kernel<Key, In, Out, Less, IO>>(
      n, most_blocks, stream, "cudaFuncSetAttribute(optimized merge_stage_kernel shared memory)",
      "optimized merge_stage_kernel launch", in, out, n, rows, pairs,
      static_cast<const index_t*>(splits), less, io);
}

//! Runs stage `stage` (past the tile) on the n positions of `rows` from `in`, whose runs of
//! 2^(stage - 1) keys (counted in each row) are sorted, to `out` (another buffer). In and Out:
//! Key or its word, so that a plan can keep words between its passes. At most most_blocks blocks
//! (0: no cap; see launch_on_tiles_at_most); a record_io as launch_merge's.
template <class Key, class In, class Out, class Less, class IO = keys_only>
void launch_stage(const In* in, Out* out, index_t n, key_rows rows, unsigned stage, index_t* splits,
                  Less less, cudaStream_t stream, unsigned most_blocks = 0, IO io = {}) {
  if (stage <= tile_type<Key>::tile_log2)
    throw error("bitonic: internal error: a merged stage within a tile");
  launch_merge<Key>(in, out, n, rows, run_pairs::stage(stage), splits, less, stream, most_blocks,
                    io);
}

}  // namespace bitonic::kernels::optimized_merge
