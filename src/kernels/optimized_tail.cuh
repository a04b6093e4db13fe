// optimized, the tail of a long stage: its steps j = tile_log2-1..0 (no flip), on each tile of
// 2^tile_log2 consecutive keys, in one pass. Every step runs on registers (register_tile.cuh):
// loaded in the high layout, the steps in three register rounds (high, mid, low), stored from the
// mid layout; one block-wide and two in-warp exchanges through shared memory, where a V2-style
// tile pays a shared-memory round trip and a barrier per step. Partial tiles are padded with the
// greatest word, which no plain step moves: the network's rule for missing keys. Plans for few
// tiles (first pass split) end each stage on every warp's keys instead (2^warp_stages: 16 a
// thread for 8-byte keys), in blocks of two warps spread over the SMs: the steps in the mid and
// low layouts, exchanged inside the warp.
#pragma once

#include <cuda_runtime.h>

#include "bitonic/bitonic.hpp"
#include "kernels/launch.cuh"
#include "kernels/register_tile.cuh"
#include "kernels/tuning.hpp"
#include "network/key_order.hpp"
#include "network/network.hpp"

namespace bitonic::kernels::optimized_tail {

using network::index_t;

template <class Key>
using tune = tuning::optimized<sizeof(Key)>;

//! A tail on tiles of 2^TileLog2 keys (blocks of 2^(TileLog2 - RegisterBits) threads) whose
//! steps are distances 2^(StepsLog2 - 1)..1: a stage's on whole tiles, or (StepsLog2 =
//! warp_stages) on every warp's keys, as the split plans for few tiles run it.
template <class Key, unsigned TileLog2, unsigned StepsLog2, unsigned MinBlocks,
          unsigned RegisterBits = 5>
struct shape {
  static_assert(StepsLog2 == TileLog2 || StepsLog2 == tune<Key>::warp_stages,
                "a tile's steps or a warp's");
  using tile_type = register_tile<Key, TileLog2, RegisterBits>;
  static_assert(StepsLog2 == TileLog2 || StepsLog2 == tile_type::warp_log2, "a warp's keys");
  static constexpr unsigned steps_log2 = StepsLog2, min_blocks = MinBlocks;
};
template <class Key>
using tile_tail =
    shape<Key, tune<Key>::tile_log2, tune<Key>::tile_log2, tune<Key>::tile_min_blocks>;
template <class Key>
using warp_tail = shape<Key, tune<Key>::warp_block_log2, tune<Key>::warp_stages,
                        tune<Key>::warp_block_min_blocks, tune<Key>::warp_register_bits>;

template <class Key, class Shape, class Less>
__global__ void __launch_bounds__(Shape::tile_type::threads, Shape::min_blocks)
    tail_kernel(Key* keys, index_t n, key_rows rows, Less less) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  using lay = layout;
  typename Shape::tile_type tile;
  tile.smem = reinterpret_cast<typename Shape::tile_type::W*>(smem_bytes);
  wait_for_previous_pass();
  for_each_tile<Shape::tile_type::keys>(n, rows, [&](index_t base, unsigned tile_n, auto full) {
    constexpr bool Full = decltype(full)::value;
    // A warp's bits only, lanes and registers: a warp tail's steps on every warp's keys, or a
    // tile tail's on a partial tile of at most a warp's keys (in rows with missing keys, often a
    // row's last tile), whose wider steps pair its keys with pads only, so warp 0 runs it alone.
    constexpr unsigned warp_log2 = Shape::tile_type::warp_log2;
    const auto warp_steps = [&] {
      tile.template load<lay::registers_mid, Full>(keys + base, tile_n, less);
      tile.template steps_in_warp<int(warp_log2) - 1>(less);
    };
    if constexpr (Shape::steps_log2 == tune<Key>::warp_stages) {
      warp_steps();
    } else if (!Full && tile_n <= (1u << warp_log2)) {
      if (threadIdx.x >= 32) return;
      warp_steps();
    } else {
      tile.template load<lay::registers_high, Full>(keys + base, tile_n, less);
      tile.template steps_from_high<int(Shape::steps_log2) - 1>(less);
    }
    tile.template exchange<lay::registers_low, lay::registers_mid>();
    tile.template store<lay::registers_mid, Full>(keys + base, tile_n);
  });
}

//! Calls run(Shape{}) with the tail that runs the pass first..last and returns true, or returns
//! false if none does: the steps of one stage (not its flip) from a tile's or a warp's widest
//! distance down to distance 1.
template <class Key, class Run>
bool with_shape(network::step first, network::step last, Run run) {
  if (first.stage != last.stage || first.is_flip() || last.distance_log2 != 0) return false;
  if (first.distance_log2 + 1 == tile_tail<Key>::steps_log2) {
    run(tile_tail<Key>{});
  } else if (first.distance_log2 + 1 == warp_tail<Key>::steps_log2) {
    run(warp_tail<Key>{});
  } else {
    return false;
  }
  return true;
}

//! Whether the pass first..last is what this kernel runs (see with_shape).
template <class Key>
bool runs(network::step first, network::step last) {
  return with_shape<Key>(first, last, [](auto) {});
}

//! Runs the tail steps first..last (see `runs`) on every tile of the n positions of `rows`.
template <class Key, class Less>
void launch(Key* keys, index_t n, key_rows rows, network::step first, network::step last, Less less,
            cudaStream_t stream) {
  const bool known = with_shape<Key>(first, last, [&](auto shape) {
    using Shape = decltype(shape);
    launch_on_tiles<typename Shape::tile_type, tail_kernel<Key, Shape, Less>>(
        n, stream, "cudaFuncSetAttribute(optimized tail_kernel shared memory)",
        "optimized tail_kernel launch", keys, n, rows, less);
  });
  if (!known) throw error("bitonic: internal error: not a stage's tail");
}

}  // namespace bitonic::kernels::optimized_tail
