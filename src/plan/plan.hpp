// The plan: which passes over the keys sort n keys with a given algorithm. Host-only; the GPU
// executor (src/dispatch) and the CPU executor (src/cpu) both run it pass by pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "bitonic/bitonic.hpp"
#include "network/network.hpp"

namespace bitonic::plan {

enum class pass_kind {
  global_step,    //!< one network step over all keys
  block_steps,    //!< consecutive steps local to blocks of 2^span_log2 keys, in global memory (V1)
  tile_steps,     //!< consecutive steps local to tiles of 2^span_log2 keys, in shared memory (V2)
  merge_runs,     //!< merge neighbouring sorted runs of 2^run_log2 keys into runs of twice that
  sort_tiles,     //!< optimized: stages from first to last on tiles of 2^span_log2 keys in
                  //!< registers (the first pass, or one of its two parts in plans for few tiles)
  tile_tail,      //!< optimized: a stage's last steps, local to tiles of 2^span_log2 keys (a
                  //!< tile's or a warp's) in registers
  gather_steps,   //!< optimized: several steps of one stage wider than a tile, in one pass
  cluster_sort,   //!< optimized: every stage of up to 2^span_log2 keys on one cluster of blocks
  merge_stages,   //!< optimized: whole stages past a tile, one pass each, on all the tiles of
                  //!< 2^span_log2 keys at once (merge path, then a bitonic merge per tile)
  merge_stage,    //!< optimized: one whole stage past a tile from one buffer into the other
                  //!< (merge path, then a bitonic merge per tile)
  sort_rows,      //!< batched: every row of plan::rows sorted on its own, rows of up to a tile
  split_buckets,  //!< optimized: the keys cut into plan::buckets buckets by a sample's splitters
                  //!< and written bucket by bucket to the scratch (kernels/sample_split.cuh),
                  //!< for passes on_buckets to sort each bucket on its own
};

struct pass {
  pass_kind kind;
  network::step first{};  //!< network passes: the steps first..last in schedule order
  network::step last{};
  //! block_steps / tile_steps: every step stays inside such blocks; gather_steps: its tiles'
  //! keys (0: tuning::optimized's whole tile)
  unsigned span_log2 = 0;
  unsigned run_log2 = 0;  //!< merge_runs: length of the input runs
  //! Reads the keys from the buffer that holds them and writes them to the other one (the plan's
  //! scratch): merge_runs, merge_stage, and a first pass that starts an odd number of those.
  bool to_other = false;
  //! Memory holds the keys' ordered words (key_order.hpp), not the keys, before / after the
  //! pass: plans that merge out of place keep words from the first pass to the last merge.
  bool reads_words = false;
  bool writes_words = false;
  //! Runs on the buckets of the split_buckets pass before it, each bucket its own array (a first
  //! pass, or the s-th merge past the tile), from the scratch to the keys or back, bucket by
  //! bucket, so that every bucket's last pass lands in the keys (kernels::key_rows::bucket_step);
  //! a bucket sorted in fewer merges skips the later ones.
  bool on_buckets = false;

  //! Number of network steps the pass runs (0 for merge_runs).
  network::index_t steps() const;
  //! Times the pass reads and writes every key: once, but once per stage for merge_stages.
  unsigned memory_passes() const;
  //! Its comparators stay inside aligned blocks of 2^reach_log2() keys (network passes only).
  unsigned reach_log2() const;
};

//! Passes [first, first + count) whose comparators all stay inside aligned blocks of
//! 2^block_log2 keys, to be run block by block: all of them on the first block, then all on the
//! next, so that a block's keys stay in the L2 cache between those passes instead of going to DRAM
//! and back. Any order of independent blocks gives the same result.
struct blocked_passes {
  std::size_t first = 0, count = 0;
  unsigned block_log2 = 0;
  //! Positions a block spans where not 2^block_log2: a batched plan with missing keys in its rows
  //! (plan::row_log2) blocks whole rows, as many as hold about 2^block_log2 keys.
  std::size_t positions = 0;
  std::size_t block_positions() const {
    return positions != 0 ? positions : std::size_t{1} << block_log2;
  }
};

//! The rows of a batched plan (make_rows_plan): `count` rows of `length` keys each, one after the
//! other; zero for a plan that sorts all n keys as one array.
struct rows {
  std::size_t count = 0, length = 0;
};

struct plan {
  std::size_t n = 0;       //!< positions the passes run on: the keys, or count << row_log2
  unsigned log2_size = 0;  //!< ceil(log2 n): the network's stages
  algorithm algo = algorithm::global_step;
  std::vector<pass> passes;
  //! Keys of scratch memory the executors need (0: none): n where passes `to_other` ping-pong
  //! with it, and behind them the merges' splits. The scratch starts 8-byte aligned.
  std::size_t scratch_keys = 0;
  //! Where in the scratch (bytes from its start) merge_stage passes keep their tiles' splits
  //! (8-byte words, one a tile), and how many bytes they have there (0: no merge_stage pass).
  std::size_t splits_offset_bytes = 0, split_bytes = 0;
  bool needs_scratch() const { return scratch_keys != 0; }
  //! Plans that split first (split_buckets): the buckets, and where in the scratch (bytes from
  //! its start) the split keeps its memory (kernels::sample_split::split_memory), behind the
  //! splits.
  unsigned buckets = 0;
  std::size_t split_offset_bytes = 0;
  //! The split's buckets cut again (kernels/sample_refine.cuh, its memory behind the split's):
  //! `buckets` counts the sub-buckets, which the split pass leaves in the keys, so that the first
  //! pass on them reads the keys.
  bool refined = false;
  //! Positions the passes on_buckets run on: every bucket from a tile of its own.
  std::size_t bucket_positions(std::size_t key_bytes) const;
  std::vector<blocked_passes> blocked;  //!< ascending, disjoint; empty: none
  struct rows rows;                     //!< batched plans only
  //! Batched plans of rows longer than a tile whose length is not a power of two: the passes run
  //! on rows of 2^row_log2 positions, the first rows.length of each being the row's keys, stored
  //! back to back; its other positions are missing keys, as those past n are in one array
  //! (kernels::key_rows). 0: position i is key i.
  unsigned row_log2 = 0;
  //! Where in memory the keys of the positions from `position` (a row's first) start.
  std::size_t stored_index(std::size_t position) const {
    return row_log2 == 0 ? position : (position >> row_log2) * rows.length;
  }
  //! The keys the plan sorts (the positions that hold a key).
  std::size_t stored_keys() const { return stored_index(n); }
};

//! What an optimized plan adapts to on the device that runs it; zero: not known (the CPU
//! executor), planned as for none.
struct device_shape {
  //! Blocked passes for blocks of 2^block_log2 keys (see cache_block_log2): each stage's wide
  //! steps split at the block width where that costs no extra pass, and every run of two or more
  //! passes that stays inside blocks is marked blocked. Same number of passes; no blocks when the
  //! keys fit one block or the block is not wider than a tile. When they fit one block (all keys
  //! in the cache), gathers of up to gather_steps_max rows may replace two gathers.
  unsigned block_log2 = 0;
  //! The device's multiprocessors. While every tile has tuning::few_tiles_sms_per_tile of them,
  //! the plan spreads its work over more blocks than tiles: the first pass splits in two (stages
  //! 1..warp_stages on every warp's keys, then the rest on tiles), and each later stage gathers
  //! down to a warp's keys and ends on warps. More passes, but fewer steps on each lone tile.
  unsigned sm_count = 0;
  //! The most stages one cluster of blocks sorts in one launch (0: none; at most
  //! tuning::cluster_sort::stages_max): plans for n from 2^cluster_sort::stages_min keys up
  //! to 2^cluster_sort_log2 are that one pass.
  unsigned cluster_sort_log2 = 0;
  //! Tiles of the optimized path that the device holds at once (its SMs times the tiles an SM
  //! holds; 0: none, or no cooperative launches). Unless the plan is for few tiles or has
  //! blocked passes, the stages whose runs fit that many tiles run as merge_stages, one pass
  //! each.
  unsigned resident_tiles = 0;
  //! From 2^split_min_log2 keys on (0: never), a plan with scratch allowed cuts the keys into
  //! buckets by a sample first (split_buckets), then sorts each bucket by the first pass and the
  //! merges out of place: fewer merges than one array of n keys takes.
  unsigned split_min_log2 = 0;
  //! From 2^refine_min_log2 keys on (0: never) up to 2^32, such a split cuts every bucket again
  //! into sub-buckets of about a tile, so that few merges follow the first pass.
  unsigned refine_min_log2 = 0;
};

//! Whether an optimized plan may use a scratch buffer of n keys.
enum class scratch_use {
  none,     //!< in place
  allowed,  //!< where the keys exceed a cache block (device_shape::block_log2), every stage past
            //!< the tile is one merge_stage pass, alternating between the keys and the scratch
            //!< (2^27 four-byte keys: 14 passes instead of 32), after a split into buckets from
            //!< device_shape::split_min_log2 on
};

//! Turns (algorithm, n, key size) into passes. `algo` must not be automatic (resolve it first).
//! `device` and `scratch` matter to the optimized plan only (block_merge always needs scratch).
plan make_plan(algorithm algo, std::size_t n, std::size_t key_bytes, device_shape device = {},
               scratch_use scratch = scratch_use::none);

//! The optimized plan of n >= 2 keys that splits whatever n is: split_buckets (refined from
//! 2^refine_min_log2 keys on, up to 2^32; 0: never), then the first pass and the merges on the
//! buckets, with scratch (make_plan's split plan). The plan of a record sort's 16-byte words
//! (kernels/record_io.cuh), which have no other.
plan make_split_plan(std::size_t n, std::size_t key_bytes, unsigned refine_min_log2);

//! The plan for keys under a caller's order (bitonic.cuh), whose kernels are the split plan's:
//! where `splits` (the keys themselves, not positions compared through them) and n reaches the
//! word path's split size for the key size (tuning::sample_split), make_split_plan's (refined
//! from tuning::sample_refine's size); else stages 1..tile on tiles (comparator_sort_tile), then
//! one merge_stage pass a stage past the tile, alternating between the keys and the scratch (the
//! first pass writes to the scratch when the merges are odd in number). Throws bitonic::error
//! past the largest size.
plan make_comparator_plan(std::size_t n, std::size_t key_bytes, bool splits);

//! The batched plan (optimized kernels) that sorts each of `rows.count` rows of `rows.length`
//! keys on its own, ascending under the executor's order: rows of up to a tile in one sort_rows
//! pass; longer rows by the optimized passes of one row's length run over all rows at once
//! (every stage's blocks stay inside a row), on rows of the next power of two positions where the
//! length is not one (plan::row_log2: no padding in memory). log2_size is a row's stages. With
//! scratch allowed, rows longer than a tile take the first pass and then one merge_stage pass a
//! stage, alternating between the keys and a scratch of as many keys (as make_plan's merged plan
//! for one array); else their passes run in place, and with a cache block of 2^block_log2
//! positions (device_shape::block_log2; 0: none) that the positions exceed, block by block
//! (blocked passes), so that each block's keys stay in the L2 between them. Throws
//! bitonic::error when the rows' positions exceed the largest size.
plan make_rows_plan(struct rows rows, std::size_t key_bytes, unsigned block_log2 = 0,
                    scratch_use scratch = scratch_use::none);

//! Blocked passes of this many neighbouring blocks run at once (the GPU executor puts block b on
//! stream b % blocks_in_flight): while one block's launch ends and the next begins, the other
//! block's passes keep the SMs busy (docs/PERFORMANCE.md, "Figures behind the code").
constexpr unsigned blocks_in_flight = 2;

//! The block that blocked passes use with a cache of `cache_bytes`: the largest power of two keys
//! such that blocks_in_flight blocks fit within three quarters of it (the rest of the cache holds
//! what the SMs touch beside them). A 50 MB L2: blocks of 2^22 four-byte keys.
unsigned cache_block_log2(std::size_t cache_bytes, std::size_t key_bytes);

//! Where for_each_pass runs a pass: on keys [offset, offset + count); `blocked` passes run on one
//! block, and passes in different lanes (block number modulo blocks_in_flight) may run at once.
//! Passes over all keys are lane 0.
struct pass_span {
  std::size_t offset = 0, count = 0;
  bool blocked = false;
  unsigned lane = 0;
  bool in_scratch = false;  //!< the pass finds the keys in the scratch buffer, not in place
};

//! The buffers a pass works on: it reads the keys where they are (the caller's or, where
//! span.in_scratch, the scratch) and writes them there or, where ps.to_other, to the other one.
//! Passes on_buckets: from the scratch to the keys, which each bucket's passes swap as they
//! alternate (kernels::key_rows::bucket_step), its last landing in the keys.
template <class T>
struct pass_buffers {
  T* from;
  T* to;
  bool ends_in_scratch;  //!< after the pass, the keys are in the scratch
  pass_buffers(const pass& ps, const pass_span& span, T* keys, T* scratch)
      : from(ps.on_buckets || span.in_scratch ? scratch : keys),
        to(ps.on_buckets ? keys
           : ps.to_other ? (span.in_scratch ? keys : scratch)
                         : from),
        ends_in_scratch(!ps.on_buckets && span.in_scratch != ps.to_other) {}
};

//! Calls run(pass, span) for every pass in the order the executors run them: blocked passes
//! block by block on keys [offset, offset + count), the others on all n keys. Within a lane this
//! is the order the passes must run in; across lanes any interleaving gives the same result.
template <class RunPass>
void for_each_pass(const plan& p, RunPass run) {
  auto run_of = p.blocked.begin();
  bool in_scratch = false;  // after an odd number of passes to_other
  for (std::size_t i = 0; i < p.passes.size();) {
    if (run_of == p.blocked.end() || i != run_of->first) {
      run(p.passes[i], pass_span{0, p.n, false, 0, in_scratch});
      in_scratch ^= p.passes[i++].to_other;
      continue;
    }
    const std::size_t block = run_of->block_positions();
    const bool run_in_scratch = in_scratch;
    for (std::size_t offset = 0; offset < p.n; offset += block) {
      const auto lane = unsigned(offset / block % blocks_in_flight);
      in_scratch = run_in_scratch;  // every block starts where the run does
      for (std::size_t j = i; j < i + run_of->count; ++j) {
        run(p.passes[j], pass_span{offset, std::min(block, p.n - offset), true, lane, in_scratch});
        in_scratch ^= p.passes[j].to_other;
      }
    }
    i += run_of->count;
    ++run_of;
  }
}

//! Passes over memory that running p makes: one a pass, one a stage for merge_stages, and a copy
//! back after an odd number of passes to_other.
std::size_t memory_passes(const plan& p);

//! One line per pass, for debugging and tests.
std::string describe(const plan& p);

std::string_view to_string(pass_kind kind);

}  // namespace bitonic::plan
