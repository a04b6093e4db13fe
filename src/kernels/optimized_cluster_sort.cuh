// optimized, small n in one launch: all stages of 2^14 to 2^16 four-byte keys on one cluster of
// 4..16 blocks (a Hopper thread-block cluster; tuning::cluster_sort), each block holding 2^12
// keys in registers (register_tile.cuh), one block an SM. Why: below a few tiles a sort's time
// is a lone tile's 105 steps on one SM plus a launch per later stage (H100: 2^16 int32 keys took
// 31 us of GPU time in six launches, 24 us here); here every SM of the cluster runs a part of
// the keys and the stages between blocks need no launch. A step between blocks (distance 2^12
// and up) runs after an all-to-all transpose through distributed shared memory that swaps the
// block bits of the index with the block's top bits, so that they become register bits of the
// high layout; a second transpose swaps them back for the stage's steps inside the block. Each
// transpose is one cluster barrier: the keys go to the block's own shared memory, then each
// block reads its part from every block (coalesced, bank-conflict free through the tile's
// padding), and the two transposes of a stage use two buffers, so that a buffer is rewritten
// only after the barrier that follows its last reads. The network is the classic form, as in the
// first pass (optimized_sort_tile.cuh): a stage's direction is a code XORed into the words,
// which for stages above 12 is a bit of the block's rank, so one XOR per key and stage. Blocks
// past n hold only pads (the greatest word).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "host/device.hpp"
#include "kernels/launch.cuh"
#include "kernels/optimized_sort_tile.cuh"
#include "kernels/register_tile.cuh"
#include "plan/tuning.hpp"

namespace bitonic::kernels::optimized_cluster_sort {

using network::index_t;

//! A cluster of 2^ClusterLog2 blocks of 2^block_log2 keys (tuning::cluster_sort): sorts
//! 2^(block_log2 + ClusterLog2) keys, fewer with pads.
template <class Key, unsigned ClusterLog2>
struct shape {
  using T = tuning::optimized<sizeof(Key)>;
  using C = tuning::cluster_sort<sizeof(Key)>;
  using tile_type = register_tile<Key, C::block_log2>;
  static constexpr unsigned block_log2 = C::block_log2, cluster_log2 = ClusterLog2;
  static constexpr unsigned stages = block_log2 + ClusterLog2;
  static_assert(tile_type::threads == C::block_threads, "the tuning's block of threads");
  static_assert(ClusterLog2 >= C::cluster_log2_min && ClusterLog2 <= C::cluster_log2_max,
                "a cluster of the tuning's sizes");
  static_assert(ClusterLog2 <= 5, "the block bits must become register bits of the high layout");
  //! Words of one shared-memory buffer: the tile's exchange buffer and the two transpose buffers.
  static constexpr std::size_t buffer_words = T::padded(tile_type::keys);
  static constexpr std::size_t smem_bytes = 3 * buffer_words * sizeof(typename tile_type::W);
};

//! Moves the keys from layout From (registers_low: the block's own index; registers_high: the
//! transposed index) into the high layout of the other index: block q's transposed index holds
//! the block bits of the original in its top C bits, and the original top C bits are q. Both
//! directions are the same swap of bits. One cluster barrier; `buffer` must not be read by any
//! block any more (the barrier of the transpose before this one ensures that).
template <class Shape, layout From, class Tile>
__device__ void transpose(Tile& tile, typename Tile::W* buffer, unsigned rank) {
  using T = typename Shape::T;
  constexpr unsigned top = Shape::block_log2 - Shape::cluster_log2;  // lowest of the swapped bits
  constexpr unsigned base_high = Shape::block_log2 - 5;
  constexpr unsigned per_block = 5 - Shape::cluster_log2;  // register bits below the block bits
  auto* const mine = buffer + T::padded(tile.template index<From>(0));
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    mine[T::padded(m << Tile::template base<From>)] = tile.r[m];
  cooperative_groups::this_cluster().sync();
  const unsigned at = T::padded(rank << top) + T::padded(tile.thread);
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m) {
    const auto* remote = cooperative_groups::this_cluster().map_shared_rank(buffer, m >> per_block);
    tile.r[m] = remote[at + T::padded((m & ((1u << per_block) - 1)) << base_high)];
  }
}

//! Stages S..Shape::stages past the block, starting in the low layout coded for stage S - 1.
template <class Shape, unsigned S, class Tile, class Less>
__device__ void cluster_stages(Tile& tile, typename Tile::W* buffers, unsigned rank, Less less) {
  using W = typename Tile::W;
  using lay = layout;
  constexpr unsigned B = Shape::block_log2, C = Shape::cluster_log2;
  // The code of stage s >= B: bit s of the index, a bit of the rank; none in the last stage.
  const auto code = [&](unsigned s) {
    return s < Shape::stages && ((rank >> (s - B)) & 1u) ? W(~W(0)) : W(0);
  };
  const W recode = code(S - 1) ^ code(S);
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    tile.r[m] ^= recode;
  transpose<Shape, lay::registers_low>(tile, buffers, rank);
  tile.template steps<lay::registers_high, int(S) - 1 - int(C), int(B) - int(C)>(less);
  transpose<Shape, lay::registers_high>(tile, buffers + Shape::buffer_words, rank);
  tile.template steps_from_high<int(B) - 1>(less);
  if constexpr (S < Shape::stages) cluster_stages<Shape, S + 1>(tile, buffers, rank, less);
}

template <class Key, class Shape, class Less>
__global__ void __launch_bounds__(Shape::tile_type::threads, 1)
    cluster_sort_kernel(Key* keys, index_t n, Less less) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // clusters: compute capability 9.0 and up
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using lay = layout;
  using W = typename Shape::tile_type::W;
  constexpr unsigned B = Shape::block_log2;
  typename Shape::tile_type tile;
  W* const words = reinterpret_cast<W*>(smem_bytes);
  tile.smem = words;
  const unsigned rank = cooperative_groups::this_cluster().block_rank();
  wait_for_previous_pass();
  const index_t base = index_t{rank} << B;
  const index_t left = n > base ? n - base : 0;
  const unsigned block_n = left < Shape::tile_type::keys ? unsigned(left) : Shape::tile_type::keys;
  tile.template load<lay::registers_mid, false>(keys + base, block_n, less);
  // Stage B sorts the block descending where bit B of the index (bit 0 of the rank) is set: the
  // block's stages 1..B run on complemented words there, which sorts them ascending.
  const W block_code = (rank & 1u) ? W(~W(0)) : W(0);
#pragma unroll
  for (unsigned m = 0; m < tile.K; ++m)
    tile.r[m] ^= optimized_sort_tile::stage_code<1, B, lay::registers_mid>(tile, m) ^ block_code;
  tile.template exchange<lay::registers_mid, lay::registers_low>();
  optimized_sort_tile::stages<1, B>(tile, less);
  cluster_stages<Shape, B + 1>(tile, words + Shape::buffer_words, rank, less);
  tile.template exchange<lay::registers_low, lay::registers_mid>();
  if (base < n) tile.template store<lay::registers_mid, false>(keys + base, block_n);
  cooperative_groups::this_cluster().sync();  // no block leaves while others read its buffers
#endif
}

//! Calls run(Shape{}) with the cluster shape that sorts 2^stages keys (stages from
//! tuning::cluster_sort's stages_min to its stages_max) and returns true, or returns false.
template <class Key, unsigned ClusterLog2 = tuning::cluster_sort<sizeof(Key)>::cluster_log2_min,
          class Run>
bool with_shape(unsigned stages, Run run) {
  using C = tuning::cluster_sort<sizeof(Key)>;
  if constexpr (ClusterLog2 > C::cluster_log2_max) {
    return false;
  } else {
    if (stages == C::block_log2 + ClusterLog2) {
      run(shape<Key, ClusterLog2>{});
      return true;
    }
    return with_shape<Key, ClusterLog2 + 1>(stages, run);
  }
}

//! Sorts keys[0, n) (n <= 2^stages, stages as with_shape takes) in one launch of one cluster, of
//! a size the device places (host::cluster_blocks_max, which the plan asked).
template <class Key, class Less>
void launch(Key* keys, index_t n, unsigned stages, Less less, cudaStream_t stream) {
  const bool known = with_shape<Key>(stages, [&](auto shape) {
    using Shape = decltype(shape);
    constexpr auto kernel = cluster_sort_kernel<Key, Shape, Less>;
    // Each block of the cluster on its own SM (as the plan's cluster size was asked for).
    const std::size_t smem = std::max(Shape::smem_bytes, host::one_block_per_multiprocessor_smem());
    allow_dynamic_shared_memory<kernel>(
        smem, "cudaFuncSetAttribute(optimized cluster_sort_kernel shared memory)");
    once_per_device([] {
      host::check_cuda(
          cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
          "cudaFuncSetAttribute(optimized cluster_sort_kernel cluster size)");
    });
    constexpr unsigned blocks = 1u << Shape::cluster_log2;
    launch_chained_clusters(kernel, blocks, blocks, Shape::tile_type::threads, smem, stream,
                            "optimized cluster_sort_kernel launch", keys, n, less);
  });
  if (!known) throw error("bitonic: internal error: no cluster shape for this many stages");
}

}  // namespace bitonic::kernels::optimized_cluster_sort
