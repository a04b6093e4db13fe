// Launch shapes of the kernel variants, in one place, owned by the kernels: each kernel is built
// for these numbers, and the plan (a layer up) reads them to decide which steps fit in a block or
// tile.
#pragma once

#include <cstddef>
#include <cstdint>

#include "network/network.hpp"  // BITONIC_HOST_DEVICE

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
  static_assert(KeyBytes == 4 || KeyBytes == 8 || KeyBytes == 16,
                "tuned for 4- and 8-byte keys (16-byte record words take only the optimized path)");
  static constexpr unsigned block_threads = 512;
  static constexpr unsigned tile_log2 = KeyBytes == 4 ? 13 : (KeyBytes == 8 ? 12 : 11);
  static constexpr unsigned tile_keys = 1u << tile_log2;
  static constexpr std::size_t tile_bytes = tile_keys * KeyBytes;
  static_assert(tile_bytes <= 48 * 1024, "tile must fit the default shared-memory limit");
  static_assert(tile_keys % (2 * block_threads) == 0, "every thread owns whole comparators");
};

//! block_merge's merge passes: one thread per key, each places its key by binary search.
struct block_merge {
  static constexpr unsigned block_threads = 256;
};

//! Blocks of a register tile (2^register_bits keys a thread, 2^tile_log2 keys) an SM must hold,
//! which caps a thread's registers at twice its registers of keys, and at least 64 (32 keys a
//! thread: 64 for 4-byte keys, 128 for 8-byte keys) on an SM's 64K registers.
constexpr unsigned register_tile_min_blocks(std::size_t key_bytes, unsigned tile_log2,
                                            unsigned register_bits = 5) {
  const unsigned key_registers = (1u << register_bits) * unsigned(key_bytes / 4);
  const unsigned threads = 1u << (tile_log2 - register_bits),
                 cap = 2 * key_registers > 64 ? 2 * key_registers : 64;
  return (1u << 16) / (threads * cap);
}

//! The register tile's shared memory (register_tile.cuh) is padded by one word per 2^register_bits
//! (a thread's keys in the low layout), so that no layout's accesses conflict in banks.
BITONIC_HOST_DEVICE constexpr unsigned register_tile_padded(unsigned i, unsigned register_bits) {
  return i + (i >> register_bits);
}

//! The optimized path. Its first-pass and tail kernels hold a tile in registers, 32 keys a thread
//! (16 in the 8-byte plans for few tiles; register_tile.cuh), and move keys between register
//! layouts through a padded shared-memory tile of 64 KiB (opt-in shared memory).
template <std::size_t KeyBytes>
struct optimized {
  static_assert(KeyBytes == 4 || KeyBytes == 8 || KeyBytes == 16,
                "tuned for 4- and 8-byte keys and 16-byte record words");
  //! 16-byte words (records of an 8-byte key and an 8-byte value: kernels/record_io.cuh) hold 16
  //! a thread, as many registers as 32 8-byte keys.
  static constexpr unsigned tile_register_bits = KeyBytes == 16 ? 4 : 5;
  static constexpr unsigned keys_per_thread = 1u << tile_register_bits;
  static constexpr unsigned tile_threads = KeyBytes == 4 ? 512 : 256;
  static constexpr unsigned tile_keys = tile_threads * keys_per_thread;
  static constexpr unsigned tile_log2 = KeyBytes == 4 ? 14 : (KeyBytes == 8 ? 13 : 12);
  static_assert(tile_keys == (1u << tile_log2), "tile_log2 must match the tile");
  static constexpr unsigned tile_min_blocks =
      register_tile_min_blocks(KeyBytes, tile_log2, tile_register_bits);
  static_assert(tile_min_blocks == 2, "two tiles an SM");
  //! From 2^merge_min_log2 keys on (0: never), plans with scratch allowed merge out of place
  //! even while the keys fit one cache block: each stage past the tile one merge_stage pass
  //! instead of a gather and a tail (8-byte keys, 2^19..2^21: int64 5-10 % faster, double 2-12 %
  //! but 2^20 5 % slower; 4-byte keys lost at every size, docs/PERFORMANCE.md log 58). Since the
  //! few-tiles plans' smaller tiles (log 65) 8-byte keys merge from 2^20: at 2^19 int64 0.084 ms
  //! against 0.092 merged (double 0.099 against 0.093; CUB's merge sort 0.094 and 0.111).
  static constexpr unsigned merge_min_log2 = KeyBytes == 4 ? 0 : 20;

  // With fewer tiles than SMs a lone tile's steps on one SM are a pass's time, so plans for few
  // tiles (plan::device_shape) run what fits a warp on warps: stages 1..warp_stages, and each later
  // stage's last warp_stages steps, on blocks of two warps spread over many SMs, each warp on its
  // own 2^warp_stages keys (warp_register_bits register bits, five lane bits); then the stages
  // past a warp's keys on tiles of the same register bits. Each warp runs a chain of dependent
  // steps alone on its SM's scheduler, so 8-byte keys take 16 a thread: half a warp's chain and
  // twice the warps of 32 a thread (int64 2^16, ncu: stages 1..9 in 9.2 us against 14.7 for
  // stages 1..10; docs/PERFORMANCE.md log 65); 4-byte keys keep 32 a thread, as their tiles of
  // 2^14 need.
  static constexpr unsigned warp_register_bits = KeyBytes == 4 ? 5 : 4;
  static constexpr unsigned warp_stages = warp_register_bits + 5;
  static constexpr unsigned warp_block_log2 = warp_stages + 1;  // two warps
  static constexpr unsigned warp_block_min_blocks =
      register_tile_min_blocks(KeyBytes, warp_block_log2, warp_register_bits);
  static_assert(warp_block_log2 < tile_log2 && tile_log2 <= 2 * warp_register_bits + 5,
                "warp blocks are smaller than a tile, and the rest tiles hold their bits "
                "(register_tile's limits)");

  //! The gather kernel's shape for a pass of Rows steps (at most gather_steps_max). A block holds a
  //! tile of keys, 2^keys_log2 a thread in registers, and loads and stores segments of
  //! 2^segment_log2 consecutive keys: 128 bytes, or less where the pass's rows times two segments
  //! would not fit the tile (4-byte keys, 9 and 10 rows: 64 and 32 bytes). A pass runs its top
  //! rows in registers, the rest after one exchange through shared memory, so Rows is at most
  //! 2 * keys_log2 - 2: 32 registers of keys up to 8 (4-byte) or 6 (8-byte) rows, 64 above.
  static constexpr unsigned full_segment_log2 = KeyBytes == 4 ? 5 : (KeyBytes == 8 ? 4 : 3);
  static constexpr unsigned least_segment_log2 = full_segment_log2 - 2;  // 32 bytes, one sector
  static_assert((1u << full_segment_log2) * KeyBytes == 128, "a full segment is 128 bytes");
  static constexpr unsigned gather_narrow_keys_log2 = KeyBytes == 4 ? 5 : 4;  // 32 registers
  //! The most steps a gather pass runs on tiles of 2^gather_tile_log2 keys: two rounds of 64
  //! registers of keys, and rows times two one-sector segments within the tile.
  static constexpr unsigned gather_rows_max(unsigned gather_tile_log2) {
    return 2 * (gather_narrow_keys_log2 + 1) - 2 < gather_tile_log2 - 1 - least_segment_log2
               ? 2 * (gather_narrow_keys_log2 + 1) - 2
               : gather_tile_log2 - 1 - least_segment_log2;
  }
  //! On whole tiles: 10 for 4-byte keys, 8 for 8-byte.
  static constexpr unsigned gather_steps_max = gather_rows_max(tile_log2);
  //! In plans for few tiles the first pass's second part (the rest) sorts up to
  //! 2^few_tiles_rest_log2 keys, and gathers of up to few_tiles_gather_steps_max rows take tiles
  //! of 2^few_tiles_gather_log2 keys: smaller tiles are more blocks on more SMs, where a lone
  //! tile's chain of steps is the pass's time (docs/PERFORMANCE.md logs 65 and 66). Rest tiles of
  //! 4-byte keys stay whole: their 2^14 keys need 32 a thread, and 2^13 lost (log 65).
  static constexpr unsigned few_tiles_rest_log2 = KeyBytes == 4 ? tile_log2 : 12;
  static constexpr unsigned few_tiles_gather_log2 = KeyBytes == 4 ? 12 : 11;
  static_assert(KeyBytes != 16 || few_tiles_rest_log2 == tile_log2,
                "16-byte words: only whole tiles (their plans split)");
  static constexpr unsigned few_tiles_gather_steps_max = gather_rows_max(few_tiles_gather_log2);
  static_assert(
      few_tiles_rest_log2 > warp_block_log2 && few_tiles_rest_log2 <= tile_log2 &&
          few_tiles_gather_log2 > warp_stages + 1 && few_tiles_gather_log2 <= tile_log2,
      "a rest tile past a warp block, and a gather's tile past two rows of a warp's keys");
  template <unsigned Rows, unsigned TileLog2 = tile_log2>
  struct gather {
    static constexpr unsigned keys_log2 = Rows <= 2 * gather_narrow_keys_log2 - 2
                                              ? gather_narrow_keys_log2
                                              : gather_narrow_keys_log2 + 1;
    static constexpr unsigned threads = (1u << TileLog2) >> keys_log2;
    static constexpr unsigned min_blocks = 2;  // caps registers at 64 or 128 (32 or 64 of keys)
    static constexpr unsigned segment_log2 =
        full_segment_log2 < TileLog2 - 1 - Rows ? full_segment_log2 : TileLog2 - 1 - Rows;
    static constexpr std::size_t smem_bytes = (std::size_t{1} << TileLog2) * KeyBytes;
    static_assert(Rows >= 1 && Rows <= 2 * keys_log2 - 2, "more rows than two register rounds");
    static_assert(segment_log2 >= least_segment_log2, "segments of at least one sector");
  };
  //! The most steps a gather pass runs with 128-byte segments. Shorter segments cost nothing in
  //! the L2, but over DRAM a 10-row pass took as long as the 7- and 6-row passes it replaced
  //! (docs/PERFORMANCE.md, "Figures behind the code"), so plans with passes over DRAM keep to
  //! these.
  static constexpr unsigned gather_full_segment_steps_max = tile_log2 - 1 - full_segment_log2;
  static_assert(gather_full_segment_steps_max <= gather_steps_max, "fewer rows than the kernel's");
  static constexpr std::size_t gather_smem_bytes = std::size_t{tile_keys} * KeyBytes;

  //! A tile of 32 keys a thread pads its shared memory by one word per 32 (register_tile_padded).
  BITONIC_HOST_DEVICE static constexpr unsigned padded(unsigned i) {
    return register_tile_padded(i, 5);
  }
  //! The most shared memory a register tile of tile_keys takes: of 32 keys a thread, or of the
  //! rest tiles of the first pass for few tiles.
  static constexpr std::size_t tile_smem_bytes =
      std::size_t{
          register_tile_padded(tile_keys, warp_register_bits < 5 ? warp_register_bits : 5)} *
      KeyBytes;
};

//! The optimized path's sort of small n on one cluster (optimized_cluster_sort.cuh): 2^
//! cluster_log2_min to 2^cluster_log2_max blocks (16: Hopper's largest cluster, non-portable) of
//! 2^block_log2 keys, 32 a thread, one block an SM, so n from 2^stages_min to 2^stages_max keys.
//! Measured against the plans without a cluster (docs/PERFORMANCE.md log 28): two blocks (2^13
//! keys) gained little for int32 and lost for float; blocks of 2^13 and 2^14 keys (2^17, 2^18
//! int32) lost; 8-byte keys lost at every size, so they have none.
template <std::size_t KeyBytes>
struct cluster_sort {
  static_assert(KeyBytes == 4 || KeyBytes == 8 || KeyBytes == 16,
                "tuned for 4- and 8-byte keys (16-byte record words have none)");
  static constexpr unsigned block_log2 = 12;
  static constexpr unsigned block_threads = 1u << (block_log2 - 5);  // four warps
  static constexpr unsigned cluster_log2_min = 2;
  static constexpr unsigned cluster_log2_max = KeyBytes == 4 ? 4 : 0;
  static constexpr unsigned stages_min = block_log2 + cluster_log2_min;
  static constexpr unsigned stages_max = cluster_log2_max == 0 ? 0 : block_log2 + cluster_log2_max;
};

//! Top-k select (topk_select.cuh) for 4-byte keys and k <= 2^max_k_log2: blocks of block_threads
//! filter a tile of threads * items_per_thread keys between two looks at their buffer of
//! survivors, which holds two tiles, or 2K words when the K kept words are more than a tile. A
//! pass with fewer blocks than the device has SMs runs blocks of wide_block_threads instead: one
//! block an SM either way, four times the threads for its chain of tiles and flushes (log 50). The
//! plan (topk_plan.hpp) cuts each array into parts of about max(part_keys_per_kept * K,
//! min_part_keys) keys, at most as many as give the device blocks_per_sm blocks an SM (log 44).
struct topk_select {
  static constexpr unsigned block_threads = 256;
  static constexpr unsigned wide_block_threads = 1024;
  static constexpr unsigned items_per_thread = 4;
  static constexpr unsigned max_k_log2 = 11;  //!< k <= 2048
  static constexpr std::size_t part_keys_per_kept = 16;
  static constexpr std::size_t min_part_keys = 8192;
  static constexpr unsigned blocks_per_sm = 8;
  static constexpr unsigned radix = 256;  //!< digits of a flush's radix selection: 8 bits
  static_assert(block_threads % 32 == 0 && wide_block_threads % 32 == 0,
                "whole warps: survivors are counted by warp ballots");
  static_assert(block_threads * blocks_per_sm <= 2048 && wide_block_threads <= 1024,
                "blocks_per_sm blocks of block_threads fit an SM's 2048 threads");
  static_assert(
      radix % 32 == 0 && (radix & (radix - 1)) == 0 && 64 % network::ceil_log2(radix) == 0,
      "a digit is a power of two of bits that divides 64; warp 0 scans radix / 32 a lane");
  static_assert(max_k_log2 <= 16, "a flush lists freed kept slots in 16 bits");
  static_assert(min_part_keys >= wide_block_threads * items_per_thread,
                "a part is at least a tile of either block");

  //! Buffer words for K = 2^k_log2 kept words in blocks of `threads`: at least K + a tile, so that
  //! a flush never waits.
  BITONIC_HOST_DEVICE static constexpr unsigned buffer_words(unsigned k_log2, unsigned threads) {
    const unsigned kept = 1u << k_log2, tile = threads * items_per_thread;
    return 2 * (kept > tile ? kept : tile);
  }
  //! A flush's scratch: its digit counts (4 bytes a digit), later its list of freed kept slots
  //! (2 bytes each, K of them at most), one after the other in the same bytes.
  BITONIC_HOST_DEVICE static constexpr std::size_t flush_scratch_bytes(unsigned k_log2) {
    const std::size_t counts = std::size_t{radix} * 4, holes = (std::size_t{1} << k_log2) * 2;
    return counts > holes ? counts : holes;
  }
  //! Dynamic shared memory of a block: the kept words and the buffer, 8 bytes each, and a flush's
  //! scratch (at K = 1024 in blocks of 256, 26 KiB: eight blocks an SM).
  BITONIC_HOST_DEVICE static constexpr std::size_t smem_bytes(unsigned k_log2, unsigned threads) {
    return std::size_t((1u << k_log2) + buffer_words(k_log2, threads)) * 8 +
           flush_scratch_bytes(k_log2);
  }
  static constexpr std::size_t max_smem_bytes(unsigned threads) {
    return smem_bytes(max_k_log2, threads);
  }
};

//! Top-k by one radix selection over each whole array (topk_radix.cuh), where a call's keys fit
//! max_keys (16 MiB of 4-byte keys: they stay in the H100's 50 MB L2 across the rounds) and the
//! select plan needs more than one pass. Blocks of block_threads read keys_per_block keys of one
//! array each round; an array's state between rounds takes state_words 8-byte words.
struct topk_radix {
  static constexpr unsigned block_threads = 256;
  static constexpr unsigned keys_per_block = 4096;
  static constexpr unsigned rank_threads = 64;  //!< candidates a block places (rank_kernel)
  static constexpr std::size_t max_keys = std::size_t{1} << 22;
  static constexpr std::size_t state_words = (topk_select::radix * 4 + 128) / 8;
  static_assert(block_threads % 32 == 0 && keys_per_block % block_threads == 0 &&
                    rank_threads % 32 == 0,
                "whole warps, and slices of whole rounds of the block");
};

//! Rows of min_row_bytes to max_row_bytes, a power of two of keys, at a 16-byte aligned start
//! (sort_short_rows.cuh, for sort_batched): one row a thread (two or four, past thread_row_bytes),
//! in registers, loaded and stored as 16-byte vectors, blocks of block_threads; other rows take the
//! register tile (sort_rows.cuh).
//! H100, 2^24 keys: 4-byte rows of 4 and 8 keys 17-20 % faster than the tile, 8-byte rows of 2-4
//! 4-16 %, 4-byte rows of 2 (no whole vector) 5 % slower (PERFORMANCE log 51); with 32 bytes a
//! lane, 4-byte rows of 16 and 32 and 8-byte rows of 8 and 16 19-30 % faster (log 53).
struct short_rows {
  static constexpr unsigned block_threads = 256;
  static constexpr unsigned min_row_bytes = 16;
  static constexpr unsigned max_row_bytes = 128;
  //! Longer rows are split between neighbouring lanes (the steps between them by shuffles).
  static constexpr unsigned thread_row_bytes = 32;
  static_assert(block_threads % 32 == 0, "whole warps");
  static_assert(min_row_bytes == 16 && max_row_bytes % 16 == 0, "rows of whole 16-byte vectors");
  static_assert(thread_row_bytes % 16 == 0 && max_row_bytes <= 4 * thread_row_bytes,
                "at most four lanes a row, each with whole 16-byte vectors");
};

//! Short rows of any length (sort_staged_rows.cuh, for sort_batched): one row a thread, a block's
//! rows staged through stage_bytes of shared memory: 256 rows, or 128 past 128 bytes a row
//! (as padded to a power of two of keys).
struct staged_rows {
  static constexpr unsigned stage_bytes = 32 * 1024;
  //! Rows of any length up to any_length_row_bytes; past it up to max_row_bytes, every length but
  //! the powers of two (sort_staged_rows::takes).
  static constexpr unsigned any_length_row_bytes = 128;
  static constexpr unsigned max_row_bytes = 256;
  static constexpr unsigned block_threads(unsigned padded_row_bytes) {
    return padded_row_bytes <= any_length_row_bytes ? 256 : stage_bytes / padded_row_bytes;
  }
};
static_assert(staged_rows::block_threads(staged_rows::max_row_bytes) % 32 == 0, "whole warps");
static_assert(staged_rows::stage_bytes <= 48 * 1024, "static shared memory");

//! Rows just past a power of two (sort_row_tails.cuh, for sort_batched and the record rows of
//! sort_batched_pairs and argsort_batched): a row of 2^m + r keys with 2^m >= min_head and
//! r <= 2^m * tail_num / tail_den sorts its tail, then its head on the register tile, merged with
//! the tail as it stores, instead of the register tile on rows padded to 2^(m+1). A tile's tails
//! share its block's shared memory (up to tail_num / tail_den of a tile of words beside the tile's
//! 64 KiB). A tail past half the head is sorted padded to the head's length, as many positions as
//! the padded row and the merge on top: on the H200, rows of 3300 = 2048 + 1252 took 0.219 ms
//! against 0.199 padded, 3072 0.196 against 0.216 (PERFORMANCE log 77).
//! Records (record_rows.cuh) store an element at a time to two arrays, so the merge costs more
//! against the padded network: they take a tail up to half the head only from a head of
//! record_wide_head, else up to 1 / record_tail_den (H200, 2^24 float rows with their indices:
//! 2500 0.628 ms against 0.891 padded, 5000 0.681 / 0.952; but 300 = 256 + 44 0.519 / 0.495,
//! 700 0.597 / 0.497, 1500 0.645 / 0.580; PERFORMANCE log 78).
struct row_tails {
  static constexpr unsigned min_head = 128;
  static constexpr unsigned tail_num = 1, tail_den = 2;
  static constexpr unsigned record_wide_head = 2048, record_tail_den = 8;
  static_assert(tail_num < tail_den, "a tail shorter than its head");
  static_assert(record_tail_den * tail_num >= tail_den, "records' short tails within the keys'");
};

//! Segmented sorts (segment_tiles.cuh): a block of block_threads sorts a tile of 2^tile_log2 keys
//! in shared memory and registers (items_per_thread consecutive keys a thread), one segment of up
//! to a tile padded to a power of two, or several shorter ones of one power of two side by side;
//! longer segments go to the batched sort in padded rows (sort_segments).
struct segment_tiles {
  static constexpr unsigned block_threads = 512;
  static constexpr unsigned tile_log2 = 13;
  static constexpr unsigned tile = 1u << tile_log2;
  static constexpr unsigned items_per_thread = tile / block_threads;
  static_assert(tile % block_threads == 0, "a thread loads and stores whole items of the tile");
};

//! The optimized plan for few tiles (first pass split, stages ending on warps) while every tile
//! has at least this many SMs (docs/PERFORMANCE.md log 21).
constexpr unsigned few_tiles_sms_per_tile = 2;

//! The largest n a plan accepts: index math must not overflow 64 bits.
constexpr unsigned max_log2_size = 63;

//! The sample split before a sort of buckets (sample_split.cuh): `buckets` buckets cut by
//! splitters from a sorted sample of samples_per_bucket keys a bucket (on 2^22 uniform keys the
//! largest bucket is 1.3-1.4x the mean, by a host emulation of the test's inputs). split_blocks
//! blocks of block_threads count and scatter a contiguous range of whole tiles each; one block of
//! sample_threads sorts the sample, one of scan_threads a bucket scans its counts. A tile is 16 KiB
//! of keys for both key sizes (8 a thread for 8-byte keys): a bucket's run in a tile is then ~128
//! bytes either way, and 16 8-byte keys a thread took the scatter to 115 registers (2 blocks an
//! SM). The min_blocks cap registers: count at 32 on sm_90 (all split_blocks blocks resident at
//! once on 132 SMs), scatter at 64.
template <std::size_t KeyBytes>
struct sample_split {
  static_assert(KeyBytes == 4 || KeyBytes == 8 || KeyBytes == 16,
                "tuned for 4- and 8-byte keys and 16-byte record words");
  static constexpr unsigned buckets_log2 = 7;
  static constexpr unsigned buckets = 1u << buckets_log2;
  static constexpr unsigned samples_per_bucket = KeyBytes == 16 ? 32 : 64;
  static constexpr unsigned samples = buckets * samples_per_bucket;
  static constexpr unsigned block_threads = 256;
  static constexpr unsigned keys_per_thread = 64 / KeyBytes;
  static constexpr unsigned tile_keys = block_threads * keys_per_thread;
  static constexpr unsigned split_blocks = 1024;
  //! Plans split from 2^min_log2 keys on (plan::device_shape::split_min_log2); 16-byte record
  //! words always split (plan::make_split_plan; wide_records says from when).
  static constexpr unsigned min_log2 = KeyBytes == 4 ? 24 : (KeyBytes == 8 ? 23 : 0);
  static constexpr unsigned count_min_blocks = 8;
  static constexpr unsigned scatter_min_blocks = 4;
  static constexpr unsigned sample_threads = 1024;
  static constexpr unsigned scan_threads = 1024;
  static_assert(buckets >= 32 && buckets <= 256,
                "a warp scans the buckets, whole ones a lane; a tile's slot packs a bucket in "
                "8 bits");
  static_assert((samples & (samples - 1)) == 0, "the sample is sorted by a network of 2^k keys");
  static_assert(samples * KeyBytes <= 64 * 1024, "the sample fits the opt-in shared memory");
  static_assert(tile_keys <= (1u << 24), "a key's rank in its tile packs in 24 bits");
  static_assert(block_threads % 32 == 0 && sample_threads % 32 == 0 && scan_threads % 32 == 0 &&
                    scan_threads <= 1024,
                "whole warps");
  static_assert(tile_keys * (KeyBytes + 1) <= 40 * 1024,
                "a tile staged with its bucket bytes fits static shared memory");
};

//! The split's second level (sample_refine.cuh): each bucket of the sample split cut again into at
//! most `buckets` sub-buckets of about fill_num / fill_den of a first-pass tile each, by splitters
//! from a sorted sample of `samples` of its keys, so that the first pass sorts nearly every
//! sub-bucket in one tile and no merge follows. The fill trades tiles (a sub-bucket of 0.85 of a
//! tile costs the first pass a whole tile) against sub-buckets past a tile, which take a merge:
//! 0.85 beat 0.75 and 0.9 (docs/PERFORMANCE.md log 69); so did refining from 2^26 four-byte and
//! 2^24 eight-byte keys, where the split's buckets take five and four merges. A block of
//! block_threads counts or scatters one tile of positions of the split's table (a first-pass tile
//! of one bucket) in chunks of tile_keys keys, staged in dynamic shared memory: a sub-bucket's run
//! a chunk is then ~128 bytes at the mean, as the split's runs are. One block of sample_threads a
//! bucket sorts its sample, one of scan_threads a bucket scans its tiles' counts, and one of
//! `buckets` threads a bucket lays out its sub-buckets' tiles.
template <std::size_t KeyBytes>
struct sample_refine {
  static_assert(KeyBytes == 4 || KeyBytes == 8 || KeyBytes == 16,
                "tuned for 4- and 8-byte keys and 16-byte record words");
  static constexpr unsigned buckets_log2 = 8;
  static constexpr unsigned buckets = 1u << buckets_log2;
  //! 8192 four- and eight-byte words, 4096 sixteen-byte ones (64 KiB at most). With 4096, ~18 % of
  //! the sub-buckets of 8-byte words passed a tile (a merge, whose tiles rank their ties) and a key
  //! cost 1.40 tiles of the first pass; 8192 leave ~10 % and 1.30; for 4-byte words 4096 left ~10 %
  //! and 1.30, 8192 ~3.5 % and 1.23 (scripts/split_emulation.py refine). At 2^27 on an H100,
  //! 8192 took the argsort of unit floats 7.33 -> 6.89 ms, pairs 6.71 -> 6.50, int32 keys 4.32 ->
  //! 4.26; 16384 four-byte words (~0.6 %, 1.19) spill the sample kernel's registers (88 bytes at
  //! 64 a thread) and gained nothing on int32 keys (docs/PERFORMANCE.md log 92).
  static constexpr unsigned samples = KeyBytes == 16 ? 4096 : 8192;
  static constexpr unsigned sample_threads = 1024;
  static constexpr unsigned fill_num = 17, fill_den = 20;
  static constexpr unsigned block_threads = 512;
  static constexpr unsigned keys_per_thread = 64 / KeyBytes;
  static constexpr unsigned tile_keys = block_threads * keys_per_thread;
  static constexpr unsigned count_min_blocks = 2;
  static constexpr unsigned scatter_min_blocks = 2;
  static constexpr unsigned scan_threads = 1024;
  //! Plans refine their split from 2^min_log2 keys on (plan::device_shape::refine_min_log2).
  static constexpr unsigned min_log2 = KeyBytes == 4 ? 26 : (KeyBytes == 8 ? 24 : 22);
  static constexpr std::size_t staged_bytes = std::size_t{tile_keys} * (KeyBytes + 1);
  static_assert(buckets >= 32 && buckets <= 256,
                "a warp scans the buckets, whole ones a lane; a chunk's slot packs a bucket in "
                "8 bits");
  static_assert((samples & (samples - 1)) == 0 && samples % sample_threads == 0,
                "the sample is sorted by a network of 2^k keys, whole rounds a thread");
  static_assert(samples * KeyBytes <= 64 * 1024, "the sample fits the opt-in shared memory");
  static_assert((optimized<KeyBytes>::tile_keys) % tile_keys == 0,
                "a first-pass tile is whole chunks");
  static_assert(scan_threads % buckets == 0 && scan_threads <= 1024,
                "the scan's threads are groups of a thread a sub-bucket");
  static_assert(block_threads % 32 == 0 && tile_keys <= (1u << 24),
                "whole warps; a key's rank in its chunk packs in 24 bits");
};

//! The first pass of a refined record sort (kernels/compact_record_tile.cuh): a run of more than
//! max_run equal keys in a tile sends it to the 64-bit sort, as each key of a run ranks its value
//! against the whole run's.
struct compact_record_tile {
  static constexpr unsigned max_run = 32;
};

static_assert(sample_split<4>::buckets <= sample_refine<4>::buckets &&
                  sample_split<8>::buckets <= sample_refine<8>::buckets &&
                  sample_split<16>::buckets <= sample_refine<16>::buckets,
              "the refinement's table kernel sums the split's buckets a thread each");

//! Records of an 8-byte key with an 8- or 4-byte value (sort_pairs, not stable) or with its
//! position (argsort) sort as one 16-byte word each (kernels/record_io.cuh) from these counts on,
//! instead of two 8-byte sorts by the key's halves and gathers. H100, int64 (docs/PERFORMANCE.md
//! log 71): pairs at 2^19 0.203 ms against 0.221, 2^21 0.465 against 0.549; argsort even at 2^21
//! (0.446 / 0.444), ahead from 2^22 (0.699 / 1.003).
struct wide_records {
  static constexpr unsigned pairs_min_log2 = 19;
  static constexpr unsigned argsort_min_log2 = 22;
};

//! f(Tuning<4>{}), f(Tuning<8>{}) or f(Tuning<16>{}) (record words): a tuning's constant for a
//! key size known only at run time.
template <template <std::size_t> class Tuning, class F>
constexpr auto for_key_bytes(std::size_t key_bytes, F f) {
  return key_bytes == 4 ? f(Tuning<4>{}) : (key_bytes == 8 ? f(Tuning<8>{}) : f(Tuning<16>{}));
}

constexpr unsigned shared_tile_log2(std::size_t key_bytes) {
  return for_key_bytes<shared_tiles>(key_bytes, [](auto t) { return decltype(t)::tile_log2; });
}
constexpr unsigned optimized_tile_log2(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes, [](auto t) { return decltype(t)::tile_log2; });
}
constexpr unsigned optimized_few_tiles_rest_log2(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes,
                                  [](auto t) { return decltype(t)::few_tiles_rest_log2; });
}
constexpr unsigned optimized_few_tiles_gather_log2(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes,
                                  [](auto t) { return decltype(t)::few_tiles_gather_log2; });
}
constexpr unsigned optimized_few_tiles_gather_steps_max(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes,
                                  [](auto t) { return decltype(t)::few_tiles_gather_steps_max; });
}
constexpr unsigned cluster_sort_log2_max(std::size_t key_bytes) {
  return for_key_bytes<cluster_sort>(key_bytes,
                                     [](auto t) { return decltype(t)::cluster_log2_max; });
}
constexpr unsigned optimized_merge_min_log2(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes, [](auto t) { return decltype(t)::merge_min_log2; });
}
constexpr unsigned optimized_warp_stages(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes, [](auto t) { return decltype(t)::warp_stages; });
}
constexpr unsigned optimized_gather_steps_max(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes, [](auto t) { return decltype(t)::gather_steps_max; });
}
constexpr unsigned optimized_gather_full_segment_steps_max(std::size_t key_bytes) {
  return for_key_bytes<optimized>(
      key_bytes, [](auto t) { return decltype(t)::gather_full_segment_steps_max; });
}
constexpr unsigned sample_split_buckets(std::size_t key_bytes) {
  return for_key_bytes<sample_split>(key_bytes, [](auto t) { return decltype(t)::buckets; });
}
constexpr unsigned sample_split_min_log2(std::size_t key_bytes) {
  return for_key_bytes<sample_split>(key_bytes, [](auto t) { return decltype(t)::min_log2; });
}
constexpr unsigned sample_refine_buckets(std::size_t key_bytes) {
  return for_key_bytes<sample_refine>(key_bytes, [](auto t) { return decltype(t)::buckets; });
}
//! The keys a sub-bucket of the refinement aims at: fill_num / fill_den of a tile of 2^tile_log2.
constexpr std::uint64_t sample_refine_target_keys(std::size_t key_bytes, unsigned tile_log2) {
  return for_key_bytes<sample_refine>(key_bytes, [&](auto t) {
    return (std::uint64_t{decltype(t)::fill_num} << tile_log2) / decltype(t)::fill_den;
  });
}
constexpr unsigned sample_refine_min_log2(std::size_t key_bytes) {
  return for_key_bytes<sample_refine>(key_bytes, [](auto t) { return decltype(t)::min_log2; });
}
constexpr std::size_t optimized_tile_smem_bytes(std::size_t key_bytes) {
  return for_key_bytes<optimized>(key_bytes, [](auto t) { return decltype(t)::tile_smem_bytes; });
}

}  // namespace bitonic::tuning
