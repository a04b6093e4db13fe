// The split's second level: every bucket of the sample split (sample_split.cuh) cut again into
// sub-buckets of about 85 % of a first-pass tile, so that the first pass sorts nearly
// every sub-bucket in one tile and the merges after it have next to nothing to do. At 2^27 8-byte
// words the split's buckets of ~2^20 keys took 7 or 8 merge passes of ~0.8 ms after the first
// pass; this level reads the keys once to count and once to scatter them, and writes them once
// (docs/PERFORMANCE.md log 69). It reads the split's output, where the split's table says each
// bucket is, and writes the sub-buckets to another buffer with a table of their own
// (refine_memory), in which sub-bucket j of bucket b is bucket b * buckets + j. Five chained
// launches, all on the device (no host synchronisation, so a graph can capture them):
// - sample_kernel: a block a bucket sorts `samples` of its keys from fixed positions and keeps
//   k - 1 splitters for k = ceil(length / (fill * tile)) sub-buckets (at most `buckets`); the
//   tree's other splitters repeat the last one, so that the sub-buckets between them are empty
//   equality buckets (sample_split.cuh). An equality bucket of the split (one word) is not cut:
//   its sub-bucket 0 takes all its keys, which the count does not read and the scatter copies.
// - count_kernel: a block a tile of the split's table (keys of one bucket) counts its keys a
//   sub-bucket.
// - scan_kernel: a block a bucket turns its tiles' counts into output indices and writes its
//   sub-buckets' first keys, lengths and merges.
// - table_kernel: a block a bucket lays its sub-buckets out on tiles of positions (tile_begin,
//   tile_bucket).
// - scatter_kernel: a block a tile of the split's table writes its keys sub-bucket by sub-bucket
//   (sample_split::scatter_tile, stable where asked), a chunk of tile_keys at a time.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "bitonic/bitonic.hpp"
#include "kernels/buckets.hpp"
#include "kernels/launch.cuh"
#include "kernels/record_io.cuh"
#include "kernels/sample_split.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::sample_refine {

using network::index_t;
using sample_split::split_memory;
using sample_split::word_t;

//! Tile t of the split's table: where its keys start in the split's output, how many there are
//! (0: a tile past the last bucket's) and their bucket.
struct split_tile {
  index_t first = 0;
  unsigned keys = 0, bucket = bucket_table::no_bucket;
  bool equal = false;  //!< of an equality bucket: all its keys one word, sub-bucket 0 all of them

  __device__ static split_tile of(const split_memory& s, index_t t) {
    const unsigned b = s.tile_bucket[t];
    if (b == bucket_table::no_bucket) return {};
    const index_t first = s.key_begin[b] + ((t - s.tile_begin[b]) << s.tile_log2);
    const index_t left = s.key_begin[b + 1] - first, tile = index_t{1} << s.tile_log2;
    return {first, unsigned(left < tile ? left : tile), b, s.equal[b] != 0};
  }
};

//! Calls, for every tile t of the split's table that this block owns (grid-stride) and that
//! holds keys: equal(t, tile) for a tile of an equality bucket (whose keys all go to its
//! sub-bucket 0 unread), else begin(t, tile), then (its bucket's splitters loaded into `split` for
//! `less`, which synchronises the block) run(chunk_keys, chunk_n, any_equal) for each chunk of
//! the tile's keys (sample_split::load_tile<WarpMajor>'s), then end(t). The whole block calls it.
template <class T, bool WarpMajor, class Key, class Less, class Equal, class Begin, class Run,
          class End>
__device__ void for_each_split_tile(const Key* keys, const split_memory& s, const refine_memory& r,
                                    sample_split::shared_splitters<T, word_t<Key>>& split,
                                    Less less, Equal equal, Begin begin, Run run, End end) {
  using W = word_t<Key>;
  const sample_split::split_input<Key, keys_only> in{keys};
  for (index_t t = blockIdx.x; t < s.tiles; t += gridDim.x) {
    const split_tile tile = split_tile::of(s, t);
    if (tile.keys == 0) continue;
    if (tile.equal) {
      equal(t, tile);
      continue;
    }
    begin(t, tile);
    const bool any_equal =
        split.load(static_cast<const W*>(r.splitters) + std::size_t{tile.bucket} * (T::buckets - 1),
                   r.equal + std::size_t{tile.bucket} * T::buckets, less);
    for (unsigned done = 0; done < tile.keys; done += T::tile_keys) {
      const unsigned chunk = tile.keys - done < T::tile_keys ? tile.keys - done : T::tile_keys;
      Key chunk_keys[T::keys_per_thread];
      sample_split::load_tile<T, WarpMajor>(chunk_keys, in, tile.first + done, chunk);
      run(chunk_keys, chunk, any_equal);
    }
    end(t);
  }
}

//! Block b: sorts the words of `samples` keys of bucket b (at fixed, evenly spread positions)
//! and writes its sub-buckets' splitters and equality buckets.
template <class Key, class Less>
__global__ void __launch_bounds__(tuning::sample_refine<sizeof(Key)>::sample_threads)
    sample_kernel(const Key* keys, split_memory s, refine_memory r, index_t target, Less less) {
  using T = tuning::sample_refine<sizeof(Key)>;
  using W = word_t<Key>;
  constexpr unsigned rounds = T::samples / T::sample_threads;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  W* const sample = reinterpret_cast<W*>(smem_bytes);  // T::samples words
  const unsigned b = blockIdx.x;
  wait_for_previous_pass();
  if (threadIdx.x == 0) {  // the scan kernel adds to and raises them
    r.bucket_tiles[b] = 0;
    if (b == 0) *r.most_merges = 0;
  }
  const index_t first = s.key_begin[b], n = s.key_begin[b + 1] - first;
  if (n == 0) return;     // no tile is this bucket's: nothing reads its splitters
  if (s.equal[b] != 0) {  // one word: sub-bucket 0 an equality bucket of all its keys, no splitters
    for (unsigned j = threadIdx.x; j < T::buckets; j += T::sample_threads)
      r.equal[std::size_t{b} * T::buckets + j] = j == 0 ? 1u : 0u;
    return;
  }
  sample_split::sort_sample<T::samples, rounds>(
      sample, n, [&](index_t at) { return word_of<Key>(keys[first + at]); }, less);
  // k sub-buckets of about `target` keys: splitter j < k - 1 is the sample's (j + 1) / k
  // quantile, the later ones repeat splitter k - 2 (for k = 1: the sample's greatest word).
  const index_t wanted = (n + target - 1) / target;
  const unsigned k = wanted > T::buckets ? T::buckets : unsigned(wanted);
  const unsigned last_real = k < 2 ? 0 : k - 2;
  sample_split::write_splitters<T::buckets_log2>(
      [&](unsigned j) {
        const unsigned real = j < last_real ? j : last_real;
        return sample[(real + 1) * T::samples / k - 1];
      },
      static_cast<W*>(r.splitters) + std::size_t{b} * (T::buckets - 1),
      r.equal + std::size_t{b} * T::buckets, less);
}

//! Block t of the grid (grid-stride): counts[t * buckets + j] = the keys of the split's tile t in
//! sub-bucket j of its bucket.
template <class Key, class Less>
__global__ void __launch_bounds__(tuning::sample_refine<sizeof(Key)>::block_threads,
                                  tuning::sample_refine<sizeof(Key)>::count_min_blocks)
    count_kernel(const Key* keys, split_memory s, refine_memory r, Less less) {
  using T = tuning::sample_refine<sizeof(Key)>;
  using W = word_t<Key>;
  __shared__ sample_split::shared_splitters<T, W> split;
  __shared__ unsigned histogram[T::buckets];
  wait_for_previous_pass();
  for_each_split_tile<T, false>(
      keys, s, r, split, less,
      [&](index_t t, const split_tile& tile) {
        for (unsigned j = threadIdx.x; j < T::buckets; j += T::block_threads)
          r.counts[t * T::buckets + j] = j == 0 ? tile.keys : 0u;
      },
      [&](index_t, const split_tile&) {
        for (unsigned j = threadIdx.x; j < T::buckets; j += T::block_threads)
          histogram[j] = 0;
      },
      [&](const Key(&chunk_keys)[T::keys_per_thread], unsigned chunk, bool any_equal) {
        sample_split::count_tile<T>(chunk_keys, chunk, split, any_equal, histogram, less);
      },
      [&](index_t t) {
        __syncthreads();
        for (unsigned j = threadIdx.x; j < T::buckets; j += T::block_threads)
          r.counts[t * T::buckets + j] = histogram[j];
        __syncthreads();  // the counts are read before the next tile zeroes them
      });
}

//! Block b of the split's buckets: each count of bucket b's tiles becomes the output index of that
//! (tile, sub-bucket)'s first key, from the bucket's first key; and bucket b's sub-buckets get
//! their entries of the table (first key, length, merges, and the most merges any takes). Groups
//! of a thread a sub-bucket take a quarter of the tiles each.
template <class T>
__global__ void __launch_bounds__(T::scan_threads)
    scan_kernel(split_memory s, refine_memory r, index_t n) {
  constexpr unsigned groups = T::scan_threads / T::buckets;
  __shared__ unsigned group_sums[groups][T::buckets];
  __shared__ unsigned warp_sums[T::buckets / 32];
  __shared__ unsigned warp_before[T::buckets];
  const unsigned b = blockIdx.x, j = threadIdx.x % T::buckets, g = threadIdx.x / T::buckets;
  wait_for_previous_pass();
  const index_t tiles = s.tile_begin[b + 1] - s.tile_begin[b], per = (tiles + groups - 1) / groups;
  const index_t lo = s.tile_begin[b] + (g * per < tiles ? g * per : tiles);
  const index_t hi = s.tile_begin[b] + ((g + 1) * per < tiles ? (g + 1) * per : tiles);
  unsigned sum = 0;
#pragma unroll 4
  for (index_t t = lo; t < hi; ++t)
    sum += r.counts[t * T::buckets + j];
  group_sums[g][j] = sum;
  __syncthreads();
  unsigned total = 0, before_group = 0;
#pragma unroll
  for (unsigned h = 0; h < groups; ++h) {
    if (h < g) before_group += group_sums[h][j];
    total += group_sums[h][j];
  }
  if (g == 0) {  // sub-bucket j's first key: the exclusive sum of the totals before it
    unsigned warp_total;
    warp_before[j] = sample_split::warp_exclusive_scan(total, warp_total);
    if (j % 32 == 0) warp_sums[j / 32] = warp_total;
  }
  __syncthreads();
  unsigned base = warp_before[j];
  for (unsigned w = 0; w < j / 32; ++w)
    base += warp_sums[w];
  unsigned next = base + before_group;
#pragma unroll 4
  for (index_t t = lo; t < hi; ++t) {
    const unsigned count = r.counts[t * T::buckets + j];
    r.counts[t * T::buckets + j] = next;
    next += count;
  }
  if (g != 0) return;
  const index_t sub = index_t{b} * T::buckets + j;
  r.key_begin[sub] = s.key_begin[b] + base;
  r.lengths[sub] = total;
  // An empty bucket's sample kernel wrote no equality buckets: its sub-buckets are empty.
  const index_t sub_tiles = (index_t{total} + (index_t{1} << r.tile_log2) - 1) >> r.tile_log2;
  const unsigned merges =
      total == 0 || r.equal[sub] != 0 ? 0u : bucket_table::merge_stages(sub_tiles);
  r.merges[sub] = merges;
  if (merges != 0) atomicMax(r.most_merges, merges);
  if (b + 1 == gridDim.x && j == 0) r.key_begin[r.buckets] = n;
  // The bucket's tiles, for the table kernel: a warp's sum, added by its first lane.
  const unsigned warp_tiles = __reduce_add_sync(~0u, unsigned(sub_tiles));
  if (j % 32 == 0 && warp_tiles != 0) {
    static_assert(sizeof(index_t) == sizeof(unsigned long long), "64-bit atomics");
    atomicAdd(reinterpret_cast<unsigned long long*>(&r.bucket_tiles[b]),
              static_cast<unsigned long long>(warp_tiles));
  }
}

//! Block b of the split's buckets, a thread a sub-bucket: each of bucket b's sub-buckets' first
//! tile of positions (after the tiles of all sub-buckets before it), the sub-bucket of each of
//! their tiles, and (the last block) no_bucket past the last sub-bucket's.
template <class T>
__global__ void __launch_bounds__(T::buckets) table_kernel(refine_memory r) {
  static_assert(T::buckets <= 1024 && T::buckets % 32 == 0, "a thread a sub-bucket");
  constexpr unsigned warps = T::buckets / 32;
  __shared__ index_t warp_sums[2][warps];
  __shared__ index_t first_tile[T::buckets];  // from the bucket's first
  const unsigned b = blockIdx.x, j = threadIdx.x, warp = j / 32;
  wait_for_previous_pass();
  const auto tiles_of = [&](index_t length) {
    return (length + (index_t{1} << r.tile_log2) - 1) >> r.tile_log2;
  };
  // The tiles of the buckets before b (a thread each: the split's buckets <= T::buckets), and the
  // exclusive sum of this bucket's sub-buckets' tiles before sub-bucket j.
  const index_t sub = index_t{b} * T::buckets + j, tiles = tiles_of(r.lengths[sub]);
  index_t totals[2];
  const index_t before = sample_split::warp_exclusive_scan(tiles, totals[0]);
  totals[1] = j < b ? r.bucket_tiles[j] : 0;
#pragma unroll
  for (unsigned w = 16; w >= 1; w /= 2)
    totals[1] += __shfl_xor_sync(~0u, totals[1], w);
  if (j % 32 == 0) {
    warp_sums[0][warp] = totals[0];
    warp_sums[1][warp] = totals[1];
  }
  __syncthreads();
  index_t within = before, bucket_base = 0, bucket_total = 0;
  for (unsigned w = 0; w < warps; ++w) {
    if (w < warp) within += warp_sums[0][w];
    bucket_total += warp_sums[0][w];
    bucket_base += warp_sums[1][w];
  }
  r.tile_begin[sub] = bucket_base + within;
  first_tile[j] = within;
  __syncthreads();
  // Tile t of the bucket is its last sub-bucket whose first tile is not past t (an empty one
  // shares its first tile with the next, so that is never one).
  for (index_t t = j; t < bucket_total; t += T::buckets) {
    unsigned lo = 0, hi = T::buckets;  // first_tile[lo] <= t < first_tile[hi]
    while (hi - lo > 1) {
      const unsigned mid = (lo + hi) / 2;
      if (first_tile[mid] <= t) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    if (bucket_base + t < r.tiles) r.tile_bucket[bucket_base + t] = unsigned(b * T::buckets + lo);
  }
  if (b + 1 == gridDim.x) {
    const index_t all = bucket_base + bucket_total;
    if (j == 0) r.tile_begin[r.buckets] = all;
    for (index_t t = all + j; t < r.tiles; t += T::buckets)
      r.tile_bucket[t] = bucket_table::no_bucket;
  }
}

//! Block t of the grid (grid-stride): the keys of the split's tile t to `out`, each sub-bucket's
//! from the output index the scan gave (t, sub-bucket), a chunk at a time staged in dynamic shared
//! memory (tuning::sample_refine::staged_bytes).
template <bool Stable, class Key, class Less>
__global__ void __launch_bounds__(tuning::sample_refine<sizeof(Key)>::block_threads,
                                  tuning::sample_refine<sizeof(Key)>::scatter_min_blocks)
    scatter_kernel(const Key* keys, Key* out, split_memory s, refine_memory r, Less less) {
  using T = tuning::sample_refine<sizeof(Key)>;
  __shared__ sample_split::scatter_state<T, Key, Stable> state;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  Key* const staged = reinterpret_cast<Key*>(smem_bytes);
  unsigned char* const staged_bucket = smem_bytes + std::size_t{T::tile_keys} * sizeof(Key);
  wait_for_previous_pass();
  sample_split::clear_counts(state);  // the first tile's splitters load synchronises
  index_t next[T::buckets / 32]{};    // unstable: warp 0's running output indices (start_outputs)
  for_each_split_tile<T, Stable>(
      keys, s, r, state.split, less,
      [&](index_t t, const split_tile& tile) {  // a copy to sub-bucket 0's place
        Key* const to = out + s.key_begin[tile.bucket] + r.counts[t * T::buckets];
        for (unsigned i = threadIdx.x; i < tile.keys; i += T::block_threads)
          to[i] = keys[tile.first + i];
      },
      [&](index_t t, const split_tile& tile) {
        // The previous tile's last reads of the indices came before its last barrier.
        sample_split::start_outputs(state, next, [&](unsigned j) {
          return s.key_begin[tile.bucket] + r.counts[t * T::buckets + j];
        });
      },
      [&](const Key(&chunk_keys)[T::keys_per_thread], unsigned chunk, bool any_equal) {
        sample_split::scatter_tile<Stable, T>(chunk_keys, chunk, state, any_equal, next, staged,
                                              staged_bucket, out, less);
      },
      [](index_t) {});  // scatter_tile ends on a barrier
}

//! Cuts every bucket of the split of n keys (n < 2^32) that launch_split wrote to `split_keys`,
//! with its memory at `memory`, into sub-buckets under `less` on the keys' words: writes the keys
//! to `out` (another buffer of n keys) sub-bucket by sub-bucket, the same bits, and the
//! sub-buckets' table to the refine_memory behind the split's
//! (refine_memory::carve_behind_split(memory, ...).table() reads it). Five launches chained on
//! `stream`. Stable: each sub-bucket keeps its keys in the order the split left them
//! (stable_split).
template <bool Stable, class Key, class Less>
void launch_refine(const Key* split_keys, Key* out, index_t n, void* memory, unsigned tile_log2,
                   Less less, cudaStream_t stream) {
  using T = tuning::sample_refine<sizeof(Key)>;
  if (n >= (index_t{1} << 32)) {
    throw error("bitonic: internal error: a refined split of 2^32 keys or more");
  }
  const split_memory s = split_memory::carve(memory, n, sizeof(Key), tile_log2);
  const refine_memory r = refine_memory::carve_behind_split(memory, n, sizeof(Key), tile_log2);
  const unsigned tile_blocks = grid_blocks(s.tiles, 1);
  constexpr std::size_t sample_bytes = std::size_t{T::samples} * sizeof(word_t<Key>);
  allow_dynamic_shared_memory<sample_kernel<Key, Less>>(
      sample_bytes, "cudaFuncSetAttribute(sample_refine sample_kernel shared memory)");
  launch_chained(sample_kernel<Key, Less>, s.buckets, T::sample_threads, sample_bytes, stream,
                 "sample_refine sample_kernel launch", split_keys, s, r,
                 index_t{tuning::sample_refine_target_keys(sizeof(Key), tile_log2)}, less);
  launch_chained(count_kernel<Key, Less>, tile_blocks, T::block_threads, 0, stream,
                 "sample_refine count_kernel launch", split_keys, s, r, less);
  launch_chained(scan_kernel<T>, s.buckets, T::scan_threads, 0, stream,
                 "sample_refine scan_kernel launch", s, r, n);
  launch_chained(table_kernel<T>, s.buckets, T::buckets, 0, stream,
                 "sample_refine table_kernel launch", r);
  allow_dynamic_shared_memory<scatter_kernel<Stable, Key, Less>>(
      T::staged_bytes, "cudaFuncSetAttribute(sample_refine scatter_kernel shared memory)");
  launch_chained(scatter_kernel<Stable, Key, Less>, tile_blocks, T::block_threads, T::staged_bytes,
                 stream, "sample_refine scatter_kernel launch", split_keys, out, s, r, less);
}

}  // namespace bitonic::kernels::sample_refine
