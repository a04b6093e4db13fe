// optimized, small n in one launch: all stages of 2^14 to 2^16 four-byte keys on one cluster of
// 4..16 blocks (a Hopper thread-block cluster; tuning::cluster_sort), each block holding 2^12
// keys in registers (register_tile.cuh), one block an SM. Why: below a few tiles a sort's time
// is a lone tile's 105 steps on one SM plus a launch per later stage (H100: 2^16 int32 keys took
// 31 us of GPU time in six launches); here every SM of the cluster runs a part of the keys and
// the stages between blocks need no launch. A step between blocks (distance 2^12 and up) runs
// after an all-to-all transpose through distributed shared memory that swaps the block bits of
// the index with the block's top bits, so that they become register bits of the high layout; a
// second transpose swaps them back for the stage's steps inside the block. A transpose pushes:
// each block stores every other block's part straight into that block's mailbox (st.async,
// 16-byte or 8-byte stores of consecutive words) and waits on its own mailbox's mbarrier, which
// counts the bytes. The first version pulled after a cluster barrier, whose release at cluster
// scope compiles to a GPU-wide fence (MEMBAR.ALL.GPU): 2^16 int32 took 28.5 us against ~22 now
// (H100, one launch timed with events, PERFORMANCE.md log 33). The network is the classic form,
// as in the first pass (optimized_sort_tile.cuh): a stage's direction is a code XORed into the
// words, which for stages above 12 is a bit of the block's rank, so one XOR per key and stage.
// Blocks past n hold only pads (the greatest word).
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
  static_assert(sizeof(W) == 4, "a thread sends its 32 consecutive keys as 16-byte stores");
  //! Keys of the tile that go to one block in a transpose: those with the same top C bits.
  static constexpr unsigned part_log2 = block_log2 - ClusterLog2;
  //! A mailbox row of 32 words is padded to 36, so that a warp's 16-byte stores of 32
  //! consecutive words each (one a lane) spread over all banks, and rows stay 16-byte aligned.
  __host__ __device__ static constexpr unsigned mail_padded(unsigned i) { return i + (i >> 5) * 4; }
  static constexpr std::size_t tile_words = T::padded(tile_type::keys);  // the tile's exchanges
  static constexpr std::size_t mailbox_words = mail_padded(tile_type::keys);
  static_assert(tile_words % 4 == 0 && mailbox_words % 4 == 0, "16-byte aligned mailboxes");
  //! Two mailbox barriers, the tile's exchange buffer, two mailboxes.
  static constexpr std::size_t smem_bytes =
      2 * sizeof(std::uint64_t) + (tile_words + 2 * mailbox_words) * sizeof(W);
};

//! The shared::cluster address of `local` (this block's shared memory) in block `rank`. (Not
//! CCCL's cuda::ptx::st_async on map_shared_rank's generic pointers: it converts them with
//! cvta.to.shared, and the first version of these transposes built on it hung.)
__device__ __forceinline__ std::uint32_t cluster_address(const void* local, unsigned rank) {
  std::uint32_t remote;
  asm("mapa.shared::cluster.u32 %0, %1, %2;"
      : "=r"(remote)
      : "r"(std::uint32_t(__cvta_generic_to_shared(local))), "r"(rank));
  return remote;
}

//! Stores N consecutive words (2 or 4; `to` aligned to them) at `to`, a shared::cluster address,
//! and counts their bytes on the mbarrier at `arrived` in the same block (st.async): the
//! receiver sees them once that barrier's phase completes.
template <unsigned N, class W>
__device__ __forceinline__ void store_async(std::uint32_t to, const W* words,
                                            std::uint32_t arrived) {
  static_assert(sizeof(W) == 4 && (N == 2 || N == 4), "2 or 4 words of four bytes");
  const auto u = [&](unsigned i) { return cuda::std::bit_cast<std::uint32_t>(words[i]); };
  if constexpr (N == 2) {
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
        :
        : "r"(to), "r"(u(0)), "r"(u(1)), "r"(arrived)
        : "memory");
  } else {
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, "
        "[%5];"
        :
        : "r"(to), "r"(u(0)), "r"(u(1)), "r"(u(2)), "r"(u(3)), "r"(arrived)
        : "memory");
  }
}

//! Loads N consecutive words (2 or 4; `from` aligned to them) of this block's shared memory.
template <unsigned N, class W>
__device__ __forceinline__ void load_words(const W* from, W* words) {
  static_assert(sizeof(W) == 4 && (N == 2 || N == 4), "2 or 4 words of four bytes");
  using vector = std::conditional_t<N == 2, uint2, uint4>;
  const vector v = *reinterpret_cast<const vector*>(from);
  const auto* u = reinterpret_cast<const std::uint32_t*>(&v);
#pragma unroll
  for (unsigned i = 0; i < N; ++i)
    words[i] = cuda::std::bit_cast<W>(u[i]);
}

//! A block's two mailboxes in its shared memory: other blocks store their keys for transpose t
//! into mailbox t % 2 (st.async), whose mbarrier counts the bytes; its phase t / 2 completes
//! when all of them have landed. No cluster barrier (and no GPU-wide fence, which a release at
//! cluster scope compiles to) per transpose: a block stores into mailbox t % 2 only after it
//! has received transpose t - 1 from every block, so after each of them has read its mailbox
//! t % 2 of transpose t - 2 (those keys flowed into what it sent for t - 1).
template <class Shape>
struct mailboxes {
  using W = typename Shape::W;
  std::uint64_t* arrived;  // [2]
  W* boxes;                // [2][mailbox_words]

  __device__ W* box(unsigned t) const { return boxes + (t & 1u) * Shape::mailbox_words; }
  __device__ std::uint64_t* barrier(unsigned t) const { return arrived + (t & 1u); }
};

//! Moves the keys from layout From (registers_low: the block's own index; registers_high: the
//! transposed index) into the high layout of the other index: block q's transposed index holds
//! the block bits of the original in its top C bits, and the original top C bits are q. Both
//! directions are the same swap of bits: key p of a block's From index goes to block
//! p >> part_log2, at its index (rank << part_log2) | (p & part mask). Transpose t of the kernel.
template <class Shape, layout From, class Tile>
__device__ void transpose(Tile& tile, const mailboxes<Shape>& mail, unsigned t, unsigned rank) {
  using W = typename Tile::W;
  constexpr unsigned part = Shape::part_log2, high = Tile::template base<layout::registers_high>;
  constexpr unsigned part_mask = (1u << part) - 1;
  // From the high layout, registers m and up to m + group - 1 (m a multiple of group) go to one
  // block, which receives them as consecutive words: vectors of up to four.
  constexpr unsigned group_log2 = part - high, group = 1u << group_log2;
  constexpr unsigned vector = group < 4 ? group : 4;
  static_assert(group >= 2, "clusters of up to 16 blocks: two registers or more to each");
  W* const box = mail.box(t);
  std::uint64_t* const arrived = mail.barrier(t);
  if (tile.thread == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                               cuda::ptx::space_shared, arrived,
                                               std::uint32_t(Tile::keys * sizeof(W)));
  }
  const unsigned from_me = rank << part;
  if constexpr (From == layout::registers_low) {  // a thread's 32 keys: consecutive, one receiver
    const unsigned p = tile.template index<From>(0), to = p >> part;
    const std::uint32_t at =
        cluster_address(box + Shape::mail_padded(from_me | (p & part_mask)), to);
    const std::uint32_t remote_arrived = cluster_address(arrived, to);
#pragma unroll
    for (unsigned m = 0; m < Tile::K; m += 4)
      store_async<4>(at + m * sizeof(W), tile.r + m, remote_arrived);
  } else {  // register m: index thread | m << high, so a group of registers goes to each block
    static_assert(From == layout::registers_high, "transposes start in the low or high layout");
    const W* const at = box + Shape::mail_padded(from_me | (tile.thread << group_log2));
#pragma unroll
    for (unsigned to = 0; to < Tile::K / group; ++to) {
      const std::uint32_t remote = cluster_address(at, to);
      const std::uint32_t remote_arrived = cluster_address(arrived, to);
#pragma unroll
      for (unsigned j = 0; j < group; j += vector)
        store_async<vector>(remote + j * sizeof(W), tile.r + to * group + j, remote_arrived);
    }
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                              arrived, (t >> 1) & 1u)) {
  }
  if constexpr (From == layout::registers_low) {  // rows of the high layout, one word a thread
    const W* const mine = box + Shape::mail_padded(tile.thread);
#pragma unroll
    for (unsigned m = 0; m < Tile::K; ++m)
      tile.r[m] = mine[Shape::mail_padded(m << high)];
  } else {  // from each block, the thread's group of registers
    const W* const mine = box + Shape::mail_padded(tile.thread << group_log2);
#pragma unroll
    for (unsigned from = 0; from < Tile::K / group; ++from) {
#pragma unroll
      for (unsigned j = 0; j < group; j += vector)
        load_words<vector>(mine + Shape::mail_padded(from << part) + j, tile.r + from * group + j);
    }
  }
}

//! Stage S past the block (block_log2 < S <= Shape::stages) and the ones after it, starting in
//! the low layout coded for stage S - 1. Unrolled (each stage its own code): as a loop over the
//! stages, 2^16 int32 keys took ~2 us longer (H100, PERFORMANCE.md log 33).
template <class Shape, unsigned S, class Tile, class Less>
__device__ void cluster_stages(Tile& tile, const mailboxes<Shape>& mail, unsigned rank, Less less) {
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
  constexpr unsigned t = 2 * (S - B - 1);
  transpose<Shape, lay::registers_low>(tile, mail, t, rank);
  // The stage's steps on the block bits: transposed bits S - 1 - C down to B - C.
  tile.template steps<lay::registers_high, int(S) - 1 - int(C), int(B) - int(C)>(less);
  transpose<Shape, lay::registers_high>(tile, mail, t + 1, rank);
  tile.template steps_from_high<int(B) - 1>(less);
  if constexpr (S < Shape::stages) cluster_stages<Shape, S + 1>(tile, mail, rank, less);
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
      reinterpret_cast<W*>(smem_bytes + 2 * sizeof(std::uint64_t)) + Shape::tile_words};
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
  optimized_sort_tile::stages<1, B>(tile, less);  // unrolled: as a loop 1.5 us slower
  __cluster_barrier_wait();                       // every block's mailboxes are set up
  cluster_stages<Shape, B + 1>(tile, mail, rank, less);
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
