// optimized, small n in one launch: all stages of 2^14 to 2^16 four-byte keys on one cluster of
// 4..16 blocks (a Hopper thread-block cluster; tuning::cluster_sort), each block holding 2^12
// keys in registers (register_tile.cuh), one block an SM. Why: below a few tiles a sort's time
// is a lone tile's 105 steps on one SM plus a launch per later stage; here every SM of the cluster
// runs a part of the keys and the stages between blocks need no launch. The blocks sort their own
// keys (stages 1..12), then the stages past the block run in segments (cluster_schedule.hpp): runs
// of steps on at most 12 distinct index bits, which a transpose through distributed shared memory
// makes the blocks' tile bits. 2^16 keys take 5 transposes; swapping the block bits in and out for
// every stage took 8 (docs/PERFORMANCE.md log 34). A transpose pushes: each block stores every key
// it sends straight into the receiver's mailbox for that transpose (st.async, vectors of the
// receiver's consecutive words) and waits on its own mailbox's mbarrier, which counts the bytes;
// keys that stay in the block are stored plainly. The first version pulled after a cluster barrier,
// whose release at cluster scope compiles to a GPU-wide fence (MEMBAR.ALL.GPU), slower than the
// pushes (docs/PERFORMANCE.md log 33). The network is the classic form, as in the first pass
// (optimized_sort_tile.cuh): a stage's direction is a code XORed into the words (bit s of the
// key's index for stage s), recoded where a segment crosses from one stage to the next. Blocks
// past n hold only pads (the greatest word).
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cuda/ptx>
#include <cuda/std/bit>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/cluster_schedule.hpp"
#include "kernels/launch.cuh"
#include "kernels/optimized_sort_tile.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"
#include "runtime/device.hpp"

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
  static_assert(sizeof(W) == 4, "st.async stores of one, two or four 4-byte words");
  static constexpr cluster_schedule::plan schedule =
      cluster_schedule::make(block_log2, ClusterLog2);
  static constexpr unsigned transposes = schedule.count - 1;
  static_assert(stages <= cluster_schedule::max_bits &&
                    schedule.count <= cluster_schedule::max_segments,
                "the schedule's tables hold the index bits and segments");
  //! A mailbox row of 32 words is padded to 36, so that a warp's 16-byte stores of 32
  //! consecutive words each (one a lane) spread over all banks, and rows stay 16-byte aligned.
  __host__ __device__ static constexpr unsigned mail_padded(unsigned i) { return i + (i >> 5) * 4; }
  static constexpr std::size_t tile_words = T::padded(tile_type::keys);  // the tile's exchanges
  static constexpr std::size_t mailbox_words = mail_padded(tile_type::keys);
  static_assert(tile_words % 4 == 0 && mailbox_words % 4 == 0, "16-byte aligned mailboxes");
  //! One mbarrier a transpose (16-byte aligned after them), the tile's exchange buffer, one
  //! mailbox a transpose.
  static constexpr std::size_t barrier_bytes = (transposes * sizeof(std::uint64_t) + 15) / 16 * 16;
  static constexpr std::size_t smem_bytes =
      barrier_bytes + (tile_words + transposes * mailbox_words) * sizeof(W);
};

//! Calls f(std::integral_constant<unsigned, i>) for i = 0..N-1: each i a compile-time constant.
template <unsigned N, class F>
__device__ __forceinline__ void for_constants(F f) {
  [&]<unsigned... I>(std::integer_sequence<unsigned, I...>) {
    (f(std::integral_constant<unsigned, I>{}), ...);
  }
  (std::make_integer_sequence<unsigned, N>{});
}

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

//! Stores N consecutive words (1, 2 or 4; `to` aligned to them) at `to`, a shared::cluster
//! address, and counts their bytes on the mbarrier at `arrived` in the same block (st.async):
//! the receiver sees them once that barrier's phase completes.
template <unsigned N, class W>
__device__ __forceinline__ void store_async(std::uint32_t to, const W* words,
                                            std::uint32_t arrived) {
  static_assert(sizeof(W) == 4 && (N == 1 || N == 2 || N == 4), "1, 2 or 4 words of four bytes");
  const auto u = [&](unsigned i) { return cuda::std::bit_cast<std::uint32_t>(words[i]); };
  if constexpr (N == 1) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];"
                 :
                 : "r"(to), "r"(u(0)), "r"(arrived)
                 : "memory");
  } else if constexpr (N == 2) {
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

//! Stores N consecutive words (1, 2 or 4; `to` aligned to them) of this block's shared memory.
template <unsigned N, class W>
__device__ __forceinline__ void store_words(W* to, const W* words) {
  static_assert(sizeof(W) == 4 && (N == 1 || N == 2 || N == 4), "1, 2 or 4 words of four bytes");
  const auto u = [&](unsigned i) { return cuda::std::bit_cast<std::uint32_t>(words[i]); };
  if constexpr (N == 1) {
    *to = words[0];
  } else if constexpr (N == 2) {
    *reinterpret_cast<uint2*>(to) = make_uint2(u(0), u(1));
  } else {
    *reinterpret_cast<uint4*>(to) = make_uint4(u(0), u(1), u(2), u(3));
  }
}

//! A block's mailboxes in its shared memory: in transpose i every block stores the keys it
//! sends this block into mailbox i (st.async), whose mbarrier counts the bytes; its one phase
//! completes when all of them have landed. Each mailbox and barrier serves one transpose, so
//! no block waits for another to have read its mailbox before storing into it, and no cluster
//! barrier (whose release at cluster scope compiles to a GPU-wide fence) runs between them.
template <class Shape>
struct mailboxes {
  using W = typename Shape::W;
  std::uint64_t* arrived;  // [transposes]
  W* boxes;                // [transposes][mailbox_words]

  __device__ W* box(unsigned i) const { return boxes + i * Shape::mailbox_words; }
  __device__ std::uint64_t* barrier(unsigned i) const { return arrived + i; }
};

//! Segment I of the schedule (cluster_schedule.hpp) and the one before it, as constants.
template <class Shape, unsigned I>
struct segment_bits {
  using tile_type = typename Shape::tile_type;
  static constexpr cluster_schedule::segment before = Shape::schedule.segments[I - 1];
  static constexpr cluster_schedule::segment now = Shape::schedule.segments[I];
  static constexpr unsigned B = Shape::block_log2, bits = Shape::stages;
  template <layout L>
  static constexpr unsigned base = tile_type::template base<L>;
  //! Bits of the tile index a thread's register number holds, in every layout.
  static constexpr unsigned register_bits = unsigned(cuda::std::countr_zero(tile_type::K));
  //! Where transpose I takes the key at position p of segment I - 1 (tile bit p < B or rank
  //! bit p - B): tile bit or B + rank bit of segment I.
  __host__ __device__ static constexpr unsigned to(unsigned p) {
    return now.location[before.bit_at(p, bits)];
  }
  //! Whether position p is one of the register bits of layout L.
  template <layout L>
  __host__ __device__ static constexpr bool is_register(unsigned p) {
    return p - base<L> < register_bits;  // wraps around below base<L>
  }
  //! Where the register bits of register m of layout L go.
  template <layout L>
  __host__ __device__ static constexpr unsigned register_destination(unsigned m) {
    unsigned d = 0;
    for (unsigned k = 0; k < register_bits; ++k)
      d |= ((m >> k) & 1u) << to(base<L> + k);
    return d;
  }
  //! The register bit of layout L that goes to tile bit t of the receiver, or register_bits if
  //! none does.
  template <layout L>
  __host__ __device__ static constexpr unsigned register_bit_to(unsigned t) {
    for (unsigned k = 0; k < register_bits; ++k)
      if (to(base<L> + k) == t) return k;
    return register_bits;
  }
  //! The receiver's consecutive words a thread stores at once from layout L: registers that go
  //! to tile bits 0 (and 1) of the receiver make 2 (4) consecutive words.
  template <layout L>
  static constexpr unsigned vector = register_bit_to<L>(0) == register_bits   ? 1
                                     : register_bit_to<L>(1) == register_bits ? 2
                                                                              : 4;
  //! Segment I - 1 ends in the low layout; the mid one costs an exchange inside the warp first,
  //! the high one an exchange across the block: taken when they let a thread store wider vectors.
  __host__ __device__ static constexpr layout widest_sender() {
    constexpr unsigned low = vector<layout::registers_low>, mid = vector<layout::registers_mid>,
                       high = vector<layout::registers_high>;
    if (high > mid && high > low) return layout::registers_high;
    return mid > low ? layout::registers_mid : layout::registers_low;
  }
  static constexpr layout sender = widest_sender();
  //! Whether the receiving block of a register is the same for every thread of a block: no
  //! thread bit of the sender goes to a rank bit.
  template <layout L>
  __host__ __device__ static constexpr bool same_receiver_per_block() {
    for (unsigned p = 0; p < B; ++p)
      if (!is_register<L>(p) && to(p) >= B) return false;
    return true;
  }
  //! Keys of a block that stay in it: those whose bits that become rank bits match its rank.
  __host__ __device__ static constexpr unsigned staying_keys() {
    unsigned from_tile = 0;
    for (unsigned p = 0; p < B; ++p)
      from_tile += to(p) >= B ? 1 : 0;
    return (1u << B) >> from_tile;
  }
  //! The segment's steps start on tile bit now.top: in the high layout from its lowest bit up.
  static constexpr layout receiver =
      now.top >= base<layout::registers_high> ? layout::registers_high : layout::registers_mid;
};

//! Where the bits of position src (tile index | rank << B) that are not register bits of
//! layout L go in segment I: positions P... of segment I - 1, one term each.
template <class Bits, layout L, unsigned... P>
__device__ __forceinline__ unsigned thread_destination(unsigned src,
                                                       std::integer_sequence<unsigned, P...>) {
  const auto term = [&](auto p) -> unsigned {
    constexpr unsigned from = decltype(p)::value;
    if constexpr (Bits::template is_register<L>(from)) {
      return 0;
    } else {
      constexpr unsigned to = Bits::to(from);
      return ((src >> from) & 1u) << to;
    }
  };
  return (0u | ... | term(std::integral_constant<unsigned, P>{}));
}

//! Transpose I: moves every key from its place in segment I - 1 (registers in the low layout,
//! sent from Bits::sender) to its place in segment I (registers in Bits::receiver), through the
//! receivers' mailbox I - 1.
template <class Shape, unsigned I, class Tile>
__device__ void transpose(Tile& tile, const mailboxes<Shape>& mail, unsigned rank) {
  using W = typename Tile::W;
  using Bits = segment_bits<Shape, I>;
  constexpr layout From = Bits::sender, To = Bits::receiver;
  constexpr unsigned B = Shape::block_log2, tile_mask = (1u << B) - 1,
                     vector = Bits::template vector<From>;
  if constexpr (From != layout::registers_low) {
    tile.template exchange<layout::registers_low, From>();
  }
  W* const box = mail.box(I - 1);
  std::uint64_t* const arrived = mail.barrier(I - 1);
  // Where every thread sends a register to the same block, the keys that stay in this block
  // are stored plainly (st.async costs as much to the own block as to another) and only
  // the others counted on the mbarrier.
  constexpr bool plain_local = Bits::template same_receiver_per_block<From>();
  constexpr unsigned counted = plain_local ? Tile::keys - Bits::staying_keys() : Tile::keys;
  if (tile.thread == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta,
                                               cuda::ptx::space_shared, arrived,
                                               std::uint32_t(counted * sizeof(W)));
  }
  const unsigned mine =
      thread_destination<Bits, From>(tile.template index<From>(0) | (rank << B),
                                     std::make_integer_sequence<unsigned, Shape::stages>{});
  W* const local = box + Shape::mail_padded(mine & tile_mask);
  for_constants<Tile::K>([&](auto m) {
    constexpr unsigned M = decltype(m)::value;
    constexpr unsigned a = Bits::template register_bit_to<From>(0);
    constexpr unsigned b = Bits::template register_bit_to<From>(1);
    constexpr bool first =
        (vector < 2 || ((M >> a) & 1u) == 0) && (vector < 4 || ((M >> b) & 1u) == 0);
    if constexpr (first) {  // the vector's first register: the receiver's tile bits 0 and 1 clear
      constexpr unsigned d = Bits::template register_destination<From>(M);
      const unsigned to = (mine >> B) | (d >> B);
      W words[vector];
      for_constants<vector>([&](auto j) {
        constexpr unsigned J = decltype(j)::value;
        constexpr unsigned reg =
            M | (vector > 1 ? (J & 1u) << a : 0) | (vector > 2 ? (J >> 1) << b : 0);
        words[J] = tile.r[reg];
      });
      W* const at = local + Shape::mail_padded(d & tile_mask);
      if (plain_local && to == rank) {
        store_words<vector>(at, words);
      } else {
        store_async<vector>(cluster_address(at, to), words, cluster_address(arrived, to));
      }
    }
  });
  // The plain stores land for the whole block; and the high layout's exchange has been read
  // before the segment's in-warp exchanges write the exchange buffer again.
  if constexpr (plain_local || From == layout::registers_high) __syncthreads();
  while (!cuda::ptx::mbarrier_try_wait_parity(cuda::ptx::sem_acquire, cuda::ptx::scope_cluster,
                                              arrived, 0)) {
  }
  const W* const at = box + Shape::mail_padded(tile.template index<To>(0));
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    tile.r[m] = at[Shape::mail_padded(m << Tile::template base<To>)];
}

//! The code of stage Stage (all ones where the classic form's stage sorts descending: where bit
//! Stage of the key's index is set; none in the last stage) of register m in layout L of
//! segment I.
template <class Shape, unsigned I, layout L, unsigned Stage, class Tile>
__device__ typename Tile::W stage_code(const Tile& tile, unsigned m, unsigned rank) {
  using W = typename Tile::W;
  constexpr unsigned B = Shape::block_log2;
  if constexpr (Stage >= Shape::stages) {
    return 0;
  } else {
    constexpr unsigned at = Shape::schedule.segments[I].location[Stage];
    if constexpr (at < B) {
      return tile.template bit_mask<L>(m, at);
    } else {
      return ((rank >> (at - B)) & 1u) ? W(~W(0)) : W(0);
    }
  }
}

//! Recodes the keys in layout L of segment I from stage From to stage To (stage_code).
template <class Shape, unsigned I, layout L, unsigned From, unsigned To, class Tile>
__device__ void recode(Tile& tile, unsigned rank) {
#pragma unroll
  for (unsigned m = 0; m < Tile::K; ++m)
    tile.r[m] ^=
        stage_code<Shape, I, L, From>(tile, m, rank) ^ stage_code<Shape, I, L, To>(tile, m, rank);
}

//! Segment I's steps on tile bits Hi..Lo, all register bits of layout L, with the change of
//! stage where the segment has it.
template <class Shape, unsigned I, layout L, int Hi, int Lo, class Tile, class Less>
__device__ void segment_steps(Tile& tile, unsigned rank, Less less) {
  constexpr cluster_schedule::segment now = Shape::schedule.segments[I];
  constexpr int cut = now.boundary;
  if constexpr (cut >= Lo && cut <= Hi) {
    tile.template steps<L, Hi, cut>(less);
    recode<Shape, I, L, now.stage, now.stage + 1>(tile, rank);
    tile.template steps<L, cut - 1, Lo>(less);
  } else {
    tile.template steps<L, Hi, Lo>(less);
  }
}

//! Segment I of the schedule and the ones after it, starting in the low layout of segment
//! I - 1's index: the transpose into it, then its steps on tile bits top..0 (the high layout
//! for bits 7 and up, the mid one for 5 and 6, the low one below), ending in the low layout.
//! Unrolled (each segment its own code): as a loop over the stages past the block it was slower
//! (docs/PERFORMANCE.md log 33).
template <class Shape, unsigned I, class Tile, class Less>
__device__ void cluster_segments(Tile& tile, const mailboxes<Shape>& mail, unsigned rank,
                                 Less less) {
  using Bits = segment_bits<Shape, I>;
  using lay = layout;
  constexpr int top = int(Bits::now.top);
  constexpr int high = int(Tile::template base<lay::registers_high>);
  constexpr int mid = int(Tile::template base<lay::registers_mid>);
  transpose<Shape, I>(tile, mail, rank);
  if constexpr (Bits::before.last_stage() != Bits::now.stage) {
    recode<Shape, I, Bits::receiver, Bits::before.last_stage(), Bits::now.stage>(tile, rank);
  }
  if constexpr (top >= high) {
    segment_steps<Shape, I, lay::registers_high, top, high>(tile, rank, less);
    tile.template exchange<lay::registers_high, lay::registers_mid>();
  }
  segment_steps<Shape, I, lay::registers_mid, (top < high ? top : high - 1), mid>(tile, rank, less);
  tile.template exchange<lay::registers_mid, lay::registers_low>();
  segment_steps<Shape, I, lay::registers_low, (top < mid ? top : mid - 1), 0>(tile, rank, less);
  if constexpr (I + 1 < Shape::schedule.count)
    cluster_segments<Shape, I + 1>(tile, mail, rank, less);
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
      reinterpret_cast<W*>(smem_bytes + Shape::barrier_bytes) + Shape::tile_words};
  tile.smem = reinterpret_cast<W*>(smem_bytes + Shape::barrier_bytes);
  if (threadIdx.x == 0) {  // other blocks may store into the mailboxes after the cluster wait
#pragma unroll
    for (unsigned i = 0; i < Shape::transposes; ++i)
      cuda::ptx::mbarrier_init(mail.barrier(i), 1);
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
    tile.r[m] ^= optimized_sort_tile::stage_code<1, lay::registers_mid>(tile, m, B) ^ block_code;
  tile.template exchange<lay::registers_mid, lay::registers_low>();
  optimized_sort_tile::stages<1, B>(tile, less);  // unrolled: as a loop slower
  __cluster_barrier_wait();                       // every block's mailboxes are set up
  cluster_segments<Shape, 1>(tile, mail, rank, less);
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
//! a size the device places (runtime::cluster_blocks_max, which the plan asked).
template <class Key, class Less>
void launch(Key* keys, index_t n, unsigned stages, Less less, cudaStream_t stream) {
  const bool known = with_shape<Key>(stages, [&](auto shape) {
    using Shape = decltype(shape);
    constexpr auto kernel = cluster_sort_kernel<Key, Shape, Less>;
    // Each block of the cluster on its own SM (as the plan's cluster size was asked for).
    const std::size_t smem =
        std::max(Shape::smem_bytes, runtime::one_block_per_multiprocessor_smem());
    allow_dynamic_shared_memory<kernel>(
        smem, "cudaFuncSetAttribute(optimized cluster_sort_kernel shared memory)");
    once_per_device([] {
      check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                 "cudaFuncSetAttribute(optimized cluster_sort_kernel cluster size)");
    });
    constexpr unsigned blocks = 1u << Shape::cluster_log2;
    launch_chained_clusters(kernel, blocks, blocks, Shape::tile_type::threads, smem, stream,
                            "optimized cluster_sort_kernel launch", keys, n, less);
  });
  if (!known) throw error("bitonic: internal error: no cluster shape for this many stages");
}

}  // namespace bitonic::kernels::optimized_cluster_sort
