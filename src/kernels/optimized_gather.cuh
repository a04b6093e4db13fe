// optimized, global part: up to gather_steps_max consecutive steps of one stage whose distances
// exceed a tile, in one pass over memory instead of one pass per step (V0/V2).
//
// Steps j = hi..lo of stage s only change index bits lo..hi (the flip, j = s-1, also mirrors the
// bits below lo). A block gathers the keys of 2^(hi-lo+1) rows spaced 2^lo apart, each row two
// 128-byte segments: one at column c and its mirror at column 2^lo - W - c. In the block's local
// index (w = key in segment, then the column bit, then the row bits) every global step becomes a
// step of a small bitonic network: step j is local distance log2(W) + 1 + (j - lo), and the flip
// is the local flip of the whole gathered block. So the block runs the ordinary network math on
// shared memory and writes the segments back: loads and stores are whole 128-byte segments.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "kernels/launch.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_gather {

using network::index_t;

//! Where the keys of one gathered block live, and how global steps map to local ones.
struct gather_shape {
  unsigned low_step;      //!< lo: the smallest distance exponent of the pass
  unsigned rows_log2;     //!< hi - lo + 1: steps in the pass
  unsigned segment_log2;  //!< W = 2^segment_log2 keys per segment
  index_t row_block;      //!< 2^(hi+1): the gathered rows repeat in such blocks
  index_t column_pairs;   //!< 2^(lo-1) / W column pairs per row block

  __host__ __device__ unsigned local_log2() const { return segment_log2 + 1 + rows_log2; }

  //! Where group `g` starts: its row block and the offsets of its two columns.
  struct origin {
    index_t base, column, mirror_column;
  };
  __host__ __device__ origin group_origin(index_t g) const {
    const index_t column = (g % column_pairs) << segment_log2;
    return {g / column_pairs * row_block, column,
            (index_t{1} << low_step) - (index_t{1} << segment_log2) - column};
  }

  //! Global index of local key `l` of the group at `o`.
  __host__ __device__ index_t global_index(const origin& o, unsigned l) const {
    const unsigned w = l & ((1u << segment_log2) - 1);
    const bool mirror = (l >> segment_log2) & 1;
    const index_t row = l >> (segment_log2 + 1);
    return o.base + (row << low_step) + (mirror ? o.mirror_column : o.column) + w;
  }

  //! The local step that global step `st` (of this pass) becomes.
  __host__ __device__ network::step local_step(network::step st) const {
    if (st.is_flip()) return {local_log2(), local_log2() - 1};
    const unsigned d = segment_log2 + 1 + (st.distance_log2 - low_step);
    return {d + 2, d};  // any stage above d + 1 makes it a plain (non-flip) step
  }
};

template <class Key, class Less>
__global__ void __launch_bounds__(tuning::optimized<sizeof(Key)>::gather_threads)
    gather_kernel(Key* keys, index_t n, network::step first, network::step last, gather_shape shape,
                  index_t groups, Less less) {
  using T = tuning::optimized<sizeof(Key)>;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using word = ordered_word<Key>;
  auto* smem = reinterpret_cast<typename word::type*>(smem_bytes);
  const unsigned local_keys = 1u << shape.local_log2();
  for (index_t g = blockIdx.x; g < groups; g += gridDim.x) {
    const gather_shape::origin o = shape.group_origin(g);
    const bool full = o.base + shape.row_block <= n;
    for (unsigned l = threadIdx.x; l < local_keys; l += T::gather_threads) {
      const index_t i = shape.global_index(o, l);
      if (full || i < n) smem[l] = word::encode(keys[i]);
    }
    __syncthreads();
    for (network::step st = first;; st = st.next()) {
      const network::step local = shape.local_step(st);
      const auto mask = unsigned(local.partner_mask());
      for (unsigned c = threadIdx.x; c < local_keys / 2; c += T::gather_threads) {
        const unsigned lo = local.lower_index(c), hi = lo ^ mask;
        if (full || shape.global_index(o, hi) < n) {
          network::compare_exchange(smem[lo], smem[hi], less);
        }
      }
      __syncthreads();
      if (st == last) break;
    }
    for (unsigned l = threadIdx.x; l < local_keys; l += T::gather_threads) {
      const index_t i = shape.global_index(o, l);
      if (full || i < n) keys[i] = word::decode(smem[l]);
    }
    __syncthreads();  // the next group reuses the shared memory
  }
}

//! Runs steps first..last (one stage, distances 2^last..2^first, each above a tile) in one pass.
template <class Key, class Less>
void launch(Key* keys, index_t n, network::step first, network::step last, Less less,
            cudaStream_t stream) {
  using T = tuning::optimized<sizeof(Key)>;
  gather_shape shape{};
  shape.low_step = last.distance_log2;
  shape.rows_log2 = first.distance_log2 - last.distance_log2 + 1;
  shape.segment_log2 = T::segment_log2;
  shape.row_block = index_t{2} << first.distance_log2;
  shape.column_pairs = (index_t{1} << (shape.low_step - 1)) >> T::segment_log2;
  const index_t groups = (n + shape.row_block - 1) / shape.row_block * shape.column_pairs;
  const std::size_t smem = (std::size_t{1} << shape.local_log2()) * sizeof(Key);
  allow_dynamic_shared_memory<gather_kernel<Key, Less>>(
      T::gather_smem_bytes, "cudaFuncSetAttribute(optimized gather_kernel shared memory)");
  gather_kernel<<<grid_blocks(groups, 1), T::gather_threads, smem, stream>>>(keys, n, first, last,
                                                                             shape, groups, less);
  host::check_launch("optimized gather_kernel launch");
}

}  // namespace bitonic::kernels::optimized_gather
