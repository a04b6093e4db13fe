#include "plan/plan.hpp"

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>

#include "kernels/buckets.hpp"
#include "kernels/tuning.hpp"

namespace bitonic::plan {
namespace {

using network::step;

// The network with every step whose span fits 2^local_log2 run by a local pass of `local_kind`:
// all stages up to that span in one pass, then per longer stage its long-distance steps one
// global pass each and its short-distance tail in one local pass.
std::vector<pass> local_and_global_passes(unsigned k, unsigned local_log2, pass_kind local_kind) {
  std::vector<pass> passes;
  if (k == 0) return passes;
  const unsigned first_stages = k < local_log2 ? k : local_log2;
  passes.push_back({local_kind, step{1, 0}, step{first_stages, 0}, local_log2});
  for (unsigned s = local_log2 + 1; s <= k; ++s) {
    for (unsigned j = s - 1; j >= local_log2; --j) {
      passes.push_back({pass_kind::global_step, step{s, j}, step{s, j}});
    }
    passes.push_back({local_kind, step{s, local_log2 - 1}, step{s, 0}, local_log2});
  }
  return passes;
}

unsigned gathers_for(unsigned steps, unsigned per_pass) {
  return (steps + per_pass - 1) / per_pass;
}

// Steps hi..lo of stage s in as few gather passes as possible, split evenly.
void add_gathers(std::vector<pass>& passes, unsigned s, unsigned hi, unsigned lo,
                 unsigned per_pass) {
  unsigned left = hi + 1 - lo;
  for (unsigned g = gathers_for(left, per_pass); g > 0; --g) {
    const unsigned count = (left + g - 1) / g;  // sizes differ by one at most
    passes.push_back({pass_kind::gather_steps, step{s, hi}, step{s, hi + 1 - count}});
    hi -= count;
    left -= count;
  }
}

// The first pass over stages 1..sorted: one sort_tiles on tiles, or where `split` (plans for few
// tiles) stages 1..warp_stages on warps and then the rest on tiles.
std::vector<pass> first_passes(unsigned sorted, std::size_t key_bytes, bool split) {
  const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
  const unsigned warp_stages = tuning::optimized_warp_stages(key_bytes);
  if (split && sorted > warp_stages) {
    return {
        {pass_kind::sort_tiles, step{1, 0}, step{warp_stages, 0}, warp_stages},
        {pass_kind::sort_tiles, step{warp_stages + 1, warp_stages}, step{sorted, 0}, tile_log2}};
  }
  return {{pass_kind::sort_tiles, step{1, 0}, step{sorted, 0}, tile_log2}};
}

// The optimized path: whole tiles in registers and shared memory, then per longer stage its
// wide steps in as few gather passes as possible and its tail: on warps (the gathers reaching
// down to a warp's keys) where that costs no extra pass, else on tiles. A warp's tail is cheaper
// than a tile's: its warps work alone, no block-wide exchange.
// With a cache block of 2^block_log2 keys (0: none), a stage's gathers split at the block's width
// when that costs no extra pass, so that the passes below it stay inside blocks. For few tiles
// (`split`), the first pass splits at warp_stages and every stage ends on warps. Gathers of more
// rows than fit 128-byte segments run only where they save a pass and all keys stay in the cache
// (`in_cache`). Stages tile_log2+1..merge_log2 (none when merge_log2 <= tile_log2) are one
// merge_stages pass instead.
std::vector<pass> optimized_passes(unsigned k, std::size_t key_bytes, unsigned block_log2,
                                   bool split, bool in_cache, unsigned merge_log2) {
  const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
  const unsigned warp_stages = tuning::optimized_warp_stages(key_bytes);
  const unsigned full_segments = tuning::optimized_gather_full_segment_steps_max(key_bytes);
  const unsigned most_rows =
      in_cache ? tuning::optimized_gather_steps_max(key_bytes) : full_segments;
  if (k == 0) return {};
  // Few tiles: the first pass sorts smaller tiles, each later stage gathers on smaller tiles.
  const unsigned first_sorted =
      split ? tuning::optimized_few_tiles_rest_log2(key_bytes) : tile_log2;
  std::vector<pass> passes = first_passes(std::min(k, first_sorted), key_bytes, split);
  // A stage's gathers down to 2^tail_log2 and its tail: the gathers split at the block's width
  // when that costs no extra pass, so that the passes below it stay inside blocks.
  const auto stage_passes = [&](unsigned s, unsigned tail_log2, unsigned per_pass) {
    std::vector<pass> out;
    const bool split_at_block =
        block_log2 > tile_log2 && s > block_log2 &&
        gathers_for(s - block_log2, per_pass) + gathers_for(block_log2 - tail_log2, per_pass) ==
            gathers_for(s - tail_log2, per_pass);
    if (split_at_block) {
      add_gathers(out, s, s - 1, block_log2, per_pass);
      add_gathers(out, s, block_log2 - 1, tail_log2, per_pass);
    } else {
      add_gathers(out, s, s - 1, tail_log2, per_pass);
    }
    out.push_back({pass_kind::tile_tail, step{s, tail_log2 - 1}, step{s, 0}, tail_log2});
    return out;
  };
  const unsigned merged = std::min(k, merge_log2);
  if (merged > tile_log2) {
    passes.push_back(
        {pass_kind::merge_stages, step{tile_log2 + 1, tile_log2}, step{merged, 0}, merged});
  }
  // Per stage the fewest passes; among equals, 128-byte segments before shorter ones and warp
  // tails before tile tails.
  for (unsigned s = std::max(first_sorted, merged) + 1; s <= k; ++s) {
    std::vector<pass> chosen;
    for (const unsigned per_pass : {full_segments, most_rows}) {
      for (const unsigned tail_log2 : {warp_stages, tile_log2}) {
        if (split && tail_log2 != warp_stages) continue;
        std::vector<pass> candidate = stage_passes(s, tail_log2, per_pass);
        if (chosen.empty() || candidate.size() < chosen.size()) chosen = std::move(candidate);
      }
    }
    passes.insert(passes.end(), chosen.begin(), chosen.end());
  }
  if (split) {  // gathers that the few-tiles plans' smaller tiles hold take them
    for (pass& ps : passes) {
      if (ps.kind == pass_kind::gather_steps &&
          ps.steps() <= tuning::optimized_few_tiles_gather_steps_max(key_bytes)) {
        ps.span_log2 = tuning::optimized_few_tiles_gather_log2(key_bytes);
      }
    }
  }
  return passes;
}

// The runs of two or more consecutive passes that stay inside blocks of 2^block_log2 keys.
std::vector<blocked_passes> blocked_runs(const std::vector<pass>& passes, unsigned block_log2) {
  std::vector<blocked_passes> runs;
  for (std::size_t i = 0; i < passes.size();) {
    std::size_t end = i;
    while (end < passes.size() && passes[end].reach_log2() <= block_log2)
      ++end;
    if (end - i > 1) runs.push_back({i, end - i, block_log2});
    i = std::max(end, i + 1);
  }
  return runs;
}

// A plan of no passes yet for n keys; throws past the largest size.
plan sized_plan(algorithm algo, std::size_t n) {
  if (network::ceil_log2(n) > tuning::max_log2_size) {
    throw error("bitonic: n = " + std::to_string(n) + " keys is more than 2^" +
                std::to_string(tuning::max_log2_size) + ", the largest supported size");
  }
  plan p;
  p.n = n;
  p.log2_size = network::ceil_log2(n);
  p.algo = algo;
  return p;
}

// The optimized path with scratch: the first pass, then every stage past the tile merged from one
// buffer into the other, one pass a stage (merge_stage). The first pass writes to the scratch when
// the merges are odd in number, so that the last one lands in the caller's keys. Words stay in
// memory from the first pass to the last merge, which alone decodes them: for float keys encoding
// and decoding were a quarter of a merge pass's instructions (docs/PERFORMANCE.md log 31).
// The first pass (first_passes, split where `split_first`: its second part, on tiles, writes
// the words), then one merge_stage a stage past the tile.
std::vector<pass> merged_out_of_place_passes(unsigned k, std::size_t key_bytes, bool split_first) {
  const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
  std::vector<pass> passes = first_passes(tile_log2, key_bytes, split_first);
  passes.back().to_other = (k - tile_log2) % 2 == 1;
  passes.back().writes_words = true;
  for (unsigned s = tile_log2 + 1; s <= k; ++s) {
    passes.push_back({pass_kind::merge_stage, step{s, s - 1}, step{s, 0}, s, 0, true, true, s < k});
  }
  return passes;
}

// p's passes: the first pass, then one merge_stage a stage past the tile (k past the tile), and
// the scratch laid out for them: the keys p stores (a batched plan's rows or the array), then the
// splits of its tiles of positions.
void merge_out_of_place(plan& p, std::size_t key_bytes, bool split_first = false) {
  const std::size_t tiles = ((p.n - 1) >> tuning::optimized_tile_log2(key_bytes)) + 1;
  p.passes = merged_out_of_place_passes(p.log2_size, key_bytes, split_first);
  // The splits behind the keys, from the next 8-byte boundary: one a tile and one past it.
  const std::size_t keys = p.stored_keys();
  p.splits_offset_bytes = (keys * key_bytes + 7) & ~std::size_t{7};
  p.split_bytes = (tiles + 1) * sizeof(network::index_t);
  p.scratch_keys = keys + (p.split_bytes + key_bytes) / key_bytes;
}

// p's passes where it splits first: split_buckets into the scratch, then the first pass and one
// merge_stage a stage on_buckets, as many merges as a bucket of all n keys would take (a bucket
// sorted in fewer skips the rest); the scratch: the keys, the splits of the buckets' tiles of
// positions, then the split's memory (and the refinement's, from 2^refine_min_log2 keys up to
// 2^32, where the split pass cuts its buckets again and the passes after it run on those).
void split_then_merge(plan& p, std::size_t key_bytes, unsigned refine_min_log2) {
  const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
  p.refined = refine_min_log2 != 0 && p.n >= std::size_t{1} << refine_min_log2 &&
              p.n < std::size_t{1} << 32;
  p.buckets = tuning::sample_split_buckets(key_bytes) *
              (p.refined ? tuning::sample_refine_buckets(key_bytes) : 1);
  const unsigned merges = network::ceil_log2(((p.n - 1) >> tile_log2) + 1);
  p.passes.push_back({pass_kind::split_buckets, {}, {}, 0, 0, true});
  pass first = first_passes(tile_log2, key_bytes, false).front();
  first.writes_words = true;
  first.on_buckets = true;
  p.passes.push_back(first);
  for (unsigned s = tile_log2 + 1; s <= tile_log2 + merges; ++s) {
    pass merge{pass_kind::merge_stage, step{s, s - 1}, step{s, 0}, s, 0, false, true, true};
    merge.on_buckets = true;
    p.passes.push_back(merge);
  }
  const std::size_t tiles = p.bucket_positions(key_bytes) >> tile_log2;
  p.splits_offset_bytes = (p.n * key_bytes + 7) & ~std::size_t{7};
  p.split_bytes = (tiles + 1) * sizeof(network::index_t);
  p.split_offset_bytes = kernels::round_up(p.splits_offset_bytes + p.split_bytes);
  const std::size_t bytes =
      p.split_offset_bytes + kernels::sample_split::split_memory::bytes(p.n, key_bytes, tile_log2) +
      (p.refined ? kernels::refine_memory::bytes(p.n, key_bytes, tile_log2) : 0);
  p.scratch_keys = (bytes + key_bytes - 1) / key_bytes;
}

// The optimized plan for p.n keys, in the first of these regimes that applies:
// - one cluster: n fits the blocks of a thread-block cluster, one launch (where the device has
//   clusters for this key size);
// - merged out of place: past one cache block with scratch allowed (split into buckets first
//   from device.split_min_log2 on), or inside it from tuning::optimized::merge_min_log2 on, the
//   first pass then one merge pass a stage, alternating between the keys and the scratch (the
//   plan lays the scratch out);
// - in place, the network's passes (optimized_passes), shaped by three facts of the device:
//   few tiles (the first pass split, stages ending on warps), past one cache block (passes inside
//   blocks run block by block), and the stages that merge on the tiles resident at once.
void optimized_plan(plan& p, std::size_t key_bytes, const device_shape& device,
                    scratch_use scratch) {
  const unsigned k = p.log2_size, tile_log2 = tuning::optimized_tile_log2(key_bytes);
  const std::size_t tiles = ((p.n - 1) >> tile_log2) + 1;

  using clusters = tuning::cluster_sort<4>;  // the same blocks for both key sizes
  const unsigned most_clustered = std::min(
      device.cluster_sort_log2, clusters::block_log2 + tuning::cluster_sort_log2_max(key_bytes));
  if (k >= clusters::stages_min && k <= most_clustered) {
    p.passes.push_back({pass_kind::cluster_sort, step{1, 0}, step{k, 0}, k});
    return;
  }

  const unsigned block_log2 = device.block_log2;
  const bool past_cache_block = k > block_log2 && block_log2 > tile_log2;
  // Scratch only where its bytes (keys and splits) are a size_t: beyond that no device has them.
  const bool scratch_addressable = p.n <= std::numeric_limits<std::size_t>::max() / 2 / key_bytes;
  if (past_cache_block && scratch == scratch_use::allowed && scratch_addressable) {
    if (device.split_min_log2 != 0 && p.n >= std::size_t{1} << device.split_min_log2) {
      split_then_merge(p, key_bytes, device.refine_min_log2);
      return;
    }
    // Not blocked: merges of blocks that fit the cache twice over (keys and scratch) lost
    // (docs/PERFORMANCE.md log 30).
    merge_out_of_place(p, key_bytes);
    return;
  }

  const bool few_tiles = p.n > 0 && tiles * tuning::few_tiles_sms_per_tile <= device.sm_count;
  // Inside the cache block, merges out of place from the size the tuning names (on a known
  // device), the first pass split as in the plan for few tiles.
  const unsigned merge_min_log2 = tuning::optimized_merge_min_log2(key_bytes);
  if (merge_min_log2 != 0 && k >= merge_min_log2 && k > tile_log2 && block_log2 != 0 &&
      scratch == scratch_use::allowed && scratch_addressable) {
    merge_out_of_place(p, key_bytes, few_tiles);
    return;
  }
  // Merged stages on the tiles resident at once, only while the keys fit one cache block: with
  // blocked passes (two blocks at once, merges on half the tiles each) they gained 1-4 % for
  // integer keys and lost for float (docs/PERFORMANCE.md log 29).
  const unsigned merge_log2 = few_tiles || past_cache_block || device.resident_tiles == 0
                                  ? 0
                                  : tile_log2 + network::ceil_log2(device.resident_tiles + 1) - 1;
  const bool in_cache = block_log2 != 0 && k <= block_log2;
  p.passes = optimized_passes(k, key_bytes, past_cache_block ? block_log2 : 0, few_tiles, in_cache,
                              merge_log2);
  if (past_cache_block) p.blocked = blocked_runs(p.passes, block_log2);
}

}  // namespace

plan make_split_plan(std::size_t n, std::size_t key_bytes, unsigned refine_min_log2) {
  if (n < 2) throw error("bitonic: internal error: a split plan of fewer than two keys");
  plan p = sized_plan(algorithm::optimized, n);
  split_then_merge(p, key_bytes, refine_min_log2);
  return p;
}

plan make_comparator_plan(std::size_t n, std::size_t key_bytes, bool splits) {
  if (splits && n >= std::size_t{1} << tuning::sample_split_min_log2(key_bytes)) {
    return make_split_plan(n, key_bytes, tuning::sample_refine_min_log2(key_bytes));
  }
  plan p = sized_plan(algorithm::optimized, n);
  const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
  if (p.log2_size > tile_log2) {
    merge_out_of_place(p, key_bytes);
  } else if (n > 1) {
    p.passes.push_back({pass_kind::sort_tiles, step{1, 0}, step{p.log2_size, 0}, tile_log2});
  }
  return p;
}

plan make_rows_plan(struct rows rows, std::size_t key_bytes, unsigned block_log2,
                    scratch_use scratch) {
  plan p;
  p.algo = algorithm::optimized;
  p.rows = rows;
  if (rows.count == 0 || rows.length < 2) return p;
  const unsigned k = network::ceil_log2(rows.length),
                 tile_log2 = tuning::optimized_tile_log2(key_bytes);
  if (k > tuning::max_log2_size || rows.count > (std::size_t{1} << tuning::max_log2_size) >> k) {
    throw error("bitonic: " + std::to_string(rows.count) + " rows of " +
                std::to_string(rows.length) + " keys are more than 2^" +
                std::to_string(tuning::max_log2_size) + " keys, the largest supported size");
  }
  p.log2_size = k;
  if (k <= tile_log2) {
    p.n = rows.count * rows.length;
    p.passes.push_back({pass_kind::sort_rows, step{1, 0}, step{k, 0}, k});
    return p;
  }
  p.n = rows.count << k;
  const bool power_of_two = (std::size_t{1} << k) == rows.length;
  if (!power_of_two) p.row_log2 = k;
  if (scratch == scratch_use::allowed) {  // not blocked, as merge_out_of_place's single arrays
    merge_out_of_place(p, key_bytes);
    return p;
  }
  p.passes = optimized_passes(k, key_bytes, 0, false, false, 0);
  if (power_of_two) {
    // Blocks hold whole rows (2^k divides them).
    if (k <= block_log2 && block_log2 > tile_log2 && p.n > (std::size_t{1} << block_log2)) {
      p.blocked.push_back({0, p.passes.size(), block_log2});
    }
    return p;
  }
  // Blocks of whole rows that hold at most 2^block_log2 keys, as few as that allows and of equal
  // rows (but the last): blocks of 2^block_log2 positions would hold as few as half as many keys,
  // twice the launches for the same work.
  const std::size_t most_rows = block_log2 == 0 ? 0 : (std::size_t{1} << block_log2) / rows.length;
  if (block_log2 > tile_log2 && most_rows != 0 && rows.count > most_rows) {
    const std::size_t blocks = (rows.count + most_rows - 1) / most_rows;
    const std::size_t block_rows = (rows.count + blocks - 1) / blocks;
    p.blocked.push_back({0, p.passes.size(), block_log2, block_rows << k});
  }
  return p;
}

unsigned pass::reach_log2() const {
  return first.stage != last.stage ? last.stage : first.span_log2();
}

unsigned cache_block_log2(std::size_t cache_bytes, std::size_t key_bytes) {
  const std::size_t keys = cache_bytes / 4 * 3 / blocks_in_flight / key_bytes;
  return keys < 2 ? 0 : network::ceil_log2(keys + 1) - 1;
}

unsigned pass::memory_passes() const {
  if (kind == pass_kind::split_buckets) return 2;  // a read to count, a read and write to scatter
  return kind == pass_kind::merge_stages ? last.stage + 1 - first.stage : 1;
}

std::size_t plan::bucket_positions(std::size_t key_bytes) const {
  const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
  if (refined)
    return std::size_t(kernels::refine_memory::max_tiles(n, key_bytes, tile_log2)) << tile_log2;
  return std::size_t(kernels::bucket_table::max_tiles(n, buckets, tile_log2)) << tile_log2;
}

std::size_t memory_passes(const plan& p) {
  std::size_t passes = 0, swaps = 0;
  for (const pass& ps : p.passes) {
    passes += ps.memory_passes();
    swaps += ps.to_other;
  }
  if (p.refined) passes += 2;  // the refinement counts and scatters the keys again
  return passes + swaps % 2;   // keys left in the scratch are copied back
}

network::index_t pass::steps() const {
  return kind == pass_kind::merge_runs ? 0 : last.ordinal() - first.ordinal() + 1;
}

plan make_plan(algorithm algo, std::size_t n, std::size_t key_bytes, device_shape device,
               scratch_use scratch) {
  plan p = sized_plan(algo, n);
  const unsigned k = p.log2_size;
  switch (algo) {
    case algorithm::global_step:
      if (k > 0) {
        for (step st{1, 0}; st.stage <= k; st = st.next()) {
          p.passes.push_back({pass_kind::global_step, st, st});
        }
      }
      break;
    case algorithm::fused_steps:
      p.passes = local_and_global_passes(k, tuning::fused_steps::span_log2, pass_kind::block_steps);
      break;
    case algorithm::shared_tiles:
      p.passes =
          local_and_global_passes(k, tuning::shared_tile_log2(key_bytes), pass_kind::tile_steps);
      break;
    case algorithm::block_merge: {
      // Sort whole tiles with the network, then merge: runs of 2^tile_log2 keys double per pass.
      const unsigned tile_log2 = tuning::shared_tile_log2(key_bytes);
      if (k > 0) {
        const unsigned sorted_log2 = k < tile_log2 ? k : tile_log2;
        p.passes.push_back({pass_kind::tile_steps, step{1, 0}, step{sorted_log2, 0}, tile_log2});
      }
      for (unsigned r = tile_log2; r < k; ++r) {
        p.passes.push_back({pass_kind::merge_runs, {}, {}, 0, r, true});
        p.scratch_keys = n;
      }
      break;
    }
    case algorithm::optimized:
      optimized_plan(p, key_bytes, device, scratch);
      break;
    case algorithm::automatic:
      throw error("bitonic: make_plan needs a concrete algorithm (resolve automatic first)");
  }
  return p;
}

std::string_view to_string(pass_kind kind) {
  switch (kind) {
    case pass_kind::global_step:
      return "global_step";
    case pass_kind::block_steps:
      return "block_steps";
    case pass_kind::tile_steps:
      return "tile_steps";
    case pass_kind::merge_runs:
      return "merge_runs";
    case pass_kind::sort_tiles:
      return "sort_tiles";
    case pass_kind::tile_tail:
      return "tile_tail";
    case pass_kind::gather_steps:
      return "gather_steps";
    case pass_kind::cluster_sort:
      return "cluster_sort";
    case pass_kind::merge_stages:
      return "merge_stages";
    case pass_kind::merge_stage:
      return "merge_stage";
    case pass_kind::sort_rows:
      return "sort_rows";
    case pass_kind::split_buckets:
      return "split_buckets";
  }
  return "?";
}

std::string describe(const plan& p) {
  std::ostringstream out;
  out << bitonic::to_string(p.algo) << " n=" << p.n << " stages=" << p.log2_size;
  if (p.rows.count != 0) out << " rows=" << p.rows.count << 'x' << p.rows.length;
  if (p.row_log2 != 0) out << " in rows of 2^" << p.row_log2 << " positions";
  out << " passes=" << p.passes.size() << '\n';
  for (const pass& ps : p.passes) {
    out << "  " << to_string(ps.kind);
    if (ps.kind == pass_kind::merge_runs) {
      out << " runs=2^" << ps.run_log2;
    } else if (ps.kind == pass_kind::split_buckets) {
      out << " buckets=" << p.buckets << (p.refined ? " (refined)" : "");
    } else {
      out << " (" << ps.first.stage << ',' << ps.first.distance_log2 << ")..(" << ps.last.stage
          << ',' << ps.last.distance_log2 << ')';
      if (ps.span_log2 != 0) out << " span=2^" << ps.span_log2;
    }
    if (ps.to_other) out << " to other buffer";
    if (ps.on_buckets) out << " on buckets";
    if (ps.reads_words || ps.writes_words) {
      out << (ps.reads_words ? " words" : " keys") << " -> "
          << (ps.writes_words ? "words" : "keys");
    }
    out << '\n';
  }
  for (const blocked_passes& b : p.blocked) {
    out << "  passes " << b.first << ".." << b.first + b.count - 1
        << " run block by block, blocks of ";
    if (b.positions != 0) {
      out << b.positions << " positions\n";
    } else {
      out << "2^" << b.block_log2 << " keys\n";
    }
  }
  return out.str();
}

}  // namespace bitonic::plan
