// sort_rows for short rows (sort_batched): one row a thread, in registers. Each thread loads its
// row as 16-byte vectors (rows of 16 to 128 bytes, a power of two of keys, 16-byte aligned), runs
// the network's stages 1..row_log2 on its registers (register_network.cuh's steps, indices known
// at compile time), and stores the row back. Rows longer than tuning::short_rows::thread_row_bytes
// take two or four neighbouring lanes, a part each: each sorts its part, then the stages past a
// part run their steps on lane bits by shuffles and the rest on each lane's registers. Why it
// is fast: a short row needs only its few steps, so the register tile's two transposes through
// shared memory (sort_rows.cuh) cost more than the network; here each key is read and written
// once, close to the copy bandwidth (rows of 64 bytes one a thread were no faster than the tile,
// PERFORMANCE log 51). Words as in sort_rows.cuh (word_codec): one kernel per key size and row
// width.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_network.cuh"
#include "kernels/tuning.hpp"
#include "kernels/word_codec.cuh"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::sort_short_rows {

using network::index_t;
using rows::word_codec;
using tuning = ::bitonic::tuning::short_rows;

//! `count` rows of 2^RowLog2 keys (as bits of W's size) at `keys`, 16-byte aligned.
template <class W>
struct short_rows {
  W* keys;
  index_t count;
};

//! Threads that share a row of 2^RowLog2 keys of W: one, or enough to hold thread_row_bytes each.
template <class W, unsigned RowLog2>
inline constexpr unsigned lanes_per_row = (sizeof(W) << RowLog2) > tuning::thread_row_bytes
                                              ? (sizeof(W) << RowLog2) / tuning::thread_row_bytes
                                              : 1;

//! A network step between the lanes of a row (lane ^ lane_mask; a flip pairs register c with the
//! other lane's register Part - 1 - c): the lower lane keeps the lesser of each pair.
template <bool Flip, unsigned Part, class W>
__device__ __forceinline__ void lane_step(W (&r)[Part], unsigned lane_mask, bool lower,
                                          unsigned active) {
  W other[Part];
#pragma unroll
  for (unsigned c = 0; c < Part; ++c)
    other[c] = __shfl_xor_sync(active, r[Flip ? Part - 1 - c : c], lane_mask);
#pragma unroll
  for (unsigned c = 0; c < Part; ++c)
    r[c] = (lower ? other[c] < r[c] : r[c] < other[c]) ? other[c] : r[c];
}

template <class W, unsigned RowLog2>
__global__ void __launch_bounds__(tuning::block_threads)
    short_rows_kernel(short_rows<W> in, word_codec<W> codec) {
  constexpr unsigned lanes = lanes_per_row<W, RowLog2>, per_vector = 16 / sizeof(W);
  constexpr unsigned lanes_log2 = network::ceil_log2(lanes);
  constexpr unsigned part_log2 = RowLog2 - lanes_log2, part = 1u << part_log2;  // keys a thread
  static_assert(lanes == 1u << lanes_log2 && RowLog2 > lanes_log2, "1, 2 or 4 lanes a row");
  static_assert(part % per_vector == 0, "parts of rows of whole 16-byte vectors");
  wait_for_previous_pass();
  const index_t items = in.count * lanes, stride = index_t{gridDim.x} * tuning::block_threads;
  // Item i is part i % lanes of row i / lanes; the lanes of a row are neighbours in one warp.
  for (index_t item = index_t{blockIdx.x} * tuning::block_threads + threadIdx.x; item < items;
       item += stride) {
    W r[part];
    uint4* const vectors = reinterpret_cast<uint4*>(in.keys + item * part);
#pragma unroll
    for (unsigned v = 0; v < part / per_vector; ++v) {
      const uint4 bits = vectors[v];
      std::memcpy(&r[v * per_vector], &bits, 16);
    }
#pragma unroll
    for (unsigned c = 0; c < part; ++c)
      r[c] = codec.encode(r[c]);
    register_stages<part_log2>(r, ascending_less{});
    if constexpr (lanes > 1) {
      // Stages past a lane's part: steps on lane bits by shuffles, then on register bits.
      const unsigned active = __activemask(), lane = unsigned(item) & (lanes - 1);
#pragma unroll
      for (unsigned t = 1; t <= lanes_log2; ++t) {  // stage part_log2 + t
        lane_step<true>(r, (1u << t) - 1, (lane >> (t - 1) & 1u) == 0, active);
#pragma unroll
        for (unsigned b = t - 1; b-- > 0;)
          lane_step<false>(r, 1u << b, (lane >> b & 1u) == 0, active);
        register_steps_down<int(part_log2) - 1, 0>(r, ~register_mask<part>{0}, ascending_less{});
      }
    }
#pragma unroll
    for (unsigned c = 0; c < part; ++c)
      r[c] = codec.decode(r[c]);
#pragma unroll
    for (unsigned v = 0; v < part / per_vector; ++v) {
      uint4 bits;
      std::memcpy(&bits, &r[v * per_vector], 16);
      vectors[v] = bits;
    }
  }
}

template <class W, unsigned RowLog2>
void launch_width(const short_rows<W>& in, const word_codec<W>& codec, cudaStream_t stream) {
  constexpr auto kernel = short_rows_kernel<W, RowLog2>;
  launch_chained(kernel, grid_blocks(in.count * lanes_per_row<W, RowLog2>, tuning::block_threads),
                 tuning::block_threads, 0, stream, "short_rows_kernel launch", in, codec);
}

//! launch_width for the short rows of 2^row_log2 keys, RowLog2 = 1..5 tried in turn.
template <class W, unsigned RowLog2 = 1>
void launch_log2(const short_rows<W>& in, unsigned row_log2, const word_codec<W>& codec,
                 cudaStream_t stream) {
  constexpr unsigned bytes = sizeof(W) << RowLog2;
  if constexpr (bytes <= tuning::max_row_bytes) {
    if constexpr (bytes >= tuning::min_row_bytes) {
      if (row_log2 == RowLog2) return launch_width<W, RowLog2>(in, codec, stream);
    }
    return launch_log2<W, RowLog2 + 1>(in, row_log2, codec, stream);
  }
  throw error("bitonic: internal error: short rows of 2^" + std::to_string(row_log2) + " keys");
}

//! Whether rows of `length` keys of W's size at `keys` are short rows (tuning::short_rows).
template <class W>
bool takes(const W* keys, index_t length) {
  const index_t bytes = length * sizeof(W);
  return (length & (length - 1)) == 0 && bytes >= tuning::min_row_bytes &&
         bytes <= tuning::max_row_bytes && reinterpret_cast<std::uintptr_t>(keys) % 16 == 0;
}

//! Sorts each of `count` rows of `length` keys as words of W's size at `keys` (codec: their map
//! and order), where takes(keys, length), on `stream` (only loads the kernel under a
//! load_only_scope).
template <class W>
void launch(W* keys, index_t count, index_t length, const word_codec<W>& codec,
            cudaStream_t stream) {
  launch_log2<W>(short_rows<W>{keys, count}, network::ceil_log2(length), codec, stream);
}

}  // namespace bitonic::kernels::sort_short_rows
