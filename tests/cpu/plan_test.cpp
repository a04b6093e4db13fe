// The plan: for every algorithm its network passes must run every step of the network exactly
// once, in schedule order, each inside the blocks its kernel owns; block_merge's merge passes
// must then double the sorted runs from one tile up to the whole input.
#include "plan/plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/options.hpp"
#include "common_test.hpp"
#include "kernels/buckets.hpp"
#include "kernels/tuning.hpp"

namespace bitonic::plan {
namespace {

using network::step;

// Span of the blocks a local pass of this kind runs in, as the kernels are compiled (the GPU
// kernels use these constants, not pass::span_log2, so the two must agree).
unsigned kernel_span_log2(pass_kind kind, std::size_t key_bytes) {
  switch (kind) {
    case pass_kind::block_steps:
      return tuning::fused_steps::span_log2;
    case pass_kind::sort_tiles:
    case pass_kind::tile_tail:
      return tuning::optimized_tile_log2(key_bytes);
    default:
      return tuning::shared_tile_log2(key_bytes);
  }
}

// The span a sort_tiles or tile_tail pass must have: a tile's, or in plans for few tiles a warp's
// keys (every step of the pass must then fit those).
unsigned register_tile_span_log2(const pass& ps, std::size_t key_bytes) {
  const unsigned warp_stages = tuning::optimized_warp_stages(key_bytes);
  return ps.span_log2 == warp_stages ? warp_stages : tuning::optimized_tile_log2(key_bytes);
}

::testing::AssertionResult is_valid_plan(const plan& p, algorithm algo, std::size_t n,
                                         std::size_t key_bytes) {
  auto fail = [] { return ::testing::AssertionFailure(); };
  const unsigned k = network::ceil_log2(n);
  if (p.n != n || p.log2_size != k || p.algo != algo) return fail() << "wrong n, stages or algo";
  const unsigned tile_log2 = tuning::shared_tile_log2(key_bytes);
  // block_merge runs the network only up to one tile; merges do the rest.
  const unsigned network_stages = algo == algorithm::block_merge ? std::min(k, tile_log2) : k;
  step expected{1, 0};  // the next step the network still has to run
  unsigned next_run_log2 = tile_log2;
  for (std::size_t i = 0; i < p.passes.size(); ++i) {
    const pass& ps = p.passes[i];
    const std::string where = "pass " + std::to_string(i) + ": ";
    if (ps.kind == pass_kind::merge_runs) {
      if (algo != algorithm::block_merge)
        return fail() << where << "merge pass outside block_merge";
      if (expected.ordinal() != network::step_count(network_stages)) {
        return fail() << where << "merge pass before the tiles are sorted";
      }
      if (ps.run_log2 != next_run_log2) {
        return fail() << where << "merges runs of 2^" << ps.run_log2 << ", expected 2^"
                      << next_run_log2;
      }
      if (ps.steps() != 0) return fail() << where << "merge pass counts network steps";
      if (!ps.to_other) return fail() << where << "merge pass in place";
      ++next_run_log2;
      continue;
    }
    if (next_run_log2 != tile_log2) return fail() << where << "network pass after a merge pass";
    if (ps.first != expected) {
      return fail() << where << "starts at (" << ps.first.stage << ',' << ps.first.distance_log2
                    << "), expected (" << expected.stage << ',' << expected.distance_log2 << ')';
    }
    if (ps.last.ordinal() < ps.first.ordinal()) return fail() << where << "ends before it starts";
    if (ps.last.stage > network_stages) return fail() << where << "runs past the last stage";
    switch (ps.kind) {
      case pass_kind::split_buckets:  // starts at no step: failed above; the split tests cover it
        return fail() << where << "split_buckets, which this check does not cover";
      case pass_kind::global_step:
        // Both executors run only `first` of a global pass and treat span 0 as "all keys".
        if (ps.first != ps.last) return fail() << where << "global pass of several steps";
        if (ps.span_log2 != 0) return fail() << where << "global pass with a span";
        if (algo != algorithm::global_step &&
            ps.first.span_log2() <= kernel_span_log2(p.passes[0].kind, key_bytes)) {
          return fail() << where << "step fits a local pass but runs as a global one";
        }
        break;
      case pass_kind::gather_steps: {
        if (algo != algorithm::optimized)
          return fail() << where << "gather pass in " << to_string(algo);
        const unsigned tile_log2 = kernel_span_log2(pass_kind::sort_tiles, key_bytes);
        if (ps.first.stage != ps.last.stage) return fail() << where << "gather spans stages";
        if (ps.steps() > tuning::optimized_gather_steps_max(key_bytes)) {
          return fail() << where << "gathers " << ps.steps() << " steps, more than the kernel's";
        }
        const unsigned warp_stages = tuning::optimized_warp_stages(key_bytes);
        if (ps.last.distance_log2 < warp_stages) {
          return fail() << where << "gathers a step that fits a warp's keys";
        }
        if (ps.last.distance_log2 + ps.steps() < tile_log2) {
          return fail() << where << "gathers rows whose row block is smaller than a tile";
        }
        break;
      }
      case pass_kind::block_steps:
      case pass_kind::tile_steps:
      case pass_kind::sort_tiles:
      case pass_kind::tile_tail: {
        const bool registers = ps.kind == pass_kind::sort_tiles || ps.kind == pass_kind::tile_tail;
        const bool kind_matches =
            ps.kind == pass_kind::block_steps ? algo == algorithm::fused_steps
            : registers                       ? algo == algorithm::optimized
                        : (algo == algorithm::shared_tiles || algo == algorithm::block_merge);
        if (!kind_matches) return fail() << where << to_string(ps.kind) << " in this algorithm";
        // The first pass (or its two parts) sorts tiles from stage 1; a tail is one stage's end.
        const bool starts_sorting =
            ps.first == step{1, 0} || (i == 1 && p.passes[0].kind == pass_kind::sort_tiles &&
                                       ps.first.distance_log2 + 1 == ps.first.stage);
        if (ps.kind == pass_kind::sort_tiles && (i > 1 || !starts_sorting)) {
          return fail() << where << "sort_tiles that is not the first pass or its second part";
        }
        if (ps.kind == pass_kind::tile_tail &&
            (ps.first.stage != ps.last.stage || ps.last.distance_log2 != 0 || i < 1)) {
          return fail() << where << "tile_tail that is not the end of one stage";
        }
        const unsigned span_log2 = registers ? register_tile_span_log2(ps, key_bytes)
                                             : kernel_span_log2(ps.kind, key_bytes);
        if (ps.span_log2 != span_log2) {
          return fail() << where << "span 2^" << ps.span_log2 << " differs from the kernel's 2^"
                        << span_log2;
        }
        for (step st = ps.first;; st = st.next()) {
          if (st.span_log2() > ps.span_log2) {
            return fail() << where << "step (" << st.stage << ',' << st.distance_log2
                          << ") does not fit the pass's blocks";
          }
          if (st == ps.last) break;
        }
        break;
      }
      case pass_kind::cluster_sort: {
        // One cluster sorts everything: from two blocks to the kernel's largest cluster, in
        // the plan's only pass.
        using clusters = tuning::cluster_sort<4>;
        const unsigned most = clusters::block_log2 + tuning::cluster_sort_log2_max(key_bytes);
        if (algo != algorithm::optimized || p.passes.size() != 1 || ps.span_log2 != k ||
            ps.last != (step{k, 0}) || k < clusters::stages_min || k > most) {
          return fail() << where << "cluster_sort that is not the whole of a small sort";
        }
        break;
      }
      case pass_kind::merge_stages: {
        // Whole stages past the first pass's tile, run on tiles of the optimized path.
        const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
        if (algo != algorithm::optimized || ps.first != (step{tile_log2 + 1, tile_log2}) ||
            ps.last.distance_log2 != 0 || ps.span_log2 != ps.last.stage) {
          return fail() << where << "merge_stages that are not whole stages past the tile";
        }
        if (ps.memory_passes() != ps.last.stage - tile_log2) {
          return fail() << where << "merge_stages counts " << ps.memory_passes() << " passes";
        }
        break;
      }
      case pass_kind::merge_stage: {
        // One whole stage past the first pass's tile, from one buffer into the other.
        const unsigned s = ps.first.stage;
        if (algo != algorithm::optimized || s <= tuning::optimized_tile_log2(key_bytes) ||
            ps.first != (step{s, s - 1}) || ps.last != (step{s, 0}) || ps.span_log2 != s ||
            !ps.to_other) {
          return fail() << where << "merge_stage that is not a whole stage past the tile";
        }
        break;
      }
      case pass_kind::merge_runs:
        break;
      case pass_kind::sort_rows:
        return fail() << where << to_string(ps.kind) << " outside a batched plan";
    }
    // Passes to the other buffer: merges, and an optimized first pass.
    if (ps.to_other && ps.kind != pass_kind::merge_stage &&
        !(ps.kind == pass_kind::sort_tiles && i == 0)) {
      return fail() << where << to_string(ps.kind) << " to the other buffer";
    }
    if (ps.kind != pass_kind::merge_stages && ps.memory_passes() != 1) {
      return fail() << where << "counts " << ps.memory_passes() << " passes over memory";
    }
    if (ps.steps() != ps.last.ordinal() - ps.first.ordinal() + 1) {
      return fail() << where << "steps() disagrees with its range";
    }
    // A pass reads what the pass before left in memory: keys, or their words.
    if (ps.reads_words != (i > 0 && p.passes[i - 1].writes_words)) {
      return fail() << where << "reads " << (ps.reads_words ? "words" : "keys")
                    << " where the pass before left the other";
    }
    if ((ps.reads_words || ps.writes_words) && ps.kind != pass_kind::merge_stage &&
        !(ps.kind == pass_kind::sort_tiles && !ps.reads_words)) {
      return fail() << where << to_string(ps.kind) << " has no kernel for words";
    }
    expected = ps.last.next();
  }
  if (!p.passes.empty() && p.passes.back().writes_words) {
    return fail() << "the last pass leaves words, not keys";
  }
  // The splits lie behind the keys in the scratch, 8-byte aligned, within it.
  if (p.split_bytes != 0 &&
      (p.splits_offset_bytes % 8 != 0 || p.splits_offset_bytes < n * key_bytes ||
       p.scratch_keys * key_bytes < p.splits_offset_bytes + p.split_bytes)) {
    return fail() << "splits at byte " << p.splits_offset_bytes << " (" << p.split_bytes
                  << " bytes) outside a scratch of " << p.scratch_keys << " keys";
  }
  if (expected.ordinal() != network::step_count(network_stages)) {
    return fail() << "the passes stop after " << expected.ordinal() << " of "
                  << network::step_count(network_stages) << " network steps";
  }
  const bool merges = algo == algorithm::block_merge && k > tile_log2;
  if (merges && next_run_log2 != k) {
    return fail() << "merges stop at runs of 2^" << next_run_log2 << ", need 2^" << k;
  }
  const auto to_other =
      std::count_if(p.passes.begin(), p.passes.end(), [](const pass& ps) { return ps.to_other; });
  if (p.needs_scratch() != (to_other != 0))
    return fail() << "needs_scratch is " << p.needs_scratch();
  if (p.needs_scratch() && p.scratch_keys < n) {
    return fail() << "scratch_keys is " << p.scratch_keys;
  }
  if (algo != algorithm::block_merge && to_other % 2 != 0) {
    return fail() << "the network ends in the scratch buffer (" << to_other << " passes to it)";
  }
  if (memory_passes(p) != p.passes.size() + (algo == algorithm::block_merge ? to_other % 2 : 0) &&
      std::none_of(p.passes.begin(), p.passes.end(),
                   [](const pass& ps) { return ps.kind == pass_kind::merge_stages; })) {
    return fail() << "memory_passes " << memory_passes(p) << " for " << p.passes.size()
                  << " passes";
  }
  return ::testing::AssertionSuccess();
}

std::vector<std::size_t> plan_lengths() {
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 5000; ++n)
    lengths.push_back(n);
  for (unsigned p : {13u, 14u, 20u, 27u, 31u, 32u, 40u, 62u}) {
    const std::size_t power = std::size_t{1} << p;
    lengths.insert(lengths.end(), {power - 1, power, power + 1, power + 3});
  }
  return lengths;
}

TEST(Plan, EveryAlgorithmRunsTheWholeNetworkOnce) {
  for (const algorithm algo : test::concrete_algorithms) {
    for (const std::size_t key_bytes : {4u, 8u}) {
      for (const std::size_t n : plan_lengths()) {
        // Device shapes: none, an H100's (2^22-key blocks, 132 SMs, clusters for 4-byte keys up
        // to 2^16) without and with its 264 resident tiles, one that splits every first pass,
        // one with resident tiles and no cache known.
        const unsigned clusters = key_bytes == 4 ? tuning::cluster_sort<4>::stages_max : 0;
        for (const device_shape device :
             {device_shape{}, device_shape{22, 132, clusters}, device_shape{22, 132, clusters, 264},
              device_shape{0, 1u << 30}, device_shape{0, 8, 0, 16}}) {
          for (const scratch_use scratch : {scratch_use::none, scratch_use::allowed}) {
            const plan p = make_plan(algo, n, key_bytes, device, scratch);
            ASSERT_TRUE(is_valid_plan(p, algo, n, key_bytes))
                << "key_bytes=" << key_bytes << " sm_count=" << device.sm_count << '\n'
                << describe(p);
          }
        }
      }
    }
  }
}

// With clusters (device_shape::cluster_sort_log2), every n from two blocks' keys to that many
// stages is one cluster_sort pass, and other sizes keep their plans. (8-byte keys have no
// cluster sort: current_device_shape leaves it 0 for them.)
TEST(Plan, ClusterSortForSmallN) {
  using C = tuning::cluster_sort<4>;
  const std::size_t key_bytes = 4;
  for (const unsigned most : {C::block_log2 + 2, C::stages_max}) {
    const unsigned least = C::stages_min;
    for (unsigned k = least - 1; k <= most + 1; ++k) {
      for (const std::size_t n : {(std::size_t{1} << (k - 1)) + 1, std::size_t{1} << k}) {
        const plan with = make_plan(algorithm::optimized, n, key_bytes, {22, 132, most});
        const plan without = make_plan(algorithm::optimized, n, key_bytes, {22, 132, 0});
        const bool cluster = k >= least && k <= most;
        EXPECT_EQ(with.passes.size() == 1 && with.passes[0].kind == pass_kind::cluster_sort,
                  cluster)
            << describe(with);
        if (!cluster) {
          EXPECT_EQ(describe(with), describe(without));
        }
        EXPECT_TRUE(std::none_of(without.passes.begin(), without.passes.end(), [](const pass& ps) {
          return ps.kind == pass_kind::cluster_sort;
        })) << describe(without);
      }
    }
  }
}

// While every tile has few_tiles_sms_per_tile SMs, the first pass splits at warp_stages and sorts
// up to few_tiles_rest_log2, and every later stage gathers (on tiles of few_tiles_gather_log2
// where those hold the gather's rows) down to a warp's keys and ends on warps.
TEST(Plan, FewTilesSplitTheFirstPassAndEndStagesOnWarps) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
    const unsigned warp_stages = tuning::optimized_warp_stages(key_bytes);
    const unsigned rest_log2 = tuning::optimized_few_tiles_rest_log2(key_bytes);
    const unsigned gather_log2 = tuning::optimized_few_tiles_gather_log2(key_bytes);
    const unsigned per_pass = tuning::optimized_gather_full_segment_steps_max(key_bytes);
    const device_shape device{0, 132};  // no cache known: gathers of 128-byte segments only
    const std::size_t most_split = std::size_t{132 / tuning::few_tiles_sms_per_tile} << tile_log2;
    for (const std::size_t n : {std::size_t{3000}, std::size_t{1} << 16, most_split}) {
      const plan p = make_plan(algorithm::optimized, n, key_bytes, device);
      const std::string where = describe(p);
      std::size_t expected_passes = 2;
      for (unsigned s = rest_log2 + 1; s <= p.log2_size; ++s) {
        expected_passes += (s - warp_stages + per_pass - 1) / per_pass + 1;
      }
      ASSERT_EQ(p.passes.size(), expected_passes) << where;
      EXPECT_EQ(p.passes[0].last, (step{warp_stages, 0})) << where;
      EXPECT_EQ(p.passes[0].span_log2, warp_stages) << where;
      EXPECT_EQ(p.passes[1].first, (step{warp_stages + 1, warp_stages})) << where;
      EXPECT_EQ(p.passes[1].last, (step{std::min(p.log2_size, rest_log2), 0})) << where;
      for (std::size_t i = 2; i < p.passes.size(); ++i) {
        const pass& ps = p.passes[i];
        if (ps.kind == pass_kind::tile_tail) {
          EXPECT_EQ(ps.span_log2, warp_stages) << where << "pass " << i;
          EXPECT_EQ(ps.first.distance_log2 + 1, warp_stages) << where << "pass " << i;
        } else {
          EXPECT_EQ(ps.kind, pass_kind::gather_steps) << where << "pass " << i;
          const bool small = ps.steps() <= tuning::optimized_few_tiles_gather_steps_max(key_bytes);
          EXPECT_EQ(ps.span_log2, small ? gather_log2 : 0u) << where << "pass " << i;
        }
      }
    }
    for (const std::size_t n :
         {(std::size_t{1} << warp_stages) - 24, std::size_t{1} << warp_stages}) {
      const plan p = make_plan(algorithm::optimized, n, key_bytes, device);
      ASSERT_EQ(p.passes.size(), 1u) << "a warp's keys at most: one pass\n" << describe(p);
      EXPECT_EQ(p.passes[0].last.stage, p.log2_size);
    }
    const plan whole = make_plan(algorithm::optimized, most_split + 1, key_bytes, device);
    EXPECT_EQ(whole.passes.size(),
              make_plan(algorithm::optimized, most_split + 1, key_bytes).passes.size());
    EXPECT_EQ(whole.passes[0].last, (step{tile_log2, 0})) << "more tiles: not split\n"
                                                          << describe(whole);
  }
}

// With tiles resident at once (device_shape::resident_tiles), the stages past the first pass whose
// runs fit them are one merge_stages pass, unless the plan is for few tiles or has blocked passes.
// H100: 264 tiles of 2^14 four-byte keys (2^13 eight-byte), blocks of 2^22 (2^21) keys.
TEST(Plan, MergedStagesOnResidentTiles) {
  const auto merged_stages = [](std::size_t n, std::size_t key_bytes, device_shape device) {
    const plan p = make_plan(algorithm::optimized, n, key_bytes, device);
    const auto merge = std::find_if(p.passes.begin(), p.passes.end(), [](const pass& ps) {
      return ps.kind == pass_kind::merge_stages;
    });
    return merge == p.passes.end() ? step{} : merge->last;
  };
  const device_shape h100{22, 132, 0, 264};
  EXPECT_EQ(merged_stages(std::size_t{1} << 22, 4, h100), (step{22, 0}));
  EXPECT_EQ(merged_stages((std::size_t{1} << 20) * 3, 4, h100), (step{22, 0}));
  EXPECT_EQ(merged_stages((std::size_t{1} << 21) + 1, 4, h100), (step{22, 0}));
  EXPECT_EQ(merged_stages(std::size_t{1} << 21, 4, h100), (step{21, 0}));  // 128 tiles > 66
  EXPECT_EQ(merged_stages(std::size_t{1} << 20, 4, h100), step{});         // few tiles: split
  EXPECT_EQ(merged_stages(std::size_t{1} << 14, 4, h100), step{});         // one tile
  EXPECT_EQ(merged_stages((std::size_t{1} << 22) + 1, 4, h100), step{});   // blocked passes
  EXPECT_EQ(merged_stages(std::size_t{1} << 27, 4, h100), step{});
  EXPECT_EQ(merged_stages(std::size_t{1} << 21, 8, {21, 132, 0, 264}), (step{21, 0}));
  EXPECT_EQ(merged_stages(std::size_t{1} << 22, 8, {21, 132, 0, 264}), step{});
  EXPECT_EQ(merged_stages(std::size_t{1} << 22, 4, {22, 132, 0, 1}), step{});  // one tile
  // No cache known: merges in blocks of the resident tiles' keys, one after the other.
  EXPECT_EQ(merged_stages(std::size_t{1} << 24, 4, {0, 132, 0, 264}), (step{22, 0}));
  // A merge_stages pass counts one pass over memory per stage: stages 15..22 were sixteen
  // passes (a gather and a tail each).
  const plan p = make_plan(algorithm::optimized, std::size_t{1} << 22, 4, h100);
  const plan without = make_plan(algorithm::optimized, std::size_t{1} << 22, 4, {22, 132});
  ASSERT_EQ(p.passes[1].kind, pass_kind::merge_stages) << describe(p);
  EXPECT_EQ(p.passes[1].memory_passes(), 8u);
  EXPECT_EQ(p.passes.size(), without.passes.size() - 15) << describe(p) << describe(without);
}

// With scratch allowed and keys past one cache block, the optimized plan is the first pass and
// one merge_stage pass a stage past the tile over all keys, alternating buffers so that the last
// lands in the keys. Within one block, or without a cache known, it stays in place.
TEST(Plan, MergesOutOfPlacePastTheCache) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
    const unsigned block_log2 = key_bytes == 4 ? 22 : 21;
    const device_shape h100{block_log2, 132, 0, 264};
    for (const unsigned k : {block_log2 + 1, block_log2 + 2, 27u, 28u}) {
      const std::size_t n = (std::size_t{1} << (k - 1)) + 3;
      const plan p = make_plan(algorithm::optimized, n, key_bytes, h100, scratch_use::allowed);
      const std::string where = describe(p);
      ASSERT_TRUE(p.needs_scratch()) << where;
      const std::size_t tiles = ((n - 1) >> tile_log2) + 1;  // an 8-byte split each, aligned
      EXPECT_GE(p.scratch_keys * key_bytes, n * key_bytes + 8 * tiles + 4) << where;
      ASSERT_EQ(p.passes.size(), k - tile_log2 + 1) << where;
      EXPECT_EQ(memory_passes(p), p.passes.size()) << where;
      EXPECT_EQ(p.passes[0].last, (step{tile_log2, 0})) << where;
      EXPECT_EQ(p.passes[0].to_other, (k - tile_log2) % 2 == 1) << where;
      EXPECT_TRUE(is_valid_plan(p, algorithm::optimized, n, key_bytes)) << where;
      EXPECT_EQ(p.passes[0].kind, pass_kind::sort_tiles) << where;
      EXPECT_TRUE(p.passes[0].writes_words) << where;  // words from the first pass to the last
      for (std::size_t i = 1; i < p.passes.size(); ++i) {
        EXPECT_EQ(p.passes[i].kind, pass_kind::merge_stage) << where;
        EXPECT_EQ(p.passes[i].first.stage, tile_log2 + i) << where;
        EXPECT_TRUE(p.passes[i].reads_words) << where;
        EXPECT_EQ(p.passes[i].writes_words, i + 1 < p.passes.size()) << where;
      }
      EXPECT_TRUE(p.blocked.empty()) << where;
      std::size_t i = 0;
      for_each_pass(p, [&](const pass& ps, const pass_span& span) {
        EXPECT_EQ(&ps, &p.passes[i]) << where;
        // Pass i finds the keys where pass i - 1 left them; the first pass reads them in place.
        EXPECT_EQ(span.in_scratch, i != 0 && (i + (k - tile_log2)) % 2 == 0) << where << i;
        ++i;
      });
    }
    // Inside the block in place; 8-byte keys only below the size from which they merge out of
    // place there too (InCacheMergePlan in device_plan_test.cpp).
    const unsigned merge_min_log2 = tuning::optimized_merge_min_log2(key_bytes);
    const unsigned in_place_log2 = merge_min_log2 != 0 ? merge_min_log2 - 1 : block_log2;
    for (const std::size_t n :
         {std::size_t{1} << in_place_log2, std::size_t{1} << std::min(20u, in_place_log2)}) {
      EXPECT_FALSE(make_plan(algorithm::optimized, n, key_bytes, h100, scratch_use::allowed)
                       .needs_scratch());
    }
    EXPECT_FALSE(
        make_plan(algorithm::optimized, std::size_t{1} << 27, key_bytes, {}, scratch_use::allowed)
            .needs_scratch());
  }
}

// Refined splits (device_shape::refine_min_log2, kernels/sample_refine.cuh): from that size up to
// 2^32 keys the split's buckets are cut again, the passes on_buckets run on the sub-buckets (as
// many buckets as both levels make, each from a tile of its own, on as many tiles of positions as
// the sub-buckets of about a tile can fill), the scratch holds the
// refinement's memory behind the split's, and the plan counts two more passes over memory.
TEST(Plan, RefinesItsSplitFromItsSize) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
    device_shape h100{key_bytes == 4 ? 22u : 21u, 132, 0, 264};
    h100.split_min_log2 = 23;
    h100.refine_min_log2 = 24;
    const plan split = make_plan(algorithm::optimized, std::size_t{1} << 23, key_bytes, h100,
                                 scratch_use::allowed);
    EXPECT_FALSE(split.refined) << describe(split);
    for (const std::size_t n : {std::size_t{1} << 24, (std::size_t{1} << 27) + 5}) {
      const plan p = make_plan(algorithm::optimized, n, key_bytes, h100, scratch_use::allowed);
      const std::string where = describe(p);
      ASSERT_EQ(p.passes.front().kind, pass_kind::split_buckets) << where;
      EXPECT_TRUE(p.refined) << where;
      EXPECT_EQ(p.buckets,
                tuning::sample_split_buckets(key_bytes) * tuning::sample_refine_buckets(key_bytes))
          << where;
      // At most floor(n / tile) + floor(n / target) + 3 * split buckets tiles of sub-buckets
      // (refine_memory::max_tiles): fewer than one a sub-bucket.
      const std::size_t target = tuning::sample_refine_target_keys(key_bytes, tile_log2);
      EXPECT_EQ(p.bucket_positions(key_bytes),
                ((n >> tile_log2) + n / target + 3 * tuning::sample_split_buckets(key_bytes))
                    << tile_log2)
          << where;
      EXPECT_GE(p.scratch_keys * key_bytes,
                p.split_offset_bytes +
                    kernels::sample_split::split_memory::bytes(n, key_bytes, tile_log2) +
                    kernels::refine_memory::bytes(n, key_bytes, tile_log2))
          << where;
      h100.refine_min_log2 = 0;
      const plan unrefined =
          make_plan(algorithm::optimized, n, key_bytes, h100, scratch_use::allowed);
      h100.refine_min_log2 = 24;
      EXPECT_EQ(memory_passes(p), memory_passes(unrefined) + 2) << where;
      EXPECT_LT(unrefined.scratch_keys, p.scratch_keys) << where;
    }
    const plan past = make_plan(algorithm::optimized, std::size_t{1} << 32, key_bytes, h100,
                                scratch_use::allowed);
    EXPECT_EQ(past.passes.front().kind, pass_kind::split_buckets) << describe(past);
    EXPECT_FALSE(past.refined) << "32-bit counts: no refinement of 2^32 keys";
  }
}

// 16-byte record words (kernels/record_io.cuh's wide_record_io) have only the split plan, whatever
// their count: the split (refined from the refinement's threshold), then the first pass and the
// merges on buckets, all writing words, as a record sort's last passes must.
TEST(Plan, WideRecordWordsAlwaysSplit) {
  constexpr std::size_t word_bytes = 16;
  const unsigned tile_log2 = tuning::optimized_tile_log2(word_bytes);
  EXPECT_EQ(tile_log2, 12u);
  const unsigned refine_min_log2 = tuning::sample_refine_min_log2(word_bytes);
  for (const std::size_t n : {std::size_t{2}, std::size_t{5000}, (std::size_t{1} << 22) + 3,
                              (std::size_t{1} << 26) - 1}) {
    const plan p = make_split_plan(n, word_bytes, refine_min_log2);
    const std::string where = describe(p);
    ASSERT_EQ(p.passes.front().kind, pass_kind::split_buckets) << where;
    EXPECT_EQ(p.refined, n >= std::size_t{1} << refine_min_log2) << where;
    for (std::size_t i = 1; i < p.passes.size(); ++i) {
      const pass& ps = p.passes[i];
      EXPECT_TRUE(ps.on_buckets && ps.writes_words) << where << " pass " << i;
      EXPECT_TRUE(ps.kind == (i == 1 ? pass_kind::sort_tiles : pass_kind::merge_stage))
          << where << " pass " << i;
    }
    EXPECT_GE(p.scratch_keys * word_bytes,
              p.split_offset_bytes +
                  kernels::sample_split::split_memory::bytes(n, word_bytes, tile_log2) +
                  (p.refined ? kernels::refine_memory::bytes(n, word_bytes, tile_log2) : 0))
        << where;
  }
  EXPECT_THROW(make_split_plan(1, word_bytes, refine_min_log2), error);
}

// Plans that split first (device_shape::split_min_log2): the split into the scratch, then the
// first pass and as many merges as a bucket of all n keys would take, all on the buckets, from the
// scratch to the keys (each bucket's passes end in the keys: nothing is copied back); the scratch
// holds the keys, the splits of the buckets' tiles of positions, then the split's memory. Below
// split_min_log2 or without scratch: the plans of before.
TEST(Plan, SplitsFirstFromItsSize) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
    device_shape h100{key_bytes == 4 ? 22u : 21u, 132, 0, 264};
    h100.split_min_log2 = 24;
    for (const std::size_t n : {std::size_t{1} << 24, (std::size_t{1} << 27) + 5}) {
      const plan p = make_plan(algorithm::optimized, n, key_bytes, h100, scratch_use::allowed);
      const std::string where = describe(p);
      ASSERT_EQ(p.passes.front().kind, pass_kind::split_buckets) << where;
      EXPECT_TRUE(p.passes.front().to_other) << where;
      EXPECT_EQ(p.buckets, tuning::sample_split_buckets(key_bytes)) << where;
      const std::size_t tiles = ((n - 1) >> tile_log2) + 1;
      ASSERT_EQ(p.passes.size(), network::ceil_log2(tiles) + 2) << where;
      EXPECT_EQ(p.passes[1].kind, pass_kind::sort_tiles) << where;
      EXPECT_EQ(p.passes[1].last, (step{tile_log2, 0})) << where;
      for (std::size_t i = 1; i < p.passes.size(); ++i) {
        const pass& ps = p.passes[i];
        EXPECT_TRUE(ps.on_buckets && ps.writes_words && !ps.to_other) << where << i;
        if (i == 1) continue;
        EXPECT_EQ(ps.kind, pass_kind::merge_stage) << where;
        EXPECT_EQ(ps.first, (step{unsigned(tile_log2 + i - 1), unsigned(tile_log2 + i - 2)}))
            << where;
        EXPECT_TRUE(ps.reads_words) << where;
      }
      const std::size_t positions = p.bucket_positions(key_bytes);
      EXPECT_EQ(positions, (tiles + p.buckets) << tile_log2) << where;
      EXPECT_GE(p.splits_offset_bytes, n * key_bytes) << where;
      EXPECT_GE(p.split_offset_bytes, p.splits_offset_bytes + 8 * (positions >> tile_log2))
          << where;
      EXPECT_GE(p.scratch_keys * key_bytes,
                p.split_offset_bytes +
                    kernels::sample_split::split_memory::bytes(n, key_bytes, tile_log2))
          << where;
      char keys = 0, scratch = 0;
      bool ends_in_scratch = true;
      for_each_pass(p, [&](const pass& ps, const pass_span& span) {
        const pass_buffers<char> buffers(ps, span, &keys, &scratch);
        EXPECT_EQ(buffers.from, ps.on_buckets ? &scratch : &keys) << where;
        EXPECT_EQ(buffers.to, ps.on_buckets ? &keys : &scratch) << where;
        ends_in_scratch = buffers.ends_in_scratch;
      });
      EXPECT_FALSE(ends_in_scratch) << where;
    }
    for (const plan& p : {make_plan(algorithm::optimized, (std::size_t{1} << 24) - 1, key_bytes,
                                    h100, scratch_use::allowed),
                          make_plan(algorithm::optimized, std::size_t{1} << 27, key_bytes, h100)}) {
      EXPECT_NE(p.passes.front().kind, pass_kind::split_buckets) << describe(p);
    }
  }
}

// Plans under a caller's order (bitonic.cuh) that do not split (positions compared through the
// keys): two pass kinds only, for every size: one pass over tiles up to a tile's keys, past it
// the merges out of place whatever the device.
TEST(Plan, ComparatorPlansMergeOutOfPlace) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
    for (const std::size_t n : {std::size_t{0}, std::size_t{1}}) {
      EXPECT_TRUE(make_comparator_plan(n, key_bytes, false).passes.empty()) << n;
    }
    for (const std::size_t n : {std::size_t{2}, std::size_t{1000}, std::size_t{1} << tile_log2}) {
      const plan p = make_comparator_plan(n, key_bytes, false);
      const std::string where = describe(p);
      ASSERT_EQ(p.passes.size(), 1u) << where;
      EXPECT_EQ(p.passes[0].kind, pass_kind::sort_tiles) << where;
      EXPECT_EQ(p.passes[0].last, (step{network::ceil_log2(n), 0})) << where;
      EXPECT_FALSE(p.needs_scratch()) << where;
      EXPECT_TRUE(is_valid_plan(p, algorithm::optimized, n, key_bytes)) << where;
    }
    for (const unsigned k : {tile_log2 + 1, tile_log2 + 2, 27u}) {
      const std::size_t n = (std::size_t{1} << (k - 1)) + 5;
      const plan p = make_comparator_plan(n, key_bytes, false);
      const std::string where = describe(p);
      ASSERT_EQ(p.passes.size(), k - tile_log2 + 1) << where;
      EXPECT_EQ(p.passes[0].kind, pass_kind::sort_tiles) << where;
      EXPECT_EQ(p.passes[0].to_other, (k - tile_log2) % 2 == 1) << where;
      EXPECT_EQ(p.passes.back().kind, pass_kind::merge_stage) << where;
      EXPECT_TRUE(is_valid_plan(p, algorithm::optimized, n, key_bytes)) << where;
      if (k > tile_log2 + 1) {  // as the library's plan past a cache block just over a tile
        const plan merged =
            make_plan(algorithm::optimized, n, key_bytes, device_shape{tile_log2 + 1, 132, 0, 264},
                      scratch_use::allowed);
        EXPECT_EQ(where, describe(merged));
        EXPECT_EQ(p.scratch_keys, merged.scratch_keys) << where;
        EXPECT_EQ(p.split_bytes, merged.split_bytes) << where;
      }
    }
  }
  EXPECT_THROW(make_comparator_plan(~std::size_t{0}, 4, false), error);
}

// A caller's keys themselves split where the word path's keys of their size do (refined where
// those are), into the split plan of their size; below that, the merges of positions' plans.
TEST(Plan, ComparatorPlansSplitFromTheWordPathsSize) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned split_log2 = tuning::sample_split_min_log2(key_bytes);
    const unsigned refine_log2 = tuning::sample_refine_min_log2(key_bytes);
    const std::size_t below = (std::size_t{1} << split_log2) - 1;
    EXPECT_EQ(describe(make_comparator_plan(below, key_bytes, true)),
              describe(make_comparator_plan(below, key_bytes, false)));
    for (const std::size_t n : {std::size_t{1} << split_log2, (std::size_t{1} << refine_log2) + 3,
                                std::size_t{1} << 27}) {
      const plan p = make_comparator_plan(n, key_bytes, true);
      const plan split = make_split_plan(n, key_bytes, refine_log2);
      const std::string where = describe(p);
      EXPECT_EQ(where, describe(split));
      EXPECT_EQ(p.passes.front().kind, pass_kind::split_buckets) << where;
      EXPECT_EQ(p.refined, n >= std::size_t{1} << refine_log2) << where;
      EXPECT_EQ(p.scratch_keys, split.scratch_keys) << where;
    }
  }
}

// Batched plans: rows of up to a tile are one sort_rows pass of a row's stages; longer rows run
// exactly the plan of one row of the next power of two (no device shape) over all rows, in place:
// a length that is not a power of two only sets row_log2, where memory holds the rows' keys back
// to back (stored_index), so no pass copies and nothing needs scratch.
TEST(Plan, BatchedRows) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
    const std::size_t tile = std::size_t{1} << tile_log2;
    for (const std::size_t length : {std::size_t{2}, std::size_t{3}, std::size_t{300}, tile - 1,
                                     tile, tile + 1, 2 * tile, 3 * tile, 8 * tile + 5}) {
      const std::size_t count = 7;
      const plan p = make_rows_plan({count, length}, key_bytes);
      const unsigned k = network::ceil_log2(length);
      const std::string what = "key_bytes=" + std::to_string(key_bytes) +
                               " length=" + std::to_string(length) + '\n' + describe(p);
      EXPECT_EQ(p.log2_size, k) << what;
      EXPECT_EQ(p.rows.count, count) << what;
      EXPECT_EQ(p.rows.length, length) << what;
      EXPECT_FALSE(p.needs_scratch()) << what;
      EXPECT_EQ(p.stored_keys(), count * length) << what;
      if (length <= tile) {
        ASSERT_EQ(p.passes.size(), 1u) << what;
        EXPECT_EQ(p.passes[0].kind, pass_kind::sort_rows) << what;
        EXPECT_EQ(p.passes[0].last, (step{k, 0})) << what;
        EXPECT_EQ(p.passes[0].steps(), network::step_count(k)) << what;
        EXPECT_EQ(p.n, count * length) << what;
        EXPECT_EQ(p.row_log2, 0u) << what;
        continue;
      }
      const std::size_t padded = std::size_t{1} << k;
      EXPECT_EQ(p.n, count * padded) << what;
      EXPECT_EQ(p.row_log2, padded == length ? 0u : k) << what;
      EXPECT_EQ(p.stored_index(3 * padded), 3 * length) << what;
      const plan one_row = make_plan(algorithm::optimized, padded, key_bytes);
      ASSERT_EQ(p.passes.size(), one_row.passes.size()) << what;
      for (std::size_t i = 0; i < p.passes.size(); ++i) {
        const pass &got = p.passes[i], &want = one_row.passes[i];
        EXPECT_TRUE(got.kind == want.kind && got.first == want.first && got.last == want.last &&
                    got.span_log2 == want.span_log2 && !got.to_other)
            << what << "pass " << i;
      }
      EXPECT_EQ(memory_passes(p), p.passes.size()) << what;
    }
    // With a cache block the keys exceed, the passes of rows past a tile run block by block:
    // blocks of 2^block_log2 positions, or (rows with missing keys) of whole rows, as many as
    // hold at most 2^block_log2 keys, in as few blocks as that allows; within one block, or rows
    // of a tile, as before.
    constexpr unsigned block_log2 = 22;
    for (const std::size_t length : {4 * tile, 4 * tile + 1, 5 * tile, tile}) {
      const std::size_t count = (std::size_t{1} << block_log2) / tile;  // 4 blocks' worth
      const plan blocked = make_rows_plan({count, length}, key_bytes, block_log2);
      const plan plain = make_rows_plan({count, length}, key_bytes);
      const std::string what = "length=" + std::to_string(length) + '\n' + describe(blocked);
      ASSERT_EQ(blocked.passes.size(), plain.passes.size()) << what;
      if (length == tile) {
        EXPECT_TRUE(blocked.blocked.empty()) << what;
        continue;
      }
      ASSERT_EQ(blocked.blocked.size(), 1u) << what;
      EXPECT_EQ(blocked.blocked[0].first, 0u) << what;
      EXPECT_EQ(blocked.blocked[0].count, blocked.passes.size()) << what;
      EXPECT_EQ(blocked.blocked[0].block_log2, block_log2) << what;
      const std::size_t positions = blocked.blocked[0].block_positions();
      const unsigned k = network::ceil_log2(length);
      if (length == 4 * tile) {
        EXPECT_EQ(positions, std::size_t{1} << block_log2) << what;
      } else {
        const std::size_t rows = positions >> k, most = (std::size_t{1} << block_log2) / length;
        EXPECT_EQ(positions, rows << k) << what << "whole rows";
        EXPECT_LE(rows, most) << what;
        EXPECT_EQ((count + rows - 1) / rows, (count + most - 1) / most) << what << "fewest blocks";
      }
      EXPECT_TRUE(make_rows_plan({3, length}, key_bytes, block_log2).blocked.empty())
          << "rows within one block";
    }
    for (const std::size_t length : {std::size_t{0}, std::size_t{1}}) {
      EXPECT_TRUE(make_rows_plan({5, length}, key_bytes).passes.empty());
    }
    EXPECT_TRUE(make_rows_plan({0, 1000}, key_bytes).passes.empty());
    EXPECT_TRUE(test::throws_error(
        [&] {
          make_rows_plan({std::size_t{1} << 40, (std::size_t{1} << 23) + 1}, key_bytes);
        },
        "largest supported size"));
  }
}

// Batched plans with scratch allowed: rows of up to a tile as without; longer rows the merged
// plan of one array (the first pass, then a merge_stage a stage, alternating so that the last
// ends in the keys) on rows of 2^k positions, with scratch for the stored keys and the splits of
// every tile of positions.
TEST(Plan, BatchedRowsMerged) {
  for (const std::size_t key_bytes : {4u, 8u}) {
    const unsigned tile_log2 = tuning::optimized_tile_log2(key_bytes);
    const std::size_t tile = std::size_t{1} << tile_log2;
    for (const std::size_t length :
         {std::size_t{300}, tile, tile + 1, 2 * tile, 3 * tile + 7, 8 * tile, 8 * tile + 5}) {
      const std::size_t count = 7;
      const plan p = make_rows_plan({count, length}, key_bytes, 22, scratch_use::allowed);
      const std::string what = "key_bytes=" + std::to_string(key_bytes) +
                               " length=" + std::to_string(length) + '\n' + describe(p);
      const unsigned k = network::ceil_log2(length);
      EXPECT_EQ(p.stored_keys(), count * length) << what;
      if (length <= tile) {
        EXPECT_FALSE(p.needs_scratch()) << what;
        ASSERT_EQ(p.passes.size(), 1u) << what;
        EXPECT_EQ(p.passes[0].kind, pass_kind::sort_rows) << what;
        continue;
      }
      const std::size_t padded = std::size_t{1} << k;
      EXPECT_EQ(p.n, count * padded) << what;
      EXPECT_EQ(p.row_log2, padded == length ? 0u : k) << what;
      EXPECT_TRUE(p.blocked.empty()) << what;
      ASSERT_EQ(p.passes.size(), 1 + k - tile_log2) << what;
      EXPECT_EQ(p.passes[0].kind, pass_kind::sort_tiles) << what;
      EXPECT_EQ(p.passes[0].last, (step{tile_log2, 0})) << what;
      for (unsigned s = tile_log2 + 1; s <= k; ++s) {
        const pass& ps = p.passes[s - tile_log2];
        EXPECT_EQ(ps.kind, pass_kind::merge_stage) << what << "stage " << s;
        EXPECT_EQ(ps.first.stage, s) << what;
        EXPECT_TRUE(ps.to_other) << what;
      }
      EXPECT_EQ(memory_passes(p), p.passes.size()) << what << "ends in the keys";
      const std::size_t tiles = p.n / tile;
      EXPECT_GE(p.splits_offset_bytes, count * length * key_bytes) << what;
      EXPECT_GE(p.split_bytes, (tiles + 1) * sizeof(network::index_t)) << what;
      EXPECT_GE(p.scratch_keys * key_bytes, p.splits_offset_bytes + p.split_bytes) << what;
    }
  }
}

TEST(Plan, GlobalStepPlanHasOnePassPerStep) {
  const std::size_t n = (std::size_t{1} << 27) + 3;
  const plan p = make_plan(algorithm::global_step, n, 4);
  EXPECT_EQ(p.passes.size(), network::step_count(28));
  EXPECT_TRUE(make_plan(algorithm::global_step, 1, 4).passes.empty());
  EXPECT_TRUE(make_plan(algorithm::block_merge, 0, 8).passes.empty());
}

TEST(Plan, DescribeWritesOneLinePerPass) {
  const plan p = make_plan(algorithm::block_merge, std::size_t{1} << 20, 4);
  const std::string text = describe(p);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), std::ptrdiff_t(p.passes.size() + 1));
  EXPECT_NE(text.find("block_merge"), std::string::npos);
  EXPECT_NE(text.find("merge_runs"), std::string::npos);
}

TEST(Plan, MemoryPassesOfKnownPlans) {
  const std::size_t n = std::size_t{1} << 27;
  EXPECT_EQ(memory_passes(algorithm::global_step, n, 4), 27u * 28 / 2);
  // The figures README and bitonic.hpp quote for 2^27 four-byte keys on an H100 (2^22-key cache
  // blocks, 132 SMs): 14 passes with scratch (a first pass over 2^14-key tiles and one merge a
  // stage after it), 32 in place.
  const device_shape h100{22, 132, 16, 264};
  EXPECT_EQ(memory_passes(make_plan(algorithm::optimized, n, 4, h100, scratch_use::allowed)), 14u);
  EXPECT_EQ(memory_passes(make_plan(algorithm::optimized, n, 4, h100)), 32u);
  // A merged stage counts once a stage; an odd number of passes into the other buffer ends with
  // a copy back.
  plan merged;
  merged.passes = {{pass_kind::merge_stages, step{15, 14}, step{18, 0}}};
  EXPECT_EQ(memory_passes(merged), 4u);
  plan swaps;
  swaps.passes.assign(3, pass{pass_kind::merge_runs, {}, {}, 0, 10, true});
  EXPECT_EQ(memory_passes(swaps), 3u + 1);
  swaps.passes.push_back(swaps.passes.back());
  EXPECT_EQ(memory_passes(swaps), 4u);
  // block_merge: one tile pass and 14 merges for 2^27 four-byte keys; 13 merges (odd) end with a
  // copy back into the keys.
  EXPECT_EQ(memory_passes(algorithm::block_merge, n, 4), 1u + 14);
  EXPECT_EQ(memory_passes(algorithm::block_merge, n / 2, 4), 1u + 13 + 1);
  EXPECT_THROW(memory_passes(algorithm::optimized, n, 2), bitonic::error);
  EXPECT_THROW(memory_passes(static_cast<algorithm>(42), n, 4), bitonic::error);
}

TEST(Plan, RejectsSizesBeyondTheIndexMath) {
  const std::size_t too_many = (std::size_t{1} << 63) + 1;
  EXPECT_THROW(make_plan(algorithm::shared_tiles, too_many, 4), bitonic::error);
  std::int32_t key = 0;  // never touched: the plan is refused first
  EXPECT_THROW(bitonic::sort_on_cpu(&key, too_many), bitonic::error);
  EXPECT_NO_THROW(make_plan(algorithm::global_step, std::size_t{1} << 63, 4));
}

TEST(Plan, AutomaticMustBeResolvedFirst) {
  EXPECT_TRUE(test::throws_error([] { make_plan(algorithm::automatic, 1000, 4); },
                                 "resolve automatic first"));
  // What automatic resolves to is what sort runs: optimized at every size and key size (README:
  // the fastest variant measured everywhere).
  for (const std::size_t key_bytes : {4u, 8u}) {
    for (const std::size_t n : {std::size_t{0}, std::size_t{2}, std::size_t{1} << 30}) {
      EXPECT_EQ(resolve_automatic(n, key_bytes), algorithm::optimized) << "n=" << n;
    }
  }
}

TEST(Plan, AlgorithmNamesAreDistinct) {
  std::vector<std::string_view> names;
  for (const algorithm algo : test::all_algorithms)
    names.push_back(to_string(algo));
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  EXPECT_EQ(std::count(names.begin(), names.end(), "unknown"), 0);
  EXPECT_EQ(to_string(static_cast<algorithm>(99)), "unknown");
}

}  // namespace
}  // namespace bitonic::plan
