// sort_rows for rows just past a power of two (sort_batched, and the record rows of
// sort_batched_pairs and argsort_batched): a row of 2^m + r elements (r up to tuning::row_tails'
// share of 2^m) is not padded to 2^(m+1) for the register tile, which runs the network on twice
// as many positions as the row has elements (2^24 int32 keys in rows of 2049 took 0.297 ms against
// 0.142 for rows of 2048). Its tail (the last r) is sorted first, as rows of their own a row apart
// (sort_rows.cuh's register tile with a stride); then one kernel sorts the heads (the first 2^m)
// on the register tile, puts them and the tile's tails in shared memory, and writes every element
// of its rows once, merged: the rows' memory is cut into blocks (for keys aligned 32-byte blocks,
// a sector each, two 16-byte stores), and a thread writes a span of them from one merge path
// search of its first element and a serial merge of a row's head and tail from there (keys: the
// thread's share of the tile's blocks; records, stored an element at a time, a block, staged in
// shared memory so that neighbouring lanes store neighbouring elements). Why it is fast: the
// network runs on the elements' own positions (and the tail's padding), the merge costs a 32-bit
// search a span and a comparison and a shared load an element, and no pass over memory of its own;
// its blocks sort their first heads while the tails' pass finishes (PERFORMANCE logs 76-79, 81,
// 83). Words as in sort_rows.cuh (word_codec, record words): one kernel per word size and Rows
// type.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/sort_rows.cuh"
#include "kernels/tuning.hpp"
#include "kernels/word_codec.cuh"
#include "network/network.hpp"

namespace bitonic::kernels::sort_row_tails {

using network::index_t;
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
//! tuning::tail_num / tail_den (the tile's tails share its block's shared memory).
template <class W>
bool takes(index_t length) {
  if (length > tile_of<W>::keys || (length & (length - 1)) == 0) return false;
  const index_t head = head_of(length);
  return head >= tuning::min_head && (length - head) * tuning::tail_den <= head * tuning::tail_num;
}

//! Whether rows of `length` records (8-byte record words) sort as a head and a tail: as takes,
//! but with a tail of at most 1 / tuning::record_tail_den of a head below record_wide_head.
inline bool takes_records(index_t length) {
  if (!takes<std::uint64_t>(length)) return false;
  const index_t head = head_of(length);
  return head >= tuning::record_wide_head || (length - head) * tuning::record_tail_den <= head;
}

//! Whether Rows are keys in place (key_rows: stored as aligned 16-byte vectors) rather than
//! records made from several arrays (stored an element at a time).
template <class Rows>
inline constexpr bool keys_in_place = false;
template <class W>
inline constexpr bool keys_in_place<key_rows<W>> = true;

//! Words of a block of the merge: 32 bytes of memory.
template <class W>
inline constexpr unsigned block_words = 32 / sizeof(W);

//! Bytes of a tile's tails (at most tail_num / tail_den of a tile of words).
template <class W>
inline constexpr std::size_t tails_bytes = std::size_t{tile_of<W>::keys} * tuning::tail_num /
                                           tuning::tail_den * sizeof(W);

//! Bytes of the records' staging: a block of words a thread.
template <class W, class Rows>
inline constexpr std::size_t staging_bytes = keys_in_place<Rows>
                                                 ? 0
                                                 : std::size_t{tile_of<W>::threads} *
                                                       block_words<W> * sizeof(W);

//! Shared memory of head_tail_kernel<W, Rows>: the register tile's, the tails of its rows, then
//! for records the staging of the merged words.
template <class W, class Rows>
inline constexpr std::size_t smem_bytes =
    tile_of<W>::smem_bytes + tails_bytes<W> + staging_bytes<W, Rows>;

//! Stores the 16 bytes of words at `to` (16-byte aligned).
template <class W>
__device__ void store_16_bytes(W* to, const W* words) {
  if constexpr (sizeof(W) == 4) {
    *reinterpret_cast<uint4*>(to) = make_uint4(words[0], words[1], words[2], words[3]);
  } else {
    *reinterpret_cast<ulonglong2*>(to) = make_ulonglong2(words[0], words[1]);
  }
}

//! The serial merge of a tile's rows from position `from` of their words one after the other:
//! row r's head at heads + (r << row_log2), its tail at tails + r * tail, both sorted. next()
//! gives the merged words in order (a head's word before an equal tail's). Starts with a 32-bit
//! merge path search; keeps the runs' next words in registers, so that a word costs one shared
//! load.
template <class W>
struct row_merge {
  const W* row_head;
  const W* row_tail;
  unsigned head, tail, diagonal, in_head, in_tail;  // diagonal: the words merged of the row
  W head_next, tail_next;

  __device__ row_merge(const W* heads, const W* tails, unsigned row_log2, unsigned tail_words,
                       unsigned from)
      : head(1u << row_log2), tail(tail_words) {
    const unsigned length = head + tail, row = from / length;
    diagonal = from - row * length;
    row_head = heads + (row << row_log2);
    row_tail = tails + row * tail;
    in_head =
        merge::path_split<1, unsigned>(row_head, head, row_tail, tail, diagonal, ascending_less{});
    in_tail = diagonal - in_head;
    head_next = in_head < head ? row_head[in_head] : W(0);
    tail_next = in_tail < tail ? row_tail[in_tail] : W(0);
  }

  //! The next word of the merged rows, the next row's first where a row ends.
  __device__ W next() {
    if (diagonal == head + tail) {
      row_head += head;
      row_tail += tail;
      diagonal = in_head = in_tail = 0;
      head_next = row_head[0];
      tail_next = row_tail[0];
    }
    const bool from_head = in_head < head && (in_tail == tail || !(tail_next < head_next));
    const W word = from_head ? head_next : tail_next;
    ++diagonal;
    if (from_head) {
      if (++in_head < head) head_next = row_head[in_head];
    } else {
      if (++in_tail < tail) tail_next = row_tail[in_tail];
    }
    return word;
  }
};

template <class W, class Rows, class TailRows>
__global__ void __launch_bounds__(tile_of<W>::threads,
                                  ::bitonic::tuning::optimized<sizeof(W)>::tile_min_blocks)
    head_tail_kernel(row_shape heads, unsigned tail, Rows rows, TailRows sorted_tails) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using Tile = tile_of<W>;
  using lay = layout;
  constexpr unsigned vector_words = 16 / sizeof(W);
  Tile tile;
  tile.smem = reinterpret_cast<W*>(smem_bytes);
  W* const tails = reinterpret_cast<W*>(smem_bytes + Tile::smem_bytes);
  const unsigned row_log2 = heads.row_log2, rows_log2 = Tile::tile_log2 - row_log2;
  const unsigned head = 1u << row_log2, length = head + tail;
  const index_t tiles = heads.tiles(Tile::tile_log2);
  const unsigned tail_rows_step = Tile::threads / tail, tail_columns_step = Tile::threads % tail;
  const unsigned first_tail_row = threadIdx.x / tail,
                 first_tail_column = threadIdx.x - first_tail_row * tail;
  // Where the tails' pass ran just before (tail >= 2), a block sorts its first tile's heads,
  // which that pass neither reads nor writes, before it waits for the pass: the blocks launched
  // early fill the SMs that the pass's last wave leaves idle. A tail of one is read from the
  // rows, which the kernel before may write: then the block waits first.
  const bool tails_pass_before = tail >= 2;
  if (!tails_pass_before) wait_for_previous_pass();
  for (index_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const index_t first_row = t << rows_log2;
    const unsigned tile_rows = heads.count - first_row < (index_t{1} << rows_log2)
                                   ? unsigned(heads.count - first_row)
                                   : 1u << rows_log2;
    const auto load_tails = [&] {
      // The tail word i of the tile is row i / tail's, column i % tail of the tail: stepped by
      // the block's threads from the thread's first, not divided.
      unsigned tail_row = first_tail_row, tail_column = first_tail_column;
      for (unsigned i = threadIdx.x; i < tile_rows * tail; i += Tile::threads) {
        const index_t at = heads.start(first_row + tail_row) + head + tail_column;
        // A tail of one is not sorted by a pass of its own: loaded from the rows.
        tails[i] = tail == 1 ? rows.load(at, head) : sorted_tails.load(at, head + tail_column);
        tail_row += tail_rows_step;
        tail_column += tail_columns_step;
        if (tail_column >= tail) {
          tail_column -= tail;
          ++tail_row;
        }
      }
    };
    // Elsewhere the tails are loaded before the heads, as before (PERFORMANCE log 83).
    const bool heads_first = tails_pass_before && t == blockIdx.x;
    if (!heads_first) load_tails();
    load_sorted_rows(tile, heads, rows, first_row);  // its exchanges synchronise the block
    __syncthreads();  // every exchange's read done before the heads take the exchange's memory
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.smem[tile.template index<lay::registers_mid>(m)] = tile.r[m];
    if (heads_first) {
      wait_for_previous_pass();
      load_tails();
    }
    __syncthreads();
    // The tile's rows lie one after the other from the first's start: `words` elements.
    const unsigned words = tile_rows * length;
    const index_t first_at = heads.start(first_row);
    if constexpr (keys_in_place<Rows>) {
      // Keys are cut into blocks at the 32-byte boundaries of memory, `lead` words before the
      // first (the previous tile's block holds the words before them, the next tile's those after
      // the last); a thread merges its share of the blocks, consecutive, from one search, and
      // stores whole blocks as 16-byte vectors.
      const unsigned misaligned = unsigned(reinterpret_cast<std::uintptr_t>(rows.keys + first_at) /
                                           sizeof(W) % block_words<W>);
      const unsigned lead = misaligned == 0 ? 0u : block_words<W> - misaligned;
      const unsigned blocks = (lead != 0) + (words - lead + block_words<W> - 1) / block_words<W>;
      const unsigned span_blocks = (blocks + Tile::threads - 1) / Tile::threads;
      const unsigned first_block = threadIdx.x * span_blocks;
      if (first_block < blocks) {
        const unsigned end_block = min(first_block + span_blocks, blocks);
        const int span_first = int(first_block * block_words<W>) - int(misaligned);
        row_merge<W> merge(tile.smem, tails, row_log2, tail, unsigned(max(span_first, 0)));
        W* const out = rows.keys + first_at;
        for (unsigned b = first_block; b < end_block; ++b) {
          // The block's words from block_from to `to` (a partial block only at the tile's ends).
          const int block_first = int(b * block_words<W>) - int(misaligned);
          const unsigned block_from = block_first < 0 ? 0u : unsigned(block_first);
          const unsigned to = min(unsigned(block_first + int(block_words<W>)), words);
          if (block_first >= 0 && to == block_from + block_words<W>) {
            W block[block_words<W>];
#pragma unroll
            for (unsigned k = 0; k < block_words<W>; ++k)
              block[k] = rows.codec.decode(merge.next());
#pragma unroll
            for (unsigned v = 0; v < block_words<W>; v += vector_words)
              store_16_bytes(out + block_from + v, block + v);
          } else {  // predicated words in the unrolled loop above spill registers
            for (unsigned k = block_from; k < to; ++k)
              out[k] = rows.codec.decode(merge.next());
          }
        }
      }
    } else {
      // Records are stored an element at a time: a warp's lanes each merge a block of
      // neighbouring words (one search each) into the warp's staging, then store them from there,
      // neighbouring lanes at neighbouring elements (whole sectors, where lanes a block apart
      // stored 4x the sectors; log 81 measured no gain from this alone for pairs). A lane's block
      // is staged at its slot, the words' order swizzled by the lane's bits 2..3, so that the
      // stores and the loads of 16 lanes meet 16 pairs of banks.
      static_assert(block_words<W> == 4, "records: 8-byte words, blocks of four");
      static_assert(tuning::min_head >= 32 * block_words<W>,
                    "a warp's words span at most two rows (rows longer than them: a head at "
                    "least as long and a tail)");
      const unsigned lane = threadIdx.x % 32;
      const auto slot = [](unsigned lane_of, unsigned k) {
        return lane_of * block_words<W> + (k ^ ((lane_of >> 2) % block_words<W>));
      };
      W* const staging = tails + tails_bytes<W> / sizeof(W) + (threadIdx.x - lane) * block_words<W>;
      for (unsigned first = (threadIdx.x - lane) * block_words<W>; first < words;
           first += Tile::threads * block_words<W>) {
        const unsigned from = first + lane * block_words<W>;
        if (from < words) {
          row_merge<W> merge(tile.smem, tails, row_log2, tail, from);
          const unsigned count = min(words - from, block_words<W>);
          for (unsigned k = 0; k < count; ++k)
            staging[slot(lane, k)] = merge.next();
        }
        __syncwarp();
        const unsigned row = first / length, next_row_from = (row + 1) * length;
#pragma unroll
        for (unsigned r = 0; r < block_words<W>; ++r) {
          const unsigned e = r * 32 + lane, at = first + e;
          if (at < words) {
            const index_t whole_row = first_row + row + (at >= next_row_from);
            rows.store(first_at + at, heads.whole_start(whole_row),
                       staging[slot(e / block_words<W>, e % block_words<W>)]);
          }
        }
        __syncwarp();  // the staging read before the next round's merge writes it
      }
    }
    __syncthreads();  // the heads and tails read before the next tile's loads overwrite them
  }
}

//! Sorts each of `count` rows of `length` elements (where takes<W>(length)) as words of W's size:
//! `rows` loads and stores them (sort_rows.cuh's Rows: key_rows for keys in place, record_rows
//! for records), `sorted_tails` loads a tail's elements again after the tails' sort stored them
//! (the same as `rows` for keys in place; a tail of one is not sorted, and loaded by `rows`); a
//! head and a tail merged, on `stream` (only loads the kernels under a load_only_scope).
template <class W, class Rows, class TailRows>
void launch(const Rows& rows, const TailRows& sorted_tails, index_t count, index_t length,
            cudaStream_t stream) {
  using Tile = tile_of<W>;
  const index_t head = head_of(length), tail = length - head;
  if (!takes<W>(length)) throw error("bitonic: internal error: rows of no head and tail");
  if (tail >= 2) sort_rows::launch_tile<W>(rows, count, tail, stream, length, head);
  static_assert(
      ::bitonic::tuning::optimized<sizeof(W)>::tile_min_blocks * (smem_bytes<W, Rows> + 1024) <=
          228 * 1024,
      "the tiles an SM holds fit its shared memory (H100: 228 KiB, 1 KiB of it a "
      "block's reserve)");
  constexpr auto kernel = head_tail_kernel<W, Rows, TailRows>;
  allow_dynamic_shared_memory<kernel>(smem_bytes<W, Rows>,
                                      "cudaFuncSetAttribute(head_tail_kernel shared memory)");
  const row_shape heads{count, head, network::ceil_log2(head), length, 0};
  launch_chained(kernel, grid_blocks(heads.tiles(Tile::tile_log2), 1), Tile::threads,
                 smem_bytes<W, Rows>, stream, "head_tail_kernel launch", heads, unsigned(tail),
                 rows, sorted_tails);
}

}  // namespace bitonic::kernels::sort_row_tails
