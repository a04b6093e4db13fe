// sort_rows for short rows of any length (sort_batched): one row a thread, in registers, for the
// rows that sort_short_rows.cuh cannot load as 16-byte vectors (a length that is not a power of
// two, keys not 16-byte aligned, or rows past 128 bytes), up to tuning::staged_rows::max_row_bytes.
// A block's rows are one contiguous run of keys: the block copies it into shared memory with
// coalesced loads, each thread takes its row's keys from there (consecutive rows an odd number of
// keys apart meet no bank conflicts; past 128 bytes, rows of an even length of 4-byte keys take
// theirs as 8- or 16-byte vectors where half or a quarter of the length is odd, which spreads them
// over the banks as well, and multiples of 8 as 16-byte vectors from a staging that puts 4 words
// after every row; powers of two stay on the tile, see `takes`), pads them to
// 2^RowLog2 with the word that sorts last, runs the network's stages on its registers and puts the
// row back for a coalesced store. Why it is fast: each key is read and written once, at the copy
// bandwidth, where the register tile (sort_rows.cuh) sorted a row of 17 keys as 32 and transposed
// it twice through shared memory (0.114 ms for 2^24 int32 keys against 0.057 for rows of 32;
// docs/PERFORMANCE.md log 56). Words as in sort_rows.cuh (word_codec): one kernel per key size and
// padded row width.
#pragma once

#include <cuda_runtime.h>

#include <cstring>
#include <string>
#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_network.cuh"
#include "kernels/tuning.hpp"
#include "kernels/word_codec.cuh"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::sort_staged_rows {

using network::index_t;
using rows::word_codec;
using tuning = ::bitonic::tuning::staged_rows;

//! `count` rows of `length` keys (as bits of W's size) at `keys`, one after the other.
template <class W>
struct staged_rows {
  W* keys;
  index_t count, length;
};

//! The words a thread moves at once between its row in the staging and its registers for rows of
//! `length` keys of W's size: 1, or for 4-byte keys past any_length_row_bytes of an even length,
//! 2 or 4 where length / 2 or length / 4 is odd (8- and 16-byte accesses are served a half and a
//! quarter warp at a time, so rows an odd number of vectors apart meet no bank conflicts), and 4
//! for multiples of 8 below a power of two, whose rows the staging skews (skew_words).
//! 0: rows of this length are not staged (a power of two: the register tile's).
template <class W>
constexpr unsigned vector_words(unsigned length) {
  if (sizeof(W) != 4 || length * sizeof(W) <= tuning::any_length_row_bytes || length % 2 == 1) {
    return 1;
  }
  if ((length & (length - 1)) == 0) return 0;
  return length % 4 == 2 ? 2 : 4;
}

//! Words of padding after each row in the staging: 4 where 16-byte vectors of rows of `length`
//! 4-byte keys would be an even number of vectors apart (a multiple of 8 keys), so that rows are
//! an odd number apart and a quarter warp's accesses fall in distinct banks; else none.
template <class W>
constexpr unsigned skew_words(unsigned length) {
  return vector_words<W>(length) == 4 && length % 8 == 0 ? 4 : 0;
}

//! Threads (one a row) of a block of staged_rows_kernel<W, RowLog2>.
template <class W, unsigned RowLog2>
inline constexpr unsigned block_threads = tuning::block_threads(sizeof(W) << RowLog2);

template <class W, unsigned RowLog2, unsigned Vector, unsigned Skew>
__global__ void __launch_bounds__(block_threads<W, RowLog2>)
    staged_rows_kernel(staged_rows<W> in, word_codec<W> codec) {
  constexpr unsigned row = 1u << RowLog2, threads = block_threads<W, RowLog2>;
  static_assert(Vector == 1 || (sizeof(W) == 4 && (Vector == 2 || Vector == 4)),
                "vectors of 8 or 16 bytes");
  static_assert(Skew % Vector == 0 && (Skew == 0 || Vector == 4),
                "whole vectors of skew, for 16-byte vectors");
  // Vector words as one access (a row's length is a multiple of Vector).
  using vector = std::conditional_t<Vector == 4, uint4, std::conditional_t<Vector == 2, uint2, W>>;
  static_assert(sizeof(W) * threads * row <= tuning::stage_bytes, "the rows fit the staging");
  __shared__ __align__(16) W staged[threads * row];
  wait_for_previous_pass();
  const auto length = unsigned(in.length);
  for (index_t first = index_t{blockIdx.x} * threads; first < in.count;
       first += index_t{gridDim.x} * threads) {
    const index_t rows = in.count - first < threads ? in.count - first : threads;
    W* const keys = in.keys + first * length;
    const auto keys_n = unsigned(rows * length);
    // Key i at i + (i / length) * Skew: its row's place in the skewed staging (a row of up to
    // 2^RowLog2 - Skew keys, so that the rows still fit it).
    const auto staged_at = [&](unsigned i) {
      if constexpr (Skew == 0) {
        return i;
      } else {
        return i + i / length * Skew;
      }
    };
    for (unsigned i = threadIdx.x; i < keys_n; i += threads)
      staged[staged_at(i)] = keys[i];
    __syncthreads();
    W r[row];
    vector* const mine = reinterpret_cast<vector*>(staged + threadIdx.x * (length + Skew));
    const bool has_row = threadIdx.x < rows;
#pragma unroll
    for (unsigned c = 0; c < row; c += Vector) {
      W v[Vector]{};
      if (has_row && c < length) std::memcpy(v, &mine[c / Vector], sizeof v);
#pragma unroll
      for (unsigned k = 0; k < Vector; ++k)
        r[c + k] = has_row && c < length ? codec.encode(v[k]) : W(~W(0));  // pads sort last
    }
    register_stages<RowLog2>(r, ascending_less{});
    __syncthreads();  // every row read before any is written back
    if (has_row) {
#pragma unroll
      for (unsigned c = 0; c < row; c += Vector) {
        if (c < length) {
          W v[Vector];
#pragma unroll
          for (unsigned k = 0; k < Vector; ++k)
            v[k] = codec.decode(r[c + k]);
          std::memcpy(&mine[c / Vector], v, sizeof v);
        }
      }
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < keys_n; i += threads)
      keys[i] = staged[staged_at(i)];
    __syncthreads();  // the next rows' loads overwrite the staging
  }
}

//! Whether rows of `length` keys of W's size are staged rows: 3 keys up to 128 bytes, and up to
//! max_row_bytes odd lengths, 4-byte keys' even lengths but powers of two (vector_words; their
//! multiples of 8 skewed, skew_words) and 8-byte keys' every length but a power of two. Rows of 2
//! and powers of two took longer here than on the register tile (2^24 int32 keys: rows of 2 0.062
//! against 0.054 ms; of 64 0.181 against 0.081; 48 unskewed 0.122 against 0.102: rows an even
//! number of keys apart share banks), and padding the staging of every row to spread them cost
//! the odd lengths more (17 keys 0.076 -> 0.093 ms), so only the multiples of 8 are skewed. 8-byte
//! keys, whose 64-bit accesses meet half the conflicts, gain on even lengths but powers of two
//! (2^24 int64 keys, staged / tile: rows of 18 0.148 / 0.217 ms, 20 0.142 / 0.202, 24 0.159 /
//! 0.181, 30 0.129 / 0.159, 32 0.216 / 0.147; PERFORMANCE log 64).
template <class W>
bool takes(index_t length) {
  const index_t bytes = length * sizeof(W);
  const bool power_of_two = (length & (length - 1)) == 0;
  if (length < 3 || bytes > tuning::max_row_bytes) return false;
  if (bytes <= tuning::any_length_row_bytes || length % 2 == 1) return true;
  return sizeof(W) == 8 ? !power_of_two : vector_words<W>(unsigned(length)) != 0;
}

//! The kernel for rows padded to 2^row_log2 keys, RowLog2 = 1.. tried in turn.
template <class W, unsigned RowLog2 = 1>
void launch_log2(const staged_rows<W>& in, unsigned row_log2, const word_codec<W>& codec,
                 cudaStream_t stream) {
  if constexpr ((sizeof(W) << RowLog2) <= tuning::max_row_bytes) {
    if (row_log2 == RowLog2) {
      constexpr unsigned threads = block_threads<W, RowLog2>;
      const auto run = [&](auto kernel) {
        launch_chained(kernel, grid_blocks(in.count, threads), threads, 0, stream,
                       "staged_rows_kernel launch", in, codec);
      };
      const unsigned vector = vector_words<W>(unsigned(in.length));
      if constexpr (sizeof(W) == 4 && (sizeof(W) << RowLog2) > tuning::any_length_row_bytes) {
        if (vector == 2) return run(staged_rows_kernel<W, RowLog2, 2, 0>);
        if (vector == 4 && skew_words<W>(unsigned(in.length)) != 0) {
          return run(staged_rows_kernel<W, RowLog2, 4, 4>);
        }
        if (vector == 4) return run(staged_rows_kernel<W, RowLog2, 4, 0>);
      }
      if (vector != 1) throw error("bitonic: internal error: staged rows of no vector width");
      return run(staged_rows_kernel<W, RowLog2, 1, 0>);
    }
    return launch_log2<W, RowLog2 + 1>(in, row_log2, codec, stream);
  }
  throw error("bitonic: internal error: staged rows of 2^" + std::to_string(row_log2) + " keys");
}

//! Sorts each of `count` rows of `length` keys as words of W's size at `keys` (codec: their map
//! and order), where takes<W>(length), on `stream` (only loads the kernel under a
//! load_only_scope).
template <class W>
void launch(W* keys, index_t count, index_t length, const word_codec<W>& codec,
            cudaStream_t stream) {
  launch_log2<W>(staged_rows<W>{keys, count, length}, network::ceil_log2(length), codec, stream);
}

}  // namespace bitonic::kernels::sort_staged_rows
