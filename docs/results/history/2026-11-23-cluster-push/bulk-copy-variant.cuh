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
#include <cuda/ptx>
#include <cuda/std/bit>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "bitonic/key_order.hpp"
#include "bitonic/network.hpp"
#include "host/cuda_check.hpp"
#include "host/device.hpp"
#include "kernels/launch.cuh"
#include "kernels/optimized_sort_tile.cuh"
#include "kernels/register_tile.cuh"
#include "plan/tuning.hpp"

#ifndef BITONIC_CLUSTER_UNROLL
#define BITONIC_CLUSTER_UNROLL 1
#endif

namespace bitonic::kernels::optimized_cluster_sort {

using network::index_t;

//! A cluster of 2^ClusterLog2 blocks of 2^block_log2 keys (tuning::cluster_sort): sorts
//! 2^(block_log2 + ClusterLog2) keys, fewer with pads.
template <class Key, unsigned ClusterLog2>
struct shape {
  using T = tuning::optimized<sizeof(Key)>;
  using C = tuning::cluster_sort<sizeof(Key)>;
  using tile_type = register_tile<Key, C::block_log2>;
  using W = typename tile_type::W;
  static constexpr unsigned block_log2 = C::block_log2, cluster_log2 = ClusterLog2;
  static constexpr unsigned stages = block_log2 + ClusterLog2;
  static_assert(tile_type::threads == C::block_threads, "the tuning's block of threads");
  static_assert(ClusterLog2 >= C::cluster_log2_min && ClusterLog2 <= C::cluster_log2_max,
                "a cluster of the tuning's sizes");
  static_assert(ClusterLog2 <= 5, "the block bits must become register bits of the high layout");
  //! Keys of the tile that go to one block in a transpose: those with the same top C bits.
  static constexpr unsigned part_log2 = block_log2 - ClusterLog2;
  //! Every buffer is a tile padded as the register tile's (T::padded), so a part is contiguous.
  static constexpr std::size_t buffer_words = T::padded(tile_type::keys);
  static constexpr std::uint32_t part_bytes = T::padded(1u << part_log2) * sizeof(W);
  static_assert(part_bytes % 16 == 0, "bulk copies move multiples of 16 bytes");
  //! Two mailbox barriers, then the tile's exchange buffer, two staging buffers, two mailboxes.
  static constexpr std::size_t smem_bytes =
      2 * sizeof(std::uint64_t) + 5 * buffer_words * sizeof(W);
};

//! The shared::cluster address of `local` (this block's shared memory) in block `rank`.
__device__ __forceinline__ std::uint32_t cluster_address(const void* local, unsigned rank) {
  std::uint32_t remote;
  asm("mapa.shared::cluster.u32 %0, %1, %2;"
      : "=r"(remote)
      : "r"(std::uint32_t(__cvta_generic_to_shared(local))), "r"(rank));
  return remote;
}

//! Copies `bytes` (a multiple of 16) from this block's shared memory at `from` to `to`, a
//! shared::cluster address, and counts them on the mbarrier at `arrived` in the receiving block
//! (cp.async.bulk: the copy engine moves them; the receiver sees them once that barrier's phase
//! completes). The sender's stores to `from` must be fenced for the async proxy before.
__device__ __forceinline__ void copy_bulk(std::uint32_t to, const void* from, std::uint32_t bytes,
                                          std::uint32_t arrived) {
  asm volatile(
      "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, "
      "[%3];"
      :
      : "r"(to), "r"(std::uint32_t(__cvta_generic_to_shared(from))), "r"(bytes), "r"(arrived)
      : "memory");
}

//! A block's buffers for the transposes in its shared memory: for transpose t it stages its
//! keys in staging buffer t % 2, from which the copy engine moves each block's part into mailbox
//! t % 2 of that block; the mailbox's mbarrier counts the bytes, and its phase t / 2 completes
//! when all parts have landed. No cluster barrier (and no GPU-wide fence, which a release at
//! cluster scope compiles to) per transpose: a block writes staging buffer t % 2, and sends into
//! mailboxes t % 2, only after it has received transpose t - 1 from every block, which each sent
//! after it had received transpose t - 2 (so those copies are done) and read its mailbox.
template <class Shape>
struct mailboxes {
  using W = typename Shape::W;
  std::uint64_t* arrived;  // [2]
  W* buffers;              // staging [2], then mailboxes [2], of buffer_words each

  __device__ W* staging(unsigned t) const { return buffers + (t & 1u) * Shape::buffer_words; }
  __device__ W* box(unsigned t) const { return buffers + (2 + (t & 1u)) * Shape::buffer_words; }
  __device__ std::uint64_t* barrier(unsigned t) const { return arrived + (t & 1u); }
};

//! Moves the keys from layout From (registers_low: the block's own index; registers_high: the
//! transposed index) into the high layout of the other index: block q's transposed index holds
//! the block bits of the original in its top C bits, and the original top C bits are q. Both
//! directions are the same swap of bits: key p of a block's From index goes to block
//! p >> part_log2, at its index (rank << part_log2) | (p & part mask). Transpose t of the kernel.
template <class Shape, layout From, class Tile>
__device__ void transpose(Tile& tile, const mailboxes<Shape>& mail, unsigned t, unsigned rank) {
  using T = typename Shape::T;
  using W = typename Tile::W;
  constexpr unsigned part = Shape::part_log2, blocks = 1u << Shape::cluster_log2;
  constexpr unsigned high = Tile::template base<layout::registers_high>;
  W* const staging = mail.staging(t);
  W* const box = mail.box(t);
  std::uint64_t* const arrived = mail.barrier(t);
  if (tile.thread == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                               cuda::ptx::space_shared, arrived,
                                               blocks * Shape::part_bytes);
  }
  W* const mine = staging + T::padded(tile.template index<From>(0));
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    mine[T::padded(m << Tile::template base<From>)] = tile.r[m];
  cuda::ptx::fence_proxy_async(cuda::ptx::space_shared);  // the stores, for the copy engine
  __syncthreads();
  if (tile.thread < blocks) {  // part `to` of the staged tile goes to block `to`
    const unsigned to = tile.thread;
    copy_bulk(cluster_address(box + T::padded(rank << part), to), staging + T::padded(to << part),
              Shape::part_bytes, cluster_address(arrived, to));
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                              arrived, (t >> 1) & 1u)) {
  }
  const W* const in = box + T::padded(tile.thread);
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    tile.r[m] = in[T::padded(m << high)];
}

//! Stages past the block (block_log2 + 1 .. Shape::stages), starting in the low layout coded for
//! stage block_log2. A loop: each iteration's code is compiled once (a lone block an SM runs
//! every instruction once, so unrolled code waits on instruction fetch).
template <class Shape, class Tile, class Less>
__device__ void cluster_stages(Tile& tile, const mailboxes<Shape>& mail, unsigned rank, Less less) {
  using W = typename Tile::W;
  using lay = layout;
  constexpr unsigned B = Shape::block_log2, C = Shape::cluster_log2;
  constexpr unsigned high = Tile::template base<lay::registers_high>;
  // The code of stage s >= B: bit s of the index, a bit of the rank; none in the last stage.
  const auto code = [&](unsigned s) {
    return s < Shape::stages && ((rank >> (s - B)) & 1u) ? W(~W(0)) : W(0);
  };
#pragma unroll 1
  for (unsigned s = B + 1; s <= Shape::stages; ++s) {
    const W recode = code(s - 1) ^ code(s);
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.r[m] ^= recode;
    const unsigned t = 2 * (s - B - 1);
    transpose<Shape, lay::registers_low>(tile, mail, t, rank);
    // The stage's steps on the block bits: transposed bits s - 1 - C down to B - C.
    tile.template steps_from_register_bit<lay::registers_high, int(B - C - high)>(s - 1 - C - high,
                                                                                  less);
    transpose<Shape, lay::registers_high>(tile, mail, t + 1, rank);
    tile.template steps_from_high<int(B) - 1>(less);
  }
}

template <class Key, class Shape, class Less>
__global__ void __launch_bounds__(Shape::tile_type::threads, 1)
    cluster_sort_kernel(Key* keys, index_t n, Less less) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900  // clusters: compute capability 9.0 and up
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using lay = layout;
  using W = typename Shape::W;
  constexpr unsigned B = Shape::block_log2;
  typename Shape::tile_type tile;
  const mailboxes<Shape> mail{
      reinterpret_cast<std::uint64_t*>(smem_bytes),
      reinterpret_cast<W*>(smem_bytes + 2 * sizeof(std::uint64_t)) + Shape::buffer_words};
  tile.smem = reinterpret_cast<W*>(smem_bytes + 2 * sizeof(std::uint64_t));
  if (threadIdx.x == 0) {  // other blocks may store into the mailboxes after the cluster wait
    cuda::ptx::mbarrier_init(mail.arrived, 1);
    cuda::ptx::mbarrier_init(mail.arrived + 1, 1);
    cuda::ptx::fence_mbarrier_init(cuda::ptx::sem_release, cuda::ptx::scope_cluster);
  }
  __cluster_barrier_arrive_relaxed();
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
  optimized_sort_tile::stages<1, B, false, BITONIC_CLUSTER_UNROLL>(tile, less);
  __cluster_barrier_wait();  // every block's mailboxes are set up
  cluster_stages<Shape>(tile, mail, rank, less);
  // Every block has received all its keys (and so every store into this block's mailboxes has
  // landed) once all have arrived here: none leaves while a store may still be in flight.
  __cluster_barrier_arrive_relaxed();
  tile.template exchange<lay::registers_low, lay::registers_mid>();
  if (base < n) tile.template store<lay::registers_mid, false>(keys + base, block_n);
  __cluster_barrier_wait();
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
