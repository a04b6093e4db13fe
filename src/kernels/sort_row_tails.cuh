// sort_rows for rows just past a power of two (sort_batched): a row of 2^m + r keys (r up to
// tuning::row_tails' share of 2^m) is not padded to 2^(m+1) for the register tile, which runs the
// network on twice as many positions as the row has keys (2^24 int32 keys in rows of 2049 took
// 0.297 ms against 0.142 for rows of 2048). Its tail (the last r keys) is sorted first, as rows of
// their own a row apart (sort_rows.cuh's register tile with a stride); then one kernel sorts the
// heads (the first 2^m keys) on the register tile, puts them and the tile's tails in shared
// memory, and writes every key of its rows once, merged: a thread writes an aligned 32-byte block
// of the rows' memory (one sector, two 16-byte stores) from a merge path search of the block's
// first key and a serial merge of its row's head and tail from there. Why it is fast: the network
// runs on the keys' own positions (and the tail's padding), the merge costs a search a block and
// a comparison a key, and no pass over memory of its own (PERFORMANCE logs 76, 77). Words as in
// sort_rows.cuh (word_codec): one kernel per key size.
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
//! tuning::tail_num / tail_den (the tile's tails share its block's shared memory).
template <class W>
bool takes(index_t length) {
  if (length > tile_of<W>::keys || (length & (length - 1)) == 0) return false;
  const index_t head = head_of(length);
  return head >= tuning::min_head && (length - head) * tuning::tail_den <= head * tuning::tail_num;
}

//! Shared memory of head_tail_kernel<W>: the register tile's, then the tails of its rows (at most
//! tail_num / tail_den of a tile of words).
template <class W>
inline constexpr std::size_t smem_bytes = tile_of<W>::smem_bytes + std::size_t{tile_of<W>::keys} *
                                                                       tuning::tail_num /
                                                                       tuning::tail_den * sizeof(W);

//! Stores the 16 bytes of words at `to` (16-byte aligned).
template <class W>
__device__ void store_16_bytes(W* to, const W* words) {
  if constexpr (sizeof(W) == 4) {
    *reinterpret_cast<uint4*>(to) = make_uint4(words[0], words[1], words[2], words[3]);
  } else {
    *reinterpret_cast<ulonglong2*>(to) = make_ulonglong2(words[0], words[1]);
  }
}

template <class W>
__global__ void __launch_bounds__(tile_of<W>::threads,
                                  ::bitonic::tuning::optimized<sizeof(W)>::tile_min_blocks)
    head_tail_kernel(row_shape heads, unsigned tail, key_rows<W> rows) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using Tile = tile_of<W>;
  using lay = layout;
  constexpr unsigned block_words = 32 / sizeof(W), vector_words = 16 / sizeof(W);
  Tile tile;
  tile.smem = reinterpret_cast<W*>(smem_bytes);
  W* const tails = reinterpret_cast<W*>(smem_bytes + Tile::smem_bytes);
  const unsigned row_log2 = heads.row_log2, rows_log2 = Tile::tile_log2 - row_log2;
  const unsigned head = 1u << row_log2, length = head + tail;
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
    // The tile's rows lie one after the other from out_first: `words` words, cut into blocks at
    // the 32-byte boundaries of memory, `lead` words before the first (the previous tile's block
    // holds the words before them, the next tile's those after the last).
    const unsigned words = tile_rows * length;
    W* const out_first = rows.keys + heads.start(first_row);
    const unsigned misaligned =
        unsigned(reinterpret_cast<std::uintptr_t>(out_first) / sizeof(W) % block_words);
    const unsigned lead = misaligned == 0 ? 0u : block_words - misaligned;
    const unsigned blocks = (lead != 0) + (words - lead + block_words - 1) / block_words;
    for (unsigned b = threadIdx.x; b < blocks; b += Tile::threads) {
      // The block's words from `from` to `to` (a partial block only at the tile's ends).
      const int block_first = int(b * block_words) - int(misaligned);
      const unsigned from = block_first < 0 ? 0u : unsigned(block_first);
      const unsigned to = min(unsigned(block_first + int(block_words)), words);
      const unsigned row = from / length;
      unsigned diagonal = from - row * length;
      const W* row_head = tile.smem + (row << row_log2);
      const W* row_tail = tails + row * tail;
      unsigned in_head =
          unsigned(merge::path_split(row_head, head, row_tail, tail, diagonal, ascending_less{}));
      unsigned in_tail = diagonal - in_head;
      // The next word of the merged rows (a head's word before an equal tail's), the next row's
      // first where a row ends.
      const auto next = [&] {
        if (diagonal == length) {
          row_head += head;
          row_tail += tail;
          diagonal = in_head = in_tail = 0;
        }
        const bool from_head =
            in_head < head && (in_tail == tail || !(row_tail[in_tail] < row_head[in_head]));
        const W word = from_head ? row_head[in_head] : row_tail[in_tail];
        in_head += from_head;
        in_tail += !from_head;
        ++diagonal;
        return rows.codec.decode(word);
      };
      if (block_first >= 0 && to == from + block_words) {
        W out[block_words];
#pragma unroll
        for (unsigned k = 0; k < block_words; ++k)
          out[k] = next();
#pragma unroll
        for (unsigned v = 0; v < block_words; v += vector_words)
          store_16_bytes(out_first + from + v, out + v);
      } else {  // predicated words in the unrolled loop above spill registers
        for (unsigned k = from; k < to; ++k)
          out_first[k] = next();
      }
    }
    __syncthreads();  // the heads and tails read before the next tile's loads overwrite them
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
