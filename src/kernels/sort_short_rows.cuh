// sort_rows for short rows (sort_batched): one row a thread, in registers. Each thread loads its
// row as 16-byte vectors (rows of 16 to 64 bytes, a power of two of keys, 16-byte aligned), runs
// the network's stages 1..row_log2 on its registers (network.hpp's steps, indices known at compile
// time), and stores the row back. Why it is fast: a short row needs only its few steps, so the
// register tile's two transposes through shared memory (sort_rows.cuh) cost more than the
// network; here each key is read and written once, close to the copy bandwidth. Words as in
// sort_rows.cuh (word_codec): one kernel per key size and row width.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
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

template <class W, unsigned RowLog2>
__global__ void __launch_bounds__(tuning::block_threads)
    short_rows_kernel(short_rows<W> in, word_codec<W> codec) {
  constexpr unsigned width = 1u << RowLog2, per_vector = 16 / sizeof(W);
  static_assert(width % per_vector == 0, "rows of whole 16-byte vectors");
  wait_for_previous_pass();
  const index_t stride = index_t{gridDim.x} * tuning::block_threads;
  for (index_t row = index_t{blockIdx.x} * tuning::block_threads + threadIdx.x; row < in.count;
       row += stride) {
    W r[width];
    uint4* const vectors = reinterpret_cast<uint4*>(in.keys + row * width);
#pragma unroll
    for (unsigned v = 0; v < width / per_vector; ++v) {
      const uint4 bits = vectors[v];
      std::memcpy(&r[v * per_vector], &bits, 16);
    }
#pragma unroll
    for (unsigned c = 0; c < width; ++c)
      r[c] = codec.encode(r[c]);
#pragma unroll
    for (unsigned s = 1; s <= RowLog2; ++s) {
#pragma unroll
      for (unsigned j = s; j-- > 0;) {
        const network::step st{s, j};
#pragma unroll
        for (unsigned c = 0; c < width / 2; ++c) {
          const unsigned lo = st.lower_index<unsigned>(c), hi = unsigned(st.upper_index(lo));
          network::compare_exchange(r[lo], r[hi], ascending_less{});
        }
      }
    }
#pragma unroll
    for (unsigned c = 0; c < width; ++c)
      r[c] = codec.decode(r[c]);
#pragma unroll
    for (unsigned v = 0; v < width / per_vector; ++v) {
      uint4 bits;
      std::memcpy(&bits, &r[v * per_vector], 16);
      vectors[v] = bits;
    }
  }
}

template <class W, unsigned RowLog2>
void launch_width(const short_rows<W>& in, const word_codec<W>& codec, cudaStream_t stream) {
  constexpr auto kernel = short_rows_kernel<W, RowLog2>;
  launch_chained(kernel, grid_blocks(in.count, tuning::block_threads), tuning::block_threads, 0,
                 stream, "short_rows_kernel launch", in, codec);
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
  static_assert(tuning::max_row_bytes / sizeof(std::uint32_t) <= 16,
                "a kernel for each row width up to 16 keys");
  const short_rows<W> in{keys, count};
  switch (network::ceil_log2(length)) {
    case 1:
      if constexpr (sizeof(W) == 8) return launch_width<W, 1>(in, codec, stream);
      break;
    case 2:
      return launch_width<W, 2>(in, codec, stream);
    case 3:
      return launch_width<W, 3>(in, codec, stream);
    case 4:
      if constexpr (sizeof(W) == 4) return launch_width<W, 4>(in, codec, stream);
      break;
  }
  throw error("bitonic: internal error: short rows of " + std::to_string(length) + " keys");
}

}  // namespace bitonic::kernels::sort_short_rows
