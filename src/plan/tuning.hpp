// Launch shapes of the kernel variants, in one place: the plan needs them to decide which steps
// fit in a block or tile, and each kernel static_asserts that it was built for the same numbers.
#pragma once

#include <cstddef>

namespace bitonic::tuning {

//! V0: one comparator per thread, one launch per step.
struct global_step {
  static constexpr unsigned block_threads = 256;
};

//! V1: one comparator per thread; a block owns 2 * block_threads consecutive keys, so every step
//! with a span up to that runs inside one launch.
struct fused_steps {
  static constexpr unsigned block_threads = 1024;
  static constexpr unsigned span_log2 = 11;
  static_assert((2u * block_threads) == (1u << span_log2), "a block owns two keys per thread");
};

//! V2 and block_merge's tile sort: a tile of 32 KiB of keys in shared memory (within the 48 KiB a
//! block gets without opting in), several comparators per thread per step.
template <std::size_t KeyBytes>
struct shared_tiles {
  static_assert(KeyBytes == 4 || KeyBytes == 8, "tuned for 4- and 8-byte keys");
  static constexpr unsigned block_threads = 512;
  static constexpr unsigned tile_log2 = KeyBytes == 4 ? 13 : 12;
  static constexpr unsigned tile_keys = 1u << tile_log2;
  static constexpr std::size_t tile_bytes = tile_keys * KeyBytes;
  static_assert(tile_bytes <= 48 * 1024, "tile must fit the default shared-memory limit");
  static_assert(tile_keys % (2 * block_threads) == 0, "every thread owns whole comparators");
};

//! block_merge's merge passes: one thread per key, each places its key by binary search.
struct block_merge {
  static constexpr unsigned block_threads = 256;
};

//! From this many keys (log2) on, `automatic` picks block_merge over shared_tiles: its merge
//! passes grow with log n, the network's global steps with log^2 n (measured on the H100,
//! docs/results/). Below it, shared_tiles is faster and needs no scratch memory.
constexpr unsigned automatic_block_merge_min_log2 = 27;

//! The largest n a plan accepts: index math must not overflow 64 bits.
constexpr unsigned max_log2_size = 63;

//! shared_tiles<KeyBytes>::tile_log2 for a key size known only at run time.
constexpr unsigned shared_tile_log2(std::size_t key_bytes) {
  return key_bytes == 4 ? shared_tiles<4>::tile_log2 : shared_tiles<8>::tile_log2;
}

}  // namespace bitonic::tuning
