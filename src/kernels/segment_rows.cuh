// Segmented sorts, the segments longer than a tile: copied into rows of a power of two (the
// padding after each segment's keys sorts after all of them), sorted by the batched sort, and
// copied back. Both copies move bits of one element size, so they are compiled once per size.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/launch.cuh"
#include "kernels/segments.hpp"

namespace bitonic::kernels::segments {

inline constexpr unsigned copy_threads = 256;

//! Element i of the rows is element i mod 2^row_log2 of segment list[i >> row_log2]; to_rows:
//! rows[i] = that element, or `pad` past the segment's end; else the element = rows[i] where the
//! segment has one.
template <class Bits, bool ToRows>
__global__ void __launch_bounds__(copy_threads)
    copy_rows_kernel(Bits* segments, Bits* rows, const long_segment* list, index_t count,
                     unsigned row_log2, Bits pad) {
  const index_t mask = (index_t{1} << row_log2) - 1;
  for (index_t i = index_t{blockIdx.x} * copy_threads + threadIdx.x; i < (count << row_log2);
       i += index_t{gridDim.x} * copy_threads) {
    const long_segment s = list[i >> row_log2];
    const index_t at = s.begin + (i & mask);
    if constexpr (ToRows) {
      rows[i] = at < s.end ? segments[at] : pad;
    } else if (at < s.end) {
      segments[at] = rows[i];
    }
  }
}

template <class Bits, bool ToRows>
void launch_copy_rows(Bits* segments, Bits* rows, const long_segment* list, index_t count,
                      unsigned row_log2, Bits pad, cudaStream_t stream) {
  launch_plain(copy_rows_kernel<Bits, ToRows>, grid_blocks(count << row_log2, copy_threads),
               copy_threads, stream, "segments copy_rows_kernel launch", segments, rows, list,
               count, row_log2, pad);
}

}  // namespace bitonic::kernels::segments
