// Segmented sorts, before any key moves: the segments binned by length (plan/segments_plan.hpp).
// count_kernel checks the offsets (the first segment whose end is before its start), counts the
// segments of each class and lists the long ones; bin_kernel writes each short segment's start and
// length into its class's part of the bins. Why it is cheap: one thread a segment, counted in
// shared memory first so that a block adds to each global counter once.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/launch.cuh"
#include "kernels/segments.hpp"

namespace bitonic::kernels::segments {

//! Threads of a block, one segment each.
inline constexpr unsigned bin_threads = 256;

//! The start and end of segment i, counted from the key at offset `origin` (the offsets' first),
//! its end clamped to its start when the offsets decrease there (an empty segment, reported by
//! count_kernel; its start is then meaningless but never used).
template <class Offset>
struct segment_bounds {
  std::uint64_t begin, end;
  __device__ segment_bounds(const Offset* offsets, index_t i, std::uint64_t origin)
      : begin(offsets[i] - origin), end(offsets[i + 1] - origin) {
    if (offsets[i + 1] < offsets[i]) end = begin;
  }
};

template <class Offset>
__global__ void __launch_bounds__(bin_threads)
    count_kernel(const Offset* offsets, std::uint64_t origin, index_t segments, bool singles,
                 counters* out, long_segment* long_list, index_t long_capacity) {
  __shared__ unsigned class_counts[classes];
  for (unsigned c = threadIdx.x; c < classes; c += bin_threads)
    class_counts[c] = 0;
  __syncthreads();
  for (index_t base = index_t{blockIdx.x} * bin_threads; base < segments;
       base += index_t{gridDim.x} * bin_threads) {
    const index_t i = base + threadIdx.x;
    if (i < segments) {
      if (offsets[i + 1] < offsets[i]) atomicMin(&out->first_bad, counter_t{i});
      const segment_bounds<Offset> s(offsets, i, origin);
      const unsigned c = segment_class(s.end - s.begin, singles);
      if (c == classes) {
        const index_t slot = atomicAdd(&out->long_count, counter_t{1});
        if (slot < long_capacity) long_list[slot] = {s.begin, s.end};
      } else if (c != 0) {
        atomicAdd(&class_counts[c], 1u);
      }
    }
  }
  __syncthreads();
  for (unsigned c = threadIdx.x; c < classes; c += bin_threads) {
    if (class_counts[c] != 0) atomicAdd(&out->counts[c], counter_t{class_counts[c]});
  }
}

template <class Offset>
__global__ void __launch_bounds__(bin_threads)
    bin_kernel(const Offset* offsets, std::uint64_t origin, index_t segments, bool singles,
               tile_map map, counters* cursors, bins out) {
  __shared__ unsigned class_counts[classes];
  __shared__ index_t class_base[classes];
  for (index_t base = index_t{blockIdx.x} * bin_threads; base < segments;
       base += index_t{gridDim.x} * bin_threads) {
    for (unsigned c = threadIdx.x; c < classes; c += bin_threads)
      class_counts[c] = 0;
    __syncthreads();
    const index_t i = base + threadIdx.x;
    unsigned c = 0, rank = 0;
    std::uint64_t begin = 0, length = 0;
    if (i < segments) {
      const segment_bounds<Offset> s(offsets, i, origin);
      begin = s.begin;
      length = s.end - s.begin;
      c = segment_class(length, singles);
      if (c != 0 && c != classes) rank = atomicAdd(&class_counts[c], 1u);
    }
    __syncthreads();
    for (unsigned k = threadIdx.x; k < classes; k += bin_threads) {
      if (class_counts[k] != 0) {
        class_base[k] =
            map.first_segment[k] + atomicAdd(&cursors->cursors[k], counter_t{class_counts[k]});
      }
    }
    __syncthreads();
    if (c != 0 && c != classes) {
      const index_t at = class_base[c] + rank;
      out.begin[at] = begin;
      out.length[at] = std::uint32_t(length);
    }
    __syncthreads();  // class_counts and class_base are reused by the next round
  }
}

template <class Offset>
void launch_count(const Offset* offsets, std::uint64_t origin, index_t segments, bool singles,
                  counters* out, long_segment* long_list, index_t long_capacity,
                  cudaStream_t stream) {
  launch_plain(count_kernel<Offset>, grid_blocks(segments, bin_threads), bin_threads, stream,
               "segments count_kernel launch", offsets, origin, segments, singles, out, long_list,
               long_capacity);
}

template <class Offset>
void launch_bin(const Offset* offsets, std::uint64_t origin, index_t segments, bool singles,
                const tile_map& map, counters* cursors, bins out, cudaStream_t stream) {
  launch_plain(bin_kernel<Offset>, grid_blocks(segments, bin_threads), bin_threads, stream,
               "segments bin_kernel launch", offsets, origin, segments, singles, map, cursors, out);
}

}  // namespace bitonic::kernels::segments
