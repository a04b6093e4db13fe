// pad_rows / unpad_rows (sort_batched of rows longer than a tile whose length is not a power of
// two): copies rows of one width into rows of another, filling the columns past the source's with
// a pad key. Padded to a power of two, such rows are sorted by the optimized passes of one row's
// length run over all of them (each stage's blocks stay inside a row), then copied back. The pad
// is the key whose word is the greatest under the sort's order, so pads sort behind every key and
// only keys with its exact bits can tie with it. One kernel per key size: it only moves bits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/launch.cuh"
#include "network/network.hpp"

namespace bitonic::kernels::pad_rows {

using network::index_t;

inline constexpr unsigned block_threads = 256;

//! to[r * to_width + c] = c < from_width ? from[r * from_width + c] : pad, for every row r and
//! column c < to_width: a block a row at a time (grid-stride; the rows are longer than a tile),
//! its threads on consecutive columns, so reads and writes are coalesced and need no division.
template <class W>
__global__ void __launch_bounds__(block_threads)
    copy_rows_kernel(const W* from, index_t from_width, W* to, index_t to_width, index_t rows,
                     W pad) {
  for (index_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const W* in = from + row * from_width;
    W* out = to + row * to_width;
    for (index_t column = threadIdx.x; column < to_width; column += block_threads) {
      out[column] = column < from_width ? in[column] : pad;
    }
  }
}

//! Enqueues copy_rows_kernel on `stream` (only loads it under a load_only_scope).
template <class W>
void launch(const W* from, index_t from_width, W* to, index_t to_width, index_t rows, W pad,
            cudaStream_t stream) {
  launch_plain(copy_rows_kernel<W>, grid_blocks(rows, 1), block_threads, stream,
               "copy_rows_kernel launch", from, from_width, to, to_width, rows, pad);
}

}  // namespace bitonic::kernels::pad_rows
