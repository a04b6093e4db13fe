// GPU executor of a plan: one launch per pass (per block for blocked passes), on the caller's
// stream and, for blocked passes, side streams joined back to it by events; no synchronisation.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "bitonic/bitonic.hpp"
#include "bitonic/cuda_helpers.hpp"
#include "kernels/block_merge.cuh"
#include "kernels/comparator_sort_tile.cuh"
#include "kernels/fused_steps.cuh"
#include "kernels/global_step.cuh"
#include "kernels/optimized_cluster_sort.cuh"
#include "kernels/optimized_gather.cuh"
#include "kernels/optimized_merge.cuh"
#include "kernels/optimized_sort_tile.cuh"
#include "kernels/optimized_tail.cuh"
#include "kernels/record_io.cuh"
#include "kernels/rows.hpp"
#include "kernels/sample_refine.cuh"
#include "kernels/sample_split.cuh"
#include "kernels/shared_tiles.cuh"
#include "network/key_order.hpp"
#include "plan/plan.hpp"
#include "runtime/stream_lanes.hpp"

namespace bitonic::dispatch {

using network::index_t;

//! Whether the first pass of `p` can read the keys from another array than the one it sorts (a
//! pass over tiles on all keys at once: each tile is read before it is written anywhere).
inline bool first_pass_reads_source(const plan::plan& p) {
  if (!p.passes.empty() && p.passes.front().kind == plan::pass_kind::split_buckets) return true;
  return !p.passes.empty() && p.passes.front().kind == plan::pass_kind::sort_tiles &&
         (p.blocked.empty() || p.blocked.front().first != 0);
}

//! Throws unless p's scratch has room for the splits of its merge_stage passes.
template <class Key>
void require_split_memory(const plan::plan& p) {
  if (kernels::optimized_merge::split_count<Key>(p.n) * sizeof(index_t) > p.split_bytes) {
    throw error("bitonic: internal error: too little split memory for a merge");
  }
}

//! Blocks for a merge on buckets (0: one a tile): past the merges that buckets of twice the mean
//! length take, few, since such a merge likely has no bucket to merge and its blocks return at
//! once (a full grid of them took ~13 us at 2^27 keys, docs/PERFORMANCE.md log 57).
inline unsigned bucket_merge_blocks(const plan::plan& p, const kernels::key_rows& rows) {
  if (rows.buckets.count == 0) return 0;
  const std::size_t tiles = ((p.n - 1) >> rows.buckets.tile_log2) + 1;
  const unsigned likely_merges = network::ceil_log2(2 * tiles / p.buckets);
  constexpr unsigned few_blocks = 1024;
  return rows.bucket_pass <= likely_merges ? 0 : few_blocks;
}

//! Launches one pass of a kind that split plans do not have (run_library_pass's others).
template <class Key, class Less>
void run_network_pass(const plan::plan& p, const plan::pass& ps, Key* at, Key* to,
                      std::size_t count, const kernels::key_rows& rows, Less less,
                      cudaStream_t stream) {
  switch (ps.kind) {
    case plan::pass_kind::global_step:
      kernels::launch_global_step(at, count, ps.first, less, stream);
      break;
    case plan::pass_kind::block_steps:
      kernels::launch_fused_steps(at, count, ps.first, ps.last, less, stream);
      break;
    case plan::pass_kind::tile_steps:
      kernels::launch_tile_steps(at, count, ps.first, ps.last, less, stream);
      break;
    case plan::pass_kind::tile_tail:
      kernels::optimized_tail::launch(at, count, rows, ps.first, ps.last, less, stream);
      break;
    case plan::pass_kind::cluster_sort:  // never blocked: offset 0, count n
      kernels::optimized_cluster_sort::launch(at, count, ps.last.stage, less, stream);
      break;
    case plan::pass_kind::merge_stages:
      kernels::optimized_merge::launch(at, count, ps.first, ps.last, less, stream);
      break;
    case plan::pass_kind::gather_steps:
      kernels::optimized_gather::launch(at, count, rows, ps.first, ps.last, ps.span_log2, less,
                                        stream);
      break;
    case plan::pass_kind::merge_runs:  // never blocked: offset 0, count n
      kernels::launch_merge_runs(at, to, p.n, ps.run_log2, less, stream);
      break;
    case plan::pass_kind::sort_rows:  // rows plans are never blocked
      kernels::rows::sort_rows(at, sizeof(Key), p.rows.count, p.rows.length,
                               kernels::rows::word_map_of<Key>(),
                               Less::reverses ? order::descending : order::ascending, stream);
      break;
    default:
      throw error("bitonic: internal error: a pass kind with no kernel");
  }
}

//! Launches one pass of a plan for the library's own orders (ascending_less, descending_less on
//! ordered words) or a caller's (caller_order: plan::make_comparator_plan's kinds): keys at `at`
//! (or `tiles_in` for a first pass) to `to`, `count` of them. With a record_io (record_plan_io says
//! which plans take one) the split reads the records from its arrays and each bucket's last pass
//! writes them there.
template <class Key, class Less, class IO>
void run_library_pass(const plan::plan& p, const plan::pass& ps, Key* at, Key* to,
                      const Key* tiles_in, std::size_t count, index_t* splits, Less less,
                      cudaStream_t stream, const IO& io) {
  // Where the plan keeps words (ordered_word) in memory between passes, the kernels read and write
  // them as W; each pass kind has kernels for the directions its plans use, and no others.
  using W = typename ordered_word<Key>::type;
  const auto words = [](Key* k) { return reinterpret_cast<W*>(k); };
  // Where the count positions are in memory (kernels::key_rows): the keys, or a batched plan's
  // rows of 2^row_log2 positions, whose passes are these four kinds only.
  kernels::key_rows rows =
      p.row_log2 == 0 ? kernels::key_rows{count} : kernels::key_rows{p.rows.length, p.row_log2};
  unsigned char* const split_memory =
      reinterpret_cast<unsigned char*>(splits) - p.splits_offset_bytes + p.split_offset_bytes;
  constexpr unsigned tile_log2 = tuning::optimized<sizeof(Key)>::tile_log2;
  if (ps.on_buckets) {  // from the scratch (at) to the keys (to), bucket by bucket
    count = p.bucket_positions(sizeof(Key));
    rows = kernels::key_rows{};
    rows.buckets =
        p.refined
            ? kernels::refine_memory::carve_behind_split(split_memory, p.n, sizeof(Key), tile_log2)
                  .table()
            : kernels::sample_split::split_memory::carve(split_memory, p.n, sizeof(Key), tile_log2)
                  .table();
    rows.bucket_pass = ps.kind == plan::pass_kind::sort_tiles ? 0 : ps.first.stage - tile_log2;
    if (p.refined && ps.kind == plan::pass_kind::sort_tiles) {
      // The refinement left the sub-buckets in the keys: a sub-bucket's first pass reads them
      // there and writes them back in place where its merges are even in number, else to the
      // scratch (the pass's destination here).
      tiles_in = to;
      to = at;
      rows.bucket_parity = 1;
    }
  }
  if (p.row_log2 != 0 && ps.kind != plan::pass_kind::sort_tiles &&
      ps.kind != plan::pass_kind::tile_tail && ps.kind != plan::pass_kind::gather_steps &&
      ps.kind != plan::pass_kind::merge_stage) {
    throw error("bitonic: internal error: a pass with no kernel for rows of missing keys");
  }
  // A split plan's pass kinds, which every word size has; 16-byte record words and a caller's
  // keys have no others (plan::make_split_plan, make_comparator_plan), so that their kernels are
  // these only.
  switch (ps.kind) {
    case plan::pass_kind::sort_tiles:
      if constexpr (is_caller_order_v<Less>) {  // a caller's key is its own word
        kernels::comparator_sort_tile::launch<Key>(tiles_in, to, count, rows, less, stream);
      } else if (ps.writes_words) {
        kernels::optimized_sort_tile::launch<Key>(tiles_in, words(to), count, rows, ps.first,
                                                  ps.last, less, stream, io);
      } else {
        kernels::optimized_sort_tile::launch<Key>(tiles_in, to, count, rows, ps.first, ps.last,
                                                  less, stream);
      }
      break;
    case plan::pass_kind::merge_stage: {  // reads words; never blocked
      require_split_memory<Key>(p);
      index_t* const stage_splits = splits;
      if (!ps.writes_words) {
        kernels::optimized_merge::launch_stage<Key>(words(at), to, count, rows, ps.first.stage,
                                                    stage_splits, less, stream);
      } else {
        kernels::optimized_merge::launch_stage<Key>(words(at), words(to), count, rows,
                                                    ps.first.stage, stage_splits, less, stream,
                                                    bucket_merge_blocks(p, rows), io);
      }
      break;
    }
    case plan::pass_kind::split_buckets:  // never blocked: tiles_in to the scratch (to)
      if constexpr (splits_keys_v<Less>) {
        kernels::with_stable_split(io, [&](auto stable_split) {
          constexpr bool stable = decltype(stable_split)::value;
          kernels::sample_split::launch_split<stable, Key>(
              tiles_in, to, index_t{count}, split_memory, tile_log2, less, stream, io);
          // and where refined, the sub-buckets back to the keys (at)
          if (p.refined) {
            kernels::sample_refine::launch_refine<stable, Key>(to, at, index_t{count}, split_memory,
                                                               tile_log2, less, stream);
          }
        });
      } else {
        throw error("bitonic: internal error: a split of positions compared through keys");
      }
      break;
    default:
      if constexpr (sizeof(Key) == 16 || is_caller_order_v<Less>) {
        throw error(
            "bitonic: internal error: a pass that 16-byte words or a caller's order "
            "have no kernel for");
      } else {
        run_network_pass(p, ps, at, to, count, rows, less, stream);
      }
  }
}

//! Whether a record sort of n words can read and write its records itself (kernels/record_io.cuh)
//! under plan p: p starts with the split, after which every pass runs on its buckets and writes
//! words (the passes that run_library_pass hands the record_io).
inline bool record_plan_io(const plan::plan& p) {
  if (p.passes.empty() || p.passes.front().kind != plan::pass_kind::split_buckets ||
      !p.blocked.empty()) {
    return false;
  }
  return std::all_of(p.passes.begin() + 1, p.passes.end(), [](const plan::pass& ps) {
    return ps.on_buckets && ps.writes_words &&
           (ps.kind == plan::pass_kind::sort_tiles || ps.kind == plan::pass_kind::merge_stage);
  });
}

//! Runs every pass of `p` on keys[0, p.stored_keys()). `scratch` must hold p.scratch_keys keys.
//! With a `source` (apart from keys and scratch), the keys are read from the source instead and
//! source is not written: by the first pass where first_pass_reads_source, else by a copy first.
//! With a record_io (Key: 64-bit words; p: record_plan_io), the records are read from and written
//! to its arrays, and `keys` is scratch. Blocked passes run in their lanes (plan::pass_span), each
//! lane on its own stream. Under a kernels::load_only_scope it only loads the kernels the passes
//! launch: no stream or event is touched.
template <class Key, class Less, class IO = kernels::keys_only>
void run_plan(const plan::plan& p, Key* keys, Key* scratch, Less less, cudaStream_t caller,
              const Key* source = nullptr, const IO& io = {}) {
  if constexpr (kernels::is_record_io_v<IO>) {
    static_assert(std::is_same_v<Key, typename IO::word_type> && !Less::reverses,
                  "records sort as their words, ascending");
    if (!record_plan_io(p) || source != nullptr) {
      throw error("bitonic: internal error: a record sort's plan that does not split");
    }
  }
  const bool load_only = kernels::load_only_scope::active();
  const bool first_reads_source = source != nullptr && first_pass_reads_source(p);
  if (source != nullptr && !first_reads_source && !load_only) {
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(keys, source, p.stored_keys() * sizeof(Key),
                                       cudaMemcpyDeviceToDevice, caller));
  }
  bool first_pass = true;
  runtime::stream_lanes lanes(caller, p.blocked.empty() || load_only ? 1 : plan::blocks_in_flight);
  bool ends_in_scratch = false;
  // The split's memory lies in the scratch at offsets of whole 16-byte pieces: 8-byte aligned
  // for splitters of up to 8 bytes, 16 for those of 16-byte words.
  constexpr std::size_t split_alignment = sizeof(Key) == 16 ? 16 : 8;
  if (p.split_bytes != 0 && reinterpret_cast<std::uintptr_t>(scratch) % split_alignment != 0) {
    throw error("bitonic: internal error: scratch for splits not aligned");
  }
  const auto splits =
      reinterpret_cast<index_t*>(reinterpret_cast<unsigned char*>(scratch) + p.splits_offset_bytes);
  plan::for_each_pass(p, [&](const plan::pass& ps, const plan::pass_span& span) {
    // The first and last blocks launch the kernels that the others do.
    if (load_only && span.offset != 0 && span.offset + span.count != p.n) return;
    if (span.blocked) {  // one lane (no-ops) when loading only
      lanes.fork();
    } else {
      lanes.join();
    }
    const cudaStream_t stream = lanes.get(load_only ? 0 : span.lane);
    const plan::pass_buffers<Key> buffers(ps, span, keys, scratch);
    const std::size_t stored_offset = p.stored_index(span.offset);
    Key* const at = buffers.from + stored_offset;
    // Where a pass over tiles reads: the source for the first pass (over all keys) where it can.
    const Key* const tiles_in = first_pass && first_reads_source ? source + stored_offset : at;
    first_pass = false;
    Key* const to = buffers.to + stored_offset;
    const std::size_t count = span.count;
    ends_in_scratch = buffers.ends_in_scratch;
    if (ps.to_other && ps.kind != plan::pass_kind::merge_runs &&
        ps.kind != plan::pass_kind::merge_stage && ps.kind != plan::pass_kind::sort_tiles &&
        ps.kind != plan::pass_kind::split_buckets) {
      throw error("bitonic: internal error: a pass that cannot write to the other buffer");
    }
    const bool merge = ps.kind == plan::pass_kind::merge_stage;
    if (ps.reads_words != merge ||
        (ps.writes_words && !merge && ps.kind != plan::pass_kind::sort_tiles)) {
      throw error(
          "bitonic: internal error: a pass that reads or writes words it has no kernel for");
    }
    run_library_pass(p, ps, at, to, tiles_in, count, splits, less, stream, io);
  });
  lanes.join();
  if (kernels::is_record_io_v<IO> && ends_in_scratch) {
    throw error("bitonic: internal error: a record sort that ends in its scratch");
  }
  if (ends_in_scratch && !load_only) {
    BITONIC_CUDA_CHECK(cudaMemcpyAsync(keys, scratch, p.stored_keys() * sizeof(Key),
                                       cudaMemcpyDeviceToDevice, caller));
  }
}

}  // namespace bitonic::dispatch
