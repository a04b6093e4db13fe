// sort_rows for rows just past a power of two (sort_batched): a row of 2^m + r keys (r up to
// tuning::row_tails' share of 2^m) is not padded to 2^(m+1) for the register tile, which runs the
// network on twice as many positions as the row has keys (2^24 int32 keys in rows of 2049 took
// 0.297 ms against 0.142 for rows of 2048). Its tail (the last r keys) is sorted first, as rows of
// their own a row apart (sort_rows.cuh's register tile with a stride); then one kernel sorts the
// heads (the first 2^m keys) on the register tile and writes every key of the row once, at its
// place in the merged row. A tail key finds its place by a binary search of its sorted head in
// shared memory (after the head's words not greater); a head key's place is its column plus the
// tail keys placed before it, counted a head position at a time and summed over the tile (a
// binary search of the tail for every head key cost as much as the head's network). Why it is
// fast: the network runs on the keys' own positions (and the tail's padding), and the merge costs
// no pass over memory of its own (PERFORMANCE log 76). Words as in sort_rows.cuh (word_codec): one
// kernel per key size.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/sample_split.cuh"
#include "kernels/sort_rows.cuh"
#include "kernels/tuning.hpp"
#include "kernels/word_codec.cuh"
#include "network/network.hpp"

namespace bitonic::kernels::sort_row_tails {

using network::index_t;
using rows::word_codec;
using sort_rows::key_rows;
using sort_rows::row_shape;
using sort_rows::tile_of;
using tuning = ::bitonic::tuning::row_tails;

//! The head of a row of `length` keys: the greatest power of two below it.
inline index_t head_of(index_t length) {
  return index_t{1} << (network::ceil_log2(length) - 1);
}

//! Whether rows of `length` keys of W's size sort as a head and a tail: not a power of two, at
//! most a register tile, a head of at least tuning::min_head keys and a tail of at most its
//! tuning::tail_num / tail_den (longer tails cost more than the padding; the tile's tails share
//! its block's shared memory).
template <class W>
bool takes(index_t length) {
  if (length > tile_of<W>::keys || (length & (length - 1)) == 0) return false;
  const index_t head = head_of(length);
  return head >= tuning::min_head && (length - head) * tuning::tail_den <= head * tuning::tail_num;
}

//! The number of the `n` words of `run` (ascending) not greater than `word`, by a branch-free
//! binary search.
template <class W>
__device__ unsigned count_not_greater(const W* run, unsigned n, W word) {
  unsigned before = 0;
  for (unsigned step = n == 0 ? 0u : 1u << (31 - __clz(n)); step != 0; step >>= 1) {
    const unsigned next = before + step;
    if (next <= n) before = run[next - 1] <= word ? next : before;
  }
  return before;
}

//! Shared memory of head_tail_kernel<W>: the register tile's, then the tails of its rows (at most
//! tail_num / tail_den of a tile of words).
template <class W>
inline constexpr std::size_t smem_bytes = tile_of<W>::smem_bytes + std::size_t{tile_of<W>::keys} *
                                                                       tuning::tail_num /
                                                                       tuning::tail_den * sizeof(W);

//! The block's exclusive prefix sum of `value` (one a thread, in thread order); `warp_totals`:
//! shared memory of a word a warp.
__device__ inline unsigned block_exclusive_scan(unsigned value, unsigned* warp_totals) {
  const unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  unsigned total;
  const unsigned before = sample_split::warp_exclusive_scan(value, total);
  if (lane == 0) warp_totals[warp] = total;
  __syncthreads();
  if (warp == 0) {
    const unsigned mine = lane < warps ? warp_totals[lane] : 0u;
    unsigned all;
    const unsigned warp_before = sample_split::warp_exclusive_scan(mine, all);
    if (lane < warps) warp_totals[lane] = warp_before;
  }
  __syncthreads();
  return warp_totals[warp] + before;
}

template <class W>
__global__ void __launch_bounds__(tile_of<W>::threads,
                                  ::bitonic::tuning::optimized<sizeof(W)>::tile_min_blocks)
    head_tail_kernel(row_shape heads, unsigned tail, key_rows<W> rows) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  __shared__ unsigned warp_totals[32];
  using Tile = tile_of<W>;
  using lay = layout;
  static_assert(Tile::smem_bytes >= std::size_t{Tile::padded(Tile::keys)} * sizeof(unsigned),
                "a count a position of the tile fits its exchange memory, padded alike");
  Tile tile;
  tile.smem = reinterpret_cast<W*>(smem_bytes);
  // After the heads' tail searches, the exchange memory counts the tail keys that land before
  // each head position (padded as the tile's words, so that a thread's 32 consecutive counts
  // lie in 32 banks).
  unsigned* const counts = reinterpret_cast<unsigned*>(smem_bytes);
  W* const tails = reinterpret_cast<W*>(smem_bytes + Tile::smem_bytes);
  const unsigned row_log2 = heads.row_log2, rows_log2 = Tile::tile_log2 - row_log2;
  const unsigned head = 1u << row_log2;
  const index_t tiles = heads.tiles(Tile::tile_log2);
  wait_for_previous_pass();
  for (index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const index_t first_row = t << rows_log2;
    const unsigned tile_rows = heads.count - first_row < (index_t{1} << rows_log2)
                                   ? unsigned(heads.count - first_row)
                                   : 1u << rows_log2;
    const unsigned tail_keys = tile_rows * tail;
    for (unsigned i = threadIdx.x; i < tail_keys; i += Tile::threads) {
      const unsigned row = i / tail;
      tails[i] = rows.load(heads.start(first_row + row) + head + (i - row * tail), 0);
    }
    load_sorted_rows(tile, heads, rows, first_row);  // its exchanges synchronise the block
    __syncthreads();  // every exchange's read done before the heads take the exchange's memory
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.smem[tile.template index<lay::registers_mid>(m)] = tile.r[m];
    __syncthreads();
    // A tail key lands after its row's head words not greater; its place in the head, kept in
    // its staging word, counts it before the head keys from there on.
    for (unsigned i = threadIdx.x; i < tail_keys; i += Tile::threads) {
      const unsigned row = i / tail;
      const index_t start = heads.start(first_row + row);
      const W word = tails[i];
      const unsigned in_head = count_not_greater(tile.smem + (row << row_log2), head, word);
      rows.store(start + (i - row * tail) + in_head, start, word);
      tails[i] = W(in_head);
    }
    __syncthreads();                              // the heads' words read: their memory counts now
    const unsigned mine = threadIdx.x * Tile::K;  // a thread's consecutive counts
#pragma unroll
    for (unsigned k = 0; k < Tile::K; ++k)
      counts[Tile::padded(mine + k)] = 0;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < tail_keys; i += Tile::threads) {
      const unsigned in_head = unsigned(tails[i]);
      if (in_head < head) atomicAdd(&counts[Tile::padded((i / tail << row_log2) + in_head)], 1u);
    }
    __syncthreads();
    // Inclusive sums over the tile's positions: a thread's 32, then the block's.
    unsigned sum = 0;
#pragma unroll
    for (unsigned k = 0; k < Tile::K; ++k)
      sum += counts[Tile::padded(mine + k)];
    unsigned running = block_exclusive_scan(sum, warp_totals);
#pragma unroll
    for (unsigned k = 0; k < Tile::K; ++k) {
      running += counts[Tile::padded(mine + k)];
      counts[Tile::padded(mine + k)] = running;
    }
    __syncthreads();
    // A head key lands after the tail keys counted up to its position in its row.
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m) {
      const unsigned i = tile.template index<lay::registers_mid>(m), row = i >> row_log2;
      if (row < tile_rows) {
        const index_t start = heads.start(first_row + row);
        const unsigned row_first = row << row_log2;
        const unsigned before_row = row_first == 0 ? 0u : counts[Tile::padded(row_first - 1)];
        const unsigned place = (i - row_first) + counts[Tile::padded(i)] - before_row;
        rows.store(start + place, start, tile.r[m]);
      }
    }
    __syncthreads();  // the counts and tails read before the next tile's loads overwrite them
  }
}

//! Sorts each of `count` rows of `length` keys (where takes<W>(length)) as words of W's size at
//! `keys` (codec: their map and order), a head and a tail merged, on `stream` (only loads the
//! kernels under a load_only_scope).
template <class W>
void launch(W* keys, index_t count, index_t length, const word_codec<W>& codec,
            cudaStream_t stream) {
  using Tile = tile_of<W>;
  const key_rows<W> rows{keys, codec};
  const index_t head = head_of(length), tail = length - head;
  if (!takes<W>(length)) throw error("bitonic: internal error: rows of no head and tail");
  if (tail >= 2) sort_rows::launch_tile<W>(rows, count, tail, stream, length, head);
  static_assert(::bitonic::tuning::optimized<sizeof(W)>::tile_min_blocks * (smem_bytes<W> + 1024) <=
                    228 * 1024,
                "the tiles an SM holds fit its shared memory (H100: 228 KiB, 1 KiB of it a "
                "block's reserve)");
  constexpr auto kernel = head_tail_kernel<W>;
  allow_dynamic_shared_memory<kernel>(smem_bytes<W>,
                                      "cudaFuncSetAttribute(head_tail_kernel shared memory)");
  const row_shape heads{count, head, network::ceil_log2(head), length, 0};
  launch_chained(kernel, grid_blocks(heads.tiles(Tile::tile_log2), 1), Tile::threads, smem_bytes<W>,
                 stream, "head_tail_kernel launch", heads, unsigned(tail), rows);
}

}  // namespace bitonic::kernels::sort_row_tails
